#!/usr/bin/env bash
# Every bad input to `hugetune fit` gives exit code 2 and one line naming file, line, problem.
source "$(dirname "$0")/lib/harness.bash"

# refused <expected message part> <hugetune fit args...>: exit 2, one error line, no stdout.
refused() {
    local want=$1
    shift
    expect_error 2 "$want" "$bin" fit "$@"
    stdout_empty
}

csv() { printf "$2" >"$work/$1"; echo "$work/$1"; }

refused "$work/empty.csv, line 1: empty file" --input "$(csv empty.csv '')"
refused "line 1: missing header" --input "$(csv nohead.csv '2,44\n4,22\n8,16\n')"
refused "line 3: seconds 'abc' is not a number" \
    --input "$(csv cell.csv 'threads_per_node,seconds\n2,44\n4,abc\n8,16\n')"
refused "line 3: threads_per_node '0' must be at least 1" \
    --input "$(csv zero.csv 'threads_per_node,seconds\n2,44\n0,22\n8,16\n')"
refused "line 3: threads_per_node '-2' must be at least 1" \
    --input "$(csv neg.csv 'threads_per_node,seconds\n2,44\n-2,22\n8,16\n')"
refused "line 4: seconds '0' must be above 0" \
    --input "$(csv zs.csv 'threads_per_node,seconds\n2,44\n4,22\n8,0\n')"
refused "line 4: seconds '-1' must be above 0" \
    --input "$(csv ns.csv 'threads_per_node,seconds\n2,44\n4,22\n8,-1\n')"
refused "only 2 distinct threads_per_node" \
    --input "$(csv two.csv 'threads_per_node,seconds\n2,44\n4,22\n4,21\n')"
# Past the input bounds (README "Input size"): refused before any parsing, naming the bound.
truncate -s $((64 * 1024 * 1024 + 1)) "$work/huge.csv"
refused "$work/huge.csv: larger than 64 MiB, the most hugetune reads" --input "$work/huge.csv"
python3 -S -c 'print("{\"format\": \"hugetune-sweep\", \"x\": [" + ",".join(["0"] * 4000001) + "]}")' \
    >"$work/values.json"
refused "$work/values.json: more than 4000000 JSON values" --input "$work/values.json"
refused "is a directory" --input "$work"
refused "no such file" --input "$work/absent.csv"
if ! is_root; then
    f=$(csv locked.csv 'threads_per_node,seconds\n2,44\n4,22\n8,16\n')
    chmod 000 "$f"
    refused "cannot read it" --input "$f"
fi
refused "broken.json:3:1: not valid JSON" --input "$(csv broken.json '{\n "format": \n}\n')"
refused "format: not 'hugetune-sweep'" --input "$(csv other.json '{"format": "x"}')"
refused "--input: missing" --nodes 2
refused "--nodes: must be between" --input "$work/x" --nodes 0
refused "--tolerance: 'lots' is not a percentage" --input "$work/x" --tolerance lots
refused "--tolerance: '100' is not a percentage" --input "$work/x" --tolerance 100
refused "--cpus: fewer CPUs than --nodes" --input "$work/x" --nodes 4 --cpus 2
refused "unknown option" --input "$work/x" --frobnicate
# A number no double holds and a key given twice: refused as JSON no two readers read alike.
sed 's/"format_version": *1/"format_version": 1, "x": 1e999/' "$src/tests/data/sweep-zen4-2node.json" >"$work/overflow.json"
grep -q 1e999 "$work/overflow.json" || fail "the overflow fixture was not made"
refused "--input $work/overflow.json: not valid JSON (number overflow parsing '1e999'" --input "$work/overflow.json"
sed 's/"format_version": *1/"format_version": 1, "format_version": 1/' "$src/tests/data/sweep-zen4-2node.json" >"$work/twice.json"
refused "--input $work/twice.json: not valid JSON (key 'format_version' appears twice in one object)" --input "$work/twice.json"
echo "fit_errors: ok"
