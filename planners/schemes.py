"""One object per redundancy scheme: md levels, a controller's LUN levels and btrfs profiles.

Each scheme answers for itself what the rest of podplan would otherwise ask with `level == 6`:
how many members' worth carry data, how many members it needs, how many failures it survives,
what a write costs the members (copies, or parity read-modify-write), what a rebuild reads, and
which levels md reshapes it into. The figures are md's (drivers/md: raid0.c, raid1.c, raid10.c,
raid5.c), a hardware controller's (mirrors built in pairs) and btrfs's (btrfs_raid_array in
fs/btrfs/volumes.c). Modelled after blivet's devicelibs/raid.py, where each level is a singleton
behind one interface and btrfs profiles reuse it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RAID10_LAYOUTS = ("n2", "n3", "f2", "f3", "o2", "o3")
PARITY_LAYOUTS = (
    "left-symmetric",
    "left-asymmetric",
    "right-symmetric",
    "right-asymmetric",
    "parity-first",
    "parity-last",
)

Family = Literal["md", "lun", "btrfs"]


@dataclass(frozen=True)
class Scheme:
    """How one redundancy scheme lays data on its members. Counts are members (devices) unless said."""

    name: str  # as its tool spells it: "RAID6", "raid1c3"
    level: int  # the md level it is, or the one the speed and loss models treat it as
    family: Family
    min_members: int  # the fewest members it is built from
    parity: int = 0  # members' worth of parity in each stripe
    copies: int = 1  # copies of each byte; 0: one on every member (RAID1); RAID10: its layout may say more
    chunked: bool = True  # data cut in chunks across the members (mdadm --chunk); RAID1 has none
    copies_apart: bool = True  # the copies sit on different members (btrfs dup keeps both on one)
    even_members: bool = False  # built from pairs of members (a controller's mirrors)
    layouts: tuple[str, ...] = ()  # md layouts it accepts
    reshape_to: tuple[int, ...] = ()  # md levels `mdadm --grow` reshapes it into that podplan plans
    caps_requests_at_chunk: bool = False  # md RAID0 takes no request larger than one chunk
    reshape_by_offset: bool = False  # md RAID10 reshapes by moving the data offset, every member a data disk
    bitmap_counts_array: bool = False  # md RAID10's bitmap counts array sectors (resync_max_sectors), not a member's

    @property
    def mirrored(self) -> bool:
        """True where a write goes to every copy, not to data and parity (RAID1, RAID10, btrfs raid1*)."""
        return self.copies != 1

    @property
    def striped_only(self) -> bool:
        """True where one lost member loses the data: no copy and no parity (RAID0, btrfs single)."""
        return self.copies == 1 and not self.parity

    @property
    def mirrors_every_member(self) -> bool:
        """True where every member holds the whole array (md RAID1)."""
        return self.copies == 0

    @property
    def redundant(self) -> bool:
        """True where a member can be lost: md keeps a write-intent bitmap only for these."""
        return not self.striped_only

    def copies_in(self, layout: str | None) -> int:
        """Copies a layout keeps: RAID10's n2, f3, o2... say; other schemes keep their own (0: every member)."""
        if self.layouts and self.mirrored:
            return int((layout or self.layouts[0])[1])
        return self.copies

    def copies_on(self, members: int, layout_copies: int = 0) -> int:
        """Copies of each byte over `members`: every member (RAID1), the layout's (RAID10), or its own."""
        if self.mirrors_every_member:
            return members
        if self.layouts and self.mirrored:
            return layout_copies or self.copies
        return self.copies

    def data_members(self, members: int, copies: int = 0) -> float:
        """Members' worth of data in each stripe (RAID10 n2 on 3 members: 1.5; btrfs dup on n: n / 2)."""
        if self.parity:
            return float(members - self.parity)
        if self.mirrors_every_member:
            return 1.0
        if self.mirrored:
            return members / self.copies_on(members, copies)
        return float(members) if self.chunked else 1.0  # btrfs single fills one device at a time

    def failures_tolerated(self, members: int, copies: int = 0) -> int:
        """Failed members the data outlives whichever they are."""
        if self.parity:
            return self.parity
        if not self.copies_apart:
            return 0
        return self.copies_on(members, copies) - 1

    def small_write_ios(self, members: int, copies: int = 0) -> int:
        """Member I/Os one write inside a chunk costs: itself, each copy, or read and write of data and parity."""
        if self.parity:
            return 2 * (1 + self.parity)
        return self.copies_on(members, copies)

    def write_span(self, chunk: int | None, full_stripe: int) -> int:
        """Bytes a write should cover whole (0 = none): the full stripe where parity makes a partial one a
        read-modify-write, the chunk where a write across its boundary is split, nothing on RAID1."""
        if self.parity:
            return full_stripe
        return chunk or 0

    def rebuild_reads(self, members: int, missing: int = 1) -> int:
        """Members read whole to rebuild the missing ones: every survivor for parity, one copy otherwise."""
        return members - missing if self.parity else 1

    def reshape_targets(self, layout: str | None = None) -> tuple[int, ...]:
        """The levels md reshapes this array into (md refuses far-mode RAID10 reshapes)."""
        if self.mirrored and (layout or "").startswith("f"):
            return ()
        return self.reshape_to

    def reshapes_into(self, level: int) -> bool:
        """Whether md reshapes it into `level` (its own level counts: more members)."""
        return level == self.level or level in self.reshape_to

    def layout_refusal(self, layout: str) -> str | None:
        """Why md refuses this layout for the scheme, or None."""
        if layout in self.layouts:
            return None
        if not self.layouts:
            return f"{self.name} takes no layout (got {layout!r})"
        if self.mirrored:
            return f"{self.name} layout {layout!r} is not one of {', '.join(self.layouts)}"
        return f"{self.name} layout {layout!r} is not a parity layout such as {self.layouts[0]}"


MD: dict[int, Scheme] = {
    0: Scheme("RAID0", 0, "md", 2, caps_requests_at_chunk=True),
    1: Scheme("RAID1", 1, "md", 2, copies=0, chunked=False),
    4: Scheme("RAID4", 4, "md", 2, parity=1, layouts=PARITY_LAYOUTS, reshape_to=(4,)),
    5: Scheme("RAID5", 5, "md", 2, parity=1, layouts=PARITY_LAYOUTS, reshape_to=(5, 6)),
    6: Scheme("RAID6", 6, "md", 4, parity=2, layouts=PARITY_LAYOUTS, reshape_to=(6,)),
    10: Scheme(
        "RAID10",
        10,
        "md",
        2,
        copies=2,
        layouts=RAID10_LAYOUTS,
        reshape_to=(10,),
        reshape_by_offset=True,
        bitmap_counts_array=True,
    ),
}

# A controller builds its mirrors from pairs of disks: its RAID1 of more than two disks is pairs, RAID10.
LUN: dict[int, Scheme] = {
    0: Scheme("RAID0", 0, "lun", 1),
    1: Scheme("RAID1", 10, "lun", 2, copies=2, even_members=True),
    5: Scheme("RAID5", 5, "lun", 3, parity=1),
    6: Scheme("RAID6", 6, "lun", 4, parity=2),
    10: Scheme("RAID10", 10, "lun", 4, copies=2, even_members=True),
}

# level: what the speed model treats each profile as (single and dup as one-member stripes).
BTRFS: dict[str, Scheme] = {
    "single": Scheme("single", 0, "btrfs", 1, chunked=False),
    "dup": Scheme("dup", 0, "btrfs", 1, copies=2, chunked=False, copies_apart=False),
    "raid0": Scheme("raid0", 0, "btrfs", 1),
    "raid1": Scheme("raid1", 10, "btrfs", 2, copies=2, chunked=False),
    "raid1c3": Scheme("raid1c3", 10, "btrfs", 3, copies=3, chunked=False),
    "raid1c4": Scheme("raid1c4", 10, "btrfs", 4, copies=4, chunked=False),
    "raid10": Scheme("raid10", 10, "btrfs", 2, copies=2),
    "raid5": Scheme("raid5", 5, "btrfs", 2, parity=1),
    "raid6": Scheme("raid6", 6, "btrfs", 3, parity=2),
}


def md_scheme(level: int) -> Scheme:
    """The md level's scheme (KeyError for a level md does not have: the plan model refuses those first)."""
    return MD[level]


def lun_scheme(level: int) -> Scheme:
    """A hardware controller's RAID level for a LUN."""
    return LUN[level]


def btrfs_scheme(profile: str) -> Scheme:
    """A btrfs block-group profile."""
    return BTRFS[profile]
