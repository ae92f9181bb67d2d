#!/usr/bin/env bash
# The prediction against the real boot: for init_on_alloc 1 and 0, with the guest's memory
# backed on the host before boot (prealloc) and without, a guest without a pool runs
# `hugetune run --boot-pages P`; guests booted with hugepages=P hugepage_alloc_threads=T
# (T = 1, 2; BOOTS boots each) give the kernel's figure. Prints, per setting, the predicted and
# the median measured time per T, their ratio, and whether the recommended T is the measured best.
#
#   tests/vm/accuracy.sh <hugetune binary>
#
# PAGES_ON (default 512) and PAGES_OFF (default 4096) are the pool for init_on_alloc=1 and =0:
# without zeroing the boot is about 100 times faster, and the kernel logs whole milliseconds in
# 4 ms steps, so it needs a larger pool to be measured at all. BOOTS (default 3) boots per T;
# SETTINGS lists the init_on_alloc values (default "1 0").
#
# Then the what-if rows against real boots (PARTS, default "main whatif": leave one out to run
# the other alone): with the memory backed, one pool of WHATIF_PAGES (default 2048) pages for
# everything, a guest per init_on_alloc value in WHATIF_SETTINGS (default "1 0") runs the same
# `hugetune run` (its report's what_if rows; WHATIF_REPETITIONS, default 3, repetitions per
# point), and guests booted with every combination of init_on_alloc in WHATIF_SETTINGS and
# hugetlb_free_vmemmap in WHATIF_HVO (default "off on") at T = 1, 2 (WHATIF_BOOTS, default 2,
# boots each) give the kernel's figure, each with what the boot says it ran with. The boots
# become one boot-sweep result (whatif-boots.json, format hugetune-boot-sweep), and `hugetune
# fit --input <the guest's sweep> --boot-sweep` sets each measured setting beside its
# prediction: the guest's own setting beside the prediction, the other init_on_alloc or HVO
# beside that what-if row at the same T and pool.
set -uo pipefail
binary=$(realpath "${1:?usage: $0 <hugetune binary>}")
here=$(cd "$(dirname "$0")" && pwd)
boots=${BOOTS:-3}
read -r -a settings <<<"${SETTINGS:-1 0}"
# Samples of 256 MiB per node (fewer when the pool is smaller): enough to fit, small enough for
# the emulator; the guest that predicts holds twice the sample and some room.
pool_pages() { if [[ $1 == 1 ]]; then echo "${PAGES_ON:-512}"; else echo "${PAGES_OFF:-4096}"; fi; }
sample_mib_for() { echo $(($1 > 128 ? 256 : $1 * 2)); }
source "$here/lib/vm.bash"
VMLAB_WORK=${VMLAB_WORK:-$(mktemp -d /tmp/vmlab-accuracy.XXXXXX)}
mkdir -p "$VMLAB_WORK"
export VMLAB_INITRD=$VMLAB_WORK/initramfs.cpio.gz
"$here/make-initramfs.sh" "$binary" "$VMLAB_INITRD" || exit 1
vmlab_prepare
echo "accuracy: $(date -u +%F), kernel $vmlab_kernel_release, $vmlab_accel_name, -smp 2"

read -r -a parts <<<"${PARTS:-main whatif}"
part() { [[ " ${parts[*]} " == *" $1 "* ]]; }
table=$VMLAB_WORK/measurements.tsv
: >"$table"
part main || settings=()
for init_on_alloc in "${settings[@]}"; do
    pages=$(pool_pages "$init_on_alloc")
    sample_mib=$(sample_mib_for "$pages")
    predict_mib=$((sample_mib * 4 + 768))
    boot_mib=$((pages * 2 + 768))
    echo "init_on_alloc=$init_on_alloc: pool $pages x 2 MiB, samples of $sample_mib MiB; guests of $predict_mib MiB (prediction) and $boot_mib MiB (boots), $boots boots per T"
    for backing in prealloc lazy; do
        flag=()
        [[ $backing == prealloc ]] && flag=(--prealloc)
        name=predict-$init_on_alloc-$backing
        vm_boot "$name" run-predict "init_on_alloc=$init_on_alloc vmlab.pages=$pages vmlab.sample_mib=$sample_mib" --smp 2 \
            --mem "$predict_mib" "${flag[@]}" --timeout 900 || vmlab_fail "$name did not finish"
        vm_expect_rc "$name" run 0
        vm_section "$name" report >"$VMLAB_WORK/$name.json"
        for threads in 1 2; do
            for ((boot = 1; boot <= boots; boot++)); do
                name=boot-$init_on_alloc-$backing-$threads-$boot
                vm_boot "$name" boot-line "init_on_alloc=$init_on_alloc hugepages=$pages hugepage_alloc_threads=$threads" \
                    --smp 2 --mem "$boot_mib" "${flag[@]}" || vmlab_fail "$name did not finish"
                ms=$(vm_section "$name" kernel-log | sed -n 's/.*allocation took \([0-9]*\)ms with hugepage_allocation_threads=.*/\1/p')
                [[ -n "$ms" ]] || vmlab_fail "$name: no allocation line"
                printf '%s\t%s\t%s\t%s\n' "$init_on_alloc" "$backing" "$threads" "$ms" >>"$table"
            done
        done
    done
done

part main && python3 "$here/lib/accuracy_table.py" "$VMLAB_WORK" "$table" "${settings[@]}"

part whatif || exit 0

# --- the what-if rows against real boots ---------------------------------------------------------
whatif_pages=${WHATIF_PAGES:-2048}
whatif_boots=${WHATIF_BOOTS:-2}
# Repetitions of the predicting guest's sweep: the HVO row needs its pass's grow repetitions to
# stand above the sweep's in a rank test at 5%, which 3 against 3 reach only with no overlap.
whatif_repetitions=${WHATIF_REPETITIONS:-3}
read -r -a whatif_settings <<<"${WHATIF_SETTINGS:-1 0}"
read -r -a whatif_hvo <<<"${WHATIF_HVO:-off on}"
whatif_sample_mib=$(sample_mib_for "$whatif_pages")
whatif_predict_mib=$((whatif_sample_mib * 4 + 768))
whatif_boot_mib=$((whatif_pages * 2 + 768))
echo "what-if: pool $whatif_pages x 2 MiB, host memory preallocated, samples of $whatif_sample_mib MiB, $whatif_repetitions repetitions; init_on_alloc ${whatif_settings[*]}, hugetlb_free_vmemmap ${whatif_hvo[*]}, T = 1, 2, $whatif_boots boots each"
boots_tsv=$VMLAB_WORK/whatif-boots.tsv
: >"$boots_tsv"
for init_on_alloc in "${whatif_settings[@]}"; do
    name=whatif-predict-$init_on_alloc
    vm_boot "$name" run-predict "init_on_alloc=$init_on_alloc vmlab.pages=$whatif_pages vmlab.sample_mib=$whatif_sample_mib vmlab.repetitions=$whatif_repetitions" \
        --smp 2 --mem "$whatif_predict_mib" --prealloc --timeout 900 || vmlab_fail "$name did not finish"
    vm_expect_rc "$name" run 0
    vm_section "$name" report >"$VMLAB_WORK/$name.json"
done
for ((boot = 1; boot <= whatif_boots; boot++)); do
    for init_on_alloc in "${whatif_settings[@]}"; do
        for hvo in "${whatif_hvo[@]}"; do
            for threads in 1 2; do
                name=whatif-boot-$init_on_alloc-$hvo-$threads-$boot
                vm_boot "$name" boot-line "init_on_alloc=$init_on_alloc hugetlb_free_vmemmap=$hvo hugepages=$whatif_pages hugepage_alloc_threads=$threads" \
                    --smp 2 --mem "$whatif_boot_mib" --prealloc || vmlab_fail "$name did not finish"
                log=$(vm_section "$name" kernel-log)
                ms=$(sed -n 's/.*allocation took \([0-9]*\)ms with hugepage_allocation_threads=.*/\1/p' <<<"$log")
                [[ -n "$ms" ]] || vmlab_fail "$name: no allocation line"
                logged=$(sed -n 's/.*mem auto-init:.*heap alloc:\(on\|off\).*/\1/p' <<<"$log")
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$init_on_alloc" "$hvo" "$threads" "$boot" "$ms" \
                    "${logged:-none}" "$(vm_section "$name" hvo | head -1)" >>"$boots_tsv"
            done
        done
    done
done

"$here/whatif-table.sh" "$binary" "$VMLAB_WORK" "$whatif_pages" "$vmlab_kernel_release" "${whatif_settings[@]}" ||
    vmlab_fail "the what-if table could not be made"
