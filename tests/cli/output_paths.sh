#!/usr/bin/env bash
# Every output path is checked before any work, --dry-run included: a directory where no file
# can be created (/proc, even for root), a missing directory, a symbolic link or a special file
# is refused with exit 2 and one line naming the option and the fix, and nothing is written.
# The thread counts get the same range check, first, in run and sweep.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"
sky=$src/tests/fixtures/skylake-4node
run_dry=("$bin" run --dry-run)
sweep_dry=("$bin" sweep --dry-run --root "$sky")

expect_error 2 "--report: cannot create a file in /proc" "${run_dry[@]}" --report /proc/hugetune.json
stderr_has "choose a writable directory"
expect_error 2 "--plot: cannot create a file in /proc" "${run_dry[@]}" --plot /proc/curve.svg
expect_error 2 "--out: cannot create a file in /proc" "${sweep_dry[@]}" --out /proc/sweep.json
expect_error 2 "--report: directory /nonexistent does not exist" "${run_dry[@]}" --report /nonexistent/r.json
expect_error 2 "--out: directory /nonexistent does not exist" "${sweep_dry[@]}" --out /nonexistent/s.json
expect_error 2 "--report: $work is a directory" "${run_dry[@]}" --report "$work"

# A link is never written through, whether it points at a file or nowhere.
echo theirs >"$work/theirs.json"
ln -s "$work/theirs.json" "$work/link.json"
ln -s "$work/nowhere.svg" "$work/dangling.svg"
expect_error 2 "--report: $work/link.json is a symbolic link" "${run_dry[@]}" --report "$work/link.json"
stderr_has "give the path of the file itself"
expect_error 2 "--plot: $work/dangling.svg is a symbolic link" "${run_dry[@]}" --plot "$work/dangling.svg"
expect_error 2 "--out: $work/link.json is a symbolic link" "${sweep_dry[@]}" --out "$work/link.json"
# The files written next to an output are checked with it.
ln -s "$work/theirs.json" "$work/curve.svg.gp"
expect_error 2 "--plot: $work/curve.svg.gp is a symbolic link" "${run_dry[@]}" --plot "$work/curve.svg"
# fit's --plot: checked before the input is read or fitted.
fit_plot=("$bin" fit --input "$src/tests/data/sweep-zen4-2node.json")
expect_error 2 "--plot: cannot create a file in /proc" "${fit_plot[@]}" --plot /proc/curve.svg
expect_error 2 "--plot: $work/dangling.svg is a symbolic link" "${fit_plot[@]}" --plot "$work/dangling.svg"
expect_error 2 "--plot: $work/curve.svg.gp is a symbolic link" "${fit_plot[@]}" --plot "$work/curve.svg"
expect_error 2 "--plot: $work/dangling.svg is a symbolic link" "$bin" fit --input "$work/missing.json" --plot "$work/dangling.svg"
[[ $(cat "$work/theirs.json") == theirs ]] || fail "fit --plot wrote through a link"
mkfifo "$work/fifo.json"
expect_error 2 "--report: $work/fifo.json is not a regular file" "${run_dry[@]}" --report "$work/fifo.json"

# verify adds its block to the report: a link to a report is read, but never replaced.
cat >"$work/theirs.json" <<'JSON'
{"schema_version": 1,
 "recommendation": {"hugepage_alloc_threads": 32, "kernel_cmdline": "hugepage_alloc_threads=32",
                    "predicted_seconds": 0.65}}
JSON
cp "$work/theirs.json" "$work/before.json"
echo "root=/dev/sda1 hugepage_alloc_threads=32" >"$work/cmdline"
expect_error 2 "--report: $work/link.json is a symbolic link" "$bin" verify --root "$work" \
    --log "$fixtures/logs/dmesg-6.15-threads32.log" --cmdline "$work/cmdline" --report "$work/link.json"
[[ -L $work/link.json ]] || fail "verify replaced the link"
cmp -s "$work/theirs.json" "$work/before.json" || fail "verify wrote through the link"

# No probe or temporary file is left behind by any refusal or check.
leftovers=$(find "$work" -name '.*tmp*')
[[ -z $leftovers ]] || fail "temporary files left: $leftovers"

# One range check, first, for every thread count in both commands.
for threads in 0 100000 1,2,100000; do
    expect_error 2 "--threads: " "$bin" run --threads "$threads"
    stderr_has "use numbers from 1 to 4096"
    expect_error 2 "--threads: " "${sweep_dry[@]}" --threads "$threads"
    stderr_has "use numbers from 1 to 4096"
done
expect_error 2 "a fit needs at least 3 different thread counts" "$bin" run --threads 1,1
echo "output_paths: ok"
