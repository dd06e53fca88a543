"""Many pods at once: the suite through fio's client/server mode, against real fio servers on 127.0.0.1."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from runners.exec import have
from runners.fio_hosts import Host, parse_hosts, remote_target, remote_workloads, validate_hosts, write_refusal
from runners.fio_jobs import Shape, Timing
from runners.validate_guard import GuardError

MiB = 1024**2
TINY = Timing(runtime_s=2, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=5.0)
needs_fio = pytest.mark.skipif(not have("fio"), reason="fio is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def fio_servers():
    """Two fio servers on free ports, stopped with SIGTERM and waited for whatever happens."""
    procs, ports = [], []
    try:
        for _ in range(2):
            port = _free_port()
            procs.append(subprocess.Popen(["fio", f"--server=ip:127.0.0.1,{port}"], stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            ports.append(port)
        deadline = time.monotonic() + 10
        while not all(_listening(p) for p in ports):
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                pytest.fail("fio --server did not start listening")
            time.sleep(0.05)
        yield ports
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_host_list_is_parsed():
    hs = parse_hosts("pod1,pod2:8766,[::1]:9000")
    assert hs == (Host(name="pod1"), Host(name="pod2", port=8766), Host(name="::1", port=9000))
    assert [h.client for h in hs] == ["pod1,8765", "pod2,8766", "::1,9000"]
    for bad in ("pod1,", "pod1:0", "pod 1", "pod1,pod1:8765"):
        with pytest.raises(GuardError):
            parse_hosts(bad)


def test_remote_raw_device_writes_need_the_flag():
    assert "--destroy-data /dev/sdb" in write_refusal("/dev/sdb", "device", None)
    assert write_refusal("/dev/sdb", "device", "/dev/sdb") is None
    with pytest.raises(GuardError):
        write_refusal("/dev/sdb", "device", "/dev/sdc")
    assert write_refusal("/srv/pod", "file", None) is None
    with pytest.raises(GuardError):
        write_refusal("/srv/pod", "file", "/dev/sdb")


def test_remote_jobs_cover_the_whole_device_and_remove_their_file():
    dev = remote_workloads(remote_target("/dev/md0", Host(name="pod1"), None, True), Shape(), TINY,
                           ("seq-read", "seq-write"))
    assert all("size=100%" in w.job.text for w in dev)
    t1, t2 = (remote_target("/srv/pod", Host(name=n), 64 * MiB, True) for n in ("pod1", "pod2"))
    assert t1.path != t2.path  # two servers sharing one filesystem must not share one file
    ws = remote_workloads(t1, Shape(), TINY, ("seq-read", "seq-write", "rand-read-4k"))
    assert ["unlink=1" in w.job.text for w in ws] == [False, False, True]
    assert all(f"size={64 * MiB}" in w.job.text for w in ws)


@needs_fio
def test_suite_on_two_servers_reports_each_host(fio_servers, tmp_path):
    target = tmp_path / "pod"
    target.mkdir()
    report_dir = tmp_path / "report"
    hosts = tuple(Host(name="127.0.0.1", port=p) for p in fio_servers)
    r = validate_hosts(str(target), hosts, timing=TINY, file_size=16 * MiB, direct=False,
                       report_dir=str(report_dir), names=("seq-read", "rand-write-4k"))
    assert [h.host for h in r.hosts] == [f"127.0.0.1:{p}" for p in fio_servers]
    for h in r.hosts:
        assert h.status == "done", h.reason
        assert [w.name for w in h.report.workloads] == ["seq-read", "rand-write-4k"]
        for w in h.report.workloads:
            assert w.status == "done", w.reason
            assert w.figures.host == "127.0.0.1" and w.figures.io_bytes > 0
        assert h.report.workload("seq-read").figures.read_bytes_s > 0
        assert h.report.workload("rand-write-4k").figures.write_iops > 0
        hdir = report_dir / h.host.replace(":", "_")
        assert (hdir / "seq-read.fio").read_text() == h.report.workload("seq-read").job_file
        assert json.loads((hdir / "report.json").read_text())["workloads"][0]["status"] == "done"
    assert list(target.iterdir()) == []  # the servers removed their files


@needs_fio
def test_unreachable_host_is_marked_and_the_others_run(fio_servers, tmp_path):
    dead = _free_port()
    hosts = (Host(name="127.0.0.1", port=fio_servers[0]), Host(name="127.0.0.1", port=dead))
    r = validate_hosts(str(tmp_path), hosts, timing=TINY, file_size=8 * MiB, direct=False, names=("seq-read",))
    assert [h.status for h in r.hosts] == ["done", "unreachable"] and r.partial
    assert r.hosts[1].host == f"127.0.0.1:{dead}" and "refused" in r.hosts[1].reason


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, timeout=120,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@needs_fio
def test_cli_every_host_unreachable_is_one_line_and_exit_2(tmp_path):
    p = _cli("validate", "--hosts", f"127.0.0.1:{_free_port()},127.0.0.1:{_free_port()}", str(tmp_path))
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert "no fio server reachable" in p.stderr


@needs_fio
def test_cli_json_groups_by_host(fio_servers, tmp_path):
    hosts = ",".join(f"127.0.0.1:{p}" for p in fio_servers)
    p = _cli("validate", "--hosts", hosts, "--json", "--destroy-data", "/dev/null", str(tmp_path))
    assert p.returncode == 2 and "not one" in p.stderr  # a directory target with --destroy-data is refused
    p = _cli("validate", "--hosts", f"{hosts},127.0.0.1:{_free_port()}", "--json", "/dev/podplan-none")
    out = json.loads(p.stdout)
    assert [h["status"] for h in out["hosts"]][2] == "unreachable" and p.returncode == 1
    for h in out["hosts"][:2]:
        ws = {w["name"]: w for w in h["report"]["workloads"]}
        assert ws["seq-write"]["status"] == "skipped" and "--destroy-data" in ws["seq-write"]["reason"]
