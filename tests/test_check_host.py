"""`podplan check` on filesystems built on loop devices, run alone (scripts/dev.sh's serial phase).

check reads the whole host's storage (every md array, LV, mounted filesystem and its block device's
queue), so a parallel worker attaching, formatting or retuning loop devices meanwhile shows up in its
figures: in a parallel run the device under test once read another test's readahead and lost its XFS.
"""

from __future__ import annotations

import os

import pytest

from planners.compute import compute
from runners.exec import have, run
from runners.probes.loopdev import sparse_loops
from tests.test_btrfs import GiB, _plan, tools  # noqa: F401  # tools: the fixture (root, btrfs-progs, btrfs)
from tests.test_direct import MiB, _plain


@pytest.mark.root
def test_check_compares_a_built_btrfs_with_its_plan(tools, tmp_path, capsys):  # noqa: F811
    import json

    from app.cli.main import main
    from app.shared.planfile import plan_to_toml
    from planners.compute import compute
    from planners.models import DiskSet
    from runners.exec import run
    from runners.probes.loopdev import mounted, sparse_loops

    sizes = [2 * GiB, 3 * GiB, 2 * GiB]
    with sparse_loops(sizes) as devs:
        plan = _plan(sizes, "raid1", "raid1c3").model_copy(
            update={
                "disks": [
                    DiskSet(count=1, size=s, physical_sector=512, devices=[d]) for s, d in zip(sizes, devs, strict=True)
                ]
            }
        )
        v = compute(plan).volumes[0]
        assert v.btrfs is not None
        path = tmp_path / "bt.toml"
        path.write_text(plan_to_toml(plan))
        try:
            run(["mkfs.btrfs", "-q", "-f", *v.btrfs.mkfs_options, *devs])
            with mounted(devs[0]) as mnt:
                capsys.readouterr()
                assert main(["check", mnt, "--plan", str(path), "--json"]) == 0
                report = json.loads(capsys.readouterr().out)
                assert report["differences"] == [] and report["compared"] >= 2
                assert "BTRFS" in report["found"]
        finally:
            for d in devs:
                run(["btrfs", "device", "scan", "--forget", d], check=False)


@pytest.mark.root
def test_check_reads_a_filesystem_straight_on_a_disk(tmp_path, capsys):
    """A one-disk plan built as its script builds it (mkfs options, readahead), then `podplan check` on the
    disk: every figure matches; a plan of another size is caught."""
    if os.geteuid() != 0 or not have("losetup") or not have("mkfs.xfs"):
        pytest.skip("needs root, losetup and mkfs.xfs for a loop device")
    import json

    from app.cli.main import main
    from app.shared.planfile import plan_to_toml
    from runners.probes.loopdev import mounted

    with sparse_loops([700 * MiB]) as (dev,):
        plan = _plain(1, 700 * MiB, fs="xfs", physical=512, devices=[dev])
        v = compute(plan).volumes[0]
        assert v.xfs is not None and v.device == dev
        run(["mkfs.xfs", "-q", "-f", "-K", *v.xfs.mkfs_options, dev])
        import subprocess

        env = {**os.environ, "PATH": os.environ.get("PATH", "") + ":/usr/sbin:/sbin"}
        subprocess.run(["blockdev", "--setra", str(v.alignment.readahead_sectors), dev], check=True, env=env)
        path = tmp_path / "one.toml"
        path.write_text(plan_to_toml(plan))
        with mounted(dev):
            capsys.readouterr()
            assert main(["check", dev, "--plan", str(path), "--json"]) == 0
            report = json.loads(capsys.readouterr().out)
            assert report["differences"] == [] and report["compared"] >= 8
            path.write_text(plan_to_toml(_plain(1, 800 * MiB, fs="xfs", physical=512, devices=[dev])))
            assert main(["check", dev, "--plan", str(path), "--json"]) == 1
            figures = {d["figure"] for d in json.loads(capsys.readouterr().out)["differences"]}
            assert "df size (bytes)" in figures
