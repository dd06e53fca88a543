"""Jobs whose requests are not all alike: each shape is reduced to plain workloads and recombined.

- verify: fio writes the job's bytes, then reads every written block back and checks it. The
  write pass is the job as written; the read-back is a second row: reads of the same sizes, in
  the order fio kept the writes (write order, so a random write pass is read back at random;
  offset order where blocks may be written twice: norandommap, an rw modifier, io_size > size). With verify_backlog fio reads back every N writes while it
  writes, so the job is a 1:1 mix of its writes and their reads (the mix's times added). A
  time_based job without a backlog never reaches its read-back (fio says so and skips it).
- latency_target: fio lowers the queue depth until the latency meets the target, then keeps the
  deepest that does. By Little's law a request waits in_flight / IOPS on average, so the depth
  is the deepest at or under iodepth whose predicted wait meets the target. When even depth 1
  misses it fio ends the job with an error (ETIMEDOUT), which the row says.
- bssplit / bsrange: fio draws each request's size by count, reads and writes apart. A byte of
  size b takes 1 / rate(b) of the array's time, so the job's time per byte is the sum over
  sizes of each size's share of the bytes (count x size, normalised) over its own figure. (fio's
  random map cuts a request to the run of blocks not yet done in this pass, so on a span a run
  covers many times the sizes drift smaller than drawn; the model takes them as drawn, as they
  are with norandommap or on a span larger than the run.)
- random_distribution: zoned and zoned_abs put each share of the requests on a contiguous part
  of the span, so the arm travels the mean distance between two draws, not a third of the span
  (a uniform draw's): the job is predicted over the span whose uniform draws travel as far.
  zipf, pareto and normal scatter their hot blocks over the whole span (fio hashes the block
  numbers), so seeks are as long as a uniform draw's; what changes is how often a request hits
  a block the page cache still holds: the share of requests landing on the hottest
  memory-sized part of the span. A buffered reader gets those at the CPU's copy rate.
- zonemode=strided: a sequential job moves zonesize bytes, then jumps: each jump costs every
  disk one repositioning (settle plus half a rotation), the time of the zone's bytes plus that.
- the rw modifier :N: a spinning disk turns past the N skipped bytes, so each request costs its
  transfer plus the gap's; flash skips for free. Backwards (:-N) a disk reads ahead forwards
  only, so every request waits for its sector to come round: a random request over the span.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import erf, sqrt

from planners.hardware.disks import DiskPerf
from planners.models import Plan
from planners.perf.context import PerfCtx, build_ctx, positioning_s
from planners.perf.predict import (
    Mode,
    PredictedTerm,
    WorkloadPrediction,
    geometry_for_speed,
    merged_inputs,
    predict_ctx,
)
from planners.perf.workloads import PRESETS, Workload
from planners.results import PlanResult

Plain = Callable[[Workload], WorkloadPrediction]


def predict_shaped(
    plan: Plan,
    result: PlanResult | None,
    workloads: Sequence[Workload],
    *,
    disk_override: DiskPerf | None = None,
    mode: Mode = "normal",
    missing: int = 1,
) -> list[WorkloadPrediction]:
    """planners.perf.predict.predict for a job file's sections: each shape reduced to plain workloads."""
    result = result or geometry_for_speed(plan)
    ctx = build_ctx(plan, result, disk_override)

    stripe = result.volumes[0].alignment.top_io_opt_bytes

    seen: dict[Workload, WorkloadPrediction] = {}

    def plain(w: Workload) -> WorkloadPrediction:
        # Sections alike but for their names (a generated file of thousands) are one prediction, renamed.
        # A preset keeps its name in the key: predict_ctx shapes a suite preset for the array as
        # validate runs it; anything else is as given.
        key = w if w.name in PRESETS else w.model_copy(update={"name": "", "description": ""})
        row = seen.get(key)
        if row is None:
            [row] = predict_ctx(ctx, stripe, [w], mode, missing)
            seen[key] = row
        return row if row.workload == w.name else row.model_copy(update={"workload": w.name})

    return [row for w in workloads for row in shaped(ctx, w, plain)]


def shaped(ctx: PerfCtx, w: Workload, plain: Plain) -> list[WorkloadPrediction]:
    """The rows for workload `w`: one, or the write pass and its read-back for a verify job."""
    if w.moves_nothing:
        return [idle(w)]
    if w.verify and not w.verify_backlog and w.time_based:
        return [
            with_note(
                _one(ctx, w.model_copy(update={"verify": False}), plain),
                "verify: fio never starts the read-back, the time-based write phase takes all of runtime",
            )
        ]
    if w.verify and not w.verify_backlog:
        back = w.model_copy(
            update={
                "name": f"{w.name} (verify)",
                "verify": False,
                "rw": ("read" if w.sorted_readback or not w.is_random else "randread"),
                "bs_split": (w.bs_split[1], w.bs_split[1]),
            }
        )
        first = w.model_copy(update={"verify": False})
        one = with_note(
            _one(ctx, first, plain),
            f"write pass of verify: its blocks are read back after it, in the next row ({back.rw})",
        )
        two = with_note(
            _one(ctx, back, plain),
            f"verify read-back of {w.name}'s writes, "
            + ("in offset order (fio sorted them)" if w.sorted_readback else "in the order fio wrote them"),
        )
        return [one, two]
    if w.verify:
        mixed = w.model_copy(
            update={
                "verify": False,
                "read_mix": 0.5,
                "bs_split": (w.bs_split[1], w.bs_split[1]),
                "rw": "randrw" if w.is_random else "readwrite",
            }
        )
        return [
            with_note(
                _one(ctx, mixed, plain),
                f"verify_backlog={w.verify_backlog}: each written block is "
                "read back while the job writes, a 1:1 mix of writes and reads",
            )
        ]
    return [_one(ctx, w, plain)]


def idle(w: Workload) -> WorkloadPrediction:
    """The row of a job fio runs but that moves nothing: zero, and why."""
    name = "nothing to move"
    return WorkloadPrediction(
        workload=w.name,
        block_bytes=w.bs,
        mb_s=0.0,
        iops=0.0,
        binding=name,
        runner_up="",
        headroom=1.0,
        terms=[PredictedTerm(name=name, mb_s=0.0, iops=0.0, note=w.moves_nothing)],
        shaping=[w.moves_nothing],
    )


def _one(ctx: PerfCtx, w: Workload, plain: Plain) -> WorkloadPrediction:
    if w.latency_target_us:
        return _latency_target(ctx, w, plain)
    return _sized(ctx, w, plain)


def _latency_target(ctx: PerfCtx, w: Workload, plain: Plain) -> WorkloadPrediction:
    def wait_us(depth: int) -> tuple[WorkloadPrediction, float]:
        p = _sized(ctx, w.model_copy(update={"iodepth": depth, "latency_target_us": 0.0}), plain)
        inflight = w.model_copy(update={"iodepth": depth}).in_flight
        return p, (inflight / p.iops * 1e6 if p.iops > 0 else float("inf"))

    lo, hi = 1, w.iodepth
    best, lat = wait_us(1)
    if lat <= w.latency_target_us:
        while lo < hi:  # the wait grows with the depth: the deepest that meets the target
            mid = (lo + hi + 1) // 2
            p, t = wait_us(mid)
            if t <= w.latency_target_us:
                lo, best, lat = mid, p, t
            else:
                hi = mid - 1
    note = (
        f"latency_target {w.latency_target_us:g} us: fio settles on iodepth {lo} of {w.iodepth}, "
        f"where the mean wait is {lat:,.0f} us (fio's {w.latency_percentile:g}th percentile sits above the "
        "mean, so it may settle shallower)"
    )
    if lo == 1 and lat > w.latency_target_us:
        note = (
            f"latency_target {w.latency_target_us:g} us is not met even at iodepth 1 (mean wait {lat:,.0f} "
            "us): fio ends the job with an error (ETIMEDOUT) once depth 1 misses it; this is depth 1's figure"
        )
    return with_note(best, note, depth=lo)


def _sized(ctx: PerfCtx, w: Workload, plain: Plain) -> WorkloadPrediction:
    """The job with its block-size mix, each size predicted alone and their times per byte added."""
    parts = _parts(w)
    if len(parts) == 1:
        return _placed(ctx, parts[0][0], plain)
    rows = [(_placed(ctx, x, plain), byte_share) for x, byte_share in parts]
    stopped = next((p for p, _ in rows if p.mb_s <= 0), None)
    if stopped:
        # A size the array cannot serve at all (it failed: a degraded RAID0) holds the whole mix.
        return stopped
    secs = sum(s / p.mb_s for p, s in rows if p.mb_s > 0)
    mb_s = 1 / secs if secs else 0.0
    count = sum(s / x.bs for (x, s) in parts)
    mean_bs = 1 / count if count else w.bs
    worst = max(rows, key=lambda r: r[1] / r[0].mb_s if r[0].mb_s else 0)[0]
    names = {t.name for p, _ in rows for t in p.terms}
    terms = []
    for name in names:
        t = sum(s / next((x.mb_s for x in p.terms if x.name == name), float("inf")) for p, s in rows)
        if t > 0:
            terms.append(
                PredictedTerm(
                    name=name,
                    mb_s=1 / t,
                    iops=1e6 / t / mean_bs,
                    note="this ceiling for each block size of the mix, their times per byte added",
                )
            )
    sizes = ", ".join(
        f"{f'{x.bs >> 10}K' if x.bs % 1024 == 0 else f'{x.bs}B'} {x.rw} {p.mb_s:,.3g} MB/s"
        for (x, _), (p, _) in zip(parts, rows, strict=True)
    )
    mix = PredictedTerm(
        name="block-size mix",
        mb_s=mb_s,
        iops=mb_s * 1e6 / mean_bs,
        note=f"each size's time per byte, weighted by its share of the bytes: {sizes}",
    )
    terms = sorted([mix, *terms], key=lambda t: t.mb_s)
    low = 1 / sum(s / p.mb_s_low for p, s in rows if p.mb_s_low > 0) if all(p.mb_s_low > 0 for p, _ in rows) else 0.0
    high = (
        1 / sum(s / p.mb_s_high for p, s in rows if p.mb_s_high > 0) if all(p.mb_s_high > 0 for p, _ in rows) else 0.0
    )
    # The part to blame is the one that limits the size taking the most time; the next limit is the
    # smallest other ceiling over the whole mix.
    nxt = next((t for t in terms if t.name not in (mix.name, worst.binding)), None)
    return worst.model_copy(
        update={
            "workload": w.name,
            "block_bytes": round(mean_bs),
            "mb_s": mb_s,
            "iops": mb_s * 1e6 / mean_bs,
            "binding": worst.binding,
            "runner_up": nxt.name if nxt else "",
            "headroom": nxt.mb_s / mb_s if nxt and mb_s else 1.0,
            "terms": terms,
            "mb_s_low": low,
            "mb_s_high": high,
            **merged_inputs([p for p, _ in rows]),
            "shaping": list(
                dict.fromkeys([*worst.shaping, f"block sizes by request count as fio draws them: {sizes}"])
            ),
        }
    )


def _parts(w: Workload) -> list[tuple[Workload, float]]:
    """(plain workload of one size and direction, its share of the job's bytes)."""
    if not any(w.bs_split):
        return [(w, 1.0)]
    read_rw, write_rw = ("randread", "randwrite") if w.is_random else ("read", "write")
    if w.is_mix:
        sides = [(read_rw, w.read_mix, w.bs_split[0]), (write_rw, 1 - w.read_mix, w.bs_split[1])]
    else:
        sides = [(w.rw, 1.0, w.bs_split[0] if w.is_read else w.bs_split[1])]
    counted = [(rw, b, share * p) for rw, share, split in sides for b, p in (split or ((w.bs, 1.0),)) if share * p]
    total = sum(b * c for _, b, c in counted)
    return [(w.model_copy(update={"rw": rw, "bs": b, "bs_split": ((), ())}), b * c / total) for rw, b, c in counted]


def _placed(ctx: PerfCtx, w: Workload, plain: Plain) -> WorkloadPrediction:
    """One size: where on the span its requests land (stride, hot set) and how often memory has them."""
    notes = []
    if w.stride < 0 and not w.is_random:
        w = w.model_copy(update={"rw": "randread" if w.is_read else "randwrite"})
        notes.append(
            f"backwards by {-w.stride} bytes a request: a disk reads ahead forwards only, so each "
            "request waits for its sector like a random one"
        )
    kind = w.random_distribution.split(":")[0]
    span = w.size or sum(ctx.groups[i].array_bytes for i in ctx.volume_groups)
    if w.is_random and kind.startswith("zoned"):
        zones = zones_of(w.random_distribution, span)
        travel = mean_distance(zones)
        w = w.model_copy(update={"size": max(w.bs, int(3 * travel * span))})
        notes.append(
            f"{w.random_distribution}: two requests lie {travel:.1%} of the span apart on average "
            f"(uniform: 33.3%), as over a uniform span of {3 * travel:.0%}"
        )
    p = plain(w)
    rotating = any(ctx.groups[i].disk.rpm for i in ctx.volume_groups)
    if w.stride > 0 and not w.is_random and rotating:
        keep = w.bs / (w.bs + w.stride)
        p = scaled(
            p,
            keep,
            f"each {w.bs}-byte request skips {w.stride} bytes the disk turns past ({keep:.0%} "
            "of the media time moves data)",
        )
    if w.zone_bytes and rotating and p.mb_s > 0:
        disk = max((ctx.groups[i].disk for i in ctx.volume_groups), key=positioning_s)
        t_zone = w.zone_bytes / (p.mb_s * 1e6)
        keep = t_zone / (t_zone + positioning_s(disk))
        p = scaled(
            p,
            keep,
            f"zonemode=strided: one repositioning ({positioning_s(disk) * 1e3:.1f} ms) per "
            f"{w.zone_bytes >> 20} MiB zone ({keep:.1%} of the time moves data)",
        )
    if w.is_random and kind in ("zipf", "pareto", "normal") and w.is_read:
        hit = hot_share(w.random_distribution, min(1.0, ctx.hardware.memory_bytes / span), span // w.bs)
        if not w.direct and hit > 0:
            copy = ctx.cpu.buffered_read_mb_s * min(w.numjobs, ctx.cpu.cores)
            rate = 1 / (hit / copy + (1 - hit) / p.mb_s) if p.mb_s > 0 else 0.0
            p = scaled(
                p,
                rate / p.mb_s if p.mb_s else 1.0,
                f"{w.random_distribution}: {hit:.0%} of the reads land on the hottest "
                f"{ctx.hardware.memory_bytes / 2**30:.3g} GiB (memory), read from the page cache at {copy:,.0f} MB/s",
            )
        else:
            notes.append(
                f"{w.random_distribution}: fio scatters the hot blocks over the span, so seeks are as long "
                f"as a uniform draw's; {hit:.0%} of the requests land on a memory-sized hot set, which only a "
                "cache in front of the disks would serve (direct I/O bypasses the page cache)"
            )
    return p.model_copy(update={"shaping": [*p.shaping, *notes]}) if notes else p


def scaled(p: WorkloadPrediction, k: float, note: str) -> WorkloadPrediction:
    """`p` with every figure times k, and why."""
    if k == 1.0:
        return with_note(p, note)
    terms = [t.model_copy(update={"mb_s": t.mb_s * k, "iops": t.iops * k}) for t in p.terms]
    return p.model_copy(
        update={
            "mb_s": p.mb_s * k,
            "iops": p.iops * k,
            "mb_s_low": p.mb_s_low * k,
            "mb_s_high": p.mb_s_high * k,
            "terms": terms,
            "shaping": [*p.shaping, note],
        }
    )


def with_note(p: WorkloadPrediction, note: str, depth: int | None = None) -> WorkloadPrediction:
    update: dict[str, object] = {"shaping": [*p.shaping, note]}
    if depth is not None:
        update["settled_iodepth"] = depth
    return p.model_copy(update=update)


def zones_of(spec: str, span: int) -> list[tuple[float, float, float]]:
    """(start, end, share of requests) per zone of fio's zoned / zoned_abs, as fractions of the span, in order."""
    kind, _, rest = spec.partition(":")
    given = []
    for part in rest.split(":"):
        p, _, s = part.partition("/")
        size = (_abs_bytes(s) / span if kind == "zoned_abs" else float(s) / 100) if s else None
        given.append((float(p) / 100, size))
    named = sum(s for _, s in given if s is not None)
    blank = [s for _, s in given if s is None]
    out, at = [], 0.0
    for p, s in given:
        width = s if s is not None else max(0.0, 1 - named) / len(blank)
        width = min(width, 1 - at)
        out.append((at, at + width, p))
        at += width
    total = sum(p for _, _, p in out) or 1.0
    return [(a, b, p / total) for a, b, p in out if b > a]


def _abs_bytes(text: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    t = text.strip().lower().rstrip("b").rstrip("i")
    return int(float(t[:-1]) * units[t[-1]]) if t and t[-1] in units else int(float(t or 0))


def mean_distance(zones: list[tuple[float, float, float]]) -> float:
    """E|X - Y| for two independent draws over the zones, as a fraction of the span: within a zone a
    third of its width; between zones the distance between their middles."""
    out = 0.0
    for a1, b1, p1 in zones:
        for a2, b2, p2 in zones:
            d = (b1 - a1) / 3 if (a1, b1) == (a2, b2) else abs((a1 + b1) / 2 - (a2 + b2) / 2)
            out += p1 * p2 * d
    return out


def hot_share(spec: str, f: float, blocks: int) -> float:
    """Share of the requests landing on the hottest fraction f of the span.

    zipf:T over N blocks: the k hottest take H(k, T) / H(N, T) (generalised harmonic numbers).
    pareto:H: fio draws block (N-1) x U^p with p = log H / log(1 - H), so the hottest f take f^(1/p).
    normal:D: fio averages 12 uniform draws (sigma a twelfth of the span) and adds a uniform spread
    of D % of the span; the hottest f is the middle of the bell."""
    kind, _, rest = spec.partition(":")
    x = float(rest.split(":")[0].split(",")[0] or 0)
    if f >= 1:
        return 1.0
    if kind == "zipf":
        n = max(blocks, 2)
        return _harmonic(max(1.0, f * n), x) / _harmonic(n, x)
    if kind == "pareto":
        from math import log

        p = log(x) / log(1 - x)
        return float(f ** (1 / p))
    if kind == "normal":
        sigma = sqrt((1 / 12) ** 2 + (x / 100) ** 2 / 12)
        return erf(f / 2 / (sigma * sqrt(2)))
    return f


def _harmonic(n: float, t: float) -> float:
    """sum_{i=1..n} i^-t, by the Euler-Maclaurin sum (exact enough for n in the millions)."""
    return float((n ** (1 - t) - 1) / (1 - t) + (1 + n**-t) / 2)
