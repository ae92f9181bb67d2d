#!/usr/bin/env bash
# `make deps` (scripts/install-deps): nothing to do when every package is there; not root and
# something missing -> one line naming the packages and the command to install them, exit 1.
source "$(dirname "$0")/lib/harness.bash"
deps=$src/scripts/install-deps

expect 0 "$deps" dpkg coreutils
stderr_empty

require_root "to run the check as another user"
require_command setpriv "to run the check as another user"
copy=$(nobody_copy "$deps")
expect 1 as_nobody "$copy" dpkg hugetune-no-such-package
one_error_line
stderr_matches '^hugetune: error: missing Debian packages: hugetune-no-such-package; install them as root with: apt-get install hugetune-no-such-package$'
echo "deps: ok"
