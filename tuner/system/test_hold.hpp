// A point where a test can hold the running binary, to kill it there and check what it leaves:
// `HUGETUNE_TEST_HOLD=FILE` with FILE naming the point. A kill aimed at a moment that lasts
// milliseconds (a grow repetition holds its pool raised that long) is a race; a hold is not.
//
// Honoured only when FILE is a regular file (not a symlink) owned by this process's effective
// user, writable by no one else, whose first line is the point's name: a variable alone, or a
// file someone else could write, never stops the binary. At the point the binary replaces the
// file's content with "held <point> <pid>" and sleeps (at most kHoldSeconds, then goes on as if
// never held) for the test to kill it, or to look at it and write "release" into the file, which
// lets it go on at once.
#pragma once

#include <string_view>

namespace hugetune {

inline constexpr const char* kTestHoldVariable = "HUGETUNE_TEST_HOLD";
inline constexpr int kHoldSeconds = 600;

// The grow phase has raised every node's pool and not yet lowered it.
inline constexpr std::string_view kHoldGrowRaised = "grow-raised";
// Every thread of an alloc (zero) repetition has faulted its pages; none is unmapped yet, so
// /proc/PID/numa_maps shows where each thread's pages came from.
inline constexpr std::string_view kHoldAllocFaulted = "alloc-faulted";
inline constexpr std::string_view kHoldZeroFaulted = "zero-faulted";

// A dry run of apply or rollback on the running machine has read and planned, and not yet
// looked again for the boot configuration's lock file (tuner/boot/boot_lock.hpp).
inline constexpr std::string_view kHoldDryRunRead = "dry-run-read";

// Holds here when the test asked for `point` (see above); returns at once otherwise.
void test_hold_point(std::string_view point);

}  // namespace hugetune
