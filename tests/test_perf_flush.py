"""A flash drive's cache flush, stated or left out (planners.perf.flush): the figures that rest on
flushes (md's bitmap page writes, fsync and fdatasync) and the range a plan that does not say gets."""

from __future__ import annotations

import pytest

from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Hardware, Wiring
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.flush import CLIENT_FLUSH_US
from planners.perf.predict import WorkloadPrediction, predict
from planners.perf.workloads import Workload
from planners.units import MiB
from planners.versions import ToolVersions

QD1_WRITES = Workload(name="w", rw="randwrite", bs=4096, iodepth=1)
FLUSH = "drive's cache flush (flush_us)"


def _mirror(disk_class: str = "nvme", bitmap: bool = True, **disk: float) -> Plan:
    kept: dict[str, object] = {"bitmap": "internal", "bitmap_chunk": 4 * MiB} if bitmap else {"bitmap": "none"}
    return Plan(
        name="f",
        disks=[DiskSet(count=2, size=10**12, rotational=disk_class.startswith("hdd"))],
        groups=[MdGroup(name="md0", level=1, members=2, **kept)],  # type: ignore[arg-type]
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(disk=DiskSpec(disk_class=disk_class, **disk), wiring=Wiring(link="direct")),  # type: ignore[arg-type]
        tools=ToolVersions(kernel="6.1"),
    )


def _one(plan: Plan, w: Workload = QD1_WRITES) -> WorkloadPrediction:
    (p,) = predict(plan, workloads=[w])
    return p


def _flush_lines(p: WorkloadPrediction) -> list[str]:
    return [line for line in p.range_from if line.startswith(FLUSH)]


def test_an_unstated_flush_widens_a_bitmap_writes_range_down_to_a_client_drives_flush():
    unstated = _one(_mirror())
    slow = _one(_mirror(flush_us=CLIENT_FLUSH_US["nvme"]))
    assert _flush_lines(unstated) and not unstated.inputs_stated
    # The low end is what a client drive's slowest published whole flush gives (a page write and its
    # flush in 3.5 ms), not that halved again by the class's ±50 % (0.6 MB/s before: the figure at the
    # slow end is a published whole, the drive's access inside it).
    assert unstated.mb_s_low == pytest.approx(slow.mb_s, rel=0.02) and slow.mb_s < 0.1 * unstated.mb_s
    assert "flush_us not stated" in unstated.assumption


def test_a_stated_flush_narrows_the_range_again():
    unstated, plp = _one(_mirror()), _one(_mirror(flush_us=0))
    assert plp.mb_s == unstated.mb_s  # the preset is the protected drive
    assert not _flush_lines(plp)
    assert plp.mb_s_low > 10 * unstated.mb_s_low


def test_nothing_rests_on_flushes_without_a_bitmap_or_a_sync_nor_for_reads_nor_on_spinning_disks():
    assert not _flush_lines(_one(_mirror(bitmap=False)))
    assert not _flush_lines(_one(_mirror(), Workload(name="r", rw="randread", bs=4096, iodepth=1)))
    assert not _flush_lines(_one(_mirror("hdd7200")))


FDATASYNC = Workload(name="s", rw="write", bs=8192, iodepth=1, sync_every=1)


def test_each_fdatasync_on_flash_with_a_volatile_cache_pays_its_flush():
    # Samsung 990 Pro, pg_test_fsync's one 8 kB write and fdatasync: 1,643 us each (T. Poder, 2025).
    plp = _one(_mirror(bitmap=False, flush_us=0), FDATASYNC)
    cached = _one(_mirror(bitmap=False, flush_us=1600), FDATASYNC)
    assert cached.mb_s < 0.2 * plp.mb_s
    flush = next(t for t in cached.terms if t.name == "flush")
    assert "cache flush 1600 us" in flush.note


def test_an_unstated_flush_widens_a_syncing_jobs_range():
    # At 3.5 ms a flush binds as a term of its own: the range still ends at (or below) that figure.
    p = _one(_mirror(bitmap=False), FDATASYNC)
    slow = _one(_mirror(bitmap=False, flush_us=CLIENT_FLUSH_US["nvme"]), FDATASYNC)
    assert slow.binding == "flush"
    assert _flush_lines(p) and p.mb_s_low == pytest.approx(slow.mb_s, rel=0.02)


def test_a_flush_that_binds_keeps_the_spread_of_the_disk_figures_it_rests_on():
    # Stated, the flush narrows the range to the disk's other inputs (here the nvme class's), not to none.
    p = _one(_mirror(bitmap=False, flush_us=1600), FDATASYNC)
    assert p.binding == "flush" and not _flush_lines(p)
    assert p.mb_s_low < p.mb_s < p.mb_s_high


def test_an_fsync_note_gives_a_flash_journal_commit_in_its_own_figures_not_0_0_ms():
    """A protected drive's journal commit is its access time, tens of microseconds: '0.0 ms' in the
    note would say the commit costs nothing while the flush term counts it."""
    fsync = Workload(name="s", rw="randwrite", bs=4096, iodepth=1, sync_every=1, sync_metadata=True, target="file")
    p = _one(_mirror(bitmap=False, flush_us=0), fsync)
    note = next(t.note for t in p.terms if t.name == "flush")
    assert "journal's commit" in note and "commit 0.0 ms" not in note


FSYNC = Workload(name="s", rw="randwrite", bs=8192, iodepth=1, sync_every=1, sync_metadata=True, target="file")
WHOLE_S = CLIENT_FLUSH_US["nvme"] * 1e-6  # the slowest published client fsync, a whole one


@pytest.mark.parametrize("w", [FDATASYNC, FSYNC], ids=["fdatasync", "fsync on a file"])
def test_an_unstated_flush_ends_at_the_slowest_published_whole_fsync(w: Workload) -> None:
    """The 3.5 ms (P. Zaitsev's Samsung 960 Pro) is one whole fsync: the low end is one sync in 3.5 ms.
    Before, it was charged per flush, twice on a file (data and journal), then the class's ±50 %
    halved it again: 141 fdatasyncs and 71 fsyncs a second, 2x and 4x below the published 286."""
    p = _one(_mirror(bitmap=False), w)
    per_sync_s = w.bs / (p.mb_s_low * 1e6)
    assert per_sync_s == pytest.approx(WHOLE_S, rel=0.03)


def test_one_fsync_on_a_journal_pays_one_cache_flush():
    """ext4's fsync writes its journal and one commit block with REQ_PREFLUSH | REQ_FUA, whose preflush
    writes out the data too (ext4_sync_file, jbd2); XFS forces its log the same way (xfs_file_fsync):
    a stated flush_us is paid once a sync, the journal adding only its own write (before: twice)."""
    plp, cached = (_one(_mirror(bitmap=False, flush_us=f), FSYNC) for f in (0, 1600))
    t_plp, t_cached = (next(t for t in p.terms if t.name == "flush") for p in (plp, cached))
    per_sync = 8192 / (t_cached.mb_s * 1e6) - 8192 / (t_plp.mb_s * 1e6)
    assert per_sync == pytest.approx(1600e-6, rel=0.01)
