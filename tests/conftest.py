"""Suite-wide ordering: the lab's long boots first, so a parallel run (pytest -n) overlaps them with
everything else instead of leaving them for the end."""

from __future__ import annotations

# Longest first (one boot each; their order in a serial run does not matter).
LAB_FIRST = ("test_lab_rehearse", "test_lab_growth", "test_lab_failure", "test_lab_perf", "test_lab_validate",
             "test_lab_readahead", "test_lab_boot")


def _rank(item) -> int:  # type: ignore[no-untyped-def]
    stem = item.path.stem
    return LAB_FIRST.index(stem) if stem in LAB_FIRST else len(LAB_FIRST)


def pytest_collection_modifyitems(config, items) -> None:  # type: ignore[no-untyped-def]
    items.sort(key=_rank)  # stable: within a file and among the rest, the usual order stays
