"""Ask LVM itself: pvcreate, vgcreate and lvcreate on loop devices, then its JSON reports.

Without device-mapper in the kernel, pvcreate and vgcreate work as usual and lvcreate
works with activation off. Every command runs with LVM_SYSTEM_DIR pointing at a
private lvm.conf that sees only the probe's own loop devices, keeps its locks, hints
and backups to itself, and never talks to udev: the host's LVM state is not touched.

To see how pvcreate reacts to a device's queue limits (which loop devices do not
have), the probe can run pvcreate in a private mount namespace where the loop
device's sysfs limits are bind-mounted over with chosen values.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Sequence

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PodplanError
from runners.exec import run
from runners.probes.loopdev import sparse_loops

VG_NAME = "podplanvg"
LV_NAME = "podplanlv"
PV_FIELDS = "pv_name,pv_size,dev_size,pe_start,pv_pe_count,pv_pe_alloc_count"
VG_FIELDS = "vg_name,vg_extent_size,vg_extent_count,vg_free_count,vg_size"
LV_FIELDS = "lv_name,lv_size,seg_size_pe,stripes,stripe_size,seg_count,seg_start,seg_pe_ranges"
# Runs pvcreate with the loop device's queue limits replaced, inside `unshare --mount`
# so the replacement is seen by this pvcreate alone. Arguments: N, then N pairs of
# (file with the fake value, sysfs file to cover), then pvcreate's argv.
_FAKE_SYSFS_SCRIPT = (
    'n=$1; shift; while [ "$n" -gt 0 ]; do mount --bind "$1" "$2" || exit 97; shift 2; n=$((n-1)); done; exec "$@"'
)


class PvReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Device path.")
    pv_bytes: int = Field(description="pv_size: usable size LVM counts for the PV, in bytes.")
    dev_bytes: int = Field(description="dev_size: size of the underlying device, in bytes.")
    pe_start_bytes: int = Field(description="Offset of the first extent, in bytes.")
    pe_count: int = Field(description="Extents on the PV (0 while it is in no VG), count.")
    pe_alloc_count: int = Field(description="Extents allocated to LVs, count.")


class VgReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(description="VG name.")
    extent_bytes: int = Field(description="Extent size, in bytes.")
    extent_count: int = Field(description="Total extents, count.")
    free_count: int = Field(description="Free extents, count.")
    vg_bytes: int = Field(description="VG size, in bytes.")


class LvSegment(BaseModel):
    model_config = ConfigDict(frozen=True)

    start_bytes: int = Field(description="seg_start: where the segment begins in the LV, in bytes.")
    extents: int = Field(description="seg_size_pe: logical extents of the segment, count.")
    pe_ranges: tuple[str, ...] = Field(description="seg_pe_ranges: 'PV:first-last' extents, one per stripe.")

    def starts_on(self, pv: str) -> bool:
        """Whether the segment's first stripe lies on this PV (a device path)."""
        return bool(self.pe_ranges) and self.pe_ranges[0].rpartition(":")[0] == pv


def find_lv(lvs: Sequence[LvReport], vg: str, name: str) -> LvReport | None:
    """The LV `name` of VG `vg` among `lvs` (a report without vg_name matches on the name alone)."""
    return next((x for x in lvs if x.name == name and x.vg in (vg, "")), None)


class LvReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(description="LV name.")
    vg: str = Field("", description="The LV's VG (empty where the report has no vg_name column).")
    lv_bytes: int = Field(description="LV size, in bytes.")
    extents: int = Field(description="Logical extents over all of the LV's segments, count.")
    stripes: int = Field(description="Stripes of the first segment, count.")
    stripe_bytes: int = Field(description="Stripe size of the first segment in bytes (0 for linear).")
    segments: int = Field(description="Segments, count.")
    segment_table: tuple[LvSegment, ...] = Field(
        (), description="Each segment in LV order (empty in reports without seg_start and seg_pe_ranges)."
    )

    def start_on(self, pv: str) -> int | None:
        """Where the LV's first segment on this PV begins in the LV, in bytes; None if none does."""
        return min((s.start_bytes for s in self.segment_table if s.starts_on(pv)), default=None)


class LvmMeasurement(BaseModel):
    """What the LVM tools reported after building one VG and one LV."""

    model_config = ConfigDict(frozen=True)

    pvs: tuple[PvReport, ...] = Field(description="One report per PV, in the order given.")
    vg: VgReport | None = Field(description="The VG, None if vgcreate was not run.")
    lv: LvReport | None = Field(description="The LV, None if lvcreate was not run.")
    log: str = Field("", description="The commands' stderr and stdout, for a failing test to show.")


def _rows(text: str, kind: str) -> list[dict]:
    doc = json.loads(text)
    return [row for report in doc.get("report", []) for row in report.get(kind, [])]


def parse_pvs(text: str) -> list[PvReport]:
    """`pvs --reportformat json --units b --nosuffix -o PV_FIELDS` -> reports."""
    return [
        PvReport(
            name=r["pv_name"],
            pv_bytes=int(r["pv_size"]),
            dev_bytes=int(r["dev_size"]),
            pe_start_bytes=int(r["pe_start"]),
            pe_count=int(r["pv_pe_count"]),
            pe_alloc_count=int(r["pv_pe_alloc_count"]),
        )
        for r in _rows(text, "pv")
    ]


def parse_vgs(text: str) -> list[VgReport]:
    """`vgs --reportformat json --units b --nosuffix -o VG_FIELDS` -> reports."""
    return [
        VgReport(
            name=r["vg_name"],
            extent_bytes=int(r["vg_extent_size"]),
            extent_count=int(r["vg_extent_count"]),
            free_count=int(r["vg_free_count"]),
            vg_bytes=int(r["vg_size"]),
        )
        for r in _rows(text, "vg")
    ]


def parse_lvs(text: str) -> list[LvReport]:
    """`lvs --segments ... -o LV_FIELDS`: one row per segment, folded into one report per LV.

    Two VGs may each hold an LV of the same name: rows are folded per VG and LV, or one LV's
    segments would be counted as the other's."""
    out: dict[tuple[str, str], dict] = {}
    # With --segments the rows come under "seg", one per segment.
    for r in _rows(text, "seg") or _rows(text, "lv"):
        lv = out.setdefault((r.get("vg_name", ""), r["lv_name"]), {"rows": [], "size": int(r["lv_size"])})
        lv["rows"].append(r)
    return [
        LvReport(
            name=name,
            vg=vg,
            lv_bytes=lv["size"],
            extents=sum(int(r["seg_size_pe"]) for r in lv["rows"]),
            stripes=int(lv["rows"][0]["stripes"]),
            stripe_bytes=int(lv["rows"][0]["stripe_size"] or 0),
            segments=len(lv["rows"]),
            segment_table=tuple(
                sorted(
                    (
                        LvSegment(
                            start_bytes=int(r["seg_start"]),
                            extents=int(r["seg_size_pe"]),
                            pe_ranges=tuple(r.get("seg_pe_ranges", "").split()),
                        )
                        for r in lv["rows"]
                        if r.get("seg_start", "").isdigit()
                    ),
                    key=lambda s: s.start_bytes,
                )
            ),
        )
        for (vg, name), lv in out.items()
    ]


def lvm_conf(devices: Sequence[str], lock_dir: str) -> str:
    """A config that sees only `devices` and keeps every side effect in lock_dir."""
    accept = ", ".join(f'"a|^{d}$|"' for d in devices)
    return f"""devices {{
  filter = [ {accept}, "r|.*|" ]
  global_filter = [ {accept}, "r|.*|" ]
  use_devicesfile = 0
  obtain_device_list_from_udev = 0
  external_device_info_source = "none"
  hints = "none"
}}
global {{
  activation = 0
  locking_dir = "{lock_dir}"
  event_activation = 0
  use_lvmlockd = 0
  system_id_source = "none"
}}
activation {{
  udev_sync = 0
  udev_rules = 0
  monitoring = 0
}}
backup {{
  backup = 0
  archive = 0
}}
log {{
  syslog = 0
}}
"""


def report_argv(tool: str, fields: str, *devices_or_vg: str, segments: bool = False) -> list[str]:
    argv = [tool, "--reportformat", "json", "--units", "b", "--nosuffix", "-o", fields]
    return argv + (["--segments"] if segments else []) + list(devices_or_vg)


@contextlib.contextmanager
def lvm_sandbox(devices: Sequence[str]) -> Iterator[dict[str, str]]:
    """Environment for lvm commands confined to `devices`; the config dir is removed after."""
    with tempfile.TemporaryDirectory(prefix="podplan-lvm-") as tmp:
        os.mkdir(os.path.join(tmp, "lock"))
        with open(os.path.join(tmp, "lvm.conf"), "w") as f:
            f.write(lvm_conf(devices, os.path.join(tmp, "lock")))
        yield {"LVM_SYSTEM_DIR": tmp, "LVM_SUPPRESS_FD_WARNINGS": "1", "DM_DISABLE_UDEV": "1"}


def probe_volume(
    pv_bytes: Sequence[int],
    *,
    pvcreate_options: Sequence[str] = (),
    vgcreate_options: Sequence[str] | None = (),
    lvcreate_options: Sequence[str] | None = None,
    queue_limits: tuple[int, int, int] | None = None,
    earlier_lvs: Sequence[Sequence[str]] = (),
    timeout: float = 60.0,
) -> LvmMeasurement:
    """Build PVs (and a VG, and an LV, when given options) on fresh sparse loop devices.

    queue_limits (minimum_io_size, optimal_io_size, alignment_offset in bytes) are what
    pvcreate is made to see for every PV. Everything is removed afterwards.
    earlier_lvs: lvcreate options of LVs made first (named lv0, lv1, ...), so the measured LV is
    allocated from what they leave.
    """
    log: list[str] = []
    with sparse_loops(pv_bytes) as loops, lvm_sandbox(loops) as env:

        def lvm(argv: list[str]) -> str:
            res = run(argv, timeout=timeout, env=env, check=False, input="")
            log.append(f"$ {' '.join(argv)}\n{res.stdout}{res.stderr}")
            if res.returncode != 0:
                raise LvmProbeError("\n".join(log))
            return res.stdout

        try:
            pvcreate = ["pvcreate", "--yes", *pvcreate_options, *loops]
            if queue_limits:
                pvcreate = _with_fake_limits(pvcreate, loops, queue_limits, env["LVM_SYSTEM_DIR"])
            lvm(pvcreate)
            vg = lv = None
            if vgcreate_options is not None:
                lvm(["vgcreate", *vgcreate_options, VG_NAME, *loops])
                quiet = ["lvcreate", "--yes", "--zero", "n", "--wipesignatures", "n", "--name"]
                for i, options in enumerate(earlier_lvs):
                    lvm([*quiet, f"lv{i}", *options, VG_NAME])
                if lvcreate_options is not None:
                    lvm([*quiet, LV_NAME, *lvcreate_options, VG_NAME])
                    lv = parse_lvs(lvm(report_argv("lvs", LV_FIELDS, f"{VG_NAME}/{LV_NAME}", segments=True)))[0]
                vg = parse_vgs(lvm(report_argv("vgs", VG_FIELDS, VG_NAME)))[0]
            by_name = {p.name: p for p in parse_pvs(lvm(report_argv("pvs", PV_FIELDS, *loops)))}
            return LvmMeasurement(pvs=tuple(by_name[d] for d in loops), vg=vg, lv=lv, log="\n".join(log))
        finally:
            run(["vgremove", "--force", "--force", "--yes", VG_NAME], timeout=timeout, env=env, check=False)
            run(["pvremove", "--force", "--force", "--yes", *loops], timeout=timeout, env=env, check=False)


class LvmProbeError(PodplanError, RuntimeError):
    """An lvm command of the probe failed; the message holds every command and its output."""


def _with_fake_limits(
    argv: list[str], loops: Sequence[str], limits: tuple[int, int, int], values_dir: str
) -> list[str]:
    """Wrap argv so it runs where each loop's queue limits read as `limits` (files kept in values_dir)."""
    pairs: list[str] = []
    names = ("queue/minimum_io_size", "queue/optimal_io_size", "alignment_offset")
    for name, value in zip(names, limits, strict=True):
        path = os.path.join(values_dir, name.replace("/", "_"))
        with open(path, "w") as f:
            f.write(f"{value}\n")
        for dev in loops:
            pairs += [path, f"/sys/block/{os.path.basename(dev)}/{name}"]
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "sh",
        "-c",
        _FAKE_SYSFS_SCRIPT,
        "sh",
        str(len(pairs) // 2),
        *pairs,
        *argv,
    ]
