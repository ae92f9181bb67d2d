# What `hugetune verify` reads besides a saved kernel log, for the scripts that verify the
# fixture logs (tests/fixtures/boot/logs). A script sources it after lib/harness.bash.
# shellcheck shell=bash

# verify_root DIR: the /proc of a machine other than the one that wrote the logs, under DIR
# (for --root): its release and boot id. A saved log goes with its own command line, never
# this one's.
verify_root() {
    mkdir -p "$1/proc/sys/kernel/random"
    echo "6.1.0-this-machine" >"$1/proc/sys/kernel/osrelease"
    echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60" >"$1/proc/sys/kernel/random/boot_id"
}

# write_verify_report FILE THREADS PREDICTED_SECONDS POOL_PAGES PAGE_SIZE_KB INIT_ON_ALLOC CPUS:
# the least report verify reads: the kernel it was made on, the recommendation and the pool it
# predicts for.
write_verify_report() {
    cat >"$1" <<JSON
{"schema_version": 1,
 "kernel": {"release": "6.15.0-hugetune", "init_on_alloc": $6, "online_cpus": $7},
 "recommendation": {"hugepage_alloc_threads": $2, "kernel_cmdline": "hugepage_alloc_threads=$2",
                    "predicted_seconds": $3},
 "boot_pool": {"pages": $4, "page_size_kb": $5, "source": "cmdline"}}
JSON
}
