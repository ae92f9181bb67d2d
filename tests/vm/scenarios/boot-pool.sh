# Guest side: the kernel allocated the boot pool named on its command line; hugetune reads the
# kernel's allocation line from the real /dev/kmsg and the topology from the real machine.
. /vmlab/scenarios/lib.sh
run_section cmdline cat /proc/cmdline
run_section meminfo grep -i huge /proc/meminfo
run_section kernel-log sh -c 'dmesg | grep -i -e hugetlb -e "allocation took"'
run_section verify hugetune verify --json
run_section probe hugetune probe --json
