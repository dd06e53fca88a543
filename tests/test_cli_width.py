"""On a terminal of any width, `podplan plan` and `podplan check` show every figure whole.

A table wider than the terminal drops another spelling of a figure (TB beside the bytes), wraps
its labels between words, moves figures under the table, or at last writes each row as a list;
it never ends a figure in an ellipsis nor folds it over two lines. The first test runs podplan
on a real pseudo-terminal of 80 columns, as a user's shell would.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import pathlib
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest
from rich.cells import cell_len

from app.cli.check import print_differences
from app.shared.console import FitConsole
from app.shared.render import print_plan
from app.usecases.check import check_collection
from planners.compute import compute
from planners.models import DiskSet, Lvm, MdGroup, Plan
from planners.results import PlanResult
from planners.units import format_bytes_binary, format_size_compact
from runners.lab.collect import parse_collection

ROOT = pathlib.Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PODS = {
    "60 disks of 24 TB in 4 arrays": ["--disks", "60", "--disk-size", "24TB", "--groups", "4"],
    "30 PB in 60 arrays, ext4": ["--disks", "1020", "--disk-size", "30TB", "--groups", "60", "--fs", "ext4"],
    "3 filesystems of 20 disks, no LVM": [
        "--disks",
        "60",
        "--disk-size",
        "24TB",
        "--groups",
        "3",
        "--no-lvm",
        "--fs",
        "ext4",
    ],
    "one RAID6 of 60 x 24 TB, striped LVM": ["--disks", "60", "--disk-size", "24TB", "--lvm-mode", "striped"],
}


def on_a_terminal(argv: list[str], columns: int) -> str:
    """podplan's output on a pseudo-terminal of `columns` columns (what a shell shows), colours removed."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env["TERM"] = "xterm-256color"
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of that size, then podplan
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "-m", "app.cli.main", *argv], env)
    out = bytearray()
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    return ANSI.sub("", out.decode()).replace("\r\n", "\n")


def figures(result: PlanResult) -> set[str]:
    """Every figure `podplan plan` writes, as it writes it."""
    out = {f"{result.raw_bytes:,} B", f"{result.usable_bytes:,} B"}
    for s in result.capacity:
        out |= {f"{s.remaining_bytes:,}", format_bytes_binary(s.remaining_bytes)}
        if s.removed_bytes:
            out.add(format_bytes_binary(s.removed_bytes))
    for g in result.groups:
        out |= {f"{g.md.component_bytes:,}", f"{g.md.array_bytes:,}", format_size_compact(g.md.data_offset_bytes)}
    for v in result.volumes:
        out |= {f"{v.df_size_bytes:,}", f"{v.df_available_bytes:,}", f"{v.fs_bytes:,} B", f"{v.block_device_bytes:,} B"}
        if v.lvm:
            out |= {f"{v.lvm.pe_start_bytes:,} B", f"{v.lvm.lv_extents:,} x", f"{v.lvm.lv_bytes:,} B"}
        if v.xfs:
            out |= {f"{v.xfs.agsize_blocks:,} blocks", f"{v.xfs.data_blocks:,}", f"{v.xfs.log_blocks:,} blocks"}
        if v.ext4:
            out |= {
                f"{v.ext4.block_count:,}",
                f"{v.ext4.inode_count:,}",
                f"{v.ext4.block_groups:,}",
                f"{v.ext4.reserved_blocks:,}",
            }
    return out


def assert_whole(text: str, wanted: set[str], columns: int) -> None:
    lines = text.splitlines()
    assert "…" not in text
    assert max(cell_len(line) for line in lines) <= columns
    cut = sorted(f for f in wanted if not any(f in line for line in lines))
    assert not cut, f"not whole on one line at {columns} columns: {cut}"


@pytest.mark.parametrize("pod", list(PODS))
def test_plan_on_an_80_column_terminal_keeps_every_figure_whole(pod):
    argv = ["plan", *PODS[pod]]
    report = subprocess.run(
        [sys.executable, "-m", "app.cli.main", *argv, "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    result = PlanResult.model_validate(json.loads(report.stdout)["result"])
    text = on_a_terminal(argv, 80)
    assert "Capacity, raw to available" in text and "md arrays" in text
    assert_whole(text, figures(result), 80)


def _big_pod() -> Plan:
    return Plan(
        name="wide",
        disks=[DiskSet(count=60, size=24 * 10**12)],
        groups=[MdGroup(name=f"md{i}", level=6, members=15) for i in range(4)],
        lvm=Lvm(enabled=True),
    )


@pytest.mark.parametrize("columns", [120, 80, 60, 44])
def test_plan_tables_fit_any_width_without_cutting(monkeypatch, columns):
    monkeypatch.setenv("TERM", "xterm-256color")
    plan = _big_pod()
    result = compute(plan)
    out = io.StringIO()
    print_plan(plan, result, FitConsole(file=out, width=columns, force_terminal=True, color_system=None))
    assert_whole(out.getvalue(), figures(result), columns)


def test_check_on_an_80_column_terminal_keeps_each_byte_count_on_one_line(monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")
    base = ROOT / "tests" / "fixtures" / "lab" / "boot" / "scenarios" / "r10lvext4" / "collect"
    collection = parse_collection({str(p.relative_to(base)): p.read_text() for p in base.rglob("*") if p.is_file()})
    compared, diffs = check_collection(_big_pod(), collection)
    out = io.StringIO()
    print_differences(
        FitConsole(file=out, width=80, force_terminal=True, color_system=None), "/dev/pod/data", compared, diffs
    )
    wanted = {f"{d.planned:,}" for d in diffs if isinstance(d.planned, int)}
    wanted |= {f"{d.actual:,}" for d in diffs if isinstance(d.actual, int)}
    assert any(len(f) > 20 for f in wanted)  # a petabyte's bytes: wider than Rich's share of 80 columns
    assert_whole(out.getvalue(), wanted, 80)


def test_predict_on_an_80_column_terminal_keeps_every_figure_whole():
    from app.cli.predict import range_text
    from app.shared.figures import mb_text
    from planners.perf.predict import WorkloadPrediction

    argv = ["predict", *PODS["60 disks of 24 TB in 4 arrays"]]
    report = subprocess.run(
        [sys.executable, "-m", "app.cli.main", *argv, "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    preds = [WorkloadPrediction.model_validate(p) for p in json.loads(report.stdout)["predictions"]]
    wanted = {f"{p.iops:,.0f}" for p in preds} | {mb_text(p.mb_s) for p in preds} | {range_text(p) for p in preds}
    wanted |= {f"x{p.headroom:.2f}" for p in preds} | {p.binding for p in preds} | {p.runner_up for p in preds}
    assert_whole(on_a_terminal(argv, 80), wanted - {""}, 80)
