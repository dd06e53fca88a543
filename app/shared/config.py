"""The config file: this machine's defaults for plans made from flags or the example, and the TUI's.

`$XDG_CONFIG_HOME/podplan/config.toml` (runners.dirs). It fills only what neither a plan file nor
a flag states: a plan file's own values always win, so that one plan file computes the same
figures on every machine; the file's defaults shape the example a plan starts from when no plan
file is given (`podplan plan --disks 12`, `podplan` alone). The keymap stays its own file
(keys.toml beside it, read by app/tui/keys.py), as Textual's binding ids are its keys.

A bad file is one line naming the file and the key (ConfigError), never a traceback; a file that
is not there is every default. The TUI saves its theme here by rewriting that one line, so the
file's comments and other keys stay as the person wrote them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from planners.errors import ConfigError, PodplanError
from planners.hardware.disks import DiskClassName
from planners.models import Plan
from planners.tool_defaults import DEFAULT_TOOLS
from planners.versions import ToolVersions

ToolName = Literal["mdadm", "lvm2", "e2fsprogs", "xfsprogs", "kernel"]
THEMES = ("textual-dark", "textual-light")


class Config(BaseModel):
    """What config.toml may say; every key may be left out (None: the example's own value)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    disk_model: str | None = Field(None, max_length=64, description="Model text of the disks of a plan from flags.")
    disk_class: DiskClassName | None = Field(None, description="The disks' class preset (hardware.disk.disk_class).")
    filesystem: Literal["xfs", "ext4", "ext3", "btrfs"] | None = Field(None, description="Filesystem type.")
    units: Literal["decimal", "binary"] = Field("decimal", description="TB or TiB first where both are shown.")
    theme: Literal["textual-dark", "textual-light"] = Field("textual-dark", description="The TUI's theme.")
    tools: dict[ToolName, str] = Field(default_factory=dict, description="Tool versions assumed, by tool.")

    @field_validator("tools")
    @classmethod
    def _modelled(cls, tools: dict[str, str]) -> dict[str, str]:
        try:
            ToolVersions.model_validate(tools)  # a version podplan does not model is refused as in a plan
        except ValidationError as exc:
            err = exc.errors()[0]
            raise ValueError(f"tools.{err['loc'][0]}: {err['msg'].removeprefix('Value error, ')}") from None
        return tools


def config_path() -> Path:
    from runners.dirs import config_dir

    return config_dir() / "config.toml"


def keymap_path() -> Path:
    """The TUI's keymap, a file of its own beside the config file."""
    return config_path().with_name("keys.toml")


def read_config(path: Path | None = None) -> Config:
    """The config file's values (every default when there is no file); a bad one is one ConfigError line."""
    path = path or config_path()
    if not path.exists():
        return Config()
    from app.shared.planfile import toml_data
    from runners.files import read_text

    try:
        doc = toml_data(read_text(path, what="config file"), str(path))
    except PodplanError as exc:  # a FIFO, too big, not UTF-8, not TOML
        raise ConfigError(exc.message) from None
    try:
        return Config.model_validate(doc)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"])
        why = err["msg"].removeprefix("Value error, ")
        if why.startswith(f"{key}."):  # a tool's version: the message names its key, tools.NAME
            key, why = why.split(": ", 1)
        elif err["type"] == "extra_forbidden":
            why = f"no such key; the keys are {', '.join(Config.model_fields)}"
        elif err["type"] in ("literal_error", "enum") and "expected" in err.get("ctx", {}):
            why = f"one of {err['ctx']['expected']}, not {err['input']!r}"
        raise ConfigError(f"{path}: {key}: {why}", key) from None


def in_force(config: Config, path: Path) -> list[tuple[str, str, str]]:
    """(key, value in force, where it comes from) for `podplan config`, tools as tools.NAME."""
    given = config.model_fields_set
    rows: list[tuple[str, str, str]] = []
    for key in ("disk_model", "disk_class", "filesystem", "units", "theme"):
        value = getattr(config, key)
        shown = "the plan's (the example's)" if value is None else str(value)
        rows.append((key, shown, str(path) if key in given else "default"))
    for tool, default in DEFAULT_TOOLS.items():
        mine = config.tools.get(tool)  # type: ignore[call-overload]
        rows.append((f"tools.{tool}", mine or default, str(path) if mine else "default"))
    return rows


def with_defaults(plan: Plan, config: Config) -> Plan:
    """`plan` (the example a plan from flags starts from) with the config's defaults in it; a plan
    file never comes here: its own values win on every machine."""
    from app.shared.planfile import plan_from_data

    data: dict[str, Any] = plan.model_dump(mode="json", exclude_none=True)
    if config.disk_model is not None:
        data["disks"] = [{**d, "model": config.disk_model} for d in data["disks"]]
    if config.disk_class is not None:
        hardware = data.setdefault("hardware", {})
        hardware["disk"] = {**hardware.get("disk", {}), "disk_class": config.disk_class}
    if config.filesystem is not None:
        data["filesystem"]["type"] = config.filesystem
    if config.tools:
        data["tools"] = {**data.get("tools", {}), **config.tools}
    if data == plan.model_dump(mode="json", exclude_none=True):
        return plan
    return plan_from_data(data, source=f"the example with the defaults of {config_path()}")


def example_plan() -> Plan:
    """The example pod with this machine's defaults: where a plan from flags (or the TUI alone) starts."""
    from planners.example import example_pod

    return with_defaults(example_pod(), read_config())


def template() -> str:
    """config.toml as `podplan config --init` writes it: every key, commented out, with its default."""
    tools = "\n".join(f'# {tool} = "{version}"' for tool, version in DEFAULT_TOOLS.items())
    return f"""\
# podplan's defaults on this machine; `podplan config` shows the values in force.
# They fill only what neither a plan file nor a flag states: a plan file's own values always
# win, so that a plan file computes the same figures on every machine. They shape the example
# a plan starts from without a plan file (podplan plan --disks 12 ..., podplan alone).
# Uncomment a line to set it.

# The disks of a plan made from flags: their model text and class preset
# (hdd5400, hdd7200, hdd10k, hdd15k, ssd-sata, nvme).
# disk_model = "2 TB 7200 rpm SATA"
# disk_class = "hdd7200"

# The filesystem of a plan made from flags: xfs, ext4, ext3 or btrfs.
# filesystem = "xfs"

# Where a size is shown in both unit families, which comes first: decimal (TB) or binary (TiB).
# units = "decimal"

# The TUI's theme, textual-dark or textual-light; its theme key saves it here.
# theme = "textual-dark"

# The keymap is a file of its own: {keymap_path()}

# The versions of the tools a plan from flags assumes.
# [tools]
{tools}
"""


_TABLE = re.compile(r"\s*\[")


def save_setting(key: str, value: str, path: Path | None = None) -> Path:
    """Set one top-level `key = "value"` in the config file, keeping its comments and other keys:
    the key's line is replaced, or the key is added ahead of the first table. Written by podplan's
    one writer; the result is read back first, so a file this would break is left as it was."""
    from runners.files import read_text, write_text

    path = path or config_path()
    lines = read_text(path, what="config file").splitlines() if path.exists() else []
    line = f'{key} = "{value}"'
    at = next((i for i, text in enumerate(lines) if _TABLE.match(text)), len(lines))
    mine = next((i for i, text in enumerate(lines[:at]) if re.fullmatch(rf"\s*{key}\s*=.*", text)), None)
    if mine is None:
        lines.insert(at, line)
    else:
        lines[mine] = line
    text = "\n".join(lines) + "\n"
    _check(text, path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return write_text(path, text, force=True)


def _check(text: str, path: Path) -> None:
    from app.shared.planfile import toml_data

    try:
        Config.model_validate(toml_data(text, str(path)))
    except (PodplanError, ValidationError) as exc:
        raise ConfigError(f"{path}: not saved, the file would not read back ({exc})") from None
