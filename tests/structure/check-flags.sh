#!/usr/bin/env bash
# Engine code names no flag: only the command line knows which flag sets a setting
# (cli/setting_flags.cpp). model/, reports/, fleet_db/ and tuner/ name the setting instead: a
# SettingError, a Flag in an error's message, or the caller's SettingWords in other text
# (model/errors.hpp). Prints each string literal of their code (comments are not code) that
# holds a `--flag`; exits 1 if any.
set -uo pipefail
root=${1:-$(dirname "$0")/../..}
cd "$root" || exit 2

# Arguments of other programs that hugetune runs or tells the user to run, as a whole literal
# ("--no-block"), or right after the program's name and a subcommand ("rpm-ostree kargs --editor").
programs='systemctl|journalctl|kexec|grubby|grub2-mkconfig|rpm-ostree'
arguments='--no-block|--no-pager|--root=|--initrd=|--append=|--replace=|--delete=|--update-kernel=|--args=|--remove-args=|--update-bls-cmdline'

# "FILE: LITERAL" of the engine's code not yet worded by the command line, each with why.
known=()

files=$(git ls-files --cached --others --exclude-standard 'model/*.[ch]pp' 'reports/*.[ch]pp' \
    'fleet_db/*.[ch]pp' 'tuner/*.[ch]pp' 2>/dev/null ||
    find model reports fleet_db tuner -name '*.[ch]pp')

bad=0
while IFS=$'\t' read -r file line literal; do
    for k in "${known[@]}"; do
        [[ "$file: $literal" == "$k" ]] && continue 2
    done
    echo "$file:$line: $literal names a flag; put a Flag in the message (model/errors.hpp), or word it with the caller's SettingWords"
    bad=1
done < <(
    # Every string literal outside comments that holds --x, as FILE, LINE and "literal".
    # shellcheck disable=SC2086
    perl -0777 -ne '
        my $file = $ARGV;
        while (/\G(?:(R"([^(]*)\(.*?\)\2")|("(?:[^"\\\n]|\\.)*")|(\x27(?:[^\x27\\\n]|\\.)*\x27)|(\/\/[^\n]*)|(\/\*.*?\*\/)|([^"\x27\/R]+|.))/gs) {
            my ($lit, $at) = ($1 // $3, $-[0]);
            next unless defined $lit;
            next unless $lit =~ /--[a-z]/;
            next if $lit =~ /^"(?:'"$arguments"')"$/;
            (my $rest = $lit) =~ s/\b(?:'"$programs"')(?: [a-z]+)? --[a-z]//g;
            next unless $rest =~ /--[a-z]/;
            my $line = 1 + (substr($_, 0, $at) =~ tr/\n//);
            print "$file\t$line\t$lit\n";
        }' $files
)
[[ $bad == 0 ]] && echo "flags: no engine code names a flag; the command line words them"
exit $bad
