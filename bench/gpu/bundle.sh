#!/usr/bin/env bash
# bundle.sh builds the GPU bundle into .gpu/ (git-ignored), for a machine
# that has a GPU but no Go toolchain:
#
#   .gpu/bin.tar.xz   (or .tar.gz) tests/<pkg-path-with-dashes>.test for every
#                     package with tests, bin/<pkg-path-with-dashes> for every
#                     main package under cmd/, examples/ and bench/; all
#                     stripped and built with -trimpath, the programs with
#                     -tags gpuarrbench (the CUDA backend's benchmark probes,
#                     which bench/binding and bench/kernels compare with)
#   .gpu/peer/        bench/peer/*.py (the PyTorch/CuPy comparison scripts)
#   .gpu/MANIFEST     one line per step: kind name package-dir
#   .gpu/COMMIT       git rev-parse HEAD, plus -dirty when the tree is dirty
#   .gpu/run.sh       bench/gpu/run.sh, which runs it all
#   .gpu/multinode.sh bench/gpu/multinode.sh: launchers and data-parallel
#                     scaling on four GPUs
#
# The binaries are compressed into one archive because a dozen stripped Go
# binaries are 50+ MiB, and the tree that travels to the GPU machine must stay
# under 64 MiB; run.sh unpacks them into a temporary folder.
#
# KEEP_GOING=1 records packages that fail to build in MANIFEST (run.sh then
# reports each as a failed step) instead of stopping at the first.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
GO=${GO:-go}
BENCH_TAGS=gpuarrbench
KEEP_GOING=${KEEP_GOING:-0}
LIMIT_MIB=${BUNDLE_LIMIT_MIB:-56} # bundle + travelling tree; the tool's limit is 64

B=.gpu
rm -rf "$B"
mkdir -p "$B/stage/tests" "$B/stage/bin" "$B/peer"
STAGE=$B/stage
MANIFEST=$B/MANIFEST
: >"$MANIFEST"
MODULE=$($GO list -m)
broken=0

# name turns an import path into the package's path with dashes:
# github.com/gpuarr/gpuarr/device/cuda -> device-cuda.
name() {
	local p=${1#"$MODULE"}
	p=${p#/}
	p=${p:-gpuarr}
	echo "${p//\//-}"
}

built() { # kind name dir
	echo "$1 $2 ${3#"$ROOT"/}" >>"$MANIFEST"
}

failed() { # kind name dir
	broken=$((broken + 1))
	if [[ $KEEP_GOING != 1 ]]; then
		echo "bundle: $2 does not build (KEEP_GOING=1 bundles the rest)" >&2
		exit 1
	fi
	echo "broken-$1 $2 ${3#"$ROOT"/}" >>"$MANIFEST"
}

echo "bundle: test binaries"
while read -r pkg dir; do
	[[ -n $pkg ]] || continue
	n=$(name "$pkg")
	echo "  $n.test"
	# The CUDA backend's tests include those of its benchmark probes.
	tags=()
	[[ $n == device-cuda ]] && tags=(-tags "$BENCH_TAGS")
	if $GO test -c "${tags[@]}" -trimpath -ldflags='-s -w' -o "$STAGE/tests/$n.test" "$pkg"; then
		built test "$n" "$dir"
	else
		failed test "$n" "$dir"
	fi
done < <($GO list -e -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' ./...)

echo "bundle: programs"
while read -r pkg dir; do
	[[ -n $pkg ]] || continue
	n=$(name "$pkg")
	case $n in
	cmd-*) kind=cmd ;;
	examples-*) kind=example ;;
	bench-tables) continue ;; # reads results; not a benchmark
	bench-*) kind=bench ;;
	*) continue ;;
	esac
	echo "  $n"
	if $GO build -tags "$BENCH_TAGS" -trimpath -ldflags='-s -w' -o "$STAGE/bin/$n" "$pkg"; then
		built "$kind" "$n" "$dir"
	else
		failed "$kind" "$n" "$dir"
	fi
done < <($GO list -tags "$BENCH_TAGS" -e -f '{{if eq .Name "main"}}{{.ImportPath}} {{.Dir}}{{end}}' ./cmd/... ./examples/... ./bench/... 2>/dev/null)

# Peer scripts: every bench/peer/*.py is copied (helpers too); those whose
# name does not start with "_" are run with --out.
shopt -s nullglob
for f in bench/peer/*.py; do
	cp "$f" "$B/peer/"
	base=$(basename "$f" .py)
	[[ $base == _* ]] || built peer "$base" bench/peer
done
shopt -u nullglob

if [[ -n $(git status --porcelain 2>/dev/null) ]]; then dirty=-dirty; else dirty=; fi
echo "$(git rev-parse HEAD 2>/dev/null || echo unknown)$dirty" >"$B/COMMIT"
cp bench/gpu/run.sh "$B/run.sh"
cp bench/gpu/multinode.sh "$B/multinode.sh"

echo "bundle: compressing"
if command -v xz >/dev/null; then
	tar -C "$STAGE" -cf - tests bin | xz -9 -T0 >"$B/bin.tar.xz"
else
	tar -C "$STAGE" -czf "$B/bin.tar.gz" tests bin
fi
raw=$(du -sb "$STAGE" | cut -f1)
rm -rf "$STAGE"

mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
bundle=$(du -sb "$B" | cut -f1)
# (du complains about files deleted but still tracked: not an error here)
tree=$({ git ls-files -co --exclude-standard -z 2>/dev/null || true; } | { du -cb --files0-from=- 2>/dev/null || true; } | tail -1 | cut -f1)
tree=${tree:-0}
total=$((bundle + tree))
echo
echo "bundle: $(grep -c '^test ' "$MANIFEST") test binaries, $(grep -c -E '^(cmd|example|bench) ' "$MANIFEST") programs, $(grep -c '^peer ' "$MANIFEST") peer scripts; commit $(cat "$B/COMMIT")"
echo "bundle: .gpu is $(mib "$bundle") ($(mib "$raw") of binaries before compression); with the $(mib "$tree") tree that travels: $(mib "$total") of the 64 MiB limit"
echo "bundle: run it with the device tool: carry [\".gpu\"], command: bash .gpu/run.sh [all|tests|unified|bench|sanitize]"
if ((total > LIMIT_MIB * 1048576)); then
	echo "bundle: too big: bundle and tree exceed ${LIMIT_MIB} MiB" >&2
	exit 1
fi
if ((broken > 0)); then
	echo "bundle: $broken package(s) did not build; run.sh will report them as failed" >&2
fi
