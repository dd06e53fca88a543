"""What a fresh btrfs holds before ENOSPC: the kernel's chunk allocator run on from mkfs's chunks to its end.

statvfs's available on btrfs is the kernel's estimate (btrfs_calc_avail_data_space), which over mixed sizes
under a mirrored profile is far below what fits: RAID1 over 10+20+30 GiB shows 20.4 GB available and
stores 31.1 GB. What fits is what the allocator gives data chunks while a fill goes on, read from
fs/btrfs/volumes.c (Linux 6.x, btrfs_create_chunk):

- gather_device_info: each writable device offers its largest free hole (find_free_dev_extent, from the
  first MiB on), capped at the profile's largest stripe (1 GiB for data) times its stripes per device
  (DUP: 2), and is skipped if that is under one 64 KiB stripe each; the devices are then sorted by that
  offer, then by all their free bytes, the largest first.
- decide_stripe_size_regular: the device count is cut to the profile's multiple (RAID10: 2) and maximum
  (RAID1: 2, RAID1C3: 3...), below its minimum the allocation fails (ENOSPC); the stripe is the smallest
  offer among the devices taken, cut where the chunk's data would pass the largest chunk (a tenth of the
  devices' bytes, at most 10 GiB for data) to that over the data stripes rounded up to 16 MiB, at most
  1 GiB, in whole 64 KiB.

The fill modelled is the one the tests make: files reserved with fallocate, 1 GiB each until ENOSPC, then
halving down to 1 MiB. fallocate writes no data, so no checksums, and its extents (up to 256 MiB each)
take a few hundred bytes of metadata each, well inside the metadata chunk mkfs made (the global reserve,
5.5 MiB of it, included): no metadata chunk is added, and the fill stores every data chunk's bytes but
the last partial MiB. Writing the data instead puts a 4-byte checksum per 4 KiB sector in metadata, in
the metadata profile's copies: about 0.1-0.2 % less.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from planners.fs.btrfs import PROFILES, RESERVED, STRIPE_LEN, BtrfsLayout

MiB = 1 << 20
GiB = 1 << 30
MAX_DATA_CHUNK = 10 * GiB  # BTRFS_MAX_DATA_CHUNK_SIZE: space_info's chunk_size for data
MAX_STRIPE = 1 * GiB  # min(chunk_size, SZ_1G): init_alloc_chunk_ctl_policy_regular's max_stripe_size
STRIPE_ROUND = 16 * MiB  # decide_stripe_size_regular rounds a cut stripe up to this
MAX_DEVS = 255  # BTRFS_MAX_DEVS bound for the striped profiles (devs_max 0): far above any plan here

Holes = list[list[tuple[int, int]]]  # free (start, end) per device, in address order


class BtrfsFill(NamedTuple):
    """A btrfs as a fill to ENOSPC leaves it."""

    fits_bytes: int  # logical bytes of every data chunk: what the files can hold
    data_raw_bytes: int  # device bytes those chunks take, every copy and parity stripe
    parity_bytes: int  # device bytes of the data chunks' parity stripes
    copies_bytes: int  # device bytes of the data chunks' extra copies (mirrors, DUP)
    unallocated: tuple[int, ...]  # per device, bytes no chunk holds (the first MiB included, as `btrfs fi show`)
    chunks: int  # data chunks the fill added


def holes_after_mkfs(layout: BtrfsLayout) -> Holes:
    """Each device's free holes after mkfs: all but the first MiB and the chunks mkfs left."""
    holes: Holes = []
    for dev, size in enumerate(layout.device_bytes):
        taken = sorted((start, start + length) for _, _, _, st in layout.chunks for d, start, length in st if d == dev)
        free, at = [], RESERVED
        for start, end in taken:
            if start > at:
                free.append((at, start))
            at = max(at, end)
        if size > at:
            free.append((at, size))
        holes.append(free)
    return holes


def _offer(holes: list[tuple[int, int]], want: int) -> tuple[int, int, int]:
    """find_free_dev_extent: (start, bytes offered, hole bytes) of the first hole holding `want`, else of the
    largest hole."""
    best = (0, 0, 0)
    for start, end in holes:
        if end - start >= want:
            return start, want, end - start
        if end - start > best[1]:
            best = (start, end - start, end - start)
    return best


def _cut(holes: list[tuple[int, int]], start: int, length: int) -> None:
    k = next(j for j, (s, e) in enumerate(holes) if s <= start < e)
    s, e = holes[k]
    holes[k : k + 1] = [h for h in ((s, start), (start + length, e)) if h[1] > h[0]]


def next_data_chunk(holes: Holes, profile: str, total: int) -> tuple[int, int, list[tuple[int, int]]] | None:
    """(stripe bytes, chunks alike, [(device, start)] of each stripe of the first) of the next data chunks
    btrfs_create_chunk makes, or None where it fails with ENOSPC. `holes` is changed to leave them out.

    Where every device taken has room for many more stripes, the same devices are taken for a run of chunks
    (`alike`), a quarter of what the smallest of them has left: on a 45-disk pod the allocator makes some
    80,000 chunks, and a run moves the devices' order by no more than it moves their free bytes."""
    shape = PROFILES[profile]
    want = MAX_STRIPE * shape.dev_stripes
    least = STRIPE_LEN * shape.dev_stripes  # dev_extent_min
    offers = []
    for dev, free in enumerate(holes):
        if sum(e - s for s, e in free) < least:
            continue
        start, room, hole = _offer(free, want)
        if room >= least:
            offers.append((room, sum(e - s for s, e in free), dev, start, hole))
    offers.sort(key=lambda o: (o[0], o[1]), reverse=True)
    ndevs = len(offers) - len(offers) % shape.devs_increment
    if ndevs < shape.devs_min:
        return None
    ndevs = min(ndevs, shape.devs_max or MAX_DEVS)
    stripe = offers[ndevs - 1][0] // shape.dev_stripes
    data_stripes = (ndevs * shape.dev_stripes - shape.nparity) // shape.ncopies
    max_chunk = min(total * 10 // 100, MAX_DATA_CHUNK)
    if stripe * data_stripes > max_chunk:
        stripe = min(-(-(max_chunk // data_stripes) // STRIPE_ROUND) * STRIPE_ROUND, stripe)
    stripe = min(stripe, MAX_STRIPE) // STRIPE_LEN * STRIPE_LEN
    taken = offers[:ndevs]
    alike = max(1, (min(o[4] for o in taken) - want) // (4 * stripe * shape.dev_stripes))
    placed = []
    for _, _, dev, start, _ in taken:
        _cut(holes[dev], start, alike * stripe * shape.dev_stripes)
        placed += [(dev, start + k * stripe) for k in range(shape.dev_stripes)]
    return stripe, alike, placed


@lru_cache(maxsize=256)
def fill(layout: BtrfsLayout) -> BtrfsFill:
    """Run the data chunk allocator from mkfs's layout until it fails: the chunks a fill to ENOSPC ends with."""
    profile = layout.data_profile
    shape = PROFILES[profile]
    holes = holes_after_mkfs(layout)
    total = sum(layout.device_bytes)
    logical, raw, parity, chunks = layout.data_chunk_bytes, layout.data_chunk_raw_bytes, 0, 0
    stripes_before = _stripes_of_first_data_chunk(layout)
    parity += stripes_before * shape.nparity if shape.nparity else 0
    while (made := next_data_chunk(holes, profile, total)) is not None:
        stripe, alike, placed = made
        n = len(placed)
        logical += alike * stripe * ((n - shape.nparity) // shape.ncopies)
        raw += alike * stripe * n
        parity += alike * stripe * shape.nparity
        chunks += alike
    unallocated = tuple(sum(e - s for s, e in free) + RESERVED for free in holes)
    return BtrfsFill(logical, raw, parity, raw - parity - logical, unallocated, chunks)


def _stripes_of_first_data_chunk(layout: BtrfsLayout) -> int:
    """The stripe bytes of mkfs's data chunk (its parity is that many bytes per parity stripe)."""
    data = [st for kind, _, _, st in layout.chunks if kind == "data"]
    return data[-1][0][2] if data else 0
