"""Flash drives beyond their datasheet's 4 KiB figures.

A datasheet rates random I/O with 4 KiB requests: its IOPS and its access latency are for that
size. A larger request also moves the rest of its bytes over the drive's channels and link at
the drive's sequential rate, so it holds a slot that much longer, and by Little's law the drive
then needs rate x time requests in flight to run at its (bandwidth-capped) rate, not the 4 KiB
rating x latency: a 28 KiB read on an Intel P4510 (3,000 MB/s, 636,500 IOPS, 85 us) runs at
most 104,600 a second and needs about 10 in flight, not 54.

A random write's bytes have a ceiling of their own. A datasheet's random write figure is the
drive's steady state over its full span: every write the host makes costs the NAND that write
plus the valid pages garbage collection moves to free its block, and for requests far smaller
than an erase block (several MiB) that ratio depends on the drive's spare area and the share of
it the host keeps valid, not on the request size. The NAND's program bandwidth being fixed,
random writes of any size move about rated IOPS x 4 KiB of host bytes a second: a Micron 5100
MAX rated 74,000 4 KiB writes holds ~37,000 at 8 KiB, not its sequential 520 MB/s / 8 KiB
(63,500). A sequential write frees whole blocks (nothing to move) and keeps its own figure.
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


def flash_bytes_s(disk: ResolvedDisk, rate: float, write: bool) -> float:
    """Bytes a second a flash drive's random requests move at most: its sequential `rate`, and for
    a plain drive's random writes its steady state's rated 4 KiB IOPS x 4 KiB (a LUN's controller
    and a measured drive keep their own figures)."""
    if not write or disk.lun is not None or disk.measured:
        return rate
    return min(rate, disk.rand_write_iops * RATED_BS)
