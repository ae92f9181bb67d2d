#!/usr/bin/env python3
"""A large kernel log in dmesg form, for verify's stream reader (tests/cli/verify_large_log.sh,
tests/bench/verify_log.sh): BOOTS boots (default 3), the last of release 6.15.7, each with its
command line, init_on_alloc, an allocation line of 706 ms at 32 threads among its first
messages and at least 150,000 messages of chatter (past what verify keeps of a boot), filled to
MEGABYTES (10^6 bytes) in all. With --late the last boot's allocation line comes after its
first 150,000 messages instead.

    usage: gen-kernel-log.py OUT MEGABYTES [--late] [--boots N]
"""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("megabytes", type=int)
parser.add_argument("--late", action="store_true")
parser.add_argument("--boots", type=int, default=3)
args = parser.parse_args()

ALLOC = "HugeTLB: allocation took 706ms with hugepage_allocation_threads=32"
CHATTER = 150000  # messages of chatter at least, in each boot
releases = ["6.12.%d" % b for b in range(args.boots - 1)] + ["6.15.7"]
target = args.megabytes * 1000 * 1000
written = 0
with open(args.out, "w") as out:
    for b, release in enumerate(releases):
        last = b == len(releases) - 1
        head = ["Linux version %s (builder@example) #1 SMP" % release,
                "Command line: root=/dev/sda1 hugepagesz=2M hugepages=524288 "
                "hugepage_alloc_threads=32",
                "mem auto-init: stack:all(zero), heap alloc:on, heap free:off"]
        if not (last and args.late):
            head.append(ALLOC)
        text = "".join("[    0.000000] %s\n" % line for line in head)
        out.write(text)
        written += len(text)
        share = (target - written) // (len(releases) - b)
        i, chunk = 0, []
        while i < CHATTER or share > 0:
            # The time since boot grows within a boot, as the kernel's does: a step back is a
            # later boot to verify's reader.
            stamp = "[%5d.%06d]" % (12 + i // 1000000, i % 1000000)
            line = "%s usb 3-1: chatter %d of boot %d, to fill the log\n" % (stamp, i, b)
            chunk.append(line)
            share -= len(line)
            written += len(line)
            i += 1
            if last and args.late and i == CHATTER:
                chunk.append("%s %s\n" % (stamp, ALLOC))
            if len(chunk) >= 10000:
                out.write("".join(chunk))
                chunk = []
        out.write("".join(chunk))
