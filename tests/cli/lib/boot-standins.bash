# For the apply, rollback and verify tests, after harness.bash: the boot fixture roots, and
# stand-ins for the external boot loader tools that record their argument vectors.
# shellcheck shell=bash
fixtures=$src/tests/fixtures/boot
record=$work/argv.log
: >"$record"

# Stand-ins only for the external boot loader tools; each appends "tool [arg] [arg]..." to
# $record. STANDIN_EXIT makes them fail; grub2-mkconfig --help advertises
# --update-bls-cmdline unless STANDIN_OLD_MKCONFIG is set.
stubs=$work/stubs
mkdir -p "$stubs"
for tool in update-grub grub2-mkconfig grubby rpm-ostree; do
    cat >"$stubs/$tool" <<STUB
#!/bin/sh
if [ "$tool" = grub2-mkconfig ] && [ "\$1" = --help ]; then
    echo "Usage: grub2-mkconfig [OPTION]"
    [ -n "\$STANDIN_OLD_MKCONFIG" ] || echo "      --update-bls-cmdline  update BLS entries"
    exit 0
fi
line="$tool"
for a in "\$@"; do line="\$line [\$a]"; done
echo "\$line" >>"$record"
[ -n "\$STANDIN_EXIT" ] && { echo "stand-in failure" >&2; exit "\$STANDIN_EXIT"; }
exit 0
STUB
    chmod +x "$stubs/$tool"
done
export PATH=$stubs:$PATH

# copy_fixture NAME: a writable copy of tests/fixtures/boot/NAME; prints its path.
copy_fixture() {
    cp -a "$fixtures/$1" "$work/$1"
    echo "$work/$1"
}

# recorded LINE: a stand-in ran with exactly this argument vector.
recorded() { grep -qxF -- "$1" "$record" || { cat "$record" >&2; fail "not run: $1"; }; }
nothing_recorded() { [[ ! -s $record ]] || { cat "$record" >&2; fail "a command ran: $1"; }; }

# tree_sum DIR: one checksum over every file's path and bytes.
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum); }

# error_line TEXT: stderr has exactly one error line, and it contains TEXT (notes and warnings
# may come before it).
error_line() {
    [[ $(grep -c '^hugetune: error: ' "$err") -eq 1 ]] || { cat "$err" >&2; fail "not one error line"; }
    grep '^hugetune: error: ' "$err" | grep -qF -- "$1" || { cat "$err" >&2; fail "error lacks: $1"; }
}

# refused_with CODE TEXT COMMAND...: COMMAND exits CODE with one error line containing TEXT.
refused_with() {
    local code=$1 text=$2
    shift 2
    expect "$code" "$@"
    error_line "$text"
}
