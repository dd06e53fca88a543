"""The record of every command podplan runs on this machine, for an administrator to read after
anything went wrong: what ran, when, for how long, how it ended and the last thing it said.

One JSON object a line (JSON lines), not a prose line: argv stays a list, so an argument with
spaces or quotes reads back unambiguously; the tail of stderr, several lines, fits in one field
without breaking the one-record-a-line shape; and `grep mdadm` still finds a command while
`jq` can select by exit status. The file is appended to, never rewritten, by every podplan
process (a lock keeps the threads of one process from interleaving their lines; each record
is one write to a file opened for append, which the kernel keeps whole).

The file is `$XDG_STATE_HOME/podplan/commands.log` (`~/.local/state/podplan/commands.log` when
the variable is unset or not absolute, as the XDG base directory specification says);
`podplan --transcript FILE` names another.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from planners.errors import PlanError

STDERR_TAIL_LINES = 10
"""Lines of stderr kept per command: a tool's complaint is in its last lines."""
STDERR_TAIL_CHARS = 2000
"""...and at most this many characters of them (a line of progress dots can be long)."""

_chosen: Path | None = None
_lock = threading.Lock()


def default_path() -> Path:
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "podplan" / "commands.log"


def path() -> Path:
    """Where records go now: the file given to `use`, else the default."""
    return _chosen or default_path()


def use(file: str | Path | None) -> None:
    """Write records to `file` from now on (None: the default again). A file that cannot be
    written is refused now, in one line, rather than each command's record being lost later."""
    global _chosen
    if file is None:
        _chosen = None
        return
    target = Path(file).expanduser()
    try:
        with open(target, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise PlanError(f"--transcript {file}: cannot write ({exc.strerror or exc})", "transcript") from None
    _chosen = target


def tail(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    return "\n".join(lines[-STDERR_TAIL_LINES:])[-STDERR_TAIL_CHARS:]


def record(
    argv: Sequence[str], started: float, duration_s: float, exit_status: int | None, stderr: str, note: str = ""
) -> None:
    """Append one command's record. `started` is the wall clock (time.time()) at its start;
    `exit_status` None when it never started, negative when a signal ended it; `note` says
    why podplan ended it or why it did not start ('' when it ran to its end)."""
    entry = {
        "argv": [str(a) for a in argv],
        "start": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(started)) + f".{int(started % 1 * 1000):03d}Z",
        "duration_s": round(duration_s, 3),
        "exit": exit_status,
        "stderr_tail": tail(stderr),
    }
    if note:
        entry["note"] = note
    line = json.dumps(entry, ensure_ascii=False) + "\n"
    target = path()
    with _lock:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "a", encoding="utf-8") as f:
                f.write(line)
        except OSError:
            # A home without room or a read-only state directory: the command itself must still
            # run (a validate on a full disk, a lab boot). `use` refuses an unwritable --transcript.
            pass
