#!/usr/bin/env bash
# collect.sh takes what a GPU run brought back (the folder holding
# summary.txt and results.tar.gz, e.g. the device tool's files_at) and
#   - unpacks results.tar.gz into .gpu/results/<commit>/ (git-ignored: logs),
#   - copies the benchmark JSON and the summary into a folder of its own,
#     bench/results/<gpu model>/run-<commit>/, for committing,
#   - prints the run's summary.
#
#   bash bench/gpu/collect.sh DIR      (or: make gpu-results DIR=...)
#   OUT=bench/results/<gpu>/run-<commit> bash bench/gpu/collect.sh DIR
set -euo pipefail

DIR=${1:-}
if [[ -z $DIR || ! -f $DIR/results.tar.gz ]]; then
	echo "usage: bash bench/gpu/collect.sh DIR   (DIR holds results.tar.gz from bash .gpu/run.sh)" >&2
	exit 2
fi
DIR=$(cd "$DIR" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$DIR/results.tar.gz"
commit=$(tr -cd 'A-Za-z0-9._-' <"$tmp/COMMIT" 2>/dev/null || true)
dest=.gpu/results/${commit:-unknown}
rm -rf "$dest"
mkdir -p "$dest"
cp -R "$tmp"/. "$dest"/

# One folder per run: bench/results/<gpu model>/run-<commit>/ (the model
# read off the run's nvidia-smi log), or repeat-<commit>-b, -c, ... when
# that is taken; OUT=<folder> names it instead (a later call of the same
# run, say). BENCHMARKS.md says which runs the folder keeps.
model=$(grep -o -m1 -E 'H[0-9]{3}|A[0-9]{3}|B[0-9]{3}|L[0-9]{1,2}' "$dest/logs/nvidia-smi.log" 2>/dev/null | tr 'A-Z' 'a-z' || true)
short=${commit:0:7}
[[ $commit == *-dirty ]] && short+=-dirty
base=bench/results/${model:-unknown}
out=${OUT:-$base/run-${short:-unknown}}
if [[ -z ${OUT:-} && -e $out ]]; then
	for s in b c d e f g h i j k; do
		out=$base/repeat-${short:-unknown}-$s
		[[ -e $out ]] || break
	done
fi
mkdir -p "$out"
n=0
while IFS= read -r j; do
	cp "$j" "$out/"
	echo "$out/$(basename "$j")"
	n=$((n + 1))
done < <(find "$dest/results" -type f -name '*.json' 2>/dev/null | sort)
summary=$out/summary.txt
for k in 2 3 4 5 6 7 8 9; do
	[[ -e $summary ]] || break
	summary=$out/summary-$k.txt
done
cp "$dest/summary.txt" "$summary"
echo "collect: $n JSON file(s) and $(basename "$summary") into $out; logs in $dest/logs"
echo
cat "$dest/summary.txt"
