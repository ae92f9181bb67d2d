#!/usr/bin/env bash
# Fetches Debian unstable's current cloud kernel (image and config) into the lab's cache without
# touching the system's apt setup: a private apt configuration whose only source is the archive
# the system already uses, suite sid. Prints the cached kernel directory on stdout.
#
#   tests/vm/fetch-kernel.sh            resolve the current version, fetch it unless cached
#   HUGETUNE_VM_CACHE=<dir>             cache directory (default /var/cache/hugetune-vm)
#
# Exit 0: stdout is <cache>/kernel/<version> holding vmlinuz, config and version.
# Exit 77: the kernel cannot be fetched (no network, no archive, no cached copy); one line says why.
set -euo pipefail

cache_dir=${HUGETUNE_VM_CACHE:-/var/cache/hugetune-vm}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
system_sources=/etc/apt/sources.list.d/debian.sources

skip() {
    echo "vmlab: skip: cannot fetch the kernel: $*" >&2
    exit 77
}

# The newest kernel already in the cache, for runs without a network.
cached_kernel() {
    local dir
    dir=$(find "$cache_dir/kernel" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort -V | tail -n 1)
    [[ -n "$dir" && -s "$dir/vmlinuz" && -s "$dir/virtio_blk.ko" ]] && echo "$dir"
}

# The first plain Debian archive URI of the system's deb822 sources (not the security archive).
archive_uri() {
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' \
        "$system_sources" 2>/dev/null
}

apt_private() {
    local tool=$1
    shift
    "$tool" -o Dir::Etc::SourceList="$cache_dir/apt/sources.list" \
        -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$cache_dir/apt/lists" \
        -o Dir::Cache="$cache_dir/apt/cache" \
        -o APT::Architecture=amd64 -o APT::Sandbox::User=root \
        -o Acquire::Retries=2 -o Acquire::http::Timeout=30 "$@"
}

prepare_apt() {
    local uri
    uri=$(archive_uri)
    [[ -n "$uri" ]] || return 1
    [[ -r "$keyring" ]] || return 1
    mkdir -p "$cache_dir/apt/lists/partial" "$cache_dir/apt/cache/archives/partial"
    echo "deb [signed-by=$keyring] $uri sid main" >"$cache_dir/apt/sources.list"
}

# linux-image-cloud-amd64 depends on linux-image-<version>-cloud-amd64; the version is read from
# that dependency so the lab follows the archive instead of a pinned number.
resolve_version() {
    apt_private apt-cache depends linux-image-cloud-amd64 2>/dev/null |
        sed -n 's/^ *Depends: linux-image-\(.*\)-cloud-amd64$/\1/p' | head -n 1
}

fetch_version() {
    local work status=0
    work=$(mktemp -d "$cache_dir/fetch.XXXXXX")
    extract_version "$1" "$work" || status=$?
    rm -rf "$work"
    return "$status"
}

# In sid linux-image-<version>-cloud-amd64 is a meta package: the image is in linux-binary-*,
# the configuration in linux-base-*, the modules in linux-modules-*.
extract_version() {
    local version=$1 work=$2 target=$cache_dir/kernel/$1
    (cd "$work" && apt_private apt-get download -qq \
        "linux-binary-$version-cloud-amd64" "linux-base-$version-cloud-amd64" \
        "linux-modules-$version-cloud-amd64") >&2 || return 1
    local deb
    for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
    local release=$version-cloud-amd64 image config
    image=$(find "$work/root" \( -path "*/modules/$release/vmlinuz" -o -name "vmlinuz-$release" \) \
        -type f | head -n 1)
    config=$(find "$work/root" \( -path "*/modules/$release/config" -o -name "config-$release" \) \
        -type f | head -n 1)
    [[ -n "$image" && -n "$config" ]] || {
        echo "vmlab: the packages of $version hold no vmlinuz or config" >&2
        return 1
    }
    # The virtio disk driver is a module in Debian's cloud kernel; the kexec case loads it to keep
    # its state on a disk. busybox's insmod takes it uncompressed.
    local module
    module=$(find "$work/root" -path "*/modules/$release/*/virtio_blk.ko*" -type f | head -n 1)
    [[ -n "$module" ]] || {
        echo "vmlab: the packages of $version hold no virtio_blk module" >&2
        return 1
    }
    mkdir -p "$target.partial"
    cp "$image" "$target.partial/vmlinuz"
    cp "$config" "$target.partial/config"
    case $module in
    *.xz) xz -dc "$module" >"$target.partial/virtio_blk.ko" ;;
    *.zst) zstd -dqc "$module" >"$target.partial/virtio_blk.ko" ;;
    *.gz) gzip -dc "$module" >"$target.partial/virtio_blk.ko" ;;
    *) cp "$module" "$target.partial/virtio_blk.ko" ;;
    esac
    echo "$version-cloud-amd64" >"$target.partial/version"
    rm -rf "$target" && mv "$target.partial" "$target"
}

main() {
    mkdir -p "$cache_dir" 2>/dev/null || skip "cannot create the cache directory $cache_dir"
    exec 9>"$cache_dir/.lock"
    flock 9
    local version=""
    if prepare_apt && apt_private apt-get update -qq >&2 2>/dev/null; then
        version=$(resolve_version)
    fi
    if [[ -z "$version" ]]; then
        local cached
        cached=$(cached_kernel) || skip "no Debian sid archive reachable and nothing cached in $cache_dir"
        echo "vmlab: archive not reachable; using the cached kernel $(cat "$cached/version")" >&2
        echo "$cached"
        return 0
    fi
    if [[ ! -s "$cache_dir/kernel/$version/vmlinuz" || ! -s "$cache_dir/kernel/$version/virtio_blk.ko" ]]; then
        echo "vmlab: fetching Debian sid kernel $version-cloud-amd64" >&2
        fetch_version "$version" || skip "downloading linux-binary-$version-cloud-amd64 failed"
    fi
    echo "$cache_dir/kernel/$version"
}

main "$@"
