"""The qemu command line, the console markers, and the process discipline of a boot."""

import os
import pathlib
import time

from runners.lab.scenario import LabDisk
from runners.lab.vm import TCG_CPU, AttachedDisk, boot, last_stage, panicked, parse_mark, parse_marks, qemu_argv

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "lab" / "boot"
MiB = 1 << 20


def _argv(disks, accel="tcg"):
    return qemu_argv(
        vmlinux="/k/vmlinux",
        initrd="/k/initrd.cpio",
        console="/t/console",
        accel=accel,
        cpus=2,
        memory_mib=1536,
        disks=disks,
        jobs="/t/jobs.img",
        results="/t/results.img",
    )


def _values(argv, flag):
    return [argv[i + 1] for i, a in enumerate(argv) if a == flag]


def test_disks_by_serial_with_throttles_and_ssd_flag():
    disks = [
        AttachedDisk("/t/a.img", "a-0", LabDisk(size_bytes=MiB, bps_total=50_000_000, iops_total=150)),
        AttachedDisk("/t/b.img", "a-1", LabDisk(size_bytes=MiB, rotational=False)),
    ]
    argv = _argv(disks)
    drives, devices = _values(argv, "-drive"), _values(argv, "-device")
    assert "throttling.bps-total=50000000" in drives[0] and "throttling.iops-total=150" in drives[0]
    assert "throttling" not in drives[1]
    assert devices[0] == "virtio-scsi-pci,id=scsi0"
    assert devices[1] == "scsi-hd,drive=d0,bus=scsi0.0,scsi-id=0,lun=0,serial=a-0"
    assert devices[2].endswith("serial=a-1,rotation_rate=1")
    assert "readonly=on" in drives[2]  # the jobs disk
    assert devices[-1] == "virtio-blk-pci,drive=results,serial=podplan-results"
    assert "podplan.disks=4" in _values(argv, "-append")[0]
    assert argv[argv.index("-cpu") + 1] == TCG_CPU


def test_disks_show_the_guest_their_sector_sizes():
    disks = [
        AttachedDisk("/t/a.img", "a-0", LabDisk(size_bytes=MiB, physical_sector=4096)),
        AttachedDisk("/t/b.img", "a-1", LabDisk(size_bytes=MiB, logical_sector=4096, physical_sector=4096)),
    ]
    devices = _values(_argv(disks), "-device")
    assert devices[1].endswith("serial=a-0,logical_block_size=512,physical_block_size=4096")
    assert devices[2].endswith("serial=a-1,logical_block_size=4096,physical_block_size=4096")


def test_many_disks_spread_over_controllers():
    disks = [AttachedDisk(f"/t/{i}.img", f"s-{i}", LabDisk(size_bytes=MiB)) for i in range(300)]
    devices = _values(_argv(disks, accel="kvm"), "-device")
    assert devices.count("virtio-scsi-pci,id=scsi1") == 1
    assert "bus=scsi1.0,scsi-id=44," in next(d for d in devices if "drive=d299," in d)


def test_markers_from_a_recorded_console():
    marks = parse_marks((FIXTURES / "console.log").read_text())
    stages = [m.text.split()[0] for m in marks if m.kind == "stage"]
    assert stages[:4] == ["init", "modules", "disks-ready", "jobs"]
    assert stages[-1] == "poweroff" and "results-written" in stages
    assert all(m.guest_s is not None for m in marks if m.kind == "stage")
    assert [m.text for m in marks if m.kind == "scenario"][:2] == ["r5xfs start", "r5xfs collect"]
    assert not panicked((FIXTURES / "console.log").read_text())


def test_stage_reached():
    assert last_stage([]) == "kernel (init never started)"
    marks = [parse_mark("podplan-lab: stage jobs t=9.1"), parse_mark("podplan-lab: scenario x start t=10.0")]
    assert last_stage(marks) == "jobs (last scenario event: x start)"
    assert parse_mark("some kernel line") is None
    assert parse_mark("podplan-lab: out x: hello").text == "x: hello"


def test_boot_times_out_and_reaps_the_whole_group(tmp_path):
    console = str(tmp_path / "console")
    pidfile = tmp_path / "child.pid"
    script = f"echo 'podplan-lab: stage init t=0.1' >> {console}; sleep 300 & echo $! > {pidfile}; sleep 300"
    started = time.monotonic()
    out = boot(["bash", "-c", script], console, timeout=1.5, poll=0.05)
    assert out.timed_out and out.returncode is None
    assert time.monotonic() - started < 15
    assert out.stage == "init" and out.marks[0].host_s is not None
    # The background sleep was in qemu's process group: nothing of it may be left.
    assert not _alive(pidfile.read_text().strip())
    assert not os.path.exists(console + ".stderr")


def _alive(pid: str) -> bool:
    """True while the process exists and is not a zombie waiting to be reaped."""
    for _ in range(50):
        try:
            state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        if state == "Z":
            return False
        time.sleep(0.1)
    return True


def test_boot_returns_when_the_process_ends(tmp_path):
    console = str(tmp_path / "console")
    out = boot(
        ["bash", "-c", f"echo 'podplan-lab: stage poweroff t=3' >> {console}; echo oops >&2; exit 3"],
        console,
        timeout=30,
        poll=0.05,
    )
    assert not out.timed_out and out.returncode == 3
    assert out.stderr.strip() == "oops" and out.stage == "poweroff"


def test_nvme_and_ahci_disks_for_smart():
    from runners.lab.scenario import Scenario

    disks = (LabDisk(size_bytes=MiB, bus="nvme"), LabDisk(size_bytes=MiB, bus="ahci"), LabDisk(size_bytes=MiB))
    devices = _values(_argv([AttachedDisk(f"/t/{i}.img", f"s-{i}", d) for i, d in enumerate(disks)]), "-device")
    assert "ahci,id=ahci0" in devices
    assert "nvme,drive=d0,serial=s-0" in devices and "ide-hd,drive=d1,bus=ahci0.0,serial=s-1" in devices
    assert any(d.startswith("scsi-hd,drive=d2,") for d in devices)
    assert Scenario(name="s", script="", disks=disks).disk_paths() == (
        "/dev/disk/by-id/nvme-s-0",
        "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_s-1",  # libata answers the SCSI serial page with the ATA serial
        "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_s-2",
    )
