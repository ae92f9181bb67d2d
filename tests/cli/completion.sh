#!/usr/bin/env bash
# The bash completion the build generated (build/completion/hugetune) against the binary:
# commands and subcommands as `--help` lists them, each one's options exactly as its --help
# has them, the values of options with choices, and files by extension. Runs the completion
# function itself in this shell, as bash would after a TAB.
source "$(dirname "$0")/lib/harness.bash"
script=$(dirname "$bin")/completion/hugetune
[[ -f $script ]] || fail "no completion script at $script: the build generates it (target generated_docs)"
bash -n "$script" || fail "$script is not valid bash"
# shellcheck source=/dev/null
source "$script"
complete -p hugetune >/dev/null || fail "$script registers no completion for hugetune"

# offered WORDS...: what TAB offers after the words (the last one is being completed), sorted.
offered() {
    COMP_WORDS=(hugetune "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _hugetune
    ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' '
}
sorted() { printf '%s\n' "$@" | sort -u | tr '\n' ' '; }
# Names of a "Heading:" list in a help text.
listed() { sed -n "/^$1/,/^\$/p" | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p'; }
# Long options of a --help text.
help_options() { sed -n 's/^  \(-h \[ \)\{0,1\}--\([a-z][a-z0-9-]*\).*/--\2/p'; }

check() {  # check WHAT GOT WANT
    [[ $2 == "$3" ]] || fail "$1: offered '$2', expected '$3'"
}

mapfile -t commands < <("$bin" --help | listed Commands)
((${#commands[@]} > 0)) || fail "hugetune --help lists no commands"
check "commands" "$(offered "")" "$(sorted "${commands[@]}" --help --version)"
check "commands starting with r" "$(offered r)" "$(sorted $(printf '%s\n' "${commands[@]}" | grep '^r'))"

for c in "${commands[@]}"; do
    mapfile -t subs < <("$bin" "$c" --help | listed Subcommands)
    if ((${#subs[@]} == 0)); then
        check "$c options" "$(offered "$c" --)" "$(sorted $("$bin" "$c" --help | help_options))"
        continue
    fi
    check "$c subcommands" "$(offered "$c" "")" "$(sorted "${subs[@]}" --help)"
    for s in "${subs[@]}"; do
        check "$c $s options" "$(offered "$c" "$s" --)" "$(sorted $("$bin" "$c" "$s" --help | help_options))"
    done
done

# Values: choices from the option's definition, files by extension, directories, nothing to
# offer for a number.
check "apply --bootloader" "$(offered apply --bootloader "")" "auto grub grubby kernel-cmdline "
# Page sizes: those this kernel lists, written as the kernel writes them.
sizes=()
for dir in /sys/kernel/mm/hugepages/hugepages-*kB; do
    [[ -d $dir ]] || continue
    kb=${dir##*/hugepages-}
    kb=${kb%kB}
    if ((kb % 1048576 == 0)); then sizes+=("$((kb / 1048576))G")
    elif ((kb % 1024 == 0)); then sizes+=("$((kb / 1024))M")
    else sizes+=("${kb}K"); fi
done
if ((${#sizes[@]} > 0)); then
    check "sweep --page-size" "$(offered sweep --page-size "")" "$(sorted "${sizes[@]}")"
    check "boot-sweep plan --page-size" "$(offered boot-sweep plan --page-size "")" "$(sorted "${sizes[@]}")"
fi
check "boot-sweep start --finish" "$(offered boot-sweep start --finish "")" "kexec reboot "
check "run --threads" "$(offered run --threads "")" ""
mkdir -p "$work/files/dir"
touch "$work/files/a.json" "$work/files/b.csv" "$work/files/c.svg" "$work/files/d.txt"
cd "$work/files"
check "run --report" "$(offered run --report "")" "a.json dir "
check "fit --input" "$(offered fit --input "")" "a.json b.csv dir "
check "run --plot" "$(offered run --plot "")" "c.svg dir "
check "verify --log (any file)" "$(offered verify --log "")" "a.json b.csv c.svg d.txt dir "
check "probe --root" "$(offered probe --root "")" "dir "
check "after a value, the options again" "$(offered apply --value 4 --dry)" "--dry-run "

# Every option the completion knows the file types of is an option of some command.
all_options=$(for c in "${commands[@]}"; do "$bin" "$c" --help; for s in $("$bin" "$c" --help | listed Subcommands); do "$bin" "$c" "$s" --help; done; done | help_options | sort -u)
names=$(sed -n '/kFileExtensions = {/,/};/p' "$src/cli/help_formats.cpp" | grep -o '{"[a-z-]*"' | tr -d '{"')
[[ -n $names ]] || fail "found no file extension table in cli/help_formats.cpp"
for n in $names; do
    grep -qx -- "--$n" <<<"$all_options" || fail "the completion's file table names --$n, which no command takes"
done
echo "completion: commands, subcommands, options and values agree with --help"
