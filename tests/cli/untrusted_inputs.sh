#!/usr/bin/env bash
# Files and values a user hands hugetune are not trusted: a report that smuggles text onto the
# kernel command line, a report or sweep of another schema, control characters meant for the
# terminal, a probe root that is not a gathered tree, negative numbers for unsigned options,
# JSON that is not a document, duplicate rows and empty sample lists.
source "$(dirname "$0")/lib/harness.bash"

# no_raw_controls WHAT: neither stdout nor stderr of the last command holds a control character
# other than newline and tab (ESC, BEL and CR would reach the terminal).
no_raw_controls() {
    if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$out" "$err"; then
        od -c "$out" "$err" | head -20 >&2
        fail "$1: raw control characters reach the terminal"
    fi
}

# --- a report's kernel_cmdline is never echoed; only the validated number is ------------------
report=$work/report.json
good='"schema_version": 1, "recommendation": {"hugepage_alloc_threads": 2'
printf '{%s, "kernel_cmdline": "hugepage_alloc_threads=2 init=/bin/sh"}}' "$good" >"$report"
expect_error 2 "recommendation.kernel_cmdline: 'hugepage_alloc_threads=2 init=/bin/sh' is not" \
    "$bin" cmdline --report "$report"
stdout_empty
printf '{%s, "kernel_cmdline": " hugepage_alloc_threads=2"}}' "$good" >"$report"
expect_error 2 "recommendation.kernel_cmdline" "$bin" cmdline --report "$report"
printf '{%s, "kernel_cmdline": "hugepage_alloc_threads=02"}}' "$good" >"$report"
expect_error 2 "recommendation.kernel_cmdline" "$bin" cmdline --report "$report"
printf '{%s, "kernel_cmdline": "hugepage_alloc_threads=2"}}' "$good" >"$report"
expect 0 "$bin" cmdline --report "$report"
stdout_is "hugepage_alloc_threads=2"
# apply reads the report the same way: the injected text never reaches a boot file.
mkdir -p "$work/grub/etc/default" "$work/grub/boot/grub"
touch "$work/grub/boot/grub/grub.cfg"
echo 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' >"$work/grub/etc/default/grub"
printf '{%s, "kernel_cmdline": "hugepage_alloc_threads=2 init=/bin/sh"}}' "$good" >"$report"
expect_error 2 "is not" "$bin" apply --root "$work/grub" --report "$report" --dry-run --no-regenerate
grep -q init= "$work/grub/etc/default/grub" && fail "apply wrote the injected text"

# --- the report's schema_version is checked by every reader -----------------------------------
rec='"recommendation": {"hugepage_alloc_threads": 2, "kernel_cmdline": "hugepage_alloc_threads=2", "predicted_seconds": 0.5}'
for version in 2 '"1"' 0 null; do
    printf '{"schema_version": %s, %s}' "$version" "$rec" >"$report"
    expect_error 2 "schema_version" "$bin" cmdline --report "$report"
    stderr_has "this hugetune reads version 1"
    expect_error 2 "schema_version" "$bin" apply --root "$work/grub" --report "$report" --dry-run \
        --no-regenerate
done
printf '{%s}' "$rec" >"$report"
expect_error 2 "schema_version: missing" "$bin" cmdline --report "$report"
# verify must not write its block into a report of another schema.
printf '{"schema_version": 2, %s}' "$rec" >"$report"
before=$(cat "$report")
echo "HugeTLB: allocation took 500ms with hugepage_allocation_threads=2" >"$work/log"
echo "root=/dev/sda1 hugepages=1024 hugepage_alloc_threads=2" >"$work/cmdline"
expect_error 2 "schema_version" "$bin" verify --report "$report" --log "$work/log" \
    --cmdline "$work/cmdline"
[[ $(cat "$report") == "$before" ]] || fail "verify wrote into a schema-2 report"

# --- control characters from input files never reach the terminal raw -------------------------
csv=$work/esc.csv
printf 'threads_per_node,seconds\n2,44\n4,22\n\033]0;pwned\a\r\033[2J,5\n' >"$csv"
expect_error 2 'threads_per_node' "$bin" fit --input "$csv"
no_raw_controls "a CSV cell in an error"
stderr_has '\x1b]0;pwned\x07\r\x1b[2J'
python3 -S - "$src/tests/data/sweep-zen4-2node.json" "$work/esc.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["probe"]["cpu"]["microarch"] = "zen\x1b]0;pwned\x07\r\n\x1b[2J"
json.dump(doc, open(sys.argv[2], "w"))
PY
expect 0 "$bin" fit --input "$work/esc.json" --verbose
no_raw_controls "a sweep's microarch in the fit summary"
stdout_has 'zen\x1b]0;pwned\x07\r\n\x1b[2J'
python3 -S - "$src/tests/data/sweep-zen4-2node.json" "$work/esc-phase.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["points"][0]["phase"] = "alloc\x1b[2J\x07\r\n"
json.dump(doc, open(sys.argv[2], "w"))
PY
expect_error 2 "points[0].phase" "$bin" fit --input "$work/esc-phase.json"
no_raw_controls "a sweep's phase in an error"

# --- names and lines of a tree's files never forge a line of apply's output -------------------
# A drop-in named with an escape sequence and a line break (GRUB files holding control
# characters are refused as binary): the --dry-run diff, and the real run's list of what it
# wrote, show the name escaped, and no line of stdout is one the name made up.
tree=$work/forged-names
cp -a "$src/tests/fixtures/boot/debian" "$tree"
mkdir -p "$tree/etc/default/grub.d"
forged_name=$'50-\e]0;pwned\a\n+GRUB_CMDLINE_LINUX="evil".cfg'
printf '# vendor\nGRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT hugepage_alloc_threads=4"\n' \
    >"$tree/etc/default/grub.d/$forged_name"
for mode in --dry-run --no-regenerate; do
    expect 0 "$bin" apply --root "$tree" --value 8 "$mode"
    [[ $mode == --no-regenerate ]] ||
        stdout_has '+++ b/etc/default/grub.d/50-\x1b]0;pwned\x07\n+GRUB_CMDLINE_LINUX="evil".cfg'
    no_raw_controls "apply $mode with a forged drop-in name"
    if grep -q '^+GRUB_CMDLINE_LINUX="evil"' "$out"; then fail "apply $mode: a forged line"; fi
done
stdout_has 'edited /etc/default/grub.d/50-\x1b]0;pwned\x07\n+GRUB_CMDLINE_LINUX="evil".cfg'
expect 0 "$bin" rollback --root "$tree" --dry-run
no_raw_controls "rollback --dry-run with a forged drop-in name"
if grep -q '^+GRUB_CMDLINE_LINUX="evil"' "$out"; then fail "rollback --dry-run: a forged line"; fi

# --- probe --root: a directory that is not a gathered tree ------------------------------------
mkdir -p "$work/empty"
expect_error 2 "--root: $work/empty is not a gathered tree: it lacks /proc/cpuinfo" \
    "$bin" probe --root "$work/empty"
stdout_empty
mkdir -p "$work/partial/proc" "$work/partial/sys/devices/system/cpu"
echo "processor : 0" >"$work/partial/proc/cpuinfo"
echo 0 >"$work/partial/sys/devices/system/cpu/online"
expect_error 2 "it lacks /sys/devices/system/node" "$bin" probe --root "$work/partial"
stderr_has "hugetune: error:"
expect 0 "$bin" probe --root "$src/tests/fixtures/vm-1node"
stderr_empty

# --- unsigned options refuse negatives and non-numbers ----------------------------------------
sky=$src/tests/data/skylake-4node-1tib.csv
for bad in -1 abc 1.5 -0; do
    expect_error 2 "--seed: '$bad' is not a whole number from 0" "$bin" fit --input "$sky" --seed "$bad"
    expect_error 2 "--seed: '$bad' is not a whole number from 0" "$bin" sweep --dry-run --seed "$bad"
    expect_error 2 "--seed: '$bad' is not a whole number from 0" "$bin" run --dry-run --seed "$bad"
done
expect 0 "$bin" fit --input "$sky" --nodes 4 --cpus 144 --seed 18446744073709551615 --json

# --- JSON that is not a sweep document is diagnosed as JSON -----------------------------------
for doc in '[1,2,3]' 'null' '"text"' '  [ ]'; do
    printf '%s' "$doc" >"$work/doc.json"
    expect_error 2 "is JSON but not a sweep document" "$bin" fit --input "$work/doc.json"
done
# Invalid JSON: the same FILE:LINE:COLUMN format whoever reads it.
printf '{\n  "format": "hugetune-sweep",\n  oops\n}\n' >"$work/broken.json"
expect_error 2 "--input $work/broken.json:3:3: not valid JSON" "$bin" fit --input "$work/broken.json"
printf '{\n  "schema_version": 1,\n  oops\n}\n' >"$work/broken-report.json"
expect_error 2 "$work/broken-report.json:3:3: not valid JSON" "$bin" cmdline --report "$work/broken-report.json"

# --- duplicate rows and empty sample lists ---------------------------------------------------
printf 'threads_per_node,seconds\n2,44\n4,22\n4,22\n8,16\n16,19\n' >"$work/dup.csv"
expect 0 "$bin" fit --input "$work/dup.csv"
stderr_has "1 row(s) repeat an earlier row exactly (the first: line 4 repeats line 3)"
printf 'threads_per_node,seconds,phase\n2,4,alloc\n2,4,zero\n4,2,alloc\n8,1,alloc\n' >"$work/phases.csv"
expect 0 "$bin" fit --input "$work/phases.csv"
python3 -S - "$src/tests/data/sweep-zen4-2node.json" "$work/empty-samples.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["points"][3]["samples_seconds"] = []
json.dump(doc, open(sys.argv[2], "w"))
PY
expect_error 2 "points[3].samples_seconds: empty" "$bin" fit --input "$work/empty-samples.json"

echo "untrusted inputs: ok"
