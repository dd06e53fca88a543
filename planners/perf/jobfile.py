"""A fio job file as podplan workloads: one `Workload` per job section, as fio would run it.

The text is read the way fio reads it: `[section]` headers, `key=value` or a bare `key`,
`;` and `#` start a comment anywhere on a line, and a `[global]` section sets defaults for
the job sections that follow it (a later `[global]` changes only the jobs after it). Sizes
follow fio's own rules, not podplan's: with the default `kb_base=1024`, `k`/`kb` and the like
are powers of 2 and the IEC spellings (`KiB`) powers of 10; `kb_base=1000` swaps the two.

fio starts every section at once unless one waits: a section with `stonewall` (or its alias
`wait_for_previous`) starts once every section before it has ended, and the sections after it
start with it (fio's backend.c run_threads stops creating jobs at a stonewall until nothing
runs); `wait_for=NAME` starts a section once the earlier section NAME has ended, holding back
no other. `JobFile.phases` groups the sections that run together, in the order they start;
the sections of a phase share the array (planners.perf.concurrent).

Every option is accounted for (planners.perf.jobopts): modelled, ignored with the reason, or
refused with the reason. Nothing is silently dropped, because a job whose figure the model
cannot know must not get a confident number. A refusal is the section's only: the other
sections are still predicted, and `JobFile.refused` says which section was refused and why.
`${VAR}` in a value is the environment's VAR, as fio substitutes it (unset reads as empty).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planners.errors import PlanError
from planners.perf.jobmix import Sizes, Split, bs_split, clone_step, distribution, offset, shaping, stride, zoned
from planners.perf.jobopts import IGNORED, MODELLED, REFUSED
from planners.perf.jobtext import MOST, is_global, listed, sections, total_jobs
from planners.perf.jobvalues import Fail, Options, count, fio_bytes, flag, pacing, seconds
from planners.perf.workloads import ASYNC_ENGINES, ONE_AT_A_TIME_AIO, Rw, Workload

Frozen = ConfigDict(frozen=True)

# fio's defaults where a job file says nothing (fio 3.x on Linux).
DEFAULTS = {"rw": "read", "bs": "4k", "direct": "0", "numjobs": "1", "iodepth": "1", "ioengine": "psync"}
SYNC_ENGINES = ("sync", "psync", "vsync", "pvsync", "pvsync2")
RW: dict[str, Rw] = {
    "read": "read",
    "write": "write",
    "randread": "randread",
    "randwrite": "randwrite",
    "rw": "readwrite",
    "readwrite": "readwrite",
    "randrw": "randrw",
}
TRIMS = ("trim", "randtrim", "trimwrite", "randtrimwrite")


class Phase(BaseModel):
    """Sections fio runs at the same time."""

    model_config = Frozen

    sections: list[str] = Field(description="The sections' names, in file order.")
    after: str = Field(
        "",
        description="What holds them back until the phase before ends: 'stonewall', "
        "'wait_for=NAME', or '' for the first phase.",
    )


class Refused(BaseModel):
    """A job section the model does not predict, and why."""

    model_config = Frozen

    section: str = Field(description="The section's name.")
    reason: str = Field(description="One line: where in the file, the option and why it is refused.")


class JobFile(BaseModel):
    """The workloads of one job file and what became of each option podplan does not model."""

    model_config = Frozen

    workloads: list[Workload] = Field(description="One per predicted job section, named after it, in file order.")
    refused: list[Refused] = Field(
        default_factory=list, description="The sections not predicted, in file order, each with its reason."
    )
    notes: list[str] = Field(description="One line per ignored option: the section, the option and why.")
    phases: list[Phase] = Field(
        default_factory=list,
        description="The sections that run at once, in the order the groups start (stonewall, wait_for).",
    )
    options: list[Options] = Field(
        default_factory=list,
        exclude=True,
        description="Each predicted section's options as fio reads them ([global] merged in), in the order of "
        "workloads: a sweep edits them and reads the section again ([] for built-in workloads).",
    )
    source: str = Field("job file", exclude=True, description="Where the text came from, for messages.")

    @property
    def grouping(self) -> str:
        """One line: how fio groups the sections ('' for a single section)."""
        return grouping_line(self.phases)


def grouping_line(phases: list[Phase]) -> str:
    """'sections run together: a, b; then c (stonewall)'; '' when there is one section only."""
    if sum(len(p.sections) for p in phases) < 2:
        return ""
    parts = [listed(p.sections, len(p.sections)) + (f" ({p.after})" if p.after else "") for p in phases[:MOST]]
    together = any(len(p.sections) > 1 for p in phases)
    more = f"; then {len(phases) - MOST:,} more groups" if len(phases) > MOST else ""
    return (
        ("sections run together: " if together else "sections run one after another: ") + "; then ".join(parts) + more
    )


def parse_job_file(text: str, *, source: str = "job file", env: Mapping[str, str] | None = None) -> JobFile:
    """Every job section of `text` as a Workload, with [global] defaults applied as fio applies them.

    A section the model cannot predict is listed in `refused` with its reason; the others are
    still predicted. `env` is the environment fio would see (for ${VAR} in values). A file fio
    itself would not run (planners.perf.jobtext: too many jobs, a line fio splits, a name it
    would make unsafe files from) is refused whole."""
    defaults: Options = {}
    workloads: list[Workload] = []
    kept: list[Options] = []
    refused: list[Refused] = []
    notes: list[str] = []
    names: list[str] = []  # every job section, predicted or not: fio runs them all
    starts = _Starts()
    for name, options in sections(text, source, env or {}):
        if is_global(name):
            defaults = {**defaults, **options}
            continue
        merged = {**defaults, **options}
        try:
            start = starts.phase(name, merged, source)
        except PlanError as exc:
            start = (starts.wall, "")
            refused.append(Refused(section=name, reason=exc.message))
        else:
            try:
                w, said = _workload(name, merged, source)
                workloads.append(w)
                kept.append(merged)
                notes += said
            except ValidationError as exc:  # a value past what the model takes (bs=0, numjobs=100000)
                err = exc.errors()[0]
                refused.append(
                    Refused(section=name, reason=f"{source}: [{name}] {'.'.join(map(str, err['loc']))}: {err['msg']}")
                )
            except PlanError as exc:
                refused.append(Refused(section=name, reason=exc.message))
        starts.add(name, start)
        names.append(name)
    if not names:
        raise PlanError(f"{source}: no job section (only [global]): nothing to predict")
    total_jobs([w.numjobs for w in workloads] + [1] * len(refused), source)
    grouped: dict[int, tuple[list[str], str]] = {}
    for s, (k, why) in zip(names, starts.all, strict=True):
        grouped.setdefault(k, ([], why))[0].append(s)
    phases = [Phase(sections=grouped[k][0], after=grouped[k][1]) for k in sorted(grouped)]
    notes += beside_refused(phases, refused)
    return JobFile(
        workloads=workloads,
        refused=refused,
        notes=list(dict.fromkeys(notes)),
        phases=phases,
        options=kept,
        source=source,
    )


def edited(job: JobFile, point: Mapping[str, int]) -> JobFile:
    """The job file as fio reads it with each predicted section's options set to `point` (numjobs,
    iodepth, bs: a count or bytes), every figure derived from them read again (each clone's size
    and file, io_size, number_ios, offsets): exactly the file with those values written in it.
    A point fio would refuse (more jobs than it runs, a value past the model) is one PlanError line."""
    if len(job.options) != len(job.workloads):
        raise ValueError("edited() needs a job file read by parse_job_file")
    workloads = []
    for w, opts in zip(job.workloads, job.options, strict=True):
        written = {k: (str(v), opts.get(k, ("", 0, w.name))[1], w.name) for k, v in point.items()}
        try:
            at, _ = _workload(w.name, {**opts, **written}, job.source)  # the same notes as the file's
        except ValidationError as exc:
            err = exc.errors()[0]
            raise PlanError(f"{job.source}: [{w.name}] at {_point_text(point)}: {err['msg']}") from None
        except PlanError as exc:
            raise PlanError(f"at {_point_text(point)}: {exc.message}", exc.field) from None
        workloads.append(at)
    try:
        total_jobs([w.numjobs for w in workloads] + [1] * len(job.refused), job.source)
    except PlanError as exc:
        raise PlanError(f"at {_point_text(point)}: {exc.message}", exc.field) from None
    return job.model_copy(update={"workloads": workloads})


def _point_text(point: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items())


def beside_refused(phases: list[Phase], refused: list[Refused]) -> list[str]:
    """A note for each predicted section that runs at once with a refused one: fio runs the refused
    section too, and what it takes of the array is unknown, so the figures beside it are upper bounds."""
    out = []
    gone = {r.section for r in refused}
    for p in phases:
        others = [s for s in p.sections if s in gone]
        kept = [s for s in p.sections if s not in gone]
        if others and kept:
            out.append(
                f"[{', '.join(kept)}] run at once with the refused [{', '.join(others)}]: fio runs it too, "
                "so their figures are upper bounds"
            )
    return out


class _Starts:
    """Where each section starts, kept as the file is read: a stonewall starts a phase after every
    earlier one and the sections after it join it; wait_for=NAME starts one phase after NAME's
    without holding back the rest. The running maxima keep each section's step constant-time."""

    def __init__(self) -> None:
        self.all: list[tuple[int, str]] = []  # (phase, why it waited) per section, in file order
        self.wall = 0  # the phase of the latest stonewall
        self.top = 0  # the latest phase of any section
        self.first: dict[str, int] = {}  # a name's first section's phase: fio waits for the first of a name

    def add(self, name: str, start: tuple[int, str]) -> None:
        self.all.append(start)
        if start[1] == "stonewall":
            self.wall = max(self.wall, start[0])
        self.top = max(self.top, start[0])
        self.first.setdefault(name, start[0])

    def phase(self, name: str, opts: Options, source: str) -> tuple[int, str]:
        for key in ("stonewall", "wait_for_previous"):
            if key in opts:
                value, line, _ = opts[key]
                walled = flag(value, PlanError(f"{source}:{line}: [{name}] {key} must be 0 or 1 (or bare)"))
                if walled and self.all:
                    return self.top + 1, "stonewall"
        if "wait_for" in opts:
            value, line, _ = opts["wait_for"]
            if value not in self.first:
                raise PlanError(
                    f"{source}:{line}: [{name}] wait_for={value}: no section of that name before it "
                    "(fio waits only for an earlier section)"
                )
            return max(self.wall, self.first[value] + 1), f"wait_for={value}"
        return self.wall, ""


def _account(opts: Options, source: str) -> list[str]:
    """A note for each ignored option; an unset ${VAR}, a refused option or an unknown one is refused."""
    notes = []
    for key, (value, line, where) in opts.items():
        unset = re.search(r"\$\{([^}]+)\}", value)
        if unset and key not in IGNORED:
            raise PlanError(
                f"{source}:{line}: [{where}] {key}={value} refused: {unset.group(1)} is not set in the "
                "environment, and fio would read the value as empty"
            )
        if key in REFUSED:
            raise PlanError(f"{source}:{line}: [{where}] {key} refused: {REFUSED[key]}")
        if key in IGNORED:
            notes.append(f"{source}:{line}: [{where}] {key} ignored: {IGNORED[key]}")
        elif key not in MODELLED:
            raise PlanError(
                f"{source}:{line}: [{where}] {key} refused: podplan does not know what it does to "
                "the array, so it will not guess a figure"
            )
    return notes


def _get(opts: Options, *keys: str) -> tuple[str, int]:
    """The value and line of the first of keys (aliases) the section sets, else fio's default at line 0."""
    for k in keys:
        if k in opts:
            return opts[k][:2]
    return DEFAULTS.get(keys[0], ""), 0


def _rw_and_engine(opts: Options, fail: Fail) -> tuple[Rw, str, int, str]:
    """What the job does (rw, and the text and line it came from) and the engine that submits it."""
    rw_text, rw_line = _get(opts, "rw", "readwrite")
    line = rw_line
    rw = rw_text.split(":")[0].strip().lower()
    if rw in TRIMS:
        raise fail(line, f"rw={rw} refused: trims are not modelled")
    if rw not in RW:
        raise fail(line, f"rw={rw_text!r} is not an fio rw value")
    engine, line = _get(opts, "ioengine")
    engine = engine.lower()
    if engine not in SYNC_ENGINES + ASYNC_ENGINES + ONE_AT_A_TIME_AIO:
        raise fail(
            line,
            f"ioengine={engine} refused: only the sync family, posixaio and {', '.join(ASYNC_ENGINES)} "
            "reach the array the way the model assumes",
        )
    return RW[rw], rw_text, rw_line, engine


def _block_size(
    opts: Options, rw: str, split: tuple[Split, Split], kb_base: int, fail: Fail, name: str, source: str
) -> int:
    """The size of the job's requests: the read side's (the write side's for writes), or bssplit's mean.

    A mix whose read,write pair gives two different sizes is refused.
    """
    bs_text, line = _get(opts, "bs", "blocksize")
    if any(split):
        side = split[0] if rw in ("read", "randread") or not split[1] else split[1]
        bs_text = str(max(1, round(sum(b * p for b, p in side))))  # the mean request, by count
    if "-" in bs_text or ":" in bs_text:
        raise fail(line, f"bs={bs_text} refused: a range of block sizes is not modelled")
    parts = bs_text.split(",")
    chosen = parts[0] if rw in ("read", "randread") or len(parts) < 2 or not parts[1] else parts[1]
    bs = fio_bytes(chosen, kb_base, what=f"{source}:{line}: [{name}] bs")
    if (
        rw in ("readwrite", "randrw")
        and not any(split)
        and len(parts) > 1
        and parts[1]
        and fio_bytes(parts[0], kb_base, what="bs") != bs
    ):
        raise fail(line, f"bs={bs_text} refused: a mix with different read and write block sizes is not modelled")
    return bs


def _direct(opts: Options, fail: Fail) -> bool:
    """Whether the job bypasses the page cache: direct, else buffered's opposite (direct wins when both are set)."""
    direct_text, line = _get(opts, "direct")
    direct = flag(direct_text, fail(line, f"direct={direct_text!r} is not 0 or 1"))
    if "buffered" in opts:
        value, line = _get(opts, "buffered")
        buffered = flag(value, fail(line, "buffered must be 0 or 1"))
        direct = not buffered if "direct" not in opts else direct
    return direct


def _span(
    opts: Options, name: str, source: str, kb_base: int, numjobs: int, bs: int, nbytes: Sizes, fail: Fail
) -> tuple[int | None, int, int | None, bool, list[str]]:
    """Where the job reads and writes and how much: its span (None: the whole target), the files it
    makes, the bytes it moves (None: the span once), whether it is a raw device, and a note if it fills it.
    """
    notes = []
    size_text, line = _get(opts, "size", "filesize")
    size = nbytes(size_text, line) if size_text else None
    if flag(_get(opts, "fill_device")[0] or "0", fail(_get(opts, "fill_device")[1], "fill_device must be 0 or 1")):
        size = None  # fio writes until the device or filesystem is full: the whole of it
        notes.append(f"{source}: [{name}] fill_device: the job spans the whole target, until it is full")
    filename, _ = _get(opts, "filename")
    raw = filename.startswith("/dev/") and not _get(opts, "directory")[0]
    if size is not None and not raw and ":" not in filename:
        size *= numjobs  # each clone writes a file of its own unless they share one by name
    files = numjobs if not raw and not filename else 1
    io_text, line = _get(opts, "io_size", "io_limit")
    io_bytes = fio_bytes(io_text, kb_base, what=f"{source}:{line}: [{name}] io_size") * numjobs if io_text else None
    if "number_ios" in opts:
        n = count(*_get(opts, "number_ios"), fail) * bs * numjobs
        io_bytes = min(io_bytes, n) if io_bytes else n
    return size, files, io_bytes, raw, notes


def _workload(name: str, opts: Options, source: str) -> tuple[Workload, list[str]]:
    notes = _account(opts, source)

    def get(*keys: str) -> tuple[str, int]:
        return _get(opts, *keys)

    kb_text = get("kb_base")[0].strip() or "1024"
    if kb_text not in ("1000", "1024"):
        raise PlanError(f"{source}: [{name}] kb_base={kb_text}: fio takes 1000 or 1024")
    kb_base = int(kb_text)

    def fail(line: int, message: str) -> PlanError:
        return PlanError(f"{source}:{line}: [{name}] {message}")

    rw, rw_text, rw_line, engine = _rw_and_engine(opts, fail)
    zone_text = get("zonesize")[0]
    zone = fio_bytes(zone_text, kb_base, what=f"{source}: [{name}] zonesize") if zone_text else 0

    def nbytes(text: str, at: int) -> int:
        if zone and re.fullmatch(r"\s*\d+\s*z\s*", text.lower()):
            return int(text.strip()[:-1]) * zone  # fio's z: a count of zones
        return fio_bytes(text, kb_base, what=f"{source}:{at}: [{name}] size")

    said: list[str] = []
    rw, zone_fields = zoned(opts, rw, zone, nbytes, fail, said)
    notes += [f"{source}: [{name}] {n}" for n in said]

    split = bs_split(opts, nbytes, fail)
    bs = _block_size(opts, rw, split, kb_base, fail, name, source)
    direct = _direct(opts, fail)
    numjobs = count(*get("numjobs"), fail)
    iodepth = count(*get("iodepth"), fail)
    size, files, io_bytes, raw, spanned = _span(opts, name, source, kb_base, numjobs, bs, nbytes, fail)
    notes += spanned

    def duration(key: str) -> float | None:
        text, at = get(key)
        return seconds(text, fail(at, f"{key}={text!r} is not a time fio reads")) if text else None

    runtime, ramp = duration("runtime"), duration("ramp_time")
    time_based = flag(get("time_based")[0] or "0", fail(get("time_based")[1], "time_based must be 0 or 1"))
    end_fsync = flag(get("end_fsync")[0] or "0", fail(get("end_fsync")[1], "end_fsync must be 0 or 1"))
    hint = get("fadvise_hint")[0].strip().lower() or "1"  # fio's default: hint the access pattern
    extras = pacing(opts, kb_base, fail)
    extras.update(shaping(opts, nbytes, fail, writes=rw not in ("read", "randread")))
    if extras.get("verify"):
        # fio keeps the written blocks sorted by offset (and reads them back in that order) whenever
        # blocks may be written twice: no random map, an rw modifier, or io_size past size.
        extras["sorted_readback"] = (
            extras["sorted_readback"] or ":" in rw_text or bool(io_bytes and size and io_bytes > size)
        )
    if "rate_iops_min" in opts and "rate_min_bytes_s" not in extras:
        extras["rate_min_bytes_s"] = count(*get("rate_iops_min"), fail) * bs
    notes += stated(name, opts, source)
    return Workload(
        name=name,
        description=f"fio job [{name}]",
        rw=rw,
        bs=bs,
        direct=direct,
        numjobs=numjobs,
        iodepth=iodepth,
        ioengine=engine,
        target="raw" if raw else "file",
        size=size,
        files=files,
        io_bytes=io_bytes,
        runtime_s=runtime,
        ramp_s=ramp or 0.0,
        time_based=time_based and runtime is not None,
        end_fsync=end_fsync,
        fadvise_sequential=hint not in ("0", "none", "random") and rw == "read" and not direct,
        bs_split=split,
        random_distribution=distribution(opts, fail),
        offset=offset(opts, nbytes, numjobs),
        clone_step=clone_step(opts, nbytes),
        **zone_fields,
        stride=stride(rw_text, rw in ("randread", "randwrite", "randrw"), nbytes, fail, rw_line),
        **extras,
    ), notes


def stated(name: str, opts: Options, source: str) -> list[str]:
    """One line for each option whose effect is stated rather than computed: the figure is the same."""
    said = {
        "io_submit_mode": (
            "offload: helper threads submit the requests; the same requests in flight reach the "
            "array, each after a hand-off between threads that a queue of requests hides"
        ),
        "rate_process": (
            "poisson: requests at random intervals with the same mean rate; the mean figure is the "
            "same, the latency spread is wider"
        ),
        "flow_sleep": "how long a job over its flow share sleeps; the shares are what the figure follows",
        "latency_window": "the window fio measures the latency over while it searches; the depth it settles on is "
        "what the figure follows",
        "latency_run": "whether fio keeps searching after it settles; the depth it settles on is the figure's",
        "offset_align": "where the offsets start within the alignment; the span and the requests are the same",
    }
    out = []
    for key, why in said.items():
        value, line, where = opts.get(key, ("", 0, ""))
        if value and value.strip() not in ("inline", "linear"):
            out.append(f"{source}:{line}: [{where}] {key}={value}: {why}")
    return out
