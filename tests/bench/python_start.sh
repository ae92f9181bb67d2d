#!/usr/bin/env bash
# The start of the first python3 on PATH (here a version manager's shim) against Debian's
# /usr/bin/python3, which the tests use (tests/debian-python/README.md).
# 20 starts of each interpreter, alternating, as the tests start it (python3 -S -c ...).
shim=$(PATH=${PATH#*tests/debian-python:} command -v python3)
echo "first python3 on PATH without tests/debian-python: $shim"
echo "uptime: $(uptime)"
for who in "$shim" /usr/bin/python3; do echo "$who: $("$who" -S -c 'import sys; print(sys.version.split()[0], sys.executable)')"; done
a=0 b=0
for i in $(seq 20); do
  t=$EPOCHREALTIME; "$shim" -S -c 'import json' ; a=$(python3 -c "print($a + $EPOCHREALTIME - $t)")
  t=$EPOCHREALTIME; /usr/bin/python3 -S -c 'import json' ; b=$(/usr/bin/python3 -c "print($b + $EPOCHREALTIME - $t)")
done
/usr/bin/python3 -c "print('shim: %.3f s a start; /usr/bin/python3: %.3f s a start; ratio %.1f' % ($a/20, $b/20, $a/$b))"
