"""Where the NVMe drives sit among the sockets, and the IOMMU their DMA passes (`[hardware.platform]`).

Neither is a figure of the CPU class: a two-socket board may cable every drive bay to one socket's
root ports or half to each, and whether DMA is remapped, and how, is the firmware's and the kernel
command line's choice. Unset, each takes what the presets assume, and the range widens by what the
other choices would give (planners.perf.spread).

The IOMMU's cost, per request a drive on its own PCIe link receives (the NVMe driver maps each
request's pages before the command and unmaps them at completion): one t/io_uring thread on an Intel
Optane drive, 4 KiB random reads, did 5.01 M IOPS in passthrough, 1.93 M with lazy invalidation and
570 K strict (A. Gupta, "Add dmabuf read/write via io_uring", RFC v2, linux-nvme, Nov 2025; the
series' pre-mapped buffers reached 5.01 M in all three modes, so the differences are the per-I/O
map and unmap): 1/1.93 M - 1/5.01 M = 0.32 us a request lazy, 1/570 K - 1/5.01 M = 1.55 us strict
on a current core, scaled with the other per-request figures by the CPU preset's speed. Strict mode
unmaps each request with an IOTLB invalidation and waits for it: 1.55 - 0.32 = 1.23 us of that
thread's request was the wait, and one remapping unit's invalidation queue runs its invalidations
one after another (VT-d's queued invalidation, the SMMU's command queue), so the drives behind one
unit share 1/1.23 us = 813 K unmaps a second. Drives per unit: one x16 root port's worth (VT-d has
a remapping unit per PCIe stack on Xeon Scalable; an assumption elsewhere), and never across sockets.

Kernel defaults: DMA remapping with lazy invalidation (a flush queue, one invalidation per batch:
M. Gross, "PCI: iommu: iotlb flushing", 2.6.25, 2008, 250 entries or 10 ms) is what the x86 drivers
have done by default since 2008 when remapping is on (R. Murphy, "iommu: Clarify default domain
Kconfig", 5.15: "the AMD and Intel drivers have been lazy by default since 2008";
CONFIG_IOMMU_DEFAULT_DMA_LAZY); strict is `iommu.strict=1` (intel_iommu=strict and
amd_iommu=fullflush before 5.15, deprecated then: J. Garry's series), arm64's default, and RHEL 9's
build default from 2024 (CentOS Stream 9 merge request 3952, "Enable IOMMU DMA STRICT by default");
passthrough is `iommu=pt`. Whether Intel's remapping is on at all is a build option
(CONFIG_INTEL_IOMMU_DEFAULT_ON, off upstream from 2.6.29: K. McMartin, "x86: disable intel_iommu
support by default", 2009) that distributions set differently, and AMD's follows the firmware's
IVRS table. The presets assume lazy (no CPU class here is an arm64 part); unstated, the range
spans off on each request's CPU path up, and down to the low end of the range strict stated would
give, its invalidation ceiling (the "IOMMU" term) included (planners.perf.iommu_range). The
project's lab VM has one NUMA node and no IOMMU: neither the socket terms nor these can be
witnessed there.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from planners.hardware.bounds import Frozen

IommuMode = Literal["off", "passthrough", "lazy", "strict"]
DEFAULT_IOMMU: IommuMode = "lazy"
# Microseconds of a current core per request to a drive on its own PCIe link, by mode (Gupta, above).
DMA_MAP_US: dict[str, float] = {"off": 0.0, "passthrough": 0.0, "lazy": 0.32, "strict": 1.55}
# One strict invalidation in a remapping unit's queue, microseconds (1.55 - 0.32, above).
INVALIDATION_US = 1.23
UNIT_LANES = 16  # drive lanes behind one remapping unit: one x16 root port (above)


class Platform(BaseModel):
    """How the drives meet the sockets, and the IOMMU in their DMA's path. Unset: the presets' choice."""

    model_config = Frozen

    drive_sockets: int | None = Field(
        None,
        ge=1,
        le=16,
        description="Sockets whose root ports the NVMe drives hang off, the drives spread evenly over them "
        "(count); unset: every socket, as the presets assume.",
    )
    iommu: IommuMode | None = Field(
        None,
        description="DMA remapping for the drives: off (none, or disabled), passthrough (iommu=pt), lazy "
        "(batched invalidation, the x86 kernels' default), strict (iommu.strict=1); unset: lazy.",
    )
