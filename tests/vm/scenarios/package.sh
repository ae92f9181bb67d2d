# Guest side: the packaged binary (the host laid the package's files, dpkg-deb -x, over the
# guest's root): which binary runs, its version, a probe, and the package's other files.
. /vmlab/scenarios/lib.sh
run_section binary sh -c 'command -v hugetune && sha256sum /usr/bin/hugetune | cut -d" " -f1'
run_section version hugetune --version
run_section probe hugetune probe --json
run_section files ls /usr/share/man/man8/hugetune.8.gz /usr/share/bash-completion/completions/hugetune \
    /usr/share/hugetune/schema/report.schema.json
