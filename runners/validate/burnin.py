"""Burn-in: every member disk read end to end (written first, chunk by chunk, where allowed), with
SMART read before and after, so a disk whose error counters move is named before the array is trusted.

Each disk runs in its own thread, at once, as the array will load them. The work is cut in chunks,
each one `dd` run through the command chokepoint; the offset reached per disk is saved in a state
file after every chunk, so a stop (Ctrl+C, SIGTERM, a crash) loses at most the chunk under way and
`--resume` goes on from there. dd (not fio) because a chunk is a plain sequential pass that needs
neither fio's job file nor its JSON, and dd's O_DIRECT keeps the page cache out of the reading.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planners.errors import PodplanError
from planners.health import DiskHealth, counters_moved
from runners.exec import spawn
from runners.files import read_text, write_text

MiB = 1024**2
GiB = 1024**3
_FROZEN = ConfigDict(frozen=True)


class BurnInError(PodplanError):
    """A burn-in that cannot start or go on (no state to resume, a state of other disks); one line."""


class DiskBurn(BaseModel):
    """One disk's place in the burn-in."""

    model_config = _FROZEN

    device: str = Field(description="Device path.")
    size_bytes: int = Field(description="The device's size when the burn-in began, in bytes.")
    done_bytes: int = Field(0, description="Bytes from the start already read (and written), in bytes.")
    before: DiskHealth = Field(description="SMART as read before the first chunk.")
    error: str = Field("", description="Why the disk stopped early (dd's message), '' if it did not.")


class BurnState(BaseModel):
    """What the state file holds: enough to go on after a stop."""

    model_config = _FROZEN

    target: str = Field(description="The target as given.")
    write: bool = Field(description="True if each chunk is written (zeros) before it is read.")
    chunk_bytes: int = Field(description="Bytes per dd run, in bytes.")
    disks: tuple[DiskBurn, ...] = Field(description="Per disk, in lsblk's order.")


class DiskVerdict(BaseModel):
    """One disk at the end of a burn-in (or of a stop)."""

    model_config = _FROZEN

    device: str = Field(description="Device path.")
    size_bytes: int = Field(description="Device size, in bytes.")
    done_bytes: int = Field(description="Bytes covered, in bytes.")
    before: DiskHealth = Field(description="SMART before.")
    after: DiskHealth | None = Field(description="SMART after (None when stopped early).")
    moved: tuple[str, ...] = Field(description="Error counters that rose, 'name before -> after' each.")
    error: str = Field(description="Why the disk stopped early, '' if it did not.")


def state_path() -> Path:
    """The one burn-in state file, in podplan's state directory."""
    from runners.dirs import state_dir

    return state_dir() / "burn-in.json"


def chunk_bytes_for(size: int) -> int:
    """About 1/64 of a disk per dd run (progress and a stop's loss stay small), 1 MiB to 1 GiB."""
    c = min(GiB, max(MiB, size // 64))
    return c - c % MiB


def dd_argv(device: str, offset: int, length: int, *, write: bool) -> list[str]:
    """One chunk as a dd command: O_DIRECT, offsets and lengths in bytes."""
    if write:
        return [
            "dd", "if=/dev/zero", f"of={device}", "bs=1M", "iflag=count_bytes", "oflag=direct,seek_bytes",
            f"seek={offset}", f"count={length}", "conv=notrunc,fsync", "status=none",
        ]  # fmt: skip
    return [
        "dd", f"if={device}", "of=/dev/null", "bs=1M", "iflag=direct,skip_bytes,count_bytes",
        f"skip={offset}", f"count={length}", "status=none",
    ]  # fmt: skip


def save_state(state: BurnState) -> None:
    path = state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, state.model_dump_json(indent=2), force=True, private=True)


def load_state() -> BurnState:
    path = state_path()
    if not path.exists():
        raise BurnInError(f"no stopped burn-in to resume (none saved in {path})")
    text = read_text(path, what="burn-in state")
    try:
        return BurnState.model_validate(json.loads(text))
    except (ValueError, ValidationError):
        raise BurnInError(f"{path}: not a burn-in state podplan wrote; start over with --force") from None


def clear_state() -> None:
    state_path().unlink(missing_ok=True)


Progress = Callable[[str, int, int], None]
"""(device, bytes done, device size): called as each chunk ends."""


def _run_chunk(argv: list[str], cancel: threading.Event) -> str | None:
    """None when the chunk ran whole; '' when cancelled; dd's last line when it failed."""
    with spawn(argv) as p:
        while p.wait(0.2) is None:
            if cancel.is_set():
                p.stop("cancelled")
                return ""
    if p.returncode == 0:
        return None
    lines = p.stderr.strip().splitlines()
    return lines[-1] if lines else f"dd exit status {p.returncode}"


class _Run:
    """The burn-in under way: each disk's offset, saved after every chunk."""

    def __init__(self, state: BurnState, on_progress: Progress, cancel: threading.Event):
        self.state, self.on_progress, self.cancel = state, on_progress, cancel
        self.disks = list(state.disks)
        self.lock = threading.Lock()

    def disk(self, i: int) -> None:
        d, chunk = self.disks[i], self.state.chunk_bytes
        while d.done_bytes < d.size_bytes and not self.cancel.is_set():
            length = min(chunk, d.size_bytes - d.done_bytes)
            steps = [True, False] if self.state.write else [False]
            why = None
            for w in steps:
                why = _run_chunk(dd_argv(d.device, d.done_bytes, length, write=w), self.cancel)
                if why is not None:
                    break
            if why == "":
                return
            d = d.model_copy(update={"done_bytes": d.done_bytes + length} if why is None else {"error": why})
            with self.lock:
                self.disks[i] = d
                save_state(self.state.model_copy(update={"disks": tuple(self.disks)}))
            if why is not None:
                return
            self.on_progress(d.device, d.done_bytes, d.size_bytes)


def run_burn_in(
    state: BurnState,
    read_health: Callable[[str], DiskHealth],
    on_progress: Progress,
    cancel: threading.Event | None = None,
) -> tuple[DiskVerdict, ...]:
    """Every disk from its saved offset to its end, at once; SMART after on the disks that finished.

    The state file is kept when a disk stopped early (a cancel or a dd failure) and removed once
    every disk reached its end. Ctrl+C (a KeyboardInterrupt in the calling thread) stops every dd and
    returns what was done, as a cancel does."""
    cancel = cancel or threading.Event()
    save_state(state)
    run = _Run(state, on_progress, cancel)
    for d in state.disks:
        on_progress(d.device, d.done_bytes, d.size_bytes)
    threads = [threading.Thread(target=run.disk, args=(i,), daemon=True) for i in range(len(state.disks))]
    for t in threads:
        t.start()
    try:
        while any(t.is_alive() for t in threads):
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass  # the state file holds each disk's offset: the stop is an outcome, not an error
    finally:
        cancel.set()  # every thread stops its dd and returns; the state was saved after each chunk
        for t in threads:
            t.join()
    verdicts = []
    for d in run.disks:
        whole = d.done_bytes >= d.size_bytes
        after = read_health(d.device) if whole else None
        moved = counters_moved(d.before, after) if after else ()
        verdicts.append(DiskVerdict(**d.model_dump(exclude={"before"}), before=d.before, after=after, moved=moved))
    if all(v.done_bytes >= v.size_bytes for v in verdicts):
        clear_state()
    return tuple(verdicts)


def device_size(path: str) -> int:
    with open(path, "rb") as f:
        return f.seek(0, os.SEEK_END)


def new_state(target: str, devices: Sequence[str], write: bool, before: Sequence[DiskHealth]) -> BurnState:
    sizes = [device_size(d) for d in devices]
    return BurnState(
        target=target,
        write=write,
        chunk_bytes=chunk_bytes_for(min(sizes)),
        disks=tuple(DiskBurn(device=d, size_bytes=s, before=h) for d, s, h in zip(devices, sizes, before, strict=True)),
    )
