"""`podplan check` on filesystems built on loop devices.

check reads only the stack under its target, so other tests' loop devices, arrays and mounts (or a
second pod, /boot, a data disk on a real server) are never compared with the plan: these tests run
in the parallel suite beside them.
"""

from __future__ import annotations

import os

import pytest

from planners.compute import compute
from planners.models import Plan
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


def _built_plain(dev: str, size: int, fs: str) -> Plan:
    """A one-disk plan of `fs` on `dev`, built as its script builds it (mkfs options, readahead)."""
    import subprocess

    from runners.probes.ext4 import mkfs_argv

    plan = _plain(1, size, fs=fs, physical=512, devices=[dev])
    v = compute(plan).volumes[0]
    if v.xfs is not None:
        run(["mkfs.xfs", "-q", "-f", "-K", *v.xfs.mkfs_options, dev])
    else:
        assert v.ext4 is not None
        run(mkfs_argv(v.ext4, dev, extended=("nodiscard",)), timeout=120)
    env = {**os.environ, "PATH": os.environ.get("PATH", "") + ":/usr/sbin:/sbin"}
    subprocess.run(["blockdev", "--setra", str(v.alignment.readahead_sectors), dev], check=True, env=env)
    return plan


@pytest.mark.root
def test_check_compares_only_the_filesystem_under_its_target(tmp_path, capsys):
    """Two filesystems of different geometry mounted side by side, each straight on its loop device:
    check of either (by device or by mount point) against its own plan finds nothing different, and
    against the other's plan reports its own figures, never the other filesystem's."""
    if os.geteuid() != 0 or not have("losetup") or not have("mkfs.xfs") or not have("mke2fs"):
        pytest.skip("needs root, losetup, mkfs.xfs and mke2fs for loop devices")
    import json

    from app.cli.main import main
    from app.shared.planfile import plan_to_toml
    from runners.probes.loopdev import mounted

    def check(target: str, plan: Plan) -> dict:
        path = tmp_path / "plan.toml"
        path.write_text(plan_to_toml(plan))
        capsys.readouterr()
        code = main(["check", target, "--plan", str(path), "--json"])
        report = json.loads(capsys.readouterr().out)
        assert code == (1 if report["differences"] else 0)
        return report

    with sparse_loops([700 * MiB, 400 * MiB]) as (a, b):
        plans = {a: _built_plain(a, 700 * MiB, "xfs"), b: _built_plain(b, 400 * MiB, "ext4")}
        with mounted(a) as mnt_a, mounted(b) as mnt_b:
            for dev, mnt, other in ((a, mnt_a, b), (b, mnt_b, a)):
                for target in (dev, mnt):
                    report = check(target, plans[dev])
                    assert report["differences"] == [] and report["compared"] >= 8, (target, report)
                wrong = check(dev, plans[other])
                st = os.statvfs(mnt)
                actual = {d["figure"]: d["actual"] for d in wrong["differences"]}
                assert actual["df size (bytes)"] == st.f_blocks * st.f_frsize
                assert actual["df available (bytes)"] == st.f_bavail * st.f_frsize
