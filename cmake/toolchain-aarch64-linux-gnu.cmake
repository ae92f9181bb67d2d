# Cross build for arm64 (aarch64) on a Debian 12 host, from Debian's packages only: the
# compilers of crossbuild-essential-arm64 and the libraries' -dev:arm64 packages installed
# beside the host's through multiarch (README "arm64"; `make cross-arm64` installs them).
# Programs the build runs itself (the man pages and completion come from `hugetune --help`)
# and the unit tests run under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Debian's multiarch layout: arm64 libraries in /usr/lib/aarch64-linux-gnu, headers shared in
# /usr/include (and arch-specific ones in /usr/include/aarch64-linux-gnu), which the cross
# compiler searches by itself. CMake looks in the same library directories once it knows the
# architecture; the host's /usr/lib/x86_64-linux-gnu is never searched.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# pkg-config (hwloc) reads the arm64 .pc files, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# libpq-dev:arm64 cannot be installed beside the host's libpq-dev (they share files that
# differ), so the arm64 build links libpq5:arm64's library and uses the host's headers, which
# are the same for both architectures.
set(PostgreSQL_LIBRARY /usr/lib/aarch64-linux-gnu/libpq.so.5 CACHE FILEPATH "arm64 libpq")
set(PostgreSQL_INCLUDE_DIR /usr/include/postgresql CACHE PATH "libpq headers")

# The emulator loads arm64 programs as an arm64 Debian system would: its loader
# /lib/ld-linux-aarch64.so.1 and every library from the multiarch tree (`-L /`). The cross
# toolchain's own runtime in /usr/aarch64-linux-gnu must not be mixed in: its loader is another
# glibc build than libc6:arm64's, and that pair hangs in pthread_create and fork (the two share
# private structures such as the thread stack cache), so every threaded test hung there.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /)
