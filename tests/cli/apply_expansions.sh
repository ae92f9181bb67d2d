#!/usr/bin/env bash
# apply refuses what could still give the kernel another hugepage_alloc_threads= after the one
# it writes, because it expands when grub-mkconfig sources /etc/default/grub (command
# substitution, an expansion with an operator, arithmetic, a variable no earlier line sets) or
# when grub boots the entry (a $variable in a command line or a BLS entry's options whose value
# it cannot read or that holds the parameter). Each refusal is one error line naming the file,
# line and construct, exit 2, with --dry-run as without, nothing written and nothing run.
# rollback refuses the same way when an edit since apply added such a construct.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"

# grub_root NAME LINE...: a copy of the Debian fixture with each LINE appended to
# /etc/default/grub (which has 18 lines, so the first added one is line 19).
grub_root() {
    local root=$work/$1 line
    shift
    cp -a "$fixtures/debian" "$root"
    for line in "$@"; do printf '%s\n' "$line" >>"$root/etc/default/grub"; done
    echo "$root"
}

# The two findings: a variable set by command substitution, and a default through ${:-}.
root=$(grub_root subst-var 'X=$(echo hugepage_alloc_threads=8)' \
    'GRUB_CMDLINE_LINUX_DEFAULT="quiet $X"')
refused_apply "/etc/default/grub:20: GRUB_CMDLINE_LINUX_DEFAULT takes \$X, which /etc/default/grub:19 sets with command substitution '\$(echo hugepage_alloc_threads=8)'" \
    "$root" --value 2
stderr_has "replace it with literal text, then run hugetune again"

root=$(grub_root default-op 'GRUB_CMDLINE_LINUX_DEFAULT="quiet ${EXTRA:-hugepage_alloc_threads=8}"')
refused_apply "/etc/default/grub:19: GRUB_CMDLINE_LINUX_DEFAULT uses a parameter expansion with an operator '\${EXTRA:-hugepage_alloc_threads=8}'" \
    "$root" --value 2

# The rest of the class.
root=$(grub_root backquotes 'X=`cat /etc/hugepage.args`' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet $X"')
refused_apply "sets with command substitution in backquotes" "$root" --value 2
root=$(grub_root arithmetic 'GRUB_CMDLINE_LINUX_DEFAULT="quiet n=$((4*2))"')
refused_apply "GRUB_CMDLINE_LINUX_DEFAULT uses arithmetic expansion '\$((4*2))'" "$root" --value 2
root=$(grub_root unset 'GRUB_CMDLINE_LINUX_DEFAULT="quiet $EXTRA_ARGS"')
refused_apply "/etc/default/grub:19: GRUB_CMDLINE_LINUX_DEFAULT uses \$EXTRA_ARGS, which no earlier line of /etc/default/grub or its drop-ins sets" \
    "$root" --value 2
stderr_has "set it to literal text on an earlier line, or write its value in its place"
root=$(grub_root positional 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX $1"')
refused_apply "GRUB_CMDLINE_LINUX uses a special or positional parameter '\$1'" "$root" --value 2

# In a drop-in, read after the main file.
root=$(grub_root dropin)
mkdir -p "$root/etc/default/grub.d"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT ${TUNING:+$TUNING}"\n' >"$root/etc/default/grub.d/70-tuning.cfg"
refused_apply "/etc/default/grub.d/70-tuning.cfg:1:" "$root" --value 2
printf 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT ${TUNING:-}"\n' >"$root/etc/default/grub.d/70-tuning.cfg"
refused_apply "/etc/default/grub.d/70-tuning.cfg:1: GRUB_CMDLINE_LINUX_DEFAULT uses a parameter expansion with an operator" \
    "$root" --value 2

# A variable set to literal text earlier is evaluated: holding the parameter, it is named with
# the line that sets it; holding anything else, the edit goes ahead.
root=$(grub_root literal-param 'EXTRA="hugepage_alloc_threads=8"' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet $EXTRA"')
refused_apply "/etc/default/grub:19: EXTRA holds hugepage_alloc_threads=8, which reaches the kernel command line through a variable" \
    "$root" --value 2
root=$(grub_root literal-other 'EXTRA="console=ttyS0"' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet $EXTRA"')
expect 0 "$bin" apply --root "$root" --value 2
grep -qF 'GRUB_CMDLINE_LINUX="hugepagesz=2M hugepages=65536 hugepage_alloc_threads=2"' "$root/etc/default/grub" ||
    fail "literal-other: not edited"
# Unused expansions elsewhere (stock GRUB_DISTRIBUTOR) stay allowed; one overwritten before
# grub-mkconfig reads it too.
root=$(grub_root overwritten 'GRUB_CMDLINE_LINUX_DEFAULT="$(cat /etc/x)"' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"')
expect 0 "$bin" apply --root "$root" --value 2 --dry-run

# A `$` the shell leaves in place is expanded by grub at boot, from its environment block.
root=$(grub_root grub-var 'GRUB_CMDLINE_LINUX_DEFAULT="quiet \$extra_args"')
refused_apply "/etc/default/grub:19: \$extra_args is a grub variable that no grub environment block (/boot/grub2/grubenv, /boot/grub/grubenv) sets" \
    "$root" --value 2
printf '# GRUB Environment Block\nextra_args=console=ttyS0\n' >"$root/boot/grub/grubenv"
expect 0 "$bin" apply --root "$root" --value 2 --dry-run
printf '# GRUB Environment Block\nextra_args=console=ttyS0 hugepage_alloc_threads=8\n' >"$root/boot/grub/grubenv"
refused_apply "\$extra_args expands to extra_args from /boot/grub/grubenv, which holds hugepage_alloc_threads=8" \
    "$root" --value 2
stderr_has "remove it there: grub-editenv /boot/grub/grubenv set extra_args=console=ttyS0"

# BLS entries (RHEL 8 style $kernelopts from grubenv) and /etc/kernel/cmdline, which grub's
# blscfg expands alike.
root=$work/rhel8-kernelopts
cp -a "$fixtures/rhel9" "$root"
sed -i 's/^options .*/options $kernelopts $tuned_params/' "$root"/boot/loader/entries/*.conf
printf '# GRUB Environment Block\nkernelopts=root=/dev/mapper/rhel-root ro hugepage_alloc_threads=8\n' >"$root/boot/grub2/grubenv"
refused_apply "/boot/loader/entries/8f3d6a1e2b7c4d5e9f0a1b2c3d4e5f60-5.14.0-427.13.1.el9_4.x86_64.conf: \$kernelopts expands to kernelopts from /boot/grub2/grubenv, which holds hugepage_alloc_threads=8" \
    "$root" --value 2
stderr_has "remove it there: grub2-editenv /boot/grub2/grubenv set 'kernelopts=root=/dev/mapper/rhel-root ro'"
rm "$root/boot/grub2/grubenv"
refused_apply "\$kernelopts is a grub variable that no grub environment block" "$root" --value 2

root=$work/rhel9-cmdline-var
cp -a "$fixtures/rhel9" "$root"
sed -i 's/$/ $extra_args/' "$root/etc/kernel/cmdline"
refused_apply "/etc/kernel/cmdline: \$extra_args is a grub variable" "$root" --value 2

# systemd-boot expands nothing: a '$' in its entries is left alone.
root=$work/systemd-boot-dollar
cp -a "$fixtures/systemd-boot" "$root"
sed -i 's/$/ x=$y/' "$root/etc/kernel/cmdline"
expect 0 "$bin" apply --root "$root" --value 2 --dry-run

# rollback reads the files the same way: a construct added since apply is refused, not
# rolled back around.
root=$(grub_root rollback-subst)
expect 0 "$bin" apply --root "$root" --value 2 --no-regenerate
printf 'X=$(echo hugepage_alloc_threads=8)\nGRUB_CMDLINE_LINUX_DEFAULT="quiet $X"\n' >>"$root/etc/default/grub"
before=$(tree_sum "$root")
: >"$record"
expect_error 2 "/etc/default/grub:20: GRUB_CMDLINE_LINUX_DEFAULT takes \$X, which /etc/default/grub:19 sets with command substitution" \
    "$bin" rollback --root "$root" --regenerate
[[ $(tree_sum "$root") == "$before" ]] || fail "rollback-subst: files changed"
nothing_recorded "rollback-subst"
echo "apply_expansions: ok"
