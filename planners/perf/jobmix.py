"""The options that shape a job's requests beyond one rw and one bs, read as fio reads them.

Block-size mixes (bssplit, bsrange), a hot set (random_distribution), the read-back of verify,
a latency target, flow weights, fio's submission mode, rate_min, offsets and the rw modifier
`:N`. What each does to the figure is in planners.perf.shaped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from planners.errors import PlanError

Options = dict[str, tuple[str, int, str]]
Fail = Callable[[int, str], PlanError]
Sizes = Callable[[str, int], int]  # (text, line) -> bytes, with the job's kb_base
Split = tuple[tuple[int, float], ...]
DISTRIBUTIONS = ("random", "zipf", "pareto", "normal", "zoned", "zoned_abs")


def bs_split(opts: Options, size: Sizes, fail: Fail) -> tuple[Split, Split]:
    """(reads, writes): each a (block size, share of requests) per size, from bssplit or bsrange.

    bssplit: fio draws each request's size with the given percentages (blank ones share what is
    left evenly); one list applies to every direction, a comma gives reads, writes (and trims).
    bsrange a-b: fio draws a + b x U (U uniform in [0, 1)), rounds it down to a multiple of a and
    caps it at b, so each multiple m x a is drawn with chance a / b (the last one with what is left).
    """
    if "bssplit" in opts:
        value, line, _ = opts["bssplit"]
        sides = [_split_side(s, line, size, fail) if s.strip() else () for s in value.split(",")[:2]]
    elif "bsrange" in opts:
        value, line, _ = opts["bsrange"]
        sides = [_range_side(s, line, size, fail) if s.strip() else () for s in value.split(",")[:2]]
    else:
        return (), ()
    if len(sides) == 1:
        sides.append(sides[0])
    return sides[0], sides[1]


def _split_side(text: str, line: int, size: Sizes, fail: Fail) -> Split:
    given: list[tuple[int, float | None]] = []
    for part in text.split(":"):
        b, _, p = part.partition("/")
        if p.strip() and not re.fullmatch(r"\d+(\.\d+)?", p.strip()):
            raise fail(line, f"bssplit part {part!r}: the share is a percentage")
        given.append((size(b, line), float(p) if p.strip() else None))
    named = sum(p for _, p in given if p is not None)
    if named > 100:
        raise fail(line, f"bssplit {text!r}: the shares add up to {named:g} %, more than 100 (fio refuses it)")
    blank = [b for b, p in given if p is None]
    rest = (100 - named) / len(blank) if blank else 0.0
    out: dict[int, float] = {}
    for b, p in given:
        share = (rest if p is None else p) / 100
        if share > 0:
            out[b] = out.get(b, 0.0) + share
    total = sum(out.values())
    if not total:
        raise fail(line, f"bssplit {text!r}: no block size has a share")
    # fio draws against the named percentages; shares adding up to less leave the last size the rest.
    return tuple((b, p / total) for b, p in sorted(out.items()))


def _range_side(text: str, line: int, size: Sizes, fail: Fail) -> Split:
    lo_text, sep, hi_text = text.partition("-")
    if not sep:
        raise fail(line, f"bsrange {text!r} is not a range (min-max)")
    lo, hi = size(lo_text, line), size(hi_text, line)
    if not 0 < lo <= hi:
        raise fail(line, f"bsrange {text!r}: the smaller size comes first")
    out = []
    m = 1
    while m * lo <= hi and (m - 1) * lo < hi:
        # a + b*U lands in [m*a, (m+1)*a) for U in [(m-1)*a/b, m*a/b); fio caps the value at b.
        share = (min(m * lo, hi) - (m - 1) * lo) / hi
        out.append((min(m * lo, hi), share))
        m += 1
    if (m - 1) * lo < hi:
        out.append((hi, (hi - (m - 1) * lo) / hi))
    total = sum(p for _, p in out)
    return tuple((b, p / total) for b, p in out)


def distribution(opts: Options, fail: Fail) -> str:
    """fio's random_distribution, checked: random, zipf:T, pareto:H, normal:D, zoned:P/S:..., zoned_abs:P/SIZE:..."""
    if "random_distribution" not in opts:
        return "random"
    value, line, _ = opts["random_distribution"]
    kind, _, rest = value.strip().lower().partition(":")
    if kind not in DISTRIBUTIONS:
        raise fail(line, f"random_distribution={value!r}: fio takes {', '.join(DISTRIBUTIONS)}")
    if kind in ("zipf", "pareto", "normal"):
        first = rest.split(":")[0].split(",")[0]
        try:
            x = float(first) if first else None
        except ValueError:
            raise fail(line, f"random_distribution={value!r}: {first!r} is not a number") from None
        if x is None or (kind == "zipf" and x == 1.0) or (kind == "pareto" and not 0 < x < 1) or x < 0:
            raise fail(line, f"random_distribution={value!r}: fio needs zipf:T (T not 1), pareto:H (0<H<1) or normal:D")
    if kind.startswith("zoned"):
        for part in rest.split(":"):
            if not re.fullmatch(r"\d+(\.\d+)?/[\w.]*", part.strip()):
                raise fail(
                    line,
                    f"random_distribution={value!r}: each zone is PERCENT/{'SIZE' if kind == 'zoned_abs' else 'PERCENT'}",
                )
    return value.strip().lower()


def _time_us(text: str, default_unit: str, fail: Callable[[], PlanError]) -> float:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(us|usec|ms|msec|s|sec)?\s*", text.lower())
    if not m:
        raise fail()
    return (
        float(m.group(1))
        * {"us": 1.0, "usec": 1.0, "ms": 1e3, "msec": 1e3, "s": 1e6, "sec": 1e6}[m.group(2) or default_unit]
    )


def shaping(opts: Options, size: Sizes, fail: Fail, writes: bool) -> dict[str, Any]:
    """The Workload fields of verify, latency target, flow, submission mode, rate_min and offsets."""
    out: dict[str, Any] = {}

    def num(key: str) -> tuple[str, int]:
        return opts[key][0].strip(), opts[key][1]

    verify = "verify" in opts and num("verify")[0].lower() not in ("0", "", "none")
    do_verify = num("do_verify")[0] != "0" if "do_verify" in opts else True
    if verify and do_verify and writes:
        out["verify"] = True
        if "verify_backlog" in opts:
            text, line = num("verify_backlog")
            if not text.isdigit():
                raise fail(line, f"verify_backlog={text!r} is not a count of writes")
            out["verify_backlog"] = int(text)
        out["sorted_readback"] = any(k in opts and num(k)[0] != "0" for k in ("norandommap", "softrandommap"))
    if "latency_target" in opts:
        text, line = num("latency_target")
        out["latency_target_us"] = _time_us(text, "us", lambda: fail(line, f"latency_target={text!r} is not a time"))
        if "latency_percentile" in opts:
            p, line = num("latency_percentile")
            try:
                out["latency_percentile"] = float(p)
            except ValueError:
                raise fail(line, f"latency_percentile={p!r} is not a percentage") from None
    if "flow" in opts:
        text, line = num("flow")
        if not re.fullmatch(r"-?\d+", text):
            raise fail(line, f"flow={text!r} is not a whole number")
        out["flow"] = abs(int(text))
        if "flow_id" in opts:
            text, line = num("flow_id")
            if not text.isdigit():
                raise fail(line, f"flow_id={text!r} is not a whole number")
            out["flow_id"] = int(text)
    if "io_submit_mode" in opts:
        text, line = num("io_submit_mode")
        if text not in ("inline", "offload"):
            raise fail(line, f"io_submit_mode={text!r}: fio takes inline or offload")
        out["submit_offload"] = text == "offload"
    if "rate_process" in opts and num("rate_process")[0] not in ("linear", "poisson"):
        raise fail(num("rate_process")[1], "rate_process takes linear or poisson")
    if "rate_min" in opts:
        text, line = num("rate_min")
        out["rate_min_bytes_s"] = min((size(p, line) for p in text.split(",") if p.strip()), default=0) or None
    for key in ("offset", "offset_increment"):
        if key in opts and opts[key][0].strip().endswith("%"):
            raise fail(opts[key][1], f"{key}={opts[key][0]}: a share of the target is not modelled; give bytes")
    return out


def offset(opts: Options, size: Sizes, numjobs: int) -> int:
    """Where the job's I/O lies, from its start: fio offset, plus half the spread offset_increment gives
    its clones (clone k starts k increments further), so that the middle of the span is right."""
    start = size(*opts["offset"][:2]) if "offset" in opts else 0
    step = size(*opts["offset_increment"][:2]) if "offset_increment" in opts else 0
    return start + step * (numjobs - 1) // 2


def clone_step(opts: Options, size: Sizes) -> int:
    """fio offset_increment: how much further each clone starts than the one before it."""
    return size(*opts["offset_increment"][:2]) if "offset_increment" in opts else 0


def stride(rw_text: str, random: bool, size: Sizes, fail: Fail, line: int) -> int:
    """fio's rw=KIND:N: N bytes skipped after each sequential request (negative: backwards)."""
    _, sep, mod = rw_text.partition(":")
    if not sep or not mod.strip():
        return 0
    if random:
        raise fail(line, f"rw={rw_text}: a new random offset every {mod.strip()} requests is not modelled")
    text = mod.strip()
    back = text.startswith("-")
    n = size(text.lstrip("-+"), line)
    return -n if back else n


def zoned(opts: Options, rw: str, zone: int, size: Sizes, fail: Fail, notes: list[str]) -> tuple[Any, dict[str, Any]]:
    """(rw as the array sees it, Workload fields) under fio's zonemode, on an array that is not zoned.

    strided (also what zonesize alone means): fio moves zonesize bytes inside a zone, then jumps
    zonerange + zoneskip on; a sequential job is a stream that repositions once per zone.
    zbd: fio emulates zones of zonesize on a device that is not zoned, every zone empty at the
    start. A write goes to the write pointer of its zone, so a sequential job is a stream and a
    random one writes at the pointers of zones drawn at random: random positions, as many as
    there are open zones (one open zone: a stream). A zone reset only moves fio's own pointer
    back (nothing is sent to such a device). Reads stop at the pointer unless read_beyond_wp.
    """
    mode = opts["zonemode"][0].strip().lower() if "zonemode" in opts else ("strided" if zone else "none")
    line = opts["zonemode"][1] if "zonemode" in opts else opts.get("zonesize", ("", 0, ""))[1]
    random = rw in ("randread", "randwrite", "randrw")
    if mode == "none":
        return rw, {}
    if mode not in ("strided", "zbd"):
        raise fail(line, f"zonemode={mode}: fio takes none, strided or zbd")
    if not zone:
        raise fail(line, f"zonemode={mode} needs zonesize (fio refuses it without)")
    if mode == "strided":
        if random:
            raise fail(line, "zonemode=strided with random I/O: random offsets confined to each zone are not modelled")
        span = size(*opts["zonerange"][:2]) if "zonerange" in opts else zone
        skip = size(*opts["zoneskip"][:2]) if "zoneskip" in opts else 0
        notes.append(
            f"zonemode=strided: {zone} bytes a zone, then a jump of {max(0, span - zone) + skip} bytes: "
            "one repositioning per zone"
        )
        return rw, {"zone_bytes": zone} if skip or span > zone else {}
    beyond = "read_beyond_wp" in opts and opts["read_beyond_wp"][0].strip() == "1"
    if rw in ("readwrite", "randrw") and not beyond:
        raise fail(
            line,
            "zonemode=zbd with a mix: the reads follow the write pointers the job's own writes move "
            "(read_beyond_wp=0), which is not modelled",
        )
    if rw in ("read", "randread") and not beyond:
        # fio's zbd.c starts every emulated zone of a device that is not zoned empty (its write
        # pointer at the zone's start) and finds no zone with data, so the job ends at once.
        return rw, {
            "moves_nothing": "zonemode=zbd: fio emulates zones on an array that is not zoned and starts each "
            "empty; its reads stop at a zone's write pointer (read_beyond_wp=0), so the job reads "
            "0 bytes and ends at once (read_beyond_wp=1 reads the whole span)"
        }
    opened = int(opts["max_open_zones"][0]) if "max_open_zones" in opts and opts["max_open_zones"][0].isdigit() else 0
    if rw == "randwrite" and opened == 1:
        notes.append("zonemode=zbd: one open zone: the random writes go to its write pointer, one stream")
        return "write", {}
    if rw == "randwrite":
        notes.append(
            f"zonemode=zbd: random writes land at the write pointers of {opened or 'any number of'} open "
            "zones drawn at random: random positions"
        )
    return rw, {}
