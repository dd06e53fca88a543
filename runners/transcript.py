"""The record of every command podplan runs on this machine, for an administrator to read after
anything went wrong: what ran, when, for how long, how it ended and the last thing it said.

One JSON object a line (JSON lines), not a prose line: argv stays a list, so an argument with
spaces or quotes reads back unambiguously; the tail of stderr, several lines, fits in one field
without breaking the one-record-a-line shape; and `grep mdadm` still finds a command while
`jq` can select by exit status. The file is appended to, never rewritten, by every podplan
process (a lock keeps the threads of one process from interleaving their lines; each record
is one write to a file opened for append, which the kernel keeps whole), and moved aside
to commands.log.1 once it passes ROTATE_BYTES. It is made readable by its owner only.

The file is `$XDG_STATE_HOME/podplan/commands.log` (`~/.local/state/podplan/commands.log` when
the variable is unset or not absolute, as the XDG base directory specification says);
`podplan --transcript FILE` names another.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from planners.errors import TranscriptError

STDERR_TAIL_LINES = 10
"""Lines of stderr kept per command: a tool's complaint is in its last lines."""
STDERR_TAIL_CHARS = 2000
"""...and at most this many characters of them (a line of progress dots can be long)."""
ROTATE_BYTES = 4 << 20
"""Past this size the file is moved to commands.log.1: some ten thousand commands, months of use,
while a validate loop left running cannot fill the disk."""
KEPT_OLD = 2
"""Old files kept: commands.log.1 and commands.log.2."""

_chosen: Path | None = None
_lock = threading.Lock()


def default_path() -> Path:
    from runners.dirs import state_dir

    return state_dir() / "commands.log"


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
        os.close(_open(target))
    except OSError as exc:
        why = (
            "is a symbolic link; name the file itself"
            if exc.errno == errno.ELOOP
            else f"cannot write ({exc.strerror or exc})"
        )
        raise TranscriptError(f"--transcript {file}: {why}", "transcript") from None
    _chosen = target


def _open(target: Path) -> int:
    """The transcript opened for appending: made 0600 (it holds every command's arguments and
    complaints), never through a link (O_NOFOLLOW: a link planted at the name would otherwise have
    root append wherever it points), and only a regular file (O_NONBLOCK: a FIFO must not hang)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(target, flags, 0o600)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if target == default_path() and st.st_mode & 0o077 and st.st_uid == os.geteuid():
            os.fchmod(fd, 0o600)  # one an older podplan made world-readable
    except BaseException:
        os.close(fd)
        raise
    return fd


def _rotate(target: Path) -> None:
    """commands.log -> commands.log.1 -> ... -> commands.log.KEPT_OLD, the oldest dropped. Renames
    move the names themselves: a link planted at an old name is moved or dropped, never followed."""
    for n in range(KEPT_OLD, 0, -1):
        older = target.with_name(f"{target.name}.{n - 1}" if n > 1 else target.name)
        with contextlib.suppress(FileNotFoundError):
            os.replace(older, target.with_name(f"{target.name}.{n}"))


def _append(target: Path, data: bytes) -> None:
    for _ in range(3):  # another podplan may rotate the file between our open and our lock
        fd = _open(target)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            st = os.fstat(fd)
            try:
                now = os.lstat(target)
            except FileNotFoundError:
                continue
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                continue
            if st.st_size and st.st_size + len(data) > ROTATE_BYTES:
                _rotate(target)
                continue
            os.write(fd, data)
            return
        finally:
            os.close(fd)


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
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _append(target, line.encode("utf-8"))
        except OSError:
            # A home without room or a read-only state directory: the command itself must still
            # run (a validate on a full disk, a lab boot). `use` refuses an unwritable --transcript.
            pass
