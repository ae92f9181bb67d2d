#!/usr/bin/env bash
# apply --report acts only on a report fit to act on: it shows the report's confidence and
# warnings, refuses warnings that say the value is not to be trusted and a report of another
# host or SKU than this machine (unless --force, which the ledger records), and applies nothing
# when the report recommends keeping the kernel default.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"

# report FILE HOST MICROARCH NODES THREADS WARNING_CODES DECISION: a whole report (the fleet
# fixture's, which `run` wrote) with these fields.
report() {
    python3 -S - "$src/tests/fixtures/fleet/report-1.json" "$@" <<'PY'
import json, sys
src, out, host, arch, nodes, threads, codes, decision = sys.argv[1:9]
doc = json.load(open(src))
# Another machine's SKU needs that machine's CPU: the reader checks the sku block against it.
if len(sys.argv) > 9:
    doc["cpu"] = json.loads(sys.argv[9])
doc["host"]["hostname"] = host
doc["sku"].update({"microarch": arch, "nodes": int(nodes), "hardware_threads_per_node": int(threads),
                   "page_size_kb": 2048})
# ... and that machine's nodes: the reader checks the sku block against the topology too.
node = doc["topology"]["nodes"][0]
doc["topology"]["nodes"] = [dict(node, id=i, cpus=list(range(i * int(threads), (i + 1) * int(threads))))
                            for i in range(int(nodes))]
doc["recommendation"].update({"hugepage_alloc_threads": 24, "kernel_cmdline": "hugepage_alloc_threads=24",
                              "predicted_seconds": 0.5, "confidence": 0.62, "decision": decision})
doc["kernel"]["release"] = "6.15.2"
doc["warnings"] = [{"code": c, "message": "about " + c} for c in codes.split()]
json.dump(doc, open(out, "w"), indent=1)
PY
}

root=$(copy_fixture debian)
before=$(tree_sum "$root")

# The report's confidence and warnings are shown, also when nothing refuses it.
report "$work/noisy.json" somehost zen5 2 64 "noisy kernel_too_old" set
expect 0 "$bin" apply --report "$work/noisy.json" --root "$root" --dry-run
stderr_has "hugetune: note: report: confidence 62%"
stderr_has "hugetune: warning: report [noisy]: about noisy"
stderr_has "hugetune: warning: report [kernel_too_old]: about kernel_too_old"

# Each code that makes the value untrustworthy refuses it, before anything is written.
for code in vm low_confidence poor_fit failed_resamples; do
    report "$work/$code.json" somehost zen5 2 64 "noisy $code" set
    refused_with 2 "--report $work/$code.json: not fit to act on: the report warns [$code]" \
        "$bin" apply --report "$work/$code.json" --root "$root"
    stderr_has "pass --force to apply it anyway"
    [[ $(tree_sum "$root") == "$before" ]] || fail "$code: files changed by a refused apply"
done

# --value decides the value itself: the report's warnings are shown but refuse nothing.
expect 0 "$bin" apply --report "$work/vm.json" --value 8 --root "$root" --dry-run
stderr_has "hugetune: warning: report [vm]: about vm"

# --force applies it and the ledger says why it was unfit.
expect 0 "$bin" apply --report "$work/low_confidence.json" --root "$root" --force
stderr_has "applying anyway (--force): the report warns [low_confidence]"
grep -q 'hugepage_alloc_threads=24"' "$root/etc/default/grub" || fail "--force: not applied"
grep -q '"forced"' "$root/var/lib/hugetune/applied.json" || fail "--force: not in the ledger"
grep -q 'the report warns \[low_confidence\]' "$root/var/lib/hugetune/applied.json" ||
    fail "--force: the ledger lacks the reason"
expect 0 "$bin" rollback --root "$root"
cmp -s "$fixtures/debian/etc/default/grub" "$root/etc/default/grub" || fail "rollback after --force"
find "$root" -name '*.hugetune-*.bak' -delete

# keep_default: nothing to apply, exit 0, nothing changed; --value still sets a value.
report "$work/keep.json" somehost zen5 2 64 "" keep_default
expect 0 "$bin" apply --report "$work/keep.json" --root "$root"
stdout_has "the report recommends keeping the kernel's default thread count; nothing changed"
[[ $(tree_sum "$root") == "$before" ]] || fail "keep_default: files changed"
expect 0 "$bin" apply --report "$work/keep.json" --value 8 --root "$root" --dry-run
stdout_has 'hugepage_alloc_threads=8"'

# This machine (no --root): a report of another host or SKU is refused, also in a dry run.
report "$work/other-host.json" not-this-host-xyz zen5 2 64 "" set
refused_with 2 "the report measured host not-this-host-xyz, not this one" \
    "$bin" apply --report "$work/other-host.json" --dry-run
if command -v python3 >/dev/null; then
    read -r host arch nodes threads < <("$bin" probe --json | python3 -S -c '
import json, sys
d = json.load(sys.stdin)
nodes = [n for n in d["topology"]["nodes"] if n["memory_bytes"] > 0]
print(d["host"]["hostname"], d["cpu"]["microarch"], len(nodes), max(len(n["cpus"]) for n in nodes))')
    cpu=$("$bin" probe --json | python3 -S -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["cpu"]))')
    report "$work/other-sku.json" "$host" "$arch" "$nodes" $((threads * 2)) "" set "$cpu"
    refused_with 2 "the report measured another kind of machine ($arch, $nodes node(s) x $((threads * 2)) hardware threads; this one is $arch, $nodes node(s) x $threads hardware threads)" \
        "$bin" apply --report "$work/other-sku.json" --dry-run
    # The same host and SKU passes; what follows depends on this machine's boot configuration.
    report "$work/this.json" "$host" "$arch" "$nodes" "$threads" "" set
    "$bin" apply --report "$work/this.json" --dry-run >"$out" 2>"$err" || true
    if grep -q "not fit to act on" "$err"; then cat "$err" >&2; fail "this machine's own report refused"; fi
    # --force lets another host's report through.
    "$bin" apply --report "$work/other-host.json" --dry-run --force >"$out" 2>"$err" || true
    if grep -q "not fit to act on" "$err"; then cat "$err" >&2; fail "--force did not apply"; fi
    stderr_has "applying anyway (--force): the report measured host not-this-host-xyz"
else
    echo "note: no python3; the same-machine report is not tried" >&2
fi
# cmdline prints the value for scripts, says on stderr why apply would refuse the report, and
# with --strict prints nothing and exits 2 for it.
report "$work/poor.json" somehost zen5 2 64 "noisy poor_fit" set
expect 0 "$bin" cmdline --report "$work/poor.json"
[[ $(cat "$out") == "hugepage_alloc_threads=24" ]] || fail "cmdline stdout: $(cat "$out")"
stderr_has "hugetune: warning: apply refuses this report: the report warns [poor_fit]"
expect_error 2 "--report $work/poor.json: not fit to act on: the report warns [poor_fit]" \
    "$bin" cmdline --report "$work/poor.json" --strict
[[ ! -s $out ]] || fail "cmdline --strict printed: $(cat "$out")"
expect 0 "$bin" cmdline --report "$work/noisy.json" --strict
[[ $(cat "$out") == "hugepage_alloc_threads=24" ]] || fail "cmdline --strict on a fit report"
echo "apply_report: ok"
