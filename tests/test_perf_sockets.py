"""Per-socket host ceilings: the drives' sockets' lanes, the threads' sockets' memory, the links between
sockets (planners.perf.host) and the range when the plan does not say where the drives sit. No lab
witness: the lab VM has one NUMA node."""

from __future__ import annotations

import pytest

from planners.hardware.disks import DiskSpec
from planners.hardware.generations import SOCKET_LINK_MB_S
from planners.hardware.machine import PCIE_LANE_MB_S, Cpu, Hardware
from planners.hardware.platform import Platform
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.host import busiest_crossing
from planners.units import KiB
from tests.test_perf_host import one, seq, term


def nvme(n: int, cpu: Cpu, platform: Platform | None = None) -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=n, size=3_840_000_000_000)],
        groups=[MdGroup(name="md0", level=0, members=n, chunk=512 * KiB, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(
            disk=DiskSpec(disk_class="nvme", seq_outer_mb_s=7000, seq_inner_mb_s=7000), cpu=cpu, platform=platform
        ),
    )


def test_drives_on_one_socket_get_that_sockets_lanes_only():
    two = Cpu(sockets=2, cores=32)
    spread = one(nvme(24, two), seq())
    assert term(spread, "host PCIe") == pytest.approx(2 * 64 * PCIE_LANE_MB_S[4])
    on_one = one(nvme(24, two, Platform(drive_sockets=1)), seq())
    assert term(on_one, "host PCIe") == pytest.approx(64 * PCIE_LANE_MB_S[4])
    assert on_one.binding == "host PCIe" and on_one.mb_s < spread.mb_s


def test_a_threads_buffers_lie_in_its_own_sockets_memory():
    cpu = Cpu(sockets=2, cores=32, memory_mb_s=20000)
    single = one(nvme(24, cpu), seq(jobs=1, direct=False))
    assert term(single, "memory") == pytest.approx(20000 / 3)  # one socket's memory, DMA and the copy's two
    many = one(nvme(24, cpu), seq(jobs=8, direct=False))
    assert term(many, "memory") == pytest.approx(2 * 20000 / 3)


def test_traffic_between_a_drives_socket_and_a_threads_crosses_the_link_one_way():
    assert busiest_crossing(2, 2, 2, 1.0) == pytest.approx(0.25)  # a quarter each way
    assert busiest_crossing(2, 1, 2, 1.0) == pytest.approx(0.5)  # half, all from the drives' socket
    assert busiest_crossing(2, 1, 1, 1.0) == 0.0  # the thread sits with the drives
    assert busiest_crossing(2, 1, 2, 0.5) == pytest.approx(0.25)  # a mix: reads one way, writes back
    cpu = Cpu(sockets=2, cores=32, socket_link_mb_s=20000)
    r = one(nvme(24, cpu, Platform(drive_sockets=1)), seq())
    assert term(r, "socket link") == pytest.approx(20000 / 0.5)
    assert r.binding == "socket link"


def test_socket_links_by_cpu_preset_and_none_on_a_shared_front_side_bus():
    assert SOCKET_LINK_MB_S["skylake-2017"] == 34000  # McCalpin: two UPI links, a remote read one way
    assert SOCKET_LINK_MB_S["icelake-2021"] == pytest.approx(0.82 * 3 * 22400)
    fsb = one(nvme(8, Cpu(cpu_class="xeon-5300-2007", sockets=2)), seq())
    assert all(t.name != "socket link" for t in fsb.terms)
    one_socket = one(nvme(8, Cpu()), seq())
    assert all(t.name != "socket link" for t in one_socket.terms)


def test_two_socket_epyc_gives_each_socket_the_lanes_its_links_leave():
    r = one(nvme(24, Cpu(cpu_class="epyc-7002", sockets=2)), seq())
    assert term(r, "host PCIe") == pytest.approx(2 * 64 * PCIE_LANE_MB_S[4])
    stated = one(nvme(24, Cpu(cpu_class="epyc-7002", sockets=2, pcie_lanes=80)), seq())
    assert term(stated, "host PCIe") == pytest.approx(2 * 80 * PCIE_LANE_MB_S[4])


def test_the_range_widens_until_the_plan_says_where_the_drives_sit():
    cpu = Cpu(sockets=2, cores=32, socket_link_mb_s=50000, pcie_lanes=20, pcie_gen=4, memory_mb_s=160000)
    left = one(nvme(24, cpu), seq())
    assert any(line.startswith("drives' sockets: not stated") for line in left.range_from)
    assert left.mb_s_low == pytest.approx(left.mb_s * 0.5, rel=0.01)  # all on one socket: half the lanes
    stated = one(nvme(24, cpu, Platform(drive_sockets=2)), seq())
    assert not any(line.startswith("drives' sockets") for line in stated.range_from)
    assert stated.mb_s_low > left.mb_s_low


def test_the_socket_link_carries_the_cpu_class_spread_until_stated():
    plan = nvme(24, Cpu(sockets=2, cores=32, pcie_lanes=128), Platform(drive_sockets=1))
    r = one(plan, seq())
    assert r.binding == "socket link"
    assert any(line.startswith("CPU figures from the server class preset") for line in r.range_from)
    assert r.mb_s_low == pytest.approx(r.mb_s * 0.6)
    stated = plan.model_copy(
        update={
            "hardware": plan.hardware.model_copy(
                update={"cpu": Cpu(sockets=2, cores=32, pcie_lanes=128, socket_link_mb_s=55000)}
            )
        }
    )
    s = one(stated, seq())
    assert s.binding == "socket link" and s.mb_s == pytest.approx(r.mb_s) and s.mb_s_low > r.mb_s_low
