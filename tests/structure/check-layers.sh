#!/usr/bin/env bash
# Folder dependencies point one way: cli -> reports -> model, cli -> tuner -> model.
# Every include of the project's own headers names its path from the repository root, and a
# folder includes only what its layer may see. Prints each offending line; exits 1 if any.
set -uo pipefail
root=${1:-$(dirname "$0")/../..}
cd "$root" || exit 2

allowed() {  # allowed <file> <included path>
    case $1 in
    model/*) [[ $2 == model/* ]] ;;
    reports/*) [[ $2 == reports/* || $2 == model/* ]] ;;
    tuner/cli/* | tuner/main.cpp) true ;;
    tuner/boot_sweep/*) [[ $2 == tuner/boot_sweep/* || $2 == tuner/system/* || $2 == tuner/kernel/* ||
        $2 == tuner/probe/* || $2 == model/* ]] ;;
    tuner/*) [[ ($2 == tuner/* && $2 != tuner/cli/*) || $2 == model/* ]] ;;
    tests/unit/model/*) [[ $2 == model/* || $2 == tests/unit/support/* ]] ;;
    tests/unit/reports/*) [[ $2 == reports/* || $2 == model/* || $2 == tests/unit/support/* ]] ;;
    tests/unit/fleet/* | tests/support/fleet_generator.*) [[ $2 == reports/* || $2 == model/* ||
        $2 == tests/unit/support/* || $2 == tests/support/* ]] ;;
    tests/unit/tuner/*) [[ ($2 == tuner/* && $2 != tuner/cli/*) || $2 == model/* ||
        $2 == tests/unit/support/* ]] ;;
    *) true ;;
    esac
}

bad=0
while IFS= read -r file; do
    while IFS= read -r line; do
        inc=${line#*\"}
        inc=${inc%%\"*}
        if [[ ! -f $inc ]]; then
            echo "$file: #include \"$inc\" is not a path from the repository root"
            bad=1
        elif ! allowed "$file" "$inc"; then
            echo "$file: #include \"$inc\" crosses the layers (cli -> reports -> model, cli -> tuner -> model)"
            bad=1
        fi
    done < <(grep -E '^#include "' "$file")
done < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' 2>/dev/null || find model reports tuner tests -name '*.[ch]pp')
[[ $bad == 0 ]] && echo "layers: every include follows cli -> reports -> model, cli -> tuner -> model"
exit $bad
