# Sourced by every guest scenario (busybox sh).

# run_section NAME COMMAND...: prints section NAME with the command's stdout, NAME.stderr with
# its stderr and NAME.rc with its exit status alone, for the host to judge each apart.
run_section() {
    name=$1
    shift
    echo "VMLAB-SECTION $name"
    "$@" 2>/tmp/section.stderr
    status=$?
    echo "VMLAB-SECTION $name.stderr"
    cat /tmp/section.stderr
    echo "VMLAB-SECTION $name.rc"
    echo "$status"
}

# cmdline_value NAME: the value of NAME=... on the kernel command line, empty when absent.
cmdline_value() {
    for word in $(cat /proc/cmdline); do
        case "$word" in
        "$1"=*) echo "${word#"$1"=}" ;;
        esac
    done
}

# wait_held POINT PID: waits, at most 60 s, until /root/hold (the file HUGETUNE_TEST_HOLD names;
# tuner/system/test_hold.hpp) says the binary PID is held at POINT, and prints the hold's first
# two words.
wait_held() {
    waited=0
    until grep -q "^held $1 $2\$" /root/hold || [ $waited -ge 6000 ]; do
        sleep 0.01
        waited=$((waited + 1))
    done
    echo "hold: $(cut -d' ' -f1,2 /root/hold)"
}
