"""btrfs across raw devices: the chunks a fresh mkfs.btrfs leaves, and what `df` shows of them.

mkfs.btrfs (btrfs-progs 6.2) first lays temporary single chunks on the first device, then
allocates the profile's system, metadata and data chunks (the chunk's data at most a tenth of the
filesystem; devices in the allocator's list order, the last added first, each taken only if it holds
the whole stripe; a chunk short of devices is made over fewer, or else refused), and drops the
temporary chunks it no longer needs; a single data profile keeps the first 8 MiB data chunk. The
rules were read from btrfs-progs and the kernel and their constants checked against mkfs.btrfs 6.2
over every profile (tests/test_btrfs.py). The kernel's statfs then reports the device bytes over
the data profile's copies as the size, and as available the free bytes of the data chunks plus
what the unallocated space could still hold as data (btrfs_calc_avail_data_space: devices by free
space, the smallest filling each stripe set).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from planners.errors import PlanError

MiB = 1 << 20
GiB = 1 << 30
STRIPE_LEN = 64 * 1024  # BTRFS_STRIPE_LEN
RESERVED = 1 * MiB  # the first MiB of every device holds no chunk (the superblock's room)
TEMP_CHUNK = 8 * MiB  # mkfs's first metadata and data chunks (kept where the profile is single)
TEMP_SYSTEM = 4 * MiB  # mkfs's first system chunk (kept where metadata is single)
SYSTEM_CHUNK = 8 * MiB  # a system stripe as mkfs.btrfs 6.2 makes it (seen with `btrfs filesystem df -b`)
SYSTEM_MAX_CHUNK = 16 * MiB  # a system chunk's data at most (a 6-device RAID10 one gets 16 MiB / 6 stripes)
SYSTEM_MIN_STRIPE = 1 * MiB  # btrfs-progs init_alloc_chunk_ctl_policy_regular: a system stripe's min_stripe_size
META_STRIPE = 256 * MiB  # a metadata stripe's cap below 50 GiB of devices (1 GiB above)
META_BIG_FS = 50 * GiB
DATA_STRIPE = 1 * GiB
UNALLOCATED_THRESHOLD = 16 * MiB  # btrfs-progs' MIN_UNALOCATED_THRESH: less is not counted as free
DATA_MIN_STRIPE = (
    64 * MiB
)  # a data stripe is not cut below this by the tenth-of-the-filesystem cap (seen: DUP data on 1 GiB)
META_MIN_STRIPE = 32 * MiB  # nor a metadata stripe below this (seen: DUP metadata on one 383 MiB device)

Profile = Literal["single", "dup", "raid0", "raid1", "raid1c3", "raid1c4", "raid10", "raid5", "raid6"]


class ProfileShape(NamedTuple):
    """One btrfs block-group profile as the chunk allocator sees it (btrfs_raid_array)."""

    devs_min: int  # devices a chunk needs
    devs_max: int  # devices a chunk takes at most (0 = all)
    dev_stripes: int  # stripes on each device (DUP: 2)
    ncopies: int  # copies of each byte
    nparity: int  # parity stripes
    devs_increment: int  # devices are taken in multiples of this
    tolerated: int  # device failures survived
    avail_stripes: int = 1  # stripes btrfs_calc_avail_data_space assumes a chunk takes (0 = every device)

    @property
    def factor(self) -> int:
        """What statfs divides by: the copies (parity profiles count one)."""
        return self.ncopies


PROFILES: dict[str, ProfileShape] = {
    "single": ProfileShape(1, 1, 1, 1, 0, 1, 0),
    "dup": ProfileShape(1, 1, 2, 2, 0, 1, 0),
    "raid0": ProfileShape(1, 0, 1, 1, 0, 1, 0, 0),
    "raid1": ProfileShape(2, 2, 1, 2, 0, 1, 1, 2),
    "raid1c3": ProfileShape(3, 3, 1, 3, 0, 1, 2, 3),
    "raid1c4": ProfileShape(4, 4, 1, 4, 0, 1, 3, 4),
    "raid10": ProfileShape(2, 0, 1, 2, 0, 2, 1, 4),  # devs_min 2 since btrfs-progs and Linux 5.15 (was 4)
    "raid5": ProfileShape(2, 0, 1, 1, 1, 1, 1),
    "raid6": ProfileShape(3, 0, 1, 1, 2, 1, 2),
}


def default_profiles(devices: int) -> tuple[str, str]:
    """mkfs.btrfs's own (data, metadata) profiles for this many devices."""
    return ("single", "dup") if devices == 1 else ("single", "raid1")


class BtrfsLayout(NamedTuple):
    """A fresh btrfs over some devices."""

    device_bytes: tuple[int, ...]  # each device's size as btrfs counts it (whole sectors)
    used: tuple[int, ...]  # bytes of chunks on each device after mkfs
    data_chunk_bytes: int  # logical bytes of the data chunk mkfs leaves (all free)
    data_chunk_raw_bytes: int  # bytes that chunk takes on the devices, every copy and parity stripe
    data_profile: str
    metadata_profile: str
    sector: int
    # each chunk mkfs leaves, by logical address: (kind, profile, logical bytes, ((device, start, bytes), ...))
    chunks: tuple[tuple[str, str, int, tuple[tuple[int, int, int], ...]], ...] = ()

    @property
    def df_size_bytes(self) -> int:
        """statvfs f_blocks x f_frsize: the devices' bytes over the data profile's copies, whole sectors."""
        return sum(self.device_bytes) // PROFILES[self.data_profile].factor // self.sector * self.sector

    @property
    def df_available_bytes(self) -> int:
        """statvfs f_bavail x f_frsize right after mount: free data-chunk bytes plus what unallocated space holds."""
        factor = PROFILES[self.data_profile].factor
        more = unallocated_data_bytes(self.device_bytes, self.used, self.data_profile)
        return (self.data_chunk_bytes + more // factor) // self.sector * self.sector

    @property
    def free_estimated_bytes(self) -> int:
        """`btrfs filesystem usage -b` "Free (estimated)" (btrfs-progs 6.2): the free data-chunk bytes plus
        the unallocated device bytes over the data chunks' raw-to-logical ratio, in the tool's own double
        arithmetic (each step truncated to whole bytes); unallocated space under 16 MiB is left out."""
        ratio = self.data_chunk_raw_bytes / self.data_chunk_bytes
        free = int(self.data_chunk_raw_bytes / ratio)
        unallocated = sum(self.device_bytes) - sum(self.used)
        if unallocated >= UNALLOCATED_THRESHOLD:
            free = int(free + unallocated / ratio)
        return free


def btrfs_layout(
    sizes: Sequence[int], *, data_profile: str | None = None, metadata_profile: str | None = None, sector: int = 4096
) -> BtrfsLayout:
    """The chunks mkfs.btrfs lays over these devices, or PlanError where it would refuse."""
    n = len(sizes)
    if n < 1:
        raise PlanError("btrfs needs at least one device", "disks")
    default_data, default_meta = default_profiles(n)
    data = data_profile or default_data
    meta = metadata_profile or default_meta
    for what, profile in (("data", data), ("metadata", meta)):
        shape = PROFILES.get(profile)
        if shape is None:
            raise PlanError(
                f"btrfs {what} profile {profile!r} is not one of {', '.join(PROFILES)}", f"filesystem.{what}_profile"
            )
        if n < shape.devs_min:
            raise PlanError(
                f"btrfs {profile} needs at least {shape.devs_min} devices, the plan has {n}",
                f"filesystem.{what}_profile",
            )
    devices = tuple(s // sector * sector for s in sizes)
    total = sum(devices)
    holes: list[list[tuple[int, int]]] = [[(RESERVED, d)] for d in devices]  # free (start, end) per device
    used = [0] * n
    # The temporary single chunks on the first device while the real ones are placed; a single
    # profile keeps its temporary chunks and gets no other.
    _take(holes[0], TEMP_SYSTEM + 2 * TEMP_CHUNK)
    # btrfs_add_to_fsid puts each device after the first at the head of the list the allocator walks.
    order = list(reversed(range(n)))
    tenth = total // 10  # init_alloc_chunk_ctl_policy_regular: no chunk over a tenth of the filesystem
    meta_stripe = DATA_STRIPE if total > META_BIG_FS else META_STRIPE
    temp = {
        "system": ((0, RESERVED, TEMP_SYSTEM),),
        "metadata": ((0, RESERVED + TEMP_SYSTEM, TEMP_CHUNK),),
        "data": ((0, RESERVED + TEMP_SYSTEM + TEMP_CHUNK, TEMP_CHUNK),),
    }
    kept: list[tuple[str, str, int, tuple[tuple[int, int, int], ...]]] = []
    real: list[tuple[str, str, int, tuple[tuple[int, int, int], ...]]] = []
    if meta == "single":
        used[0] += TEMP_SYSTEM + TEMP_CHUNK
        kept += [
            ("system", "single", TEMP_SYSTEM, temp["system"]),
            ("metadata", "single", TEMP_CHUNK, temp["metadata"]),
        ]
    else:
        for kind, stripe, most, floor in (
            ("system", SYSTEM_CHUNK, SYSTEM_MAX_CHUNK, SYSTEM_MIN_STRIPE),
            ("metadata", meta_stripe, meta_stripe, META_MIN_STRIPE),
        ):
            placed = _alloc(holes, order, meta, kind, stripe, min(most, tenth), floor)
            real.append((kind, meta, _logical(meta, placed), tuple(placed)))
            for dev, _, length in placed:
                used[dev] += length
    data_chunk = data_raw = TEMP_CHUNK
    if data != "single":
        chunk = _alloc(holes, order, data, "data", DATA_STRIPE, min(10 * DATA_STRIPE, tenth), DATA_MIN_STRIPE)
        data_chunk = _logical(data, chunk)
        data_raw = chunk[0][2] * len(chunk)
        real.append(("data", data, data_chunk, tuple(chunk)))
        for dev, _, length in chunk:
            used[dev] += length
    else:
        used[0] += TEMP_CHUNK
        kept.append(("data", "single", TEMP_CHUNK, temp["data"]))
    return BtrfsLayout(devices, tuple(used), data_chunk, data_raw, data, meta, sector, tuple(kept + real))


def _logical(profile: str, stripes: Sequence[tuple[int, int, int]]) -> int:
    """The logical bytes of a chunk of `profile` with these (device, start, bytes) stripes."""
    return _chunk_bytes(profile, stripes[0][2], len(stripes))


def _chunk_bytes(profile: str, stripe: int, num_stripes: int) -> int:
    shape = PROFILES[profile]
    return stripe * ((num_stripes - shape.nparity) // shape.ncopies)


def _take(holes: list[tuple[int, int]], length: int) -> None:
    start, end = holes[0]
    holes[0] = (start + length, end)


def _alloc(
    holes: list[list[tuple[int, int]]],
    order: list[int],
    profile: str,
    kind: str,
    stripe: int,
    max_chunk: int,
    floor: int,
) -> list[tuple[int, int, int]]:
    """(device, start, bytes) of each stripe of one new `kind` chunk of `profile` as btrfs-progs 6.2's
    btrfs_alloc_chunk places it: stripes of `stripe` bytes, cut so the chunk's data stays within `max_chunk`
    but not below `floor`. `order` is the allocator's device list; the chunk reorders it as the allocator does."""
    shape = PROFILES[profile]
    n = len(holes)
    # init_alloc_chunk_ctl: the striped profiles ask for a stripe on every device (RAID10 in pairs), the
    # others for their own count; fewer than the profile's least is a refusal before any device is read.
    want = n - n % shape.devs_increment if shape.devs_max == 0 else min(shape.devs_min, n) * shape.dev_stripes
    least = shape.devs_min * shape.dev_stripes
    refusal = PlanError(
        f"mkfs.btrfs would refuse these devices: too few have room for a first btrfs {profile} {kind} chunk",
        "disks",
    )
    retried = False
    spare = 0  # the most free bytes of a device passed over (max_avail)
    while True:
        if want < least:
            raise refusal
        if _chunk_bytes(profile, stripe, want) > max_chunk:
            # decide_stripe_size_regular spreads the chunk's cap over every stripe, copies and parity too
            stripe = max_chunk // want // STRIPE_LEN * STRIPE_LEN
        stripe = max(stripe, floor) // STRIPE_LEN * STRIPE_LEN
        # The list is walked from its head and a device is taken only if its free bytes (btrfs_device_avail_bytes)
        # hold the whole stripe: one too small is passed over, never given a smaller stripe.
        picked: list[int] = []
        for dev in order:
            if len(picked) * shape.dev_stripes >= want:
                break
            free = sum(e - s for s, e in holes[dev])
            if free >= stripe * shape.dev_stripes:
                picked.append(dev)
            else:
                spare = max(spare, free)
        got = len(picked) * shape.dev_stripes
        if got >= want:
            break
        # Short of devices: those taken go back to the list's head (the last taken first). With at least the
        # profile's least the chunk is made over them alone, the stripe unchanged (so mkfs puts RAID10's
        # first chunk on the two large devices of 1+1+6+12 GiB); below it the stripe is retried once at the
        # largest free room passed over, and then mkfs gives up ("not enough free space to allocate chunk").
        order[:] = picked[::-1] + [d for d in order if d not in picked]
        if got >= least:
            want = got - got % shape.devs_increment
        elif not retried and spare > 0:
            stripe = spare // shape.dev_stripes
        else:
            raise refusal
        retried = True
    # create_chunk gives the first stripe to the device taken last, and moves each device it uses to the
    # list's head, so the next chunk's walk meets them first, in the order they were taken.
    out = []
    for dev in reversed(picked):
        for _ in range(shape.dev_stripes):
            out.append((dev, _place(holes[dev], stripe), stripe))
        order.remove(dev)
        order.insert(0, dev)
    return out


def _place(holes: list[tuple[int, int]], length: int) -> int:
    """find_free_dev_extent: the first hole that fits, cut from its start."""
    k = next(j for j, (s, e) in enumerate(holes) if e - s >= length)
    start, end = holes[k]
    holes[k] = (start + length, end)
    return start


def unallocated_data_bytes(devices: Sequence[int], used: Sequence[int], profile: str) -> int:
    """btrfs_calc_avail_data_space: device bytes the unallocated space could still give data chunks of
    `profile` (over all their stripes, before dividing by the copies)."""
    shape = PROFILES[profile]
    stripes = shape.avail_stripes or len(devices)
    min_stripe = shape.dev_stripes * STRIPE_LEN
    avail = []
    for d, u in zip(devices, used, strict=True):
        free = (d - u) // STRIPE_LEN * STRIPE_LEN
        if free <= RESERVED + min_stripe:
            continue
        avail.append(free - RESERVED)
    avail.sort(reverse=True)
    count = len(avail)
    i = count - 1
    out = 0
    while count >= shape.devs_min:
        stripes = min(stripes, count)
        if avail[i] >= min_stripe:
            take = avail[i]
            out += take * stripes
            for j in range(i + 1 - stripes, i + 1):
                avail[j] -= take
        i -= 1
        count -= 1
    return out


# btrfs reads files ahead through its own bdi, not the device's: open_ctree() in fs/btrfs/disk-io.c
# sets ra_pages to the default 128 KiB (VM_READAHEAD_PAGES) times the devices, and at least 4 MiB
# (`sb->s_bdi->ra_pages = max(sb->s_bdi->ra_pages, SZ_4M / PAGE_SIZE)`, line 3356 in 2025's
# sources; the same two lines from 5.9 on). blockdev --setra on the devices does not reach it;
# /sys/class/bdi/btrfs-N/read_ahead_kb does.
BTRFS_MIN_READAHEAD = 4 << 20
VM_READAHEAD = 128 << 10


def btrfs_readahead(devices: int) -> int:
    """The readahead window of a btrfs over `devices` devices, bytes."""
    return max(VM_READAHEAD * devices, BTRFS_MIN_READAHEAD)
