"""The speed model of btrfs across raw disks: each profile's I/O per byte, one mirror per process,
the whole-stripe read before a partial raid5/6 write, crc32c checksums and btrfs's own readahead.

The I/O figures are held to the kernel's rules; the readahead window is witnessed on the host's own
kernel with loop devices, raid1, raid0 and raid10 streams on throttled disks in tests/test_lab_btrfs_speed.py."""

from __future__ import annotations

import glob
import os
from dataclasses import replace

import pytest

from planners.compute import compute
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.context import build_ctx
from planners.perf.predict import predict
from planners.perf.terms import simple_terms
from planners.perf.workloads import for_plan, preset
from runners.exec import run
from runners.probes.loopdev import mounted, sparse_loops
from tests.test_btrfs import tools  # noqa: F401  # the fixture: root, btrfs-progs and a kernel with btrfs

TB = 10**12


def btrfs(n: int, data: str, meta: str = "raid1", hw: Hardware | None = None) -> Plan:
    return Plan(
        name="b",
        disks=[DiskSet(count=n, size=4 * TB)],
        filesystem=Filesystem(type="btrfs", data_profile=data, metadata_profile=meta),
        hardware=hw,
    )


def one(p: Plan, name: str, **shape: int):  # type: ignore[no-untyped-def]
    w = preset(name).model_copy(update=shape)
    (pred,) = predict(p, workloads=[w])
    return pred


def term(pred, name: str) -> float:  # type: ignore[no-untyped-def]
    return next(t.mb_s for t in pred.terms if t.name == name)


@pytest.mark.parametrize("n, window", [(1, 4 << 20), (6, 4 << 20), (40, 40 * 128 << 10)])
def test_btrfs_reads_ahead_through_its_own_bdi(n, window):
    p = btrfs(n, "single", "dup" if n == 1 else "raid1")
    assert build_ctx(p, compute(p)).readahead == window


def test_btrfs_on_md_reads_ahead_4_mib_whatever_the_device_says():
    p = Plan(
        name="m",
        disks=[DiskSet(count=4, size=4 * TB)],
        groups=[MdGroup(level=0, members=4, chunk=64 << 10)],
        filesystem=Filesystem(type="btrfs"),
    )
    assert build_ctx(p, compute(p)).readahead == 4 << 20


def test_one_reader_of_a_two_disk_raid1_reads_one_disk():
    p = btrfs(2, "raid1")
    alone, pair = (one(p, "rand-read-4k", numjobs=j) for j in (1, 2))
    assert term(pair, "disks") == pytest.approx(2 * term(alone, "disks"))
    assert "pid % 2" in next(t.note for t in alone.terms if t.name == "disks")
    seq1, seq2 = (one(p, "seq-read", numjobs=j) for j in (1, 2))
    assert term(seq2, "disks") == pytest.approx(2 * term(seq1, "disks"))


def test_raid1_over_more_disks_than_copies_spreads_random_reads_but_streams_one_chunk():
    p = btrfs(6, "raid1")
    note = next(t.note for t in one(p, "rand-read-4k").terms if t.name == "disks")
    assert note.startswith("6 disks at") and "1 disk reads per request" in note
    # a stream writes one chunk at a time: its two devices, one disk's worth of speed
    seq = one(p, "seq-write")
    assert term(seq, "disks") == pytest.approx(term(one(btrfs(2, "raid1"), "seq-write"), "disks"))


def test_raid10_reader_uses_one_mirror_of_each_pair():
    p = btrfs(6, "raid10")
    single = one(p, "seq-read")
    raid0 = one(btrfs(3, "raid0"), "seq-read")
    assert term(single, "disks") == pytest.approx(term(raid0, "disks"))


def test_raid10_over_an_odd_count_streams_on_the_pairs_of_a_chunk():
    # mkfs.btrfs and the kernel take raid10's devices in pairs: 5 devices give chunks of 4, as 4 do.
    for workload in ("seq-read", "seq-write"):
        five, four = (term(one(btrfs(n, "raid10"), workload), "disks") for n in (5, 4))
        assert five == pytest.approx(four)
    # random reads meet every chunk's pair: one reader of 3 devices reads about one and a half devices' worth,
    # of 2 one device's worth (the disks' queues, shallower over more devices, move the ratio a little)
    three, two = (term(one(btrfs(n, "raid10"), "rand-read-4k"), "disks") for n in (3, 2))
    assert 1.4 * two < three < 1.8 * two


def test_raid0_writes_every_disk_and_raid1c3_writes_three_copies():
    # One request at a time, so no disk sorts a queue and only the I/Os per request differ.
    r0, c3 = (term(one(btrfs(6, d), "rand-write-4k", iodepth=1), "disks") for d in ("raid0", "raid1c3"))
    assert r0 == pytest.approx(3 * c3)


def test_a_partial_raid5_write_reads_the_whole_stripe_first():
    p = btrfs(8, "raid5")
    w = for_plan(preset("rand-write-4k"), 7 * 64 << 10, disks=8)
    b = one(p, "rand-write-4k")
    # The same array as md would write it: read-modify-write, 2 reads + 2 writes; btrfs: 8 reads + 2 writes.
    as_md = simple_terms(replace(build_ctx(p, compute(p)), btrfs=None), w, 0)
    assert term(b, "disks") == pytest.approx(as_md["disks"].mb_s * 4 / 10)
    assert "read-modify-write" in as_md["disks"].note
    assert "whole stripe" in next(t.note for t in b.terms if t.name == "disks")
    assert all(t.name != "md thread" for t in b.terms)


def test_checksums_bind_on_a_slow_cpu():
    hw = Hardware.model_validate({"cpu": {"crc32c_mb_s": 50, "cores": 2}, "disk": {"disk_class": "nvme"}})
    pred = one(btrfs(4, "raid0", hw=hw), "seq-read")
    assert pred.binding == "checksums"
    assert pred.mb_s == pytest.approx(50 * 2)  # two workers on two cores


def test_parity_cpu_runs_in_btrfs_workers():
    hw = Hardware.model_validate({"cpu": {"xor_mb_s": 100, "cores": 4}})
    pred = one(btrfs(6, "raid5", hw=hw), "seq-write")
    assert term(pred, "parity CPU") == pytest.approx(100 * 4)


def test_a_finding_says_btrfs_reads_ahead_by_its_own_window():
    p = btrfs(6, "raid10")
    (f,) = [f for f in compute(p).findings if "reads files ahead" in f.message]
    assert "4096 KiB" in f.message and "btrfs-N/read_ahead_kb" in f.message
    md = Plan(name="x", disks=[DiskSet(count=4, size=4 * TB)], groups=[MdGroup(level=6, members=4)])
    assert not any("reads files ahead" in f.message for f in compute(md).findings)


@pytest.mark.parametrize("n", [1, 33])
def test_btrfs_readahead_is_what_the_kernel_sets_on_its_bdi(tools, n):  # noqa: F811
    """Witness on the host's kernel: the window of a mounted btrfs's own bdi, whatever the device's
    (`tools`: the capacity witness's skips, no root, no btrfs-progs or no btrfs in the kernel)."""
    with sparse_loops([1 << 30] * n) as devs:
        run(["blockdev", "--setra", "32768", *devs])  # 16 MiB on each device: btrfs does not take it
        run(["mkfs.btrfs", "-q", "-f", "-d", "single", "-m", "dup" if n == 1 else "raid1", *devs])
        uuid = run(["blkid", "-s", "UUID", "-o", "value", devs[0]]).stdout.strip()
        with mounted(devs[0]):
            (bdi,) = glob.glob(f"/sys/fs/btrfs/{uuid}/bdi")
            assert os.path.basename(os.path.realpath(bdi)).startswith("btrfs-")
            with open(os.path.join(bdi, "read_ahead_kb")) as f:
                kb = int(f.read())
    p = btrfs(n, "single", "dup" if n == 1 else "raid1")
    assert kb * 1024 == build_ctx(p, compute(p)).readahead


def test_one_reader_of_a_btrfs_raid1_reads_one_device(tools):  # noqa: F811
    """Witness on the host's kernel of what the model assumes: the read policy is pid, and one process
    reading a file of a two-device raid1 (direct, so nothing comes from the page cache) reads it all from
    one device, copy pid % 2."""
    import mmap

    def sectors_read(dev: str) -> int:
        with open(f"/sys/block/{os.path.basename(os.path.realpath(dev))}/stat") as f:
            return int(f.read().split()[2])

    size = 64 << 20
    with sparse_loops([1 << 30] * 2) as devs:
        run(["mkfs.btrfs", "-q", "-f", "-d", "raid1", "-m", "raid1", *devs])
        uuid = run(["blkid", "-s", "UUID", "-o", "value", devs[0]]).stdout.strip()
        with mounted(devs[0]) as mnt:
            with open(f"/sys/fs/btrfs/{uuid}/read_policy") as f:
                assert "[pid]" in f.read().split()
            path = os.path.join(mnt, "f")
            with open(path, "wb") as f:
                f.write(os.urandom(size))
                os.fsync(f.fileno())
            before = [sectors_read(d) for d in devs]
            buf = mmap.mmap(-1, 1 << 20)
            fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
            try:
                offset = 0
                while n := os.preadv(fd, [buf], offset):
                    offset += n
            finally:
                os.close(fd)
            moved = [(sectors_read(d) - b) * 512 for d, b in zip(devs, before, strict=True)]
    mirror = os.getpid() % 2
    # (A few pages may still come from the page cache the write left.)
    assert moved[mirror] >= size * 0.9 and moved[1 - mirror] < size // 16, moved
