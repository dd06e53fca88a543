"""btrfs grown by `btrfs device add` and `btrfs balance start -dconvert= -mconvert=` against the real tools: mkfs.btrfs
on loop devices, the devices added while mounted, a full balance, then each device's chunks (`btrfs filesystem
show --raw`), statvfs and `btrfs filesystem usage -b`'s Free (estimated), for same-profile and converting
balances over equal and mixed sizes (Hypothesis)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planners.errors import PlanError
from planners.fs.btrfs import btrfs_layout
from planners.fs.btrfs_grow import grown_layout
from planners.grow.btrfs import CLEANUP
from runners.probes.btrfs import measure_growth
from tests.test_btrfs import tools  # noqa: F401  (the fixture: root, btrfs-progs and a kernel with btrfs)

MiB, GiB = 1 << 20, 1 << 30
# A filesystem being grown holds data. One that holds none is another case for the kernel: a balance that
# relocates a data chunk first allocates a new one (btrfs_may_alloc_data_chunk), and refuses with ENOSPC
# when the disks have no room for it (one 2496 MiB disk grown by 1025 MiB to raid1 fills the small one).
# 60 x 64 KiB: a whole number of raid5 and raid6 stripes over up to seven disks (data disks 1 to 6), so the
# raw bytes it takes divide back to it exactly where btrfs-progs turns raw bytes into Free (estimated).
STORED = 60 * 64 * 1024


def _check(sizes, added, data, meta, to_data, to_meta) -> None:
    """Before: every figure of the fresh filesystem. After the balance and the one that drops empty chunks, as
    the grow script runs them: the size statvfs reports and Free (estimated), which do not depend on where the
    kernel put each chunk (that depends on when its cleaner ran: see planners.grow.btrfs)."""
    old = btrfs_layout(sizes, data_profile=data, metadata_profile=meta)
    grown = grown_layout(old, added, to_data, to_meta)
    opts = ["-d", old.data_profile, "-m", old.metadata_profile]
    balances = [[f"-dconvert={to_data}", f"-mconvert={to_meta}"], list(CLEANUP)]
    before, after = measure_growth(sizes, added, opts, balances, stored=STORED)
    assert tuple(before) == (old.used, old.df_size_bytes, old.df_available_bytes, old.free_estimated_bytes)
    # The stored file's bytes fill its data chunk: Free (estimated) is short of the empty filesystem's by them.
    assert (after.df_size_bytes, after.free_estimated_bytes + STORED) == (
        grown.df_size_bytes,
        grown.free_estimated_bytes,
    ), (
        sizes,
        added,
        data,
        meta,
        to_data,
        to_meta,
    )


CASES = [
    ([2 * GiB, 2 * GiB], [2 * GiB], "raid1", "raid1", "raid1", "raid1"),
    ([2 * GiB, 2 * GiB], [3 * GiB], "raid1", "raid1", "raid1", "raid1"),
    ([2 * GiB, 2 * GiB], [2 * GiB, 2 * GiB], "raid1", "raid1", "raid10", "raid1"),
    ([2 * GiB], [2 * GiB], None, None, "raid1", "raid1"),
    ([3 * GiB] * 3, [3 * GiB], "raid1", "raid1c3", "raid1", "raid1c3"),
    ([2 * GiB] * 3, [2 * GiB], "raid5", "raid1", "raid5", "raid1"),
    ([2 * GiB] * 3, [2 * GiB], "raid5", "raid1", "raid6", "raid1c3"),
    ([20 * GiB] * 2, [20 * GiB], "raid1", "raid1", "raid1", "raid1"),
    ([256 * MiB] * 2, [512 * MiB], "raid1", "raid1", "raid1", "raid1"),
    ([2 * GiB] * 2, [2 * GiB], "raid1", "raid1", "raid5", "raid1"),
    ([2 * GiB] * 3, [2 * GiB], "raid1", "raid1", "raid1c3", "raid1"),
    ([1 * GiB], [1 * GiB] * 3, "single", "dup", "raid1", "raid1"),
    ([2 * GiB] * 2, [3 * GiB], "raid1", "raid1", "raid10", "raid1"),  # raid10 over an odd count (kernel 5.15+)
]


@pytest.mark.root
@pytest.mark.usefixtures("tools")
@pytest.mark.parametrize("case", CASES, ids=[f"{len(c[0])}+{len(c[1])}-{c[4]}-{c[5]}" for c in CASES])
def test_grown_chunks_and_df_match_the_kernel(case):
    _check(*case)


@pytest.mark.root
@pytest.mark.usefixtures("tools")
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.lists(st.integers(1024, 6000).map(lambda m: m * MiB), min_size=1, max_size=4),
    added=st.lists(st.integers(1024, 6000).map(lambda m: m * MiB), min_size=1, max_size=3),
    profiles=st.sampled_from(
        [
            ("raid1", "raid1"),
            ("raid10", "raid1"),
            ("raid1", "raid1c3"),
            ("raid0", "raid1"),
            ("raid5", "raid1"),
            ("raid6", "raid1c3"),
            ("single", "dup"),
        ]
    ),
)
def test_random_growths_match(sizes, added, profiles):
    try:
        grown_layout(btrfs_layout(sizes), added, *profiles)
    except PlanError:
        return  # a profile the grown set is too small for: btrfs refuses the conversion too
    _check(sizes, added, None, None, *profiles)


def test_too_few_devices_for_the_new_profile():
    with pytest.raises(PlanError, match="raid1c4"):
        grown_layout(btrfs_layout([GiB, GiB]), [GiB], "raid1c4", "raid1")


def _plan(count: int = 2, size: int = 2 * GiB):
    from planners.models import DiskSet, Filesystem, Plan

    fs = Filesystem(type="btrfs", data_profile="raid1", metadata_profile="raid1")
    return Plan(name="bt", disks=[DiskSet(count=count, size=size)], filesystem=fs)


def test_growth_plan_script_and_refusals(tmp_path):
    from planners.grow.btrfs import btrfs_growth, btrfs_target_plan
    from planners.grow.model import GrowRequest
    from planners.models import Lvm
    from planners.script.grow_btrfs import btrfs_grow_script
    from tests.script_helpers import assert_clean_script

    old = _plan()
    new = btrfs_target_plan(old, GrowRequest(add_disks=2, data_profile="raid10", devices=["/dev/sdy", "/dev/sdz"]))
    g = btrfs_growth(old, new)
    assert g.data_profile == ("raid1", "raid10") and g.metadata_profile == ("raid1", "raid1")
    # measured with mkfs.btrfs 6.2, btrfs device add and balance (the raid1 -> raid10 case above)
    assert (g.df_size_bytes_after, g.free_estimated_bytes_after) == (4294967296, 3992977408)
    text = btrfs_grow_script(old, g)
    assert 'run btrfs device add "${ADDED[@]}" /srv/pod' in text
    assert "run btrfs balance start -dconvert=raid10 -mconvert=raid1 /srv/pod" in text
    assert 'check_device "$dev" 2147483648 512 4096' in text and "expect_btrfs /srv/pod 2 2147483648" in text
    assert_clean_script(tmp_path / "grow.sh", text)
    with pytest.raises(PlanError, match="nothing to grow"):
        btrfs_target_plan(old, GrowRequest())
    with pytest.raises(PlanError, match="raid1c4 needs at least 4"):
        btrfs_growth(old, btrfs_target_plan(old, GrowRequest(add_disks=1, data_profile="raid1c4")))
    with pytest.raises(PlanError, match="across raw disks"):
        btrfs_target_plan(old.model_copy(update={"lvm": Lvm(enabled=True)}), GrowRequest(add_disks=1))


def test_cli_grows_a_btrfs(tmp_path, capsys):
    import json

    from app.cli.main import main
    from app.shared.planfile import plan_to_toml

    path = tmp_path / "bt.toml"
    path.write_text(plan_to_toml(_plan()))
    assert main(["grow", str(path), "--add-disks", "1", "--json"]) == 0
    g = json.loads(capsys.readouterr().out)["growth"]
    assert (g["df_size_bytes_after"], g["free_estimated_bytes_after"]) == (3221225472, 2919235584)
    assert main(["grow", str(path), "--add-disks", "1", "--metadata-profile", "raid7"]) == 2
    err = capsys.readouterr().err
    assert "raid7" in err and len(err.strip().splitlines()) == 1


@pytest.mark.root
@pytest.mark.usefixtures("tools")
def test_grow_script_runs_on_loop_devices(tmp_path):
    """The grow script as written, run with --run on a mounted btrfs over loop devices: it checks the system and
    the added disks, adds them and balances; then statvfs and Free (estimated) are the plan's."""
    import subprocess

    from planners.grow.btrfs import btrfs_growth, btrfs_target_plan
    from planners.grow.model import GrowRequest
    from planners.models import DiskSet
    from planners.script.grow_btrfs import btrfs_grow_script
    from runners.exec import run
    from runners.probes.btrfs import parse_free_estimated
    from runners.probes.loopdev import sparse_loops

    mnt = tmp_path / "pod"
    mnt.mkdir()
    with sparse_loops([2 * GiB] * 3) as devs:
        old = _plan().model_copy(
            update={"disks": [DiskSet(count=2, size=2 * GiB, physical_sector=512, devices=devs[:2])]}
        )
        old = old.model_copy(update={"filesystem": old.filesystem.model_copy(update={"mount_point": str(mnt)})})
        new = btrfs_target_plan(old, GrowRequest(add_disks=1, devices=devs[2:]))
        g = btrfs_growth(old, new)
        script = tmp_path / "grow.sh"
        script.write_text(btrfs_grow_script(old, g))
        try:
            run(["mkfs.btrfs", "-q", "-f", "-d", "raid1", "-m", "raid1", *devs[:2]])
            run(["mount", devs[0], str(mnt)])
            p = subprocess.run(["bash", str(script), "--run", "--yes"], capture_output=True, text=True, timeout=300)
            assert p.returncode == 0, p.stdout + p.stderr
            st = os.statvfs(mnt)
            usage = run(["btrfs", "filesystem", "usage", "-b", str(mnt)]).stdout
            assert (st.f_blocks * st.f_frsize, parse_free_estimated(usage)) == (
                g.df_size_bytes_after,
                g.free_estimated_bytes_after,
            )
        finally:
            run(["umount", str(mnt)], check=False)
            for d in devs:
                run(["btrfs", "device", "scan", "--forget", d], check=False)
