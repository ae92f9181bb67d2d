#!/usr/bin/env bash
# `fit --boot-sweep` on a boot sweep result holding several settings
# (tests/data/boot-sweep-lab-settings.json: 4096 x 2 MiB on the lab's 1-node, 2-CPU guest, at
# init_on_alloc 1, at init_on_alloc 0, and at init_on_alloc 1 with hugetlb_free_vmemmap=on; the
# init_on_alloc=0 times are the lab's boots of 2026-12-01 (tests/vm/findings/accuracy-2026-12-01),
# the others are made up within the range such boots took). Against each of the lab's sweeps the
# boots at the sweep's own init_on_alloc go beside the prediction and the others beside the
# what-if row for their setting, at each thread count: predicted where the sweep's phases allow
# it, else with the row's reason.
source "$(dirname "$0")/lib/harness.bash"
require_command python3 "it reads the JSON output"

findings=$src/tests/vm/findings/accuracy-2026-12-01
boots=$src/tests/data/boot-sweep-lab-settings.json

# The sweep with init_on_alloc off: the boots with it on are predicted as the prediction plus the
# zero phase's time for the pool; those that also turn HVO on change both, which no row predicts.
expect 0 "$bin" fit --input "$findings/sweep-init_on_alloc0-prealloc.json" --boot-sweep "$boots" --json
python3 -S - "$out" <<'PY' || fail "fit --boot-sweep on the init_on_alloc=0 sweep"
import json, sys
fit = json.load(open(sys.argv[1]))
b = fit["boot_sweep"]
assert b["init_on_alloc"] is False and b["hvo"] is False, b
assert [(r["threads"], r["boots"], r["measured_ms"]) for r in b["rows"]] == [(1, 3, 60), (2, 3, 56)], b["rows"]
rows = [(w["parameter"], w["value"], w["threads"]) for w in b["what_if"]]
assert rows == [("init_on_alloc", "1", 1), ("init_on_alloc", "1", 2), ("", "", 1), ("", "", 2)], rows
predicted = {p["hugepage_alloc_threads"]: p["seconds"] * 1000 for p in fit["predictions"]}
for w in b["what_if"][:2]:
    assert w["recommended"] == (w["threads"] == fit["recommendation"]["hugepage_alloc_threads"]), w
    # the prediction for this pool plus the pool's zeroing: above the prediction itself
    assert w["predicted_ms"] > predicted[w["threads"]] * 4096 / fit["recommendation"]["pool_pages"], (w, predicted)
    assert w["predicted_low_ms"] <= w["predicted_ms"] <= w["predicted_high_ms"], w
    assert abs(w["ratio"] - w["measured_ms"] / w["predicted_ms"]) < 1e-9, w
assert b["what_if"][0]["measured_ms"] == 16800, b["what_if"][0]
for w in b["what_if"][2:]:
    assert w["predicted_ms"] is None and w["ratio"] is None and "both differ" in w["note"], w
assert b["unmatched"] == [], b
PY

# The sweep with init_on_alloc on: its phases do not split this boot (the zero phase alone is
# longer than the prediction), and the kernel it ran on has no HVO sysctl; each row says so.
expect 0 "$bin" fit --input "$findings/sweep-init_on_alloc1-prealloc.json" --boot-sweep "$boots" --json
python3 -S - "$out" <<'PY' || fail "fit --boot-sweep on the init_on_alloc=1 sweep"
import json, sys
b = json.load(open(sys.argv[1]))["boot_sweep"]
assert b["init_on_alloc"] is True, b
assert [r["measured_ms"] for r in b["rows"]] == [16800, 9900], b["rows"]
rows = [(w["parameter"], w["value"], w["threads"], w["predicted_ms"]) for w in b["what_if"]]
assert rows == [("init_on_alloc", "0", 1, None), ("init_on_alloc", "0", 2, None),
                ("hugetlb_free_vmemmap", "on", 1, None), ("hugetlb_free_vmemmap", "on", 2, None)], rows
assert "zero phase alone takes longer" in b["what_if"][0]["note"], b["what_if"][0]
assert "not measured" in b["what_if"][2]["note"], b["what_if"][2]
PY
expect 0 "$bin" fit --input "$findings/sweep-init_on_alloc0-prealloc.json" --boot-sweep "$boots"
stdout_has "Boots with a setting the other way against the what-if prediction:"
grep -qE "^  init_on_alloc=1 +1\* +3 +16.8 s +[0-9.]+ s \(" "$out" || fail "no predicted init_on_alloc=1 row: $(cat "$out")"
stdout_has "init_on_alloc and HVO both differ from the sweep's; each what-if row changes one"

# fit --input takes the first setting's boots as a boot table, and says there are others.
expect_error 2 "only 2 distinct threads_per_node value(s)" "$bin" fit --input "$boots"

echo "fit_boot_sweep_settings: ok"
