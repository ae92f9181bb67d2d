#!/usr/bin/env bash
# The lab's choice of accelerator, without a broken machine: stand-ins for qemu-system-x86_64 on
# PATH behave as QEMU does on machines whose /dev/kvm opens but cannot run a guest (QEMU aborts
# setting an MSR; the guest stops with a KVM internal error; the console stops in the
# decompressor), and as a working KVM does. /dev/null stands in for a /dev/kvm that opens
# (VMLAB_KVM_DEVICE). Each choice must say why; the broken ones end with tcg.
source "$(dirname "$0")/../lib/vm.bash"
VMLAB_WORK=${VMLAB_WORK:-$(mktemp -d)}
mkdir -p "$VMLAB_WORK"
work=$(mktemp -d "$VMLAB_WORK/accel-choice.XXXXXX")
# shellcheck disable=SC2034 # read by vmlab_probe_kvm; the stand-ins never read the kernel
vmlab_kernel=$work/vmlinuz
: >"$vmlab_kernel"
unset VMLAB_ACCEL VMLAB_ACCEL_CHOSEN VMLAB_ACCEL_WHY
export VMLAB_KVM_PROBE_TIMEOUT_S=3

# standin NAME BODY: a qemu-system-x86_64 in $work/NAME/ that logs its arguments to
# $work/NAME.calls and then runs BODY, with $console and $results the files of its -serial
# arguments and $scenario the vmlab.scenario= of its -append.
standin() {
    mkdir -p "$work/$1"
    cat >"$work/$1/qemu-system-x86_64" <<EOF
#!/usr/bin/env bash
echo "\$*" >>"$work/$1.calls"
console="" results="" scenario=none
previous=""
for arg in "\$@"; do
    if [[ \$previous == -serial ]]; then
        if [[ -z \$console ]]; then console=\${arg#file:}; else results=\${arg#file:}; fi
    fi
    if [[ \$previous == -append ]]; then
        for word in \$arg; do [[ \$word == vmlab.scenario=* ]] && scenario=\${word#*=}; done
    fi
    previous=\$arg
done
$2
EOF
    chmod 755 "$work/$1/qemu-system-x86_64"
}

standin msr-abort '
if [[ " $* " == *" -enable-kvm "* ]]; then
    echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
    echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3104: kvm_buf_set_msrs: Assertion \`ret == cpu->kvm_msr_buf->nmsrs'"'"' failed." >&2
    kill -ABRT $$
fi
printf "VMLAB-BEGIN %s\nVMLAB-END %s rc=0\n" "$scenario" "$scenario" >"$results"'

# QEMU stops a guest it cannot emulate and waits, the guest paused, until it is killed.
standin internal-error '
echo "Decompressing Linux... Parsing ELF... done." >"$console"
printf "%s\n" "KVM internal error. Suberror: 1" "emulation failure" "RAX=0000000000000000" >&2
exec sleep 60'

standin console-stops '
printf "%s\n" "" "Decompressing Linux... Parsing ELF... done." "Booting the kernel (entry_offset: 0x0)." >"$console"
exec sleep 60'

standin working '
if [[ " $* " == *" -enable-kvm "* && $scenario == none ]]; then
    echo "VMLAB-KVM-PROBE-OK" >"$console"
    exit 0
fi
printf "VMLAB-BEGIN %s\nVMLAB-END %s rc=0\n" "$scenario" "$scenario" >"$results"'

calls() { [[ -f "$work/$1.calls" ]] && wc -l <"$work/$1.calls" || echo 0; }

# choose STANDIN [VAR=VALUE...]: the choice with that stand-in first on PATH and /dev/null as
# the KVM device, in a subshell, printed as "NAME: WHY".
choose() {
    local name=$1
    shift
    (
        export PATH="$work/$name:$PATH" VMLAB_KVM_DEVICE=/dev/null "$@"
        vmlab_choose_accel
        echo "$vmlab_accel_name: $vmlab_accel_why"
    )
}

# expect_choice STANDIN EXPECTED [VAR=VALUE...]: the choice starts with EXPECTED.
expect_choice() {
    local name=$1 expected=$2 got
    shift 2
    got=$(choose "$name" "$@") || vmlab_fail "$name: the choice failed: $got"
    [[ $got == "$expected"* ]] || vmlab_fail "$name: chose '$got', expected '$expected...'"
    echo "$name${*:+ ($*)}: accelerator $got"
}

expect_choice msr-abort "tcg: kvm probe failed: qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69"
expect_choice internal-error "tcg: kvm probe failed: KVM internal error. Suberror: 1"
expect_choice console-stops "tcg: kvm probe failed: no marker on the console within 3 s; its last line: Booting the kernel"
expect_choice working "kvm: a probe boot under KVM reached init in"
[[ $(calls msr-abort) == 1 && $(calls internal-error) == 1 && $(calls working) == 1 ]] ||
    vmlab_fail "each probe should boot once: msr-abort $(calls msr-abort), internal-error" \
        "$(calls internal-error), working $(calls working)"

# No device, or a forced choice: no probe boot at all.
expect_choice working "tcg: no KVM device at $work/none" VMLAB_KVM_DEVICE="$work/none"
expect_choice msr-abort "kvm: forced by VMLAB_ACCEL=kvm" VMLAB_ACCEL=kvm
expect_choice working "tcg: forced by VMLAB_ACCEL=tcg" VMLAB_ACCEL=tcg
[[ $(calls msr-abort) == 1 && $(calls working) == 1 ]] ||
    vmlab_fail "a forced choice or a missing device still booted a probe"
got=$(choose working VMLAB_ACCEL=xen 2>&1) && vmlab_fail "VMLAB_ACCEL=xen was accepted: $got"
[[ $got == *"VMLAB_ACCEL is 'xen'; set it to kvm or tcg, or unset it"* ]] ||
    vmlab_fail "VMLAB_ACCEL=xen: no clear error: $got"
echo "VMLAB_ACCEL=xen: refused: ${got#vmlab: error: }"

# Once per run: a choice made is exported, and the next one (a case run-all.sh starts) takes it
# without another probe; a guest boots with what was chosen.
(
    export PATH="$work/msr-abort:$PATH" VMLAB_KVM_DEVICE=/dev/null
    vmlab_choose_accel
    (vmlab_choose_accel && [[ $vmlab_accel_name == tcg && $vmlab_accel_why == "kvm probe failed: "* ]]) ||
        vmlab_fail "the exported choice was not taken: $vmlab_accel_name: $vmlab_accel_why"
    [[ $(calls msr-abort) == 2 ]] || vmlab_fail "the second choice booted a probe again"
    VMLAB_INITRD=$vmlab_kernel
    vm_boot_once chosen-guest none "" --timeout 10 2>"$work/boot.stderr" ||
        vmlab_fail "the guest under the chosen tcg did not finish: $(cat "$work/boot.stderr")"
    last=$(tail -n 1 "$work/msr-abort.calls")
    [[ $last == *"-accel tcg,thread=multi -cpu max"* && $last != *-enable-kvm* ]] ||
        vmlab_fail "the guest was not booted with the chosen emulator: $last"
    grep -q "vmlab: boot chosen-guest (tcg," "$work/boot.stderr" ||
        vmlab_fail "the boot line does not name the accelerator: $(cat "$work/boot.stderr")"
) || exit 1
echo "a choice made once is taken by the next case; its guest booted with -accel tcg"
