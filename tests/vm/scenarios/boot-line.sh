# Guest side: only the kernel's allocation line of this boot.
. /vmlab/scenarios/lib.sh
run_section kernel-log sh -c 'dmesg | grep -e "allocation took"'
