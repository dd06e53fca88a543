"""What the performance and reliability models need to know about a computed plan, gathered once.

Each md group becomes a `GroupCtx`: its geometry, the disk it is made of (with every figure
resolved), where its members sit on the wiring, and the share of a workload's bytes that
reach it through LVM. The per-disk speed functions here are the physics both models share.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import sqrt

from planners.fs.btrfs import btrfs_readahead
from planners.fs.btrfs_geometry import BtrfsGeometry
from planners.hardware.disks import DISK_CLASSES, DiskPerf, DiskSpec, ResolvedDisk, resolve_disk
from planners.hardware.machine import Hardware, ResolvedController, ResolvedCpu, Wiring, resolve_controller, resolve_cpu
from planners.models import Plan
from planners.perf.flash import beyond_rated_s, flash_bytes_s
from planners.perf.landing import used_slots
from planners.perf.positioning import MEAN_SQRT_DISTANCE, best_of_queue
from planners.results import PlanResult
from planners.schemes import Scheme, btrfs_scheme, md_scheme

PAGE = 4096  # md's stripe heads hold one page per member
# The block layer's default cap on one request (BLK_DEF_MAX_SECTORS, 2560 sectors in 6.1);
# md RAID0 caps its requests at one chunk below that.
MAX_SECTORS_BYTES = 1280 * 1024
SETTLE_S = 0.001  # head switch / track-to-track settle added to a half rotation, seconds


@dataclass(frozen=True)
class GroupCtx:
    name: str
    level: int
    n: int  # active members
    parity: int  # members' worth of parity (RAID4/5: 1, RAID6: 2)
    data: float  # data disks (RAID10 n2 on 3 members: 1.5)
    near: int
    far: int
    chunk: int | None
    disk: ResolvedDisk  # the slowest member's figures
    members: tuple[int, ...]  # positions of the members in the plan's disk list
    spares: int
    array_bytes: int
    component_bytes: int
    cache_entries: int  # md stripe_cache_size (0 where md keeps none)
    survives: int | None = None  # failures survived when not read from the level (btrfs: the weaker profile's)
    bitmap_chunk: int = 0  # write-intent bitmap chunk, bytes (0 = no bitmap)
    bitmap_at_end: bool = False  # the bitmap beside a superblock at the member's end (metadata 1.0, 0.90)

    @property
    def scheme(self) -> Scheme:
        """The md level it is, or the one it is modelled as (a btrfs profile, a LUN's level)."""
        return md_scheme(self.level)

    @property
    def copies(self) -> int:
        return self.scheme.copies_on(self.n, self.near * self.far)

    @property
    def stripe_bytes(self) -> int:
        return int((self.chunk or 0) * self.data)


@dataclass(frozen=True)
class PerfCtx:
    groups: tuple[GroupCtx, ...]
    volume_groups: tuple[int, ...]  # groups under the first volume, in order
    lvm_mode: str  # "none", "linear" or "striped"
    volume_bytes: int
    readahead: int
    fs_type: str
    disk_count: int
    hardware: Hardware
    cpu: ResolvedCpu
    links: tuple[int, ...]  # link index of every disk in plan order
    hbas: tuple[int, ...]  # HBA index of every disk in plan order
    controller: ResolvedController | None = None
    kernel: str = "6.1"
    fs_block: int = 4096  # the filesystem's block size, bytes
    btrfs: tuple[str, str] | None = None  # (data, metadata) profiles of a btrfs across the raw disks
    lv_stripe: int = 0  # lvcreate -I of a striped LV, bytes: dm cuts each request at it (0 = not striped)
    kernel_stated: bool = True  # the plan's [tools] names the kernel (else `kernel` is the default's)

    def request_unit(self, group: GroupCtx) -> int:
        """The largest piece of one request a group receives: md cuts at its chunk, a striped LV at its
        stripe, and the top device's largest request bounds the rest (a LUN or a disk alone)."""
        if group.chunk:
            return group.chunk
        if self.lvm_mode == "striped" and self.lv_stripe and len(self.volume_groups) > 1:
            return min(self.lv_stripe, self.request_cap())
        return self.request_cap()

    def request_cap(self) -> int:
        """Largest request the top device takes: the smallest of the arrays' under LVM (dm stacks them)."""
        caps = [
            min(self.groups[i].chunk or MAX_SECTORS_BYTES, MAX_SECTORS_BYTES)
            if self.groups[i].scheme.caps_requests_at_chunk
            else MAX_SECTORS_BYTES
            for i in self.volume_groups
        ]
        return min(caps) if caps else MAX_SECTORS_BYTES

    @property
    def round_trip_s(self) -> float:
        """What each request pays in the controller, on top of the disks' work."""
        return self.controller.round_trip_us * 1e-6 if self.controller else 0.0

    @property
    def write_cache_bytes(self) -> int:
        """The controller cache that holds writes (an HPE Smart Array's cache ratio keeps the rest for reads)."""
        return int(self.controller.cache_bytes * self.controller.write_share) if self.controller else 0

    def shares(self, sequential: bool) -> dict[int, float]:
        """Fraction of the workload's bytes that reaches each group of the first volume.

        One stream on a linear LV moves through one array at a time (the first); random I/O on
        it lands on each array in proportion to its size; a striped LV spreads everything evenly.
        """
        vg = self.volume_groups
        if self.lvm_mode == "striped":
            return {i: 1 / len(vg) for i in vg}
        if sequential or len(vg) == 1:
            return {vg[0]: 1.0}
        total = sum(self.groups[i].array_bytes for i in vg)
        return {i: self.groups[i].array_bytes / total for i in vg}


def build_ctx(plan: Plan, result: PlanResult, disk_override: DiskPerf | None = None) -> PerfCtx:
    hw = plan.hardware or _DEFAULT_HARDWARE
    sets = [(d.model, d.rotational) for d in plan.disks for _ in range(d.count)]

    groups = []
    pos = 0
    vol = result.volumes[0]
    slowest_of: dict[tuple[tuple[str, bool], ...], ResolvedDisk] = {}  # arrays of one kind of disk resolve it once
    for pg, gr in zip(plan.groups, result.groups, strict=True):
        md = gr.md
        members = tuple(range(pos, pos + pg.members))
        # Each kind of disk once, in order of first appearance: min keeps the first of equals, as over every member.
        kinds = tuple(dict.fromkeys(sets[pos : pos + pg.members]))
        pos += pg.disks
        if kinds not in slowest_of:
            slowest_of[kinds] = min(
                (_resolved(hw.disk_spec(model), rotational, disk_override) for model, rotational in kinds),
                key=lambda d: (d.seq_inner_mb_s, d.rand_write_iops),
            )
        slowest = slowest_of[kinds]
        parity = md_scheme(pg.level).parity
        cache = 0
        if parity:
            cache = plan.tuning.stripe_cache_size or vol.alignment.stripe_cache_size or 256
        groups.append(
            GroupCtx(
                name=pg.name,
                level=pg.level,
                n=pg.members,
                parity=parity,
                data=md.data_disks_num / md.data_disks_den,  # float(md.data_disks), without a Fraction a group
                near=md.near_copies,
                far=md.far_copies,
                chunk=md.chunk_bytes,
                disk=slowest,
                members=members,
                spares=pg.spares,
                array_bytes=md.array_bytes,
                component_bytes=md.component_bytes or min(md.member_used_bytes),
                cache_entries=cache,
                bitmap_chunk=(md.bitmap_chunk_bytes or 0) if md.bitmap == "internal" else 0,
                bitmap_at_end=pg.metadata == "1.0",
            )
        )
    btrfs = vol.btrfs if (not plan.groups and vol.lvm is None and vol.btrfs) else None
    if btrfs:
        groups = [btrfs_group(btrfs, [_resolved(hw.disk_spec(m), r, disk_override) for m, r in dict.fromkeys(sets)])]
    elif not plan.groups:
        groups = _direct_groups(plan, result, sets, hw, disk_override)
    names = [g.name for g in groups]
    mode = ("striped" if plan.lvm.mode == "striped" else "linear") if plan.lvm.enabled else "none"
    links, hbas = link_map(hw.wiring, len(sets))
    under = tuple(names.index(n) for n in vol.groups) if plan.groups else tuple(range(len(groups)))
    return PerfCtx(
        groups=tuple(groups),
        volume_groups=under,
        lvm_mode=mode,
        volume_bytes=vol.block_device_bytes,
        readahead=btrfs_readahead(len(vol.btrfs.device_bytes)) if vol.btrfs else vol.alignment.readahead_bytes,
        fs_type=plan.filesystem.type,
        fs_block=plan.filesystem.block_size,
        disk_count=len(sets),
        hardware=hw,
        cpu=_cpu(hw.cpu),
        links=links,
        hbas=hbas,
        controller=_controller(hw.controller) if hw.controller else None,
        kernel=plan.tools.kernel,
        btrfs=(btrfs.data_profile, btrfs.metadata_profile) if btrfs else None,
        lv_stripe=vol.alignment.lv_stripe_bytes or 0,
        kernel_stated="kernel" in plan.tools.model_fields_set,
    )


# BTRFS_STRIPE_LEN: what raid0/10/5/6 put on one device before the next (fs/btrfs/volumes.h).
BTRFS_STRIPE = 64 << 10
# RBIO_CACHE_SIZE in fs/btrfs/raid56.c: full stripes btrfs keeps in memory for raid5/6.
BTRFS_RBIO_CACHE = 1024


def btrfs_group(fs: BtrfsGeometry, disks: list[ResolvedDisk]) -> GroupCtx:
    """A btrfs across raw disks as one array of its data profile: copies, parity and its 64 KiB stripe
    element; the odds use the weaker of data and metadata (planners.perf.btrfs shapes it per workload)."""
    scheme = btrfs_scheme(fs.data_profile)
    n = len(fs.device_bytes)
    level = scheme.level
    return GroupCtx(
        name="btrfs",
        level=level,
        n=n,
        parity=scheme.parity,
        data=scheme.data_members(n),
        near=scheme.copies if md_scheme(level).mirrored else 1,
        far=1,
        chunk=BTRFS_STRIPE if scheme.chunked else None,
        disk=min(disks, key=lambda d: (d.seq_inner_mb_s, d.rand_write_iops)),
        members=tuple(range(n)),
        spares=0,
        array_bytes=fs.df_size_bytes,
        component_bytes=max(fs.device_bytes),  # btrfs replace copies the lost device's chunks: at most all of it
        cache_entries=BTRFS_RBIO_CACHE * BTRFS_STRIPE // PAGE if scheme.parity else 0,
        survives=min(fs.data_tolerates, fs.metadata_tolerates),
    )


def _direct_groups(
    plan: Plan, result: PlanResult, sets: list[tuple[str, bool]], hw: Hardware, disk_override: DiskPerf | None
) -> list[GroupCtx]:
    """Without md each disk (a LUN or a plain disk) stands alone under LVM: a one-member stripe with no
    redundancy at the host; a LUN's own RAID is in its resolved figures."""
    vol = result.volumes[0]
    return [
        GroupCtx(
            name=f"disk{i + 1}",
            level=0,
            n=1,
            parity=0,
            data=1.0,
            near=1,
            far=1,
            chunk=None,
            disk=_resolved(hw.disk_spec(model), rotational, disk_override),
            members=(i,),
            spares=0,
            array_bytes=d.size,
            component_bytes=d.size,
            cache_entries=0,
        )
        for i, ((model, rotational), d) in enumerate(zip(sets, plan.disk_list(), strict=True))
        if vol.lvm is not None or vol.disks[1:] or i == 0
    ]


# A sweep builds a context for hundreds of layouts of the same disks and hardware: the frozen
# hardware models are hashable, so each figure is resolved once.
_DEFAULT_HARDWARE = Hardware()
_cpu = lru_cache(maxsize=64)(resolve_cpu)
_controller = lru_cache(maxsize=64)(resolve_controller)


@lru_cache(maxsize=256)
def _resolved(spec: DiskSpec, rotational: bool, override: DiskPerf | None) -> ResolvedDisk:
    if not rotational and DISK_CLASSES[spec.disk_class].rpm:  # says SSD but kept an HDD class
        spec = spec.model_copy(update={"disk_class": "ssd-sata"})
    return resolve_disk(spec, override)


def seq_mb_s(disk: ResolvedDisk, span: float, write: bool, start: float = 0.0) -> float:
    """Sequential rate over `span` of the disk from `start` (both shares of it): zones fall off linearly
    from outer to inner, so the average over [start, start + span] is the rate at its middle."""
    middle = min(1.0, start + min(1.0, span) / 2)
    rate = disk.seq_outer_mb_s - (disk.seq_outer_mb_s - disk.seq_inner_mb_s) * middle
    return rate * (disk.seq_write_factor if write else 1.0)


def rand_iops(disk: ResolvedDisk, span: float, bs: int, write: bool) -> float:
    """One disk's random operations per second at queue depth 1 (HDD) or saturated (flash).

    HDD: a request costs a seek, half a rotation and its transfer. The rated IOPS give the
    full-stroke seek; a shorter span seeks shorter, roughly with the square root of the
    distance (the arm accelerates for half the way), down to the settle time.
    """
    base = disk.rand_write_iops if write else disk.rand_read_iops
    if disk.measured:
        return base
    # A LUN's disks serve requests side by side; a write costs its RAID's I/Os on them.
    lun = disk.spindles / (disk.write_ios if write else 1)
    rate = seq_mb_s(disk, span, write) * 1e6 / disk.data_disks  # one request moves on one of its disks
    if disk.rpm:
        rot = 30.0 / disk.rpm
        seek_full = max(1.0 / base - rot, SETTLE_S)
        seek = SETTLE_S + (seek_full - SETTLE_S) * sqrt(min(1.0, span))
        return lun / (seek + rot + bs / rate)
    # flash: rated at 4 KiB; bigger requests are bound by bytes, a random write's by its steady state's
    return lun * min(base, flash_bytes_s(disk, rate, write) / bs)


def positioning_s(disk: ResolvedDisk) -> float:
    """Time a disk spends before a batch of writes starts moving data: half a rotation plus settle."""
    if disk.measured:
        return 1.0 / disk.rand_write_iops
    return 30.0 / disk.rpm + SETTLE_S if disk.rpm else disk.latency_us * 1e-6


def sorted_iops(disk: ResolvedDisk, span: float, bs: int, queue: int, write: bool) -> float:
    """One disk's random operations per second with `queue` requests waiting on it.

    The disk (or the controller feeding it) serves the nearest request first: among q+1
    candidates spread over the span the nearest is about span/(q+1) away and the shortest
    rotational wait about a rotation/(q+1) (the least of q+1 uniform waits). Flash has
    nothing to reorder: its saturated rating already is the deep-queue figure.
    """
    if disk.measured or not disk.rpm:
        return rand_iops(disk, span, bs, write)
    base = disk.rand_write_iops if write else disk.rand_read_iops
    rot = 60.0 / disk.rpm
    seek_full = max(1.0 / base - rot / 2, SETTLE_S)
    seek = SETTLE_S + (seek_full - SETTLE_S) * sqrt(min(1.0, span) / (queue + 1))
    lun = disk.spindles / (disk.write_ios if write else 1)
    return lun / (seek + rot / (queue + 1) + bs / (seq_mb_s(disk, span, write) * 1e6 / disk.data_disks))


# SATA NCQ's 32 tags: what a disk reorders at most; the elevator above it sorts little more for a
# random stream (its batches are as random as the stream).
NCQ_TAGS = 32


def queued_iops(disk: ResolvedDisk, span: float, bs: int, queue: float, write: bool) -> float:
    """One spinning disk's random operations per second with `queue` requests in its own queue
    (NCQ / TCQ), served in rotational-position-optimised order: the request the drive can reach
    soonest, seek and rotational wait together, goes first.

    Each queued request seeks settle + a sqrt(distance) (the curve rand_iops uses, a set so the
    mean seek over the span is rand_iops's) and then waits uniform over a revolution R; the
    expected access time of the soonest of q is computed exactly for that model
    (planners.perf.positioning.best_of_queue, derived there). One request is exactly the
    queue-depth-1 figure; on a short span the seek is settle alone and the soonest of q waits
    R / (q + 1); on a full span a deep queue gains as q^(-1/3). The 7200 rpm class on a full span
    at 1, 2, 4, 8, 16 and 32 queued: 80, 96, 117, 142, 173, 208 IOPS; on 0.2 % of it: 181, 242,
    332, 441, 549, 636. Nothing is fitted: a and R come from the disk's rated IOPS and rpm, the
    queue is capped at NCQ's 32 tags. Flash and measured disks keep their own figures.

    Checked (docs/calibration.md, none of them an input): the Seagate Exos X16 product manual,
    random 4 KiB reads at QD16 with the write cache off, 170 IOPS (the class: 173); Tom's
    Hardware, 'Accelerate Your Hard Drive By Short Stroking' (Schmid and Roos, 2009), a Hitachi
    Ultrastar 15K450 on 20 GB of 450 gaining 65 % on single commands and about 100 % at high queue
    depths (the 15k class: 51 % and 57 % at 32 queued, short of it); held out, Helm & Walter's
    16 TB disk on 30 GB at 4 x QD32 (tests/test_perf_heldout.py).
    """
    single = rand_iops(disk, span, bs, write)
    if disk.measured or not disk.rpm or queue <= 1:
        return single
    base = disk.rand_write_iops if write else disk.rand_read_iops
    rev = 60.0 / disk.rpm
    seek_full = max(1.0 / base - rev / 2, SETTLE_S)
    # mean seek above settle over the span (rand_iops's) over E[sqrt(distance share)]
    alpha = (seek_full - SETTLE_S) * sqrt(min(1.0, span)) / MEAN_SQRT_DISTANCE / rev
    t = SETTLE_S + rev * best_of_queue(alpha, float(min(queue, NCQ_TAGS)))
    lun = disk.spindles / (disk.write_ios if write else 1)
    x = bs / (seq_mb_s(disk, span, write) * 1e6 / disk.data_disks)
    return float(max(single, lun / (t + x)))


def flash_slots(disk: ResolvedDisk, write: bool, bs: int = PAGE) -> float:
    """Requests a flash disk needs in flight to reach its rated IOPS: by Little's law its rate for
    this request size times one request's time alone (its random access latency, plus the transfer
    of what a request carries beyond the rated 4 KiB), where the datasheet gives that; otherwise
    its channels. A write acknowledged from the drive's cache needs far fewer than a read, which
    waits for its NAND page."""
    latency = disk.rand_write_latency_us if write else disk.rand_read_latency_us
    if not latency or disk.lun is not None or disk.measured:
        return float(disk.parallelism)
    return max(1.0, rand_iops(disk, 1.0, bs, write) * (latency * 1e-6 + beyond_rated_s(disk, bs, write)))


def single_request_s(disk: ResolvedDisk, write: bool, iops: float, bs: int = PAGE) -> float:
    """How long one request alone takes on a member whose rate is `iops` (a spinning disk: its
    positioning and transfer; flash: its random access latency)."""
    if disk.rpm or iops <= 0:
        return 1.0 / iops if iops > 0 else 0.0
    return flash_slots(disk, write, bs) / iops


def busy_fraction(
    disk: ResolvedDisk, disks: int, outstanding: float, write: bool = False, capped: bool = True, bs: int = PAGE
) -> float:
    """Share of a disk's capacity that `outstanding` requests, landing on `disks` disks at random, use.

    A disk that serves one request at a time is busy when at least one request landed on it;
    a flash disk needs flash_slots requests to run at its rated speed, and the requests landing at
    random fill some disks' slots while others queue (planners.perf.landing). Uncapped: what the
    requests would use spread evenly with room to spare, for Little's law on an unloaded request's time.
    """
    if disks <= 0 or outstanding <= 0:
        return 0.0
    if disk.parallelism > 1 or not disk.rpm:
        slots = flash_slots(disk, write, bs)
        return used_slots(disks, outstanding, slots) if capped else outstanding / (disks * slots)
    if disks == 1:
        return min(1.0, outstanding)
    return 1.0 - float((1.0 - 1.0 / disks) ** outstanding)


@lru_cache(maxsize=256)
def link_map(w: Wiring, disks: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Link and HBA index of every disk: disks are dealt to links in order, links to HBAs evenly."""
    links = tuple(i // w.disks_per_link for i in range(disks))
    n_links = links[-1] + 1 if links else 0
    hbas = tuple((link * w.hbas) // n_links if w.hbas else 0 for link in links)
    return links, hbas
