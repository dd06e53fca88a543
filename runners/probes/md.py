"""Ask mdadm itself what it would build, on loop devices over sparse files.

On a kernel without md, `mdadm --create -v` still works out the geometry and prints
"size set to NK" before it fails to open the new md device. That line is the oracle
for the component size. mdadm leaves an md device node and a /dev/md/NAME link behind,
which are removed here. Where the kernel does have md, the array really gets created:
it is then examined (data offset), stopped and its superblocks are zeroed.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import stat
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from runners.exec import run
from runners.probes.loopdev import sparse_loops

MD_MAJOR = 9
_counter = itertools.count()

# mdadm reads no config file and waits for no udev: the probe must not depend on the host.
MDADM_ENV = {"MDADM_NO_UDEV": "1"}


class MdCreateReport(BaseModel):
    """What `mdadm --create -v --run` said about an array it was asked to build."""

    model_config = ConfigDict(frozen=True)

    component_bytes: int | None = Field(None, description="'size set to NK' as bytes; None if not printed.")
    default_chunk_bytes: int | None = Field(None, description="'chunk size defaults to NK' as bytes, if printed.")
    default_layout: str | None = Field(None, description="'layout defaults to X', if printed.")
    data_offset_sectors: int | None = Field(
        None, description="Data offset in 512-byte sectors from --examine; None where the array could not be created."
    )
    warnings: tuple[str, ...] = Field((), description="Oddities mdadm noted and, under --run, went past.")
    errors: tuple[str, ...] = Field(
        (), description="mdadm's refusals, one line each, prefix removed (not the md-less kernel's failure)."
    )
    reached_kernel: bool = Field(
        False, description="mdadm accepted the geometry and got as far as opening the new md device."
    )
    returncode: int = Field(0, description="mdadm's exit status.")


_SIZE_SET = re.compile(r"^mdadm: size set to (\d+)K\s*$", re.M)
_CHUNK_DEFAULT = re.compile(r"^mdadm: chunk size defaults to (\d+)K\s*$", re.M)
_LAYOUT_DEFAULT = re.compile(r"^mdadm: layout defaults to (\S+)\s*$", re.M)
_INFO = (_SIZE_SET, _CHUNK_DEFAULT, _LAYOUT_DEFAULT)
_WARNING = re.compile(
    r"^mdadm: (largest drive .* exceeds size|creation continuing despite oddities|Note: |"
    r"partition table exists|.* appears to (contain|be part of))"
)
# Where a kernel without md stops mdadm: after the geometry, at the new device.
_NO_MD = re.compile(r"^mdadm: (unexpected failure opening|cannot open) /dev/md", re.M)
_DATA_OFFSET = re.compile(r"^\s*Data Offset\s*:\s*(\d+)\s+sectors", re.M)


def create_argv(md_device: str, members: Sequence[str], options: Sequence[str]) -> list[str]:
    """The probe's command: verbose, no questions, the plan's options, then the members."""
    return ["mdadm", "--create", md_device, "--verbose", "--run", "--config=none", *options, *members]


def parse_create_output(text: str, returncode: int = 0) -> MdCreateReport:
    """Read mdadm --create -v's messages (it prints them on stderr)."""
    size = _SIZE_SET.search(text)
    chunk = _CHUNK_DEFAULT.search(text)
    layout = _LAYOUT_DEFAULT.search(text)
    lines = [ln for ln in text.splitlines() if ln.startswith("mdadm: ") and not any(p.match(ln) for p in _INFO)]
    warnings = tuple(ln.removeprefix("mdadm: ").strip() for ln in lines if _WARNING.match(ln))
    errors = tuple(
        ln.removeprefix("mdadm: ").strip() for ln in lines if not _WARNING.match(ln) and not _NO_MD.match(ln)
    )
    return MdCreateReport(
        component_bytes=int(size.group(1)) * 1024 if size else None,
        default_chunk_bytes=int(chunk.group(1)) * 1024 if chunk else None,
        default_layout=layout.group(1) if layout else None,
        warnings=warnings,
        errors=errors,
        reached_kernel=returncode == 0 or _NO_MD.search(text) is not None,
        returncode=returncode,
    )


def parse_examine_data_offset(text: str) -> int | None:
    """'Data Offset : 4096 sectors' from `mdadm --examine MEMBER`."""
    m = _DATA_OFFSET.search(text)
    return int(m.group(1)) if m else None


def probe_create(member_bytes: Sequence[int], options: Sequence[str], *, timeout: float = 30.0) -> MdCreateReport:
    """Run `mdadm --create` with these options over fresh sparse members of these sizes."""
    name = f"podplan{os.getpid()}x{next(_counter)}"
    with sparse_loops(member_bytes) as loops:
        try:
            res = run(
                create_argv(f"/dev/md/{name}", loops, options), timeout=timeout, check=False, input="", env=MDADM_ENV
            )
            report = parse_create_output(res.stderr, res.returncode)
            if res.returncode == 0:
                exam = run(["mdadm", "--examine", loops[0]], timeout=timeout, check=False, env=MDADM_ENV)
                report = report.model_copy(update={"data_offset_sectors": parse_examine_data_offset(exam.stdout)})
        finally:
            _dismantle(name, loops, timeout)
    return report


def _dismantle(name: str, loops: Sequence[str], timeout: float) -> None:
    """Stop what mdadm built (only where md exists) and remove the nodes it left."""
    link = f"/dev/md/{name}"
    target = os.path.realpath(link) if os.path.islink(link) else None
    if target and os.path.exists(f"/sys/block/{os.path.basename(target)}/md"):
        run(["mdadm", "--stop", link], timeout=timeout, check=False, env=MDADM_ENV)
        run(["mdadm", "--zero-superblock", *loops], timeout=timeout, check=False, env=MDADM_ENV)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(link)
    if target and _is_dead_md_node(target):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)


def _is_dead_md_node(path: str) -> bool:
    """A /dev/mdN block node with no array behind it in sysfs."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    base = os.path.basename(path)
    return (
        stat.S_ISBLK(st.st_mode)
        and os.major(st.st_rdev) == MD_MAJOR
        and re.fullmatch(r"md\d+", base) is not None
        and not os.path.exists(f"/sys/block/{base}")
    )


def remove_empty_md_dir() -> None:
    """Remove /dev/md if the probes left it empty (another mdadm may be using it: then keep it)."""
    with contextlib.suppress(OSError):
        os.rmdir("/dev/md")


_MDADM_VERSION = re.compile(r"\bv(\d+(?:\.\d+)+)")


def parse_mdadm_version(text: str) -> tuple[int, ...]:
    """'mdadm - v4.2 - 2021-12-30 - Debian 4.2-5' -> (4, 2)."""
    m = _MDADM_VERSION.search(text)
    if not m:
        raise ValueError(f"not an mdadm version banner: {text.strip()!r}")
    return tuple(int(p) for p in m.group(1).split("."))


def installed_mdadm_version(timeout: float = 10.0) -> tuple[int, ...]:
    res = run(["mdadm", "--version"], timeout=timeout, env=MDADM_ENV)
    return parse_mdadm_version(res.stderr + res.stdout)
