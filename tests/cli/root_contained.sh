#!/usr/bin/env bash
# Under --root every path is resolved as a process chrooted into the tree would resolve it
# (tuner/system/root_path.hpp): links inside the tree that point out of it, absolute or climbing,
# lead to the tree's own files, never to this machine's or another tree's. Each command (apply,
# rollback, verify, every boot-sweep subcommand) runs under strace on trees full of such links,
# and no path it names lies outside the tree; the tree the links point to is unchanged.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"
require_command strace "the containment test traces every path a command opens"
# LeakSanitizer cannot run under ptrace: a sanitizer build is traced without it (AddressSanitizer
# itself stays on).
strace() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" command strace "$@"; }
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
    skip "strace cannot trace here (ptrace is not permitted)"
fi

# The tree the links point to, with values a leak would show.
elsewhere=$work/elsewhere
mkdir -p "$elsewhere/var/lib/hugetune" "$elsewhere/etc/default/grub.d" "$elsewhere/boot/loader/entries" \
    "$elsewhere/etc/systemd/system" "$elsewhere/proc"
echo 'GRUB_CMDLINE_LINUX_DEFAULT="hugepage_alloc_threads=16"' >"$elsewhere/etc/default/grub"
echo 'options root=/dev/elsewhere hugepage_alloc_threads=16' >"$elsewhere/boot/loader/entries/x.conf"
echo 'BOOT_IMAGE=/elsewhere hugepage_alloc_threads=16' >"$elsewhere/proc/cmdline"
outside_sum() { (cd "$elsewhere" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+ && find . -type f -print0 | sort -z | xargs -0 cat) | sha256sum; }
elsewhere_before=$(outside_sum)

# traced ROOT CODE ARGS...: hugetune ARGS exits CODE, every path it named lies inside ROOT, and
# it named none of ROOT's either: each file of the tree is reached from the root's descriptor
# (openat2 RESOLVE_IN_ROOT, *at() on directories held from there). BY_NAME=1 allows paths inside
# ROOT: hwloc reads a tree's /sys by its host path (HWLOC_FSROOT).
trace=$work/strace.log
traced() {
    local root=$1 code=$2 strict=--by-descriptor
    shift 2
    [[ ${BY_NAME:-} == 1 ]] && strict=
    expect "$code" strace -f -qq -s 4096 -e trace=%file,openat2 -o "$trace" "$bin" "$@"
    python3 "$src/tests/cli/lib/contained.py" "$trace" "$root" "$bin" $strict >"$work/outside.txt" ||
        { cat "$work/outside.txt" >&2; fail "hugetune $1 named paths outside $root, or inside it by name"; }
    [[ $(outside_sum) == "$elsewhere_before" ]] || fail "hugetune $* changed $elsewhere"
}

# --- GRUB: /var and a drop-in lead out of the tree ------------------------------------------------
root=$(copy_fixture debian grub-links)
original=$(cat "$root/etc/default/grub")
ln -s "$elsewhere/var" "$root/var"
mkdir -p "$root/etc/default/grub.d" "$root/usr/share/grub"
ln -s /usr/share/grub/vendor.cfg "$root/etc/default/grub.d/50-vendor.cfg"
echo 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT hugepage_alloc_threads=4"' \
    >"$root/usr/share/grub/vendor.cfg"
# The drop-in's link is resolved in the tree: its value 4 is read, so apply sees what the image
# boots with (on this machine /usr/share/grub/vendor.cfg does not hold it).
# It sets the value after /etc/default/grub and, as a link, cannot be edited: refused.
for mode in --dry-run --no-regenerate; do
    traced "$root" 2 apply --root "$root" --value 8 $mode
    stderr_has "/etc/default/grub.d/50-vendor.cfg is a symbolic link and would need this change"
done
rm "$root/etc/default/grub.d/50-vendor.cfg"
# Inside the tree /var leads to the tree's own $elsewhere/var, which does not exist: the ledger's
# directory cannot be made there (mkdir -p fails so in a chroot too), and nothing is written.
before=$(tree_sum "$root")
traced "$root" 1 apply --root "$root" --value 8 --no-regenerate
stderr_has "cannot create $root/var: No such file or directory (a link on the way that leads to nothing)"
[[ $(tree_sum "$root") == "$before" ]] || fail "a refused apply changed the tree"
mkdir -p "$root$elsewhere/var"
traced "$root" 0 apply --root "$root" --value 8 --no-regenerate
# /var -> elsewhere/var is, inside the tree, the tree's own $elsewhere/var.
[[ -f $root$elsewhere/var/lib/hugetune/applied.json ]] || fail "the ledger is not in the tree"
[[ ! -e $elsewhere/var/lib/hugetune/applied.json ]] || fail "the ledger went out of the tree"
grep -q "hugepage_alloc_threads=8" "$root/etc/default/grub" || fail "apply did not write"
traced "$root" 0 rollback --root "$root" --no-regenerate
[[ $(cat "$root/etc/default/grub") == "$original" ]] || fail "rollback is not byte-exact"

# /etc itself leads out: the tree has no /etc/default/grub of its own, and says so.
root=$(copy_fixture ubuntu-cloud etc-link)
rm -rf "$root/etc"
ln -s "$elsewhere/etc" "$root/etc"
traced "$root" 1 apply --root "$root" --value 8 --no-regenerate
stderr_has "no boot loader configuration under $root"
traced "$root" 1 rollback --root "$root" --no-regenerate
stderr_has "nothing to roll back"

# A relative link that climbs above the tree stops at its root, as ".." at / does.
root=$(copy_fixture debian climbing)
rm -rf "$root/var"
ln -s "../../../../../../../../..$elsewhere/var" "$root/var"
mkdir -p "$root$elsewhere/var"
traced "$root" 0 apply --root "$root" --value 8 --no-regenerate
[[ -f $root$elsewhere/var/lib/hugetune/applied.json ]] || fail "the climbing link left the tree"
traced "$root" 0 rollback --root "$root" --no-regenerate

# --- a forged ledger chooses no place to write: its paths must be files hugetune manages --------
root=$(copy_fixture debian forged-ledger)
traced "$root" 0 apply --root "$root" --value 8 --no-regenerate
ledger=$root/var/lib/hugetune/applied.json
cp "$ledger" "$work/good-ledger.json"
mkdir -p "$work/victim"
for forged in "/../../../..$work/victim/file" /etc/shadow /etc/default/grub.d/.hidden.cfg \
    /boot/loader/entries/../../../etc/shadow.conf; do
    python3 -S - "$ledger" "$forged" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["files"][0]["path"] = sys.argv[2]
json.dump(d, open(sys.argv[1], "w"))
PY
    before=$(tree_sum "$root")
    for mode in --dry-run --no-regenerate; do
        traced "$root" 1 rollback --root "$root" $mode
        error_line "files names '$forged', not a boot configuration file hugetune edits"
    done
    [[ $(tree_sum "$root") == "$before" ]] || fail "a forged ledger changed the tree: $forged"
    [[ -z $(ls -A "$work/victim") ]] || fail "a forged ledger wrote outside the tree: $forged"
    cp "$work/good-ledger.json" "$ledger"
done
python3 -S - "$ledger" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["files"][0]["backup"] = "/tmp/grub.hugetune-x.bak"
json.dump(d, open(sys.argv[1], "w"))
PY
traced "$root" 1 rollback --root "$root" --no-regenerate
error_line "the backup of /etc/default/grub is '/tmp/grub.hugetune-x.bak'"
cp "$work/good-ledger.json" "$ledger"
traced "$root" 0 rollback --root "$root" --no-regenerate
cmp "$root/etc/default/grub" "$fixtures/debian/etc/default/grub" || fail "rollback after the forged ledgers"

# --- systemd-boot: the entries folder leads out ---------------------------------------------------
root=$(copy_fixture systemd-boot entries-link)
rm -rf "$root/boot/loader/entries"
ln -s "$elsewhere/boot/loader/entries" "$root/boot/loader/entries"
# The tree has no entries of its own: /etc/kernel/cmdline is written, and apply says no entry
# takes it; the entry elsewhere is never edited.
traced "$root" 1 apply --root "$root" --value 8 --no-regenerate
stderr_has "no boot entry of this system"
traced "$root" 0 rollback --root "$root" --no-regenerate
cmp "$root/etc/kernel/cmdline" "$fixtures/systemd-boot/etc/kernel/cmdline" || fail "rollback of /etc/kernel/cmdline"

# --- verify: /proc/cmdline and the log lead to this machine's -------------------------------------
root=$work/verify-root
mkdir -p "$root/proc/sys/kernel/random" "$root/dev"
echo "6.15.0-hugetune" >"$root/proc/sys/kernel/osrelease"
echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60" >"$root/proc/sys/kernel/random/boot_id"
ln -s /proc/cmdline "$root/proc/cmdline"
ln -s /dev/kmsg "$root/dev/kmsg"
traced "$root" 1 verify --root "$root"
stderr_has "more than 40 symbolic links"
rm "$root/proc/cmdline"
ln -s "$elsewhere/proc/cmdline" "$root/proc/cmdline"
traced "$root" 1 verify --root "$root"
if grep -q elsewhere "$out" "$err"; then fail "verify read the cmdline outside the tree"; fi

# --- boot-sweep: the state, the marker and the unit stay in the tree ------------------------------
root=$work/sweep-root
cp -a "$src/tests/fixtures/vm-1node" "$root"
release=$(cat "$root/proc/sys/kernel/osrelease")
mkdir -p "$root/boot" "$root/proc/sys/kernel/random" "$root/etc"
echo image >"$root/boot/vmlinuz-$release"
echo initrd >"$root/boot/initrd.img-$release"
echo boot-0 >"$root/proc/sys/kernel/random/boot_id"
mkdir -p "$root/usr/sbin"
printf '#!/bin/sh\nexit 1\n' >"$root/usr/sbin/kexec"
cp "$root/usr/sbin/kexec" "$root/usr/sbin/hugetune"
chmod +x "$root/usr/sbin/kexec" "$root/usr/sbin/hugetune"
ln -s "$elsewhere/var" "$root/var"
ln -s "$elsewhere/etc/systemd" "$root/etc/systemd"
# Inside the tree the links lead to its own copies of those paths.
mkdir -p "$root$elsewhere/var" "$root$elsewhere/etc/systemd"
args=(--root "$root" --pages 1024 --repetitions 1 --threads 1,2)
# plan and start probe the machine, and hwloc reads the tree's /sys by name.
BY_NAME=1 traced "$root" 0 boot-sweep plan "${args[@]}"
BY_NAME=1 traced "$root" 0 boot-sweep start "${args[@]}" --dry-run
BY_NAME=1 traced "$root" 0 boot-sweep start "${args[@]}"
[[ -f $root$elsewhere/var/lib/hugetune/boot-sweep.json ]] || fail "the state is not in the tree"
[[ -f $root$elsewhere/etc/systemd/system/hugetune-boot-sweep.service ]] || fail "the unit is not in the tree"
# A sweep in progress, kept outside the tree for the checks of ".." below.
outside=$work/outside-state
mkdir -p "$outside"
cp "$root$elsewhere/var/lib/hugetune/boot-sweep.json" "$outside/boot-sweep.json"
traced "$root" 0 boot-sweep status --root "$root"
traced "$root" 0 boot-sweep abort --root "$root"
traced "$root" 0 boot-sweep continue --root "$root"
nothing_recorded

# ".." after a missing part climbs from that part, which does not exist: inside the tree
# "/nonexist/../lnk" is missing at /nonexist, and never the folder outside that lnk names. (The
# string walk this replaced appended the parts after a missing one unchecked, and then followed
# lnk out of the tree: status printed the state outside, start made a folder there, and a marker
# naming such a path made start read the state outside and refuse.)
ln -s "$outside" "$root/lnk"
outside_listing=$(cd "$outside" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+ && sha256sum boot-sweep.json)
traced "$root" 0 boot-sweep status --root "$root" --state /nonexist/../lnk/boot-sweep.json --json
stdout_has '"state": null'
BY_NAME=1 traced "$root" 1 boot-sweep start "${args[@]}" --state /nonexist/sub/../../lnk/boot-sweep.json
stderr_has "a link on the way that leads to nothing"
[[ -d $root/nonexist/sub ]] || fail "start did not make the missing folders inside the tree"
echo /nonexist/../lnk/boot-sweep.json >"$root$elsewhere/var/lib/hugetune/boot-sweep-active"
BY_NAME=1 traced "$root" 0 boot-sweep start "${args[@]}" --dry-run
[[ $(cd "$outside" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+ && sha256sum boot-sweep.json) == "$outside_listing" ]] ||
    fail "the boot sweep changed the folder outside the tree"
rm "$root/lnk"

# hwloc reads the topology through this machine's own lookup: a tree whose /sys has a link out
# of it is refused before hwloc opens anything. The check follows each link as that lookup will,
# naming the paths outside it follows, so these runs are not traced.
mkdir -p "$elsewhere-sys"
cp -a "$root/sys/devices/system/node/node0" "$elsewhere-sys/node0"
rm -rf "$root/sys/devices/system/node/node0"
ln -s "$elsewhere-sys/node0" "$root/sys/devices/system/node/node0"
expect 2 "$bin" boot-sweep plan "${args[@]}"
stderr_has "$root/sys/devices/system/node/node0 is a link that leads out of the tree"
ln -sfn "../../../../..$elsewhere-sys/node0" "$root/sys/devices/system/node/node0"
expect 2 "$bin" boot-sweep plan "${args[@]}"
stderr_has "is a link that leads out of the tree"

# /sys itself leading out, to this machine's through /proc's magic link or to a decoy, and a
# "b/.." chain whose text stays in the tree while b leads to a decoy, are refused the same way.
# In each the tree holds, where the link leads inside it, a gathered /sys of its own, which
# hugetune's own reading (openat2) finds; hwloc, following the link as this machine does, would
# read another.
sysroot=$work/sys-link-root
decoy_sys=$work/decoy-sys
cp -a "$src/tests/fixtures/vm-1node" "$sysroot"
cp -a "$src/tests/fixtures/zen4-2node/sys" "$decoy_sys"
expect 0 "$bin" probe --root "$sysroot" --json
mv "$sysroot/sys" "$sysroot/sys.real"
for outside_sys in /proc/1/root/sys "$decoy_sys"; do
    mkdir -p "$(dirname "$sysroot$outside_sys")"
    cp -a "$sysroot/sys.real" "$sysroot$outside_sys"
    ln -sfn "$outside_sys" "$sysroot/sys"
    expect_error 2 "$sysroot/sys is a link that leads out of the tree" "$bin" probe --root "$sysroot"
    stdout_empty
done
rm "$sysroot/sys"
mv "$sysroot/sys.real" "$sysroot/sys"
mkdir -p "$decoy_sys-chain/deep/dir" "$sysroot$decoy_sys-chain/deep/dir"
cp -a "$decoy_sys/devices" "$decoy_sys-chain/deep/devices"
mv "$sysroot/sys/devices" "$sysroot$decoy_sys-chain/deep/devices"
ln -s "$decoy_sys-chain/deep/dir" "$sysroot/b"
ln -s ../b/../devices "$sysroot/sys/devices"
expect_error 2 "$sysroot/sys/devices is a link that leads out of the tree" "$bin" probe --root "$sysroot"
stdout_empty
# The same chain over a b inside the tree is read.
rm "$sysroot/b"
mkdir -p "$sysroot/inside/dir"
mv "$sysroot$decoy_sys-chain/deep/devices" "$sysroot/inside/devices"
ln -s inside/dir "$sysroot/b"
expect 0 "$bin" probe --root "$sysroot" --json

# --- a kernel without openat2: only this machine's / opens --------------------------------------
# strace answers every openat2 with ENOSYS, as a kernel before 5.6 does (or EPERM, as a seccomp
# filter that does not know the call may): a tree is refused before anything is read or
# written, in one line, and this machine's own / still works through plain openat.
root=$(copy_fixture debian no-openat2)
before=$(tree_sum "$root")
for errno_name in ENOSYS EPERM; do
    without_openat2=(strace -f -qq -o /dev/null -e trace=openat2 -e inject=openat2:error=$errno_name)
    for command in "apply --value 8 --no-regenerate" "rollback --no-regenerate" verify \
        "boot-sweep status" probe; do
        # shellcheck disable=SC2086  # the command and its options
        expect_error 4 "--root $root: this kernel has no openat2()" \
            "${without_openat2[@]}" "$bin" $command --root "$root"
    done
    [[ $(tree_sum "$root") == "$before" ]] || fail "a refused tree was changed ($errno_name)"
    expect 0 "${without_openat2[@]}" "$bin" probe --json
done

echo "root_contained: ok"
