#!/usr/bin/env bash
# The package `make package` built, on this machine: `dpkg -i`, then the binary, the man pages
# (compressed, and read by man), the completion (found by bash-completion, which the package
# recommends), the unit and the schemas in place, the copyright file and the changelog, the
# binary stripped, dependencies from the shared libraries, one maintainer script (prerm); then
# `dpkg -r`, after which no file of the package is left. The prerm is tried on a ledger of an
# apply to a copy of a fixture root, never this machine's boot configuration: it says what the
# apply left and how to undo it at a removal, nothing at an upgrade, and never fails. It changes
# the system, so it runs only as root and when HUGETUNE_PACKAGE_TEST=1 (`make test` sets it);
# otherwise it exits 77 with the reason. It never leaves hugetune installed: the package is
# removed on every exit, failures included. lintian is run on the package by its sibling,
# tests/package/lintian.sh.
#   tests/package/deb.sh build-test/package/hugetune_0.2.0_amd64.deb
set -euo pipefail
deb=${1:?usage: tests/package/deb.sh PACKAGE.deb}
fixture=$(cd "$(dirname "$0")/../fixtures/boot/debian" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || skip "needs root: dpkg -i installs the package into this machine"
[[ ${HUGETUNE_PACKAGE_TEST:-} == 1 ]] ||
    skip "installs into this machine; runs only when HUGETUNE_PACKAGE_TEST=1 (make test-package)"
[[ -f $deb ]] || fail "no package $deb: run make package"
if dpkg-query -W -f='${Status}' hugetune 2>/dev/null | grep 'installed' >/dev/null; then
    fail "a hugetune package is installed already; this test would remove it: dpkg -r hugetune first"
fi
# dpkg -L before: the package is unknown.
dpkg -L hugetune >/dev/null 2>&1 && fail "dpkg -L hugetune lists files before the install"

work=$(mktemp -d)
cleanup() {
    local rc=$?
    dpkg -r hugetune >/dev/null 2>&1 || true
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

version=$(dpkg-deb -f "$deb" Version)
depends=$(dpkg-deb -f "$deb" Depends)
echo "package: $deb, $(stat -c %s "$deb") bytes, version $version"
echo "Depends: $depends"
for lib in libboost-program-options libhwloc libstdc++6 libc6; do
    grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib (CPACK_DEBIAN_PACKAGE_SHLIBDEPS)"
done
dpkg-deb -f "$deb" Description | grep '^ *;' >/dev/null && fail "the Description has list separators: $(dpkg-deb -f "$deb" Description)"
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "Recommends: $recommends"
grep -Eq '(^|, )bash-completion(,|$)' <<<"$recommends" ||
    fail "Recommends lacks bash-completion, without which an interactive bash does not load the completion"
dpkg-deb -e "$deb" "$work/control"
scripts=$(cd "$work/control" && ls | grep -Ev '^(control|md5sums)$' || true)
[[ $scripts == prerm ]] || fail "the package's maintainer scripts and conffiles are '$scripts', not prerm alone"
prerm=$work/control/prerm
[[ $(stat -c %a "$prerm") == 755 ]] || fail "prerm has mode $(stat -c %a "$prerm"), not 755"
[[ $(head -n 1 "$prerm") == '#!/bin/sh' ]] || fail "prerm is not a POSIX sh script: $(head -n 1 "$prerm")"
grep -qx 'set -e' "$prerm" || fail "prerm does not set -e"
sh -n "$prerm" || fail "prerm is not valid sh"

dpkg -i "$deb"
mapfile -t files < <(dpkg -L hugetune)
echo "installed files:"
for f in "${files[@]}"; do [[ -d $f && ! -L $f ]] || echo "  $f"; done

hugetune --version | grep -Eq "^hugetune $version \\(([0-9a-f]{7,40}|unknown)\\)$" ||
    fail "hugetune --version: $(hugetune --version)"
[[ $(command -v hugetune) == /usr/bin/hugetune ]] || fail "hugetune is $(command -v hugetune)"
page=$(man -w hugetune) || fail "man -w hugetune finds no page"
[[ $page == /usr/share/man/man8/hugetune.8.gz ]] || fail "man -w hugetune finds $page, not the compressed page"
MANWIDTH=200 man hugetune 2>/dev/null | grep 'hugepage_alloc_threads' >/dev/null || fail "man hugetune does not render"
for c in $(hugetune --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p'); do
    man -w "hugetune-$c" >/dev/null || fail "man -w hugetune-$c finds no page"
done
MANWIDTH=200 man hugetune-run 2>/dev/null | grep -- '--boot-sweep' >/dev/null || fail "man hugetune-run lacks --boot-sweep"
completion=/usr/share/bash-completion/completions/hugetune
[[ -f $completion ]] && bash -n "$completion" || fail "no valid completion at $completion"
bash -c "source $completion && complete -p hugetune" >/dev/null || fail "the completion registers nothing"
# What an interactive bash does at the first TAB after hugetune: bash-completion looks the
# command's completion up by its name.
loader=/usr/share/bash-completion/bash_completion
[[ -f $loader ]] || fail "no $loader: make test-deps installs bash-completion (PACKAGE_PKGS)"
bash -c ". $loader && __load_completion hugetune && complete -p hugetune" >/dev/null ||
    fail "bash-completion does not find the completion at $completion"
unit=/usr/lib/systemd/system/hugetune-verify.service
[[ -f $unit ]] || fail "no unit at $unit"
[[ -L /usr/lib/systemd/system/multi-user.target.wants/hugetune-verify.service ]] || fail "the unit is not wanted"
if command -v systemd-analyze >/dev/null; then
    systemd-analyze verify --man=no "$unit" || fail "systemd-analyze verify $unit"
fi
[[ -x /usr/libexec/hugetune/verify-boot ]] || fail "no wrapper"
[[ -f /usr/share/hugetune/schema/report.schema.json && -f /usr/share/hugetune/schema/sweep.schema.json ]] ||
    fail "no schemas under /usr/share/hugetune/schema"
[[ -f /usr/share/hugetune/prometheus/hugetune-rules.yml ]] ||
    fail "no Prometheus rules at /usr/share/hugetune/prometheus/hugetune-rules.yml"
if readelf -S /usr/bin/hugetune | grep -Eq '\.(debug_[a-z]+|symtab|comment)\b'; then
    fail "/usr/bin/hugetune keeps debug info, a symbol table or the compilers' .comment"
fi
echo "binary: $(stat -c %s /usr/bin/hugetune) bytes, stripped"
doc=/usr/share/doc/hugetune
grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$doc/copyright" ||
    fail "no machine-readable copyright file at $doc/copyright"
zcat "$doc/changelog.gz" >"$work/changelog" || fail "no changelog at $doc/changelog.gz"
logged=$(dpkg-parsechangelog -l "$work/changelog" -S Version) || fail "$doc/changelog.gz is not a Debian changelog"
[[ $logged == "$version" ]] || fail "the changelog's latest version is $logged, the package's $version"

# The prerm, through dpkg and by itself, on the ledger of an apply to a copy of a fixture root
# (HUGETUNE_PRERM_ROOT, which only this test sets): this machine's boot configuration and
# ledger are never touched.
root=$work/root
mkdir -p "$root" "$work/empty"
cp -a "$fixture/." "$root/"
hugetune apply --value 8 --root "$root" >"$work/apply.log" 2>&1 || { cat "$work/apply.log" >&2; fail "hugetune apply --root $root"; }
[[ -f $root/var/lib/hugetune/applied.json ]] || fail "the apply to $root wrote no ledger"
tree_sum() { (cd "$1" && find . -type f -exec sha256sum {} + | sort); }
applied=$(tree_sum "$root")
# prerm_says WHAT ENV_ROOT ARGS...: prerm's output when dpkg runs it with ARGS; it must succeed.
prerm_says() {
    local what=$1 at=$2
    shift 2
    HUGETUNE_PRERM_ROOT=$at sh "$prerm" "$@" 2>&1 || fail "prerm $* ($what) failed"
}
[[ -z $(prerm_says "no ledger" "$work/empty" remove) ]] || fail "prerm remove says something with no ledger"
for args in "upgrade $version" "failed-upgrade $version" "deconfigure in-favour other 1.0"; do
    # shellcheck disable=SC2086  # the words are the arguments
    [[ -z $(prerm_says "ledger" "$root" $args) ]] || fail "prerm $args says something: only a removal is told"
done
# Installing the same version again is an upgrade: dpkg runs `prerm upgrade`, which is silent.
HUGETUNE_PRERM_ROOT=$root dpkg -i "$deb" >"$work/upgrade.log" 2>&1 || { cat "$work/upgrade.log" >&2; fail "dpkg -i over the installed package"; }
grep -q 'hugetune: note' "$work/upgrade.log" && fail "the upgrade printed prerm's removal note: $(cat "$work/upgrade.log")"

HUGETUNE_PRERM_ROOT=$root dpkg -r hugetune >"$work/remove.log" 2>&1 || { cat "$work/remove.log" >&2; fail "dpkg -r hugetune with an apply's ledger"; }
cat "$work/remove.log"
grep -q "^hugetune: note: hugetune apply changed the boot configuration ($root/var/lib/hugetune/applied.json)" "$work/remove.log" ||
    fail "dpkg -r did not say that an apply's change stays"
grep -q '^-GRUB_CMDLINE_LINUX=.*hugepage_alloc_threads=8' "$work/remove.log" ||
    fail "dpkg -r did not show what hugetune rollback would undo"
grep -q 'run: hugetune rollback$' "$work/remove.log" || fail "dpkg -r did not say how to undo the apply"
[[ $(tree_sum "$root") == "$applied" ]] || fail "the prerm changed the root it looked at"
dpkg -L hugetune >/dev/null 2>&1 && fail "dpkg -L hugetune still lists files after dpkg -r"
status=$(dpkg-query -W -f='${Status}' hugetune 2>/dev/null || true)
[[ -z $status || $status == *not-installed* ]] || fail "after dpkg -r the status is '$status'"
left=()
for f in "${files[@]}"; do
    if [[ -L $f || (-e $f && ! -d $f) ]]; then left+=("$f"); fi
done
for d in /usr/share/hugetune /usr/share/doc/hugetune /usr/libexec/hugetune; do
    [[ -e $d ]] && left+=("$d")
done
((${#left[@]} == 0)) || fail "left behind after dpkg -r: ${left[*]}"
echo "package: installed, checked and removed; nothing left"
