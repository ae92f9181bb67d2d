# Guest side, booted without a pool: `hugetune run` predicts the boot of vmlab.pages=<P> pages
# at each thread count from samples of vmlab.sample_mib=<MiB> per node, vmlab.repetitions=<R>
# (default 3) repetitions each; the report follows. A run past vmlab.limit_s=<s> (default 600)
# is interrupted, so a stall shows as a failure.
. /vmlab/scenarios/lib.sh
pages=$(cmdline_value vmlab.pages)
sample_mib=$(cmdline_value vmlab.sample_mib)
limit_s=$(cmdline_value vmlab.limit_s)
repetitions=$(cmdline_value vmlab.repetitions)
run_section run timeout -s INT "${limit_s:-600}" hugetune run --boot-pages "$pages" --threads 1,2,4 --repetitions "${repetitions:-3}" \
    --sample-mib "$sample_mib" --report /root/report.json
run_section report cat /root/report.json
