"""Plans the performance tests share: an md array of NVMe drives on their own PCIe links."""

from __future__ import annotations

from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Cpu, Hardware, MdKnobs, Wiring
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.units import GiB, KiB
from planners.versions import ToolVersions


def nvme_md(
    level: int,
    members: int,
    cpu: Cpu,
    *,
    chunk: int | None = 512 * KiB,
    fs: str = "xfs",
    kernel: str = "6.1",
    group_threads: int = 0,
    memory: int = 64 * GiB,
) -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=members, size=3_840_000_000_000, rotational=False)],
        groups=[
            MdGroup(name="md0", level=level, members=members, chunk=None if level == 1 else chunk, bitmap="none")  # type: ignore[arg-type]
        ],  # type: ignore[arg-type]
        filesystem=Filesystem(type=fs),  # type: ignore[arg-type]
        hardware=Hardware(
            disk=DiskSpec(disk_class="nvme"),
            wiring=Wiring(link="direct"),
            cpu=cpu,
            md=MdKnobs(group_thread_cnt=group_threads),
            memory_bytes=memory,
        ),
        tools=ToolVersions(kernel=kernel),
    )
