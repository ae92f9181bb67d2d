#!/usr/bin/env bash
# Each source of the product with a header of the same name includes that header before anything
# else, so that compiling the source alone compiles the header alone: a header that leans on an
# include it lacks then fails that compile, and the header check (cmake/HeaderCheck.cmake) need
# not compile it again. Prints each source whose first include is another; exits 1 if any.
#     usage: check-includes.sh [SOURCE_DIR] | --self-test
set -uo pipefail
if [[ ${1:-} == --self-test ]]; then
    # The check finds a source whose own header comes second, and passes the same tree fixed.
    tree=$(mktemp -d)
    trap 'rm -rf "$tree"' EXIT
    mkdir -p "$tree/model"
    git -C "$tree" init -q
    printf '#pragma once\n' >"$tree/model/a.hpp"
    printf '#include <vector>\n#include "model/a.hpp"\n' >"$tree/model/a.cpp"
    out=$(bash "$0" "$tree") && { echo "self-test: a source with its header second passed"; exit 1; }
    [[ $out == "model/a.cpp:1: "* ]] || { echo "self-test: unexpected report: $out"; exit 1; }
    printf '#include "model/a.hpp"\n\n#include <vector>\n' >"$tree/model/a.cpp"
    out=$(bash "$0" "$tree") || { echo "self-test: the fixed source failed: $out"; exit 1; }
    exec bash "$0" "$(dirname "$0")/../.."
fi
root=${1:-$(dirname "$0")/../..}
cd "$root" || exit 2

bad=0
while IFS= read -r source; do
    header=${source%.cpp}.hpp
    [[ -f $header ]] || continue
    first=$(grep -n -m1 '^[[:space:]]*#[[:space:]]*include' "$source")
    if [[ ${first#*:} != "#include \"$header\"" ]]; then
        echo "$source:${first%%:*}: the first include is '${first#*:}'; include \"$header\" before anything else"
        bad=1
    fi
done < <(git ls-files --cached --others --exclude-standard 'cli/*.cpp' 'tuner/*.cpp' 'model/*.cpp' \
    'reports/*.cpp' 'fleet_db/*.cpp')
exit "$bad"
