"""podplan check: differences judged with their consequence, on recorded lab output and on the CLI."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from app.usecases.check import check_collection
from planners.built.asbuilt import consequence, differences
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.units import KiB, MiB
from runners.lab.collect import parse_collection

ROOT = pathlib.Path(__file__).resolve().parent.parent
BOOT = ROOT / "tests" / "fixtures" / "lab" / "boot" / "scenarios"


def _files(name: str) -> dict[str, str]:
    base = BOOT / name / "collect"
    return {str(p.relative_to(base)): p.read_text() for p in base.rglob("*") if p.is_file()}


def _r10_plan(chunk: int) -> Plan:
    # The recorded scenario, built by hand: RAID10 n2 of 4 x 96 MiB as md "0", 64 KiB chunk, no bitmap,
    # vg0/lv0, ext4 with 1 KiB blocks mounted on /mnt/b.
    return Plan(
        name="r10",
        disks=[DiskSet(count=4, size=96 * MiB)],
        groups=[MdGroup(name="0", level=10, members=4, chunk=chunk, bitmap="none")],
        lvm=Lvm(enabled=True, vg="vg0", lv="lv0"),
        filesystem=Filesystem(type="ext4", block_size=1024, mount_point="/mnt/b"),
    )


def test_every_consequence_is_a_real_sentence():
    figures = [
        "md0 level",
        "md0 members",
        "md0 spares",
        "md0 chunk (bytes)",
        "md0 data offset (sectors)",
        "md0 component (bytes)",
        "md0 array size (bytes)",
        "md0 io_min (bytes)",
        "md0 io_opt (bytes)",
        "pe_start of /dev/md0 (bytes)",
        "VG extents",
        "extent size (bytes)",
        "LV extents",
        "LV size (bytes)",
        "LV stripes",
        "LV readahead (sectors)",
        "md0 stripe_cache_size",
        "XFS agcount",
        "XFS agsize (blocks)",
        "XFS data blocks",
        "XFS sunit (blocks)",
        "XFS swidth (blocks)",
        "XFS log (blocks)",
        "ext block count",
        "ext inode count",
        "ext stride (blocks)",
        "ext stripe_width (blocks)",
        "ext reserved blocks",
        "ext journal (blocks)",
        "df size (bytes)",
        "df available (bytes)",
        "md1 start in the LV (bytes)",
        "md1 start past a full stripe (bytes)",
    ]
    for f in figures:
        text = consequence(f, 100, 50)
        assert (text != "differs from the plan" and ":" in text) or "than planned" in text, f
    assert "not found" in consequence("md0 exists", "yes", None)
    assert "(-50 against the plan)" in consequence("md0 chunk (bytes)", 100, 50)
    assert "straddles two stripes" in consequence("md1 start past a full stripe (bytes)", 0, 5 * MiB)


def test_matching_figures_are_not_differences():
    assert differences([("md", "md0 chunk (bytes)", 65536, 65536)]) == []
    [d] = differences([("md", "md0 chunk (bytes)", 524288, 65536)])
    assert "read-modify-write" in d.consequence


def test_recorded_build_matches_its_plan_and_a_wrong_plan_is_caught():
    c = parse_collection(_files("r10lvext4"))
    compared, diffs = check_collection(_r10_plan(64 * KiB), c)
    # Built by hand, without the script's readahead rule: the only difference, and check names it.
    assert compared >= 20
    assert [(d.figure, d.planned, d.actual) for d in diffs] == [("LV readahead (sectors)", 2048, 512)]
    assert "fewer disks busy" in diffs[0].consequence
    _, diffs = check_collection(_r10_plan(512 * KiB), c)
    by = {d.figure: d for d in diffs}
    assert by["0 chunk (bytes)"].planned == 512 * KiB and by["0 chunk (bytes)"].actual == 64 * KiB
    assert "io_min" in " ".join(by) and all(d.consequence for d in diffs)


def test_cli_check_needs_an_existing_target(tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text(
        subprocess.run(
            [sys.executable, "-m", "app.cli.main", "example"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    )
    out = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "check", "/dev/nonexistent-md", "--plan", str(plan)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and out.stderr.strip() == "podplan: /dev/nonexistent-md: no such device or directory"
    out = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "check", "/dev/null"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "--plan" in out.stderr and "Traceback" not in out.stderr


def test_check_says_what_it_found_first_and_each_consequence_once():
    import io

    from rich.console import Console

    from app.cli.check import print_differences
    from app.usecases.check import describe_target

    c = parse_collection(_files("r10lvext4"))
    found = describe_target("/mnt/b", c)
    assert found.startswith("/mnt/b: EXT4 on /dev/dm-") and "1 md array (raid10)" in found and "LVM: 1 LV" in found
    plan = Plan(
        name="other",
        disks=[DiskSet(count=6, size=96 * MiB)],
        groups=[MdGroup(name="9", level=6, members=6, chunk=512 * KiB)],
        filesystem=Filesystem(type="ext4", block_size=1024),
    )
    compared, diffs = check_collection(plan, c)
    out = io.StringIO()
    print_differences(Console(file=out, width=200), "/mnt/b", compared, diffs, found)
    text = out.getvalue()
    assert text.startswith(f"found {found}")
    notes = [line.split("] ", 1)[1] for line in text.splitlines() if line.startswith("[")]
    assert len(notes) == len(set(notes))  # each consequence once, under the table
    assert set(notes) >= {d.consequence for d in diffs if "against the plan" not in d.consequence}
    # A wrong chunk moves every size above md: one note for all of them, each figure's delta in its row.
    compared, diffs = check_collection(_r10_plan(512 * KiB), c)
    out = io.StringIO()
    print_differences(Console(file=out, width=200), "/mnt/b", compared, diffs, found)
    notes = [line for line in out.getvalue().splitlines() if line.startswith("[")]
    assert len(notes) < len(diffs) and "+3,913,728" in out.getvalue()


def test_check_of_a_plain_filesystem_says_what_it_is_and_missing_once():
    """A directory on a plain disk: its filesystem named, and every missing figure under one note."""
    import io

    from rich.console import Console

    from app.cli.check import print_differences
    from app.usecases.check import describe_target

    empty = parse_collection({})
    found = describe_target("/srv/data", empty, ("/dev/loop4", "xfs", "/srv"))
    assert found == "/srv/data: XFS on /dev/loop4, mounted on /srv, not on md or LVM"
    assert describe_target("/srv", empty, ("/dev/loop4", "xfs", "/srv")) == "/srv: XFS on /dev/loop4, not on md or LVM"
    compared, diffs = check_collection(_r10_plan(64 * KiB), empty)
    out = io.StringIO()
    print_differences(Console(file=out, width=200), "/srv/data", compared, diffs, found)
    text = out.getvalue()
    notes = [line for line in text.splitlines() if line.startswith("[")]
    assert len(diffs) > 3 and notes == ["[1] not found: not built as planned, not assembled, or not mounted"]
    big = [d.planned for d in diffs if isinstance(d.planned, int) and d.planned >= 1000]
    assert big and all(f"{p:,}" in text for p in big)  # grouped, as the difference column and `plan` write them


def test_check_of_a_device_says_what_it_holds(tmp_path):
    """`check /dev/loopN` on a mounted ext4, an LVM PV and an empty device: what blkid reads there, named, with
    the label, UUID and mount point, instead of 'nothing podplan can read'."""
    import os

    import pytest

    from app.usecases.check import describe_target
    from runners.exec import run
    from runners.probes.loopdev import mounted, sparse_loops
    from runners.probes.lvm import lvm_sandbox
    from runners.validate.contents import describe_device

    if os.geteuid() != 0:
        pytest.skip("loop devices and mount need root")
    plan = tmp_path / "p.toml"
    plan.write_text(
        subprocess.run(
            [sys.executable, "-m", "app.cli.main", "example"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    )
    with sparse_loops([64 * MiB] * 3) as (ext4, pv, empty):
        run(["mkfs.ext4", "-q", "-F", "-L", "podlabel", ext4])
        uuid = run(["blkid", "-p", "-o", "value", "-s", "UUID", ext4]).stdout.strip()
        with mounted(ext4) as mnt:
            found = describe_device(ext4)
            assert found == f"EXT4 filesystem (label podlabel, UUID {uuid}), mounted on {mnt}"
            out = subprocess.run(
                [sys.executable, "-m", "app.cli.main", "check", ext4, "--plan", str(plan)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert out.stdout.splitlines()[0] == f"found {ext4}: {found}; no md array or LVM volume there", out.stderr
        with lvm_sandbox([pv]) as env:
            run(["pvcreate", "--yes", pv], env=env)
        pv_uuid = run(["blkid", "-p", "-o", "value", "-s", "UUID", pv]).stdout.strip()
        assert describe_device(pv) == f"an LVM physical volume (UUID {pv_uuid})"
        assert describe_device(empty) == "no signature that blkid knows (empty, or data it cannot name)"
    assert (
        describe_target("/dev/null", parse_collection({}), None, describe_device("/dev/null"))
        == "/dev/null: no filesystem or array that podplan can read there"
    )


def test_an_md_member_and_a_partition_table_are_named_with_who_holds_them():
    from runners.validate.contents import describe_found

    member = {"TYPE": "linux_raid_member", "LABEL": "pod1:md0", "UUID": "0b1c"}
    assert (
        describe_found(member, mounts=[], holders=["md127"], parts=[])
        == "an md RAID member (label pod1:md0, UUID 0b1c), held by md127"
    )
    gpt = {"PTTYPE": "gpt", "PTUUID": "9f"}
    parts = [("sdb1", {"TYPE": "xfs", "UUID": "aa"}, ["/boot"]), ("sdb2", {"TYPE": "LVM2_member", "UUID": "bb"}, [])]
    assert describe_found(gpt, mounts=[], holders=[], parts=parts) == (
        "a gpt partition table with sdb1 (XFS filesystem (UUID aa), mounted on /boot); "
        "sdb2 (an LVM physical volume (UUID bb))"
    )
