"""Plan files (TOML in, TOML out, exact round trip) and the build script file; one clear line for every bad input."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from planners.errors import PlanError
from planners.models import Plan
from planners.units import format_disk_size, format_size_compact


def plan_from_data(data: dict[str, Any], *, source: str = "plan") -> Plan:
    """Validate a plan given as plain data; any problem becomes one PlanError line."""
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        raise PlanError(describe_validation_error(exc, source), _field_of(exc)) from None
    except PlanError as exc:
        raise PlanError(f"{source}: {exc.message}", exc.field) from None


def plan_from_toml(text: str, *, source: str = "plan") -> Plan:
    import tomllib  # here, not at the top: the TUI on the example pod paints before it reads any file

    if not text.strip():
        raise PlanError(f"{source}: the plan file is empty")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{source}: not valid TOML ({exc})") from None
    return plan_from_data(data, source=source)


def load_plan(path: str | os.PathLike[str]) -> Plan:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PlanError(f"{p}: no such plan file") from None
    except IsADirectoryError:
        raise PlanError(f"{p}: is a directory, not a plan file") from None
    except UnicodeDecodeError:
        raise PlanError(f"{p}: not a text file (plan files are UTF-8 TOML)") from None
    except OSError as exc:
        raise PlanError(f"{p}: cannot read ({exc.strerror})") from None
    return plan_from_toml(text, source=str(p))


def plan_to_toml(plan: Plan) -> str:
    """TOML that loads back to an equal Plan. Sizes are written in their exact compact form."""
    import tomli_w  # only writing needs it: the TUI opens without

    data = _compact_sizes(plan.model_dump(mode="json", exclude_none=True))
    for disk_set in data.get("disks", []):
        disk_set["size"] = format_disk_size(disk_set["size"])  # "18TB" stays "18TB", a real drive's bytes stay bytes
    header = (
        f"# podplan plan {plan.name!r}. Sizes accept 2TB (decimal), 1.8TiB or 512K (binary) or plain bytes.\n"
    )
    return header + tomli_w.dumps(data)


def save_plan(plan: Plan, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Write atomically (temp file + rename in the same directory) so a crash never leaves half a plan."""
    p = Path(path)
    if p.exists() and not overwrite:
        raise PlanError(f"{p}: already exists; not overwriting it")
    text = plan_to_toml(plan)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent or Path("."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


# Size fields written as "512K" / "4M" when that spelling is exact (disk sizes: format_disk_size).
_COMPACT = {"chunk", "bitmap_chunk", "extent_size", "data_alignment", "stripe_size", "stripe_unit", "readahead"}


def _compact_sizes(data: Any) -> Any:
    if isinstance(data, dict):
        return {
            k: (format_size_compact(v) if k in _COMPACT and isinstance(v, int) and v and v % 1024 == 0 else _compact_sizes(v))
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [_compact_sizes(v) for v in data]
    return data


def _field_of(exc: ValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return ""
    # The plan's own checks (disks enough for the groups, distinct names) have no location: their
    # PlanError says which field it is.
    cause = (errors[0].get("ctx") or {}).get("error")
    return ".".join(str(x) for x in errors[0]["loc"]) or getattr(cause, "field", "")


def describe_validation_error(exc: ValidationError, source: str) -> str:
    """Every problem pydantic found, each with the field's dotted path, in one line."""
    problems = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"])
        msg = err["msg"]
        for prefix in ("Value error, ", "Assertion failed, "):
            if msg.startswith(prefix):
                msg = msg[len(prefix):]
        if err["type"] == "extra_forbidden":
            msg = "unknown setting (check the spelling)"
        elif err["type"] == "missing":
            msg = "required setting is missing"
        problems.append(f"{loc}: {msg}" if loc else msg)
    return f"{source}: " + "; ".join(dict.fromkeys(problems))


def write_script(path: Path, text: str, force: bool) -> None:
    """Write a build script atomically, executable, never over an existing file unless forced."""
    if path.exists() and not force:
        raise PlanError(f"{path}: already exists (pass --force to overwrite)")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise PlanError(f"{parent}: no such directory")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=parent)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.chmod(tmp, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise PlanError(f"{path}: cannot write ({exc.strerror})") from None


def load_job_file(path: str | os.PathLike[str]):  # -> planners.perf.jobfile.JobFile
    """An fio job file's sections as workloads; an unreadable file or a refused option is one PlanError line."""
    from planners.perf.jobfile import parse_job_file

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise PlanError(f"{path}: cannot read the job file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise PlanError(f"{path}: not a text file") from None
    return parse_job_file(text, source=str(path))
