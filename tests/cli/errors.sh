#!/usr/bin/env bash
# The built binary: exit codes and one-line errors for bad commands and options.
BIN=$1
SRC=$2
source "$(dirname "$0")/lib/common.bash"

expect 0 "" -- --help
grep -q '^  probe ' "$out" || { echo "FAIL: --help does not list probe"; failures=$((failures + 1)); }
grep -q 'Exit codes' "$out" || { echo "FAIL: --help does not document exit codes"; failures=$((failures + 1)); }
expect 0 "" -- --version
grep -qE '^hugetune [0-9]+\.[0-9]+\.[0-9]+$' "$out" || { echo "FAIL: --version: $(cat "$out")"; failures=$((failures + 1)); }
expect 0 "" -- probe --help
grep -q -- '--json' "$out" || { echo "FAIL: probe --help lacks --json"; failures=$((failures + 1)); }

expect 2 "" --
expect 2 "hugetune: error: unknown command 'frobnicate'; commands are: probe" -- frobnicate
expect 2 "unknown option '--frobnicate'" -- --frobnicate
expect 2 "unknown option '--bogus' for 'probe'; see 'hugetune probe --help'" -- probe --bogus
expect 2 "'--root' is missing" -- probe --root
expect 2 "--root: /no/such/dir is not a directory" -- probe --root /no/such/dir
expect 2 "unexpected argument for 'probe'" -- probe extra
expect 2 "--json" -- probe --json=maybe

# cmdline: exactly one line from a good report, one error line otherwise.
tmp=$(mktemp -d)
echo '{"recommendation": {"hugepage_alloc_threads": 32, "kernel_cmdline": "hugepage_alloc_threads=32"}}' >"$tmp/good.json"
expect 0 "" -- cmdline --report "$tmp/good.json"
[[ "$(cat "$out")" == "hugepage_alloc_threads=32" ]] || { echo "FAIL: cmdline printed: $(cat "$out")"; failures=$((failures + 1)); }
echo '{"host": {}}' >"$tmp/none.json"
expect 2 "recommendation: missing; is this a hugetune report?" -- cmdline --report "$tmp/none.json"
echo '{"recommendation": ' >"$tmp/bad.json"
expect 2 "bad.json:2:1: not valid JSON" -- cmdline --report "$tmp/bad.json"
expect 2 "'--report' is required" -- cmdline
rm -rf "$tmp"

finish
