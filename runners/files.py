"""The one door for files podplan reads from a user and writes for one.

podplan runs as root on the machine it validates, in directories other people can write to, on
files other people wrote. So a read takes only a regular file and only so much of it (a FIFO
would hang, /dev/zero would fill the memory), and a write never goes through a symbolic link,
never over a file the user did not ask to replace, and never leaves half a file: it goes to a
temporary file beside the target, is synced, then renamed into place (a rename replaces a
planted link itself, never what it points to).
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from planners.errors import PlanError

MiB = 1 << 20
DOCUMENT_CAP = 8 * MiB
"""Bytes podplan reads from a plan, job file, keymap or kept report. The largest real ones are far
smaller (a 1,024-disk plan with every device path: about 200 KiB; a job file of 10,000 sections:
about 1 MiB; the curves of a two-axis sweep: a few hundred KiB): anything past this is not one."""

_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


class FileRefused(PlanError):
    """A file podplan will not read or write as asked; one line naming it and why."""


def _size_text(n: int) -> str:
    return f"{n / MiB:g} MiB" if n >= MiB else f"{n:,} bytes"


def read_bytes(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    cap: int = DOCUMENT_CAP,
    tail: bool = False,
    missing: str = "",
) -> bytes:
    """The bytes of a regular file, at most `cap` of them: over it, refused (or with `tail`, its
    last `cap` bytes, for a log whose newest lines count). `what` names the file in the refusals;
    `missing` replaces 'no such {what}' when the file is absent."""
    p = os.fspath(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one, forever.
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise FileRefused(f"{p}: {missing or f'no such {what}'}") from None
    except OSError as exc:
        raise FileRefused(f"{p}: cannot read the {what} ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        kind = stat.S_IFMT(st.st_mode)
        if kind == stat.S_IFDIR:
            raise FileRefused(f"{p}: is a directory, not a {what}")
        if kind != stat.S_IFREG:
            raise FileRefused(f"{p}: is {_KINDS.get(kind, 'not a regular file')}; a {what} is read from a regular file")
        if st.st_size > cap and not tail:
            raise FileRefused(f"{p}: {_size_text(st.st_size)}, more than a {what} may hold ({_size_text(cap)})")
        if tail and st.st_size > cap:
            os.lseek(fd, st.st_size - cap, os.SEEK_SET)
        chunks, got = [], 0
        # Bounded whatever fstat said: /proc files say 0, and a file can grow while it is read.
        while got <= cap and (chunk := os.read(fd, min(MiB, cap + 1 - got))):
            chunks.append(chunk)
            got += len(chunk)
        data = b"".join(chunks)
        if len(data) > cap:
            if not tail:
                raise FileRefused(f"{p}: more than a {what} may hold ({_size_text(cap)})")
            data = data[-cap:]
        return data
    except OSError as exc:
        raise FileRefused(f"{p}: cannot read the {what} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def read_text(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    cap: int = DOCUMENT_CAP,
    tail: bool = False,
    missing: str = "",
    lenient: bool = False,
) -> str:
    """`read_bytes` decoded as UTF-8; bytes that are not UTF-8 are refused in one line, or with
    `lenient` (a kernel log, where a driver's garbage is common) replaced."""
    data = read_bytes(path, what=what, cap=cap, tail=tail, missing=missing)
    try:
        return data.decode("utf-8", errors="replace" if lenient else "strict")
    except UnicodeDecodeError as exc:
        raise FileRefused(f"{os.fspath(path)}: not a text file (byte {exc.start} is not UTF-8)") from None


def write_text(
    path: str | os.PathLike[str], text: str, *, force: bool = False, executable: bool = False, private: bool = False
) -> Path:
    """Write `text` as the file `path`: refused if anything (a file, a link, a FIFO) is there
    unless `force`; with it, a file is replaced and a link is replaced by the file, never written
    through. The file gets the mode `open()` (or `chmod +x`) would give it under the umask, or
    keeps the mode of the regular file it replaces; `private`: 0600 whatever the umask."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.name in ("", ".", ".."):
        raise FileRefused(f"{p}: names a directory, not a file")
    if not parent.is_dir():
        raise FileRefused(f"{parent}: no such directory")
    try:
        st: os.stat_result | None = os.lstat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise FileRefused(f"{p}: cannot write ({exc.strerror or exc})") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise FileRefused(f"{p}: is a directory")
        if not force:
            raise FileRefused(f"{p}: already exists (pass --force to overwrite)")
    if st is not None and stat.S_ISREG(st.st_mode):
        mode = stat.S_IMODE(st.st_mode)
        if executable:  # executable by whoever may read it, as chmod +x under the umask
            mode |= (mode & 0o444) >> 2
    else:
        mode = (0o777 if executable else 0o666) & ~_umask()
    if private:
        mode = 0o600
    try:
        _place(p, parent, text.encode("utf-8"), mode, replace=force)
    except FileRefused:
        raise
    except OSError as exc:
        raise FileRefused(f"{p}: cannot write ({exc.strerror or exc})") from None
    return p


def _place(p: Path, parent: Path, data: bytes, mode: int, *, replace: bool) -> None:
    """A synced temporary file beside `p`, then renamed (or, not replacing, linked) to it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:200]}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        if replace:
            os.replace(tmp, p)
        else:
            try:
                # link() never replaces what is there (a file, a link planted since the check): the
                # new name appears whole or not at all.
                os.link(tmp, p)
            except FileExistsError:
                raise FileRefused(f"{p}: already exists (pass --force to overwrite)") from None
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK):
                    raise
                # A filesystem without hard links (vfat, some FUSE): checked again just before the rename.
                if os.path.lexists(p):
                    raise FileRefused(f"{p}: already exists (pass --force to overwrite)") from None
                os.replace(tmp, p)
        _sync_dir(parent)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _sync_dir(d: Path) -> None:
    """The rename itself on disk (best effort: some filesystems refuse to fsync a directory)."""
    try:
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def create_numbered(directory: str | os.PathLike[str], stem: str, suffix: str, text: str) -> str:
    """A new file `stem-NN` + `suffix` (01, 02, ...: the first free one) in a directory podplan made,
    created exclusively and never through a link; its path. Files are named by index because the
    names that describe them (an fio section's) come from the user's files."""
    for n in range(1, 10_000):
        path = os.path.join(directory, f"{stem}-{n:02d}{suffix}")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            continue
        except OSError as exc:
            raise FileRefused(f"{path}: cannot write ({exc.strerror or exc})") from None
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        return path
    raise FileRefused(f"{directory}: holds {stem}-01{suffix} to {stem}-9999{suffix} already")


def make_run_dir(path: str | os.PathLike[str], *, reuse: bool = False, forceable: bool = True) -> Path:
    """The directory a run keeps its files in: made now, or an empty one the user made; with
    `reuse`, one that holds files already (podplan's files in it are then replaced, never written
    through). A symbolic link is refused: what it points to is not the directory named.
    `forceable`: the command has a --force for the refusal to suggest."""
    p = Path(path)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        try:
            if str(p.parent):
                p.parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(p)
        except FileExistsError:
            return make_run_dir(p, reuse=reuse, forceable=forceable)
        except OSError as exc:
            raise FileRefused(f"{p}: cannot make the directory ({exc.strerror or exc})") from None
        return p
    if stat.S_ISLNK(st.st_mode):
        raise FileRefused(f"{p}: is a symbolic link; name a new directory (podplan does not write through links)")
    if not stat.S_ISDIR(st.st_mode):
        raise FileRefused(f"{p}: exists and is not a directory")
    if not reuse and any(os.scandir(p)):
        hint = ", or pass --force to replace podplan's" if forceable else ""
        raise FileRefused(f"{p}: already holds files; name a new or empty directory{hint}")
    return p


def _umask() -> int:
    """The process's umask, read without setting it (os.umask sets it, a race with other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            return next(int(line.split()[1], 8) for line in fh if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o022)
        os.umask(mask)
        return mask
