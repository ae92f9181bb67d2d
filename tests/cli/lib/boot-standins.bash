# For the apply, rollback and verify tests, after harness.bash: the boot fixture roots, and
# stand-ins for the external boot loader tools that record their argument vectors: this
# machine's (which must never run for a --root) and a root's own, run inside it by chroot.
# shellcheck shell=bash
fixtures=$src/tests/fixtures/boot
record=$work/argv.log
: >"$record"

# Stand-ins only for the external boot loader tools. write_standin TOOL LOG [old]: a stand-in
# that appends "tool [arg] [arg]..." to LOG; STANDIN_EXIT makes it fail; grub2-mkconfig's usage
# text names --update-bls-cmdline unless "old" is given.
write_standin() {
    local tool=$1 log=$2 old=${3:-}
    cat <<STUB
#!/bin/sh
if [ "$tool" = grub2-mkconfig ] && [ "\$1" = --help ]; then
    echo "Usage: grub2-mkconfig [OPTION]"
STUB
    [[ -n $old ]] || echo '    echo "      --update-bls-cmdline  update BLS entries"'
    cat <<STUB
    exit 0
fi
line="$tool"
for a in "\$@"; do line="\$line [\$a]"; done
echo "\$line" >>"$log"
[ -n "\$STANDIN_EXIT" ] && { echo "stand-in failure" >&2; exit "\$STANDIN_EXIT"; }
exit 0
STUB
}

# This machine's tools, first on PATH: under --root none may ever run, so each records itself
# as "host <tool> ..." and no `recorded` line matches it.
stubs=$work/stubs
mkdir -p "$stubs"
for tool in update-grub grub2-mkconfig grubby rpm-ostree; do
    write_standin "host $tool" "$record" >"$stubs/$tool"
    chmod +x "$stubs/$tool"
done
export PATH=$stubs:$PATH

# root_tools ROOT [--old-mkconfig] TOOL...: the root's own stand-ins, which `apply --root ROOT
# --regenerate` runs there by chroot: a static busybox as the root's /bin/sh, each TOOL in its
# /usr/sbin, recording into the root's /.standin-argv.log, which is $record itself (a hard
# link). Needs root (chroot) and busybox-static.
root_tools() {
    local root=$1 old="" tool
    shift
    [[ ${1:-} == --old-mkconfig ]] && { old=old; shift; }
    mkdir -p "$root/bin" "$root/usr/sbin"
    cp /bin/busybox "$root/bin/busybox"
    ln -sf busybox "$root/bin/sh"
    ln -f "$record" "$root/.standin-argv.log"
    for tool in "$@"; do
        write_standin "$tool" /.standin-argv.log "$old" >"$root/usr/sbin/$tool"
        chmod +x "$root/usr/sbin/$tool"
    done
}

# copy_fixture NAME [COPY]: a writable copy of tests/fixtures/boot/NAME, named COPY (default
# NAME) in the scratch folder; prints its path.
copy_fixture() {
    cp -a "$fixtures/$1" "$work/${2:-$1}"
    echo "$work/${2:-$1}"
}

# recorded LINE: a stand-in ran with exactly this argument vector.
recorded() { grep -qxF -- "$1" "$record" || { cat "$record" >&2; fail "not run: $1"; }; }
nothing_recorded() { [[ ! -s $record ]] || { cat "$record" >&2; fail "a command ran: $1"; }; }

# tree_sum DIR: one checksum over every file's path and bytes (the stand-ins' record aside).
tree_sum() { (cd "$1" && find . -type f ! -name .standin-argv.log -print0 | sort -z | xargs -0 sha256sum | sha256sum); }

# error_line TEXT: stderr has exactly one error line, and it contains TEXT (notes and warnings
# may come before it).
error_line() {
    [[ $(grep -c '^hugetune: error: ' "$err") -eq 1 ]] || { cat "$err" >&2; fail "not one error line"; }
    grep '^hugetune: error: ' "$err" | grep -F -- "$1" >/dev/null || { cat "$err" >&2; fail "error lacks: $1"; }
}

# refused_with CODE TEXT COMMAND...: COMMAND exits CODE with one error line containing TEXT.
refused_with() {
    local code=$1 text=$2
    shift 2
    expect "$code" "$@"
    error_line "$text"
}

# refused_apply TEXT ROOT ARGS...: apply, with --dry-run and without, exits 2 with one error
# line containing TEXT, and the tree under ROOT is untouched (no backup, no ledger, no command).
refused_apply() {
    local text=$1 root=$2 mode before
    shift 2
    before=$(tree_sum "$root")
    for mode in --dry-run --regenerate; do
        : >"$record"
        expect_error 2 "$text" "$bin" apply --root "$root" "$mode" "$@"
        [[ $(tree_sum "$root") == "$before" ]] || fail "files changed ($mode): $text"
        nothing_recorded "$mode: $text"
        if grep -q "configured\|written" "$out"; then fail "claims success ($mode): $text"; fi
    done
}
