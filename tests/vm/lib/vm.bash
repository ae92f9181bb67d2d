# shellcheck shell=bash
# The boot lab's host side, sourced by the tests in tests/vm/: the accelerator, booting one guest
# (stopped by its own PID on every exit path), and reading the guest's marked results.
#
# Environment: VMLAB_ARCH (the guests' architecture, amd64 or arm64; default amd64; run-all.sh
# sets it from the binary), HUGETUNE_VM_CACHE (the kernel cache, see fetch-kernel.sh),
# VMLAB_KERNEL_DIR (a directory with vmlinuz, skips the fetch), VMLAB_INITRD (the initramfs),
# VMLAB_WORK (where each guest's console and results files go), VMLAB_TIMEOUT_S (per guest,
# default 300).

vmlab_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=arch.bash
source "$vmlab_dir/lib/arch.bash"
vmlab_arch=${VMLAB_ARCH:-amd64}
vmlab_arch_facts "$vmlab_arch" || {
    echo "vmlab: error: VMLAB_ARCH is '$vmlab_arch'; set it to amd64 or arm64" >&2
    exit 2
}
declare -a vmlab_guest_pids=()

vmlab_stop_guests() {
    local pid
    for pid in "${vmlab_guest_pids[@]}"; do
        kill -0 "$pid" 2>/dev/null || continue
        kill -TERM "$pid" 2>/dev/null
        sleep 1
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    vmlab_guest_pids=()
}
trap vmlab_stop_guests EXIT
trap 'vmlab_stop_guests; exit 130' INT
trap 'vmlab_stop_guests; exit 143' TERM

vmlab_skip() {
    echo "vmlab: skip: $*" >&2
    exit 77
}

# The accelerator's arguments for QEMU: kvm (-enable-kvm -cpu host) or tcg, QEMU's
# multi-threaded emulator. arm64 under KVM takes the host's interrupt controller; under the
# emulator its max CPU authenticates pointers with QEMU's own implementation-defined algorithm
# (pauth-impdef=on) instead of the architected QARMA5, which made a guest's boot twice as long
# here (39 s against 17 s); the MIDR is the same either way.
vmlab_set_accel() {
    vmlab_accel_name=$1
    vmlab_accel_why=$2
    # shellcheck disable=SC2054 # the commas belong to QEMU's options, not to the array
    if [[ $1 == kvm && $vmlab_arch == arm64 ]]; then
        vmlab_accel_args=(-machine gic-version=host -enable-kvm -cpu host)
    elif [[ $1 == kvm ]]; then
        vmlab_accel_args=(-enable-kvm -cpu host)
    elif [[ $vmlab_arch == arm64 ]]; then
        vmlab_accel_args=(-accel tcg,thread=multi -cpu max,pauth-impdef=on)
    else
        vmlab_accel_args=(-accel tcg,thread=multi -cpu max)
    fi
}

# Sets vmlab_accel_name, vmlab_accel_args and vmlab_accel_why (one phrase: why that one), once
# per run: the choice is exported (VMLAB_ACCEL_CHOSEN, VMLAB_ACCEL_WHY), so the cases run-all.sh
# starts take it as made. VMLAB_ACCEL=kvm|tcg forces one. Otherwise KVM only when the device
# (VMLAB_KVM_DEVICE, default /dev/kvm) is a character device that opens for reading and writing
# AND a probe boot under KVM reaches its marker (vmlab_probe_kvm): some machines have a /dev/kvm
# that opens but cannot run a guest (QEMU aborts setting an MSR, or the guest stops with a KVM
# internal error). The device test comes first: as root, opening a missing /dev/kvm for writing
# would create a plain file. KVM runs only guests of the host's own architecture, so an arm64
# guest on an x86-64 host is always emulated. Needs vmlab_kernel for the probe.
vmlab_choose_accel() {
    if [[ -n ${VMLAB_ACCEL_CHOSEN:-} ]]; then
        vmlab_set_accel "$VMLAB_ACCEL_CHOSEN" "${VMLAB_ACCEL_WHY:-chosen earlier in this run}"
        return
    fi
    local device=${VMLAB_KVM_DEVICE:-/dev/kvm} why
    case ${VMLAB_ACCEL:-} in
    kvm | tcg) vmlab_set_accel "$VMLAB_ACCEL" "forced by VMLAB_ACCEL=$VMLAB_ACCEL" ;;
    "")
        if [[ $vmlab_arch != "$(vmlab_host_arch)" ]]; then
            vmlab_set_accel tcg "the host is $(vmlab_host_arch) and the guest $vmlab_arch: KVM runs only guests of the host's architecture"
        elif [[ ! -c $device ]]; then
            vmlab_set_accel tcg "no KVM device at $device"
        elif ! (exec 3<>"$device") 2>/dev/null; then
            vmlab_set_accel tcg "$device does not open for reading and writing"
        elif why=$(vmlab_probe_kvm); then
            vmlab_set_accel kvm "$why"
        else
            vmlab_set_accel tcg "kvm probe failed: $why"
        fi
        ;;
    *)
        echo "vmlab: error: VMLAB_ACCEL is '$VMLAB_ACCEL'; set it to kvm or tcg, or unset it" >&2
        exit 2
        ;;
    esac
    export VMLAB_ACCEL_CHOSEN=$vmlab_accel_name VMLAB_ACCEL_WHY=$vmlab_accel_why
}

# vmlab_probe_kvm: boots vmlab_kernel under KVM with an initramfs whose init prints a marker on
# the console and powers off, within VMLAB_KVM_PROBE_TIMEOUT_S (default 10). Succeeds printing
# how long it took; fails printing the first line QEMU gave, else what the console showed.
vmlab_probe_kvm() {
    local dir timeout_s=${VMLAB_KVM_PROBE_TIMEOUT_S:-10} marker=VMLAB-KVM-PROBE-OK
    dir=$(mktemp -d "${TMPDIR:-/tmp}/vmlab-kvm-probe.XXXXXX")
    if ! vmlab_probe_initrd "$dir" "$marker"; then
        echo "cannot build the probe's initramfs (busybox-static and cpio are needed)"
        rm -rf "$dir"
        return 1
    fi
    local started_ns
    started_ns=$(date +%s%N)
    # In a subshell of its own, so the shell's word of a QEMU that aborted ("Aborted") goes to
    # QEMU's file; QEMU dies with that subshell (parent-death signal).
    {
        vmlab_set_accel kvm probe
        setpriv --pdeathsig KILL "$vmlab_qemu" -name vmlab-kvm-probe -nodefaults \
            -no-user-config -display none -monitor none -no-reboot "${vmlab_machine_args[@]}" \
            "${vmlab_accel_args[@]}" -smp 1 -m 256M -kernel "$vmlab_kernel" \
            -initrd "$dir/probe.cpio.gz" -append "console=$vmlab_console panic=-1 loglevel=4" \
            -serial "file:$dir/console" </dev/null
    } >"$dir/qemu" 2>&1 &
    local pid=$! deadline=$((SECONDS + timeout_s)) timed_out=0
    while kill -0 "$pid" 2>/dev/null; do
        grep -q "$marker" "$dir/console" 2>/dev/null && break
        # QEMU keeps a guest it could not run paused until it is killed.
        grep -q "KVM internal error" "$dir/qemu" 2>/dev/null && break
        if ((SECONDS >= deadline)); then
            timed_out=1
            break
        fi
        sleep 0.1
    done
    local elapsed_ms=$((($(date +%s%N) - started_ns) / 1000000))
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    local status=1 first_line
    if grep -q "$marker" "$dir/console" 2>/dev/null; then
        printf 'a probe boot under KVM reached init in %d.%d s\n' $((elapsed_ms / 1000)) \
            $((elapsed_ms % 1000 / 100))
        status=0
    elif first_line=$(tr -d '\r' <"$dir/qemu" | grep -m1 -v '^[[:space:]]*$'); then
        echo "$first_line"
    elif ((timed_out)) && [[ -s "$dir/console" ]]; then
        echo "no marker on the console within ${timeout_s} s; its last line: $(tr -d '\r' \
            <"$dir/console" | grep -v '^[[:space:]]*$' | tail -n 1)"
    elif ((timed_out)); then
        echo "nothing on the console within ${timeout_s} s"
    else
        echo "QEMU exited without the marker and said nothing"
    fi
    rm -rf "$dir"
    return "$status"
}

# vmlab_probe_initrd DIR MARKER: DIR/probe.cpio.gz, static busybox (the guest's: vmlab_busybox)
# and an init that prints MARKER on the console and powers off.
vmlab_probe_initrd() {
    local stage=$1/stage busybox=${vmlab_busybox:-/bin/busybox}
    file -L "$busybox" 2>/dev/null | grep 'statically linked' >/dev/null || return 1
    command -v cpio >/dev/null || return 1
    mkdir -p "$stage/bin" "$stage/dev"
    cp "$busybox" "$stage/bin/busybox"
    printf '%s\n' '#!/bin/busybox sh' '/bin/busybox mount -t devtmpfs devtmpfs /dev' \
        "/bin/busybox echo $2 >/dev/$vmlab_console" '/bin/busybox poweroff -f' >"$stage/init"
    chmod 755 "$stage/init"
    (cd "$stage" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) | gzip -1 \
        >"$1/probe.cpio.gz"
}

# vmlab_icount_args SHIFT: QEMU's arguments for a guest whose clock is its instruction count:
# each instruction 2^SHIFT ns of guest time, and no sleeping on an idle guest (sleep=off): when
# every CPU is idle the clock leaps to its next timer, so the guest's time is a function of what
# it executed, not of the host's load (with sleep=on the idle spans count real time, and a boot's
# allocation line took twice as long on a loaded host). A guest that waits on the network must
# keep a CPU busy meanwhile, or its timeouts pass in an instant. icount needs the
# single-threaded emulator (QEMU refuses it with KVM and with thread=multi): the guest's CPUs take
# turns on one host thread.
vmlab_icount_args() {
    local cpu=max
    [[ $vmlab_arch == arm64 ]] && cpu=max,pauth-impdef=on
    printf '%s\n' -accel tcg,thread=single -cpu "$cpu" -icount "shift=$1,sleep=off"
}

# Fetches the kernel (or takes VMLAB_KERNEL_DIR) and checks QEMU and the initramfs; skips (77)
# when the kernel cannot be had or QEMU is missing. Sets vmlab_kernel, vmlab_kernel_release and
# vmlab_busybox (the guest's static busybox: the host's for amd64, the kernel directory's for
# arm64).
vmlab_prepare() {
    command -v "$vmlab_qemu" >/dev/null ||
        vmlab_skip "$vmlab_qemu not found; install $vmlab_qemu_package"
    local kernel_dir=${VMLAB_KERNEL_DIR:-}
    if [[ -z "$kernel_dir" ]]; then
        local status=0
        kernel_dir=$("$vmlab_dir/fetch-kernel.sh" "$vmlab_arch") || status=$?
        [[ $status -eq 77 ]] && exit 77
        [[ $status -eq 0 ]] || { echo "vmlab: fetching the kernel failed ($status)" >&2; exit 1; }
    fi
    vmlab_kernel=$kernel_dir/vmlinuz
    vmlab_set_busybox "$kernel_dir"
    # shellcheck disable=SC2034 # read by the scripts that source this library
    vmlab_kernel_release=$(cat "$kernel_dir/version" 2>/dev/null || echo unknown)
    [[ -r "$vmlab_kernel" ]] || vmlab_skip "no kernel image at $vmlab_kernel"
    [[ -r "${VMLAB_INITRD:-}" ]] || {
        echo "vmlab: error: VMLAB_INITRD names no initramfs (tests/vm/make-initramfs.sh builds one)" >&2
        exit 2
    }
    vmlab_choose_accel
    VMLAB_WORK=${VMLAB_WORK:-$(mktemp -d)}
    mkdir -p "$VMLAB_WORK"
}

# vmlab_set_busybox KERNEL_DIR: the static busybox the guests run, the host's own when the guest
# has the host's architecture, else the one fetch-kernel.sh keeps beside the kernel.
vmlab_set_busybox() {
    if [[ $vmlab_arch == "$(vmlab_host_arch)" ]]; then
        vmlab_busybox=/bin/busybox
    else
        vmlab_busybox=$1/busybox
    fi
}

# The -numa arguments for NODES nodes over MEM_MIB of memory and SMP CPUs: memory split evenly,
# CPUs dealt round-robin; with MEMORY_ONLY=1 the last node has memory and no CPUs.
vmlab_numa_args() {
    local nodes=$1 memory_mib=$2 smp=$3 memory_only=${4:-0} prealloc=${5:-0}
    local cpu_nodes=$((memory_only ? nodes - 1 : nodes)) node cpu
    local node_mib=$((memory_mib / nodes))
    for ((node = 0; node < nodes; node++)); do
        local backend="memory-backend-ram,id=mem$node,size=${node_mib}M"
        [[ $prealloc -eq 1 ]] && backend+=",prealloc=on"
        local numa="node,nodeid=$node,memdev=mem$node"
        if ((node < cpu_nodes)); then
            for ((cpu = node; cpu < smp; cpu += cpu_nodes)); do numa+=",cpus=$cpu"; done
        fi
        printf '%s\n' -object "$backend" -numa "$numa"
    done
}

# vm_boot NAME SCENARIO "KERNEL ARGS" [--smp N] [--mem MIB] [--nodes K] [--memory-only-node]
#         [--prealloc] [--timeout S] [--input DIR] [--initrd FILE] [--disk IMAGE] [--net]
#         [--icount SHIFT]
# Boots one guest running SCENARIO with the given kernel arguments, waits for it to power off
# (or kills it at the timeout) and leaves $VMLAB_WORK/NAME.console and NAME.results.
# A guest whose kernel panics before its init started (then stops or times out) is booted again
# from the start, at most
# VMLAB_BOOT_RETRIES times (default 2), saying so: under the emulator a kernel now and then dies
# at boot on its own (an int3 Oops while it patches its code), before hugetune runs. That holds
# for the first boot and for a boot the guest kexec'd into; vm_panic_before_init tells them apart
# from a panic after init, which is never retried. The failed attempt's console is kept as
# NAME.console.<attempt>; a --disk image is put back as it was before the first attempt.
# --input DIR lays DIR's tree over the guest's root (a second cpio archive after the lab's own,
# which the kernel unpacks in turn); --initrd FILE boots FILE instead of the lab's initramfs;
# --disk IMAGE attaches a raw image as a virtio disk (/dev/vda once virtio_blk is loaded).
# --net gives the guest a virtio network card on QEMU's user network (eth0 once virtio_net is
# loaded; the host's loopback is 10.0.2.2 there, restrict=off lets the guest reach it).
# --icount SHIFT runs the guest under the emulator with its clock counted in instructions,
# 2^SHIFT ns each (vmlab_icount_args), whatever accelerator the run chose.
# Returns 0 when the results carry the END marker, 124 on
# timeout, 1 otherwise.
vm_boot() {
    local name=$1 attempt=1 retries=${VMLAB_BOOT_RETRIES:-2} status disk="" arg previous=""
    for arg in "$@"; do
        [[ $previous == --disk ]] && disk=$arg
        previous=$arg
    done
    [[ -n "$disk" ]] && cp --sparse=always "$disk" "$disk.pristine"
    while :; do
        status=0
        vm_boot_once "$@" || status=$?
        # A timeout too: a kernel that panicked after a kexec may wait instead of rebooting.
        ((status != 0 && attempt <= retries)) || break
        local why
        if ((status == 125)); then
            why="it printed nothing, neither its kernel nor its init, in ${VMLAB_LIFE_S:-120} s"
        else
            why=$(vm_panic_before_init "$VMLAB_WORK/$name.console") || break
        fi
        mv "$VMLAB_WORK/$name.console" "$VMLAB_WORK/$name.console.$attempt"
        [[ -n "$disk" ]] && cp --sparse=always "$disk.pristine" "$disk"
        echo "vmlab: guest $name: $why; booting it again from the start" \
            "(attempt $((attempt + 1)) of $((retries + 1)))" >&2
        attempt=$((attempt + 1))
    done
    [[ -n "$disk" ]] && rm -f "$disk.pristine"
    return "$status"
}

# vm_panic_before_init CONSOLE: succeeds, printing what happened, when the console shows a kernel
# panic of a kernel that had not reached init: no init line before the panic; the panic's
# timestamp below the last init line's (each boot's log starts again from 0, so a later kernel
# panicked before its own init line; the console may end before "Kernel Offset"); or the last
# init line names another kernel text address than the panicking kernel's ("Kernel Offset: O
# from B" puts it at B + O; KASLR places every boot's kernel anew). Fails when there was no
# panic, when the panicking kernel had reached init, and when it cannot tell (KASLR off).
vm_panic_before_init() {
    local facts panicked init_text offset base oops
    facts=$(tr -d '\r' <"$1" | awk '
        function stamp(line) { return match(line, /^\[ *[0-9]+\.[0-9]+\]/) ? \
            substr(line, 2, RLENGTH - 2) + 0 : -1 }
        /vmlab: init started, kernel text at / && !panicked { init_text = $NF; init_at = stamp($0) }
        /Kernel panic - not syncing/ && !panicked { panicked = 1; panic_at = stamp($0) }
        panicked && /Kernel Offset: 0x/ && offset == "" {
            sub(/.*Kernel Offset: /, ""); offset = $1; base = $3
        }
        END { later = (panicked && init_text != "" && panic_at >= 0 && panic_at < init_at)
              print (panicked ? 1 : 0), (init_text == "" ? "-" : init_text), \
                    (offset == "" ? "-" : offset), (base == "" ? "-" : base), later + 0 }')
    read -r panicked init_text offset base later <<<"$facts"
    ((panicked)) || return 1
    oops=$(tr -d '\r' <"$1" | grep -m1 -E "Oops|BUG|Kernel panic" | sed 's/^\[ *[0-9.]*\] //')
    if [[ $init_text == - ]]; then
        echo "the kernel panicked before init started ($oops)"
        return 0
    fi
    local hex='^0x[0-9a-f]+$' panic_text
    if [[ $offset =~ $hex && $base =~ $hex && $init_text =~ $hex ]]; then
        panic_text=$(printf '0x%x' $((base + offset)))
        [[ $panic_text != "$init_text" ]] || return 1
        echo "a kernel it booted into panicked before init started (kernel text at $panic_text," \
            "the last init ran on $init_text; $oops)"
        return 0
    fi
    ((later)) || return 1
    echo "a kernel it booted into panicked before init started (its log restarted after the" \
        "last init line, on $init_text; $oops)"
}

# One boot of vm_boot's guest.
vm_boot_once() {
    local name=$1 scenario=$2 kernel_args=$3
    shift 3
    local smp=2 memory_mib=1024 nodes=0 memory_only=0 prealloc=0 input_dir="" initrd_file=""
    local disk_image="" net=0 icount_shift=""
    local timeout_s=${VMLAB_TIMEOUT_S:-300}
    while [[ $# -gt 0 ]]; do
        case $1 in
        --smp) smp=$2; shift 2 ;;
        --mem) memory_mib=$2; shift 2 ;;
        --nodes) nodes=$2; shift 2 ;;
        --memory-only-node) memory_only=1; shift ;;
        --prealloc) prealloc=1; shift ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --input) input_dir=$2; shift 2 ;;
        --initrd) initrd_file=$2; shift 2 ;;
        --disk) disk_image=$2; shift 2 ;;
        --net) net=1; shift ;;
        --icount) icount_shift=$2; shift 2 ;;
        *) echo "vm_boot: unknown option $1" >&2; return 2 ;;
        esac
    done
    local console=$VMLAB_WORK/$name.console results=$VMLAB_WORK/$name.results
    : >"$console"
    : >"$results"
    local -a memory_args=(-m "${memory_mib}M")
    if ((nodes > 0)); then
        mapfile -t numa < <(vmlab_numa_args "$nodes" "$memory_mib" "$smp" "$memory_only" "$prealloc")
        memory_args+=("${numa[@]}")
    elif ((prealloc)); then
        memory_args+=(-object "memory-backend-ram,id=mem0,size=${memory_mib}M,prealloc=on"
            -machine memory-backend=mem0)
    fi
    local initrd=${initrd_file:-$VMLAB_INITRD}
    local -a device_args=()
    [[ -n "$disk_image" ]] && device_args=(-drive "file=$disk_image,if=virtio,format=raw")
    # shellcheck disable=SC2054 # the commas belong to QEMU's options, not to the array
    ((net)) && device_args+=(-netdev user,id=n0,restrict=off -device virtio-net-pci,netdev=n0)
    local accel_name=$vmlab_accel_name
    local -a accel_args=("${vmlab_accel_args[@]}")
    if [[ -n $icount_shift ]]; then
        mapfile -t accel_args < <(vmlab_icount_args "$icount_shift")
        accel_name="tcg, icount shift=$icount_shift"
    fi
    if [[ -n "$input_dir" ]]; then
        initrd=$VMLAB_WORK/$name.initrd
        {
            cat "$VMLAB_INITRD"
            (cd "$input_dir" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) | gzip -1
        } >"$initrd"
    fi
    local append="console=$vmlab_console panic=1 loglevel=4 vmlab.results=$vmlab_results_device"
    append+=" vmlab.scenario=$scenario $kernel_args"
    local -a results_args
    mapfile -t results_args < <(vmlab_results_args "$results")
    echo "vmlab: boot $name ($accel_name, -smp $smp, ${memory_mib} MiB, nodes ${nodes:-0}$( ((prealloc)) && echo ", prealloc"), $vmlab_arch): $kernel_args" >&2
    local started_ns
    started_ns=$(date +%s%N)
    # The parent-death signal stops the guest even when this shell is killed by SIGKILL, which no
    # trap sees.
    setpriv --pdeathsig KILL "$vmlab_qemu" -name "vmlab-$name" -nodefaults -no-user-config \
        -display none -monitor none -no-reboot "${vmlab_machine_args[@]}" "${accel_args[@]}" \
        -smp "$smp" "${memory_args[@]}" -kernel "$vmlab_kernel" -initrd "$initrd" \
        -append "$append" "${device_args[@]}" -serial "file:$console" "${results_args[@]}" \
        </dev/null >"$VMLAB_WORK/$name.qemu" 2>&1 &
    local pid=$!
    vmlab_guest_pids+=("$pid")
    local deadline=$((SECONDS + timeout_s)) status=0
    # A guest whose two serial ports are still empty after VMLAB_LIFE_S (its kernel prints at
    # loglevel 4 only, its init a line at once, a few seconds in): stopped, for vm_boot to boot
    # again.
    local life_s=${VMLAB_LIFE_S:-120} alive=0 born=$SECONDS
    while kill -0 "$pid" 2>/dev/null; do
        # A guest booted from a background subshell (several at a time) has that subshell for
        # parent, which outlives a test shell killed by SIGKILL: it stops the guest once the
        # test's shell is gone.
        if [[ $BASHPID != "$$" ]] && ! kill -0 "$$" 2>/dev/null; then
            echo "vmlab: the test's shell is gone; stopping guest $name" >&2
            vmlab_stop_guests
            return 1
        fi
        if ((SECONDS >= deadline)); then
            echo "vmlab: guest $name still running after ${timeout_s}s; stopping it" >&2
            vmlab_stop_guests
            status=124
            break
        fi
        if ((!alive)); then
            if [[ -s $console || -s $results ]]; then
                alive=1
            elif ((SECONDS >= born + life_s)); then
                echo "vmlab: guest $name printed nothing in ${life_s}s; stopping it" >&2
                vmlab_stop_guests
                status=125
                break
            fi
        fi
        sleep 0.2
    done
    wait "$pid" 2>/dev/null
    local elapsed_ms=$((($(date +%s%N) - started_ns) / 1000000))
    echo "vmlab: guest $name ran $((elapsed_ms / 1000)).$(printf '%03d' $((elapsed_ms % 1000))) s" >&2
    ((status == 0)) || return "$status"
    if ! grep -q "^VMLAB-END $scenario rc=" "$results"; then
        echo "vmlab: guest $name stopped without its END marker; console tail:" >&2
        tail -n 20 "$console" "$VMLAB_WORK/$name.qemu" >&2
        return 1
    fi
}

# vm_section NAME SECTION: the lines of one section of a guest's results.
vm_section() {
    tr -d '\r' <"$VMLAB_WORK/$1.results" | awk -v want="$2" '
        /^VMLAB-SECTION / { inside = ($2 == want); next }
        /^VMLAB-END / { inside = 0 }
        inside { print }'
}

# vm_scenario_rc NAME: the scenario's own exit status from the END marker.
vm_scenario_rc() {
    tr -d '\r' <"$VMLAB_WORK/$1.results" | sed -n 's/^VMLAB-END .* rc=\([0-9]*\)$/\1/p'
}

vmlab_fail() {
    echo "vmlab: FAIL: $*" >&2
    exit 1
}

# vm_expect_rc NAME SECTION STATUS: the command of SECTION exited with STATUS in the guest.
vm_expect_rc() {
    local got
    got=$(vm_section "$1" "$2.rc")
    [[ "$got" == "$3" ]] || {
        vm_section "$1" "$2" | tail -n 20 >&2
        vmlab_fail "$1: '$2' exited with '${got:-nothing}' in the guest, expected $3"
    }
}

# vm_check_json NAME SECTION < python: runs the Python statements on stdin with `doc` bound to
# the section's JSON; a failed assert fails the test with the section's name.
vm_check_json() {
    local json checks
    json=$(vm_section "$1" "$2")
    checks=$(cat)
    python3 -c 'import json, sys
doc = json.loads(sys.argv[1])
exec(sys.argv[2])' "$json" "$checks" || vmlab_fail "$1: the checks on '$2' failed"
}
