#!/usr/bin/env bash
# Where the sanitizer build's test time goes, side by side in one run (Makefile test-asan, the
# top CMakeLists.txt's -no-pie, tests/CMakeLists.txt's label shipped):
#  1. the binary's start (`--version`, 20 of each, alternating): linked as a position-independent
#     executable (relinked here from the build's own objects) against the build's -no-pie link;
#  2. one trial of the fleet suite (a flooding outlier host, 3 of each, alternating) with the
#     sanitizers' allocation stacks 30 frames deep (their default) against 8 (ASAN_TEST_OPTIONS);
#  3. the fleet suite on SQLite (tests/cli/fleet_sqlite.sh), once on the Release binary and once
#     on the sanitizer binary.
#     usage: tests/bench/asan_costs.sh ASAN_BUILD RELEASE_BUILD
set -euo pipefail
asan=$(realpath "${1:?usage: asan_costs.sh ASAN_BUILD RELEASE_BUILD}")
release=$(realpath "${2:?usage: asan_costs.sh ASAN_BUILD RELEASE_BUILD}")
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "uptime: $(uptime)"

link=$(cat "$asan/CMakeFiles/hugetune.dir/link.txt")
[[ $link == *-no-pie* ]] || { echo "asan_costs: $asan/hugetune is not linked with -no-pie" >&2; exit 1; }
(cd "$asan" && eval "${link//-no-pie/} -o $work/hugetune-pie" >/dev/null) ||
    { echo "asan_costs: relinking as a position-independent executable failed" >&2; exit 1; }
seconds() {
    local t=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 || { echo "asan_costs: failed: $*" >&2; exit 1; }
    /usr/bin/python3 -c "print($EPOCHREALTIME - $t)"
}
sum() { /usr/bin/python3 -c "import sys; print(sum(float(x) for x in sys.argv[1:]))" "$@"; }

pie=() fixed=()
for _ in $(seq 20); do
    pie+=("$(seconds "$work/hugetune-pie" --version)")
    fixed+=("$(seconds "$asan/hugetune" --version)")
done
a=$(sum "${pie[@]}") b=$(sum "${fixed[@]}")
/usr/bin/python3 -c "print('start, position-independent: %.3f s; -no-pie: %.3f s; ratio %.2f' % ($a/20, $b/20, $a/$b))"

deep=() shallow=()
for _ in 1 2 3; do
    deep+=("$(ASAN_OPTIONS=malloc_context_size=30 seconds "$asan/tests/hugetune_fleet_tests" -tc='a flooding outlier*')")
    shallow+=("$(ASAN_OPTIONS=malloc_context_size=8 seconds "$asan/tests/hugetune_fleet_tests" -tc='a flooding outlier*')")
done
a=$(sum "${deep[@]}") b=$(sum "${shallow[@]}")
/usr/bin/python3 -c "print('fleet trial, allocation stacks 30 deep: %.1f s; 8 deep: %.1f s; ratio %.2f' % ($a/3, $b/3, $a/$b))"

r=$(seconds bash "$source_dir/tests/cli/fleet_sqlite.sh" "$release/hugetune" "$source_dir")
s=$(ASAN_OPTIONS=malloc_context_size=8 seconds bash "$source_dir/tests/cli/fleet_sqlite.sh" "$asan/hugetune" "$source_dir")
/usr/bin/python3 -c "print('fleet suite on SQLite, Release: %.0f s; sanitizers: %.0f s; ratio %.1f' % ($r, $s, $s/$r))"
