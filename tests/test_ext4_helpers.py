"""Shared by the ext4 tests that ask the real tools (holds no tests itself)."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest

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


def log_uniform(rnd: random.Random, lo: int, hi: int) -> int:
    """A size between lo and hi bytes, spread evenly over orders of magnitude."""
    return int(lo * (hi / lo) ** rnd.random())
