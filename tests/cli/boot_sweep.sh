#!/usr/bin/env bash
# `hugetune boot-sweep` on a fixture root: each "boot" is the test rewriting the tree's
# /proc/cmdline, boot id and /dev/kmsg to what the kexec'd kernel would show. Under --root the
# state and the unit are written inside the tree and every program (kexec, systemctl) is
# printed, never run: kexec and systemctl are stand-ins first on PATH that record any call, and
# none may come. A whole sweep of two steps, a boot a person chose mid-sweep, a power cut
# between a step's mark and its kexec, one sweep per machine, the refusals, and the state
# file's checks.
source "$(dirname "$0")/lib/harness.bash"

# The state must be on persistent storage; the scratch directory may be in memory.
persist=$work
if [[ $(stat -f -c %T "$work") == tmpfs || $(stat -f -c %T "$work") == ramfs ]]; then
    persist=$(mktemp -d -p "$PWD")
    at_exit "rm -rf '$persist'"
fi

release=$(cat "$src/tests/fixtures/vm-1node/proc/sys/kernel/osrelease")
root=$persist/root
cp -a "$src/tests/fixtures/vm-1node" "$root"
mkdir -p "$root/boot" "$root/proc/sys/kernel/random"
echo image >"$root/boot/vmlinuz-$release"
echo initrd >"$root/boot/initrd.img-$release"
original=$(cat "$root/proc/cmdline")
echo boot-0 >"$root/proc/sys/kernel/random/boot_id"
# The tree's own kexec: under --root the sweep looks for it there, never on this machine's PATH.
mkdir -p "$root/usr/sbin"
printf '#!/bin/sh\nexit 1\n' >"$root/usr/sbin/kexec"
cp "$root/usr/sbin/kexec" "$root/usr/sbin/hugetune"
chmod +x "$root/usr/sbin/kexec" "$root/usr/sbin/hugetune"

# --state names the file as the machine sees it; under --root it lies inside the tree.
state_arg=/var/lib/hugetune/boot-sweep.json
state=$root$state_arg
result=$root/var/lib/hugetune/boot-sweep-result.json

stubs=$work/stubs
record=$work/argv.log
mkdir -p "$stubs"
: >"$record"
for tool in kexec systemctl; do
    cat >"$stubs/$tool" <<STUB
#!/bin/sh
line="$tool"
for a in "\$@"; do line="\$line [\$a]"; done
echo "\$line" >>"$record"
exit 0
STUB
    chmod +x "$stubs/$tool"
done
export PATH=$stubs:$PATH
nothing_recorded() { [[ ! -s $record ]] || { cat "$record" >&2; fail "a command ran"; }; }
# planned COMMAND: printed as a command it would run, and not run.
planned() {
    stdout_has "would run: $1  (not run: --root $root is not this machine)"
    nothing_recorded
}
not_planned() { ! grep -qF "would run: $1" "$out" || { cat "$out" >&2; fail "planned: $1"; }; }
kexec_load() { echo "kexec -l $root/boot/vmlinuz-$release --initrd=$root/boot/initrd.img-$release '--append=$1'"; }
field() { python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# boot CMDLINE [THREADS]: the next boot, with CMDLINE and, when THREADS is given, the kernel's
# allocation line for 1024 pages of 2 MiB at that thread count.
boots=0
boot() {
    boots=$((boots + 1))
    echo "boot-$boots" >"$root/proc/sys/kernel/random/boot_id"
    echo "$1" >"$root/proc/cmdline"
    {
        echo "[    0.000000] Linux version $release (builder@example) #1 SMP"
        [[ -n ${2:-} ]] && echo "[    1.200000] HugeTLB: allocation took $((100 + 800 / $2))ms with hugepage_allocation_threads=$2"
        echo "[    1.200100] HugeTLB: registered 2.00 MiB page size, pre-allocated 1024 pages"
    } >"$root/dev/kmsg"
    : >"$record"
}

sweep=("$bin" boot-sweep)
base_args=(--root "$root" --pages 1024 --repetitions 1)
plan_args=("${base_args[@]}" --threads 1,2)
step1="$original hugepagesz=2M hugepages=1024 hugepage_alloc_threads=1"
step2="$original hugepagesz=2M hugepages=1024 hugepage_alloc_threads=2"

# --- plan: checks, changes nothing ------------------------------------------------------------
mkdir -p "$work/nobin"
mv "$root/usr/sbin/kexec" "$work/kexec"
expect_error 4 "kexec not found (on PATH, or under --root in the tree's" "${sweep[@]}" plan "${plan_args[@]}"
mv "$work/kexec" "$root/usr/sbin/kexec"
# A kernel that refuses the unsigned kexec load every step makes is refused by plan, before any
# start: lockdown from integrity on, or kexec switched off until the next boot.
mkdir -p "$root/sys/kernel/security" "$root/proc/sys/kernel"
for mode in integrity confidentiality; do
    echo "none integrity confidentiality" | sed "s/$mode/[$mode]/" >"$root/sys/kernel/security/lockdown"
    expect_error 4 "the kernel is locked down ($mode, /sys/kernel/security/lockdown)" \
        "${sweep[@]}" plan "${plan_args[@]}"
    stderr_has "'kexec -s' would load only an image whose signature the kernel verifies"
done
echo "[none] integrity confidentiality" >"$root/sys/kernel/security/lockdown"
expect 0 "${sweep[@]}" plan "${plan_args[@]}"
echo "none [sideways] confidentiality" >"$root/sys/kernel/security/lockdown"
expect_error 1 "not one bracketed mode" "${sweep[@]}" plan "${plan_args[@]}"
rm "$root/sys/kernel/security/lockdown"
echo 1 >"$root/proc/sys/kernel/kexec_load_disabled"
expect_error 4 "kexec is switched off on this kernel (/proc/sys/kernel/kexec_load_disabled is 1" \
    "${sweep[@]}" plan "${plan_args[@]}"
echo maybe >"$root/proc/sys/kernel/kexec_load_disabled"
expect_error 4 "/proc/sys/kernel/kexec_load_disabled holds 'maybe', not 0 or 1" \
    "${sweep[@]}" plan "${plan_args[@]}"
echo 0 >"$root/proc/sys/kernel/kexec_load_disabled"
echo 0 >"$root/proc/sys/kernel/kexec_load_limit_reboot"
expect_error 4 "/proc/sys/kernel/kexec_load_limit_reboot allows 0 more kexec load(s)" \
    "${sweep[@]}" plan "${plan_args[@]}"
echo -1 >"$root/proc/sys/kernel/kexec_load_limit_reboot"
expect 0 "${sweep[@]}" plan "${plan_args[@]}"
rm "$root/proc/sys/kernel/kexec_load_limit_reboot"
expect 0 "${sweep[@]}" plan "${plan_args[@]}"
stdout_has "step 1: $step1"
stdout_has "step 2: $step2"
stdout_has "estimated time"
expect 0 "${sweep[@]}" plan "${plan_args[@]}" --json
[[ $(field "$out" 'd["steps"][1]["cmdline"]') == "$step2" ]] || fail "plan --json step 2"
expect_error 2 "--page-size: 1G pages are gigantic" "${sweep[@]}" plan "${plan_args[@]}" --page-size 1G
expect_error 2 "--threads" "${sweep[@]}" plan "${base_args[@]}" --threads 0
expect_error 2 "--threads: 3 is not between 1 and the 2 online CPUs" "${sweep[@]}" plan "${base_args[@]}" --threads 3
expect_error 2 "--init-on-alloc" "${sweep[@]}" plan "${plan_args[@]}" --init-on-alloc 2
expect_error 2 "--pages: the command line requests no 2M pool" "${sweep[@]}" plan --root "$root"
expect_error 1 "does not fit" "${sweep[@]}" plan --root "$root" --gib 100
expect_error 2 "--initrd: $root/boot/missing does not exist" "${sweep[@]}" plan "${plan_args[@]}" --initrd /boot/missing
mv "$root/boot/initrd.img-$release" "$work/initrd"
expect_error 2 "--initrd: no initrd found" "${sweep[@]}" plan "${plan_args[@]}"
expect 0 "${sweep[@]}" plan "${plan_args[@]}" --initrd none
mv "$work/initrd" "$root/boot/initrd.img-$release"
expect_error 2 "unknown subcommand" "${sweep[@]}" launch
mv "$root/proc/sys/kernel/osrelease" "$work/osrelease"
echo 6.14.2 >"$root/proc/sys/kernel/osrelease"
expect_error 4 "does not take hugepage_alloc_threads=" "${sweep[@]}" plan "${plan_args[@]}" --kernel "/boot/vmlinuz-$release" --initrd none
mv "$work/osrelease" "$root/proc/sys/kernel/osrelease"
nothing_recorded

# --- no state: status and continue have nothing to do -----------------------------------------
expect 0 "${sweep[@]}" status --root "$root" --state "$state_arg"
stdout_has "no boot sweep"
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
stderr_has "nothing to do"
nothing_recorded
expect_error 1 "nothing to abort" "${sweep[@]}" abort --root "$root" --state "$state_arg"
expect_error 2 "--state: under --root give the path the machine sees" \
    "${sweep[@]}" status --root "$root" --state relative.json

# --- start: refusals, dry run -------------------------------------------------------------------
if [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]]; then
    shm_root=$(mktemp -d -p /dev/shm)
    at_exit "rm -rf '$shm_root'"
    cp -a "$root/." "$shm_root"
    expect_error 2 "--state: $shm_root/var/lib/hugetune/boot-sweep.json is on a file system in memory" \
        "${sweep[@]}" start --root "$shm_root" --pages 1024 --repetitions 1 --threads 1,2
fi
# Under --root the programs are not run, with --dry-run as without, and the plan says so.
expect 0 "${sweep[@]}" start "${plan_args[@]}" --state "$state_arg" --dry-run
planned "$(kexec_load "$step1")"
planned "systemctl --root=$root enable hugetune-boot-sweep.service"
stdout_has "would write $state"
stdout_has "would write $root/etc/systemd/system/hugetune-boot-sweep.service"
planned "systemctl --no-block kexec"
[[ ! -e $state ]] || fail "--dry-run wrote the state"
[[ ! -e $root/etc/systemd/system/hugetune-boot-sweep.service ]] || fail "--dry-run wrote the unit"
if can_run_as_nobody "$bin"; then
    expect_error 3 "as root" as_nobody "$(nobody_copy "$bin")" boot-sweep start --pages 1024
fi

# --- paths the unit names: no line of their own, no systemd specifier or variable ---------------
forged=$'/var/lib/hugetune/x.json\nExecStartPre=/bin/touch /PWNED'
for command in start status continue abort; do
    args=(--root "$root")
    [[ $command == start ]] && args=("${plan_args[@]}")
    expect_error 2 "--state: '/var/lib/hugetune/x.json\nExecStartPre=/bin/touch /PWNED' is named in the boot sweep's systemd unit, and it holds a control character" \
        "${sweep[@]}" "$command" "${args[@]}" --state "$forged"
done
[[ ! -e $root/etc/systemd/system/hugetune-boot-sweep.service ]] || fail "a unit with a forged line"
odd_state=/var/lib/hugetune/%h-\$HOME.json
# What a killed sweep command left between a temporary file and its rename: start removes it.
mkdir -p "$root/etc/systemd/system" "$root/var/lib/hugetune"
killed_left=("$root/etc/systemd/system/.hugetune-boot-sweep.service.tmp.Ab12Cd"
    "$root/var/lib/hugetune/.%h-\$HOME.json.tmp.Ef34Gh" "$root/var/lib/hugetune/.boot-sweep-active.tmp.Ij56Kl")
touch "${killed_left[@]}"
expect 0 "${sweep[@]}" start "${plan_args[@]}" --state "$odd_state" --dry-run
for left in "${killed_left[@]}"; do [[ -e $left ]] || fail "--dry-run removed $left"; done
expect 0 "${sweep[@]}" start "${plan_args[@]}" --state "$odd_state"
for left in "${killed_left[@]}"; do [[ ! -e $left ]] || fail "start left $left"; done
odd_unit=$root/etc/systemd/system/hugetune-boot-sweep.service
grep -qxF 'ConditionPathExists=/var/lib/hugetune/%%h-$HOME.json' "$odd_unit" || fail "the condition's specifier"
grep -qxF 'ExecStart=/usr/sbin/hugetune boot-sweep continue --state /var/lib/hugetune/%%h-$$HOME.json' "$odd_unit" ||
    fail "the command's specifier or variable"
expect 0 "${sweep[@]}" abort --root "$root" --state "$odd_state"
[[ ! -e $odd_unit ]] || fail "abort left the unit"
rm -f "$root$odd_state" "$root/var/lib/hugetune/boot-sweep-active"
: >"$record"

# --- a whole sweep of two steps: under --root each program is printed, none run ----------------
expect 0 "${sweep[@]}" start "${plan_args[@]}" --state "$state_arg"
stdout_has "kexec into step 1 of 2 (1 threads"
planned "systemctl --root=$root enable hugetune-boot-sweep.service"
planned "$(kexec_load "$step1")"
planned "systemctl --no-block kexec"
unit=$root/etc/systemd/system/hugetune-boot-sweep.service
# The unit runs the tree's own hugetune at the tree's boots, never this machine's binary path.
grep -qxF "ExecStart=/usr/sbin/hugetune boot-sweep continue --state $state_arg" "$unit" || fail "unit ExecStart"
grep -qxF "ConditionPathExists=$state_arg" "$unit" || fail "unit condition"
[[ $(cat "$root/var/lib/hugetune/boot-sweep-active") == "$state_arg" ]] || fail "the active sweep"
[[ $(field "$state" 'd["steps"][0]["attempted"]["boot_id"]') == boot-0 ]] || fail "step 1 not marked"
expect_error 5 "a boot sweep is in progress" "${sweep[@]}" start "${plan_args[@]}" --state "$state_arg"
# One sweep per machine, whatever state file a second start is given.
expect_error 5 "one sweep per machine" "${sweep[@]}" start "${plan_args[@]}" --state /var/lib/hugetune/other.json
[[ ! -e $root/var/lib/hugetune/other.json ]] || fail "a second sweep's state was written"
grep -qxF "ExecStart=/usr/sbin/hugetune boot-sweep continue --state $state_arg" "$unit" || fail "the unit changed"
nothing_recorded

boot "$step1" 1
# A continue killed between a temporary file and its rename: the next continue (not its dry run)
# removes what it left, holding the tree's lock as start and abort do.
continue_left=("$root/etc/systemd/system/.hugetune-boot-sweep.service.tmp.Mn78Op"
    "$(dirname "$state")/.$(basename "$state").tmp.Qr90St")
touch "${continue_left[@]}"
flock -o "$root" sleep 600 &
tree_holder=$!
track_background "$tree_holder"
at_exit "pkill -P $tree_holder sleep 2>/dev/null; true"
for _ in $(seq 100); do flock -n "$root" true 2>/dev/null || break; sleep 0.1; done
expect_error 5 "another hugetune command is working on $root" \
    "${sweep[@]}" continue --root "$root" --state "$state_arg"
expect_error 5 "another hugetune command is working on $root" \
    "${sweep[@]}" abort --root "$root" --state "$state_arg"
pkill -P "$tree_holder" sleep
wait "$tree_holder" 2>/dev/null || true
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg" --dry-run
for left in "${continue_left[@]}"; do [[ -e $left ]] || fail "continue --dry-run removed $left"; done
[[ $(field "$state" 'd["steps"][0].get("recorded")') == None ]] || fail "continue --dry-run recorded step 1"
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
for left in "${continue_left[@]}"; do [[ ! -e $left ]] || fail "continue left $left"; done
stdout_has "kexec into step 2 of 2"
planned "$(kexec_load "$step2")"
[[ $(field "$state" 'd["steps"][0]["recorded"]["milliseconds"]') == 900 ]] || fail "step 1 ms"
expect 0 "${sweep[@]}" status --root "$root" --state "$state_arg"
stdout_has "step 1: 1 threads, repetition 1: 900 ms, boot boot-1"
stdout_has "step 2: 2 threads, repetition 1: attempted at"

boot "$step2" 2
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
stdout_has "boot sweep finished"
stdout_has "best: the fewest threads within 2% of the fastest median: hugepage_alloc_threads=2"
planned "$(kexec_load "$original")"
planned "systemctl --root=$root disable hugetune-boot-sweep.service"
[[ ! -e $unit ]] || fail "the unit is still there"
[[ $(field "$result" 'd["best"]["cmdline"]') == hugepage_alloc_threads=2 ]] || fail "result best"

boot "$original"
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
stdout_has "boot sweep done: back on the original command line"
nothing_recorded
expect 0 "${sweep[@]}" status --root "$root" --state "$state_arg" --json
[[ $(field "$out" 'd["state"]["phase"]') == done ]] || fail "status --json phase"

# fit reads the result as a boot table (two counts are too few to fit a curve to)
expect_error 2 "--input $result: only 2 distinct threads_per_node value(s) in the boot series" \
    "$bin" fit --input "$result"

# fit and run set the measured boots beside the prediction
expect 0 "$bin" fit --input "$src/tests/data/sweep-zen4-2node.json" --boot-sweep "$result" --json
[[ $(field "$out" 'd["boot_sweep"]["rows"][1]["threads"]') == 2 ]] || fail "fit boot_sweep rows"
[[ $(field "$out" 'round(d["boot_sweep"]["rows"][0]["measured_ms"])') == 900 ]] || fail "fit measured_ms"
[[ $(field "$out" 'd["boot_sweep"]["rows"][0]["predicted_ms"] > 0') == True ]] || fail "fit predicted_ms"
expect 0 "$bin" fit --input "$src/tests/data/sweep-zen4-2node.json" --boot-sweep "$result"
stdout_has "Measured boots against the prediction (1024 pages of 2 MiB)"
expect_error 2 "--boot-sweep $work/none.json" "$bin" fit --input "$src/tests/data/sweep-zen4-2node.json" --boot-sweep "$work/none.json"
expect_error 2 "--boot-sweep $work/none.json" "$bin" run --dry-run --boot-sweep "$work/none.json"

# --- a boot a person chose mid-sweep: the sweep ends in it, no kexec, no reboot ------------------
for chosen in "$original nomodeset" "BOOT_IMAGE=/vmlinuz-6.12.0-old root=/dev/sda1 ro"; do
    boot "$original"
    expect 0 "${sweep[@]}" start "${plan_args[@]}" --state "$state_arg"
    boot "$step1" 1
    expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
    boot "$chosen"
    expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
    stderr_has "boot sweep aborted: this boot's command line is not step 2 of 2"
    stderr_has "left as it is (no kexec, no reboot)"
    planned "systemctl --root=$root disable hugetune-boot-sweep.service"
    not_planned "kexec"
    not_planned "systemctl --no-block"
    [[ $(field "$state" 'd["phase"]') == aborted ]] || fail "not aborted"
    [[ $(field "$state" 'd["steps"][0]["recorded"]["milliseconds"]') == 900 ]] || fail "step 1 lost"
done

# --- a power cut between step 1's mark and its kexec ---------------------------------------------
boot "$original"
expect 0 "${sweep[@]}" start "${plan_args[@]}" --state "$state_arg"
boot "$original"  # the firmware's normal boot
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
stderr_has "boot sweep aborted: step 1 of 2 (1 threads, repetition 1) was attempted"
planned "systemctl --root=$root disable hugetune-boot-sweep.service"
not_planned "kexec"
[[ $(field "$state" 'd["phase"]') == aborted ]] || fail "not aborted"
[[ $(field "$state" 'd["steps"][1]["attempted"]') == None ]] || fail "step 2 attempted"

# --- without systemd: no unit, `kexec -e`, the caller runs continue ------------------------------
rm "$state"
boot "$original"
expect 0 "${sweep[@]}" start "${plan_args[@]}" --state "$state_arg" --no-systemd
planned "kexec -e"
not_planned "systemctl"
boot "$step1" 1
expect 0 "${sweep[@]}" abort --root "$root" --state "$state_arg"
stdout_has "abort requested: the next continue records its boot"
nothing_recorded
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
planned "$(kexec_load "$original")"
planned "kexec -e"
not_planned "systemctl"
[[ $(field "$state" 'd["steps"][0]["recorded"]["milliseconds"]') == 900 ]] || fail "abort lost step 1"
[[ $(field "$state" 'd["abort_reason"]') == "abort requested" ]] || fail "abort reason"

# --- another command holds the tree: under --root the lock is the root directory itself, and
# no lock file is made in the tree (--dry-run takes none) ------------------------------------------
exec 9<"$root"
flock -n 9
boot "$original"
expect_error 5 "another hugetune command is working on $root" "${sweep[@]}" start "${plan_args[@]}" --state "$state_arg"
exec 9<&-
nothing_recorded
[[ ! -e $root/run/hugetune/lock ]] || fail "a lock file was made in the tree"

# --- a state that cannot be written back: refused before anything is done -----------------------
rm "$state"
boot "$original"
expect 0 "${sweep[@]}" start "${plan_args[@]}" --state "$state_arg"
boot "$step1" 1
# A link that leads out of the tree leads, inside it, to no state: nothing outside is read.
mv "$state" "$persist/real-state.json"
ln -s "$persist/real-state.json" "$state"
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
stderr_has "no boot sweep state at $state: nothing to do"
nothing_recorded
rm "$state"
# One inside the tree is read, and refused as the place to write the state back.
mv "$persist/real-state.json" "$root/var/lib/hugetune/real-state.json"
ln -s /var/lib/hugetune/real-state.json "$state"
expect_error 2 "--state: $state is a symbolic link" "${sweep[@]}" continue --root "$root" --state "$state_arg"
[[ ! -s $out ]] || fail "continue printed before refusing: $(cat "$out")"
nothing_recorded
rm "$state"
mv "$root/var/lib/hugetune/real-state.json" "$state"
# A forged step: what is kexec'd is derived from the plan and checked against it.
python3 -S - "$state" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for steps in (d["plan"]["steps"], d["steps"]):
    steps[1]["threads"] = 1000000000
    steps[1]["cmdline"] = steps[1]["cmdline"].replace("hugepage_alloc_threads=2", "hugepage_alloc_threads=1000000000")
d["plan"]["threads"][1] = 1000000000
json.dump(d, open(sys.argv[1], "w"))
PY
expect_error 2 "plan.threads[1]: must be" "${sweep[@]}" continue --root "$root" --state "$state_arg"
[[ ! -s $out ]] || fail "continue printed before refusing: $(cat "$out")"
nothing_recorded
# A forged image path: what is kexec'd must be a plain absolute path, never one that climbs.
cp "$state" "$persist/forged-step.json"
rm "$state"
boot "$original"
expect 0 "${sweep[@]}" start "${plan_args[@]}" --state "$state_arg"
boot "$step1" 1
for forged in '"../../../../etc/shadow"' '"/boot/../../etc/shadow"' '"boot/initrd"'; do
    cp "$state" "$persist/good-state.json"
    python3 -S - "$state" "$forged" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["plan"]["initrd"] = json.loads(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
    expect_error 2 "plan.initrd: must be an absolute path without '.' or '..' parts" \
        "${sweep[@]}" continue --root "$root" --state "$state_arg"
    nothing_recorded
    mv "$persist/good-state.json" "$state"
done
expect 0 "${sweep[@]}" abort --root "$root" --state "$state_arg"
boot "$original"
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
rm "$state" "$persist/forged-step.json"

# --- under --root the unit runs the tree's own hugetune: a tree without one is refused ----------
mv "$root/usr/sbin/hugetune" "$work/tree-hugetune"
before=$(find "$root" | sort)
expect_error 2 "--root: $root has no hugetune in /usr/local/sbin" "${sweep[@]}" start "${plan_args[@]}"
[[ $(find "$root" | sort) == "$before" ]] || fail "a refused start wrote into the tree"
expect 0 "${sweep[@]}" start "${plan_args[@]}" --no-systemd --dry-run
mv "$work/tree-hugetune" "$root/usr/sbin/hugetune"

# --- paths that name no file, or climb: refused before anything is written -----------------------
tree_sum() { (cd "$1" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+ | sha256sum); }
before=$(tree_sum "$root")
for bad in /../.. / /var/lib/hugetune/.. /var/lib/hugetune/.; do
    for mode in "" --dry-run; do
        expect_error 2 "--state: '$bad' names a directory, not a file" \
            "${sweep[@]}" start "${plan_args[@]}" --state "$bad" $mode
    done
done
[[ $(tree_sum "$root") == "$before" ]] || fail "a refused --state wrote into the tree"
for flag in --kernel --initrd; do
    expect_error 2 "$flag: '/../..' is not an absolute path without '.' or '..' parts" \
        "${sweep[@]}" plan "${plan_args[@]}" $flag /../..
    expect_error 2 "$flag: 'boot/vmlinuz' is not an absolute path" \
        "${sweep[@]}" plan "${plan_args[@]}" $flag boot/vmlinuz
    expect_error 2 "$flag: $root/boot is not a regular file" "${sweep[@]}" plan "${plan_args[@]}" $flag /boot
done
# A link in the tree to the image is followed inside the tree, as the machine would.
ln -s "/boot/vmlinuz-$release" "$root/boot/vmlinuz"
expect 0 "${sweep[@]}" plan "${plan_args[@]}" --kernel /boot/vmlinuz
rm "$root/boot/vmlinuz"

# --- init_on_alloc and HVO as a second dimension ------------------------------------------------
# boot_set CMDLINE THREADS IOA HVO: a boot whose log says "heap alloc:IOA" and whose HVO sysctl
# reads HVO (0 or 1), whatever the command line asks.
boot_set() {
    boot "$1" "$2"
    sed -i "1a [    0.100000] mem auto-init: stack:all(zero), heap alloc:$3, heap free:off" "$root/dev/kmsg"
    echo "$4" >"$root/proc/sys/vm/hugetlb_optimize_vmemmap"
}
rm -f "$state"
boot "$original"
set_args=("${base_args[@]}" --threads 1 --init-on-alloc 0,1 --hugetlb-free-vmemmap on)
rm -f "$root/proc/sys/vm/hugetlb_optimize_vmemmap"
expect_error 4 "has no HVO (no /proc/sys/vm/hugetlb_optimize_vmemmap" "${sweep[@]}" plan "${set_args[@]}"
mkdir -p "$root/proc/sys/vm"
echo 0 >"$root/proc/sys/vm/hugetlb_optimize_vmemmap"
set1="$original hugepagesz=2M hugepages=1024 hugepage_alloc_threads=1 init_on_alloc=0 hugetlb_free_vmemmap=on"
set2="$original hugepagesz=2M hugepages=1024 hugepage_alloc_threads=1 init_on_alloc=1 hugetlb_free_vmemmap=on"
expect 0 "${sweep[@]}" plan "${set_args[@]}"
stdout_has "2 boots by kexec (1 thread count x 2 settings x 1 repetition)"
stdout_has "setting 1: init_on_alloc=0, hugetlb_free_vmemmap=on"
stdout_has "step 1: $set1"
stdout_has "step 2: $set2"
expect 0 "${sweep[@]}" plan "${set_args[@]}" --json
[[ $(field "$out" 'd["init_on_alloc_values"], d["init_on_alloc"], d["hugetlb_free_vmemmap_values"]') == "([False, True], None, [True])" ]] ||
    fail "plan --json values: $(cat "$out")"
[[ $(field "$out" 'd["steps"][1]["init_on_alloc"], d["steps"][1]["hugetlb_free_vmemmap"]') == "(True, True)" ]] ||
    fail "plan --json step 2 settings"
expect 0 "${sweep[@]}" plan "${base_args[@]}" --threads 1 --init-on-alloc 1
[[ $(grep -c "^step " "$out") == 1 ]] || fail "one value is one setting"
stdout_has "init_on_alloc=1"
expect_error 2 "--init-on-alloc: gives 0 twice; give each value once" "${sweep[@]}" plan "${base_args[@]}" --init-on-alloc 0,0
expect_error 2 "--init-on-alloc: 'keep' is not one of keep, 0, 1, or both (0,1)" "${sweep[@]}" plan "${base_args[@]}" --init-on-alloc 1,keep
expect_error 2 "--hugetlb-free-vmemmap: 'yes' is not one of keep, off, on, or both (off,on)" "${sweep[@]}" plan "${base_args[@]}" --hugetlb-free-vmemmap yes
expect_error 2 "--hugetlb-free-vmemmap: 'on,' has an empty item" "${sweep[@]}" plan "${base_args[@]}" --hugetlb-free-vmemmap on,
expect 0 "${sweep[@]}" start "${set_args[@]}" --state "$state_arg" --dry-run
stdout_has "would run: $(kexec_load "$set1")"
nothing_recorded
[[ ! -e $state ]] || fail "--dry-run wrote the state"

expect 0 "${sweep[@]}" start "${set_args[@]}" --state "$state_arg"
planned "$(kexec_load "$set1")"
boot_set "$set1" 1 off 1
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
stdout_has "kexec into step 2 of 2 (1 threads, init_on_alloc=1, hugetlb_free_vmemmap=on, repetition 1)"
planned "$(kexec_load "$set2")"
[[ $(field "$state" 'd["steps"][0]["recorded"]["init_on_alloc"], d["steps"][0]["recorded"]["hvo"]') == "(False, True)" ]] ||
    fail "step 1 recorded without its settings"
boot_set "$set2" 1 on 1
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
stdout_has "boot sweep finished"
stdout_has "init_on_alloc=0, hugetlb_free_vmemmap=on:"
stdout_has "init_on_alloc=1, hugetlb_free_vmemmap=on:"
[[ $(field "$result" '[(s["init_on_alloc"], s["best"]["threads"]) for s in d["by_setting"]]') == "[(False, 1), (True, 1)]" ]] ||
    fail "result by_setting"
[[ $(field "$result" 'd["steps"][1]["logged_init_on_alloc"], d["steps"][1]["hvo"]') == "(True, True)" ]] ||
    fail "result step 2's own settings"
boot "$original"
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
stdout_has "boot sweep done"

# A boot that did not take the step's HVO setting is not recorded: the sweep ends there.
expect 0 "${sweep[@]}" start "${set_args[@]}" --state "$state_arg"
boot_set "$set1" 1 off 0
expect 0 "${sweep[@]}" continue --root "$root" --state "$state_arg"
stderr_has "the kernel runs with HVO off (/proc/sys/vm/hugetlb_optimize_vmemmap), the step booted hugetlb_free_vmemmap=on"
planned "$(kexec_load "$original")"
[[ $(field "$state" 'd["phase"], d["steps"][0]["recorded"]') == "('aborted', None)" ]] || fail "the step was recorded"
boot "$original"
rm -f "$root/proc/sys/vm/hugetlb_optimize_vmemmap"

# --- the state file's own errors -----------------------------------------------------------------
head -c 200 "$result" >"$state"
expect_error 2 "$state" "${sweep[@]}" status --root "$root" --state "$state_arg"
stderr_has "not valid JSON"
echo '{"format": "hugetune-boot-sweep-state", "format_version": 9}' >"$state"
expect_error 2 "format_version: 9 is not supported" "${sweep[@]}" continue --root "$root" --state "$state_arg"

echo "boot_sweep: ok"
