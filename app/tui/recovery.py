"""Unsaved edits kept across a hangup, a SIGTERM or a crash of the terminal: a recovery copy of the
form's plan under the XDG state directory, offered at the next start of the same plan.

The copy is named by a hash of where the plan came from (its file's absolute path, or the example
it started from), never by user text; it is written 0600 (a plan may name a site's devices) by
podplan's one writer (a temp file and a rename, never through a link), so a second hangup mid-write
leaves the last whole copy.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from planners.errors import PodplanError
from planners.models import Plan


def recovery_dir() -> Path:
    from app.usecases.files import state_dir

    return state_dir() / "recovery"


def _path(origin: str) -> Path:
    return recovery_dir() / f"{hashlib.sha256(origin.encode()).hexdigest()[:24]}.toml"


def origin_of(plan_file: Path | None, example: str) -> str:
    """What a recovery copy belongs to: the plan file's absolute path, or the example's name."""
    return f"file:{plan_file.resolve()}" if plan_file else f"example:{example}"


@dataclass(frozen=True)
class Kept:
    """A recovery copy found at start: the plan it holds and when it was written (seconds since the epoch)."""

    plan: Plan
    written: float


def keep(plan: Plan, origin: str) -> None:
    """Write (or replace) the recovery copy of `origin`. Errors pass silently: a copy that cannot be
    written must not stop the app from ending, and the edit is still in the form while it runs."""
    from app.shared.planfile import plan_to_toml
    from app.usecases.files import write_text

    path = _path(origin)
    with contextlib.suppress(OSError, PodplanError):
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_text(path, f"# podplan recovery copy of {origin}\n" + plan_to_toml(plan), force=True, private=True)


def found(origin: str) -> Kept | None:
    """The recovery copy of `origin`, or None; one that cannot be read as a plan is dropped."""
    from app.shared.planfile import load_plan

    path = _path(origin)
    try:
        st = path.lstat()
    except OSError:
        return None
    try:
        return Kept(load_plan(path), st.st_mtime)
    except PodplanError:
        drop(origin)
        return None


def drop(origin: str) -> None:
    with contextlib.suppress(OSError):
        _path(origin).unlink()


def when(written: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(written))


class KeepsEdits:
    """The app's half that keeps unsaved edits: a recovery copy written a moment after each change
    and on SIGTERM or SIGHUP (which end the app as a quit would, so a running validate stops fio and
    removes its file), offered again at the next start, dropped once saved or declined.

    Mixed into PodplanApp, which provides `plan`, `modified`, `plan_file` and `_origin`.
    """

    plan: Plan
    plan_file: Path | None
    _origin: str
    DEBOUNCE_S = 2.0
    """Seconds after the last change before the copy is written: a copy per keystroke is needless I/O."""

    def _recovery_init(self) -> None:
        # Read before the form's first figures: they mark the plan unmodified, which drops the copy.
        self._kept_origin = origin_of(self.plan_file, self._origin)
        self._kept = found(self._kept_origin)
        self._keeping = False  # copies start once the kept one is restored or declined
        self._keep_timer: object | None = None
        self._old_signals: dict[int, object] = {}

    @property
    def modified(self) -> bool:
        raise NotImplementedError

    def _recovery_start(self) -> None:
        """Signals to the app; the kept copy offered (a worker of PodplanApp)."""
        import asyncio
        import signal

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                self._old_signals[sig] = signal.getsignal(sig)
                loop.add_signal_handler(sig, self._signalled, sig)
            except (ValueError, RuntimeError):  # not the main thread (an embedding program): nothing to keep
                self._old_signals.pop(sig, None)

    def _recovery_stop(self) -> None:
        import asyncio
        import signal

        for sig, old in self._old_signals.items():
            with contextlib.suppress(ValueError, RuntimeError, TypeError):
                asyncio.get_running_loop().remove_signal_handler(sig)
                signal.signal(sig, old)  # type: ignore[arg-type]
        self._old_signals = {}

    def _signalled(self, sig: int) -> None:
        if self._keeping and self.modified:
            keep(self.plan, origin_of(self.plan_file, self._origin))
        self.exit(return_code=128 + sig)  # type: ignore[attr-defined]

    def _edits_changed(self) -> None:
        """After each computation: a copy soon while the form differs from its file, none once it agrees."""
        if not self._keeping:
            return
        if self._keep_timer is not None:
            self._keep_timer.stop()  # type: ignore[attr-defined]
            self._keep_timer = None
        origin = origin_of(self.plan_file, self._origin)
        if self.modified:
            plan = self.plan
            self._keep_timer = self.set_timer(self.DEBOUNCE_S, lambda: keep(plan, origin))  # type: ignore[attr-defined]
        else:
            drop(origin)

    def _edits_gone(self, *origins: str) -> None:
        """Saved, or the user chose to lose them: no copy to offer."""
        if self._keep_timer is not None:
            self._keep_timer.stop()  # type: ignore[attr-defined]
            self._keep_timer = None
        for origin in {*origins, origin_of(self.plan_file, self._origin)}:
            drop(origin)
