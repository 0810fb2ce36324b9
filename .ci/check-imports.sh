#!/usr/bin/env bash
# Backends are reached only through package device: no package outside
# device/ may import device/host or device/cuda (or a package under them),
# tests included. The backend contract (device/driver) is device's too:
# outside device/ only bench/ imports it, for the backends' benchmark
# probes (C loops that bench/binding, bench/kernels and bench/array
# compare with), which package device does not expose. And product code is
# not benchmark code: no package outside bench/ imports one under it.
# Exits 1 naming each offending package and file.
#
# go list gives each package's imports for this platform and build tags
# (Imports, TestImports, XTestImports); files that a build constraint
# leaves out (IgnoredGoFiles) are read here directly, so a tagged file
# cannot hide an import.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
GO=${GO:-go}

module=$($GO list -m)
inside="$module/device"
backends="$module/device/host|$module/device/cuda"
backend_re="^($backends)(/|\$)"
driver_re="^$module/device/driver(/|\$)"

fail=0
report() { echo "check-imports: $1"; fail=1; }

# Listed first, so that a failing go list fails the check.
imports=$($GO list -e -f '{{.ImportPath}} {{.Dir}}{{range .Imports}} Imports:{{.}}{{end}}{{range .TestImports}} TestImports:{{.}}{{end}}{{range .XTestImports}} XTestImports:{{.}}{{end}}' ./...)
ignored=$($GO list -e -f '{{.ImportPath}} {{.Dir}}{{range .IgnoredGoFiles}} {{.}}{{end}}' ./...)

# One line per package: path, dir, then "kind:import" for every import.
while read -r pkg dir deps; do
	# Product code is not benchmark code: only bench/ imports bench/.
	if [[ $pkg != "$module/bench" && $pkg != "$module/bench/"* ]]; then
		for dep in $deps; do
			imp=${dep#*:}
			[[ $imp != "$module/bench" && $imp != "$module/bench/"* ]] || report "$pkg imports $imp (benchmark code)"
		done
	fi
	[[ $pkg == "$inside" || $pkg == "$inside"/* ]] && continue
	for dep in $deps; do
		kind=${dep%%:*} imp=${dep#*:}
		if [[ $imp =~ $backend_re ]]; then
			report "$pkg ($kind) imports $imp"
		elif [[ $imp =~ $driver_re && $pkg != "$module/bench/"* ]]; then
			report "$pkg ($kind) imports $imp (the backend contract; use package device)"
		fi
	done
done <<<"$imports"

# Files excluded by build constraints: read their import declarations,
# which end at the first other top-level declaration.
while read -r pkg dir files; do
	[[ $pkg == "$inside" || $pkg == "$inside"/* ]] && continue
	for f in $files; do
		[[ $f == *.go ]] || continue
		while read -r imp; do
			if [[ $imp =~ $backend_re || ($imp =~ $driver_re && $pkg != "$module/bench/"*) ]]; then
				report "$pkg ($f, excluded by its build constraint here) imports $imp"
			fi
		done < <(awk '
			/^(func|type|var|const)[ \t(]/ { exit }
			/^import[ \t]*\(/ { block = 1; next }
			block && /^\)/ { block = 0; next }
			block || /^import[ \t]/ { if (match($0, /"[^"]+"/)) print substr($0, RSTART + 1, RLENGTH - 2) }
		' "$dir/$f")
	done
done <<<"$ignored"

if ((fail)); then
	echo "check-imports: packages outside device/ reach a backend or the backend contract directly; use package device (its capabilities: RegisterHostKernel, SetPeerLink, ...)"
	exit 1
fi
echo "check-imports: no package outside device/ imports a backend, nor outside device/ and bench/ the backend contract"
