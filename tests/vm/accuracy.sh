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
echo "accuracy: $(date -u +%F), kernel $vmlab_kernel_release, $vmlab_accel_name, -smp 2, $boots boots per T"

table=$VMLAB_WORK/measurements.tsv
: >"$table"
for init_on_alloc in "${settings[@]}"; do
    pages=$(pool_pages "$init_on_alloc")
    sample_mib=$(sample_mib_for "$pages")
    predict_mib=$((sample_mib * 4 + 768))
    boot_mib=$((pages * 2 + 768))
    echo "init_on_alloc=$init_on_alloc: pool $pages x 2 MiB, samples of $sample_mib MiB; guests of $predict_mib MiB (prediction) and $boot_mib MiB (boots)"
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

python3 - "$VMLAB_WORK" "$table" "${settings[@]}" <<'PY'
import json, statistics, sys
work, table, settings = sys.argv[1], sys.argv[2], sys.argv[3:]
measured = {}
for line in open(table):
    ioa, backing, threads, ms = line.split()
    measured.setdefault((ioa, backing, int(threads)), []).append(int(ms))
print("| init_on_alloc | host memory | curve | T | predicted ms | measured ms (median; all) | predicted/measured | decision | predicted best | measured best |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for ioa in settings:
    for backing in ("prealloc", "lazy"):
        report = json.load(open(f"{work}/predict-{ioa}-{backing}.json"))
        predicted = {p["hugepage_alloc_threads"]: p["seconds"] * 1000 for p in report["fit"]["predictions"]}
        rec = report["recommendation"]
        recommended = f'{rec["decision"]} {rec["hugepage_alloc_threads"]}'
        predicted_best = rec["best_hugepage_alloc_threads"]
        curve = report["fit"]["model"]["curve"]
        medians = {t: statistics.median(v) for (i, b, t), v in measured.items() if i == ioa and b == backing}
        best = min(medians, key=medians.get)
        for t in sorted(medians):
            p = predicted.get(t)
            ratio = f"{p / medians[t]:.2f}" if p and medians[t] else "-"
            runs = ", ".join(str(x) for x in measured[(ioa, backing, t)])
            shown = f"{p:.0f}" if p is not None else "-"
            print(f"| {ioa} | {backing} | {curve} | {t} | {shown} | {medians[t]:.0f} ({runs}) | {ratio} | {recommended} | {predicted_best} | {best} |")
PY
