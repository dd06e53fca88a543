"""ext4 with its journal on another device (`journal_device`, mke2fs -O journal_dev there, then -J device=)
against real filesystems: the journal device on a loop device, the filesystem on a sparse image made with the
build script's options, `dumpe2fs -h`, and loop mount + `df -B1`."""

from __future__ import annotations

import os

import pytest

from planners.compute import compute
from planners.errors import PlanError
from planners.fs.ext4.df import ext4_df
from planners.fs.ext4.geometry import ext4_geometry, journal_device_args, mke2fs_args
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.script.build import build_script
from runners.exec import run
from runners.probes.ext4 import df_of_image, make_image
from runners.probes.loopdev import sparse_loops
from tests.test_ext4_helpers import GiB, MiB, TiB, assert_no_journal_inside, need

# (size, block size, stride, stripe width): the three block sizes, small and large, with a stripe.
CASES = [
    (100 * MiB, 1024, 0, 0),
    (700 * MiB, 2048, 0, 0),
    (70 * GiB, 4096, 32, 256),
    (4 * TiB + 8192, 4096, 0, 0),
]


@pytest.mark.root
def test_external_journal_matches_mke2fs_dumpe2fs_and_df(tmp_path):
    need("mke2fs", "dumpe2fs", "losetup", "mount", "umount", "df")
    with sparse_loops([32 * MiB]) as (journal,):
        for size, bs, stride, width in CASES:
            g = ext4_geometry(size, block_size=bs, stride=stride, stripe_width=width, journal_device=journal)
            run(journal_device_args(g, journal))
            image = str(tmp_path / f"{size}-{bs}.img")
            try:
                header = make_image(g, image)
                df = df_of_image(image)
            finally:
                os.unlink(image)
            assert "has_journal" in header.features and set(header.features) == set(g.features)
            assert_no_journal_inside(g, header, df)
            d = ext4_df(g)
            inside = ext4_df(ext4_geometry(size, block_size=bs, stride=stride, stripe_width=width))
            assert d.avail_bytes > inside.avail_bytes  # the journal's blocks are the filesystem's


def test_journal_device_reaches_the_plan_script_and_findings():
    fs = Filesystem(type="ext4", journal_device="/dev/disk/by-id/nvme-journal")
    plan = Plan(name="ext", disks=[DiskSet(count=4, size=10**12)], lvm=Lvm(enabled=True, mode="striped"), filesystem=fs)
    r = compute(plan)
    e = r.volumes[0].ext4
    assert e is not None and e.journal_blocks == 0 and e.journal_device == fs.journal_device
    assert "device=/dev/disk/by-id/nvme-journal" in mke2fs_args(e)
    text = build_script(plan, r)
    assert "run mke2fs -q -F -O journal_dev -b 4096 /dev/disk/by-id/nvme-journal" in text
    assert "check_device /dev/disk/by-id/nvme-journal 4194304 - -" in text
    assert "journal_path=/dev/disk/by-id/nvme-journal" in text
    assert any(f.field == "filesystem.journal_device" for f in r.findings)
    inside = compute(plan.model_copy(update={"filesystem": Filesystem(type="ext4")}))
    assert r.usable_bytes > inside.usable_bytes
    for bad, why in (
        ({"type": "xfs", "journal_device": "/dev/sdz"}, "ext4/ext3 setting"),
        ({"type": "ext4", "journal": False, "journal_device": "/dev/sdz"}, "contradict"),
        ({"type": "ext4", "journal_device": "sdz"}, "not allowed"),
    ):
        with pytest.raises(ValueError, match=why):
            Filesystem(**bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one of the plan's disks"):
        Plan(
            name="x",
            disks=[DiskSet(count=1, size=10**12, devices=["/dev/sdz"])],
            filesystem=Filesystem(type="ext4", journal_device="/dev/sdz"),
        )
    two_arrays = Plan(
        name="x",
        disks=[DiskSet(count=4, size=10**12)],
        groups=[MdGroup(name="a", level=1, members=2), MdGroup(name="b", level=1, members=2)],
        filesystem=fs,
    )
    with pytest.raises(PlanError, match="one journal device cannot serve"):
        compute(two_arrays)


def test_cli_journal_device_in_one_line(capsys):
    from app.cli.main import main

    argv = ["plan", "--disks", "1", "--no-md", "--no-lvm", "--fs", "ext4", "--journal-device", "/dev/sdz", "--json"]
    assert main(argv) == 0
    assert '"journal_device": "/dev/sdz"' in capsys.readouterr().out
    assert main([*argv[:-1], "--no-journal"]) == 2
    err = capsys.readouterr().err
    assert "contradict" in err and len(err.strip().splitlines()) == 1


def test_the_form_keeps_the_journal_device_and_drops_it_with_ext4():
    from app.tui.form_model import compute_form, values_from_plan

    plan = Plan(
        name="x", disks=[DiskSet(count=1, size=10**12)], filesystem=Filesystem(type="ext4", journal_device="/dev/sdz")
    )
    values = values_from_plan(plan)
    values["label"] = "scratch"
    kept, _ = compute_form(plan, values)
    assert kept.filesystem.journal_device == "/dev/sdz"
    values["fs"] = "xfs"
    moved, _ = compute_form(plan, values)
    assert moved.filesystem.type == "xfs" and moved.filesystem.journal_device is None
