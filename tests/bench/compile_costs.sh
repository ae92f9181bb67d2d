#!/usr/bin/env bash
# What each source of the product costs to compile: the tree configured as a packager builds it
# (Release, without unity, no compiler cache), the binary (target hugetune) built from nothing
# with every compile timed (user and system CPU seconds, by /usr/bin/time around the compiler),
# then the sources grouped by the heavy headers they reach (tests/bench/compile_costs.py): the
# JSON library, its forward declarations only, Boost.Program_options, SOCI, Eigen. Asserts
# nothing.
#     usage: tests/bench/compile_costs.sh [REV] [JOBS]
set -euo pipefail
rev=${1:-HEAD}
jobs=${2:-$(nproc)}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$repo" archive --prefix=src/ "$rev" | tar -x -C "$work"
cat >"$work/timed-compiler" <<'SH'
#!/bin/bash
source=""
for arg in "$@"; do [[ $arg == *.cpp ]] && source=$arg; done
exec /usr/bin/time -a -o "$COMPILE_TIMES" -f "%U %S %e $source" "$@"
SH
chmod +x "$work/timed-compiler"
echo "rev $(git -C "$repo" rev-parse --short "$rev"), -j $jobs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
CCACHE_DISABLE=1 cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DHUGETUNE_WERROR=ON -DCMAKE_UNITY_BUILD=OFF -DHUGETUNE_TESTS=OFF \
    -DCMAKE_CXX_COMPILER_LAUNCHER="$work/timed-compiler" >/dev/null
export COMPILE_TIMES=$work/times.txt
/usr/bin/time -f "%e %U %S" -o "$work/total" cmake --build "$work/build" -j "$jobs" --target hugetune \
    >"$work/build.log" 2>&1 || {
    tail -20 "$work/build.log"
    echo "compile_costs: the build failed"
    exit 1
}
read -r wall user sys <"$work/total"
echo "build: wall $wall s, cpu $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }') s"
python3 "$here/compile_costs.py" "$work/src" "$work/times.txt"
