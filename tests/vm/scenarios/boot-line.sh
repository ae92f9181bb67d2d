# Guest side: the kernel's allocation line of this boot, with what the boot says it ran with:
# its "mem auto-init" line (init_on_alloc) and its HVO sysctl (section "hvo": 0, 1, or "none"
# where the kernel has no /proc/sys/vm/hugetlb_optimize_vmemmap).
. /vmlab/scenarios/lib.sh
run_section kernel-log sh -c 'dmesg | grep -e "allocation took" -e "mem auto-init"'
run_section hvo sh -c 'cat /proc/sys/vm/hugetlb_optimize_vmemmap 2>/dev/null || echo none'
