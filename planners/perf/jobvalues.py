"""The values of a fio job file as fio reads them: sizes with fio's own unit rules, times, flags,
counts, and a job's mix, rate caps, pauses and flushes (planners.perf.jobfile reads the sections)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from planners.errors import PlanError


def fio_bytes(text: str, kb_base: int = 1024, *, what: str = "size") -> int:
    """A size as fio reads it: '4k' -> 4096 (kb_base 1024), '1KiB' -> 1000 there, '1m' ... ."""
    m = re.fullmatch(r"\s*([0-9]{1,20})\s*([A-Za-z%]*)\s*", text)
    if not m:
        raise PlanError(f"{what} {text!r} is not a size fio reads the same way (whole numbers only: 1536k, not 1.5m)")
    number, suffix = int(m.group(1)), m.group(2).lower()
    if suffix == "%":
        raise PlanError(f"{what} {text!r}: a share of the target is not modelled; give bytes")
    powers = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
    if not suffix or suffix == "b":
        return number
    iec = suffix.endswith("ib") and len(suffix) == 3
    if suffix[0] not in powers or (len(suffix) > 1 and suffix not in (suffix[0] + "b", suffix[0] + "ib")):
        raise PlanError(f"{what} {text!r} has a unit fio does not know")
    # fio's compatibility mode (kb_base=1024, its default) reads SI letters as powers of 2 and
    # IEC ones as powers of 10; kb_base=1000 reads both the way the standards mean them.
    base = (1000 if kb_base == 1024 else 1024) if iec else kb_base
    return number * int(base ** powers[suffix[0]])


Options = dict[str, tuple[str, int, str]]  # option -> (value, line, the section that set it)
# The error for a line of the job file: (line, message) -> PlanError, for the caller to raise.
Fail = Callable[[int, str], PlanError]


def pacing(opts: Options, kb_base: int, fail: Fail) -> dict[str, Any]:
    """The Workload fields for a job's mix, caps, pauses and flushes, read as fio reads them."""
    out: dict[str, Any] = {}  # Workload's keyword arguments, which it validates
    if "rwmixread" in opts or "rwmixwrite" in opts:
        # fio: given both, the one set later wins; a job file's order is the order of its lines.
        key = max(("rwmixread", "rwmixwrite"), key=lambda k: opts[k][1] if k in opts else -1)
        value, line, _ = opts[key]
        if not is_number(value) or int(value) > 100:
            raise fail(line, f"{key}={value!r} is not a percentage from 0 to 100")
        out["read_mix"] = int(value) / 100 if key == "rwmixread" else 1 - int(value) / 100
    for key, field in (("rate", "rate_bytes_s"), ("rate_iops", "rate_iops")):
        if key in opts:
            value, line, _ = opts[key]
            parts = [*value.split(","), ""][:2] if "," in value else [value, value]
            pair: list[int | None] = []
            for p in parts:
                if not p.strip():
                    pair.append(None)
                elif key == "rate":
                    pair.append(fio_bytes(p, kb_base, what=f"line {line}: rate") or None)
                elif is_number(p):
                    pair.append(int(p) or None)
                else:
                    raise fail(line, f"rate_iops={value!r} is not a count per second")
            out[field] = tuple(pair)
    if "thinktime" in opts:
        value, line, _ = opts["thinktime"]
        us = seconds(
            value if not is_number(value) else value + "us", fail(line, f"thinktime={value!r} is not a time fio reads")
        )
        out["thinktime_us"] = (us or 0.0) * 1e6
        if "thinktime_blocks" in opts:
            out["thinktime_blocks"] = count(opts["thinktime_blocks"][0], opts["thinktime_blocks"][1], fail)
    for key, metadata in (("fsync", True), ("fdatasync", False)):
        if key in opts:
            value, line, _ = opts[key]
            if not is_number(value):
                raise fail(line, f"{key}={value!r} is not a count of writes")
            if int(value):
                out.update(sync_every=int(value), sync_metadata=metadata)
    if "sync" in opts:
        value, line, _ = opts["sync"]
        kind = value.strip().lower()
        if kind not in ("0", "1", "none", "sync", "dsync"):
            raise fail(line, f"sync={value!r}: fio takes 0/none, 1/sync or dsync")
        if kind in ("1", "sync", "dsync"):
            out.update(sync_every=1, sync_metadata=kind != "dsync")
    return out


def seconds(text: str, error: PlanError) -> float | None:
    """fio's time: a bare number is seconds; us/ms/s/m/h/d suffixes as fio reads them; 0 = no limit."""
    m = re.fullmatch(r"\s*([0-9]{1,20})\s*(us|usec|ms|msec|s|sec|m|min|h|d)?\s*", text.lower())
    if not m:
        raise error
    scale = {
        "us": 1e-6,
        "usec": 1e-6,
        "ms": 1e-3,
        "msec": 1e-3,
        "s": 1,
        "sec": 1,
        "m": 60,
        "min": 60,
        "h": 3600,
        "d": 86400,
    }[m.group(2) or "s"]
    return int(m.group(1)) * scale or None


def is_number(text: str) -> bool:
    """A whole number as fio reads one: ASCII digits ("²" is a digit to str.isdigit, not to int()), at
    most 20 of them (fio's numbers are 64 bits; int() refuses thousands of digits)."""
    t = text.strip()
    return t.isascii() and t.isdigit() and len(t) <= 20


def flag(text: str, error: PlanError) -> bool:
    """fio's 0 or 1 (a bare option reads as 1 before it gets here)."""
    if text.strip() not in ("0", "1"):
        raise error
    return text.strip() == "1"


def count(text: str, line: int, fail: Fail) -> int:
    """A whole number of 1 or more (numjobs, iodepth, number_ios ...)."""
    if not is_number(text) or int(text) < 1:
        raise fail(line, f"{text!r} is not a count of 1 or more")
    return int(text)
