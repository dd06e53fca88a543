"""Parity CPU figures from the kernel log: parser on recorded logs, reader on this host, predict's source line."""

from __future__ import annotations

import io
import json
import os
import pathlib

import pytest

from app.cli.main import main
from planners.hardware.machine import CPU_CLASSES, Cpu
from planners.perf.parity_log import MIB_TO_MB, OLD_XOR_MB_TO_MB, cpu_from_log, parse_parity_log
from runners.exec import have, run
from runners.host.kernel_log import read_host_parity, read_log_file

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "kernel_log"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


# name: (raid6 algorithm, its gen() as logged (MiB/s), raid6 xor() as logged, skipped, xor function,
#        xor as logged, xor figure's unit, forced, boots)
CASES = {
    "dmesg-3.2-i686.txt": ("sse1x2", 2290, None, False, "pIII_sse", 4529.0, OLD_XOR_MB_TO_MB, True, 1),
    "kern.log-4.4-ubuntu1604.txt": ("avx2x4", 23930, 15219, False, "avx", 27621.0, OLD_XOR_MB_TO_MB, True, 2),
    "dmesg-4.19-debian10.txt": ("avx512x4", 27103, 13377, False, "avx", None, 1.0, True, 1),
    "dmesg-5.4-arm64-skip.txt": ("neonx8", None, None, True, "32regs", 3384.0, OLD_XOR_MB_TO_MB, False, 1),
    "dmesg-5.15-ubuntu2204.txt": ("avx2x2", 17041, 10209, False, "prefetch64-sse", 13382.0, 1.0, False, 1),
    "journal-6.1-debian12-two-boots.txt": ("avx2x2", 26102, 15044, False, "avx", None, 1.0, True, 2),
    "dmesg-6.8-fedora-skipped.txt": ("avx512x4", None, None, True, "avx", None, 1.0, True, 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded_logs(name):
    algo, gen, r6xor, skipped, xfn, xor, unit, forced, boots = CASES[name]
    log = parse_parity_log(fixture(name))
    assert log.found and log.raid6_algorithm == algo and log.raid6_skipped is skipped
    assert log.raid6_gen_mb_s == (None if gen is None else pytest.approx(gen * MIB_TO_MB))
    assert log.raid6_xor_mb_s == (None if r6xor is None else pytest.approx(r6xor * MIB_TO_MB))
    assert log.xor_function == xfn and log.xor_forced is forced and log.boots == boots
    assert log.xor_mb_s == (None if xor is None else pytest.approx(xor * unit))


def test_every_fixture_has_a_case():
    assert sorted(p.name for p in FIXTURES.iterdir()) == sorted(CASES)


def test_the_chosen_algorithm_wins_over_the_fastest_benchmarked():
    # 3.x chose by preference first: sse1x2 over the faster mmxx2.
    assert parse_parity_log(fixture("dmesg-3.2-i686.txt")).raid6_gen_mb_s == pytest.approx(2290 * MIB_TO_MB)
    # 4.19: avx512x2's xor() is the fastest logged, avx512x4's is the one md uses.
    assert parse_parity_log(fixture("dmesg-4.19-debian10.txt")).raid6_xor_mb_s == pytest.approx(13377 * MIB_TO_MB)


def test_the_last_boot_wins():
    text = fixture("journal-6.1-debian12-two-boots.txt")
    assert "27515" in text  # the earlier boot measured faster
    first = text[: text.index("-- Boot ")]
    assert parse_parity_log(first).raid6_gen_mb_s == pytest.approx(27515 * MIB_TO_MB)
    assert parse_parity_log(text).raid6_gen_mb_s == pytest.approx(26102 * MIB_TO_MB)
    # dmesg outputs run together, the second without its banner: the clock going back starts a boot.
    later = "\n".join(ln for ln in fixture("dmesg-5.15-ubuntu2204.txt").splitlines() if "Linux version" not in ln)
    both = parse_parity_log(fixture("dmesg-4.19-debian10.txt") + later)
    assert both.boots == 2 and both.raid6_algorithm == "avx2x2" and both.xor_function == "prefetch64-sse"


def test_a_later_load_in_the_same_boot_wins_and_a_boot_without_lines_has_none():
    reload = (
        "[ 9000.100000] raid6: sse2x4   gen() 20000 MB/s\n"
        "[ 9000.200000] raid6: avx2x4   gen()  9000 MB/s\n"
        "[ 9000.300000] raid6: using algorithm avx2x4 gen() 9000 MB/s\n"
    )
    log = parse_parity_log(fixture("dmesg-4.19-debian10.txt") + reload)
    assert log.boots == 1 and log.raid6_algorithm == "avx2x4" and log.raid6_gen_mb_s == pytest.approx(9000 * MIB_TO_MB)
    assert log.raid6_xor_mb_s is None  # avx512x4's rmw figure does not carry over
    rebooted = parse_parity_log(fixture("dmesg-4.19-debian10.txt") + "[    0.000000] Linux version 6.1.0\n")
    assert rebooted.boots == 2 and not rebooted.found
    assert not parse_parity_log("").found and parse_parity_log("").boots == 0


PREFIXES = [
    "{msg}",
    "[{ts:12.6f}] {msg}",
    "<6>[{ts:12.6f}] {msg}",
    "kern  :info  : [{ts:12.6f}] {msg}",
    "[Sat Mar  9 14:02:09 2024] {msg}",
    "[{ts:12.6f}] pod7 kernel: {msg}",
    "2024-03-09T14:02:09.123456+00:00 pod7 kernel: [{ts:12.6f}] {msg}",
    "Mar 09 14:02:09 pod7 kernel: {msg}",
]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_timestamps_and_prefixes_do_not_matter(prefix):
    raw = fixture("kern.log-4.4-ubuntu1604.txt").splitlines()
    msgs = [ln.split("] ", 1)[1] for ln in raw if " kernel: [" in ln]
    text = "\n".join(prefix.format(ts=1000.0 + i, msg=m) for i, m in enumerate(msgs))
    assert parse_parity_log(text) == parse_parity_log(fixture("kern.log-4.4-ubuntu1604.txt"))


def test_figures_in_order_plan_then_log_then_preset():
    log = parse_parity_log(fixture("dmesg-5.15-ubuntu2204.txt"))
    cpu, origin = cpu_from_log(Cpu(cpu_class="desktop-2010", xor_mb_s=9000.0), log, "this host's kernel log (dmesg)")
    assert origin.xor.source == "plan" and cpu.xor_mb_s == 9000.0
    assert origin.raid6_gen.source == "kernel log" and origin.raid6_gen.detail == "avx2x2"
    assert cpu.raid6_gen_mb_s == pytest.approx(17041 * MIB_TO_MB)
    cpu, origin = cpu_from_log(Cpu(), parse_parity_log(fixture("dmesg-6.8-fedora-skipped.txt")))
    assert cpu == Cpu() and origin.raid6_gen.source == origin.xor.source == "preset"
    assert origin.raid6_gen.mb_s == CPU_CLASSES["server"].raid6_gen_mb_s
    assert "without benchmarking" in origin.raid6_gen.why_not_log and "avx" in origin.xor.why_not_log
    cpu, origin = cpu_from_log(Cpu(), None, "", "--no-host-cpu")
    assert cpu == Cpu() and origin.xor.why_not_log == "--no-host-cpu" and origin.log is None


def test_this_hosts_log_gives_figures_or_says_why_not():
    """The real dmesg here: this container's kernel has no md, so usually no raid6 lines."""
    host = read_host_parity()
    if host.log is not None:
        assert host.source in ("dmesg", "journalctl -k -b", "/var/log/kern.log") and not host.why_none
        return
    assert host.source == "" and host.why_none
    if have("dmesg") and run(["dmesg"], check=False).returncode == 0:
        assert "dmesg" in host.read  # read, and nothing in it


def test_refused_dmesg_falls_back_to_the_next_source(tmp_path):
    if os.geteuid() != 0 or not have("setpriv"):
        pytest.skip("needs root and setpriv to run dmesg as another user")
    if pathlib.Path("/proc/sys/kernel/dmesg_restrict").read_text().strip() != "1":
        pytest.skip("kernel.dmesg_restrict is 0 here: dmesg is not refused to anyone")
    as_nobody = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "dmesg")
    kern_log = tmp_path / "kern.log"
    kern_log.write_text(fixture("kern.log-4.4-ubuntu1604.txt"))
    host = read_host_parity(commands=(("dmesg", as_nobody),), kern_log=str(kern_log))
    assert host.failed == ("dmesg not permitted by kernel.dmesg_restrict",)
    assert host.source == str(kern_log) and host.log.raid6_algorithm == "avx2x4"
    host = read_host_parity(
        commands=(("dmesg", as_nobody), ("slow", ("sleep", "30"))), timeout_s=0.5, kern_log=str(tmp_path / "absent")
    )
    assert host.log is None and "slow timed out after 0.5 s" in host.why_none
    assert f"{tmp_path / 'absent'} absent" in host.why_none


def test_a_stray_byte_in_a_log_is_no_failure(tmp_path):
    f = tmp_path / "k.log"
    f.write_bytes(b"[    1.0] usb 1-1: Product: \xff\xfe\n" + fixture("dmesg-5.15-ubuntu2204.txt").encode())
    assert read_log_file(str(f)).raid6_algorithm == "avx2x2"
    assert "\ufffd" in run(["cat", str(f)]).stdout


def predict(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["predict", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_predict_takes_raid6_gen_from_a_saved_log(capsys):
    log = str(FIXTURES / "dmesg-4.19-debian10.txt")
    code, out, err = predict(capsys, "--kernel-log", log)
    assert code == 0, err
    assert f"raid6 gen() 28.4 GB/s (avx512x4) from the kernel log in {log}" in " ".join(out.split())
    assert "xor 20.0 GB/s from preset server (the kernel chose avx" in " ".join(out.split())
    code, out, _ = predict(capsys, "--kernel-log", log, "--json", "--workload", "dd-write")
    doc = json.loads(out)
    assert doc["cpu"]["raid6_gen"]["source"] == "kernel log" and doc["cpu"]["xor"]["source"] == "preset"
    assert doc["cpu"]["summary"].startswith("raid6 gen() 28.4 GB/s (avx512x4)")
    parity = next(t for t in doc["predictions"][0]["terms"] if t["name"] == "parity CPU")
    assert f"raid6 gen() at {27103 * MIB_TO_MB:.0f} MB/s" in parity["note"]  # the model ran on the log's figure


def test_predict_plan_figure_beats_the_log_and_presets_name_themselves(capsys, tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text(
        'name = "p"\n[[disks]]\ncount = 8\nsize = "4TB"\n[[groups]]\nlevel = 6\nmembers = 8\n'
        '[hardware.cpu]\ncpu_class = "desktop-2010"\nraid6_gen_mb_s = 3000.0\n'
    )
    code, out, _ = predict(capsys, str(plan), "--kernel-log", str(FIXTURES / "kern.log-4.4-ubuntu1604.txt"), "--json")
    cpu = json.loads(out)["cpu"]
    assert code == 0 and cpu["raid6_gen"]["source"] == "plan" and cpu["raid6_gen"]["mb_s"] == 3000.0
    assert cpu["xor"]["source"] == "kernel log" and cpu["xor"]["detail"] == "avx"
    code, out, _ = predict(capsys, str(plan), "--no-host-cpu")
    assert (
        "raid6 gen() 3.0 GB/s from the plan's [hardware.cpu]; xor 6.0 GB/s from preset desktop-2010 (--no-host-cpu)"
    ) in " ".join(out.split())
    code, out, _ = predict(capsys, "--cpu-class", "desktop-2010", "--json")
    cpu = json.loads(out)["cpu"]
    assert (
        cpu["raid6_gen"] == {"mb_s": 4500.0, "source": "preset", "detail": "desktop-2010", "why_not_log": "--cpu-class"}
        and cpu["log"] is None
    )


def test_predict_on_this_host_names_where_the_figures_came_from(capsys):
    code, out, err = predict(capsys)
    assert code == 0, err
    line = " ".join(out.split())
    assert "CPU: raid6 gen() " in line and ("from this host's kernel log" in line or "from preset server (" in line)


@pytest.mark.parametrize("example", ["luns8", "scratch", "nvme", "btrfs6"])
def test_no_parity_figures_where_this_host_computes_no_parity(example, tmp_path, capsys):
    """LUNs (their controller's parity), plain disks, btrfs raid10: the CPU line would say nothing."""
    from app.cli.main import main

    pod = tmp_path / "p.toml"
    assert main(["example", example]) == 0
    pod.write_text(capsys.readouterr().out)
    assert main(["predict", str(pod), "--no-host-cpu"]) == 0
    assert "raid6 gen()" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--kernel-log", "/nonexistent/k.log"], "--kernel-log: /nonexistent/k.log absent"),
        (["--kernel-log", "/"], "is a directory"),
        (["--kernel-log", "k.log", "--no-host-cpu"], "not allowed with argument"),
    ],
)
def test_bad_cpu_flags_are_one_line(capsys, argv, needle):
    code, _, err = predict(capsys, *argv)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_the_perf_tab_names_parity_figures_only_where_this_host_computes_parity(monkeypatch):
    from rich.console import Console

    from app.tui.widgets import perf
    from planners.compute import compute
    from planners.example import example_luns, example_pod

    monkeypatch.setattr(perf, "_with_host_cpu", lambda plan: (plan, "raid6 gen() 9.0 GB/s from test"))

    def text(plan) -> str:  # type: ignore[no-untyped-def]
        console = Console(width=118, record=True, file=io.StringIO())
        console.print(perf.perf_view(plan, compute(plan), 118))
        return console.export_text()

    assert "CPU: raid6 gen()" in text(example_pod())
    assert "raid6 gen()" not in text(example_luns())


def test_this_hosts_kernel_speaks_only_for_a_plan_of_this_host(capsys, tmp_path, monkeypatch):
    """A plan of a 2007 Xeon predicted here: what this host's kernel chose (avx512x4) is not that
    machine's; its class preset gives the figures and the line says why this host's log was not read."""
    import app.shared.host_cpu as host_cpu

    skipped = read_log_file(str(FIXTURES / "dmesg-6.8-fedora-skipped.txt"))
    monkeypatch.setattr(host_cpu, "host_parity", lambda: (skipped, "this host's kernel log (dmesg)", ""))
    old = tmp_path / "old.toml"
    old.write_text(
        'name = "old"\n[[disks]]\ncount = 8\nsize = "500GB"\n[[groups]]\nlevel = 6\nmembers = 8\n'
        '[hardware.cpu]\ncpu_class = "xeon-5300-2007"\n'
    )
    code, out, _ = predict(capsys, str(old), "--workload", "seq-write")
    line = " ".join(out.split())
    assert code == 0 and "avx512x4" not in line and "chose" not in line
    assert "from preset xeon-5300-2007 (the plan's CPU is of class xeon-5300-2007" in line
    # a plan that names no CPU of its own is predicted for this host, and the line says whose kernel chose
    code, out, _ = predict(capsys, "--workload", "seq-write")
    assert code == 0 and "(this host's kernel chose avx512x4 without benchmarking it)" in " ".join(out.split())


def test_an_unreadable_kernel_log_is_the_kernel_log_s_error_not_a_plan_s():
    from types import SimpleNamespace

    from app.shared.host_cpu import with_cpu_source
    from planners.errors import PlanError
    from planners.example import example_pod
    from runners.host.kernel_log import KernelLogError

    flags = SimpleNamespace(kernel_log="/nonexistent/k.log", no_host_cpu=False, cpu_class=None)
    with pytest.raises(KernelLogError, match=r"^--kernel-log: /nonexistent/k\.log absent") as caught:
        with_cpu_source(example_pod(), flags)  # type: ignore[arg-type]
    assert not isinstance(caught.value, PlanError)
