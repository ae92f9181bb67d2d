# Sourced by every guest scenario (busybox sh).

# run_section NAME COMMAND...: prints section NAME with the command's output (stdout and
# stderr), then section NAME.rc with its exit status alone, for the host to judge.
run_section() {
    name=$1
    shift
    echo "VMLAB-SECTION $name"
    "$@" 2>&1
    status=$?
    echo "VMLAB-SECTION $name.rc"
    echo "$status"
}
