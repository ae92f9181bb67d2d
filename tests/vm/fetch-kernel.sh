#!/usr/bin/env bash
# Fetches Debian unstable's current cloud kernel (image and config) for one architecture into the
# lab's cache without touching the system's apt setup: a private apt configuration whose only
# source is the archive the system already uses, suite sid. Prints the cached kernel directory on
# stdout.
#
#   tests/vm/fetch-kernel.sh [amd64|arm64]   resolve the current version, fetch it unless cached
#   HUGETUNE_VM_CACHE=<dir>                  cache directory (default /var/cache/hugetune-vm)
#
# Exit 0: stdout is the kernel directory holding vmlinuz, config and version; for amd64
# <cache>/kernel/<version> with virtio_blk.ko (the kexec case's disk driver, a module there) and
# failover.ko, net_failover.ko and virtio_net.ko (the fleet case's network card), for
# arm64 <cache>/kernel-arm64/<version> with busybox, Debian's static busybox for arm64 (sid's
# busybox-static:arm64): the guest's shell, which the host's busybox-static cannot be (it has no
# Multi-Arch field, so its arm64 build would replace the host's, which the amd64 lab boots).
# Exit 77: the kernel cannot be fetched (no network, no archive, no cached copy); one line says why.
# Exit 2: an architecture other than amd64 or arm64.
set -euo pipefail

arch=${1:-amd64}
case $arch in
amd64)
    kernel_cache=kernel
    apt_state=apt
    # The virtio disk driver is a module in Debian's amd64 cloud kernel; the kexec case loads it
    # to keep its state on a disk. So is the virtio network driver, with the two modules it
    # needs (CONFIG_VIRTIO_NET=m, CONFIG_NET_FAILOVER=m, CONFIG_FAILOVER=m), in the order they
    # load; the fleet case's guests reach the host's database through it. busybox's insmod takes
    # them uncompressed.
    modules=(virtio_blk failover net_failover virtio_net)
    userland=()
    ;;
arm64)
    kernel_cache=kernel-arm64
    apt_state=apt-arm64
    # The arm64 cases need no disk; the results port (virtio console) and PCI are built in.
    modules=()
    userland=(busybox-static)
    ;;
*)
    echo "vmlab: error: no kernel for the architecture '$arch'; give amd64 or arm64" >&2
    exit 2
    ;;
esac
cache_dir=${HUGETUNE_VM_CACHE:-/var/cache/hugetune-vm}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
system_sources=/etc/apt/sources.list.d/debian.sources

skip() {
    echo "vmlab: skip: cannot fetch the kernel: $*" >&2
    exit 77
}

# Whether a kernel directory holds everything this architecture's lab takes from it.
complete_kernel() {
    local dir=$1 module
    [[ -s "$dir/vmlinuz" ]] || return 1
    for module in "${modules[@]}"; do [[ -s "$dir/$module.ko" ]] || return 1; done
    ((${#userland[@]} == 0)) || [[ -s "$dir/busybox" ]]
}

# The newest kernel already in the cache, for runs without a network: the newest complete one,
# else the newest with its image (fetched before this lab wanted some module; a case that needs
# the missing module skips, saying which).
cached_kernel() {
    local dir newest=""
    while read -r dir; do
        complete_kernel "$dir" && { echo "$dir"; return 0; }
        [[ -z $newest && -s "$dir/vmlinuz" ]] && newest=$dir
    done < <(find "$cache_dir/$kernel_cache" -mindepth 1 -maxdepth 1 -type d ! -name '*.partial' \
        2>/dev/null | sort -rV)
    ((${#userland[@]} == 0)) || [[ -s "$newest/busybox" ]] || return 1
    [[ -n $newest ]] && echo "$newest"
}

# The first plain Debian archive URI of the system's deb822 sources (not the security archive).
archive_uri() {
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' \
        "$system_sources" 2>/dev/null
}

apt_private() {
    local tool=$1
    shift
    "$tool" -o Dir::Etc::SourceList="$cache_dir/$apt_state/sources.list" \
        -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$cache_dir/$apt_state/lists" \
        -o Dir::Cache="$cache_dir/$apt_state/cache" \
        -o APT::Architecture="$arch" -o APT::Architectures="$arch" -o APT::Sandbox::User=root \
        -o Acquire::Retries=2 -o Acquire::http::Timeout=30 "$@"
}

prepare_apt() {
    local uri
    uri=$(archive_uri)
    [[ -n "$uri" ]] || return 1
    [[ -r "$keyring" ]] || return 1
    mkdir -p "$cache_dir/$apt_state/lists/partial" "$cache_dir/$apt_state/cache/archives/partial"
    echo "deb [signed-by=$keyring] $uri sid main" >"$cache_dir/$apt_state/sources.list"
}

# linux-image-cloud-<arch> depends on linux-image-<version>-cloud-<arch>; the version is read
# from that dependency so the lab follows the archive instead of a pinned number.
resolve_version() {
    apt_private apt-cache depends "linux-image-cloud-$arch" 2>/dev/null |
        sed -n "s/^ *Depends: linux-image-\\(.*\\)-cloud-$arch\$/\\1/p" | head -n 1
}

fetch_version() {
    local work status=0
    work=$(mktemp -d "$cache_dir/fetch.XXXXXX")
    extract_version "$1" "$work" || status=$?
    rm -rf "$work"
    return "$status"
}

# In sid linux-image-<version>-cloud-<arch> is a meta package: the image is in linux-binary-*,
# the configuration in linux-base-*, the modules in linux-modules-*.
extract_version() {
    local version=$1 work=$2 target=$cache_dir/$kernel_cache/$1
    local -a packages=("linux-binary-$version-cloud-$arch" "linux-base-$version-cloud-$arch")
    ((${#modules[@]} == 0)) || packages+=("linux-modules-$version-cloud-$arch")
    packages+=("${userland[@]}")
    (cd "$work" && apt_private apt-get download -qq "${packages[@]}") >&2 || return 1
    local deb
    for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
    local release=$version-cloud-$arch image config
    image=$(find "$work/root" \( -path "*/modules/$release/vmlinuz" -o -name "vmlinuz-$release" \) \
        -type f | head -n 1)
    config=$(find "$work/root" \( -path "*/modules/$release/config" -o -name "config-$release" \) \
        -type f | head -n 1)
    [[ -n "$image" && -n "$config" ]] || {
        echo "vmlab: the packages of $version hold no vmlinuz or config" >&2
        return 1
    }
    mkdir -p "$target.partial"
    cp "$image" "$target.partial/vmlinuz"
    cp "$config" "$target.partial/config"
    local name module
    for name in "${modules[@]}"; do
        module=$(find "$work/root" -path "*/modules/$release/*/$name.ko*" -type f | head -n 1)
        [[ -n "$module" ]] || {
            echo "vmlab: the packages of $version hold no $name module" >&2
            return 1
        }
        case $module in
        *.xz) xz -dc "$module" >"$target.partial/$name.ko" ;;
        *.zst) zstd -dqc "$module" >"$target.partial/$name.ko" ;;
        *.gz) gzip -dc "$module" >"$target.partial/$name.ko" ;;
        *) cp "$module" "$target.partial/$name.ko" ;;
        esac
    done
    if ((${#userland[@]} > 0)); then
        # bin/busybox in Debian 12's package, usr/bin/busybox in sid's (merged /usr).
        local busybox
        busybox=$(find "$work/root/bin" "$work/root/usr/bin" -maxdepth 1 -name busybox -type f \
            2>/dev/null | head -n 1)
        [[ -n "$busybox" ]] || {
            echo "vmlab: busybox-static for $arch holds no busybox" >&2
            return 1
        }
        cp "$busybox" "$target.partial/busybox"
        dpkg-deb -f "$work"/busybox-static_*.deb Version >"$target.partial/busybox.version"
    fi
    echo "$release" >"$target.partial/version"
    rm -rf "$target" && mv "$target.partial" "$target"
}

main() {
    mkdir -p "$cache_dir" 2>/dev/null || skip "cannot create the cache directory $cache_dir"
    exec 9>"$cache_dir/.lock"
    flock 9
    local version=""
    if prepare_apt && apt_private apt-get update -qq >&2 2>/dev/null; then
        # apt-cache fails without any lists (a new cache and no network): no version then.
        version=$(resolve_version) || version=""
    fi
    if [[ -z "$version" ]]; then
        local cached
        cached=$(cached_kernel) || skip "no Debian sid archive reachable and nothing cached in $cache_dir"
        echo "vmlab: archive not reachable; using the cached kernel $(cat "$cached/version")" >&2
        echo "$cached"
        return 0
    fi
    if ! complete_kernel "$cache_dir/$kernel_cache/$version"; then
        echo "vmlab: fetching Debian sid kernel $version-cloud-$arch" >&2
        if ! fetch_version "$version"; then
            # The lists resolved a version (kept from an earlier run) but the archive did not
            # answer: as without a network.
            local cached
            cached=$(cached_kernel) || skip "downloading linux-binary-$version-cloud-$arch failed"
            echo "vmlab: downloading $version failed; using the cached kernel $(cat "$cached/version")" >&2
            echo "$cached"
            return 0
        fi
    fi
    echo "$cache_dir/$kernel_cache/$version"
}

main "$@"
