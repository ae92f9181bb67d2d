#!/usr/bin/env bash
# The product's cold compile, two commits side by side: each commit's tree checked out apart,
# configured as a packager builds it (Release, without unity, no compiler cache), and the
# binary (target hugetune) built from nothing, in turns, ROUNDS times. Prints each build's wall
# time and the compiler's CPU time (user and system of the build and its children), then the
# medians and the ratio NEW/OLD. Asserts nothing.
#     usage: tests/bench/compile_ab.sh OLD_REV NEW_REV [ROUNDS] [JOBS]
set -euo pipefail
old=${1:?usage: compile_ab.sh OLD_REV NEW_REV [ROUNDS] [JOBS]}
new=${2:?usage: compile_ab.sh OLD_REV NEW_REV [ROUNDS] [JOBS]}
rounds=${3:-1}
jobs=${4:-$(nproc)}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in old new; do
    git -C "$repo" archive --prefix="$side/" "${!side}" | tar -x -C "$work"
done
echo "old: $(git -C "$repo" rev-parse --short "$old"), new: $(git -C "$repo" rev-parse --short "$new")," \
    "$rounds round(s), -j $jobs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A walls cpus
for ((i = 1; i <= rounds; i++)); do
    for side in old new; do
        rm -rf "$work/build-$side"
        CCACHE_DISABLE=1 cmake -S "$work/$side" -B "$work/build-$side" -DCMAKE_BUILD_TYPE=Release \
            -DHUGETUNE_WERROR=ON -DCMAKE_UNITY_BUILD=OFF >/dev/null
        /usr/bin/time -f "%e %U %S" -o "$work/time" \
            cmake --build "$work/build-$side" -j "$jobs" --target hugetune >"$work/build.log" 2>&1 ||
            {
                tail -20 "$work/build.log"
                echo "compile_ab: the $side build failed"
                exit 1
            }
        read -r wall user sys <"$work/time"
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
        echo "round $i $side: wall $wall s, cpu $cpu s"
        walls[$side]+="$wall "
        cpus[$side]+="$cpu "
    done
done
median() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for what in walls cpus; do
    declare -n m=$what
    o=$(median "${m[old]}")
    n=$(median "${m[new]}")
    echo "median ${what%s}: old $o s, new $n s, new/old $(awk -v o="$o" -v n="$n" 'BEGIN { printf "%.2f", n / o }')"
done
