"""Per-group arithmetic of an ext4/ext3 filesystem: where the superblock copies and group
descriptors sit, how much metadata the whole filesystem carries, and the journal size.

These are the rules of e2fsprogs' libext2fs (sparse_super backups in groups 0, 1 and the
powers of 3, 5 and 7; meta_bg descriptor blocks in the first, second and last group of
each meta group) and of the kernel, which counts the same blocks as overhead for `df`.
"""

from __future__ import annotations

from dataclasses import dataclass

ADDR_SIZE = 4  # bytes per block number in an indirect block


def has_super(group: int) -> bool:
    """True if `group` holds a superblock copy (sparse_super)."""
    if group <= 1:
        return True
    if not group & 1:
        return False
    for base in (3, 5, 7):
        g = group
        while g % base == 0:
            g //= base
        if g == 1:
            return True
    return False


def backup_groups(groups: int) -> list[int]:
    """Sorted groups below `groups` that hold a superblock copy."""
    found = {g for g in (0, 1) if g < groups}
    for base in (3, 5, 7):
        g = base
        while g < groups:
            found.add(g)
            g *= base
    return sorted(found)


def descriptors_per_block(block_size: int, is_64bit: bool) -> int:
    return block_size // (64 if is_64bit else 32)


def reserved_gdt_blocks(
    blocks: int, first_data_block: int, blocks_per_group: int, desc_per_block: int, desc_blocks: int, block_size: int
) -> int:
    """Descriptor blocks mke2fs reserves so the filesystem can grow online to 1024 times its
    size, or to 2^32 blocks, whichever is smaller (capped at one indirect block's worth)."""
    max_blocks = 0xFFFFFFFF
    if blocks < max_blocks // 1024:
        max_blocks = blocks * 1024
    rsv_groups = -(-(max_blocks - first_data_block) // blocks_per_group)
    rsv = (-(-rsv_groups // desc_per_block) - desc_blocks) & 0xFFFFFFFF  # unsigned in C
    return min(rsv, block_size // ADDR_SIZE)


def default_journal_blocks(blocks: int) -> int:
    """Journal length mke2fs picks for a filesystem of `blocks` blocks (0: none fits)."""
    if blocks < 2048:
        return 0
    for limit, size in (
        (32768, 1024),
        (256 * 1024, 4096),
        (512 * 1024, 8192),
        (4096 * 1024, 16384),
        (8192 * 1024, 32768),
        (16384 * 1024, 65536),
        (32768 * 1024, 131072),
    ):
        if blocks < limit:
            return size
    return 262144


def indirect_blocks(data_blocks: int, block_size: int) -> int:
    """Indirect blocks a block-mapped (non-extent) file of `data_blocks` blocks needs."""
    per = block_size // ADDR_SIZE
    rest = data_blocks - 12
    count = 0
    for level in range(1, 4):
        if rest <= 0:
            break
        span = per**level
        take = min(rest, span)
        # the top block of this level plus the blocks of the partial tree below it
        count += 1 + sum(-(-take // per**k) for k in range(1, level))
        rest -= take
    return count


@dataclass(frozen=True)
class Shape:
    """The numbers that fix an ext4 layout, in blocks unless named otherwise."""

    blocks: int
    first_data_block: int
    blocks_per_group: int
    groups: int
    desc_blocks: int
    desc_per_block: int
    reserved_gdt: int
    meta_bg: bool
    inode_blocks: int
    flex: int
    block_size: int

    def group_start(self, group: int) -> int:
        return self.first_data_block + group * self.blocks_per_group

    def group_len(self, group: int) -> int:
        if group == self.groups - 1:
            return self.blocks - self.group_start(group)
        return self.blocks_per_group

    def group_last(self, group: int) -> int:
        return self.group_start(group) + self.group_len(group) - 1

    def group_of(self, block: int) -> int:
        return (block - self.first_data_block) // self.blocks_per_group

    def base_runs(self, group: int) -> list[tuple[int, int]]:
        """(start, length) of the superblock copy and descriptor blocks in `group`."""
        start = self.group_start(group)
        sb = has_super(group)
        runs: list[tuple[int, int]] = []
        if not self.meta_bg:
            if sb:
                n = 1 + self.desc_blocks + self.reserved_gdt
                runs.append((start, min(n, self.blocks - start)))
            return runs
        if sb:
            runs.append((start, 1))
        if group % self.desc_per_block in (0, 1, self.desc_per_block - 1):
            runs.append((start + sb, 1))
        return _merge(runs)

    def base_total(self) -> int:
        """Superblock copies, descriptor and reserved descriptor blocks of all groups."""
        backups = backup_groups(self.groups)
        if not self.meta_bg:
            return sum(n for g in backups for _, n in self.base_runs(g))
        per = self.desc_per_block
        full, tail = divmod(self.groups, per)
        desc = 3 * full + sum(1 for r in range(tail) if r in (0, 1, per - 1))
        return len(backups) + desc

    def metadata_total(self) -> int:
        """All static metadata: base blocks plus both bitmaps and the inode table per group."""
        return self.base_total() + self.groups * (2 + self.inode_blocks)


def _merge(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, n in sorted(runs):
        if out and out[-1][0] + out[-1][1] == start:
            out[-1] = (out[-1][0], out[-1][1] + n)
        else:
            out.append((start, n))
    return out
