"""Saving from the TUI without losing anyone's work: the plan file's identity (size, mtime, hash) is
kept from the moment it was opened or last saved, so saving over a file another program changed
since then asks (save as, reload, overwrite), and saving to the file you opened, unchanged on disk,
asks nothing. Every check of a path is guarded: a name too long, a directory you cannot read or a
full disk is one notification, and the form keeps its edit.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual import work

from app.tui.messages import FileFailed, FileSaved
from planners.errors import PlanError
from planners.models import Plan

Writer = Callable[[Path, bool], object]


@dataclass(frozen=True)
class FileIdentity:
    """What a file was when podplan last read or wrote it: size in bytes, mtime in ns, SHA-256 of its bytes."""

    size: int
    mtime_ns: int
    digest: str


def identity_of(path: Path) -> FileIdentity | None:
    """The file's identity now, or None when nothing is there. OSError (unreadable) passes up."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    with open(path, "rb") as fh:
        digest = hashlib.sha256(fh.read(64 << 20)).hexdigest()
    return FileIdentity(st.st_size, st.st_mtime_ns, digest)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


class SavesFiles:
    """The app's saving half, mixed into PodplanApp (which provides plan, result, error, plan_file,
    saved_plan and notify)."""

    plan: Plan
    plan_file: Path | None
    error: str
    file_identity: FileIdentity | None
    _saving: Plan | None
    _quit_after_save: bool

    def _remember_identity(self, path: Path | None) -> None:
        """The identity of the plan file as read now (at open, or at start from the command line)."""
        try:
            self.file_identity = identity_of(path) if path else None
        except OSError:
            self.file_identity = None

    def action_save_plan(self) -> None:
        self._save_plan()

    def _save_plan(self, *, then_quit: bool = False) -> None:
        """ctrl+s, or 'save and quit': the plan to a file, atomically; asks where unless quitting to its own file."""
        if self.error or getattr(self, "result", None) is None:
            self.notify(f"Not saved: the form has an error ({self.error})", severity="error")  # type: ignore[attr-defined]
            return
        from app.shared.planfile import save_plan

        plan = self.plan
        self._saving = plan
        self._quit_after_save = then_quit

        def write(path: Path, force: bool) -> object:
            return save_plan(plan, path, overwrite=force)

        default = str(self.plan_file) if self.plan_file else f"{plan.name}.toml"
        title = "Save the plan as (TOML)" + (", then quit" if then_quit else "")
        self.save_file(title, default, "plan", write, ask=not (then_quit and self.plan_file))

    def save_script(self, text: str) -> None:
        from app.shared.planfile import write_script

        self.save_file(
            "Save the build script as",
            f"build-{self.plan.name}.sh",
            "script",
            lambda path, force: write_script(path, text, force),
        )

    @work(exclusive=True, exit_on_error=False, group="save-dialog")
    async def save_file(self, title: str, default: str, what: str, write: Writer, *, ask: bool = True) -> None:
        from app.tui.screens.dialogs import PathPrompt

        while True:
            answer = await self.push_screen_wait(PathPrompt(title, default)) if ask else default  # type: ignore[attr-defined]
            if not answer:
                self._quit_after_save = False
                return
            path = Path(answer).expanduser()
            force = await self._may_write(path, what)
            if force == "again":  # 'save as': ask for another name
                ask, title, default = True, "Save the plan as another file (TOML)", _beside(path)
                continue
            if force is None:
                self._quit_after_save = False
                return
            self._write(path, write, force, what)
            return

    async def _may_write(self, path: Path, what: str) -> bool | str | None:
        """Write over what is there (True), write a new file (False), ask again ('again') or not write (None)."""
        from app.tui.screens.dialogs import ChangedOnDisk, Confirm

        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return False
        except (OSError, ValueError) as exc:
            reason = _reason(exc) if isinstance(exc, OSError) else str(exc)
            self.notify(f"Not saved: {path}: {reason}", severity="error", timeout=8)  # type: ignore[attr-defined]
            return None
        if stat.S_ISDIR(st.st_mode):
            self.notify(f"Not saved: {path} is a directory", severity="warning")  # type: ignore[attr-defined]
            return None
        if what == "plan" and self.plan_file is not None and _same_file(path, self.plan_file):
            try:
                now = identity_of(path)
            except OSError as exc:
                self.notify(f"Not saved: {path}: {_reason(exc)}", severity="error", timeout=8)  # type: ignore[attr-defined]
                return None
            if now == self.file_identity:
                return True  # the file you opened, as you opened it
            answer = await self.push_screen_wait(ChangedOnDisk(path))  # type: ignore[attr-defined]
            if answer == "reload":
                self._quit_after_save = False
                self._read(path)  # type: ignore[attr-defined]
                return None
            if answer == "overwrite":
                return True
            return "again" if answer == "save_as" else None
        if await self.push_screen_wait(Confirm(f"{path} exists. Overwrite it?")):  # type: ignore[attr-defined]
            return True
        self.notify(f"Not saved: {path} kept as it was", severity="warning")  # type: ignore[attr-defined]
        return None

    @work(thread=True, exclusive=True, exit_on_error=False, group="file-io")
    def _write(self, path: Path, write: Writer, overwrite: bool, what: str) -> None:
        try:
            write(path, overwrite)
            identity = identity_of(path) if what == "plan" else None
        except PlanError as exc:
            self.post_message(FileFailed(exc.message))  # type: ignore[attr-defined]
        except OSError as exc:
            self.post_message(FileFailed(f"{path}: cannot write ({_reason(exc)})"))  # type: ignore[attr-defined]
        else:
            self.post_message(FileSaved(path, what, identity))  # type: ignore[attr-defined]


def _beside(path: Path) -> str:
    """A name for 'save as' next to a file another program changed: NAME-mine.toml."""
    return str(path.with_name(f"{path.stem}-mine{path.suffix or '.toml'}"))
