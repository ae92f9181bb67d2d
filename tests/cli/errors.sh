#!/usr/bin/env bash
# The built binary: exit codes and one-line errors for bad commands and options.
source "$(dirname "$0")/lib/harness.bash"

expect 0 "$bin" --help
stdout_matches '^  probe '
stdout_has 'Exit codes'
expect 0 "$bin" --version
stdout_matches '^hugetune [0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{7,40}|unknown)\)$'
# Built from a git tree, the hash names one of its commits (a later commit may follow it).
commit=$(sed -n 's/^hugetune [^ ]* (\([0-9a-f]*\))$/\1/p' "$out")
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    [[ -n $commit ]] || fail "--version names no commit in a git tree: $(cat "$out")"
    git -C "$src" cat-file -e "$commit^{commit}" || fail "--version names $commit, not a commit of $src"
fi
expect 0 "$bin" probe --help
stdout_has '--json'

expect 2 "$bin"
expect_error 2 "hugetune: error: unknown command 'frobnicate'; commands are: probe" "$bin" frobnicate
expect_error 2 "unknown option '--frobnicate'" "$bin" --frobnicate
expect_error 2 "unknown option '--bogus' for 'probe'; see 'hugetune probe --help'" "$bin" probe --bogus
# No option is abbreviated, for any command: a shortened --root, --dry-run or --value is refused
# before anything runs.
for command in "apply --value 8 --roo $work" "apply --value 8 --dry" "apply --val 8 --dry-run" \
    "rollback --dry" "verify --roo=$work" "sweep --dry" "run --roo $work" "probe --js" \
    "boot-sweep plan --roo $work"; do
    # shellcheck disable=SC2086 # the command's words
    expect_error 2 "unknown option '--" "$bin" $command
done
expect_error 2 "'--root' is missing" "$bin" probe --root
# A --root that is this machine's own / (a link to it, a ".." that climbs to it) would work on
# this machine under the name of a tree: refused, for every command that takes --root.
ln -s / "$work/slash"
climb=$work$(printf '/..%.0s' $(seq "$(tr -cd / <<<"$work" | wc -c)"))
for dir in "$work/slash" "$climb"; do
    for command in "probe" "verify" "sweep --dry-run" "apply --value 8 --dry-run" \
        "rollback --dry-run" "boot-sweep plan" "boot-sweep status"; do
        # shellcheck disable=SC2086 # the command's words
        expect_error 2 "--root: $dir is this machine's own /, and --root names another tree; leave --root out" \
            "$bin" $command --root "$dir"
    done
done
expect_error 2 "--root: /no/such/dir is not a directory" "$bin" probe --root /no/such/dir
expect_error 2 "unexpected argument for 'probe'" "$bin" probe extra
# An empty path option (`--root "$UNSET"`) is refused before anything runs: it never means this
# machine's own files. Every command with --root, read-only or with --dry-run, so that a binary
# that took "" as / changes nothing here.
for command in "probe" "verify" "sweep --dry-run" "apply --value 8 --dry-run" \
    "rollback --dry-run" "boot-sweep plan" "boot-sweep status"; do
    # shellcheck disable=SC2086 # the command's words
    expect_error 2 "--root: is empty; give a directory or leave the option out" \
        "$bin" $command --root ""
done
expect_error 2 "--report: is empty; give a file or leave the option out" \
    "$bin" cmdline --report ""
expect_error 2 "--out: is empty; give a file" "$bin" sweep --dry-run --out ""
expect_error 2 "--input: is empty; give a file" "$bin" fit --input ""
expect_error 2 "--json" "$bin" probe --json=maybe

# cmdline: exactly one line from a good report, one error line otherwise.
echo '{"schema_version": 1, "recommendation": {"hugepage_alloc_threads": 32, "kernel_cmdline": "hugepage_alloc_threads=32"}}' >"$work/good.json"
expect 0 "$bin" cmdline --report "$work/good.json"
stdout_is "hugepage_alloc_threads=32"
# A report that keeps the kernel default: nothing to add, and a note saying so.
echo '{"schema_version": 1, "recommendation": {"decision": "keep_default", "hugepage_alloc_threads": 8, "kernel_cmdline": "hugepage_alloc_threads=8"}}' >"$work/keep.json"
expect 0 "$bin" cmdline --report "$work/keep.json"
stdout_empty
stderr_has "keep the kernel default (hugepage_alloc_threads=8): nothing to add"
# As `run` writes it now: one decision, one text, nothing to add in kernel_cmdline either; a
# kept default with another value there is refused.
echo '{"schema_version": 1, "recommendation": {"decision": "keep_default", "hugepage_alloc_threads": 8, "kernel_cmdline": ""}}' >"$work/keep-empty.json"
expect 0 "$bin" cmdline --report "$work/keep-empty.json"
stdout_empty
stderr_has "keep the kernel default (hugepage_alloc_threads=8): nothing to add"
echo '{"schema_version": 1, "recommendation": {"decision": "keep_default", "hugepage_alloc_threads": 8, "kernel_cmdline": "hugepage_alloc_threads=9"}}' >"$work/keep-odd.json"
expect_error 2 "recommendation.kernel_cmdline: 'hugepage_alloc_threads=9' is not '', what recommendation.decision says" \
    "$bin" cmdline --report "$work/keep-odd.json"
echo '{"schema_version": 1, "recommendation": {"decision": "set", "hugepage_alloc_threads": 8, "kernel_cmdline": ""}}' >"$work/set-empty.json"
expect_error 2 "recommendation.kernel_cmdline: '' is not 'hugepage_alloc_threads=8'" \
    "$bin" cmdline --report "$work/set-empty.json"
echo '{"schema_version": 1, "recommendation": {"decision": "set", "hugepage_alloc_threads": 32, "kernel_cmdline": "hugepage_alloc_threads=32"}}' >"$work/set.json"
expect 0 "$bin" cmdline --report "$work/set.json"
stdout_is "hugepage_alloc_threads=32"
# A decision other than the two a report can take is refused, never read as either.
echo '{"schema_version": 1, "recommendation": {"decision": "apply", "hugepage_alloc_threads": 32, "kernel_cmdline": "hugepage_alloc_threads=32"}}' >"$work/odd.json"
expect_error 2 "recommendation.decision: 'apply' is not one of set, keep_default" "$bin" cmdline --report "$work/odd.json"
expect_error 2 "recommendation.decision: 'apply' is not one of set, keep_default" "$bin" apply --report "$work/odd.json" --root "$work" --dry-run
echo '{"schema_version": 1, "host": {}}' >"$work/none.json"
expect_error 2 "recommendation: missing; is this a hugetune report?" "$bin" cmdline --report "$work/none.json"
echo '{"recommendation": ' >"$work/bad.json"
expect_error 2 "bad.json:2:1: not valid JSON" "$bin" cmdline --report "$work/bad.json"
expect_error 2 "'--report' is required" "$bin" cmdline
# run --first-touch-gib: a positive size, and the zero phase it is read from.
expect_error 2 "--first-touch-gib: give a positive size in GiB, e.g. 64" "$bin" run --first-touch-gib 0
expect_error 2 "--first-touch-gib: the first touch is the zero phase's work; include zero in --phases" "$bin" run --first-touch-gib 8 --phases alloc
# Every list option reads its commas one way (model/text.hpp comma_items, cli list_items): an
# empty item, the last comma's included, is refused with the same line.
empty_item="has an empty item; separate the values by single commas, with none before the first or after the last"
for list in "1,2," ",1" "1,,2"; do
    expect_error 2 "--threads: '$list' $empty_item" "$bin" sweep --threads "$list"
    expect_error 2 "--threads: '$list' $empty_item" "$bin" run --threads "$list" --dry-run
    expect_error 2 "--threads: '$list' $empty_item" "$bin" boot-sweep plan --threads "$list"
    expect_error 2 "--values: '$list' $empty_item" "$bin" fleet plan --db "$work/lists.db" --sku skylake/4n/28t/192g/2048k --values "$list"
done
expect_error 2 "--phases: 'alloc,' $empty_item" "$bin" sweep --phases alloc,
expect_error 2 "--init-on-alloc: '0,' $empty_item" "$bin" boot-sweep plan --init-on-alloc 0,
expect_error 2 "--accept-warning: 'flat_curve,' $empty_item" \
    "$bin" fleet recommend --db "$work/lists.db" --accept-warning flat_curve,
echo "errors: ok"
