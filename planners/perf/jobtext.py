"""A fio job file's text read as fio reads it, within the bounds fio itself sets.

fio (init.c `__parse_jobs_ini`) reads a line at a time with `fgets` into a buffer of
`OPT_LEN_MAX` (8192, parse.h) bytes, so a longer line reaches it as two lines. A line whose first
character is '[' opens a section named by `sscanf("[%255[^\\n]]")` less its last character: a name
past 254 bytes is cut without a word. Every section whose name begins with "global" sets
defaults (`!strncmp(name, "global", 6)`). fio keeps its jobs in segments of 8 and refuses the job
that would open the 512th segment of its 4096 (fio.h `REAL_MAX_JOBS`, init.c `add_thread_segment`):
at most 4088 jobs, numjobs clones included. fio 3.33 runs 4088 one-line sections and stops on
the 4089th with "error: maximum number of jobs reached".

A section's name is also the name of the files fio makes for it: `NAME.JOBNUM.FILENUM` (or NAME
itself when it names an existing device) where no filename= is given (init.c `add_job`,
`make_filename`), and `local-NAME-N-verify.state` when a verify job is stopped (verify-state.h).
So a name is held to what is safe as one file name in one directory, whoever runs the file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from planners.errors import PlanError
from planners.perf.jobopts import canonical
from planners.perf.jobvalues import Options

MAX_JOBS = 4096 - 8
MAX_LINE_BYTES = 8192 - 1
MAX_NAME_BYTES = 255 - 1
# About 1 KiB for each of the most jobs fio runs: a thousand times the longest example job file
# fio ships (3.5 KB). Past it the file is not one fio is meant to read, and parsing it is work for nothing.
MAX_TEXT_CHARS = 4 * 1024 * 1024

# What a name may hold, matched whole: no control character (C0, DEL, C1: a \r or NUL would travel
# into every line and file name made from it), no '/' (fio would put the files it makes in another
# directory), no brackets (the header would read differently), and no '..' (a parent directory).
JOB_NAME = re.compile(r"(?!.*\.\.)(?!\.\Z)[^\x00-\x1f\x7f-\x9f/\[\]]+")


MOST = 6  # names a line lists; a file of thousands of sections would otherwise repeat them all in each


def listed(names: Sequence[str], total: int, sep: str = ", ") -> str:
    """The first of `total` items, then how many more: a note stays a line, not a page."""
    if total <= MOST:
        return sep.join(names[:total])
    return sep.join(names[: MOST - 1]) + f" and {total - MOST + 1:,} more"


def name_fault(name: str) -> str:
    """Why fio's job name `name` is refused, '' if it is not."""
    size = len(name.encode("utf-8"))
    if size > MAX_NAME_BYTES:
        return f"is {size} bytes long: fio keeps the first {MAX_NAME_BYTES} and drops the rest without a word"
    if "/" in name or ".." in name or name == ".":
        return "holds '/' or '..': fio names the job's files after it, which would then lie outside its directory"
    if not JOB_NAME.fullmatch(name) or not name.isprintable():
        return (
            "holds a control, separator or bracket character: fio would carry it into every file "
            "name and line made from the name"
        )
    return ""


def shown(name: str) -> str:
    """The name as one safe line: control characters escaped, a long one cut to its first 40 characters."""
    text = repr(name[:40])[1:-1]
    return text + (f"... ({len(name.encode('utf-8'))} bytes)" if len(name) > 40 else "")


def is_global(name: str) -> bool:
    """fio takes any section whose name begins with 'global' for the defaults, [globals] too."""
    return name.startswith("global")


def sections(text: str, source: str, env: Mapping[str, str]) -> list[tuple[str, Options]]:
    """(name, {option: (value, line, section)}) per section, in file order.

    Lines end at '\\n' only, as fgets ends them (not at the form feeds and separators
    `str.splitlines` also breaks at). A file past fio's bounds is refused before any section is read.
    """
    if len(text) > MAX_TEXT_CHARS:
        raise PlanError(
            f"{source}: {len(text):,} characters: podplan reads job files of up to {MAX_TEXT_CHARS:,} "
            f"(about 1 KiB for each of the {MAX_JOBS:,} jobs fio runs at most)"
        )
    out: list[tuple[str, Options]] = []
    jobs = 0
    for n, raw in enumerate(text.split("\n"), start=1):
        if len(raw) > MAX_LINE_BYTES // 4 and len(raw.encode("utf-8")) > MAX_LINE_BYTES:
            raise PlanError(
                f"{source}:{n}: a line of {len(raw.encode('utf-8')):,} bytes: fio reads at most "
                f"{MAX_LINE_BYTES} a line and would read the rest as another line"
            )
        line = re.split(r"[;#]", raw, maxsplit=1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            name = _header(line, n, source)
            jobs += not is_global(name)
            if jobs > MAX_JOBS:
                raise PlanError(
                    f"{source}:{n}: more than {MAX_JOBS:,} job sections: fio runs at most {MAX_JOBS:,} jobs "
                    f"(4096 in segments of 8, the last held back) and would refuse this file"
                )
            out.append((name, {}))
            continue
        if not out:
            raise PlanError(f"{source}:{n}: an option before any [section]: {line!r}")
        if "=" in line:
            key, _, value = line.partition("=")
        else:  # a bare flag (time_based), or a directive and its argument (include FILE)
            key, _, value = line.partition(" ")
            value = value.strip() or "1"
        out[-1][1][canonical(key.strip().lower())] = (_substitute(value.strip(), env), n, out[-1][0])
    return out


def _header(line: str, n: int, source: str) -> str:
    """The section name of a '[NAME]' line, as fio reads it; a name fio would mangle or make unsafe
    files from is refused, the whole file with it (fio would run the rest)."""
    if not line.endswith("]") or len(line) < 3:
        raise PlanError(f"{source}:{n}: a section header is [NAME] on a line of its own, not {shown(line)}")
    name = line[1:-1]
    fault = name_fault(name)
    if fault:
        raise PlanError(f"{source}:{n}: section [{shown(name)}] refused: its name {fault}")
    return name


def _substitute(value: str, env: Mapping[str, str]) -> str:
    """fio's ${VAR}: the environment's value; an unset one is kept as written, for the refusal to name."""
    return re.sub(r"\$\{([^}]+)\}", lambda m: env.get(m.group(1), m.group(0)), value)


def total_jobs(numjobs: list[int], source: str) -> None:
    """Refuse a file whose sections' clones (numjobs) add up past what fio runs."""
    if sum(numjobs) > MAX_JOBS:
        raise PlanError(
            f"{source}: {sum(numjobs):,} jobs with numjobs' clones: fio runs at most {MAX_JOBS:,} jobs "
            f"(4096 in segments of 8, the last held back) and would refuse this file"
        )
