"""Off a terminal (a file, a pipe), the command line never cuts a figure into an ellipsis."""

from __future__ import annotations

import io
import pathlib
import re

from rich.table import Table

from app.shared.console import FitConsole

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_a_wide_table_written_to_a_file_keeps_every_cell():
    out = io.StringIO()
    t = Table(title="/srv/a/rather/long/mount/point/of/the/pod (quick suite, 61 s, buffered)")
    cells = (
        "rand-write-4k",
        "complete",
        "12376.4",
        "3168456",
        "11.47",
        "not steady",
        "26003426508800 MB/s",
        "+20473 %",
        "the disks' streaming rate x 15 members",
    )
    for c in ("workload", "status", "MB/s", "IOPS", "p99 ms", "steady", "predicted", "diff", "binding"):
        t.add_column(c)
    t.add_row(*cells)
    FitConsole(file=out, width=80).print(
        t, "  a reason that is longer than eighty columns, written in full on one line"
    )
    text = out.getvalue()
    assert "…" not in text
    for cell in (*cells, "a reason that is longer than eighty columns, written in full on one line"):
        assert cell in text


def test_a_terminal_keeps_its_width(monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")  # Rich gives a dumb terminal 80 columns whatever it is told
    out = io.StringIO()
    console = FitConsole(file=out, width=40, force_terminal=True)
    console.print("x" * 100)
    assert max(len(line) for line in out.getvalue().splitlines()) == 40


def test_every_command_prints_through_the_fitting_console():
    for path in [*(ROOT / "app" / "cli").glob("*.py"), ROOT / "app" / "shared" / "render.py"]:
        assert not re.search(r"(?<![\w.])Console\(", path.read_text()), f"{path.name}: use cli_console()"
