#!/usr/bin/env bash
# Not root: sweep and restore fail cleanly with exit 3, one line, nothing changed; the plan
# (--dry-run) needs no root.
source "$(dirname "$0")/lib/harness.bash"
use_pools
require_command setpriv "it runs hugetune as user nobody"
nobody_bin=$(nobody_copy "$bin")
as_nobody "$nobody_bin" --version >/dev/null 2>&1 || fail "user nobody cannot run $nobody_bin"

for cmd in "sweep --threads 1 --sample-mib 8 --repetitions 1" "restore"; do
    # shellcheck disable=SC2086
    expect_error 3 "needs root" as_nobody "$nobody_bin" $cmd
    stdout_empty
done
[[ ! -e $state_file ]] || fail "a state file appeared"
expect_pools "$original_pools" "non-root sweep"
expect 0 as_nobody "$nobody_bin" sweep --dry-run
stdout_matches "^sweep plan:"
echo "sweep_nonroot: ok"
