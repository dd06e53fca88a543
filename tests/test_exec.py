"""The one door for processes (runners.exec): nothing else starts one, and each command it runs
leaves a record in the transcript, whether it ends, fails or is stopped."""

from __future__ import annotations

import ast
import json
import os
import pathlib
import time
from datetime import UTC, datetime

import pytest

from runners import transcript
from runners.exec import CommandError, have, run, spawn

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIELDS = {"argv", "start", "duration_s", "exit", "stderr_tail"}
# Ways to start a process other than the chokepoint: the modules, and os's own process calls.
PROCESS_MODULES = {"subprocess", "pty", "multiprocessing", "asyncio.subprocess"}
OS_CALLS = {
    "system",
    "popen",
    "fork",
    "forkpty",
    "posix_spawn",
    "posix_spawnp",
    "spawnl",
    "spawnlp",
    "spawnv",
    "spawnvp",
    "spawnve",
    "spawnvpe",
    "execv",
    "execve",
    "execvp",
    "execvpe",
    "execl",
    "execlp",
}


@pytest.fixture(autouse=True)
def _own_transcript(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """Each test here reads the records of its own commands only."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def _records() -> list[dict]:
    path = transcript.path()
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _process_starts(path: pathlib.Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in PROCESS_MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PROCESS_MODULES | {"os"}:
            names = [a.name for a in node.names]
            if node.module != "os" or OS_CALLS & set(names):
                found.append(f"from {node.module} import {', '.join(names)}")
        elif isinstance(node, ast.Attribute) and node.attr in OS_CALLS and getattr(node.value, "id", "") == "os":
            found.append(f"os.{node.attr}")
    return found


def test_no_module_but_the_chokepoint_starts_a_process():
    offenders = {
        str(p.relative_to(ROOT)): starts
        for layer in ("app", "planners", "runners")
        for p in sorted((ROOT / layer).rglob("*.py"))
        if p != ROOT / "runners" / "exec.py" and (starts := _process_starts(p))
    }
    assert offenders == {}


def test_the_rule_sees_each_way_in(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import subprocess\nimport os\nfrom pty import spawn\nos.system('x')\nos.popen('x')\n")
    assert _process_starts(probe) == ["subprocess", "from pty import spawn", "os.system", "os.popen"]


def test_transcript_default_follows_xdg_state_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert transcript.path() == tmp_path / "podplan" / "commands.log"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/dir")  # not absolute: ignored, as the XDG spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert transcript.path() == tmp_path / "home" / ".local" / "state" / "podplan" / "commands.log"


@pytest.mark.skipif(not have("mkfs.xfs"), reason="mkfs.xfs (xfsprogs) is not installed")
def test_a_real_command_leaves_one_record_with_its_fields(tmp_path):
    image = tmp_path / "disk.img"
    with open(image, "wb") as f:
        f.truncate(512 * 1024**2)
    before = time.time()
    run(["mkfs.xfs", "-N", "-f", str(image)])
    with pytest.raises(CommandError):
        run(["mkfs.xfs", "-N", "-d", "su=3k", str(image)])  # mkfs.xfs refuses a stripe unit not a multiple of 512
    ok, refused = _records()
    assert set(ok) == FIELDS and set(refused) == FIELDS
    assert ok["argv"] == ["mkfs.xfs", "-N", "-f", str(image)] and ok["exit"] == 0 and ok["stderr_tail"] == ""
    start = datetime.strptime(ok["start"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()
    assert before - 0.01 <= start <= time.time()
    assert 0 <= ok["duration_s"] < 60
    assert refused["exit"] not in (0, None) and refused["stderr_tail"]
    assert refused["stderr_tail"].splitlines()[-1] in str(_last_error(refused["argv"]))


def _last_error(argv: list[str]) -> CommandError:
    try:
        run(argv)
    except CommandError as exc:
        return exc
    raise AssertionError(argv)


def test_spawn_stops_the_whole_group_and_records_why(tmp_path):
    pidfile = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {pidfile}; echo started >&2; wait"
    with spawn(["bash", "-c", script], grace=2.0) as proc:
        while not pidfile.exists() or not pidfile.read_text().strip():
            assert proc.wait(0.05) is None
        child = int(pidfile.read_text())
        proc.stop("cancelled by the test")
    assert proc.returncode is not None and proc.returncode < 0  # ended by SIGTERM

    def signal_until_gone() -> None:
        for _ in range(50):
            os.kill(child, 0)
            time.sleep(0.05)

    with pytest.raises(ProcessLookupError):  # the grandchild went with the group
        signal_until_gone()
    (rec,) = _records()
    assert rec["argv"] == ["bash", "-c", script] and rec["exit"] == proc.returncode
    assert rec["note"] == "cancelled by the test" and rec["stderr_tail"] == "started" == proc.stderr.strip()


def test_spawn_resolves_through_the_program_list():
    unlisted = ["python3", "-c", "pass"]  # installed, but no package in PROGRAMS says where it comes from
    with pytest.raises(CommandError, match=r"not in runners\.exec\.PROGRAMS"):
        spawn(unlisted)


def test_an_unwritable_transcript_is_refused_in_one_line(tmp_path):
    from planners.errors import TranscriptError

    with pytest.raises(TranscriptError, match=r"^--transcript .*: cannot write \(Is a directory\)$"):
        transcript.use(tmp_path)
