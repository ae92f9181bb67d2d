#!/usr/bin/env bash
# The harness itself: a failed check exits 1, a skip 77, an unchecked failing command ends the
# script, and the scratch directory and exit actions are handled however the script ends.
source "$(dirname "$0")/lib/harness.bash"

# The checks below must not depend on the harness's own fail().
broken() {
    echo "FAIL: $*" >&2
    exit 1
}

# outcome CODE BODY: a script that sources the harness and runs BODY exits CODE, and its
# scratch directory is gone afterwards.
outcome() {
    local want=$1 body=$2 rc=0
    printf 'source %q\necho "$work" >%q\n%s\n' "$src/tests/cli/lib/harness.bash" \
        "$work/scratch" "$body" >"$work/case.sh"
    bash "$work/case.sh" "$bin" "$src" >"$work/case.out" 2>&1 || rc=$?
    [[ $rc -eq $want ]] || { cat "$work/case.out" >&2; broken "exit $rc, expected $want: $body"; }
    [[ ! -e $(cat "$work/scratch") ]] || broken "scratch directory left behind: $body"
}

outcome 0 'expect 0 true; stdout_empty; stderr_empty'
outcome 1 'expect 0 false'
outcome 1 'expect 3 sh -c "exit 2"'
outcome 0 'expect 3 sh -c "exit 3"'
outcome 1 'false; echo not reached'
outcome 1 'fail "on purpose"'
outcome 77 'skip "on purpose"'
outcome 0 'expect 0 echo hello; stdout_has ell; stdout_is hello; stdout_matches "^h.*o$"'
outcome 1 'expect 0 echo hello; stdout_has bye'
outcome 1 'expect 0 echo hello; stdout_is hell'
outcome 1 'expect 0 echo hello; stdout_empty'
outcome 0 'expect_error 2 "bad --x" sh -c "echo \"hugetune: error: bad --x\" >&2; exit 2"'
outcome 1 'expect_error 2 "bad" sh -c "echo \"hugetune: error: bad\" >&2; echo more >&2; exit 2"'
outcome 1 'expect_error 2 "bad" sh -c "echo \"error: bad\" >&2; exit 2"'
outcome 1 'expect_error 2 "other" sh -c "echo \"hugetune: error: bad\" >&2; exit 2"'

# Exit actions run, last registered first, also after a failure and on a signal.
outcome 1 "at_exit 'echo first >>$work/order'; at_exit 'echo second >>$work/order'; fail x"
[[ $(paste -sd, "$work/order") == "second,first" ]] || broken "exit actions: $(cat "$work/order")"
rm -f "$work/order"
outcome 143 "at_exit 'echo ran >>$work/order'; kill -TERM \$\$; sleep 5"
[[ $(cat "$work/order") == ran ]] || broken "exit action not run on SIGTERM"

echo '{"format": "hugetune-sweep", "format_version": 1, "parameters": {"page_size_kb": 2048}, "points": []}' >"$work/sweep.json"
outcome 0 "validate_schema sweep.schema.json $work/sweep.json"
echo '{"format": "hugetune-sweep", "format_version": 2}' >"$work/bad.json"
outcome 1 "validate_schema sweep.schema.json $work/bad.json"
echo "harness: ok"
