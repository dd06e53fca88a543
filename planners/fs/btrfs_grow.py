"""A fresh btrfs grown by `btrfs device add` and a full `btrfs balance start -dconvert= -mconvert=`: the chunks
the kernel allocates while it relocates each of mkfs's chunks, and what statvfs and `btrfs filesystem usage`
then report.

The kernel (6.x, btrfs_alloc_chunk) sizes a chunk by its type (data: stripes of at most 1 GiB; metadata: 256
MiB, 1 GiB once the mounted filesystem passed 50 GiB; system: 32 MiB), caps its logical size at a tenth of
the writable bytes (rounding the stripe up to 16 MiB), and takes the devices with the most room for the
wanted stripe, then the most free bytes. Balance relocates chunks from the highest logical address down; for
each it first allocates the new chunk (a data chunk while no data is used; any chunk whose profile changes;
a metadata or system chunk whose space would be left without room once the old one is read-only), then
frees the old one. A data chunk whose profile changes gets both. Only an empty filesystem is modelled: with
data on it, the chunks balance writes follow the data.
"""

from __future__ import annotations

from collections.abc import Sequence

from planners.errors import PlanError
from planners.fs.btrfs import (
    META_BIG_FS,
    PROFILES,
    RESERVED,
    STRIPE_LEN,
    BtrfsLayout,
    GiB,
    btrfs_layout,
)

MiB = 1 << 20
KERNEL_CHUNK = {"data": 10 * GiB, "system": 32 * MiB}  # calc_chunk_size; metadata by the filesystem's size
STRIPE_ROUND = 16 * MiB  # a stripe cut to the chunk cap is rounded up to this
MAX_STRIPE = 1 * GiB
# BTRFS_MAX_DEVS_SYS_CHUNK: the stripes of a system chunk that fit the superblock's 2048-byte system
# array beside a second chunk (two 17-byte keys, two 80-byte chunk items with their first stripe;
# each further stripe 32 bytes): 58.
MAX_DEVS_SYS_CHUNK = (2048 - 2 * 17 - 2 * 80) // 32 + 1

Extent = tuple[int, int]  # (start, bytes) on one device


class _Disks:
    """Every device's allocated extents, as the kernel's device tree holds them."""

    def __init__(self, sizes: Sequence[int]):
        self.sizes = list(sizes)
        self.taken: list[list[Extent]] = [[] for _ in sizes]

    def holes(self, dev: int) -> list[Extent]:
        out, at = [], RESERVED
        for start, length in sorted(self.taken[dev]):
            if start > at:
                out.append((at, start - at))
            at = max(at, start + length)
        if self.sizes[dev] > at:
            out.append((at, self.sizes[dev] - at))
        return out

    def free(self, dev: int) -> int:
        return self.sizes[dev] - sum(n for _, n in self.taken[dev])

    def room(self, dev: int, want: int) -> tuple[int, int]:
        """find_free_dev_extent: (offset, room) of the first hole of `want` bytes, else the largest hole."""
        holes = [(s, (n // STRIPE_LEN) * STRIPE_LEN) for s, n in self.holes(dev)]
        fit = next(((s, want) for s, n in holes if n >= want), None)
        return fit or max(holes, key=lambda h: h[1], default=(0, 0))


def _alloc(disks: _Disks, kind: str, profile: str, meta_chunk: int) -> tuple[int, list[tuple[int, int, int]]]:
    """One chunk as btrfs_alloc_chunk makes it: (logical bytes, [(device, start, bytes)])."""
    shape = PROFILES[profile]
    chunk_size = meta_chunk if kind == "metadata" else KERNEL_CHUNK[kind]
    max_stripe = min(chunk_size, MAX_STRIPE)
    max_chunk = min(sum(disks.sizes) // 10, chunk_size)
    devs_max = shape.devs_max or len(disks.sizes)
    if kind == "system":
        devs_max = min(devs_max, MAX_DEVS_SYS_CHUNK)
    want = max_stripe * shape.dev_stripes
    found = []
    for dev in range(len(disks.sizes)):
        offset, room = disks.room(dev, want)
        if room >= STRIPE_LEN * shape.dev_stripes:
            found.append((room, disks.free(dev), dev, offset))
    # most room for the stripe, then most free bytes; ties by device order (set from measurement)
    found.sort(key=lambda f: (-f[0], -f[1], f[2]))
    ndevs = min(len(found), devs_max)
    ndevs -= ndevs % shape.devs_increment
    if ndevs < shape.devs_min:
        raise PlanError(f"the devices have no room for a btrfs {profile} {kind} chunk during the balance", "disks")
    stripe = found[ndevs - 1][0] // shape.dev_stripes
    num_stripes = ndevs * shape.dev_stripes
    data_stripes = (num_stripes - shape.nparity) // shape.ncopies
    if stripe * data_stripes > max_chunk:
        stripe = min(-(-max_chunk // data_stripes // STRIPE_ROUND) * STRIPE_ROUND, stripe)
    stripe = min(stripe, MAX_STRIPE) // STRIPE_LEN * STRIPE_LEN
    placed = []
    for _, _, dev, offset in found[:ndevs]:
        for i in range(shape.dev_stripes):
            disks.taken[dev].append((offset + i * stripe, stripe))
            placed.append((dev, offset + i * stripe, stripe))
    return stripe * data_stripes, placed


def grown_layout(old: BtrfsLayout, added: Sequence[int], data_profile: str, metadata_profile: str) -> BtrfsLayout:
    """The filesystem after `btrfs device add` of `added` devices and a full balance converting to the given
    profiles (empty filesystem: see the module's note)."""
    sizes = [*old.device_bytes, *(s // old.sector * old.sector for s in added)]
    probe = btrfs_layout(sizes, data_profile=data_profile, metadata_profile=metadata_profile)  # refuses as mkfs does
    disks = _Disks(sizes)
    chunks = []  # (kind, profile, logical, stripes) alive, in logical order
    for kind, profile, logical, stripes in old.chunks:
        chunks.append((kind, profile, logical, list(stripes)))
        for dev, start, length in stripes:
            disks.taken[dev].append((start, length))
    # metadata chunk size was fixed when the filesystem was mounted, before the devices were added
    meta_chunk = GiB if sum(old.device_bytes) > META_BIG_FS else 256 * MiB
    target = {"data": data_profile, "metadata": metadata_profile, "system": metadata_profile}
    new: list[tuple[str, str, int, list[tuple[int, int, int]]]] = []
    for kind, profile, _, stripes in reversed(chunks):
        count = 1 + (kind == "data" and profile != target[kind])
        for _ in range(count):
            logical, placed = _alloc(disks, kind, target[kind], meta_chunk)
            new.append((kind, target[kind], logical, placed))
        for dev, start, length in stripes:
            disks.taken[dev].remove((start, length))
    used = tuple(sum(n for _, n in disks.taken[d]) for d in range(len(sizes)))
    data = [c for c in new if c[0] == "data"]
    return BtrfsLayout(
        tuple(sizes),
        used,
        sum(c[2] for c in data),
        sum(n for c in data for _, _, n in c[3]),
        probe.data_profile,
        probe.metadata_profile,
        old.sector,
        tuple((k, p, n, tuple(s)) for k, p, n, s in new),
    )
