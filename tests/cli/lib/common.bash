# Shared helpers for the binary tests: source it, then call `expect`.
# usage in a test: BIN=$1; SRC=$2; source "$(dirname "$0")/lib/common.bash"
set -u
failures=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# expect CODE STDERR_SUBSTRING -- ARGS...   (STDERR_SUBSTRING "" = no check)
# Errors must be exactly one line on stderr starting with "hugetune: error: ".
expect() {
    local want_code=$1 want_err=$2
    shift 3
    "$BIN" "$@" >"$out" 2>"$err"
    local code=$?
    if [[ $code -ne $want_code ]]; then
        echo "FAIL: hugetune $* -> exit $code, wanted $want_code; stderr: $(cat "$err")"
        failures=$((failures + 1))
        return
    fi
    if [[ -n $want_err ]] && ! grep -qF -- "$want_err" "$err"; then
        echo "FAIL: hugetune $* -> stderr lacks '$want_err': $(cat "$err")"
        failures=$((failures + 1))
        return
    fi
    if [[ $want_code -ne 0 && -n $want_err ]]; then
        local lines
        lines=$(wc -l <"$err")
        if [[ $lines -ne 1 ]] || ! grep -q '^hugetune: error: ' "$err"; then
            echo "FAIL: hugetune $* -> error is not one 'hugetune: error:' line: $(cat "$err")"
            failures=$((failures + 1))
            return
        fi
    fi
    echo "ok: hugetune $* -> $code"
}

finish() {
    if [[ $failures -ne 0 ]]; then
        echo "$failures failed"
        exit 1
    fi
    echo "all passed"
}
