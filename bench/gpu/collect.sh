#!/usr/bin/env bash
# collect.sh takes what a GPU run brought back (the folder holding
# summary.txt and results.tar.gz, e.g. the device tool's files_at) and
#   - unpacks results.tar.gz into .gpu/results/<commit>/ (git-ignored: logs),
#   - copies the benchmark JSON into bench/results/ for committing,
#   - prints the run's summary.
#
#   bash bench/gpu/collect.sh DIR      (or: make gpu-results DIR=...)
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

mkdir -p bench/results
n=0
while IFS= read -r j; do
	cp "$j" bench/results/
	echo "bench/results/$(basename "$j")"
	n=$((n + 1))
done < <(find "$dest/results" -type f -name '*.json' 2>/dev/null | sort)
echo "collect: $n JSON file(s) into bench/results; logs in $dest/logs"
echo
cat "$dest/summary.txt"
