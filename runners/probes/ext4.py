"""Ask the real mke2fs, dumpe2fs and kernel what an ext4/ext3 filesystem looks like.

- `mke2fs -n -v` on an empty file prints the geometry of any size without writing it;
- a real mke2fs on a sparse file plus `dumpe2fs -h` gives free blocks and the journal;
- a loop mount plus `df -B1` gives what the kernel reports.
argv builders and parsers are pure; the runners go through `runners.exec.run`.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from planners.fs.ext4.geometry import Ext4Geometry, mke2fs_args
from runners.exec import run
from runners.probes.loopdev import attach_loop, detach_loop, df_b1, mounted


class Mke2fsReport(BaseModel):
    """The geometry lines of `mke2fs -n -v`."""

    model_config = ConfigDict(frozen=True)

    fs_types: tuple[str, ...] = Field(description="mke2fs.conf sections used, e.g. ('ext4', 'big').")
    block_size: int = Field(description="Block size in bytes.")
    stride: int = Field(description="RAID stride, in blocks.")
    stripe_width: int = Field(description="RAID stripe width, in blocks.")
    inode_count: int = Field(description="Inodes (count).")
    block_count: int = Field(description="Filesystem blocks, in blocks.")
    reserved_blocks: int = Field(description="Blocks reserved for root, in blocks.")
    first_data_block: int = Field(description="First data block number.")
    max_fs_blocks: int = Field(description="Online-resize limit, in blocks (0 if not printed).")
    block_groups: int = Field(description="Block groups (count).")
    blocks_per_group: int = Field(description="Blocks per group, in blocks.")
    inodes_per_group: int = Field(description="Inodes per group (count).")
    backup_superblocks: tuple[int, ...] = Field(description="Backup superblock block numbers.")
    unused_blocks: int = Field(description="Blocks left unused by last-group trimming, in blocks.")

    @property
    def size_type(self) -> str:
        """The size type mke2fs chose ('default' has no section of its own)."""
        return self.fs_types[1] if len(self.fs_types) > 1 else "default"


class DumpE2fsHeader(BaseModel):
    """The superblock and journal fields of `dumpe2fs -h` this project checks."""

    model_config = ConfigDict(frozen=True)

    features: tuple[str, ...] = Field(description="Filesystem features.")
    block_count: int = Field(description="Blocks, in blocks.")
    inode_count: int = Field(description="Inodes (count).")
    reserved_blocks: int = Field(description="Reserved block count, in blocks.")
    overhead_clusters: int = Field(description="Overhead recorded by mke2fs, in blocks (0 if absent).")
    free_blocks: int = Field(description="Free blocks, in blocks.")
    first_block: int = Field(description="First data block number.")
    block_size: int = Field(description="Block size in bytes.")
    reserved_gdt_blocks: int = Field(description="Reserved GDT blocks, in blocks (0 if absent).")
    blocks_per_group: int = Field(description="Blocks per group, in blocks.")
    inodes_per_group: int = Field(description="Inodes per group (count).")
    inode_blocks_per_group: int = Field(description="Inode table blocks per group, in blocks.")
    flex_bg_size: int = Field(description="Flex block group size (0 if absent).")
    stride: int = Field(description="RAID stride, in blocks (0 if absent).")
    stripe_width: int = Field(description="RAID stripe width, in blocks (0 if absent).")
    journal_blocks: int = Field(description="Total journal blocks, in blocks (0 if no journal).")


def _int(pattern: str, text: str, default: int | None = None) -> int:
    m = re.search(pattern, text, re.MULTILINE)
    if m is None:
        if default is None:
            raise ValueError(f"mke2fs output lacks {pattern!r}")
        return default
    return int(m.group(1))


def parse_mke2fs_verbose(stdout: str, stderr: str = "") -> Mke2fsReport:
    """Parse what `mke2fs -n -v` prints (stdout, and stderr for the trimming warning)."""
    types = re.search(r"^fs_types for mke2fs\.conf resolution: (.*)$", stdout, re.MULTILINE)
    if types is None:
        raise ValueError("mke2fs output lacks the fs_types line (was -v given?)")
    backups: tuple[int, ...] = ()
    m = re.search(r"^Superblock backups stored on blocks:\s*(.*?)(?:\n\n|\Z)", stdout, re.MULTILINE | re.DOTALL)
    if m:
        backups = tuple(int(x) for x in re.findall(r"\d+", m.group(1)))
    return Mke2fsReport(
        fs_types=tuple(re.findall(r"'([^']*)'", types.group(1))),
        block_size=_int(r"^Block size=(\d+)", stdout),
        stride=_int(r"^Stride=(\d+) blocks", stdout),
        stripe_width=_int(r"Stripe width=(\d+) blocks", stdout),
        inode_count=_int(r"^(\d+) inodes, \d+ blocks$", stdout),
        block_count=_int(r"^\d+ inodes, (\d+) blocks$", stdout),
        reserved_blocks=_int(r"^(\d+) blocks \([\d.]+%\) reserved for the super user", stdout),
        first_data_block=_int(r"^First data block=(\d+)", stdout),
        max_fs_blocks=_int(r"^Maximum filesystem blocks=(\d+)", stdout, 0),
        block_groups=_int(r"^(\d+) block groups?$", stdout),
        blocks_per_group=_int(r"^(\d+) blocks per group", stdout),
        inodes_per_group=_int(r"^(\d+) inodes per group", stdout),
        backup_superblocks=backups,
        unused_blocks=_int(r"^warning: (\d+) blocks unused", stderr, 0),
    )


def parse_dumpe2fs_header(text: str) -> DumpE2fsHeader:
    """Parse `dumpe2fs -h` output ("Key:  value" lines)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key and not key.startswith(" "):
            fields.setdefault(key.strip(), value.strip())

    def num(key: str, default: int | None = None) -> int:
        if key not in fields:
            if default is None:
                raise ValueError(f"dumpe2fs output lacks {key!r}")
            return default
        return int(fields[key].split()[0])

    return DumpE2fsHeader(
        features=tuple(fields.get("Filesystem features", "").split()),
        block_count=num("Block count"),
        inode_count=num("Inode count"),
        reserved_blocks=num("Reserved block count"),
        overhead_clusters=num("Overhead clusters", 0),
        free_blocks=num("Free blocks"),
        first_block=num("First block"),
        block_size=num("Block size"),
        reserved_gdt_blocks=num("Reserved GDT blocks", 0),
        blocks_per_group=num("Blocks per group"),
        inodes_per_group=num("Inodes per group"),
        inode_blocks_per_group=num("Inode blocks per group"),
        flex_bg_size=num("Flex block group size", 0),
        stride=num("RAID stride", 0),
        stripe_width=num("RAID stripe width", 0),
        journal_blocks=num("Total journal blocks", 0),
    )


def probe_argv(geometry: Ext4Geometry, path: str, *, explicit: bool = True) -> list[str]:
    """`mke2fs -n -v` for `geometry` on an empty file, with podplan's explicit options or
    with only what the plain documented command gives (-t, -b, -E stride/stripe_width)."""
    g = geometry
    if explicit:
        opts = mke2fs_args(g)
    else:
        opts = ["-t", g.fs_type, "-b", str(g.block_size)]
        if g.stride:
            opts += ["-E", f"stride={g.stride},stripe_width={g.stripe_width}"]
    return ["mke2fs", "-n", "-v", *opts, path, str(g.device_blocks)]


def mkfs_argv(geometry: Ext4Geometry, path: str, *, extended: Sequence[str] = ()) -> list[str]:
    """A real, quiet mke2fs of `geometry` on `path` (a device or an image file)."""
    return ["mke2fs", "-F", "-q", *mke2fs_args(geometry, extended=tuple(extended)), path]


def probe(geometry: Ext4Geometry, *, explicit: bool = True, timeout: float = 60.0) -> Mke2fsReport:
    """Run `mke2fs -n -v` on an empty scratch file and parse its report."""
    with tempfile.TemporaryDirectory(prefix="podplan-ext4-") as tmp:
        path = os.path.join(tmp, "probe.img")
        open(path, "wb").close()
        res = run(probe_argv(geometry, path, explicit=explicit), timeout=timeout)
    return parse_mke2fs_verbose(res.stdout, res.stderr)


def make_image(geometry: Ext4Geometry, path: str, *, timeout: float = 300.0) -> DumpE2fsHeader:
    """Create a sparse image of the geometry's device size, run mke2fs on it, and return
    its `dumpe2fs -h` header. The caller owns (and removes) `path`."""
    with open(path, "wb") as f:
        f.truncate(geometry.device_blocks * geometry.block_size)
    run(mkfs_argv(geometry, path, extended=("nodiscard",)), timeout=timeout)
    return parse_dumpe2fs_header(run(["dumpe2fs", "-h", path], timeout=timeout).stdout)


def df_of_image(image: str, *, timeout: float = 60.0) -> tuple[int, int]:
    """(size, available) bytes that `df -B1` reports for `image` mounted through a loop."""
    dev = attach_loop(image, timeout=timeout)
    try:
        with mounted(dev, timeout=timeout) as mnt:
            return df_b1(mnt, timeout=timeout)
    finally:
        detach_loop(dev, timeout=timeout)
