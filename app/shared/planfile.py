"""Plan files (TOML in, TOML out, exact round trip) and the build script file; one clear line for every bad input."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from planners.errors import PlanError
from planners.models import Plan
from planners.units import bare_unit_note, format_disk_size, format_size_compact


def plan_from_data(data: dict[str, Any], *, source: str = "plan") -> Plan:
    """Validate a plan given as plain data; any problem becomes one PlanError line."""
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        raise PlanError(describe_validation_error(exc, source), _field_of(exc)) from None
    except PlanError as exc:
        raise PlanError(f"{source}: {exc.message}", exc.field) from None


def plan_from_toml(text: str, *, source: str = "plan", notes: list[str] | None = None) -> Plan:
    """The plan in a TOML text; `notes` (when given) gets a line for each disk size written with a
    bare binary unit ('18T'), which is valid but rarely what a drive's label says."""
    if not text.strip():
        raise PlanError(f"{source}: the plan file is empty")
    data = toml_data(text, source)
    plan = plan_from_data(data, source=source)
    if notes is not None:
        for i, disk_set in enumerate(data.get("disks") or []):
            if isinstance(disk_set, dict) and (note := bare_unit_note(disk_set.get("size"))):
                notes.append(f"{source}: disks.{i}.size {note}")
    return plan


def toml_data(text: str, source: str) -> dict[str, Any]:
    """A TOML text's data; a syntax error, or nesting deeper than Python's parser can recurse
    (`a = [[[[...`, which no plan or keymap needs), is one PlanError line."""
    import tomllib  # here, not at the top: the TUI on the example pod paints before it reads any file

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{source}: not valid TOML ({exc})") from None
    except RecursionError:
        raise PlanError(f"{source}: not valid TOML (nested deeper than podplan reads)") from None


def load_plan(path: str | os.PathLike[str], *, notes: list[str] | None = None) -> Plan:
    from runners.files import read_text

    text = read_text(path, what="plan file")
    return plan_from_toml(text, source=str(path), notes=notes)


def plan_to_toml(plan: Plan) -> str:
    """TOML that loads back to an equal Plan. Sizes are written in their exact compact form."""
    import tomli_w  # only writing needs it: the TUI opens without

    data = _compact_sizes(plan.model_dump(mode="json", exclude_none=True))
    for disk_set in data.get("disks", []):
        disk_set["size"] = format_disk_size(disk_set["size"])  # "18TB" stays "18TB", a real drive's bytes stay bytes
    header = f"# podplan plan {plan.name!r}. Sizes accept 2TB (decimal), 1.8TiB or 512K (binary) or plain bytes.\n"
    return header + tomli_w.dumps(data)


def save_plan(plan: Plan, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Write atomically (temp file + rename in the same directory) so a crash never leaves half a plan."""
    from runners.files import write_text

    return write_text(path, plan_to_toml(plan), force=overwrite)


# Size fields written as "512K" / "4M" when that spelling is exact (disk sizes: format_disk_size).
_COMPACT = {"chunk", "bitmap_chunk", "extent_size", "data_alignment", "stripe_size", "stripe_unit", "readahead"}


def _compact_sizes(data: Any) -> Any:
    if isinstance(data, dict):
        return {
            k: (
                format_size_compact(v)
                if k in _COMPACT and isinstance(v, int) and v and v % 1024 == 0
                else _compact_sizes(v)
            )
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
                msg = msg[len(prefix) :]
        if err["type"] == "extra_forbidden":
            msg = "unknown setting (check the spelling)"
        elif err["type"] == "missing":
            msg = "required setting is missing"
        problems.append(f"{loc}: {msg}" if loc else msg)
    return f"{source}: " + "; ".join(dict.fromkeys(problems))


# pydantic's bound errors: how each reads as a limit, and the constraint that sets the other end.
_BOUNDS = {
    "greater_than_equal": "ge",
    "greater_than": "gt",
    "less_than_equal": "le",
    "less_than": "lt",
    "too_short": "min_length",
    "too_long": "max_length",
    "string_too_short": "min_length",
    "string_too_long": "max_length",
}


def bound_sentence(err: Any, model: type[BaseModel] = Plan) -> str:
    """One of pydantic's errors for a value out of a field's bounds as a plain sentence that names
    the field and its whole allowed range ('' for any other error): 'Disk count must be from 1 to
    1024, not 4548.' rather than 'Input should be less than or equal to 1024'."""
    if err.get("type") not in _BOUNDS:
        return ""
    info = _field_info(model, err["loc"])
    limits: dict[str, Any] = {}
    for meta in info.metadata if info else ():
        limits.update(
            {
                k: getattr(meta, k)
                for k in ("ge", "gt", "le", "lt", "min_length", "max_length")
                if getattr(meta, k, None) is not None
            }
        )
    limits.update({k: v for k, v in (err.get("ctx") or {}).items() if k in _BOUNDS.values()})
    words = [str(x).replace("_", " ") for x in err["loc"] if isinstance(x, str)]
    if len(words) > 1:  # 'disks.0.count' -> 'disk count': the section in the singular, then the field
        words[-2] = words[-2].removesuffix("s")
    name = " ".join(words[-2:]) or "value"
    value = err.get("input")
    lo, hi = (
        limits.get("ge", limits.get("gt", limits.get("min_length"))),
        limits.get("le", limits.get("lt", limits.get("max_length"))),
    )
    if "length" in _BOUNDS[err["type"]]:
        unit = " characters" if isinstance(value, str) else " entries"
        got = f", not {len(value)}" if isinstance(value, (str, list)) else ""
    else:
        unit, got = "", f", not {value:g}" if isinstance(value, (int, float)) else ""
    if lo is not None and hi is not None and "gt" not in limits and "lt" not in limits:
        span = f"from {lo:g} to {hi:g}"
    else:
        ends = [
            f"{'more than' if 'gt' in limits else 'at least'} {lo:g}" if lo is not None else "",
            f"{'less than' if 'lt' in limits else 'at most'} {hi:g}" if hi is not None else "",
        ]
        span = " and ".join(e for e in ends if e)
    return f"{name[:1].upper()}{name[1:]} must be {span}{unit}{got}."


def _field_info(model: type[BaseModel] | None, loc: tuple[Any, ...]) -> Any:
    """The FieldInfo at a pydantic error location such as ('disks', 0, 'count'), or None."""
    info = None
    for part in loc:
        if isinstance(part, int):
            continue
        if model is None or part not in model.model_fields:
            return None
        info = model.model_fields[part]
        model = _model_in(info.annotation)
    return info


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds, through list[...] and ... | None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for m in map(_model_in, get_args(annotation)) if m is not None), None)


def write_script(path: Path, text: str, force: bool) -> None:
    """Write a build script atomically, executable, never over an existing file unless forced."""
    from runners.files import write_text

    write_text(path, text, force=force, executable=True)


def load_job_file(path: str | os.PathLike[str]):  # -> planners.perf.jobfile.JobFile
    """An fio job file's sections as workloads; an unreadable file or a refused option is one PlanError line."""
    from planners.perf.jobfile import parse_job_file
    from runners.files import read_text

    text = read_text(path, what="job file", missing="cannot read the job file (No such file or directory)")
    return parse_job_file(text, source=str(path), env=os.environ)  # ${VAR} as fio would read it here
