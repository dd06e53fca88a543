"""A RAID adapter or an array's controller in front of the disks: its round trip, its write-back cache
(and the share of it that holds writes), and the commands a second its firmware can process.

The figures of each kind and model, and where they come from:
- round trip, cache size, drain queue: planners.hardware.generations (the models) and CONTROLLERS
  below (the kinds); docs/calibration.md.
- the write share of the cache. HPE Smart Array controllers split their cache between read-ahead
  and posted writes by a ratio the administrator sets (ACU / ssacli `cacheratio`, HP ISS Technology
  Update vol. 9 no. 4, "Setting HP Smart Array controller cache ratio"); as shipped, ssacli reports
  "Cache Ratio: 25% Read / 75% Write" on the 256 MiB to 1 GiB cache modules and "10% Read / 90%
  Write" on the 2 and 4 GiB ones (`ssacli ctrl all show config detail` as recorded in monitoring
  tools' test fixtures). LSI / Broadcom MegaRAID and Dell PERC have no such setting (storcli and
  perccli set only each volume's write and read policies): their whole cache takes writes. A
  generic "raid" controller may be either, so its share is 75-100 % until the plan states it.
- the command rate. A controller's firmware processes each command on its I/O processor; small
  requests (random, or sequential ones the block layer did not merge) are bounded by commands a
  second, not bytes. The vendors' small-block "IOPS" figures are that ceiling, measured at their best:
  LSI's MegaRAID SAS 9265-8i / 9285-8e (SAS2208) "more than 465,000 IOPS" with FastPath (LSI, 2011),
  4 KiB random reads of a RAID 0 of SSDs through write-through, no-read-ahead volumes; Broadcom's
  for its "Aero" MegaRAIDs (SAS39xx, the 9560's), 3,061k IOPS of 4 KiB random reads at queue depth
  64 from 24 HGST SS300 SAS SSDs on a Skylake host (the megaraid_sas perf_mode patch, linux-scsi,
  June 2019: C. Patil, K. Desai, "Introduce various Aero performance modes"). A volume with
  a write-back cache or read-ahead goes through the firmware's cache path instead, which costs about
  twice as much a command (Electronic Design, "Getting the most out of SSD arrays", on the MegaRAID
  9260-8i: "FastPath enabled SSDs were almost twice as fast as the same array without FastPath"):
  a preset's figure carries -50 % until the plan states its own. Models with no published figure
  have none, and the term is absent for them.

No lab witness: the lab VM's disks are virtio or virtio-scsi devices with no RAID controller, cache
or firmware in front of them, so nothing here is checked against a measurement of our own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planners.hardware.bounds import MAX_MICROSECONDS, Frozen
from planners.hardware.generations import CONTROLLER_MODELS, ControllerModel

ControllerKind = Literal["hba", "raid", "fc-array"] | ControllerModel


class Controller(BaseModel):
    """What sits between the host and the disks when it is more than a wire: a RAID adapter or an
    array's controller. Each request pays its round trip; a write-back cache acknowledges writes
    once they are in it and writes them to the disks later. Unset fields come from the kind's preset."""

    model_config = Frozen

    kind: ControllerKind = Field("raid", description="Preset the other fields default to.")
    round_trip_us: float | None = Field(
        None,
        ge=0,
        le=MAX_MICROSECONDS,
        description="Time one request spends in the controller beyond the disks' "
        "own work (firmware, cache lookup, completion), microseconds.",
    )
    cache_bytes: int | None = Field(
        None, ge=0, le=1 << 50, description="Write-back cache (battery or flash backed), bytes; 0 = write-through."
    )
    write_cache_percent: float | None = Field(
        None,
        ge=0,
        le=100,
        description="Share of the cache that holds writes, percent (an HPE Smart Array's cache ratio; the "
        "rest holds read-ahead). Preset: hpe-p420 75, hpe-p440 90 (as shipped), others 100 (MegaRAID and "
        "PERC have no split; a generic raid's range reaches 75).",
    )
    command_iops: float | None = Field(
        None,
        gt=0,
        le=1e9,
        description="Commands a second the controller's firmware processes at most, over every device "
        "behind it (its datasheet's small-block IOPS), count per second. Preset: the model's published figure.",
    )
    drain_queue: int | None = Field(
        None,
        ge=1,
        le=256,
        description="Writes the controller keeps queued on each disk while it drains its cache "
        "(count): the disk picks the nearest, so a deep queue shortens each seek.",
    )


class ResolvedController(BaseModel):
    model_config = ConfigDict(frozen=True)

    round_trip_us: float = Field(description="Per-request round trip, microseconds.")
    cache_bytes: int = Field(description="Write-back cache, bytes.")
    drain_queue: int = Field(description="Writes queued per disk while draining, count.")
    spread: float = Field(description="How far real controllers of the kind stray from the round trip, fraction.")
    write_share: float = Field(1.0, description="Share of the cache that holds writes, fraction.")
    split_low: float = Field(
        1.0, description="The lowest write share a controller of the kind ships with, fraction (1 = no spread)."
    )
    command_iops: float = Field(0.0, description="Commands a second the firmware processes at most; 0 = no figure.")
    command_spread: float = Field(0.0, description="How far below the preset command rate it may be, fraction.")


# Round trips: a SAS HBA passes a command through in tens of microseconds (LSI SAS2008-class HBAs'
# firmware path); a RAID adapter answering from its cache takes 0.1-0.3 ms per command (PERC 6 /
# MegaRAID 9260-class adapters doing 4-8 K cached IOPS at queue depth 1); an FC array's
# controller, behind the HBA, the fabric and the array's own firmware, 0.3-1 ms at light load.
# Caches: the common sizes of each kind (512 MiB adapters; 2 GiB per midrange array controller).
# Drain queue: SATA NCQ's 32 tags; SAS disks take as many, array controllers keep about that.
CONTROLLERS: dict[str, ResolvedController] = {
    "hba": ResolvedController(round_trip_us=20, cache_bytes=0, drain_queue=32, spread=0.5),
    # A MegaRAID / PERC (whole cache) or a Smart Array (75 % of it, as shipped): see the docstring.
    "raid": ResolvedController(round_trip_us=150, cache_bytes=512 << 20, drain_queue=32, spread=0.5, split_low=0.75),
    "fc-array": ResolvedController(round_trip_us=500, cache_bytes=2 << 30, drain_queue=32, spread=0.5),
}
# The write share as each model ships (HPE's cache ratio) and the published command rates.
WRITE_SHARE = {"hpe-p420": 0.75, "hpe-p440": 0.90}
COMMAND_IOPS = {"lsi-2208": 465_000.0, "broadcom-9560": 3_061_000.0}
# The firmware's cache path against FastPath's: about half the commands a second (see the docstring).
CACHED_PATH_SPREAD = 0.5

for _name, (_, _rt, _cache, _queue) in CONTROLLER_MODELS.items():
    CONTROLLERS[_name] = ResolvedController(
        round_trip_us=_rt,
        cache_bytes=_cache,
        drain_queue=_queue,
        spread=0.5,
        write_share=WRITE_SHARE.get(_name, 1.0),
        split_low=WRITE_SHARE.get(_name, 1.0),
        command_iops=COMMAND_IOPS.get(_name, 0.0),
        command_spread=CACHED_PATH_SPREAD if _name in COMMAND_IOPS else 0.0,
    )


def resolve_controller(c: Controller) -> ResolvedController:
    """The kind's preset with what the plan states: a stated figure carries no preset's spread."""
    given = {k: v for k, v in c.model_dump(exclude={"kind", "write_cache_percent"}).items() if v is not None}
    if "round_trip_us" in given:
        given["spread"] = 0.0
    if "command_iops" in given:
        given["command_spread"] = 0.0
    if c.write_cache_percent is not None:
        given["write_share"] = given["split_low"] = c.write_cache_percent / 100
    return CONTROLLERS[c.kind].model_copy(update=given)
