#!/usr/bin/env bash
# The arm64 package `make package-arm64` built, read with dpkg-deb on the build machine (it cannot
# run there): its control fields (Architecture arm64, the version, dependencies that dpkg-shlibdeps
# took from the arm64 libraries), its files (the same paths as the amd64 package's, tested by
# tests/package/deb.sh), the binary an arm64 ELF without debug info, symbol table or .comment, the
# copyright file and the changelog; and, where apt knows the arm64 architecture (multiarch, as
# `make cross-arm64` sets it up), that apt could install it: a simulation, nothing is installed.
# The boot lab's package_arm64 case runs the packaged binary in an arm64 guest.
#   tests/package/arm64.sh build-arm64/package/hugetune_0.2.0_arm64.deb
set -euo pipefail
deb=${1:?usage: tests/package/arm64.sh PACKAGE_arm64.deb}
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -f $deb ]] || fail "no package $deb: run make package-arm64"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

field() { dpkg-deb -f "$deb" "$1"; }
echo "package: $deb, $(stat -c %s "$deb") bytes"
dpkg-deb --info "$deb" >"$work/info" || fail "dpkg-deb --info cannot read $deb"
[[ $(field Package) == hugetune ]] || fail "Package is '$(field Package)'"
[[ $(field Architecture) == arm64 ]] || fail "Architecture is '$(field Architecture)', not arm64"
version=$(field Version)
project_version=$(sed -n 's/^project(hugetune VERSION \([0-9.]*\) .*/\1/p' "$(dirname "$0")/../../CMakeLists.txt")
[[ $version == "$project_version" ]] || fail "Version is '$version', the project's $project_version"
depends=$(field Depends)
echo "Depends: $depends"
# dpkg-shlibdeps names each library's package as the arm64 side of multiarch has it, with the
# versions from its shlibs or symbols file.
for lib in libboost-program-options1.74.0 libhwloc15 'libstdc\+\+6' libc6 libgcc-s1 libsoci-core4.0 \
    libsoci-postgresql4.0 libsoci-sqlite3-4.0; do
    grep -E "(^|, )$lib( \\(>= [^)]+\\))?(,|$)" <<<"$depends" >/dev/null ||
        fail "Depends lacks ${lib//\\/} (CPACK_DEBIAN_PACKAGE_SHLIBDEPS with DEB_HOST_ARCH=arm64)"
done
grep -E '(^|, )bash-completion(,|$)' <<<"$(field Recommends)" >/dev/null ||
    fail "Recommends lacks bash-completion"

dpkg-deb --contents "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' | sort >"$work/contents"
for path in /usr/bin/hugetune /usr/share/man/man8/hugetune.8.gz /usr/share/man/man8/hugetune-run.8.gz \
    /usr/share/bash-completion/completions/hugetune /usr/lib/systemd/system/hugetune-verify.service \
    /usr/lib/systemd/system/multi-user.target.wants/hugetune-verify.service \
    /usr/libexec/hugetune/verify-boot /usr/share/hugetune/schema/report.schema.json \
    /usr/share/hugetune/schema/sweep.schema.json /usr/share/doc/hugetune/copyright \
    /usr/share/doc/hugetune/changelog.gz; do
    grep -x "$path" "$work/contents" >/dev/null || fail "the package lacks $path"
done
echo "files: $(grep -vc '/$' "$work/contents") (directories apart)"

dpkg-deb -x "$deb" "$work/root"
binary=$work/root/usr/bin/hugetune
machine=$(readelf -h "$binary" | sed -n 's/^ *Machine: *//p')
[[ $machine == AArch64 ]] || fail "/usr/bin/hugetune is for '$machine', not AArch64"
if readelf -S "$binary" | grep -E '\.(debug_[a-z]+|symtab|comment)\b' >/dev/null; then
    fail "/usr/bin/hugetune keeps debug info, a symbol table or the compilers' .comment"
fi
echo "binary: $(stat -c %s "$binary") bytes, AArch64, stripped"
zcat "$work/root/usr/share/doc/hugetune/changelog.gz" >"$work/changelog"
[[ $(dpkg-parsechangelog -l "$work/changelog" -S Version) == "$version" ]] ||
    fail "the changelog's latest version is not the package's $version"
grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
    "$work/root/usr/share/doc/hugetune/copyright" || fail "no machine-readable copyright file"

if dpkg --print-foreign-architectures | grep -x arm64 >/dev/null; then
    apt-get install --simulate --no-install-recommends "$(realpath "$deb")" >"$work/apt" 2>&1 ||
        fail "apt cannot install the package: $(tail -n 5 "$work/apt" | tr '\n' ' ')"
    grep -E '^Inst hugetune:arm64 \(.*\[arm64\]\)' "$work/apt" >/dev/null ||
        fail "apt's simulation installs no hugetune:arm64: $(tail -n 5 "$work/apt" | tr '\n' ' ')"
    echo "apt: $(grep -c '^Inst ' "$work/apt") package(s) to install in the simulation, hugetune:arm64 among them"
else
    echo "apt: not simulated (dpkg has no arm64 architecture here)"
fi
echo "package: arm64, checked with dpkg-deb"
