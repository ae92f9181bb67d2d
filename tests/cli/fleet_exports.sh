#!/usr/bin/env bash
# fleet export for the tools that configure fleets, read back by their real parsers: the
# Ansible inventory by PyYAML and ansible-inventory, the tuned profiles by Python's
# configparser, the MachineConfigs by PyYAML. Only SKUs that --format cmdline prints appear,
# each with the value `apply --value` takes; SKU keys of unnamed CPUs and
# their '/' keep their own group. Then fleet recommend --plot: an SVG naming the hosts
# and the outlier.
source "$(dirname "$0")/lib/harness.bash"
require_command python3 "the checks parse the exports with it (Debian: python3)"
python3 -c 'import yaml' 2>/dev/null || skip "PyYAML is not installed (Debian: python3-yaml)"
gen=$(dirname "$bin")/tests/gen-fleet
[[ -x $gen ]] || skip "no $gen: the build makes it beside hugetune"

# Two SKUs from the seeded generator (one sets a value, one keeps the default), and three copies
# of the first on CPUs hugetune does not name (models 1234 to 1236), whose SKU keys are the CPUs'
# identities (intel-6-1234-4 ...): SKUs of their own, each with its own group. (The reader's one
# rule for a microarch, lower-case letters, digits and '-', leaves no two keys whose safe names
# clash.)
"$gen" --seed 3 --out "$work/fleet" --skus 2 --hosts-per-sku 6 --outliers 1 --verify-share 0.5 >/dev/null 2>&1
rm "$work/fleet/truth.json"
python3 - "$work/fleet" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
for path in glob.glob(os.path.join(out, "skylake-*.json")):
    d = json.load(open(path))
    for model, suffix in ((1234, "p"), (1235, "m"), (1236, "l")):
        d["cpu"]["model"] = model
        d["sku"]["microarch"] = d["cpu"]["microarch"] = f'intel-{d["cpu"]["family"]}-{model}-{d["cpu"]["stepping"]}'
        d["host"]["hostname"] = os.path.basename(path)[:-5] + suffix
        json.dump(d, open(os.path.join(out, d["host"]["hostname"] + ".json"), "w"))
PY
db=$work/fleet.db
expect 0 "$bin" fleet ingest --db "$db" "$work/fleet"
# The generator's hosts carry low_confidence and its answers reach about 63%: accepted, so that
# the skylake SKUs settle (zen4 keeps the kernel default, so it is left out of every export).
analysis=(--accept-warning low_confidence --min-confidence 50)
expect 0 "$bin" fleet export --db "$db" --format cmdline "${analysis[@]}"
cp "$out" "$work/cmdline.txt"
[[ $(wc -l <"$work/cmdline.txt") == 4 ]] || fail "cmdline export: $(cat "$work/cmdline.txt")"
stderr_has "1 SKU left out"
expect 0 "$bin" fleet export --db "$db" --format json "${analysis[@]}"
cp "$out" "$work/answers.json"
sku=$(python3 -c 'import json, sys; print([a["sku"] for a in json.load(open(sys.argv[1])) if a["sku"].startswith("skylake-sp/")][0])' "$work/answers.json")

for format in ansible tuned machineconfig; do
    expect 0 "$bin" fleet export --db "$db" --format "$format" "${analysis[@]}"
    cp "$out" "$work/$format.out"
    stderr_has "1 SKU left out"
done
expect 0 "$bin" fleet export --db "$db" --format ansible --out "$work/inv" "${analysis[@]}"
stdout_empty
expect 0 "$bin" fleet export --db "$db" --format tuned --out "$work/tuned" "${analysis[@]}"
# The next export to the same directory removes what it no longer holds, and only that: with no
# SKU settled (the minimum hosts out of reach) every profile written above goes, a file someone
# else put there stays.
cp -r "$work/tuned" "$work/tuned-again"
echo "mine" >"$work/tuned-again/operator-notes.txt"
profiles=$(find "$work/tuned-again" -name tuned.conf | wc -l)
[[ $profiles -ge 1 ]] || fail "no tuned profile written: $(ls -R "$work/tuned-again")"
expect 0 "$bin" fleet export --db "$db" --format tuned --out "$work/tuned-again" --min-hosts 1000
stderr_has "removed $profiles files the last export to $work/tuned-again wrote and this one no longer holds"
[[ -z $(find "$work/tuned-again" -name tuned.conf) ]] || fail "stale profiles left: $(ls -R "$work/tuned-again")"
[[ $(cat "$work/tuned-again/operator-notes.txt") == mine ]] || fail "a file the export did not write was removed"

python3 - "$work" <<'PY' || fail "the exports above are wrong"
import configparser, glob, json, os, re, sys, yaml
work = sys.argv[1]
errors = []
expected = {}  # SKU key -> value, as --format cmdline prints them
for line in open(os.path.join(work, "cmdline.txt")):
    key, setting = line.split()
    expected[key] = int(setting.split("=")[1])
hosts = {}  # SKU key -> hosts, from the reports (one report per host here)
for path in glob.glob(os.path.join(work, "fleet", "*.json")):
    d = json.load(open(path))
    s = d["sku"]
    ioa = s.get("init_on_alloc", d.get("kernel", {}).get("init_on_alloc"))
    key = f'{s["microarch"]}/{s["nodes"]}n/{s["hardware_threads_per_node"]}t/{s["memory_per_node_gib"]}g/{s["page_size_kb"]}k' + {True: "/ioa1", False: "/ioa0"}.get(ioa, "")
    hosts.setdefault(key, []).append(d["host"]["hostname"])
# The hosts an answer left out of its fit are not named with its value.
left_out = {a["sku"]: {e["host"] for e in a.get("excluded_hosts", [])}
            for a in json.load(open(os.path.join(work, "answers.json")))}
if not any(left_out.get(key) for key in expected):
    errors.append(f"no exported SKU left a host out: {left_out}")
for key in list(hosts):
    hosts[key] = [h for h in hosts[key] if h not in left_out.get(key, set())]
group_name = re.compile(r"^[a-z_][a-z0-9_]*$")

def check_groups(children, vars_of, what):
    seen = {}
    for group, body in children.items():
        if not group_name.match(group):
            errors.append(f"{what}: group {group!r} is not a safe Ansible name")
        v = vars_of(group, body)
        key = v["hugetune_sku"]
        seen[key] = group
        if v["hugetune_hugepage_alloc_threads"] != expected.get(key):
            errors.append(f"{what}: {key}: {v}, cmdline says {expected.get(key)}")
        if v["hugetune_kernel_cmdline"] != f"hugepage_alloc_threads={expected.get(key)}":
            errors.append(f"{what}: {key}: kernel_cmdline {v['hugetune_kernel_cmdline']}")
        if sorted(body["hosts"]) != sorted(hosts[key]):
            errors.append(f"{what}: {key}: hosts {sorted(body['hosts'])}, expected {sorted(hosts[key])}")
    if sorted(seen) != sorted(expected):
        errors.append(f"{what}: SKUs {sorted(seen)}, cmdline {sorted(expected)}")
    if len(set(seen.values())) != len(seen):
        errors.append(f"{what}: two SKUs share a group: {seen}")
    return seen

doc = yaml.safe_load(open(os.path.join(work, "ansible.out")))
groups = check_groups(doc["all"]["children"], lambda g, b: b["vars"], "ansible stdout")
inv = yaml.safe_load(open(os.path.join(work, "inv", "inventory.yml")))
check_groups(inv["all"]["children"],
             lambda g, b: yaml.safe_load(open(os.path.join(work, "inv", "group_vars", g + ".yml"))),
             "ansible --out")

for key, value in expected.items():
    if key not in groups:
        continue  # reported above: the SKU has no group of its own
    conf = configparser.ConfigParser()
    conf.read(os.path.join(work, "tuned", groups[key], "tuned.conf"))
    if dict(conf["bootloader"]) != {"cmdline_hugetune": f"+hugepage_alloc_threads={value}"}:
        errors.append(f"tuned --out {key}: {dict(conf['bootloader'])}")
snippets = open(os.path.join(work, "tuned.out")).read().split("\n\n")
if len(snippets) != len(expected):
    errors.append(f"tuned stdout: {len(snippets)} profiles")
for text in snippets:
    conf = configparser.ConfigParser()
    conf.read_string(text)
    key = re.search(r"^# SKU (\S+):", text, re.M).group(1)
    if conf["bootloader"]["cmdline_hugetune"] != f"+hugepage_alloc_threads={expected[key]}":
        errors.append(f"tuned stdout {key}: {dict(conf['bootloader'])}")

configs = [d for d in yaml.safe_load_all(open(os.path.join(work, "machineconfig.out"))) if d]
dns = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
roles = {}
for mc in configs:
    key = mc["metadata"]["annotations"]["hugetune/sku"]
    role = mc["metadata"]["labels"]["machineconfiguration.openshift.io/role"]
    roles[key] = role
    if mc["apiVersion"] != "machineconfiguration.openshift.io/v1" or mc["kind"] != "MachineConfig":
        errors.append(f"machineconfig {key}: {mc['apiVersion']} {mc['kind']}")
    if mc["spec"]["kernelArguments"] != [f"hugepage_alloc_threads={expected.get(key)}"]:
        errors.append(f"machineconfig {key}: {mc['spec']}")
    if len(role) > 63 or not dns.match(role) or mc["metadata"]["name"] != "99-" + role:
        errors.append(f"machineconfig {key}: role {role!r}, name {mc['metadata']['name']!r}")
if sorted(roles) != sorted(expected) or len(set(roles.values())) != len(roles):
    errors.append(f"machineconfig: roles {roles}")
if not any(k.startswith("intel-6-1236-") for k in roles):
    errors.append("machineconfig: the SKU of an unnamed CPU is missing")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY

# ansible-inventory itself reads both forms: every host gets its SKU's value.
if command -v ansible-inventory >/dev/null; then
    # Ansible's YAML inventory plugin takes only files named *.yml or *.yaml.
    cp "$work/ansible.out" "$work/stdout-inventory.yml"
    for inventory in "$work/stdout-inventory.yml" "$work/inv/inventory.yml"; do
        HOME=$work ANSIBLE_LOCAL_TEMP=$work/ansible-tmp ansible-inventory -i "$inventory" --list \
            >"$work/listed.json" 2>"$work/ansible.err" || fail "ansible-inventory -i $inventory: $(cat "$work/ansible.err")"
        grep -qi "warning" "$work/ansible.err" && fail "ansible-inventory -i $inventory warns: $(cat "$work/ansible.err")"
        python3 - "$work/listed.json" "$work/cmdline.txt" <<'PY' || fail "ansible-inventory -i $inventory: $(cat "$work/listed.json")"
import json, sys
listed = json.load(open(sys.argv[1]))
expected = dict(l.split() for l in open(sys.argv[2]))
hostvars = listed["_meta"]["hostvars"]
skus = {v["hugetune_sku"] for v in hostvars.values()}
ok = skus == set(expected) and all(
    f'hugepage_alloc_threads={v["hugetune_hugepage_alloc_threads"]}' == expected[v["hugetune_sku"]]
    for v in hostvars.values()) and len(hostvars) == 5 * len(expected)  # 6 hosts, 1 left out
sys.exit(0 if ok else 1)
PY
    done
    ansible_checked="; ansible-inventory reads both inventories"
else
    ansible_checked="; ansible-inventory not installed (Debian: ansible-core), its check left out"
fi

# An export to DIR writes and removes only inside DIR: a manifest edited to name a file through
# a link planted in DIR (or outside DIR) names nothing, and a link where the export writes a
# directory is refused. The files outside stay.
mkdir "$work/outside"
echo "keep" >"$work/outside/victim.yml"
echo "keep" >"$work/outside/other.yml"
ln -s "$work/outside" "$work/inv/linked"
ln -s "$work/outside/other.yml" "$work/inv/other-link.yml"
printf '%s\n' linked/victim.yml other-link.yml "../outside/other.yml" "$work/outside/other.yml" \
    >>"$work/inv/.hugetune-export-manifest"
expect 0 "$bin" fleet export --db "$db" --format ansible --out "$work/inv" "${analysis[@]}"
stderr_has "warning: ignored line "
stderr_has "'../outside/other.yml': not a path inside the directory"
stderr_has "'$work/outside/other.yml': not a path inside the directory"
[[ $(cat "$work/outside/victim.yml" "$work/outside/other.yml") == $'keep\nkeep' ]] ||
    fail "an export removed a file outside its directory: $(ls -l "$work/outside")"
[[ -L $work/inv/linked && -L $work/inv/other-link.yml ]] || fail "the planted links were removed"
grep -q linked "$work/inv/.hugetune-export-manifest" && fail "the next manifest names what this export did not write"
mkdir "$work/inv2"
ln -s "$work/outside" "$work/inv2/group_vars"
expect 2 "$bin" fleet export --db "$db" --format ansible --out "$work/inv2" "${analysis[@]}"
stderr_has "error: --out: $work/inv2/group_vars is a symbolic link; hugetune writes only into the directory itself: remove the link"
[[ $(ls "$work/outside") == $'other.yml\nvictim.yml' ]] || fail "an export wrote outside its directory: $(ls "$work/outside")"

# Host names Ansible reads as a group ("all", "ungrouped", a SKU's group) are refused on
# ingest; a database that holds them from before the rule exports the others, without them.
read -r group host1 host2 < <(python3 -c 'import sys, yaml
children = yaml.safe_load(open(sys.argv[1]))["all"]["children"]
group = sorted(children)[0]
print(group, *sorted(children[group]["hosts"])[:2])' "$work/inv/inventory.yml")
[[ $group == hugetune_* && -n $host2 ]] || fail "no group of two hosts in $work/inv/inventory.yml"
mkdir "$work/named"
for name in all UNGROUPED "$group"; do
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["host"]["hostname"] = sys.argv[3]; json.dump(d, open(sys.argv[2], "w"))' \
        "$work/fleet/skylake-sp-0-host00.json" "$work/named/$name.json" "$name"
    expect 2 "$bin" fleet ingest --db "$db" "$work/named/$name.json"
    stderr_has "refused $work/named/$name.json: host name '$name' is not a DNS host name: it "
done
stderr_has "it starts with 'hugetune_' as the SKU groups of the Ansible export do"
cp "$db" "$work/before-the-rule.db"
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for old, new in ((sys.argv[2], "all"), (sys.argv[3], sys.argv[4])):
    c.execute("UPDATE hosts SET hostname = ? WHERE hostname = ?", (new, old))
c.commit()' "$work/before-the-rule.db" "$host1" "$host2" "$group"
expect 0 "$bin" fleet export --db "$work/before-the-rule.db" --format ansible --out "$work/inv-before" "${analysis[@]}"
stderr_has "warning: host 'all' left out: it is the name of Ansible's group 'all'"
stderr_has "warning: host '$group' left out: it starts with 'hugetune_'"
grep -E '^        "(all|ungrouped|hugetune_[a-z0-9_]*)": ' "$work/inv-before/inventory.yml" &&
    fail "a host named like a group is in the inventory"
# Ansible itself: every host the inventory names is in the pattern all and in its group.
if command -v ansible >/dev/null; then
    for pattern in all "$group"; do
        HOME=$work ANSIBLE_LOCAL_TEMP=$work/ansible-tmp ansible -i "$work/inv-before/inventory.yml" \
            "$pattern" --list-hosts >"$work/listed.txt" 2>"$work/ansible.err" ||
            fail "ansible $pattern --list-hosts: $(cat "$work/ansible.err")"
        grep -qi "warning" "$work/ansible.err" && fail "ansible $pattern --list-hosts warns: $(cat "$work/ansible.err")"
        python3 - "$work/inv-before/inventory.yml" "$pattern" "$work/listed.txt" <<'PY' || fail "ansible $pattern --list-hosts: $(cat "$work/listed.txt")"
import sys, yaml
children = yaml.safe_load(open(sys.argv[1]))["all"]["children"]
pattern = sys.argv[2]
want = {h for g, b in children.items() if pattern in ("all", g) for h in b["hosts"]}
listed = {l.strip() for l in open(sys.argv[3]).read().splitlines()[1:]}
sys.exit(0 if listed == want and len(want) >= 3 else 1)
PY
    done
fi

# Refusals: an unknown format names the new ones; --out of a directory format is a file.
expect_error 2 "--format: 'xml' is not one of json, csv, cmdline, prometheus, ansible, tuned, machineconfig" \
    "$bin" fleet export --db "$db" --format xml
: >"$work/afile"
expect_error 2 "--out: $work/afile is not a directory" "$bin" fleet export --db "$db" --format ansible --out "$work/afile"
expect_error 2 "--out: $work/absent does not exist" "$bin" fleet export --db "$db" --format tuned --out "$work/absent/dir"

# fleet recommend --plot: gnuplot draws the SKU, the hosts and the outlier named.
expect_error 2 "--plot: '$work/p.pdf' needs the extension .svg or .png" \
    "$bin" fleet recommend --db "$db" --sku "$sku" --plot "$work/p.pdf"
command -v gnuplot >/dev/null || skip "gnuplot is not installed (Debian: gnuplot-nox): the exports passed$ansible_checked, the plot is left out"
expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --plot "$work/sku.svg" "${analysis[@]}"
stderr_has "plot written to $work/sku.svg"
python3 - "$work/sku.svg" <<'PY' || fail "the SVG: $(head -c 2000 "$work/sku.svg")"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
text = " ".join(t.strip() for t in root.itertext())
needed = [f"skylake-sp-0-host0{i}" for i in range(6)] + [
    "skylake-sp-0-host05 (outlier: its curve is slower", "recommended hugepage_alloc_threads=",
    "5%..95% bootstrap", "skylake-sp/4n/28t/192g/2048k"]
missing = [n for n in needed if n not in text]
print("missing:", missing) if missing else None
sys.exit(1 if missing else 0)
PY
ls "$work"/sku.svg.* 2>/dev/null && fail "temporary files left beside the plot"
echo "fleet exports: ansible, tuned and machineconfig parse and agree with cmdline$ansible_checked; the plot names the hosts and the outlier"
