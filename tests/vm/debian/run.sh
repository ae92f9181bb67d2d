#!/usr/bin/env bash
# The whole flow on a real Debian 12 system (tests/vm/README.md "A real Debian system"; `make
# vmtest-debian`): the disk image of build-image.sh, booted from its disk through its own GRUB,
# systemd as PID 1, the hugetune package installed. In the guest (guest/lab-step, run by
# guest/hugetune-lab.service once per boot): `hugetune run`, `apply --report` (the real
# update-grub), a reboot through GRUB, hugetune-verify.service verifying the boot and spooling its
# boot record, `rollback`, another reboot, the kernel's default back; and the unit's sandbox
# (`systemd-analyze security`, tests/cli/systemd_sandbox.sh). Each step is judged from outside:
# its marker on the second serial port while the guest runs, and the disk read afterwards.
#
#   tests/vm/debian/run.sh <hugetune .deb> [plain|two-kernels ...]   (default: both)
# Prints each step with its wall time; a failure names the step. Exit 0 when every variant
# passed, 1 when one failed, 77 when the lab cannot run here (no QEMU, no mmdebstrap, not root).
# VMLAB_DEBIAN_TIMEOUT_S (default 2400) bounds one variant's guest, all its boots together.
set -uo pipefail

deb=${1:?usage: $0 <hugetune .deb> [plain|two-kernels ...]}
shift
variants=("$@")
((${#variants[@]})) || variants=(plain two-kernels)
here=$(cd "$(dirname "$0")" && pwd)
export VMLAB_ARCH=amd64
# vmlab_choose_accel, and the EXIT trap that stops every guest in vmlab_guest_pids.
# shellcheck source=../lib/vm.bash
source "$here/../lib/vm.bash"

[[ $(id -u) -eq 0 ]] || vmlab_skip "the Debian lab builds its image with loop devices: run it as root"
command -v "$vmlab_qemu" >/dev/null || vmlab_skip "$vmlab_qemu not found; install $vmlab_qemu_package"
command -v mmdebstrap >/dev/null || vmlab_skip "mmdebstrap not found; install mmdebstrap"
[[ -f $deb ]] || { echo "vmlab: error: no package at $deb (make package builds it)" >&2; exit 2; }
deb=$(realpath "$deb")
work=${VMLAB_WORK:-$(mktemp -d /tmp/vmlab-debian.XXXXXX)}
mkdir -p "$work"
started=$SECONDS
mounted=""
# shellcheck source=disk.bash
source "$here/disk.bash"

release_disk() {
    [[ -n $mounted ]] && mountpoint -q "$mounted" && umount "$mounted"
    debian_disk_detach
    mounted=""
}
on_exit() {
    vmlab_stop_guests
    release_disk
}
trap on_exit EXIT
trap 'on_exit; exit 130' INT
trap 'on_exit; exit 143' TERM

# attach_disk IMAGE DIR [ro]: the image's partition mounted on DIR.
attach_disk() {
    local -a ro=()
    [[ ${3:-} == ro ]] && ro=(-r)
    debian_disk_attach "$1" "${3:-}" || return 1
    mkdir -p "$2"
    mount "${ro[@]}" "$debian_partition" "$2" || return 1
    mounted=$2
}

# inject DIR: the lab's driver, its unit (enabled), the sandbox test and the unit's settings
# into the mounted image. The verify unit keeps the report under /var/lib/hugetune/ (out of
# ProtectHome's reach) and sends boot records to a fleet database no server listens for, so
# each boot's record waits in the spool, /var/lib/hugetune/boot-records/.
inject() {
    local root=$1 lab=$1/var/lib/hugetune-lab
    mkdir -p "$lab/cli/lib" "$root/etc/systemd/system/multi-user.target.wants"
    install -m 755 "$here/guest/lab-step" "$lab/lab-step"
    install -m 644 "$here/guest/hugetune-lab.service" "$root/etc/systemd/system/"
    ln -sf ../hugetune-lab.service "$root/etc/systemd/system/multi-user.target.wants/"
    cp "$here/../../cli/systemd_sandbox.sh" "$lab/cli/"
    cp "$here/../../cli/lib/harness.bash" "$lab/cli/lib/"
    printf '%s\n' "HUGETUNE_REPORT=/var/lib/hugetune/report.json" \
        "HUGETUNE_FLEET_DB=postgresql://hugetune@127.0.0.1:9/fleet" >"$root/etc/default/hugetune"
}

say() { echo "vmlab-debian: $*"; }
failures=0
# verdict VARIANT STEP SECONDS ok|FAIL [what]
verdict() {
    local v=$1 name=$2 seconds=$3 result=$4
    shift 4
    if [[ $result == ok ]]; then
        say "$v: PASS $name ($seconds s)${*:+: $*}"
    else
        say "$v: FAIL $name ($seconds s): $*"
        failures=$((failures + 1))
    fi
}

# The steps the guest must report, in order, with the boots between them.
expected_steps=(boot-1 first-boot sandbox-security cli-systemd-sandbox run apply reboot-2
    verify-at-boot rollback reboot-3 default-back poweroff)

# start_guest VARIANT DISK MARKS CONSOLE: one power-on of the guest; sets guest_pid. No -kernel:
# the firmware boots the disk's MBR, GRUB its grub.cfg. The guest's reboot ends QEMU
# (-no-reboot) and watch_guest powers it on again: a cold boot through GRUB each time (a warm
# reset inside one QEMU hung after GRUB had loaded the kernel, under the emulator here; not
# explained). Both serial ports append, so the files hold every boot. No network device.
start_guest() {
    # shellcheck disable=SC2054 # the commas belong to QEMU's options, not to the array
    setpriv --pdeathsig KILL "$vmlab_qemu" -name "vmlab-debian-$1" -nodefaults -no-user-config \
        -display none -monitor none -no-reboot "${vmlab_accel_args[@]}" -smp 2 -m 1024M \
        -drive "file=$2,if=virtio,format=raw" \
        -chardev "file,id=console,path=$4,append=on" -serial chardev:console \
        -chardev "file,id=marks,path=$3,append=on" -serial chardev:marks \
        </dev/null >>"$work/$1.qemu" 2>&1 &
    guest_pid=$!
    vmlab_guest_pids+=("$guest_pid")
}

# watch_guest VARIANT DISK MARKS CONSOLE: powers the guest on and follows its markers until it
# powers off (on again after each reboot it asks for), printing each step as it ends; a step
# that never ended is named.
watch_guest() {
    local v=$1 disk=$2 marks=$3 console=$4 deadline=$((SECONDS + ${VMLAB_DEBIAN_TIMEOUT_S:-2400}))
    local seen=0 line since=$SECONDS current=boot-1 done_steps=" " word failed_step="" guest_pid
    local power_ons=1
    start_guest "$v" "$disk" "$marks" "$console"
    while :; do
        local alive=1
        kill -0 "$guest_pid" 2>/dev/null || alive=0
        mapfile -t lines < <(tr -d '\r' <"$marks" | grep '^HTLAB ')
        while ((seen < ${#lines[@]})); do
            line=${lines[seen]#HTLAB }
            seen=$((seen + 1))
            read -r -a word <<<"$line"
            case ${word[0]} in
            boot)
                local grubs
                grubs=$(tr -d '\r' <"$console" | grep -c 'GNU GRUB')
                if ((grubs >= word[1])); then
                    verdict "$v" "$current" $((SECONDS - since)) ok "through GRUB (menu $grubs on the console), kernel ${word[5]}, PID 1 ${word[7]}, ${line#*cmdline }"
                else
                    verdict "$v" "$current" $((SECONDS - since)) FAIL "booted without GRUB's menu on the console (boot ${word[1]}, GRUB seen $grubs times)"
                fi
                done_steps+="$current "
                echo "${word[1]} ${word[3]} ${word[5]}" >>"$work/$v.boot-ids"
                since=$SECONDS
                ;;
            step)
                if [[ ${word[2]} == begin ]]; then
                    current=${word[1]}
                    since=$SECONDS
                else
                    local rest=${line#step "${word[1]}" "${word[2]}"}
                    verdict "$v" "${word[1]}" $((SECONDS - since)) "${word[2]}" "${rest# }"
                    if [[ ${word[2]} == ok ]]; then
                        done_steps+="${word[1]} "
                    else
                        failed_step=${word[1]}
                    fi
                    since=$SECONDS
                fi
                ;;
            reboot)
                current=reboot-$(($(wc -l <"$work/$v.boot-ids") + 1))
                since=$SECONDS
                ;;
            poweroff)
                [[ -z $failed_step ]] && current=poweroff
                since=$SECONDS
                ;;
            *) say "$v: guest says: $line" ;;
            esac
        done
        if ((!alive)) && [[ $current == reboot-* && -z $failed_step ]] && ((power_ons < 3)); then
            wait "$guest_pid" 2>/dev/null
            power_ons=$((power_ons + 1))
            start_guest "$v" "$disk" "$marks" "$console"
            continue
        fi
        if ((!alive)); then
            [[ $current == poweroff ]] && verdict "$v" poweroff $((SECONDS - since)) ok && done_steps+="poweroff "
            break
        fi
        if ((SECONDS >= deadline)); then
            verdict "$v" "$current" $((SECONDS - since)) FAIL "still running at the lab's limit (VMLAB_DEBIAN_TIMEOUT_S=${VMLAB_DEBIAN_TIMEOUT_S:-2400}); stopping the guest"
            vmlab_stop_guests
            break
        fi
        sleep 0.5
    done
    local s missing=""
    for s in "${expected_steps[@]}"; do
        [[ $done_steps == *" $s "* ]] || missing+=" $s"
    done
    if [[ -n $missing ]]; then
        verdict "$v" "$current" $((SECONDS - since)) FAIL "the guest stopped ${failed_step:+after this failed step }here; never passed:$missing (console tail below)"
        tr -d '\r' <"$console" | tail -n 25 | sed 's/^/    /'
    fi
}

# check_disk VARIANT ROOT: what the guest left on its disk.
check_disk() {
    local v=$1 root=$2 value step_started=$SECONDS
    value=$(cat "$root/var/lib/hugetune-lab/applied-value" 2>/dev/null)
    local boot2
    boot2=$(awk '$1 == 2 { print $2 }' "$work/$v.boot-ids" 2>/dev/null)
    local why
    if why=$(python3 - "$root" "${value:-0}" "${boot2:-none}" 2>&1 <<'PY'
import glob, json, sys
root, value, boot2 = sys.argv[1], int(sys.argv[2]), sys.argv[3]
records = []
for path in sorted(glob.glob(root + "/var/lib/hugetune/boot-records/*")):
    with open(path) as f:
        records.append(json.load(f))
mine = [r for r in records if r.get("boot_id") == boot2]
if not mine:
    sys.exit(f"no boot record of the boot after apply ({boot2}) among the {len(records)} in the spool")
r = mine[0]
line = r["allocation_line"]
if not (r["threads"] == value and r["expected_alloc_threads"] == value and line["present"]):
    sys.exit(f"the record of the boot after apply says threads {r['threads']}, expected "
             f"{r['expected_alloc_threads']}, line present {line['present']}; wanted {value}")
print(f"{len(records)} records spooled; the boot after apply: {r['threads']} threads, "
      f"{r['milliseconds']} ms, expected {r['expected_alloc_threads']}, kernel {r['kernel_release']}")
PY
    ); then
        verdict "$v" disk-boot-record $((SECONDS - step_started)) ok "$why"
    else
        verdict "$v" disk-boot-record $((SECONDS - step_started)) FAIL "${why:-no records}"
    fi
    if grep -q '"verification"' "$root/var/lib/hugetune/report.json" 2>/dev/null; then
        verdict "$v" disk-report 0 ok "the unit wrote its verification into /var/lib/hugetune/report.json"
    else
        verdict "$v" disk-report 0 FAIL "no verification block in /var/lib/hugetune/report.json"
    fi
    if [[ -f $root/boot/grub/grub.cfg ]] && ! grep -q 'hugepage_alloc_threads=' "$root/boot/grub/grub.cfg" &&
        ! grep -rq 'hugepage_alloc_threads=' "$root/etc/default/grub" "$root/etc/default/grub.d" 2>/dev/null; then
        verdict "$v" disk-grub 0 ok "grub.cfg and /etc/default/grub* without hugepage_alloc_threads= after rollback"
    else
        verdict "$v" disk-grub 0 FAIL "hugepage_alloc_threads= left in grub.cfg or /etc/default/grub*"
    fi
    # Every kernel the menu offers, and the default entry's (the first linux line): the one that
    # booted after apply.
    local kernels default_kernel booted
    kernels=$(grep -oP '^\s*linux\s+\S*vmlinuz-\K\S+' "$root/boot/grub/grub.cfg" | sort -u | paste -sd' ')
    default_kernel=$(grep -m1 -oP '^\s*linux\s+\S*vmlinuz-\K\S+' "$root/boot/grub/grub.cfg")
    booted=$(awk '$1 == 2 { print $3 }' "$work/$v.boot-ids")
    local want=1
    [[ $v == two-kernels ]] && want=2
    if [[ $(wc -w <<<"$kernels") -eq $want && $default_kernel == "$booted" ]]; then
        verdict "$v" disk-kernels 0 ok "grub.cfg offers $kernels; the default entry's, $default_kernel, booted after apply"
    else
        verdict "$v" disk-kernels 0 FAIL "grub.cfg offers '$kernels' (expected $want kernels), the default entry $default_kernel, booted after apply: ${booted:-none}"
    fi
    mkdir -p "$work/$v.disk"
    cp -r "$root/var/lib/hugetune-lab/." "$work/$v.disk/" 2>/dev/null
    cp -r "$root/var/lib/hugetune" "$work/$v.disk/state" 2>/dev/null
    cp "$root/boot/grub/grub.cfg" "$work/$v.disk/grub.cfg" 2>/dev/null
    rm -rf "$work/$v.disk/bin" "$work/$v.disk/cli"
}

run_variant() {
    local v=$1 t=$SECONDS image_dir
    image_dir=$("$here/build-image.sh" "$deb" "$v") || {
        verdict "$v" image $((SECONDS - t)) FAIL "building the image failed"
        return
    }
    verdict "$v" image $((SECONDS - t)) ok "$(basename "$image_dir"): $(grep -c '^menuentry' "$image_dir/manifest") menu entries, $(awk '/^installed linux-image-[0-9]/ { printf "%s%s", sep, $2; sep=", " }' "$image_dir/manifest")"
    vmlab_kernel=$image_dir/vmlinuz
    vmlab_busybox=/bin/busybox
    vmlab_choose_accel
    say "accelerator $vmlab_accel_name: $vmlab_accel_why"
    t=$SECONDS
    local disk=$work/$v.raw
    cp --sparse=always "$image_dir/disk.raw" "$disk"
    attach_disk "$disk" "$work/mnt" && inject "$work/mnt"
    local status=$?
    release_disk
    ((status == 0)) || { verdict "$v" inject $((SECONDS - t)) FAIL "cannot lay the lab's files into the disk"; return; }
    verdict "$v" inject $((SECONDS - t)) ok
    local console=$work/$v.console marks=$work/$v.marks
    : >"$console"
    : >"$marks"
    : >"$work/$v.boot-ids"
    watch_guest "$v" "$disk" "$marks" "$console"
    vmlab_stop_guests
    attach_disk "$disk" "$work/mnt" ro && check_disk "$v" "$work/mnt"
    release_disk
    rm -f "$disk"
}

say "package $(basename "$deb"), results in $work"
for v in "${variants[@]}"; do
    run_variant "$v"
done
say "$failures failed, wall time $((SECONDS - started)) s"
((failures == 0))
