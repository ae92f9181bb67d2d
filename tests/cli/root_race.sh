#!/usr/bin/env bash
# Under --root the kernel keeps every lookup inside the tree (openat2 RESOLVE_IN_ROOT from the
# root's descriptor, tuner/system/root_dir.hpp), also while someone who can edit the tree swaps
# its directories for links that lead out of it. A helper (lib/swap_links.py) trades /etc/default,
# /var/lib/hugetune, /etc/systemd/system, /proc and /boot with links to a decoy tree outside, by
# atomic renames in a loop, while apply, a dry-run apply, rollback, verify and every boot-sweep
# subcommand run on the tree again and again (ROOT_RACE_SECONDS, default 3, and at least two
# rounds; `make vmtest` runs it for 120). Afterwards the decoy is byte for byte as it was, no ledger, backup, state, unit or
# temporary file lies outside the tree, and no output and no file of the tree shows the decoy's
# bytes.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"
seconds=${ROOT_RACE_SECONDS:-3}

# The tree: the vm-1node machine with Debian's boot configuration, a kernel and initrd to kexec,
# and its own kexec and hugetune for the boot sweep.
root=$work/tree
cp -a "$src/tests/fixtures/vm-1node" "$root"
cp -a "$fixtures/debian/." "$root"
release=$(cat "$root/proc/sys/kernel/osrelease")
mkdir -p "$root/boot" "$root/proc/sys/kernel/random" "$root/usr/sbin" "$root/var/lib/hugetune" \
    "$root/etc/systemd/system"
echo image >"$root/boot/vmlinuz-$release"
echo initrd >"$root/boot/initrd.img-$release"
echo boot-0 >"$root/proc/sys/kernel/random/boot_id"
[[ -f $root/proc/cmdline ]] || echo "BOOT_IMAGE=/boot/vmlinuz-$release ro" >"$root/proc/cmdline"
printf '#!/bin/sh\nexit 1\n' >"$root/usr/sbin/kexec"
cp "$root/usr/sbin/kexec" "$root/usr/sbin/hugetune"
chmod +x "$root/usr/sbin/kexec" "$root/usr/sbin/hugetune"

# The decoy: the same tree, marked, with a ledger and a backup of its own from an apply, so that
# a command that strayed into it would read a ledger, write beside one, or show its bytes.
decoy=$work/decoy
cp -a "$root" "$decoy"
echo "# decoy-marker" >>"$decoy/etc/default/grub"
echo "BOOT_IMAGE=/decoy-marker hugepage_alloc_threads=16" >"$decoy/proc/cmdline"
expect 0 "$bin" apply --root "$decoy" --value 16 --no-regenerate
# Inside the tree the links lead to the tree's own copy of the decoy's path: a copy of the tree,
# unmarked, so that a command meeting a link still finds its files and goes on to write, and
# gets every chance to stray.
cp -a "$root" "$work/mirror"
mkdir -p "$(dirname "$root$decoy")"
mv "$work/mirror" "$root$decoy"
decoy_sum() { (cd "$decoy" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+ && tree_sum .) | sha256sum; }
decoy_before=$(decoy_sum)

# One run of every command; any exit a refusal may give (0 to 5) is fine, a crash is not, and no
# output may show the decoy.
sweep_args=(--root "$root" --pages 1024 --repetitions 1 --threads 1,2)
run_one() {
    local rc=0
    "$bin" "$@" >"$out" 2>"$err" || rc=$?
    ((rc <= 5)) || { cat "$out" "$err" >&2; fail "hugetune $* ended with $rc"; }
    if grep -h decoy-marker "$out" "$err"; then fail "hugetune $* showed the decoy's bytes"; fi
    return 0
}
cycle() {
    run_one apply --root "$root" --value 8 --no-regenerate
    run_one apply --root "$root" --value 4 --no-regenerate --dry-run
    run_one rollback --root "$root" --no-regenerate
    run_one verify --root "$root"
    run_one boot-sweep start "${sweep_args[@]}"
    run_one boot-sweep status --root "$root"
    run_one boot-sweep continue --root "$root"
    run_one boot-sweep abort --root "$root"
}

# One directory at a time swaps, so that a command gets far enough to write through the one it
# meets: each phase runs every command at least once. A command that meets a link finds the
# tree's mirror and goes on, so that each of its reads and writes is a chance to stray.
swapper=
stop_swapping() {
    [[ -n $swapper ]] || return 0
    kill -TERM "$swapper"
    wait "$swapper" || fail "the swapping helper failed"
    swaps=$((swaps + $(cat "$work/swaps")))
    swapper=
}
# Stopped by its PID however the test ends, so that no swapping outlives it.
at_exit 'if [[ -n $swapper ]]; then kill -TERM "$swapper" 2>/dev/null; wait "$swapper" 2>/dev/null; fi'
phases=(var/lib/hugetune etc/default etc/systemd/system "proc boot")
cycles=0 swaps=0
end=$((SECONDS + seconds))
while ((SECONDS < end || cycles < ${#phases[@]})); do
    rm -f "$work/swapping"
    # shellcheck disable=SC2086  # a phase may swap more than one directory
    python3 "$src/tests/cli/lib/swap_links.py" "$work/swapping" "$root" "$decoy" \
        ${phases[cycles % ${#phases[@]}]} >"$work/swaps" &
    swapper=$!
    for ((i = 0; i < 500; i++)); do
        [[ -e $work/swapping ]] && break
        kill -0 "$swapper" 2>/dev/null || fail "the swapping helper did not start"
        sleep 0.01
    done
    cycle
    stop_swapping
    cycles=$((cycles + 1))
done
((swaps > 0)) || fail "no directory was swapped"

[[ $(decoy_sum) == "$decoy_before" ]] || fail "a command changed the decoy outside the tree"
stray=$(find "$work" -path "$root" -prune -o -path "$decoy" -prune -o \( -name '*.hugetune-*.bak' \
    -o -name 'applied.json' -o -name '.*.tmp.*' -o -name 'boot-sweep*' -o -name 'hugetune-boot-sweep.service' \) -print)
[[ -z $stray ]] || fail "hugetune files outside the tree: $stray"

# No byte of the decoy reached the tree (a rollback that read the decoy's ledger would have put
# its GRUB file, marked, into the tree). What the race left is the tree's own, though not always
# its original: a file the swapping hid when rollback looked is "no longer there" and stays as it
# is, as a file someone removed would.
if grep -rl decoy-marker "$root"; then fail "the decoy's bytes were written into the tree"; fi
echo "root_race: $cycles cycles of 8 commands over $seconds s, $swaps swaps, nothing outside the tree"
echo "root_race: ok"
