"""Many pods at once: the suite through fio's client/server mode, against real fio servers on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from runners.exec import have
from runners.fio.jobs import ArrayShape, Timing
from runners.probes.loopdev import sparse_loop
from runners.validate.guard import GuardError
from runners.validate.hosts import Host, parse_hosts, remote_target, remote_workloads, validate_hosts, write_refusal
from runners.validate.preflight import preflight, probe_job, room_job

MiB = 1024**2
TINY = Timing(runtime_s=2, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=5.0)
needs_fio = pytest.mark.skipif(not have("fio"), reason="fio is not installed")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: loop devices, mounts, mount namespaces")


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


@contextlib.contextmanager
def servers(*mounts: str | None, over: str = ""):
    """One fio server per entry on a free port, stopped with SIGTERM and waited for whatever happens.
    An entry other than None is a `mount` argument list: that server runs in a mount namespace of
    its own with that filesystem over the directory `over`, as if it were another machine."""
    procs, ports = [], []
    try:
        for mount in mounts:
            port = _free_port()
            argv = ["fio", f"--server=ip:127.0.0.1,{port}"]
            if mount is not None:
                argv = [
                    "unshare",
                    "--mount",
                    "--propagation",
                    "private",
                    "sh",
                    "-c",
                    f'mount {mount} "$1" && shift && exec "$@"',
                    "sh",
                    over,
                    *argv,
                ]
            procs.append(
                subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
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


@pytest.fixture(scope="module")
def fio_servers():
    with servers(None, None) as ports:
        yield ports


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
    dev = remote_workloads(
        remote_target("/dev/md0", Host(name="pod1"), None, True), ArrayShape(), TINY, ("seq-read", "seq-write")
    )
    assert all("size=100%" in w.job.text for w in dev)
    t1, t2 = (remote_target("/srv/pod", Host(name=n), 64 * MiB, True) for n in ("pod1", "pod2"))
    assert t1.path != t2.path  # two servers sharing one filesystem must not share one file
    ws = remote_workloads(t1, ArrayShape(), TINY, ("seq-read", "seq-write", "rand-read-4k"))
    assert ["unlink=1" in w.job.text for w in ws] == [False, False, True]
    assert all(f"size={64 * MiB}" in w.job.text for w in ws)


@needs_fio
def test_suite_on_two_servers_reports_each_host(fio_servers, tmp_path):
    target = tmp_path / "pod"
    target.mkdir()
    report_dir = tmp_path / "report"
    hosts = tuple(Host(name="127.0.0.1", port=p) for p in fio_servers)
    r = validate_hosts(
        str(target),
        hosts,
        timing=TINY,
        file_size=16 * MiB,
        direct=False,
        report_dir=str(report_dir),
        names=("seq-read", "rand-write-4k"),
    )
    assert [h.host for h in r.hosts] == [f"127.0.0.1:{p}" for p in fio_servers]
    for i, h in enumerate(r.hosts, 1):
        assert h.status == "done", h.reason
        assert [w.name for w in h.report.workloads] == ["seq-read", "rand-write-4k"]
        for w in h.report.workloads:
            assert w.status == "done", w.reason
            assert w.figures.host == "127.0.0.1" and w.figures.io_bytes > 0
        assert h.report.workload("seq-read").figures.read_bytes_s > 0
        assert h.report.workload("rand-write-4k").figures.write_iops > 0
        # named by index, not by host or section: both are the user's text
        hdir = report_dir / f"host-{i:02d}"
        assert (hdir / "job-01.fio").read_text() == h.report.workload("seq-read").job_file
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
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )


@needs_fio
def test_cli_every_host_unreachable_is_one_line_and_exit_2(tmp_path):
    p = _cli("validate", "--hosts", f"127.0.0.1:{_free_port()},127.0.0.1:{_free_port()}", str(tmp_path))
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert "no fio server reachable" in p.stderr


@needs_root
@needs_fio
def test_cli_json_groups_by_host(fio_servers, tmp_path):
    hosts = ",".join(f"127.0.0.1:{p}" for p in fio_servers)
    p = _cli("validate", "--hosts", hosts, "--json", "--destroy-data", "/dev/null", str(tmp_path))
    assert p.returncode == 2 and "not one" in p.stderr  # a directory target with --destroy-data is refused
    with sparse_loop(32 * MiB) as dev:
        p = _cli("validate", "--hosts", f"{hosts},127.0.0.1:{_free_port()}", "--json", dev)
    out = json.loads(p.stdout)
    assert [h["status"] for h in out["hosts"]][2] == "unreachable" and p.returncode == 1
    for h in out["hosts"][:2]:
        ws = {w["name"]: w for w in h["report"]["workloads"]}
        assert ws["seq-read"]["status"] == "done", ws["seq-read"]["reason"]
        assert ws["seq-write"]["status"] == "skipped" and "--destroy-data" in ws["seq-write"]["reason"]


def test_preflight_jobs_never_create_what_they_check():
    d = remote_target("/srv/pod", Host(name="pod1"), 64 * MiB, True)
    probe = probe_job(d, "pod1").text
    assert "directory=/srv/pod\n" in probe and "unique_filename=0" in probe and "filename=/" not in probe
    assert "direct=1" in probe and "unlink=1" in probe
    assert "direct=0" in probe_job(d.model_copy(update={"direct": False}), "pod1").text
    room = room_job(d, 64 * MiB).text
    assert f"size={64 * MiB}" in room and "fallocate=posix" in room and "create_only=1" in room
    assert f"filename={os.path.basename(d.path)}" in room and "unlink=1" in room
    dev = probe_job(remote_target("/dev/md0", Host(name="pod1"), None, True), "pod1").text
    assert "allow_file_create=0" in dev and "rw=read" in dev and "io_size=4096" in dev and "\nsize=" not in dev


@needs_root
@needs_fio
def test_hosts_failing_the_preflight_are_skipped_and_the_others_run(tmp_path):
    """Three servers see three filesystems at one path: a roomy one, a 24 MiB tmpfs, and ramfs,
    which refuses O_DIRECT (tmpfs itself takes it since Linux 6.6)."""
    if not have("unshare"):
        pytest.skip("unshare (util-linux) is not installed")
    target = tmp_path / "pod"
    target.mkdir()
    events: list[tuple[str, str, bool]] = []
    notes: list[str] = []
    with servers(None, "-t tmpfs -o size=24m tmpfs", "-t ramfs ramfs", over=str(target)) as ports:
        hosts = tuple(Host(name="127.0.0.1", port=p) for p in ports)
        r = validate_hosts(
            str(target),
            hosts,
            timing=TINY,
            file_size=64 * MiB,
            direct=True,
            names=("seq-read",),
            on_progress=lambda n, e, t, f: events.append((n, e, f is not None)),
            on_note=notes.append,
        )
    ok, small, ramfs = r.hosts
    assert ok.status == "done" and ok.report.workload("seq-read").figures.read_bytes_s > 0
    assert small.status == "skipped" and small.report is None and r.partial
    assert small.reason == f"{target} has between 16 MiB and 32 MiB free, the suite needs 64 MiB"
    assert ramfs.status == "skipped" and ramfs.reason.startswith(f"O_DIRECT refused on {target}")
    assert "--buffered" in ramfs.reason
    assert sorted(notes) == sorted(f"{h.host}: {h.reason}; skipped" for h in (small, ramfs))
    mine = [(e, fig) for n, e, fig in events if n == f"{ok.host} seq-read"]
    assert mine[0] == ("start", False) and mine[-1] == ("end", True)
    assert ("progress", False) in mine  # ticks while fio's client is silent
    assert {n for n, _, _ in events} == {f"{ok.host} seq-read"}  # nothing ran on the skipped hosts
    assert list(target.iterdir()) == []


@needs_root
@needs_fio
def test_missing_targets_fail_the_preflight_without_being_created(fio_servers, tmp_path):
    host = Host(name="127.0.0.1", port=fio_servers[0])
    missing = tmp_path / "typo" / "pod"
    why = preflight(remote_target(str(missing), host, 8 * MiB, True), host.client, "t", str(tmp_path))
    # fio names the failed lstat only sometimes (preflight.verdict): without it, both readings remain.
    assert why in (f"{missing} does not exist there", f"{missing} is missing or not a directory there"), why
    assert not missing.parent.exists()
    dev = f"/dev/podplan-missing-{os.getpid()}"
    why = preflight(remote_target(dev, host, None, True), host.client, "t", str(tmp_path))
    assert why == f"{dev} does not exist there (or is empty)" and not os.path.exists(dev)
    with sparse_loop(8 * MiB) as loop:
        assert preflight(remote_target(loop, host, None, True), host.client, "t", str(tmp_path)) == ""


@needs_root
@needs_fio
def test_cli_no_host_able_to_run_is_one_line_and_exit_2(tmp_path):
    if not have("unshare"):
        pytest.skip("unshare (util-linux) is not installed")
    with servers("-t tmpfs -o size=24m tmpfs", "-t ramfs ramfs", over=str(tmp_path)) as ports:
        p = _cli("validate", "--hosts", ",".join(f"127.0.0.1:{p}" for p in ports), str(tmp_path))
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        last = p.stderr.strip().splitlines()[-1]
        assert last.startswith("podplan: no host can run the suite: ")
        assert f"127.0.0.1:{ports[0]}: {tmp_path} has less than 64 MiB free, the suite needs 1 GiB" in last
        assert f"127.0.0.1:{ports[1]}: O_DIRECT refused on {tmp_path}" in last
        p = _cli("validate", "--hosts", f"127.0.0.1:{ports[1]}", "--buffered", "--json", str(tmp_path / "nope"))
        # fio names the failed lstat only sometimes (preflight.verdict): without it, both readings remain.
        said = (f"{tmp_path / 'nope'} does not exist there", f"{tmp_path / 'nope'} is missing or not a directory there")
        assert p.returncode == 2 and any(s in p.stderr for s in said), p.stderr
    p = _cli("validate", "--buffered", str(tmp_path))
    assert p.returncode == 2 and "--buffered goes with --hosts" in p.stderr
