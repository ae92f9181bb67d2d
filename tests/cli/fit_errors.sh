#!/usr/bin/env bash
# Every bad input to `hugetune fit` gives exit code 2 and one line naming file, line, problem.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect_error <expected message part> <hugetune fit args...>
expect_error() {
    local want=$1
    shift
    local rc=0
    "$bin" fit "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    [[ $rc -eq 2 ]] || fail "fit $*: exit $rc, want 2; stderr: $(cat "$tmp/err")"
    [[ ! -s $tmp/out ]] || fail "fit $*: wrote to stdout: $(cat "$tmp/out")"
    [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "fit $*: not one line: $(cat "$tmp/err")"
    grep -q '^hugetune: error: ' "$tmp/err" || fail "fit $*: no error prefix: $(cat "$tmp/err")"
    grep -qF -- "$want" "$tmp/err" || fail "fit $*: want '$want' in: $(cat "$tmp/err")"
}

csv() { printf "$2" >"$tmp/$1"; echo "$tmp/$1"; }

expect_error "$tmp/empty.csv, line 1: empty file" --input "$(csv empty.csv '')"
expect_error "line 1: missing header" --input "$(csv nohead.csv '2,44\n4,22\n8,16\n')"
expect_error "line 3: seconds 'abc' is not a number" \
    --input "$(csv cell.csv 'threads_per_node,seconds\n2,44\n4,abc\n8,16\n')"
expect_error "line 3: threads_per_node '0' must be at least 1" \
    --input "$(csv zero.csv 'threads_per_node,seconds\n2,44\n0,22\n8,16\n')"
expect_error "line 3: threads_per_node '-2' must be at least 1" \
    --input "$(csv neg.csv 'threads_per_node,seconds\n2,44\n-2,22\n8,16\n')"
expect_error "line 4: seconds '0' must be above 0" \
    --input "$(csv zs.csv 'threads_per_node,seconds\n2,44\n4,22\n8,0\n')"
expect_error "line 4: seconds '-1' must be above 0" \
    --input "$(csv ns.csv 'threads_per_node,seconds\n2,44\n4,22\n8,-1\n')"
expect_error "only 2 distinct threads_per_node" \
    --input "$(csv two.csv 'threads_per_node,seconds\n2,44\n4,22\n4,21\n')"
expect_error "is a directory" --input "$tmp"
expect_error "no such file" --input "$tmp/absent.csv"
if [[ $(id -u) -ne 0 ]]; then
    f=$(csv locked.csv 'threads_per_node,seconds\n2,44\n4,22\n8,16\n')
    chmod 000 "$f"
    expect_error "cannot read it" --input "$f"
fi
expect_error "line 3: not valid JSON" --input "$(csv broken.json '{\n "format": \n}\n')"
expect_error "format: not 'hugetune-sweep'" --input "$(csv other.json '{"format": "x"}')"
expect_error "--input: missing" --nodes 2
expect_error "--nodes: must be between" --input "$tmp/x" --nodes 0
expect_error "--tolerance: 'lots' is not a percentage" --input "$tmp/x" --tolerance lots
expect_error "--tolerance: '100' is not a percentage" --input "$tmp/x" --tolerance 100
expect_error "--cpus: fewer CPUs than --nodes" --input "$tmp/x" --nodes 4 --cpus 2
expect_error "unknown option" --input "$tmp/x" --frobnicate
echo "fit_errors: ok"
