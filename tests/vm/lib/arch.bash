# shellcheck shell=bash
# The boot lab's architectures: what differs between an amd64 and an arm64 guest, in one place.
# Sourced by lib/vm.bash, run-all.sh and make-initramfs.sh; sets nothing on its own.
#
# amd64: qemu-system-x86_64 (PC machine), console ttyS0, the results on the second 16550 serial
# port (/dev/ttyS1). arm64: qemu-system-aarch64 -M virt, console ttyAMA0 (its PL011 UART); QEMU
# 7.2's virt machine has one UART for a non-secure guest, so the results go to a virtio console
# (/dev/hvc0; CONFIG_VIRTIO_CONSOLE and CONFIG_VIRTIO_PCI are built into Debian's cloud-arm64
# kernel, tests/vm/README.md "arm64").

# vmlab_elf_arch FILE: amd64 or arm64 from the ELF header's machine; fails on anything else.
vmlab_elf_arch() {
    local machine
    machine=$(LC_ALL=C readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p')
    case $machine in
    *X86-64*) echo amd64 ;;
    AArch64) echo arm64 ;;
    *) return 1 ;;
    esac
}

# The host's architecture in Debian's words (amd64, arm64), from the kernel's machine name.
vmlab_host_arch() {
    case $(uname -m) in
    x86_64) echo amd64 ;;
    aarch64) echo arm64 ;;
    *) uname -m ;;
    esac
}

# vmlab_arch_facts ARCH: sets vmlab_qemu (the emulator's command), vmlab_qemu_package (the Debian
# package that has it), vmlab_console (the kernel's console device), vmlab_results_device (the
# guest's device for the results), vmlab_multiarch (the library triplet) and vmlab_machine_args
# (QEMU's machine). Fails on an architecture the lab does not boot.
# shellcheck disable=SC2034 # read by the scripts that source this library
vmlab_arch_facts() {
    case $1 in
    amd64)
        vmlab_qemu=qemu-system-x86_64
        vmlab_qemu_package=qemu-system-x86
        vmlab_console=ttyS0
        vmlab_results_device=/dev/ttyS1
        vmlab_multiarch=x86_64-linux-gnu
        vmlab_machine_args=()
        ;;
    arm64)
        vmlab_qemu=qemu-system-aarch64
        vmlab_qemu_package=qemu-system-arm
        vmlab_console=ttyAMA0
        vmlab_results_device=/dev/hvc0
        vmlab_multiarch=aarch64-linux-gnu
        vmlab_machine_args=(-M virt)
        ;;
    *) return 1 ;;
    esac
}

# vmlab_results_args FILE: QEMU's arguments that put the guest's results device into FILE.
vmlab_results_args() {
    if [[ $vmlab_results_device == /dev/hvc0 ]]; then
        printf '%s\n' -device virtio-serial-pci -chardev "file,id=vmlab-results,path=$1" \
            -device virtconsole,chardev=vmlab-results
    else
        printf '%s\n' -serial "file:$1"
    fi
}

# vmlab_case_arches CASE_SCRIPT: the architectures a case runs on, from its "# vmlab-arch:" line;
# amd64 when it has none.
vmlab_case_arches() {
    local line
    line=$(grep -m1 '^# vmlab-arch:' "$1" 2>/dev/null)
    echo "${line#\# vmlab-arch:}" | xargs | grep . || echo amd64
}
