#!/usr/bin/env bash
# The RHEL family's package `make rpm` built, checked on this Debian machine without touching it:
# rpmlint on the spec and the package, failing on any error or warning not filtered with its
# reason in packaging/rpm/hugetune.rpmlintrc; its header (version, the libraries it requires,
# what it recommends and suggests, no boot tool required); its files against the .deb's,
# which must agree in path, type, mode, size, bytes and link target except where
# packaging/rpm/file-differences.txt says; then `rpm -i` into a scratch root with a scratch database,
# `rpm -V` there, the %preun on the ledger of an apply to a copy of a fixture root, `rpm -e`,
# and nothing of the package left in the root. It changes nothing outside a temporary folder,
# so it needs no root; `make test-package` runs it after tests/package/deb.sh.
#   tests/package/rpm.sh build-test/rpm/hugetune.spec build-test/rpm/RPMS/x86_64/hugetune-0.2.0-1.x86_64.rpm \
#       build-test/package/hugetune_0.2.0_amd64.deb
set -euo pipefail
usage="usage: tests/package/rpm.sh SPEC PACKAGE.rpm PACKAGE.deb"
spec=${1:?$usage}
package=${2:?$usage}
deb=${3:?$usage}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
rpmlintrc=$source_dir/packaging/rpm/hugetune.rpmlintrc
rpmlint_config=$source_dir/packaging/rpm/rpmlint.toml
differences=$source_dir/packaging/rpm/file-differences.txt
fixture=$source_dir/tests/fixtures/boot/debian
fail() { echo "FAIL: $*" >&2; exit 1; }
# sort and join must order the lists alike.
export LC_ALL=C
[[ -f $spec ]] || fail "no spec $spec: configure the build (make test-build)"
[[ -f $package ]] || fail "no package $package: run make rpm"
[[ -f $deb ]] || fail "no package $deb: run make package"
for tool in rpm rpmlint dpkg-deb; do
    command -v "$tool" >/dev/null || fail "no $tool: make test-deps installs it (PACKAGE_PKGS)"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# rpmlint judges the spec and the package with the RHEL family's settings
# (packaging/rpm/rpmlint.toml); its summary line counts what is left after the filters, and an
# unused filter is an error (unused-rpmlintrc-filter), so a stale one fails too.
echo "rpmlint $(rpmlint --version) on $spec and $package"
status=0
lint=$(rpmlint -c "$rpmlint_config" -r "$rpmlintrc" "$spec" "$package" 2>&1) || status=$?
echo "$lint"
if ((status != 0)) || ! grep -Eq '; 0 errors, 0 warnings,' <<<"$lint"; then
    fail "rpmlint reports the errors or warnings above (exit $status): fix them, or filter one that is wrong for this package in packaging/rpm/hugetune.rpmlintrc with the reason"
fi

query() { rpm -qp --qf "$1" "$package"; }
version=$(dpkg-deb -f "$deb" Version)
[[ $(query '%{NAME} %{VERSION}') == "hugetune $version" ]] ||
    fail "the RPM is $(query '%{NAME} %{VERSION}'), the .deb hugetune $version"
requires=$(rpm -qpR "$package")
echo "Requires (libraries): $(grep -o '^lib[^(]*' <<<"$requires" | sort -u | tr '\n' ' ')"
for lib in libboost_program_options libhwloc libstdc++ libc.so; do
    grep -q "^$lib" <<<"$requires" || fail "Requires lacks $lib (rpm's scan of the binary's libraries)"
done
if grep -Eq '^(grubby|grub2|tuned|rpm-ostree)' <<<"$requires"; then
    fail "the RPM requires a boot tool; which one apply runs is the machine's own (packaging/rpm/hugetune.spec.in)"
fi
[[ $(rpm -qp --recommends "$package") == bash-completion ]] ||
    fail "Recommends is '$(rpm -qp --recommends "$package")', not bash-completion"
[[ $(rpm -qp --suggests "$package" | sort | tr '\n' ' ') == 'gnuplot kexec-tools man-db ' ]] ||
    fail "Suggests is '$(rpm -qp --suggests "$package" | tr '\n' ' ')', not the .deb's gnuplot, kexec-tools, man-db"
grep -q "^- What changed in each release: CHANGELOG.md in the documentation (rpm -qd hugetune)$" <<<"$(rpm -qp --changelog "$package")" ||
    fail "the RPM's changelog does not point at CHANGELOG.md"

# Each file (not directory) as "path mode size link" from dpkg-deb -c or rpm -qlv, which print
# the mode string, the owner, the size, the date, the path and "-> target"; the columns of the
# path and the size are the arguments. A link's size is left out: dpkg-deb says 0, rpm the
# target's length.
files_of() {
    awk -v path_at="$1" -v size_at="$2" '$1 !~ /^d/ {
        link = ""
        for (i = 1; i <= NF; i++) if ($i == "->") link = $(i + 1)
        path = $path_at; sub(/^\./, "", path)
        size = $1 ~ /^l/ ? "-" : $size_at
        print path, $1, size, link
    }' | sort
}
dpkg-deb -c "$deb" | files_of 6 3 >"$work/deb.files"
rpm -qplv "$package" | files_of 9 5 >"$work/rpm.files"
# The lines of LIST whose path no PATTERN matches; a pattern that matches none of them fails.
unlisted() {
    local list=$1 pattern path rest matched
    shift
    for pattern in "$@"; do
        matched=0
        while read -r path rest; do
            # shellcheck disable=SC2053  # a pattern
            if [[ $path == $pattern ]]; then matched=1 && break; fi
        done <"$list"
        ((matched)) || fail "$differences: '$pattern' matches no file of the package any more"
    done
    while read -r path rest; do
        for pattern in "$@"; do
            # shellcheck disable=SC2053  # a pattern
            [[ $path == $pattern ]] && continue 2
        done
        echo "$path $rest"
    done <"$list"
}
deb_only=() rpm_only=()
while read -r side pattern; do
    case $side in
        deb) deb_only+=("$pattern") ;;
        rpm) rpm_only+=("$pattern") ;;
        *) fail "$differences: '$side $pattern' is neither 'deb PATTERN' nor 'rpm PATTERN'" ;;
    esac
done < <(grep -Ev '^(#|$)' "$differences")
unlisted "$work/deb.files" "${deb_only[@]}" >"$work/deb.compared"
unlisted "$work/rpm.files" "${rpm_only[@]}" >"$work/rpm.compared"
if ! diff -u "$work/deb.compared" "$work/rpm.compared" >"$work/files.diff"; then
    cat "$work/files.diff"
    fail "the RPM's files differ from the .deb's (- the .deb, + the RPM) beyond $differences: make them agree, or list a difference there with the reason"
fi
echo "files: $(wc -l <"$work/rpm.compared") in both packages with the same path, mode, size and link; $((${#deb_only[@]} + ${#rpm_only[@]})) differences, each in $differences"

# The scratch root: --root installs under it and keeps the database there too (--dbpath is
# read inside the root), so neither this machine's files nor Debian's rpm database (~/.rpmdb)
# are touched; /var/lib/rpm is where the RHEL family keeps it. --nodeps: the libraries the
# package requires are this machine's Debian packages, which no RPM database knows of.
# --force-debian: Debian's rpm otherwise warns at -i and -e that a Debian system takes RPM
# packages through alien, which is true of this machine's root, not of the scratch root.
root=$work/root
mkdir "$root"
in_root() { rpm --root "$root" --dbpath /var/lib/rpm "$@"; }
in_root -i --nodeps --force-debian "$package"
in_root -q hugetune >/dev/null || fail "rpm -q hugetune: not installed in $root"
# rpm -V: every file in place with the digest, mode and owner the header records (--nodeps:
# the dependencies are not there, as above).
in_root -V --nodeps hugetune || fail "rpm -V hugetune finds the files in $root differ from the package"
mapfile -t installed < <(in_root -ql hugetune)
for f in "${installed[@]}"; do
    [[ -e $root$f || -L $root$f ]] || fail "rpm -ql lists $f, missing in $root"
done
# The same bytes as the .deb's, file by file (the sizes agreed above).
dpkg-deb -x "$deb" "$work/deb"
while read -r path mode _; do
    if [[ $mode == -* ]] && ! cmp -s "$work/deb$path" "$root$path"; then
        fail "$path differs from the .deb's"
    fi
done <"$work/rpm.compared"
"$root/usr/bin/hugetune" --version | grep -Eq "^hugetune $version \\(([0-9a-f]{7,40}|unknown)\\)$" ||
    fail "hugetune --version: $("$root/usr/bin/hugetune" --version)"
[[ $(readlink "$root/usr/lib/systemd/system/multi-user.target.wants/hugetune-verify.service") == ../hugetune-verify.service ]] ||
    fail "the unit is not wanted by multi-user.target"
[[ $(in_root -q --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' hugetune | grep ' /usr/share/doc/hugetune/copyright$') == *l*' '* ]] ||
    fail "/usr/share/doc/hugetune/copyright is not the package's %license"
grep -qx /usr/share/doc/hugetune/CHANGELOG.md <<<"$(in_root -qd hugetune)" ||
    fail "rpm -qd hugetune does not list CHANGELOG.md, which the changelog points at"

# The %preun is packaging/prerm behind rpm's argument: the count of instances left, 0 at an
# erase. rpm runs it inside the scratch root, which lacks /bin/sh and the binary's libraries
# (--nodeps), so it is run here instead, on this machine, with the installed binary first on
# PATH and the ledger of an apply to a copy of a fixture root (HUGETUNE_PRERM_ROOT, as
# tests/package/deb.sh runs the prerm); rpm -e then skips it (--nopreun).
preun=$work/preun
[[ $(query '%{PREUNPROG}') == /bin/sh ]] || fail "the %preun is not run by /bin/sh"
query '%{PREUN}' >"$preun"
sh -n "$preun" || fail "the %preun is not valid sh"
apply_root=$work/apply-root
cp -a "$fixture/." "$apply_root/"
"$root/usr/bin/hugetune" apply --value 8 --root "$apply_root" >"$work/apply.log" 2>&1 ||
    { cat "$work/apply.log" >&2; fail "hugetune apply --root $apply_root"; }
preun_says() {
    PATH=$root/usr/bin:$PATH HUGETUNE_PRERM_ROOT=$apply_root sh "$preun" "$1" 2>&1 ||
        fail "%preun $1 failed"
}
[[ -z $(preun_says 1) ]] || fail "%preun 1 (an upgrade) says something: only an erase is told"
erase=$(preun_says 0)
echo "$erase"
grep -q "^hugetune: note: hugetune apply changed the boot configuration ($apply_root/var/lib/hugetune/applied.json)" <<<"$erase" ||
    fail "%preun 0 (an erase) did not say that an apply's change stays"
grep -q 'run: hugetune rollback$' <<<"$erase" || fail "%preun 0 did not say how to undo the apply"

in_root -e --nopreun --force-debian hugetune
in_root -q hugetune >/dev/null 2>&1 && fail "rpm -q hugetune: still installed after rpm -e"
left=$(cd "$root" && find . ! -type d ! -path './var/lib/rpm/*' | sed 's/^\.//')
[[ -z $left ]] || fail "left in $root after rpm -e: $left"
# Nor a directory the package owned (rpm -ql listed them with the files).
for f in "${installed[@]}"; do
    [[ ! -e $root$f && ! -L $root$f ]] || fail "left in $root after rpm -e: $f"
done
echo "rpm: linted, $(stat -c %s "$package") bytes; installed into a scratch root, verified and erased; nothing left"
