#!/usr/bin/env bash
# Folder dependencies point one way. Each library folder may include itself and what its line
# names, nothing else:
#     model     (pure functions of data)
#     reports   -> model
#     fleet_db  -> reports, model
#     tuner     -> model
#     cli       -> tuner, fleet_db, reports, model
# A unit test folder tests/unit/<folder>/ may include what <folder> may, and tests/unit/support.
# Every include of the project's own headers names its path from the repository root. Prints
# each offending line; exits 1 if any.
set -uo pipefail
root=${1:-$(dirname "$0")/../..}
cd "$root" || exit 2

declare -A sees=(
    [model]="model"
    [reports]="reports model"
    [fleet_db]="fleet_db reports model"
    [tuner]="tuner model"
    [cli]="cli tuner fleet_db reports model"
)

# The folders a file may include from; empty when no rule covers it (the tests' shared support,
# benchmarks, fuzzers, tools under tests/support, which may use any layer).
may_see() {
    local file=$1 top
    case $file in
    tests/unit/support/*) return ;;
    tests/unit/fleet/* | tests/support/fleet_generator.*)
        echo "reports model tests/unit/support tests/support"; return ;;
    tests/unit/*) top=${file#tests/unit/}; top=${top%%/*}
        echo "${sees[$top]:-} tests/unit/support"; return ;;
    esac
    top=${file%%/*}
    echo "${sees[$top]:-}"
}

bad=0
while IFS= read -r file; do
    allowed=$(may_see "$file")
    while IFS= read -r line; do
        inc=${line#*\"}
        inc=${inc%%\"*}
        if [[ ! -f $inc ]]; then
            echo "$file: #include \"$inc\" is not a path from the repository root"
            bad=1
            continue
        fi
        [[ -z $allowed ]] && continue
        ok=0
        for folder in $allowed; do
            [[ $inc == "$folder"/* ]] && ok=1
        done
        ((ok)) && continue
        echo "$file: #include \"$inc\" crosses the layers (${file%%/*} may include: $allowed)"
        bad=1
    done < <(grep -E '^#include "' "$file")
done < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' 2>/dev/null ||
    find model reports fleet_db tuner cli tests -name '*.[ch]pp')
[[ $bad == 0 ]] && echo "layers: every include follows cli -> tuner, fleet_db -> reports -> model"
exit $bad
