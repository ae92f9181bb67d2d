# Guest side of the fleet_boots case: one host of a fleet at boot. Loads the network card's
# modules the host laid at /vmlab/input/ (virtio_net needs net_failover, which needs failover),
# takes the host name vmlab.hostname= gives, sets eth0 on QEMU's user network (10.0.2.15/24, the
# host at 10.0.2.2), and records this boot into the fleet database as the verify unit would:
# `hugetune verify --fleet-db URL`, the URL from /vmlab/input/fleet-db (no password in it), the
# password from the libpq password file /vmlab/input/pgpass; the record it sent is kept in
# /root/boot-record.json (--boot-record) for the host to compare with the stored row. With
# vmlab.probe=1 also `probe --json`, whose cpu and topology blocks the host's sweep reports take.
. /vmlab/scenarios/lib.sh
run_section modules sh -c 'for m in failover net_failover virtio_net; do
    insmod "/vmlab/input/$m.ko" || exit 1
done'
run_section hostname sh -c 'hostname "$1" && hostname' sh "$(cmdline_value vmlab.hostname)"
run_section network sh -c 'ip link set lo up && ip link set eth0 up &&
    ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2 && ip -4 addr show eth0'
run_section kernel-log sh -c 'dmesg | grep -e "allocation took"'
export PGPASSFILE=/vmlab/input/pgpass
# Under QEMU's icount (tests/vm/lib/vm.bash vmlab_icount_args) the clock leaps over spans when
# every CPU is idle, so while verify waited for the server's answer its connect timeout would
# pass at once; a CPU kept busy keeps the clock counting instructions.
sh -c 'while :; do :; done' &
busy=$!
run_section verify hugetune verify --fleet-db "$(cat /vmlab/input/fleet-db)" \
    --boot-record /root/boot-record.json
kill "$busy"
run_section boot-record cat /root/boot-record.json
run_section spool sh -c 'ls /var/lib/hugetune/boot-records 2>/dev/null; true'
[ "$(cmdline_value vmlab.probe)" = 1 ] && run_section probe hugetune probe --json
true
