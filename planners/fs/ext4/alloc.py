"""Where mke2fs puts the flex_bg tables, the first directories and the journal.

Only one figure needs block positions: how many extents the journal ends up in. A journal
in more than four extents needs an extent tree block, one more block gone from `df`. The
pieces follow from the free runs mke2fs meets walking from its journal goal, so this
module replays libext2fs's allocation for the few flex groups involved: the table
placement of each flex group is independent of the others, and everything else starts
in group 0 or at the journal goal.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator

from planners.errors import PodplanError
from planners.fs.ext4.layout import Shape

MAX_INIT_EXTENT = 32768  # longest initialised extent, in blocks
ROOT_EXTENTS = 4  # extents that fit in the inode itself


class Unmodelled(PodplanError):
    """The layout took a path of mke2fs's allocator that this replay does not follow."""


class _UsedBlocks:
    """Used blocks: each group's superblock/descriptor runs plus blocks marked here."""

    def __init__(self, shape: Shape, on_touch: Callable[[int], None]):
        self.s = shape
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.on_touch = on_touch

    def mark(self, start: int, n: int) -> None:
        i = bisect_right(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, start + n)

    def _runs(self, lo: int, hi: int) -> Iterator[tuple[int, int]]:
        """(start, end) of used runs overlapping [lo, hi), unordered."""
        s = self.s
        first = max(0, s.group_of(max(lo, s.first_data_block)))
        last = min(s.groups - 1, s.group_of(max(hi - 1, s.first_data_block)))
        for g in range(first, last + 1):
            self.on_touch(g)
            for start, n in s.base_runs(g):
                if start < hi and start + n > lo:
                    yield start, start + n
        i = max(0, bisect_right(self.starts, lo) - 1)
        while i < len(self.starts) and self.starts[i] < hi:
            if self.ends[i] > lo:
                yield self.starts[i], self.ends[i]
            i += 1

    def last_used(self, lo: int, hi: int) -> int | None:
        ends = [min(e, hi) - 1 for _, e in self._runs(lo, hi)]
        return max(ends) if ends else None

    def first_used(self, lo: int, hi: int) -> int | None:
        starts = [max(b, lo) for b, _ in self._runs(lo, hi)]
        return min(starts) if starts else None

    def used_count(self, lo: int, hi: int) -> int:
        """Used blocks in [lo, hi); the runs never overlap one another."""
        return sum(min(e, hi) - max(b, lo) for b, e in self._runs(lo, hi))

    def next_free(self, x: int, limit: int) -> int | None:
        """First free block in [x, limit)."""
        while x < limit:
            ends = [e for b, e in self._runs(x, x + 1)]
            if not ends:
                return x
            x = max(ends)
        return None


class Allocator:
    """Replays mke2fs's block allocation on an ext4 (flex_bg, extents) filesystem."""

    def __init__(self, shape: Shape, *, lost_found_blocks: int, resize_inode: bool):
        if not shape.flex:
            raise Unmodelled("placement is only replayed for flex_bg filesystems")
        self.s = shape
        self.used = _UsedBlocks(shape, self._touch)
        self.simulating = False
        self.done: set[int] = set()
        self.bb: dict[int, int] = {}
        self.ib: dict[int, int] = {}
        self.it: dict[int, int] = {}
        self._ensure_flex(0)
        self._place_first_files(lost_found_blocks, resize_inode)

    # -- flex_bg table placement ------------------------------------------------------
    def _touch(self, group: int) -> None:
        if not self.simulating:
            self._ensure_flex(group // self.s.flex)

    def _ensure_flex(self, flex: int) -> None:
        if flex in self.done:
            return
        self.done.add(flex)
        s = self.s
        first = flex * s.flex
        last = min(first + s.flex, s.groups) - 1
        lo, hi = s.group_start(first), s.group_last(last)
        self.simulating = True
        try:
            for g in range(first, last + 1):
                self._allocate_group_tables(g)
                for blk, n in ((self.bb[g], 1), (self.ib[g], 1), (self.it[g], s.inode_blocks)):
                    if blk < lo or blk + n - 1 > hi:
                        raise Unmodelled("group tables spilled out of their flex group")
        finally:
            self.simulating = False

    def _get_free(self, start: int, finish: int, num: int) -> int | None:
        """First b from `start` with [b, b+num) free, checking positions until `finish`."""
        s = self.s
        b = start or s.first_data_block
        finish = finish or start
        first = True
        while True:
            if not first and b == finish:
                return None
            first = False
            if b + num - 1 >= s.blocks:
                if finish > start:
                    return None
                b = s.first_data_block
            u = self.used.last_used(b, b + num)
            if u is None:
                return b
            nxt = u + 1
            if b < finish <= nxt:
                return None
            b = nxt

    def _flexbg_offset(self, group: int, start_blk: int, rem: int, elem: int) -> int:
        s = self.s
        size = min(rem * elem, s.blocks_per_group // 4)
        if start_blk and start_blk < s.blocks:
            found = self._get_free(start_blk, start_blk + size, elem)
            if found is not None:
                return found
        start_blk = s.group_start(s.flex * (group // s.flex))
        last_blk = s.group_last(min(group | (s.flex - 1), s.groups - 1))
        for n in (size, elem):
            found = self._get_free(start_blk, last_blk, n)
            if found is not None:
                return found
        if group >= s.flex:
            raise Unmodelled("flex group full; mke2fs would search the whole filesystem")
        found = self._get_free(0, last_blk, elem)
        return 0 if found is None else found

    def _allocate_group_tables(self, g: int) -> None:
        s = self.s
        last_grp = min(g | (s.flex - 1), s.groups - 1)
        rem = last_grp - g + 1
        last_blk = s.group_last(last_grp)
        offset = s.flex
        if g % s.flex == 0 and last_grp == s.groups - 1:
            # the last flex group keeps its tables contiguous
            offset = (last_grp & (s.flex - 1)) + 1 if last_grp & (s.flex - 1) else s.flex
        for kind, table in (("bb", self.bb), ("ib", self.ib)):
            if g % s.flex:
                prev = table[g - 1] + 1
            else:
                prev = 0 if kind == "bb" else self.bb[g] + offset
            start = self._flexbg_offset(g, prev, rem, 1)
            blk = self._get_free(start, last_blk, 1)
            if blk is None:
                blk = self._get_free(s.group_start(g), last_blk, 1)
            if blk is None:
                raise Unmodelled("no room for a bitmap")
            self.used.mark(blk, 1)
            table[g] = blk
        prev = self.it[g - 1] + s.inode_blocks if g % s.flex else self.ib[g] + offset
        start = self._flexbg_offset(g, prev, rem, s.inode_blocks)
        blk = self._get_free(start, last_blk, s.inode_blocks)
        if blk is None:
            raise Unmodelled("no room for an inode table")
        self.used.mark(blk, s.inode_blocks)
        self.it[g] = blk

    # -- files mke2fs creates ---------------------------------------------------------
    def new_block(self, goal: int) -> int:
        s = self.s
        if not goal or goal >= s.blocks:
            goal = s.first_data_block
        b = self.used.next_free(goal, s.blocks)
        if b is None and goal != s.first_data_block:
            b = self.used.next_free(s.first_data_block, goal)
        if b is None:
            raise Unmodelled("filesystem full")
        self.used.mark(b, 1)
        return b

    def _place_first_files(self, lost_found_blocks: int, resize_inode: bool) -> None:
        s = self.s
        self.new_block(s.group_start(0))  # root directory
        prev = self.new_block(s.group_start(0))  # lost+found, grown block by block
        for _ in range(lost_found_blocks - 1):
            prev = self.new_block(prev)
        if resize_inode:
            goal = s.first_data_block + s.desc_blocks + s.reserved_gdt + 2 + s.inode_blocks
            self.new_block(goal)

    def group_free(self, g: int) -> int:
        self._touch(g)
        start = self.s.group_start(g)
        return self.s.group_len(g) - self.used.used_count(start, start + self.s.group_len(g))

    def _journal_goal(self) -> int:
        s = self.s
        group = s.group_of((s.blocks - s.first_data_block) // 2)
        if s.flex > 1 and group > s.flex:
            group &= ~(s.flex - 1)
            while group < s.groups and self.group_free(group) == 0:
                group += 1
            if group == s.groups:
                group = 0
            start = group
        else:
            start = group - 1 if group > 0 else group
        end = group + 1 if group + 1 < s.groups else group
        best = start
        for i in range(start + 1, end + 1):
            if self.group_free(i) > self.group_free(best):
                best = i
        return s.group_start(best)

    def _new_range(self, goal: int, length: int) -> tuple[int, int]:
        s = self.s
        if not goal or goal >= s.blocks:
            goal = s.first_data_block
        start = self.used.next_free(goal, s.blocks)
        if start is None:
            start = self.used.next_free(s.first_data_block, s.blocks)
            if start is None:
                raise Unmodelled("filesystem full")
        end_limit = min(start + length, s.blocks)
        used = self.used.first_used(start, end_limit)
        end = end_limit if used is None else used
        return start, end - start

    def journal_extents(self, journal_blocks: int) -> list[tuple[int, int]]:
        """(start, length) of each journal extent, in allocation order; marks them used."""
        s = self.s
        goal = self._journal_goal()
        first_free = self.used.next_free(goal, s.blocks)
        pblk = goal if first_free is None else first_free
        extents: list[tuple[int, int]] = []
        remaining = journal_blocks
        while remaining:
            start, n = self._new_range(pblk, min(remaining, MAX_INIT_EXTENT))
            self.used.mark(start, n)
            extents.append((start, n))
            if len(extents) == ROOT_EXTENTS + 1:
                # the root overflows: its entries move to a new block placed before the
                # first extent if that is free
                self.new_block(extents[0][0] - 1)
            remaining -= n
            pblk = start + n
            if pblk >= s.blocks:
                pblk = s.first_data_block
        return extents


def extent_tree_blocks(extents: int, block_size: int) -> int:
    """Blocks an extent tree of `extents` extents needs beyond the inode (one leaf)."""
    if extents <= ROOT_EXTENTS:
        return 0
    if extents <= (block_size - 12) // 12:
        return 1
    raise Unmodelled("journal extent tree deeper than one leaf")
