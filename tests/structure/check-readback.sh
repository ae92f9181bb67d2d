#!/usr/bin/env bash
# A command never parses JSON it wrote itself: a document goes from where it is made to where it
# is written as its type (model/documents/report.hpp), and its reader is for files. Prints each
# call of a document reader whose argument is a to_json() value, directly or through a variable
# of the same file that holds one; exits 1 if any. `--self-test` checks that it finds one.
set -uo pipefail
root=${1:-$(dirname "$0")/../..}
[[ $root == --self-test ]] && root=$(dirname "$0")/../..
cd "$root" || exit 2

readers='read_report|read_fit|read_measured_sweep|parse_sweep_json|parse_boot_sweep_json|read_fleet_answer|read_verification|read_boot_record|read_probe_record|read_sku|JsonField'

scan() {
    python3 - "$readers" "$@" <<'PY'
import re, sys
readers, files = sys.argv[1], sys.argv[2:]
bad = 0
for path in files:
    code = re.sub(r"//[^\n]*", "", open(path).read())
    made = set(re.findall(r"(\w+)\s*=\s*(?:model::)?(?:to_json|build_\w+)\(", code))
    made |= set(re.findall(r"json\s+(\w+)\s*(?:=|\{)\s*(?:model::)?to_json\(", code))
    # A command's function handed a JSON value it did not read from a file: the command made it.
    if "/cli/cmd_" in "/" + path:
        made |= set(re.findall(r"const\s+(?:nlohmann::)?json&\s+(\w+)", code))
    for m in re.finditer(r"\b(?:model::)?(%s)\s*\(([^;]*)" % readers, code):
        argument = m.group(2)
        names = set(re.findall(r"\b\w+\b", argument))
        if re.search(r"\b(?:to_json|build_\w+)\(", argument) or names & made:
            line = code.count("\n", 0, m.start()) + 1
            print(f"{path}:{line}: {m.group(1)}() reads JSON this program made from a value it "
                  "had; pass the value")
            bad = 1
sys.exit(bad)
PY
}

if [[ ${1:-} == --self-test ]]; then
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    printf '%s\n' 'void f(const Report& r) {' '    const nlohmann::json doc = model::to_json(r);' \
        '    const Report again = model::read_report(doc);' '}' >"$dir/readback.cpp"
    if scan "$dir/readback.cpp" >/dev/null; then
        echo "readback: the check missed a report read back from its own JSON"
        exit 1
    fi
    echo "readback: the check finds a report read back from its own JSON"
fi

# shellcheck disable=SC2046
scan $(git ls-files --cached --others --exclude-standard 'cli/*.cpp' 'tuner/*.cpp' \
    'reports/*.cpp' 'fleet_db/*.cpp' 'model/*.cpp') || exit 1
echo "readback: no command parses JSON it wrote itself"
