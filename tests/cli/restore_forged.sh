#!/usr/bin/env bash
# A state file that an interrupted sweep could not have written (a forged nr_hugepages, a
# writer that is still running) is refused by `restore` and by the automatic restore of other
# root commands: one line, nothing written, the file kept for inspection.
source "$(dirname "$0")/lib/harness.bash"
use_pools
require_command python3 "it writes the state files"

size_dir=$(ls -d /sys/kernel/mm/hugepages/hugepages-* | head -n 1)
size_kb=${size_dir##*hugepages-}
size_kb=${size_kb%kB}
before=$(pool_snapshot)

# forge FILE PID NR: a state file of this machine's first page size asking for NR pages.
forge() {
    python3 -S - "$size_kb" "$2" "$3" >"$1" <<'PY'
import glob, json, sys
size_kb, pid, nr = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
base = f"/sys/kernel/mm/hugepages/hugepages-{size_kb}kB"
read = lambda f: int(open(f).read())
nodes = []
for f in sorted(glob.glob(f"/sys/devices/system/node/node*/hugepages/hugepages-{size_kb}kB/nr_hugepages")):
    nodes.append({"node": int(f.split("/node/node")[1].split("/")[0]), "nr_hugepages": read(f)})
print(json.dumps({"format": "hugetune-state", "format_version": 1, "pid": pid,
                  "started_at": "2026-01-01T00:00:00Z", "command": "sweep",
                  "pools": [{"size_kb": size_kb, "nr_hugepages": nr,
                             "nr_overcommit_hugepages": read(base + "/nr_overcommit_hugepages"),
                             "nodes": nodes}]}))
PY
}

sleep 0 &
dead=$!
wait "$dead"
mkdir -p /run/hugetune
current=$(cat "$size_dir/nr_hugepages")

# One page more than now: enough to prove the rule, harmless if a broken build obeys it.
forge "$state_file" "$dead" $((current + 1))
forged=$(cat "$state_file")
expect_error 1 "refusing to restore from $state_file: ${size_kb}kB nr_hugepages $current -> $((current + 1)) would grow the pool" \
    "$bin" restore
stderr_has "the file is kept"
[[ $(cat "$state_file") == "$forged" ]] || fail "restore changed or removed the state file"
expect_pools "$before" "restore of a forged state file"

# The automatic restore before another root command: a warning, the command goes on.
expect 0 "$bin" probe
stderr_has "hugetune: warning: refusing to restore from $state_file"
[[ $(cat "$state_file") == "$forged" ]] || fail "probe changed or removed the state file"
expect_pools "$before" "automatic restore of a forged state file"

# A writer that is still running: this shell.
forge "$state_file" $$ "$current"
expect_error 1 "pid $$ is running" "$bin" restore
[[ -e $state_file ]] || fail "the state file of a running writer was removed"

# What a killed sweep really leaves is still restored and removed.
forge "$state_file" "$dead" "$current"
expect 0 "$bin" restore
[[ ! -e $state_file ]] || fail "a good state file was kept"
expect_pools "$before" "restore of a good state file"
# What a sweep killed during its HVO pass leaves: the sysctl the other way and its saved value.
# restore puts it back (this machine's value) and removes the file.
hvo_sysctl=/proc/sys/vm/hugetlb_optimize_vmemmap
if [[ -w $hvo_sysctl ]]; then
    hvo=$(cat "$hvo_sysctl")
    forge "$state_file" "$dead" "$current"
    python3 -S - "$state_file" "$hvo" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["hugetlb_optimize_vmemmap"] = int(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
    echo $((1 - hvo)) >"$hvo_sysctl"
    expect 0 "$bin" restore
    stdout_has "hugetlb_optimize_vmemmap $((1 - hvo)) -> $hvo"
    [[ $(cat "$hvo_sysctl") == "$hvo" ]] || { echo "$hvo" >"$hvo_sysctl"; fail "restore left hugetlb_optimize_vmemmap changed"; }
    [[ ! -e $state_file ]] || fail "the state file with the HVO sysctl was kept"
fi
echo "forged state files: ok"
