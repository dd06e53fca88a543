"""Scenario validation and the jobs disk the guest unpacks."""

import io
import subprocess
import tarfile

import pytest
from pydantic import ValidationError

from runners.lab.scenario import LabDisk, Scenario, check_batch, jobs_tar

MiB = 1 << 20


def _members(data: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}


def test_disk_paths_are_known_before_boot():
    s = Scenario(name="r5", script="true", disks=(LabDisk(size_bytes=64 * MiB),) * 2)
    assert s.disk_paths() == (
        "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_r5-0",
        "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_r5-1",
    )


@pytest.mark.parametrize("name", ["", "Has-Caps", "a" * 17, "-x", "a b"])
def test_bad_names(name):
    with pytest.raises(ValidationError):
        Scenario(name=name, script="true")


def test_bad_disk_and_file_names():
    with pytest.raises(ValidationError, match="multiple of 512"):
        LabDisk(size_bytes=1000)
    with pytest.raises(ValidationError, match="file name"):
        Scenario(name="a", script="true", files={"../x": ""})


def test_batch_names_must_differ():
    with pytest.raises(ValueError, match="repeat"):
        check_batch([Scenario(name="a", script="true")] * 2)
    with pytest.raises(ValueError, match="at least one"):
        check_batch([])


def test_jobs_tar_holds_runner_and_scenarios_in_order():
    a = Scenario(name="b_first", script="echo b", files={"job.fio": "[x]\n"})
    b = Scenario(name="a_second", script="echo a", collect=False)
    data = jobs_tar([a, b])
    assert len(data) % MiB == 0
    files = _members(data)
    assert files["order"] == b"b_first\na_second\n"
    assert files["scenarios/b_first/job.fio"] == b"[x]\n"
    assert {"run.sh", "teardown.sh", "collect.sh"} <= files.keys()
    assert b"@@" not in files["collect.sh"]  # LVM field lists filled in
    assert b"pe_start" in files["collect.sh"]
    assert b"collect=0" in files["scenarios/a_second/config"]


def test_config_gives_bash_the_arguments_unchanged():
    args = ("--run", "--yes", "it's got spaces", "$HOME", "--override", "/dev/sdb")
    s = Scenario(name="q", script="true", args=args, disks=(LabDisk(size_bytes=MiB),), timeout_s=12.5)
    config = _members(jobs_tar([s]))["scenarios/q/config"].decode()
    out = subprocess.run(
        ["bash", "-c", config + 'printf "%s\\n" "$timeout" "${disks[@]}" "${args[@]}"'],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out == ["12", *s.disk_paths(), *args]


def test_rehearsal_disks_are_the_scaled_plans_so_its_guards_accept_them():
    """The build script refuses a disk of another size or other sectors than the plan's: every
    rehearsal disk has the scaled plan's size and the plan's sectors (512e in the example pod)."""
    from planners.example import example_pod
    from planners.models import DiskSet, MdGroup, Plan
    from runners.lab.rehearse import prepare

    mixed_4kn = Plan(
        name="m",
        disks=[
            DiskSet(count=2, size=1 << 40, logical_sector=4096, physical_sector=4096),
            DiskSet(count=2, size=3 << 39, logical_sector=4096, physical_sector=4096),
        ],
        groups=[MdGroup(level=5, members=4)],
    )
    for plan in (example_pod(), mixed_4kn):
        scenario, scaled, _ = prepare(plan)
        want = [(d.size, d.logical_sector, d.physical_sector) for d in scaled.disk_list()]
        assert [(d.size_bytes, d.logical_sector, d.physical_sector) for d in scenario.disks] == want
        assert {(d.logical_sector, d.physical_sector) for d in plan.disks} == {w[1:] for w in want}


def test_disk_sectors_are_checked():
    with pytest.raises(ValidationError):
        LabDisk(size_bytes=MiB, logical_sector=4096, physical_sector=512)
    with pytest.raises(ValidationError):
        LabDisk(size_bytes=MiB + 512, logical_sector=4096, physical_sector=4096)
