# Guest side: verify --report against the real /dev/kmsg, with the report the host laid at
# /vmlab/input/report.json and the ledger apply wrote (/var/lib/hugetune/applied.json), if any;
# then the report as verify rewrote it.
. /vmlab/scenarios/lib.sh
run_section cmdline cat /proc/cmdline
run_section kernel-log sh -c 'dmesg | grep -e "allocation took"'
run_section verify hugetune verify --report /vmlab/input/report.json --json
run_section report cat /vmlab/input/report.json
