"""Loop devices as the benchmarks and tests make them."""

from __future__ import annotations

import os
import tempfile

from runners.exec import run
from runners.probes.loopdev import attach_loop, detach_loop


def test_direct_io_loop_reaches_the_file_with_o_direct():
    # /var/tmp: a disk-backed directory (tmpfs refused O_DIRECT before Linux 6.6).
    with tempfile.NamedTemporaryFile(dir="/var/tmp", prefix="podplan-loop-") as f:
        os.truncate(f.name, 16 << 20)
        dev = attach_loop(f.name, direct_io=True)
        try:
            assert run(["losetup", "-l", "-n", "-O", "DIO", dev]).stdout.strip() == "1"
        finally:
            detach_loop(dev)
        plain = attach_loop(f.name)
        try:
            assert run(["losetup", "-l", "-n", "-O", "DIO", plain]).stdout.strip() == "0"
        finally:
            detach_loop(plain)
