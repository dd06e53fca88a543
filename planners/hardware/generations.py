"""CPU and controller presets by generation: a plan names the part it runs on (`cpu_class =
"xeon-5300-2007"`, `kind = "perc5"`) and gets that generation's figures, not today's.

Each CPU preset is one socket of the named part, and every figure follows from the part's
vendor specification by one rule, relative to the "server" class (a 2021 Ice Lake SP / EPYC
7003 core at ~3 GHz, whose figures are measured and sourced in planners.hardware.machine):
- cores and PCIe lanes per socket, PCIe generation, memory channels and their rate: the vendor's
  specification of the part and its platform (chipset lanes where the CPU has none of its own).
- memory_mb_s: a STREAM-like copy sustains a share of the channels' peak (channels x MT/s x 8 B):
  80 % on DDR4/DDR5 parts (as the server class), 75 % for DDR3-1866 and EPYC 7001/7002 (four
  dies, each with two channels), 70 % for DDR2/DDR3-1333 controllers; the Xeon 5300 reaches memory
  over a 1333 MT/s front-side bus per socket (10.7 GB/s peak) shared with I/O: 45 %.
- speed: one core's speed at kernel work against the server class's core, the all-core clock
  ratio times the per-clock gains the vendors stated for each step (Intel: Nehalem +15 % over
  Core 2, Sandy and Ivy Bridge +15 % over Westmere, Haswell to Skylake +25 % over Ivy Bridge,
  Sunny Cove +18 % over Skylake; Core 2 +20 % over K8; AMD: Zen 2 +15 % over Zen, Zen 3 +19 %,
  Zen 4 +13 %). md's thread and the buffered copy rates scale with it; each per-request cost
  divides by it.
- parity: the kernel's xor and raid6 gen() run in L1 with the widest vector unit the part has;
  before AVX2 (raid6) and AVX (xor) they use SSE2, half the width, so half the server class's
  per-clock figure.
The figures keep the class spread (±40 %, request costs ±50 %): a generation's parts differ by
clock as much as neighbouring generations do.
"""

from __future__ import annotations

from typing import Literal

CpuGeneration = Literal[
    "opteron-2006",
    "xeon-5300-2007",
    "westmere-2010",
    "ivybridge-2013",
    "skylake-2017",
    "icelake-2021",
    "epyc-7001",
    "epyc-7002",
    "epyc-7003",
    "epyc-9004",
]


def _peak(channels: int, mts: int) -> float:
    """Peak memory bandwidth of one socket, MB/s: channels x transfers/s x 8 bytes."""
    return channels * mts * 8.0


# name: (part, cores, speed, SSE2-only raid6, SSE2-only xor, PCIe gen, lanes, memory MB/s)
CPU_PARTS: dict[str, tuple[str, int, float, bool, bool, int, int, float]] = {
    # K8 "Santa Rosa" Opteron 2218, 2.6 GHz, 2 cores, DDR2-667 x2; 20 PCIe 1.0 lanes per socket
    # (nForce Professional 2200). Speed 2.6/3.0 / (1.2 x 1.15 x 1.15 x 1.25 x 1.18).
    "opteron-2006": ("Opteron 2218", 2, 0.37, True, True, 1, 20, 0.70 * _peak(2, 667)),
    # Clovertown Xeon E5345, 2.33 GHz, 4 cores, 1333 MT/s FSB; Intel 5000P: 24 PCIe 1.0 lanes per
    # two sockets. Speed 2.33/3.0 / (1.15 x 1.15 x 1.25 x 1.18).
    "xeon-5300-2007": ("Xeon E5345", 4, 0.40, True, True, 1, 12, 0.45 * _peak(1, 1333)),
    # Westmere-EP Xeon X5670, 2.93 GHz, 6 cores, DDR3-1333 x3; Intel 5520: 36 PCIe 2.0 lanes per
    # two sockets. Speed 2.93/3.0 / (1.15 x 1.25 x 1.18).
    "westmere-2010": ("Xeon X5670", 6, 0.58, True, True, 2, 18, 0.70 * _peak(3, 1333)),
    # Ivy Bridge-EP Xeon E5-2680 v2, 3.1 GHz all-core, 10 cores, DDR3-1866 x4, 40 PCIe 3.0 lanes;
    # AVX (xor) but no AVX2 (raid6). Speed 3.1/3.0 / (1.25 x 1.18).
    "ivybridge-2013": ("Xeon E5-2680 v2", 10, 0.70, True, False, 3, 40, 0.75 * _peak(4, 1866)),
    # Skylake-SP Xeon Gold 6148, 2.9 GHz all-core, 20 cores, DDR4-2666 x6, 48 PCIe 3.0 lanes.
    "skylake-2017": ("Xeon Gold 6148", 20, 0.82, False, False, 3, 48, 0.80 * _peak(6, 2666)),
    # Ice Lake-SP Xeon Platinum 8380: the server class's own part, 40 cores.
    "icelake-2021": ("Xeon Platinum 8380", 40, 1.0, False, False, 4, 64, 0.80 * _peak(8, 3200)),
    # Naples EPYC 7601, 2.7 GHz all-core, 32 cores, DDR4-2666 x8, 128 PCIe 3.0 lanes (one socket).
    # Speed 2.7/3.0 / (1.15 x 1.19).
    "epyc-7001": ("EPYC 7601", 32, 0.66, False, False, 3, 128, 0.75 * _peak(8, 2666)),
    # Rome EPYC 7742, 3.2 GHz all-core, 64 cores, DDR4-3200 x8, 128 PCIe 4.0 lanes. 3.2/3.0 / 1.19.
    "epyc-7002": ("EPYC 7742", 64, 0.90, False, False, 4, 128, 0.75 * _peak(8, 3200)),
    # Milan EPYC 7763: the server class's other part, 64 cores.
    "epyc-7003": ("EPYC 7763", 64, 1.0, False, False, 4, 128, 0.80 * _peak(8, 3200)),
    # Genoa EPYC 9654, 3.55 GHz all-core, 96 cores, DDR5-4800 x12, 128 PCIe 5.0 lanes.
    # Speed 3.55/3.0 x 1.13.
    "epyc-9004": ("EPYC 9654", 96, 1.34, False, False, 5, 128, 0.80 * _peak(12, 4800)),
}

ControllerModel = Literal[
    "lsi-1068", "perc5", "lsi-2208", "broadcom-9560", "hpe-p420", "hpe-p440", "fc-array-2007", "fc-array-flash"
]

# name: (what it is, round trip in microseconds, write-back cache bytes, drain queue per disk).
# Round trip: what one command costs in the controller beyond the disks (firmware path, cache
# lookup, completion), set by the generation's I/O processor and its clock; an estimate with the
# kinds' ±50 % spread. Caches: the models' shipped sizes.
CONTROLLER_MODELS: dict[str, tuple[str, float, int, int]] = {
    # 2007 SAS 3 Gb/s HBA, PCIe 1.0 x8, firmware on a single ARM9-class I/O processor, no cache.
    "lsi-1068": ("LSI SAS1068E HBA (2007)", 50.0, 0, 32),
    # 2007 RAID adapter: Dell PERC 5/i, Intel IOP333 at 500 MHz, 256 MiB DDR2 battery-backed cache.
    "perc5": ("Dell PERC 5/i (2007)", 250.0, 256 << 20, 32),
    # 2012 RAID adapter: LSI SAS2208 (MegaRAID 9266/9271), dual-core 800 MHz PowerPC, 1 GiB DDR3.
    "lsi-2208": ("LSI MegaRAID SAS2208 (2012)", 80.0, 1 << 30, 32),
    # 2020 tri-mode RAID adapter: Broadcom MegaRAID 9560 (SAS3916), PCIe 4.0, 4 GiB cache.
    "broadcom-9560": ("Broadcom MegaRAID 9560 (2020)", 30.0, 4 << 30, 32),
    # HPE Smart Array P420 (2012) with its 1 GiB flash-backed cache and P440 (2014) with 4 GiB: the
    # memory ssacli reports available for caching (912 MiB and 3.8 GiB; the firmware keeps the rest).
    # RAID-on-chip of the SAS2208's generation: its round trip, an estimate.
    "hpe-p420": ("HPE Smart Array P420, 1 GiB FBWC (2012)", 80.0, 912 << 20, 32),
    "hpe-p440": ("HPE Smart Array P440, 4 GiB FBWC (2014)", 80.0, 3891 << 20, 32),
    # A 4 Gb FC midrange array of its day (two controllers, 2 GiB of mirrored cache each).
    "fc-array-2007": ("4 Gb FC midrange array (2007)", 600.0, 2 << 30, 32),
    # A current all-flash array on 32 Gb FC: its NVRAM acknowledges writes, ~0.25 ms at light load.
    "fc-array-flash": ("all-flash FC array (32 Gb, 2020s)", 250.0, 8 << 30, 32),
}

# The figures a CPU preset takes from the server class in proportion to one core's speed, and
# those it takes in inverse proportion (the per-request costs, microseconds of one core).
BY_SPEED = ("md_thread_mb_s", "buffered_write_mb_s", "buffered_read_mb_s")
PER_REQUEST = (
    "psync_us",
    "libaio_us",
    "io_uring_us",
    "wait_us",
    "block_request_us",
    "bio_remap_us",
    "md_stripe_io_us",
    "fs_dio_us",
    "reclaim_us",
)


# Cache-line transfers within a socket and between two, nanoseconds (the median core-to-core
# compare-and-swap latency, nviennot/core-to-core-latency README, 2022-2023), from the measured part
# nearest each preset: Ivy Bridge-EP -> Xeon E5-2695 v4 (Broadwell-EP, the same ring and QPI) 44 /
# 118; Skylake-SP -> Xeon Platinum 8275CL (Cascade Lake, the same mesh and UPI) 47 / 134; on EPYC,
# between core complexes: Zen -> Threadripper 1950X 154, Zen 2 -> Threadripper 3960X 94, Zen 3 ->
# EPYC 7R13 107, and between sockets the one two-socket EPYC measured there, 7R13, 197 for every
# generation. EPYC 9004 (no two-socket Zen 4 measured) takes Milan's figures, and the three oldest
# parts (none measured) keep the server class's: assumptions, said in docs/calibration.md.
LINE_TRANSFER_NS: dict[str, tuple[float, float]] = {
    "ivybridge-2013": (44.0, 118.0),
    "skylake-2017": (47.0, 134.0),
    "epyc-7001": (154.0, 197.0),
    "epyc-7002": (94.0, 197.0),
    "epyc-7003": (107.0, 197.0),
    "epyc-9004": (107.0, 197.0),
}


# The links between two sockets, one way: links x transfers/s x bytes a transfer carries one way, at the
# 82 % a remote read sustains: 34 GB/s on a Xeon Platinum 8160's two 10.4 GT/s UPI links, 41.6 GB/s raw
# (J. McCalpin, Stack Overflow, "Intel Ultra Path Interconnect (UPI) Bandwidth", 2020); measured on UPI,
# an assumption for the other links. Ice Lake SP (the server class): three 11.2 GT/s links, 55 GB/s. Opteron 2218: one coherent HyperTransport link at 2 GT/s x 2 bytes; Xeon
# E5345: none, both sockets share the front-side bus's memory controller (0: no per-socket memory);
# X5670: one 6.4 GT/s QPI link (the other goes to the I/O hub); E5-2680 v2: two QPI at 8.0 GT/s; Gold
# 6148: McCalpin's measured 34 GB/s (two 10.4 GT/s UPI links, as two-socket boards wire it); EPYC:
# four x16 xGMI links (7001 10.7 GT/s, 7002 16, 7003 18, 9004 32; the vendor's platform guides), each
# taking 16 of the socket's 128 lanes: a two-socket EPYC gives 64 lanes a socket to its devices.
SOCKET_LINK_MB_S: dict[str, float] = {
    "opteron-2006": 0.82 * 1 * 2.0e3 * 2,
    "xeon-5300-2007": 0.0,
    "westmere-2010": 0.82 * 1 * 6.4e3 * 2,
    "ivybridge-2013": 0.82 * 2 * 8.0e3 * 2,
    "skylake-2017": 34000.0,
    "icelake-2021": 0.82 * 3 * 11.2e3 * 2,
    "epyc-7001": 0.82 * 4 * 10.7e3 * 2,
    "epyc-7002": 0.82 * 4 * 16.0e3 * 2,
    "epyc-7003": 0.82 * 4 * 18.0e3 * 2,
    "epyc-9004": 0.82 * 4 * 32.0e3 * 2,
}
LINK_LANES = {"epyc-7001": 64, "epyc-7002": 64, "epyc-7003": 64, "epyc-9004": 64}  # lanes the links take


def cpu_figures(name: str, server: dict[str, float]) -> dict[str, float]:
    """The figures of CPU preset `name`, from the server class's (see the module's rules)."""
    _, cores, speed, sse_raid6, sse_xor, gen, lanes, memory = CPU_PARTS[name]
    out = {k: server[k] * speed for k in BY_SPEED}
    out.update({k: server[k] / speed for k in PER_REQUEST})
    out["raid6_gen_mb_s"] = server["raid6_gen_mb_s"] * speed * (0.5 if sse_raid6 else 1.0)
    out["xor_mb_s"] = server["xor_mb_s"] * speed * (0.5 if sse_xor else 1.0)
    out.update(cores=cores, pcie_gen=gen, pcie_lanes=lanes, memory_mb_s=round(memory))
    out["socket_link_mb_s"] = round(SOCKET_LINK_MB_S[name])
    if name in LINE_TRANSFER_NS:
        out["line_transfer_ns"], out["socket_transfer_ns"] = LINE_TRANSFER_NS[name]
    return out
