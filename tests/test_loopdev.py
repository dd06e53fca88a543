"""Loop devices as the benchmarks and tests make them."""

from __future__ import annotations

import os
import tempfile

from runners.exec import run
from runners.probes.loopdev import attach_loop, backing_file, detach_loop


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


def test_a_loop_device_is_detached_only_while_it_reads_the_file_it_was_given(tmp_path):
    """A test that detached its device early (while fio held it) must not, at its cleanup, detach the
    same number once another run's file is on it."""
    mine, other = tmp_path / "mine", tmp_path / "other"
    for f in (mine, other):
        f.write_bytes(b"")
        os.truncate(f, 1 << 20)
    dev = attach_loop(str(mine))
    try:
        assert backing_file(dev) == os.path.realpath(mine)
        detach_loop(dev, backing=str(other))  # not its file: left alone
        assert backing_file(dev) == os.path.realpath(mine)
        detach_loop(dev, backing=str(mine))
        assert backing_file(dev) == ""
    finally:
        detach_loop(dev, backing=str(mine))
