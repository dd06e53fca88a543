"""ext4/ext3 geometry exactly as mke2fs (e2fsprogs 1.47) lays it out.

`ext4_geometry` follows mke2fs's own order: size type from the block count, inode count
from the inode ratio, then the superblock set-up (groups, inodes per group, reserved GDT
blocks, trimming a last group too small for its own metadata). `mke2fs_args` gives the
options that make the real command produce this geometry whatever the machine's
mke2fs.conf says. The per-group layout and free-space figures live in `ext4_layout`
and `ext4_df`.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, computed_field

from planners.errors import PlanError
from planners.fs.ext4.layout import (
    backup_groups,
    default_journal_blocks,
    descriptors_per_block,
    has_super,
    reserved_gdt_blocks,
)

FsType = Literal["ext4", "ext3"]
SizeType = Literal["floppy", "small", "default", "big", "huge"]

MAX_U32 = (1 << 32) - 1
PAGE_SIZE = 4096  # x86-64; mke2fs rounds a device's block count to whole pages
FIRST_INODE = 11  # inodes 1-10 are reserved, so a filesystem needs at least 12
FLEX_BG_SIZE = 16
INODE_SIZE = 256

# The mke2fs.conf that Debian 12 ships (upstream 1.47.0 adds orphan_file and
# metadata_csum_seed to ext4; neither changes the geometry).
BASE_FEATURES = ("sparse_super", "large_file", "filetype", "resize_inode", "dir_index", "ext_attr")
TYPE_FEATURES = {
    "ext3": ("has_journal",),
    "ext4": ("has_journal", "extent", "huge_file", "flex_bg", "metadata_csum", "64bit", "dir_nlink", "extra_isize"),
}
INODE_RATIOS: dict[str, int] = {
    "floppy": 8192,
    "small": 4096,
    "default": 16384,
    "big": 32768,
    "huge": 65536,
}


class Ext4Geometry(BaseModel):
    """What `mke2fs -n -v` reports for one filesystem, plus the journal it will create.

    Fields are what mke2fs is given or works out step by step; figures that follow from
    them by a fixed rule are computed fields.
    """

    model_config = ConfigDict(frozen=True)

    fs_type: FsType = Field(description="ext4 or ext3.")
    block_size: int = Field(description="Filesystem block size in bytes (1024, 2048 or 4096).")
    device_blocks: int = Field(
        description="Blocks mke2fs starts from (device size / block size, whole pages), in blocks."
    )
    block_count: int = Field(description="Blocks in the filesystem after trimming, in blocks.")
    inode_ratio: int = Field(description="Bytes of filesystem per inode (-i), in bytes.")
    inode_size: int = Field(description="On-disk inode size (-I), in bytes.")
    inodes_per_group: int = Field(description="Inodes per block group (count).")
    blocks_per_group: int = Field(description="Blocks per block group, in blocks.")
    reserved_gdt_blocks: int = Field(
        description="Descriptor blocks reserved for online growth (resize_inode), in blocks."
    )
    reserved_blocks: int = Field(description="Blocks reserved for root (-m), in blocks.")
    reserved_percent: float = Field(description="Root reserve requested (-m), in percent.")
    journal_blocks: int = Field(description="Journal length in blocks (0 when there is none).")
    flex_bg_size: int = Field(description="Block groups per flex group (-G; 0 without flex_bg).")
    stride: int = Field(description="RAID stride recorded in the superblock, in blocks.")
    stripe_width: int = Field(description="RAID stripe width recorded in the superblock, in blocks.")
    features: tuple[str, ...] = Field(description="Filesystem features mke2fs will enable.")
    journal_requested: bool = Field(
        True, description="Whether mke2fs is asked for a journal (has_journal); False: -O ^has_journal."
    )
    journal_device: str | None = Field(
        None,
        description="Path of the external journal (mke2fs -J device=PATH; the device made with -O journal_dev); "
        "None: the journal, if any, is inside the filesystem.",
    )
    e2fsprogs: tuple[int, ...] = Field(description="e2fsprogs version these figures assume.")

    # mypy takes no decorator over a property; pydantic's documentation gives this ignore for
    # computed_field.
    @computed_field(description="mke2fs.conf size type chosen from the device's block count.")  # type: ignore[prop-decorator]
    @property
    def size_type(self) -> SizeType:
        return _size_type(self.device_blocks, self.block_size)

    @computed_field(description="Block number of the primary superblock's block.")  # type: ignore[prop-decorator]
    @property
    def first_data_block(self) -> int:
        return 1 if self.block_size == 1024 else 0

    @computed_field(description="Number of block groups (count).")  # type: ignore[prop-decorator]
    @property
    def block_groups(self) -> int:
        return -(-(self.block_count - self.first_data_block) // self.blocks_per_group)

    @computed_field(description="Inodes in the filesystem (count).")  # type: ignore[prop-decorator]
    @property
    def inode_count(self) -> int:
        return self.inodes_per_group * self.block_groups

    @computed_field(description="Inode table length of one group, in blocks.")  # type: ignore[prop-decorator]
    @property
    def inode_table_blocks(self) -> int:
        return -(-self.inodes_per_group * self.inode_size // self.block_size)

    @computed_field(description="Group descriptor size in bytes (64 with 64bit, else 32).")  # type: ignore[prop-decorator]
    @property
    def desc_size(self) -> int:
        return 64 if "64bit" in self.features else 32

    @computed_field(description="Group descriptor table length, in blocks.")  # type: ignore[prop-decorator]
    @property
    def desc_blocks(self) -> int:
        return -(-self.block_groups // (self.block_size // self.desc_size))

    @computed_field(description="Filesystem size in bytes (block_count * block_size).")  # type: ignore[prop-decorator]
    @property
    def size_bytes(self) -> int:
        return self.block_count * self.block_size

    @computed_field(description="Device blocks left unused by last-group trimming, in blocks.")  # type: ignore[prop-decorator]
    @property
    def unused_blocks(self) -> int:
        return self.device_blocks - self.block_count

    @computed_field(  # type: ignore[prop-decorator]
        description="Online-resize limit ('Maximum filesystem blocks'), in blocks; 0 without reserved GDT blocks."
    )
    @property
    def max_resize_blocks(self) -> int:
        if not self.reserved_gdt_blocks:
            return 0
        per_block = self.block_size // self.desc_size
        return (self.reserved_gdt_blocks + self.desc_blocks) * per_block * self.blocks_per_group

    @property
    def meta_bg(self) -> bool:
        return "meta_bg" in self.features

    @property
    def online_grow_blocks(self) -> int:
        """Blocks the kernel can grow this filesystem to online (ext4_resize_fs) before it needs a
        descriptor block beyond the reserved GDT blocks, where it converts the filesystem to
        meta_bg. Without resize_inode (mke2fs drops it over 2^32 blocks) that is the room left in
        the last descriptor block; without 64bit, block numbers end at 2^32 - 1."""
        groups = (self.reserved_gdt_blocks + self.desc_blocks) * (self.block_size // self.desc_size)
        blocks = groups * self.blocks_per_group + self.first_data_block
        return blocks if "64bit" in self.features else min(blocks, MAX_U32)

    @property
    def backup_superblocks(self) -> tuple[int, ...]:
        """Block numbers of the backup superblocks, as mke2fs lists them."""
        return tuple(self.first_data_block + g * self.blocks_per_group for g in backup_groups(self.block_groups) if g)


def _size_type(blocks: int, block_size: int) -> SizeType:
    meg = (1024 * 1024) // block_size
    if blocks < 3 * meg:
        return "floppy"
    if blocks < 512 * meg:
        return "small"
    if blocks < 4 * 1024 * 1024 * meg:
        return "default"
    if blocks < 16 * 1024 * 1024 * meg:
        return "big"
    return "huge"


def _check_inputs(
    size_bytes: int,
    fs_type: str,
    block_size: int,
    stride: int,
    stripe_width: int,
    reserved_percent: float,
    e2fsprogs: tuple[int, ...],
) -> None:
    if fs_type not in TYPE_FEATURES:
        raise PlanError(f"Filesystem type {fs_type!r} is not ext4 or ext3.", field="fs_type")
    if block_size not in (1024, 2048, 4096):
        raise PlanError(f"Block size {block_size} is not 1024, 2048 or 4096 bytes.", field="block_size")
    if size_bytes < block_size:
        raise PlanError(f"A {size_bytes}-byte device is too small for a filesystem.", field="size_bytes")
    if not 0.0 <= reserved_percent <= 50.0:
        raise PlanError(f"Reserved blocks {reserved_percent}% must be between 0 and 50%.", field="reserved_percent")
    if stride < 0 or stripe_width < 0:
        raise PlanError("Stride and stripe width cannot be negative.", field="stride")
    if stride > 0xFFFF:
        # The superblock keeps the stride in 16 bits; mke2fs silently truncates it.
        raise PlanError(f"Stride {stride} blocks exceeds ext4's limit of 65535 blocks.", field="stride")
    if stripe_width > MAX_U32:
        raise PlanError(f"Stripe width {stripe_width} blocks does not fit in 32 bits.", field="stripe_width")
    if bool(stride) != bool(stripe_width):
        raise PlanError(
            "Give stride and stripe width together (stripe width = stride x data disks), or neither.",
            field="stripe_width",
        )
    if stride and stripe_width % stride:
        raise PlanError(
            f"Stripe width {stripe_width} is not a multiple of stride {stride}; it must be stride x data disks.",
            field="stripe_width",
        )
    if tuple(e2fsprogs) < (1, 44, 3):
        # the sizing rules used here have been stable since 1.44.3
        raise PlanError("podplan models e2fsprogs 1.44.3 and newer.", field="e2fsprogs")


def ext4_geometry(
    size_bytes: int,
    *,
    fs_type: FsType = "ext4",
    block_size: int = 4096,
    stride: int = 0,
    stripe_width: int = 0,
    reserved_percent: float = 5.0,
    rotational: bool = True,
    e2fsprogs: tuple[int, ...] = (1, 47, 0),
    journal: bool = True,
    journal_device: str | None = None,
) -> Ext4Geometry:
    """The filesystem mke2fs makes on a `size_bytes` device with `mke2fs_args` options.

    `stride`/`stripe_width` are the array's (chunk / block, stride x data disks). From
    e2fsprogs 1.47.3 mke2fs sets no stripe width on non-rotational devices, and the
    planned command follows that default. `journal=False` asks mke2fs for none (ext4 only);
    `journal_device` puts it on that device: has_journal stays, and no journal block is inside.
    """
    _check_inputs(size_bytes, fs_type, block_size, stride, stripe_width, reserved_percent, tuple(e2fsprogs))
    if tuple(e2fsprogs) >= (1, 47, 3) and not rotational:
        stripe_width = 0
    blocks = size_bytes // block_size
    if block_size < PAGE_SIZE:
        blocks &= ~(PAGE_SIZE // block_size - 1)
    if blocks == 0:
        raise PlanError(f"A {size_bytes}-byte device is too small for a filesystem.", field="size_bytes")
    device_blocks = blocks
    size_type = _size_type(blocks, block_size)
    features = set(BASE_FEATURES) | set(TYPE_FEATURES[fs_type])
    if not journal:
        if fs_type != "ext4":
            raise PlanError("only ext4 is planned without a journal (ext3 without one is ext2)", field="journal")
        if journal_device:
            raise PlanError("a journal device was given for a filesystem without a journal", field="journal_device")
        features.discard("has_journal")
    is_64bit = "64bit" in features
    if blocks > MAX_U32:
        if not is_64bit:
            raise PlanError(f"ext3 cannot address {blocks} blocks (more than 2^32); use ext4.", field="fs_type")
        features.discard("resize_inode")
    block_bits = block_size.bit_length() - 1
    if blocks > (1 << (block_bits + 3 + 32)) - 1:
        raise PlanError(f"{size_bytes} bytes is too big for ext4 with {block_size}-byte blocks.", field="size_bytes")
    inode_ratio = max(INODE_RATIOS[size_type], block_size)
    inodes = blocks * block_size // inode_ratio
    if inodes > MAX_U32:
        inodes = MAX_U32  # only reachable with 64bit, where mke2fs caps at 2^32 - 1
    reserved = int(reserved_percent * blocks / 100.0)
    geometry = _initialize(
        fs_type=fs_type,
        block_size=block_size,
        device_blocks=device_blocks,
        inode_ratio=inode_ratio,
        param_inodes=inodes,
        param_reserved=reserved,
        reserved_percent=reserved_percent,
        features=features,
        stride=stride,
        stripe_width=stripe_width,
        e2fsprogs=tuple(e2fsprogs),
    )
    if journal_device:
        # mke2fs adds the external journal whatever the size: has_journal stays, no block of it is inside
        with_journal = tuple(sorted({*geometry.features, "has_journal"}))
        return geometry.model_copy(
            update={"journal_blocks": 0, "features": with_journal, "journal_device": journal_device}
        )
    return geometry if journal else geometry.model_copy(update={"journal_requested": False})


def _initialize(
    *,
    fs_type: FsType,
    block_size: int,
    device_blocks: int,
    inode_ratio: int,
    param_inodes: int,
    param_reserved: int,
    reserved_percent: float,
    features: set[str],
    stride: int,
    stripe_width: int,
    e2fsprogs: tuple[int, ...],
) -> Ext4Geometry:
    """The superblock that libext2fs's initialisation derives from mke2fs's parameters."""
    blocks, bpg, ipg, rsv_gdt, reserved, features = _fit_groups(
        fs_type=fs_type,
        block_size=block_size,
        device_blocks=device_blocks,
        param_inodes=param_inodes,
        param_reserved=param_reserved,
        features=features,
    )
    journal = default_journal_blocks(blocks) if "has_journal" in features else 0
    if journal <= 0:
        journal = 0
        features = features - {"has_journal"}
    return Ext4Geometry(
        fs_type=fs_type,
        block_size=block_size,
        device_blocks=device_blocks,
        block_count=blocks,
        inode_ratio=inode_ratio,
        inode_size=INODE_SIZE,
        inodes_per_group=ipg,
        blocks_per_group=bpg,
        reserved_gdt_blocks=rsv_gdt,
        reserved_blocks=reserved,
        reserved_percent=reserved_percent,
        journal_blocks=journal,
        flex_bg_size=FLEX_BG_SIZE if "flex_bg" in features else 0,
        stride=stride,
        stripe_width=stripe_width,
        features=tuple(sorted(features)),
        e2fsprogs=e2fsprogs,
    )


class _Groups(NamedTuple):
    """The block groups ext2fs_initialize settles on."""

    blocks: int  # block count, after dropping a last group too small for its metadata
    blocks_per_group: int
    inodes_per_group: int
    reserved_gdt_blocks: int
    reserved_blocks: int
    features: set[str]  # meta_bg replaces resize_inode when descriptors would fill a group


def _fit_groups(
    *,
    fs_type: FsType,
    block_size: int,
    device_blocks: int,
    param_inodes: int,
    param_reserved: int,
    features: set[str],
) -> _Groups:
    """ext2fs_initialize's retry loop: fewer blocks per group when the inodes do not fit one group's
    bitmap, and one group fewer when the last cannot hold its own metadata and a little data."""
    first_data_block = 1 if block_size == 1024 else 0
    bpg = block_size * 8
    blocks = device_blocks
    reserved = param_reserved
    dpb = descriptors_per_block(block_size, "64bit" in features)
    too_small = PlanError(
        f"{device_blocks * block_size} bytes is too small for an {fs_type} filesystem with {block_size}-byte blocks.",
        field="size_bytes",
    )
    while True:
        groups = -(-(blocks - first_data_block) // bpg)
        if groups <= 0:
            raise too_small
        desc_blocks = -(-groups // dpb)
        inodes = max(param_inodes, FIRST_INODE + 1)
        ipg = -(-inodes // groups)
        if ipg > block_size * 8:
            if bpg < 256:
                raise PlanError("Too many inodes per block group; raise the inode ratio.", field="inode_ratio")
            bpg -= 8
            blocks = device_blocks
            continue
        ipg = min(ipg, (1 << 16) - block_size // INODE_SIZE)
        ipg, itable = _fill_inode_tables(ipg, groups, block_size)
        rsv_gdt = 0
        if "resize_inode" in features:
            rsv_gdt = reserved_gdt_blocks(blocks, first_data_block, bpg, dpb, desc_blocks, block_size)
        if rsv_gdt + desc_blocks > bpg * 3 // 4:
            # Descriptors would eat most of a group: mke2fs switches to meta_bg for good.
            features = (features - {"resize_inode"}) | {"meta_bg"}
            rsv_gdt = 0
        meta_bg = "meta_bg" in features
        if 3 + itable + rsv_gdt + (1 if meta_bg else desc_blocks) > bpg:
            raise PlanError("Inode tables do not fit in a block group; raise the inode ratio.", field="inode_ratio")
        last_overhead = 2 + itable
        if has_super(groups - 1):
            last_overhead += 1 + desc_blocks + rsv_gdt
        rem = (blocks - first_data_block) % bpg
        if groups == 1 and rem and rem < last_overhead:
            raise too_small
        if rem and rem < last_overhead + 50:
            # The last group cannot hold its own metadata plus a little data: drop it.
            ratio = 100.0 * param_reserved / device_blocks
            blocks -= rem
            reserved = int(ratio * blocks / 100.0)
            continue
        return _Groups(blocks, bpg, ipg, rsv_gdt, reserved, features)


def _fill_inode_tables(ipg: int, groups: int, block_size: int) -> tuple[int, int]:
    """Round inodes per group up to whole inode-table blocks and down to a multiple of 8,
    lowering it until the total fits in 32 bits. Returns (inodes per group, table blocks)."""
    per_block = block_size // INODE_SIZE
    while True:
        itable = -(-ipg * INODE_SIZE // block_size)
        fitted = max(itable * per_block, 8) & ~7
        itable = -(-fitted * INODE_SIZE // block_size)
        if fitted * groups <= MAX_U32:
            return fitted, itable
        ipg -= 1


def mke2fs_args(geometry: Ext4Geometry, *, extended: tuple[str, ...] = ()) -> list[str]:
    """Options that make `mke2fs` build exactly `geometry` on its device, independent of
    the machine's mke2fs.conf (the device path goes after them).

    `extended` adds -E options (e.g. "nodiscard"); they share the one -E because
    mke2fs before 1.47.1 keeps only the last -E it is given.
    """
    g = geometry
    args = [
        "-t",
        g.fs_type,
        "-b",
        str(g.block_size),
        "-i",
        str(g.inode_ratio),
        "-I",
        str(g.inode_size),
        "-m",
        repr(float(g.reserved_percent)),
        "-O",
        "none," + ",".join(f for f in _requested_features(g.fs_type) if g.journal_requested or f != "has_journal"),
    ]
    if g.flex_bg_size:
        args += ["-G", str(g.flex_bg_size)]
    if g.journal_device:
        args += ["-J", f"device={g.journal_device}"]
    # No stripe is written out too: without -E stride= mke2fs takes both from the device's io_min and io_opt
    # (an md array, a striped LV, a disk reporting an optimal size); its -E is read after them.
    ext = [f"stride={g.stride},stripe_width={g.stripe_width}", *extended]
    return [*args, "-E", ",".join(ext)]


def _requested_features(fs_type: FsType) -> tuple[str, ...]:
    # resize_inode is asked for even where mke2fs will drop it (over 2^32 blocks, meta_bg),
    # exactly as the stock configuration does, so both paths agree.
    return tuple(sorted(set(BASE_FEATURES) | set(TYPE_FEATURES[fs_type])))


JOURNAL_MIN_BLOCKS = 1024  # JBD2_MIN_JOURNAL_BLOCKS: mke2fs refuses a smaller journal device


def journal_device_args(geometry: Ext4Geometry, device: str) -> list[str]:
    """`mke2fs` argv that makes `device` the external journal of `geometry` (its block size: mke2fs
    refuses a journal device whose blocks differ from the filesystem's)."""
    return ["mke2fs", "-q", "-F", "-O", "journal_dev", "-b", str(geometry.block_size), device]
