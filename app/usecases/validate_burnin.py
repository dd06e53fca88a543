"""`validate --burn-in`: every disk under a target read end to end (written first with --destroy-data,
behind the write guard), SMART before and after, a disk whose error counters moved named.

A stop leaves a state file with each disk's offset; `--resume` goes on from there with the SMART
reading taken before the first chunk, so the verdict compares the whole burn-in, not its last part.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from runners.validate.burnin import BurnState as BurnState
from runners.validate.burnin import DiskVerdict, Progress


@dataclass(frozen=True)
class BurnInRequest:
    target: str
    """md device, LV, block device or a directory on one: the disks under it are burnt in."""
    destroy_data: str | None = None
    """Write every chunk before reading it; must name the target, and each disk must pass the write guard."""
    resume: bool = False
    """Go on from the saved state file instead of starting over."""
    force: bool = False
    """Start over although a stopped burn-in is saved (its state is replaced)."""


@dataclass(frozen=True)
class BurnInOutcome:
    state: BurnState
    """What ran: the target, whether it wrote, each disk with its SMART before."""
    verdicts: tuple[DiskVerdict, ...]
    state_file: str

    @property
    def stopped(self) -> bool:
        """True when a disk did not reach its end (its offset is in the state file)."""
        return any(v.done_bytes < v.size_bytes for v in self.verdicts)

    @property
    def moved(self) -> tuple[DiskVerdict, ...]:
        return tuple(v for v in self.verdicts if v.moved)


def _same_device(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _write_guard(target: str, devices: tuple[str, ...], destroy_data: str | None) -> bool:
    """True if the burn-in writes: --destroy-data names the target and no disk refuses a write."""
    from runners.validate.guard import GuardError, block_rdev, check_destroy_flag, inspect, write_refusal

    if not check_destroy_flag(target, destroy_data):
        return False
    for dev in devices:
        why = write_refusal(inspect(dev), destroy_ok=block_rdev(dev) == block_rdev(target))
        if why:
            raise GuardError(f"burn-in with --destroy-data: {why}; nothing was run")
    return True


def _resumed(req: BurnInRequest) -> BurnState:
    from runners.validate.burnin import BurnInError, device_size, load_state

    state = load_state()
    if not _same_device(state.target, req.target):
        raise BurnInError(f"the saved burn-in is of {state.target}, not {req.target}; start over with --force")
    if state.write != (req.destroy_data is not None):
        flag = f"pass --destroy-data {req.target}" if state.write else "leave out --destroy-data"
        raise BurnInError(f"the saved burn-in {'wrote' if state.write else 'only read'}: {flag} to resume it")
    if state.write:
        _write_guard(req.target, tuple(d.device for d in state.disks), req.destroy_data)
    for d in state.disks:
        if device_size(d.device) != d.size_bytes:
            raise BurnInError(f"{d.device} is no longer {d.size_bytes:,} bytes: start over with --force")
    return state


def _fresh(req: BurnInRequest) -> BurnState:
    from app.usecases.validate_health import member_disks
    from runners.validate.burnin import BurnInError, new_state, state_path
    from runners.validate.health import read_all

    if state_path().exists() and not req.force:
        raise BurnInError(
            f"a stopped burn-in is saved in {state_path()}: --resume to go on from where it stopped, "
            "--force to start over"
        )
    devices = member_disks(req.target)
    write = _write_guard(req.target, devices, req.destroy_data)
    return new_state(req.target, devices, write, read_all(devices))


def burn_in_session(
    req: BurnInRequest,
    on_start: Callable[[BurnState], None],
    on_progress: Progress,
    cancel: threading.Event | None = None,
) -> BurnInOutcome:
    """Check, read SMART, run every disk at once to its end (or a stop), read SMART again."""
    from runners.validate.burnin import run_burn_in, state_path
    from runners.validate.health import read_health

    state = _resumed(req) if req.resume else _fresh(req)
    on_start(state)
    verdicts = run_burn_in(state, read_health, on_progress, cancel)
    return BurnInOutcome(state, verdicts, str(state_path()))
