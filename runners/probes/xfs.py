"""Ask mkfs.xfs what geometry it would build, without building it.

`mkfs.xfs -N -d file,name=F,size=BYTES` on an absent or empty file prints the geometry
of a filesystem of any size (a petabyte included) and writes nothing but an empty F.
"""

from __future__ import annotations

import os
import re
import tempfile

from planners.fs.xfs.geometry import XfsGeometry, xfs_mkfs_options
from runners.exec import CommandError, run

_SECTIONS = ("meta-data", "data", "naming", "log", "realtime")
_PAIR = re.compile(r"([a-z0-9-]+)=(\S+?),?(?=\s|$)")


def probe_argv(
    path: str,
    size_bytes: int,
    *,
    su_bytes: int = 0,
    sw: int = 0,
    block_size: int = 4096,
    sector_size: int = 512,
) -> list[str]:
    """`mkfs.xfs -N` with the options the build script would pass, on file `path`."""
    opts = xfs_mkfs_options(su_bytes=su_bytes, sw=sw, block_size=block_size, sector_size=sector_size)
    return ["mkfs.xfs", "-N", *opts, "-d", f"file,name={path},size={size_bytes}"]


def parse_mkfs_output(text: str) -> XfsGeometry:
    """Parse the geometry report of `mkfs.xfs -N` (or `xfs_info`) into an XfsGeometry."""
    fields: dict[str, dict[str, str]] = {}
    section = ""
    for line in text.splitlines():
        head, sep, rest = line.partition("=")
        if not sep:
            continue
        head = head.strip()
        if head in _SECTIONS:
            section = head
        elif head or not section:
            continue
        # The first column holds a name (device path, "internal log", "version 2"):
        # only key=value pairs after it count.
        values = fields.setdefault(section, {})
        for key, value in _PAIR.findall(rest):
            values.setdefault(key, value)
        if section == "naming":
            m = re.match(r"version\s+(\d+)", rest)
            if m:
                values.setdefault("version", m.group(1))
    try:
        meta, data, log = fields["meta-data"], fields["data"], fields["log"]
        bsize = int(data["bsize"])
        sunit = int(data["sunit"])
        return XfsGeometry(
            block_size=bsize,
            sector_size=int(meta["sectsz"]),
            inode_size=int(meta["isize"]),
            agcount=int(meta["agcount"]),
            agsize_blocks=int(meta["agsize"]),
            data_blocks=int(data["blocks"]),
            imaxpct=int(data["imaxpct"]),
            sunit_blocks=sunit,
            swidth_blocks=int(data["swidth"]),
            log_blocks=int(log["blocks"]),
            log_sunit_bytes=int(log["sunit"]) * bsize,
            log_sector_size=int(log["sectsz"]),
            crc=meta.get("crc", "0") == "1",
            finobt=meta.get("finobt", "0") == "1",
            sparse_inodes=meta.get("sparse", "0") == "1",
            rmapbt=meta.get("rmapbt", "0") == "1",
            reflink=meta.get("reflink", "0") == "1",
            bigtime=meta.get("bigtime", "0") == "1",
            inobtcount=meta.get("inobtcount", "0") == "1",
            nrext64=meta.get("nrext64", "0") == "1",
        )
    except (KeyError, ValueError) as exc:
        raise ValueError(f"not a mkfs.xfs geometry report (missing or bad {exc})") from None


def probe(
    size_bytes: int,
    *,
    su_bytes: int = 0,
    sw: int = 0,
    block_size: int = 4096,
    sector_size: int = 512,
    timeout: float = 30.0,
) -> XfsGeometry:
    """Run `mkfs.xfs -N` on a scratch file and return the geometry it reports.

    Raises runners.exec.CommandError when mkfs.xfs refuses (its stderr says why).
    """
    with tempfile.TemporaryDirectory(prefix="podplan-xfs-") as tmp:
        path = os.path.join(tmp, "probe.img")
        argv = probe_argv(path, size_bytes, su_bytes=su_bytes, sw=sw, block_size=block_size, sector_size=sector_size)
        try:
            result = run(argv, timeout=timeout)
        except CommandError as exc:
            if exc.returncode is None:
                raise
            raise CommandError(exc.argv, exc.returncode, refusal_reason(exc.stderr)) from None
    return parse_mkfs_output(result.stdout)


def refusal_reason(stderr: str) -> str:
    """The lines of a failed mkfs.xfs's stderr that say why, without warnings or usage text."""
    lines = []
    for line in stderr.splitlines():
        if line.startswith("Usage:"):
            break
        if line.strip() and not line.startswith("warning:"):
            lines.append(line.strip())
    return "\n".join(lines)
