"""fio's JSON as recorded from fio 3.33: status-interval streams, a SIGTERM'd run, a torn tail."""

from __future__ import annotations

import json
from pathlib import Path

from runners.fio.result import figures, objects, parse_output

FIX = Path(__file__).parent / "fixtures" / "fio"


def test_status_interval_stream_is_cumulative_and_last_is_final():
    text = (FIX / "status_interval_steady.json").read_text()
    objs = objects(text)
    assert len(objs) == 7  # one a second over a 6 s run, then the final one
    run = parse_output(text)
    job = run.jobs[0]
    assert run.final and job.name == "seq-read"
    assert job.read_bytes_s == objs[-1]["jobs"][0]["read"]["bw_bytes"] > 0
    assert job.write_bytes_s == 0 and job.write_p99_us is None
    assert job.steady is not None and job.steady.criterion.startswith("bw_slope:2")
    assert job.steady.attained is False  # attained=0 is reported as not steady, never hidden


def test_steady_state_attained():
    doc = json.loads((FIX / "single.json").read_text())
    job = parse_output((FIX / "single.json").read_text()).jobs[0]
    assert job.steady.attained and job.steady.window_s == 2
    # A steady job is reported by its window, the whole run kept beside it.
    data = doc["jobs"][0]["steadystate"]["data"]
    assert job.from_window and job.read_bytes_s == data["bw_mean"] and job.read_iops == data["iops_mean"]
    assert job.run_bytes_s == doc["jobs"][0]["read"]["bw_bytes"]
    assert job.runtime_ms < 6000  # stopped early once steady, well before runtime=6
    assert job.read_p99_us and job.read_p99_us > 0


def test_sigterm_run_keeps_its_last_object_marked_not_final():
    text = (FIX / "sigterm_partial.json").read_text()
    run = parse_output(text, finished=False)
    assert not run.final and run.jobs[0].io_bytes > 0


def test_torn_tail_is_ignored():
    text = (FIX / "status_interval_steady.json").read_text()
    whole = objects(text)
    cut = text[: text.rfind('"jobs"')]  # the last object half written
    assert len(objects(cut)) == len(whole) - 1
    assert parse_output("fio: note: something\n") is None
    assert len(objects("note: first\n" + text)) == len(whole)  # notes ahead of the JSON


def test_client_server_output_reads_each_host():
    obj = json.loads((FIX / "single.json").read_text())
    job = obj["jobs"][0]
    merged = {
        "fio version": "fio-3.33",
        "client_stats": [{**job, "hostname": "pod1"}, {**job, "hostname": "pod2"}, {**job, "jobname": "All clients"}],
    }
    run = figures(merged)
    assert [j.host for j in run.jobs] == ["pod1", "pod2"]


def _with(doc: dict, **ss) -> dict:
    job = json.loads(json.dumps(doc))
    job["jobs"][0]["steadystate"].update(ss)
    return job


def test_steady_window_only_when_it_can_be_trusted():
    doc = json.loads((FIX / "single.json").read_text())
    bw = doc["jobs"][0]["read"]["bw_bytes"]
    not_steady = figures(_with(doc, attained=0)).jobs[0]
    assert not not_steady.from_window and not_steady.read_bytes_s == bw
    no_data = figures(_with(doc, data={})).jobs[0]
    assert not no_data.from_window and no_data.read_bytes_s == bw
    # Releases that kept the window in KiB/s are scaled, not taken for a thousandfold drop.
    kib = figures(_with(doc, data={"bw_mean": bw // 1024, "iops_mean": 10})).jobs[0]
    assert kib.read_bytes_s == bw // 1024 * 1024
    mixed = json.loads(json.dumps(doc))
    mixed["jobs"][0]["write"].update(bw_bytes=5, iops=1.0)
    both = figures(mixed).jobs[0]
    assert not both.from_window and both.read_bytes_s == bw  # a mixed window cannot be split


def test_a_fio_killed_by_a_signal_says_which() -> None:
    from runners.fio.run import _complaint

    assert _complaint("", -8) == "fio was killed by SIGFPE"
    assert _complaint("", 1) == "fio exited with status 1"
    assert _complaint("fio: pid=1, err=5/file:io_u.c\n", -8).startswith("fio: pid=1")


def test_steady_window_spread_and_whole_run_latency_are_fio_s_own():
    doc = json.loads((FIX / "single.json").read_text())
    job = parse_output((FIX / "single.json").read_text()).jobs[0]
    data = doc["jobs"][0]["steadystate"]["data"]
    sp = job.steady.iops_spread
    # fio's window holds a sample a second: sigma, lowest and highest are of those, and their mean is fio's
    assert sp.samples == len(data["iops"]) == job.steady.window_s
    assert (sp.low, sp.high) == (min(data["iops"]), max(data["iops"]))
    mean = sum(data["iops"]) / len(data["iops"])
    assert abs(mean - data["iops_mean"]) <= 1
    assert abs(sp.sigma - (sum((v - mean) ** 2 for v in data["iops"]) / len(data["iops"])) ** 0.5) < 1e-6
    assert job.steady.bytes_s_spread.high == max(data["bw"])
    clat = doc["jobs"][0]["read"]["clat_ns"]
    lat = job.read_latency
    assert lat.mean_us == clat["mean"] / 1000 and lat.p50_us == clat["percentile"]["50.000000"] / 1000
    assert lat.p99_us == job.read_p99_us and lat.p99_9_us == clat["percentile"]["99.900000"] / 1000
    assert job.write_latency is None  # a read job has no write side
