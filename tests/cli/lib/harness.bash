# The harness of the binary tests. ctest runs every tests/cli/*.sh as `bash SCRIPT BIN SRC`
# (tests/CMakeLists.txt) and reads exit 77 as a skip; a script starts with
#     source "$(dirname "$0")/lib/harness.bash"
# and gets: $bin (the hugetune under test), $src (the checkout), a scratch directory $work
# removed on exit, and the functions below. The first failed check ends the script with exit 1,
# and so does any command that fails unchecked (errexit).
# shellcheck shell=bash
# Under pipefail a pipeline that ends in `grep -q` fails when grep, done at its first match,
# closes the pipe before the command before it has written all (SIGPIPE): a check that passes
# or fails by timing. Checks read the whole output instead (`| grep PATTERN >/dev/null`).
# The scripts' inline Python (`python3 -S -c`, `python3 -S -`) uses the standard library only
# and starts without the site module: importing it (every .pth file of the installed packages)
# took about 0.07 of a 0.17 s start on the development machine (20 starts each way), and the
# fleet suites start Python over a hundred times. Python that needs an installed package (yaml, jsonschema) and
# the support scripts start it normally.
set -euo pipefail

bin=${1:?usage: bash SCRIPT HUGETUNE_BINARY SOURCE_DIR}
src=${2:?usage: bash SCRIPT HUGETUNE_BINARY SOURCE_DIR}
# Debian's python3 (the one the test packages' modules belong to) before any other on PATH
# (tests/debian-python/README.md); where it is missing the link leads nowhere and the lookup
# goes on down PATH.
PATH=$src/tests/debian-python:$PATH
work=$(mktemp -d)
out=$work/out  # stdout of the last `expect`
err=$work/err  # stderr of the last `expect`

# --- exit: cleanup actions, failure, skip -------------------------------------------------

harness_exit_actions=()

# at_exit COMMAND: evaluated when the script ends, however it ends (last registered first).
at_exit() { harness_exit_actions+=("$1"); }

harness_on_exit() {
    local rc=$? i
    for ((i = ${#harness_exit_actions[@]} - 1; i >= 0; i--)); do
        eval "${harness_exit_actions[i]}" || true
    done
    chmod -R u+rwx "$work" 2>/dev/null || true
    rm -rf "$work"
    exit "$rc"
}
trap harness_on_exit EXIT
# A signal ends the script through the EXIT trap too, so pools and files are put back.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# skip REASON: the test cannot run here; ctest reports it as skipped, with the reason.
skip() {
    echo "SKIP: $*"
    exit 77
}

# --- one command's exit code, stdout and stderr ------------------------------------------

# expect CODE COMMAND...: runs COMMAND with stdout in $out and stderr in $err; fails unless it
# exits CODE. Variables set before it (`VAR=x expect ...`) reach COMMAND.
expect() {
    local want=$1 rc=0
    shift
    "$@" >"$out" 2>"$err" || rc=$?
    if [[ $rc -ne $want ]]; then
        cat "$out" "$err" >&2
        fail "exit $rc, expected $want: $*"
    fi
}

# expect_error CODE TEXT COMMAND...: COMMAND exits CODE with one error line containing TEXT.
expect_error() {
    local code=$1 text=$2
    shift 2
    expect "$code" "$@"
    one_error_line
    stderr_has "$text"
}

harness_has() {  # harness_has FILE NAME GREP_OPTION PATTERN
    grep -q "$3" -- "$4" "$1" || {
        cat "$1" >&2
        fail "$2 lacks: $4"
    }
}
stdout_has() { harness_has "$out" stdout -F "$1"; }
stderr_has() { harness_has "$err" stderr -F "$1"; }
stdout_matches() { harness_has "$out" stdout -E "$1"; }
stderr_matches() { harness_has "$err" stderr -E "$1"; }
stdout_is() { [[ $(cat "$out") == "$1" ]] || fail "stdout is '$(cat "$out")', expected '$1'"; }
stdout_empty() { [[ ! -s $out ]] || fail "stdout is not empty: $(cat "$out")"; }
stderr_empty() { [[ ! -s $err ]] || fail "stderr is not empty: $(cat "$err")"; }

# Every error hugetune reports is exactly one line on stderr, "hugetune: error: ...".
one_error_line() {
    if [[ $(wc -l <"$err") -ne 1 ]] || ! grep -q '^hugetune: error: ' "$err"; then
        cat "$err" >&2
        fail "expected one 'hugetune: error:' line on stderr"
    fi
}

# validate_schema SCHEMA FILE...: each FILE validates against model/documents/schema/SCHEMA.
validate_schema() {
    local schema=$1
    shift
    python3 "$src/tests/support/validate-schema.py" "$src/model/documents/schema/$schema" "$@" ||
        fail "$* does not validate against $schema"
}

# --- what the machine must offer ------------------------------------------------------------

is_root() { [[ $(id -u) -eq 0 ]]; }
require_root() { is_root || skip "needs root: $*"; }
require_command() { command -v "$1" >/dev/null || skip "$1 is not installed: $2"; }
require_hugetlb() {
    [[ -d /sys/kernel/mm/hugepages ]] ||
        skip "this kernel has no hugetlb (/sys/kernel/mm/hugepages missing)"
}

# --- running as user nobody ------------------------------------------------------------------

as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# nobody_copy FILE: prints the path of a copy of FILE that user nobody can run, wherever the
# checkout or build directory lives (a clone under /root is out of nobody's reach).
nobody_copy() {
    mkdir -p "$work/nobody"
    chmod 755 "$work" "$work/nobody"
    cp "$1" "$work/nobody/" && chmod 755 "$work/nobody/$(basename "$1")"
    echo "$work/nobody/$(basename "$1")"
}

# can_run_as_nobody FILE: whether this root can drop to nobody and run FILE there.
can_run_as_nobody() {
    is_root && command -v setpriv >/dev/null && as_nobody true 2>/dev/null && as_nobody test -x "$1"
}

# --- huge page pools: snapshot, compare, put back --------------------------------------------

state_file=/run/hugetune/state.json
harness_background_pids=()

# Every value a sweep could disturb, global and per node, one "path value" per line.
pool_snapshot() {
    local f
    for f in /sys/kernel/mm/hugepages/*/{nr_hugepages,nr_overcommit_hugepages,free_hugepages} \
        /sys/kernel/mm/hugepages/*/{surplus_hugepages,resv_hugepages} \
        /sys/devices/system/node/node*/hugepages/*/{nr_hugepages,free_hugepages} \
        /sys/devices/system/node/node*/hugepages/*/surplus_hugepages; do
        if [[ -r $f ]]; then
            echo "$f $(cat "$f")"
        fi
    done
}

# use_pools: this test changes huge page pools; skips without root or hugetlb, saves every
# value now ($original_pools) and puts them back when the script ends.
use_pools() {
    require_root "to change huge page pools"
    require_hugetlb
    original_pools=$(pool_snapshot)
    at_exit harness_put_pools_back
}

# track_background PID: a process this test started; killed when the script ends.
track_background() { harness_background_pids+=("$1"); }

harness_put_pools_back() {
    local pid pattern f v
    for pid in "${harness_background_pids[@]}"; do
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [[ -e $state_file ]]; then
        "$bin" restore >/dev/null 2>&1 || true
    fi
    # Overcommit first, then per-node pools, then the global pool (as hugetune does); only
    # values that differ (the kernel refuses some writes, e.g. overcommit of gigantic pages).
    for pattern in nr_overcommit_hugepages '/node/node.*/nr_hugepages' \
        '^/sys/kernel/mm/hugepages/.*/nr_hugepages'; do
        while read -r f v; do
            [[ $(cat "$f") == "$v" ]] || echo "$v" >"$f" || true
        done < <(grep -- "$pattern" <<<"$original_pools" || true)
    done
    rm -f "$state_file"
}

# expect_pools SNAPSHOT WHAT: the pools hold the values of SNAPSHOT (from pool_snapshot).
expect_pools() {
    local now
    now=$(pool_snapshot)
    if [[ $now != "$1" ]]; then
        diff <(echo "$1") <(echo "$now") >&2 || true
        fail "$2: huge page values differ from before"
    fi
}

# wait_held HOLD POINT PID STDERR: until the binary PID says in the file HOLD that it holds at
# POINT (HUGETUNE_TEST_HOLD, tuner/system/test_hold.hpp), up to 60 s; fails showing its STDERR
# when it exits first or never holds.
wait_held() {
    local hold=$1 point=$2 pid=$3 stderr=$4 i
    for i in $(seq 600); do
        grep -qx "held $point $pid" "$hold" && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    cat "$stderr" >&2
    fail "the binary did not hold at $point: '$(cat "$hold")'"
}

# wait_for_file FILE: until FILE exists and is not empty (a sweep has started), up to 20 s.
wait_for_file() {
    local i
    for i in $(seq 200); do
        [[ -s $1 ]] && return 0
        sleep 0.1
    done
    fail "timed out waiting for $1"
}
