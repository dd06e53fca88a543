"""Shared by the ext4 tests that ask the real tools (holds no tests itself)."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from planners.fs.ext4.geometry import Ext4Geometry, ext4_geometry
from runners.exec import have

KiB, MiB, GiB, TiB, PiB = 1 << 10, 1 << 20, 1 << 30, 1 << 40, 1 << 50


def need(*tools: str) -> None:
    missing = [t for t in tools if not have(t)]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")


def pmap(fn, items, workers: int = 4) -> list:
    """fn over items on a few threads (each call mostly waits on a subprocess)."""
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, items))


def assert_no_journal_inside(g: Ext4Geometry, header, df: tuple[int, int]) -> None:
    """No journal block inside the filesystem: what dumpe2fs and df report equals the geometry's figures."""
    from planners.fs.ext4.df import ext4_df

    assert header.journal_blocks == g.journal_blocks == 0
    d = ext4_df(g)
    assert (header.block_count, header.free_blocks, header.overhead_clusters) == (
        g.block_count,
        d.free_blocks,
        d.overhead_blocks,
    )
    assert df == (d.size_bytes, d.avail_bytes)


def log_uniform(rnd: random.Random, lo: int, hi: int) -> int:
    """A size between lo and hi bytes, spread evenly over orders of magnitude."""
    return int(lo * (hi / lo) ** rnd.random())


@dataclass(frozen=True)
class Ext4Case:
    """One filesystem to plan and to ask the tools about."""

    size: int
    fs_type: str = "ext4"
    block_size: int = 4096
    stride: int = 0
    stripe_width: int = 0
    reserved: float = 5.0
    explicit: bool = True  # podplan's options, or the plain documented command

    def geometry(self) -> Ext4Geometry:
        return ext4_geometry(
            self.size,
            fs_type=self.fs_type,
            block_size=self.block_size,
            stride=self.stride,
            stripe_width=self.stripe_width,
            reserved_percent=self.reserved,
        )

    def __str__(self) -> str:
        how = "explicit" if self.explicit else "plain"
        return (
            f"{self.fs_type}-b{self.block_size}-{self.size}-s{self.stride}w{self.stripe_width}-m{self.reserved}-{how}"
        )
