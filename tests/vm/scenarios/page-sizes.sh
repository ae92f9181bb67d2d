# Guest side: the kernel allocated boot pools of two sizes named on its command line (arm64:
# hugepagesz=64K and hugepagesz=2M); its log lines, verify without a report and with a report for
# each pool (the host laid them at /vmlab/input/report-<size kB>.json), and probe. The host pairs
# nothing itself: it judges what verify says against the log.
. /vmlab/scenarios/lib.sh
run_section cmdline cat /proc/cmdline
run_section kernel-log sh -c 'dmesg | grep -e "HugeTLB: allocation took" -e "HugeTLB: registered"'
run_section verify hugetune verify --json
run_section verify-64k hugetune verify --report /vmlab/input/report-64.json --json
run_section verify-2m hugetune verify --report /vmlab/input/report-2048.json --json
run_section probe hugetune probe --json
