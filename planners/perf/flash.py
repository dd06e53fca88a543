"""Flash drives beyond their datasheet's 4 KiB figures.

A datasheet rates random I/O with 4 KiB requests: its IOPS and its access latency are for that
size. A larger request also moves the rest of its bytes over the drive's channels and link at
the drive's sequential rate, so it holds a slot that much longer, and by Little's law the drive
then needs rate x time requests in flight to run at its (bandwidth-capped) rate, not the 4 KiB
rating x latency: a 28 KiB read on an Intel P4510 (3,000 MB/s, 636,500 IOPS, 85 us) runs at
most 104,600 a second and needs about 10 in flight, not 54.
"""

from __future__ import annotations

from planners.hardware.disks import ResolvedDisk

# The request size the datasheets' random figures are given for (Intel, Samsung, Solidigm product
# briefs: "4KB random read/write").
RATED_BS = 4096


def beyond_rated_s(disk: ResolvedDisk, bs: int, write: bool) -> float:
    """Seconds a request of `bs` bytes spends moving what it carries beyond the rated 4 KiB, at the
    drive's sequential rate (0 for a request no larger than the rated one)."""
    if bs <= RATED_BS:
        return 0.0
    rate = disk.seq_outer_mb_s * 1e6 * (disk.seq_write_factor if write else 1.0) / disk.data_disks
    return (bs - RATED_BS) / rate
