"""run_batch's failure reports and cleanup, with the VM replaced by recorded outcomes."""

import os

import pytest

from runners.lab import batch as batchmod
from runners.lab.batch import LabConfig, LabError, run_batch
from runners.lab.kit import KIT_FORMAT, Kit, KitManifest
from runners.lab.scenario import LabDisk, Scenario
from runners.lab.vm import BootOutcome, parse_marks

KIT = Kit(
    directory="/nonexistent",
    manifest=KitManifest(
        format=KIT_FORMAT,
        kernel_package="linux-image-x",
        kernel_release="x",
        top={},
        packages={},
        guest_digest="",
        build_seconds=0,
        initrd_bytes=0,
        vmlinux_bytes=0,
        module_count=0,
    ),
)


def _fake_boot(console: str, timed_out: bool = False):
    seen = {}

    def boot(argv, console_path, *, timeout, on_mark=None, **_kw):
        seen["dir"] = os.path.dirname(console_path)
        seen["images"] = sorted(os.listdir(seen["dir"]))
        return BootOutcome(
            returncode=None if timed_out else 0,
            timed_out=timed_out,
            seconds=1.0,
            console=console,
            marks=tuple(parse_marks(console)),
        )

    return boot, seen


@pytest.mark.parametrize(
    "console,timed_out,message,stage",
    [
        (
            "podplan-lab: stage init t=1\nKernel panic - not syncing: Attempted to kill init!\n",
            False,
            "panicked",
            "init",
        ),
        ("podplan-lab: stage init t=1\npodplan-lab: stage modules t=2\n", True, "limit", "modules"),
        ("", False, "wrote no results", "kernel (init never started)"),
    ],
)
def test_failures_name_the_stage_and_show_the_console(monkeypatch, tmp_path, console, timed_out, message, stage):
    boot, seen = _fake_boot(console, timed_out)
    monkeypatch.setattr(batchmod, "boot", boot)
    scen = Scenario(name="s", script="true", disks=(LabDisk(size_bytes=1 << 20),) * 2)
    with pytest.raises(LabError, match=message) as info:
        run_batch([scen], kit=KIT, config=LabConfig(accel="tcg", work_dir=str(tmp_path)))
    assert info.value.stage == stage
    assert f"stage reached: {stage}" in str(info.value)
    assert seen["images"] == ["jobs.img", "results.img", "s-0.img", "s-1.img"]
    assert not os.path.exists(seen["dir"])  # images removed even on failure


def test_accel_forced_and_absent_kvm(monkeypatch):
    assert batchmod.choose_accel(KIT, "tcg") == "tcg"
    monkeypatch.setattr(batchmod.os, "access", lambda path, mode: False)
    assert batchmod.choose_accel(KIT, "auto") == "tcg"
