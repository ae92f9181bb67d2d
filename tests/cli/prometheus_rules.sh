#!/usr/bin/env bash
# The shipped Prometheus rules (packaging/prometheus/hugetune-rules.yml) against promtool and
# against what hugetune writes: promtool checks the file and runs its unit tests
# (tests/prometheus/hugetune-rules.test.yml); every metric name the rules and the tests use is
# one reports/prometheus.cpp defines, every problem code they match one verify gives, and the
# tests' series carry the label names the real writers give them; the slow-boot alert's bound is the fleet's kVerificationRatioHigh; and the
# metrics `verify --prometheus` writes for saved boot logs (the fixtures of verify's own tests)
# and `fleet export --format prometheus` writes for a real report, loaded into promtool, fire
# exactly the alerts their boots call for.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/verify.bash"
require_command python3 "the checks read the files with it (Debian: python3)"
require_command promtool "the Prometheus project's rule checker and tester (Debian: prometheus)"
rules=$src/packaging/prometheus/hugetune-rules.yml
tests=$src/tests/prometheus/hugetune-rules.test.yml
logs=$src/tests/fixtures/boot/logs

promtool check rules "$rules" >"$work/promtool.out" 2>&1 ||
    fail "promtool check rules: $(cat "$work/promtool.out")"
# rule_files in the test file are relative to it: both side by side.
cp "$rules" "$tests" "$work/"
promtool test rules "$work/hugetune-rules.test.yml" >"$work/promtool.out" 2>&1 ||
    fail "promtool test rules $tests: $(cat "$work/promtool.out")"

# Real writers' output: boots of verify's fixtures, as the unit would write them on each host.
root=$work/root
verify_root "$root"
mkdir "$work/prom"
# write_report THREADS PREDICTED_SECONDS: a report predicting for 524288 pages of 2 MiB.
write_report() { write_verify_report "$work/report.json" "$1" "$2" 524288 2048 true 64; }
# boot HOST CODE VERIFY_OPTIONS...: verify exits CODE and writes $work/prom/HOST.prom.
boot() {
    local host=$1 code=$2
    shift 2
    expect "$code" "$bin" verify --root "$root" --prometheus "$work/prom/$host.prom" "$@"
}
write_report 32 0.65
boot near 0 --log "$logs/dmesg-6.15-65536-pages.log" --report "$work/report.json"
write_report 32 0.05
boot slow 0 --log "$logs/dmesg-6.15-65536-pages.log" --report "$work/report.json"
write_report 24 0.65
boot not-applied 1 --log "$logs/dmesg-6.15-65536-pages.log" --report "$work/report.json"
echo "root=/dev/sda1 hugepages=262144 hugepage_alloc_threads=16 hugepage_alloc_threads=32" >"$work/cmdline"
boot threads-mismatch 1 --log "$logs/kmsg-6.15-threads16.log" --cmdline "$work/cmdline"
boot shortfall 1 --log "$logs/dmesg-6.15-shortfall.log"
boot failed 1 --log "$logs/dmesg-6.15-failed.log"
boot unjudged 2 --log "$logs/dmesg-rotated.log"
expect 0 "$bin" fleet ingest --db "$work/fleet.db" "$src/tests/fixtures/fleet/report-1.json"
expect 0 "$bin" fleet export --db "$work/fleet.db" --format prometheus --out "$work/prom/fleet.prom"
# A SKU without an answer (a stored verification block this reader refuses, written with SQL
# as the fleet suite writes it) keeps its status sample, status="error", so that the alert on a
# SKU no longer settled fires for it too (the tests' SKU sapphirerapids).
python3 -S -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
run = c.execute("SELECT id FROM runs").fetchone()[0]
c.execute("INSERT INTO verifications (run_id, block_hash, verified, ratio, block) VALUES (?, ?, 1, 1e300, ?)",
          (run, "00000000000000aa", "{\"verified\": true, \"ratio\": 1e300, \"problems\": []}"))
c.commit()' "$work/fleet.db"
expect 0 "$bin" fleet export --db "$work/fleet.db" --format prometheus --out "$work/fleet-error.prom"
grep -Eq '^hugetune_fleet_sku_status\{sku="[^"]+",status="error"\} 1$' "$work/fleet-error.prom" ||
    fail "a SKU without an answer has no status=\"error\" sample: $(cat "$work/fleet-error.prom")"
[[ $(grep -c '^hugetune_fleet_sku_status{.*} 1$' "$work/fleet-error.prom") == 1 ]] ||
    fail "a SKU without an answer has another status too: $(cat "$work/fleet-error.prom")"

# Which alerts each host's file fires (alertname:instance), after an hour of scrapes.
cat >"$work/want" <<'WANT'
HugetuneBootSlowerThanPredicted:slow
HugetuneBootValueNotApplied:not-applied
HugetuneBootValueNotApplied:threads-mismatch
HugetunePoolShortfall:shortfall
HugetunePoolShortfall:failed
HugetuneVerifyCouldNotJudge:unjudged
WANT

python3 -S - "$rules" "$tests" "$src/reports/prometheus.cpp" "$src/model/fleet/fleet.hpp" \
    "$work/prom" "$work/want" "$work/real.test.yml" "$src/tuner/boot" <<'PY' || fail "the rules disagree with what hugetune writes"
import glob, os, re, sys
rules_file, tests_file, definitions_file, fleet_header, prom_dir, want_file, real_test, verify_dir = sys.argv[1:9]
errors = []
rules = open(rules_file).read()
tests = open(tests_file).read()

def uncommented(text):
    return "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))

# Every hugetune_ name in the rules and the tests is a metric reports/prometheus.cpp defines
# (a recorded name, level:metric:operations, names its metric too).
defined = set(re.findall(r'"(hugetune_[a-z_]+)"', open(definitions_file).read()))
for where, text in ((rules_file, rules), (tests_file, tests)):
    for name in sorted(set(re.findall(r"\bhugetune_[a-z_]*[a-z]\b", uncommented(text))) - defined):
        errors.append(f"{os.path.basename(where)}: {name} is no metric reports/prometheus.cpp defines")

# Every problem code the alerts match is one verify gives (tuner/boot).
verify_source = "".join(open(p).read() for p in glob.glob(os.path.join(verify_dir, "*.cpp")))
for codes in re.findall(r'code=~"([^"]*)"', rules):
    for code in codes.split("|"):
        if f'"{code}"' not in verify_source:
            errors.append(f"{os.path.basename(rules_file)}: {code} is no problem code of verify (tuner/boot)")

# The label names each metric has in the real writers' files.
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
label = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
real_labels, files = {}, {}
for path in sorted(glob.glob(os.path.join(prom_dir, "*.prom"))):
    host = os.path.basename(path)[:-len(".prom")]
    for line in open(path).read().splitlines():
        if line.startswith("#"):
            continue
        m = sample.match(line)
        pairs = label.findall(m.group(2) or "")
        real_labels.setdefault(m.group(1), set()).add(tuple(k for k, _ in pairs))
        files.setdefault(host, []).append((m.group(1), pairs, m.group(3)))
for series in re.findall(r"series: '([^']*)'", tests):
    m = re.match(r"([a-z_]+)\{(.*)\}$", series)
    names = tuple(k for k, _ in label.findall(m.group(2)) if k not in ("instance", "job"))
    if names not in real_labels.get(m.group(1), set()):
        errors.append(f"{os.path.basename(tests_file)}: {series}: hugetune writes {m.group(1)} "
                      f"with the labels {sorted(real_labels.get(m.group(1), []))}, not {names}")

# The slow-boot bound is the fleet's: kVerificationRatioHigh, however it is written.
h = re.search(r"kVerificationRatioHigh = ([0-9.]+(?: */ *[0-9.]+)?);", open(fleet_header).read())
if not h:
    errors.append(f"{fleet_header}: no kVerificationRatioHigh constant found")
else:
    a, _, b = h.group(1).partition("/")
    high = float(a) / float(b) if b else float(a)
    bound = re.findall(r"expr: hugetune_boot_allocation_ratio > ([0-9.]+)\s*$", rules, re.M)
    if [float(x) for x in bound] != [high]:
        errors.append(f"the slow-boot alert's bound {bound} is not kVerificationRatioHigh ({high})")
    if f"above {bound[0] if bound else '?'} (kVerificationRatioHigh" not in rules:
        errors.append("the slow-boot alert's description does not name its bound and kVerificationRatioHigh")

# A unit test of the real files: each host's samples an hour long, and the alerts that fire.
out = ["rule_files:", "  - hugetune-rules.yml", "evaluation_interval: 1m", "tests:",
       "  - interval: 1m", "    input_series:"]
for host, samples in sorted(files.items()):
    job = "hugetune-fleet" if host == "fleet" else "node"
    for metric, pairs, value in samples:
        labels = ",".join(f'{k}="{v}"' for k, v in pairs + [("instance", host), ("job", job)])
        out += [f"      - series: '{metric}{{{labels}}}'", f"        values: '{value}x90'"]
out += ["    promql_expr_test:",
        '      - expr: count by (alertname, instance) (ALERTS{alertstate="firing"})',
        "        eval_time: 1h",
        "        exp_samples:"]
for line in open(want_file).read().split():
    alert, host = line.split(":")
    out += [f"          - labels: '{{alertname=\"{alert}\",instance=\"{host}\"}}'", "            value: 1"]
# The value applied beside the one booted: only the host whose report asks for 24 differs.
out += ["      - expr: count by (instance) (hugetune_boot_allocation_threads != hugetune_boot_expected_threads)",
        "        eval_time: 1h",
        "        exp_samples:",
        "          - labels: '{instance=\"not-applied\"}'",
        "            value: 1"]
open(real_test, "w").write("\n".join(out) + "\n")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY
promtool test rules "$work/real.test.yml" >"$work/promtool.out" 2>&1 ||
    fail "the alerts of verify's real metrics: $(cat "$work/promtool.out")"
echo "prometheus_rules: promtool accepts the rules and their tests; $(ls "$work/prom" | wc -l) real files fire the alerts they should"
