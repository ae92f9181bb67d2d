#!/usr/bin/env bash
# Every member of JSON type in the product's headers is one listed, with why, in
# tests/structure/json-members.txt: a value made in one stage and read in another travels as its
# type, not as JSON that the next stage parses again (the read-back that check-readback.sh finds
# within one file, across files). Prints each member not listed and each listed line that no
# longer matches a member; exits 1 if any. `--self-test` first shows that it finds both.
#     usage: check-json-members.sh [SOURCE_DIR] | --self-test
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# members ROOT: "FILE: DECLARATION" for each member of JSON type (a declaration of a value, not
# of a function, at a member's indentation of four spaces: a local of an inline function sits
# deeper), its comment and spaces at the ends dropped.
members() {
    (cd "$1" && git ls-files --cached --others --exclude-standard 'cli/*.hpp' 'tuner/*.hpp' \
        'model/*.hpp' 'reports/*.hpp' 'fleet_db/*.hpp' |
        xargs grep -nE '^    (const\s+)?(nlohmann::)?(json|std::(optional|vector)<(nlohmann::)?json>)\s+[A-Za-z_][A-Za-z_0-9]*(\s*,\s*[A-Za-z_][A-Za-z_0-9]*)*\s*(;|=|\{)' /dev/null |
        sed -E 's|^([^:]*):[0-9]+:\s*|\1: |; s|\s*//.*$||; s|\s*=.*;$|;|; s|\s+$||' | sort -u)
}

# check ROOT LIST
check() {
    local root=$1 list=$2 bad=0 line
    local listed
    listed=$(grep -vE '^\s*(#|$)' "$list" | sed -E 's|\s+$||' | sort -u)
    while IFS= read -r line; do
        [[ -n $line ]] || continue
        echo "$line: a member of JSON type not in ${list#"$root"/}; carry the value as its type, or list it there with why"
        bad=1
    done < <(comm -23 <(members "$root") <(echo "$listed"))
    while IFS= read -r line; do
        [[ -n $line ]] || continue
        echo "${list#"$root"/}: '$line' is no member any more; remove the line"
        bad=1
    done < <(comm -13 <(members "$root") <(echo "$listed"))
    return "$bad"
}

if [[ ${1:-} == --self-test ]]; then
    tree=$(mktemp -d)
    trap 'rm -rf "$tree"' EXIT
    mkdir -p "$tree/model" "$tree/tests/structure"
    git -C "$tree" init -q
    printf 'struct A {\n    nlohmann::json kept;  // why\n    int n;\n};\nnlohmann::json to_json(const A& a);\n' >"$tree/model/a.hpp"
    printf 'model/a.hpp: nlohmann::json kept;\n' >"$tree/tests/structure/json-members.txt"
    out=$(check "$tree" "$tree/tests/structure/json-members.txt") ||
        { echo "self-test: a listed member failed: $out"; exit 1; }
    printf 'struct B {\n    std::optional<nlohmann::json> carried;\n};\n' >"$tree/model/b.hpp"
    out=$(check "$tree" "$tree/tests/structure/json-members.txt") &&
        { echo "self-test: a member not listed passed"; exit 1; }
    [[ $out == "model/b.hpp: std::optional<nlohmann::json> carried;: "* ]] ||
        { echo "self-test: unexpected report: $out"; exit 1; }
    rm "$tree/model/b.hpp"
    printf 'struct A {\n    int n;\n};\n' >"$tree/model/a.hpp"
    out=$(check "$tree" "$tree/tests/structure/json-members.txt") &&
        { echo "self-test: a listed member that is gone passed"; exit 1; }
    [[ $out == *"'model/a.hpp: nlohmann::json kept;' is no member any more"* ]] ||
        { echo "self-test: unexpected report: $out"; exit 1; }
    echo "json members: the check finds a member not listed and a listed one gone"
    root=$here/../..
else
    root=${1:-$here/../..}
fi
check "$root" "$root/tests/structure/json-members.txt" || exit 1
echo "json members: each member of JSON type is listed with why"
