"""SMART health: smartctl's JSON parsed (recorded and source-faithful fixtures), the disks under a target
found in lsblk's tree, and a device without SMART said in one line by the real smartctl."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planners.health import counters_moved, health_json, parse_smartctl
from runners.exec import have
from runners.host.inventory import parse_lsblk
from runners.probes.loopdev import sparse_loops
from runners.validate.health import disks_under, read_health, smartctl_argv

FIX = Path(__file__).parent / "fixtures"
MiB = 1024**2
LAB = parse_lsblk((FIX / "inventory" / "lab_lsblk.json").read_text())
HOST = parse_lsblk((FIX / "lsblk" / "host_vda_root.json").read_text())
EIGHT = tuple(f"/dev/sd{c}" for c in "abcdefgh")
REAL = os.geteuid() == 0 and have("smartctl") and have("losetup")


def _fixture(name: str, device: str = "/dev/sdx"):  # type: ignore[no-untyped-def]
    return parse_smartctl(device, (FIX / "smartctl" / name).read_text())


@pytest.mark.parametrize("name", ["loop-recorded.json", "virtio-recorded.json"])
def test_recorded_devices_without_smart_carry_smartctls_reason(name):
    h = _fixture(name, "/dev/loop0" if name.startswith("loop") else "/dev/vda")
    assert not h.smart and h.why_not == "smartctl: Unable to detect device type"
    assert h.failing == () and h.watch == () and h.passed is None and h.pending is None


def test_a_healthy_ata_disk_reads_every_counter():
    h = _fixture("ata-healthy-written.json")
    assert h.smart and h.protocol == "ATA" and h.model == "WDC WUH721816ALE6L4" and h.passed is True
    assert (h.power_on_hours, h.temperature_c) == (1722, 38)
    assert (h.reallocated, h.pending, h.offline_uncorrectable, h.crc_errors) == (0, 0, 0, 0)
    assert h.critical_warning is None and h.media_errors is None  # not NVMe: unread, not clean
    assert h.failing == () and h.watch == ()


def test_pending_sectors_fail_a_disk_that_still_says_passed():
    h = _fixture("ata-pending-written.json")
    assert h.passed is True and (h.reallocated, h.pending, h.offline_uncorrectable, h.crc_errors) == (8, 24, 24, 3)
    assert len(h.failing) == 2 and h.failing[0].startswith("24 pending sectors (unreadable): replace it")
    assert "--burn-in --destroy-data" in h.failing[0]
    assert h.watch == (
        "8 reallocated sectors: a count that climbs during a burn-in fails it",
        "3 CRC errors: reseat or replace the cable or backplane slot",
    )


def test_overall_health_failed():
    h = _fixture("ata-failing-written.json")
    assert h.passed is False and h.reallocated == 4090 and h.power_on_hours == 40210
    assert h.failing[0] == "SMART overall health FAILED: replace it before the array goes into service"


def test_nvme_health_log():
    ok = _fixture("nvme-healthy-written.json", "/dev/nvme0")
    assert ok.protocol == "NVMe" and ok.passed is True and ok.reallocated is None
    assert (ok.critical_warning, ok.media_errors, ok.percentage_used, ok.available_spare) == (0, 0, 3, 100)
    assert (ok.spare_threshold, ok.power_on_hours, ok.temperature_c) == (10, 4380, 36)
    assert ok.failing == ()
    bad = _fixture("nvme-warning-written.json", "/dev/nvme1")
    assert (bad.critical_warning, bad.media_errors, bad.percentage_used, bad.available_spare) == (5, 17, 104, 8)
    assert bad.failing == (
        "SMART overall health FAILED: replace it before the array goes into service",  # smartctl: passed = !warning
        "NVMe critical warning: available spare below its threshold: replace it",
        "NVMe critical warning: NVM subsystem reliability degraded: replace it",
        "17 NVMe media errors: replace it",
    )
    assert bad.watch == ("104 % of its rated endurance used: plan its replacement",)


def test_output_that_is_not_smartctls_json_is_a_reason():
    assert parse_smartctl("/dev/sdx", "").why_not == "smartctl printed no JSON"
    assert parse_smartctl("/dev/sdx", "[1]").why_not == "smartctl printed no JSON"
    assert parse_smartctl("/dev/sdx", "{}").why_not == "smartctl printed no SMART data"
    # a counter of the wrong type is unread, never a traceback
    h = parse_smartctl("/dev/sdx", json.dumps({"smart_status": {"passed": "yes"}, "power_on_time": {"hours": "x"}}))
    assert h.smart and h.passed is None and h.power_on_hours is None


def test_counters_that_rose_are_named():
    before = _fixture("ata-healthy-written.json")
    after = _fixture("ata-pending-written.json")
    assert counters_moved(before, after) == (
        "reallocated 0 -> 8",
        "pending 0 -> 24",
        "offline uncorrectable 0 -> 24",
        "crc errors 0 -> 3",
    )
    assert counters_moved(after, after) == ()
    assert counters_moved(before, _fixture("ata-failing-written.json"))[-1] == "overall health passed -> FAILED"
    # a disk without SMART has nothing to compare
    assert counters_moved(_fixture("loop-recorded.json"), _fixture("loop-recorded.json")) == ()


def test_json_carries_the_verdicts():
    doc = health_json((_fixture("ata-pending-written.json"),))[0]
    assert doc["pending"] == 24 and len(doc["failing"]) == 2 and len(doc["watch"]) == 2


def test_disks_under_an_array_an_lv_a_mount_a_plain_disk():
    assert disks_under("/dev/md0", LAB) == EIGHT
    assert disks_under("/dev/mapper/pod-data", LAB) == EIGHT
    assert disks_under("/srv/pod/backups", LAB) == EIGHT
    assert disks_under("/dev/sdi", LAB) == ("/dev/sdi",)  # a plain disk is its own member
    assert disks_under("/", HOST) == ("/dev/vda",)
    assert disks_under("/dev/nosuch", LAB) is None


def test_smartctl_argv():
    assert smartctl_argv("/dev/sdb") == ["smartctl", "-j", "-x", "/dev/sdb"]


@pytest.mark.skipif(not REAL, reason="needs root, smartctl (smartmontools) and losetup for a real loop device")
def test_real_smartctl_on_a_loop_device_is_one_line(tmp_path):
    with sparse_loops([16 * MiB]) as (dev,):
        h = read_health(dev)
        assert not h.smart and h.why_not == "smartctl: Unable to detect device type"
        env = {**os.environ, "COLUMNS": "200"}
        cli = [sys.executable, "-m", "app.cli.main", "validate", dev]
        out = subprocess.run([*cli, "--health"], capture_output=True, text=True, env=env, timeout=120)
        as_json = subprocess.run([*cli, "--health", "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"  {dev}: no SMART (smartctl: Unable to detect device type)\n" and out.stderr == ""
    doc = json.loads(as_json.stdout)
    assert doc["health"][0]["smart"] is False and doc["health"][0]["device"] == dev


def test_health_refuses_what_lsblk_does_not_know(capsys):
    from app.cli.main import main

    assert main(["validate", "/dev/nosuch-disk", "--health"]) == 2
    assert capsys.readouterr().err.strip() == (
        "podplan: /dev/nosuch-disk: not a block device or a directory on one that lsblk knows"
    )


def test_the_table_names_the_failing_disk_with_what_to_do():
    from rich.console import Console

    from app.cli.validate_health import print_health

    console = Console(record=True, width=200)
    disks = [
        _fixture("ata-healthy-written.json", "/dev/sdb"),
        _fixture("ata-pending-written.json", "/dev/sdc"),
        _fixture("nvme-healthy-written.json", "/dev/nvme0"),
        _fixture("loop-recorded.json", "/dev/loop0"),
    ]
    print_health(console, disks)
    text = console.export_text()
    assert (
        "│ /dev/sdc   │ WDC WUH721816ALE6L4        │ PASSED │ 29,551 │ 41 │       8 │      24 │       24 │   3 │"
        in text
    )
    assert "│ /dev/nvme0 │ SAMSUNG MZQL23T8HCLS-00A07 │ PASSED │  4,380 │ 36 │" in text
    assert "  /dev/loop0: no SMART (smartctl: Unable to detect device type)" in text
    assert "  failing disk /dev/sdc: 24 pending sectors (unreadable): replace it, or write the whole disk" in text
    assert "  watch /dev/sdc: 3 CRC errors: reseat or replace the cable or backplane slot" in text
    assert "no disk failing" not in text


@pytest.mark.skipif(not REAL, reason="needs root, smartctl (smartmontools) and losetup for a real loop device")
def test_baseline_reads_the_health_of_the_disk_under_the_target():
    from app.usecases.validate import health_under

    with sparse_loops([16 * MiB]) as (dev,):
        (h,) = health_under(dev)
    assert h.device == dev and not h.smart
    assert health_under("/dev/nosuch-disk") == ()


def test_the_validate_report_page_carries_the_health_lines():
    from app.shared.report_html import render
    from app.shared.validate_report import validate_doc
    from tests.test_report_html import _suite_report

    report = _suite_report()
    disks = (_fixture("ata-failing-written.json", "/dev/sdd"), _fixture("loop-recorded.json", "/dev/loop0"))
    doc = validate_doc("/dev/md0", None, report, [], None, disks)
    assert [d["device"] for d in doc["health"]] == ["/dev/sdd", "/dev/loop0"]
    page = render(doc)
    assert "<h2>SMART health</h2>" in page
    assert "<li>/dev/sdd: FAILED, 40,210 h, 44 °C, SMART overall health FAILED: replace it" in page
    assert "<li>/dev/loop0: no SMART (smartctl: Unable to detect device type)</li>" in page
    # podplan report DIR draws the page again from the kept file, whose health rows are checked
    from app.shared.kept_report import KeptReport

    assert KeptReport.model_validate(doc).health[0].failing == doc["health"][0]["failing"]


def test_recorded_qemu_drives():
    nvme = _fixture("qemu-nvme-recorded.json", "/dev/nvme0n1")
    assert (nvme.protocol, nvme.model, nvme.passed, nvme.critical_warning, nvme.media_errors) == (
        "NVMe",
        "QEMU NVMe Ctrl",
        True,
        0,
        0,
    )
    assert (nvme.percentage_used, nvme.available_spare, nvme.temperature_c, nvme.power_on_hours) == (0, 0, 50, 0)
    assert nvme.failing == ()  # qemu's spare of 0 raises no critical warning: the warning bit decides
    ata = _fixture("qemu-ata-recorded.json", "/dev/sdb")
    assert (ata.protocol, ata.model, ata.passed, ata.power_on_hours, ata.temperature_c) == (
        "ATA",
        "QEMU HARDDISK",
        True,
        1,
        31,
    )
    assert ata.reallocated == 0 and ata.pending is None and ata.crc_errors is None  # qemu keeps no 197-199
    scsi = _fixture("qemu-scsi-recorded.json", "/dev/sda")
    assert not scsi.smart and scsi.why_not == "smartctl: the device reports no SMART support"


def test_a_slower_workload_names_the_failing_disk_as_the_slow_one():
    from runners.validate.compare import Conditions, gather_conditions, likely_reasons

    cond = Conditions(failing_disks=("/dev/sdc",))
    assert likely_reasons("seq-read", -40.0, cond, steady=True, direct=True)[0] == (
        "failing disk(s) /dev/sdc (SMART): a read of an unreadable sector retries for seconds; replace it"
    )
    assert not any("failing" in r for r in likely_reasons("seq-read", 40.0, cond, steady=True, direct=True))
    assert gather_conditions("/nowhere", (), ("/dev/sdc",)).failing_disks == ("/dev/sdc",)
