"""fio options in their three kinds: modelled (the physics), ignored (one note why), refused (that section only).

The job files here are written for these tests, as fio's own examples are written: one section per
thing to show.
"""

from __future__ import annotations

import json

import pytest

from app.cli.main import main
from planners.example import example_pod
from planners.perf.concurrent import predict_job_file
from planners.perf.jobfile import parse_job_file
from planners.perf.jobopts import ALIASES, IGNORED, MODELLED, REFUSED
from planners.perf.predict import WorkloadPrediction, geometry_for_speed, predict
from planners.perf.shaped import hot_share, mean_distance, zones_of
from planners.perf.workloads import Workload

POD = example_pod()
RESULT = geometry_for_speed(POD)
HEAD = "[global]\nfilename=/dev/md0\ndirect=1\nioengine=libaio\niodepth=16\nsize=100g\n"


def predicted(text: str) -> dict[str, WorkloadPrediction]:
    return {p.workload: p for p in predict_job_file(POD, RESULT, parse_job_file(text))}


def plain(**kw: object) -> WorkloadPrediction:
    base = dict(name="x", rw="randread", bs=4096, iodepth=16, ioengine="libaio", size=100 * 2**30)
    [p] = predict(POD, RESULT, [Workload(**{**base, **kw})])  # type: ignore[arg-type]
    return p


MIXED = (
    HEAD
    + """
[good]
rw=randread
bs=4k

[trims]
rw=randtrim

[also-good]
rw=write
bs=1m
zonemode=zbd
"""
)


def test_one_refused_section_leaves_the_others_predicted(tmp_path, capsys):
    jf = parse_job_file(MIXED, source="m.fio")
    assert [w.name for w in jf.workloads] == ["good"]
    assert [(r.section, r.reason) for r in jf.refused] == [
        ("trims", "m.fio:13: [trims] rw=randtrim refused: trims are not modelled"),
        ("also-good", "m.fio:18: [also-good] zonemode=zbd needs zonesize (fio refuses it without)"),
    ]
    # fio still runs the refused sections beside the predicted one: its figure is an upper bound.
    assert any("run at once with the refused [trims, also-good]" in n for n in jf.notes)
    path = tmp_path / "m.fio"
    path.write_text(MIXED)
    assert main(["predict", "--job", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["workload"] for p in doc["predictions"]] == ["good"]
    assert [r["section"] for r in doc["refused_sections"]] == ["trims", "also-good"]
    assert doc["refused_sections"][0]["reason"].endswith("trims are not modelled")
    assert main(["predict", "--job", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 section(s) not predicted:" in out and "[trims]" in out


def test_every_option_has_one_kind_and_aliases_name_a_known_option():
    kinds = [set(IGNORED), set(REFUSED), set(MODELLED)]
    assert all(not (a & b) for i, a in enumerate(kinds) for b in kinds[i + 1 :])
    assert all(v in IGNORED or v in REFUSED or v in MODELLED for v in ALIASES.values())


# Options the issue names as changing nothing that reaches the array, each with a word of its reason.
@pytest.mark.parametrize(
    ("option", "why"),
    [
        ("thread", "workers run"),
        ("threads=1", "workers run"),
        ("numa_cpu_nodes=0", "workers run"),
        ("numa_mem_policy=local", "workers run"),
        ("cpus_allowed=0-1", "workers run"),
        ("log_prio=1", "reporting"),
        ("write_lat_log=x", "reporting"),
        ("write_bw_log=x", "reporting"),
        ("steadystate_check_interval=1s", "stops"),
        ("ss_interval=1s", "stops"),
        ("exit_what=all", "gives up"),
        ("continue_on_error=all", "gives up"),
        ("ignore_error=EIO", "gives up"),
        ("allow_file_create=0", "creates or opens"),
        ("dedupe_percentage=50", "VDO"),
        ("buffer_compress_percentage=50", "compress"),
        ("cmdprio_percentage=10", "priority"),
        ("blockalign=64k", "aligned"),
        ("atomic=1", "RWF_ATOMIC"),
        ("sprandom=1", "SSD"),
    ],
)
def test_options_that_do_not_change_the_io_are_ignored_with_one_note(option, why):
    jf = parse_job_file(f"{HEAD}[job]\nrw=randwrite\nbs=4k\n{option}\n", source="o.fio")
    assert [w.name for w in jf.workloads] == ["job"] and not jf.refused
    [note] = [n for n in jf.notes if option.split("=")[0] in n or "ignored" in n]
    assert note.startswith("o.fio:10: [job] ") and " ignored: " in note and why in note and "\n" not in note
    alone = parse_job_file(f"{HEAD}[job]\nrw=randwrite\nbs=4k\n").workloads[0]
    assert jf.workloads[0] == alone  # the same workload: nothing about the I/O changed


def test_dedupe_and_compression_name_the_devices_that_would_care():
    [note] = parse_job_file("[a]\ndedupe_percentage=70\n").notes
    assert "md, LVM, ext4 and XFS store every byte as written" in note
    assert all(d in note for d in ("VDO", "ZFS", "btrfs", "controller"))


def test_bssplit_is_read_by_request_count_reads_and_writes_apart():
    [w] = parse_job_file("[a]\nrw=randrw\nbssplit=4k/10:64k/50:32k/40,4k/90:8k/\n").workloads
    assert w.bs_split == (((4096, 0.1), (32768, 0.4), (65536, 0.5)), ((4096, 0.9), (8192, 0.1)))
    [one] = parse_job_file("[a]\nrw=randread\nbssplit=4k/50:1k/:32k/\n").workloads  # blanks share the rest
    assert one.bs_split[0] == ((1024, 0.25), (4096, 0.5), (32768, 0.25)) == one.bs_split[1]
    assert one.bs == round(0.25 * 1024 + 0.5 * 4096 + 0.25 * 32768)  # the mean request, by count
    assert "more than 100" in parse_job_file("[a]\nbssplit=4k/60:8k/60\n").refused[0].reason


def test_bsrange_draws_each_multiple_of_the_smallest_size_alike():
    [w] = parse_job_file("[a]\nrw=randread\nbsrange=4k-16k\n").workloads
    assert w.bs_split[0] == ((4096, 0.25), (8192, 0.25), (12288, 0.25), (16384, 0.25))
    [odd] = parse_job_file("[a]\nrw=randread\nbsrange=4k-10k\n").workloads  # 10k is capped: the rest lands on it
    assert [b for b, _ in odd.bs_split[0]] == [4096, 8192, 10240]
    assert sum(p for _, p in odd.bs_split[0]) == pytest.approx(1.0)


def test_a_block_size_mix_adds_each_sizes_time_per_byte():
    p = predicted(HEAD + "[mix]\nrw=randread\nbssplit=4k/75:256k/25\n")["mix"]
    small, large = plain(bs=4096), plain(bs=262144)
    bytes_small, bytes_large = 0.75 * 4096, 0.25 * 262144
    share = bytes_small / (bytes_small + bytes_large)
    assert p.mb_s == pytest.approx(1 / (share / small.mb_s + (1 - share) / large.mb_s))
    assert p.block_bytes == round(0.75 * 4096 + 0.25 * 262144)
    assert p.iops == pytest.approx(p.mb_s * 1e6 / (0.75 * 4096 + 0.25 * 262144))
    assert "block sizes by request count" in p.shaping[-1]


def test_verify_is_a_write_pass_then_a_read_back_or_a_mix_with_a_backlog():
    rows = predicted(HEAD + "[v]\nrw=randwrite\nbs=4k\nverify=crc32c\n")
    assert list(rows) == ["v", "v (verify)"]
    assert rows["v"].mb_s == pytest.approx(plain(rw="randwrite").mb_s)
    assert rows["v (verify)"].mb_s == pytest.approx(plain(rw="randread").mb_s)
    sorted_back = predicted(HEAD + "[v]\nrw=randwrite\nbs=4k\nverify=md5\nnorandommap\n")["v (verify)"]
    assert sorted_back.mb_s == pytest.approx(plain(rw="read").mb_s)  # read back in offset order
    backlog = predicted(HEAD + "[v]\nrw=randwrite\nbs=4k\nverify=crc32c\nverify_backlog=16\n")
    assert list(backlog) == ["v"]
    assert backlog["v"].mb_s == pytest.approx(plain(rw="randrw", read_mix=0.5).mb_s)
    assert list(predicted(HEAD + "[v]\nrw=write\nbs=1m\nverify=crc32c\ndo_verify=0\n")) == ["v"]


def test_latency_target_settles_on_the_deepest_queue_that_meets_it():
    for target_ms in (10, 20):  # the example pod meets 30 ms even at depth 256 (its disks sort queued requests)
        p = predicted(HEAD + f"[l]\nrw=randread\nbs=4k\niodepth=256\nlatency_target={target_ms}ms\n")["l"]
        depth = p.settled_iodepth
        assert 1 < depth < 256
        at = plain(iodepth=depth)
        deeper = plain(iodepth=depth + 1)
        assert depth / at.iops <= target_ms / 1e3 < (depth + 1) / deeper.iops  # Little's law: in flight / IOPS
        assert p.mb_s == pytest.approx(at.mb_s)
    never = predicted(HEAD + "[l]\nrw=randread\nbs=4k\niodepth=64\nlatency_target=1us\n")["l"]
    assert never.settled_iodepth == 1 and "not met even at iodepth 1" in never.shaping[-1]
    always = predicted(HEAD + "[l]\nrw=randread\nbs=4k\niodepth=64\nlatency_target=10s\n")["l"]
    assert always.settled_iodepth == 64


def test_zoned_distributions_shorten_the_seeks_and_hot_sets_fill_the_page_cache():
    zones = zones_of("zoned:50/5:30/15:20/", 10**12)
    assert [(round(a, 3), round(b, 3), p) for a, b, p in zones] == [(0, 0.05, 0.5), (0.05, 0.2, 0.3), (0.2, 1.0, 0.2)]
    assert mean_distance([(0.0, 1.0, 1.0)]) == pytest.approx(1 / 3)  # uniform: a third of the span
    assert mean_distance(zones) < 1 / 3
    hot = predicted(HEAD + "[z]\nrw=randread\nbs=4k\niodepth=1\nrandom_distribution=zoned:90/1:10/\n")["z"]
    assert hot.iops > plain(iodepth=1).iops
    assert hot_share("pareto:0.2", 0.2, 10**6) == pytest.approx(
        0.2 ** (__import__("math").log(0.8) / __import__("math").log(0.2))
    )
    assert hot_share("zipf:1.2", 0.01, 10**7) > 0.5 > hot_share("zipf:0.8", 0.01, 10**7)
    assert hot_share("normal:0", 0.5, 10**6) == pytest.approx(0.9973, abs=1e-3)  # +-3 sigma of a twelfth
    cached = predicted("[c]\nfilename=/srv/f\nsize=1t\nrw=randread\nbs=4k\nrandom_distribution=zipf:1.2\n")["c"]
    uniform = predicted("[c]\nfilename=/srv/f\nsize=1t\nrw=randread\nbs=4k\n")["c"]
    assert cached.mb_s > uniform.mb_s and "page cache" in cached.shaping[-1]


def test_flow_keeps_the_sections_requests_in_their_weights_ratio():
    rows = predicted(HEAD + "[w]\nrw=write\nbs=8k\nflow=1\n[r]\nrw=randread\nbs=8k\nflow=8\n")
    assert rows["r"].iops == pytest.approx(8 * rows["w"].iops)
    assert rows["w"].binding == "flow"
    apart = predicted(HEAD + "[w]\nrw=write\nbs=8k\nflow=1\n[r]\nrw=randread\nbs=8k\nflow=8\nflow_id=2\n")
    assert apart["w"].binding != "flow"  # another flow_id: weighed against nothing


def test_rate_min_offload_and_poisson_are_stated():
    rows = predicted(HEAD + "[s]\nrw=randread\nbs=4k\nrate=1m\nratemin=2m\n")
    assert "fio would end the job" in rows["s"].shaping[-1]
    jf = parse_job_file(HEAD + "[o]\nrw=randread\nrate_iops=100\nio_submit_mode=offload\nrate_process=poisson\n")
    assert jf.workloads[0].submit_offload
    assert any("offload: helper threads" in n for n in jf.notes) and any("poisson" in n for n in jf.notes)


def test_an_unset_environment_variable_refuses_its_section_only():
    text = "[a]\nrw=read\n[b]\nbs=${PODPLAN_TEST_BS}\n"
    jf = parse_job_file(text)
    assert [w.name for w in jf.workloads] == ["a"] and "PODPLAN_TEST_BS is not set" in jf.refused[0].reason
    assert parse_job_file(text, env={"PODPLAN_TEST_BS": "64k"}).workloads[1].bs == 65536


def test_gaps_backwards_offsets_and_strided_zones_cost_what_the_disk_turns_past():
    seq = predicted(HEAD + "[s]\nrw=write\nbs=16k\n")["s"]
    gap = predicted(HEAD + "[s]\nrw=write:112k\nbs=16k\n")["s"]
    assert gap.mb_s == pytest.approx(seq.mb_s * 16 / 128)  # spinning disks turn past 112k per 16k written
    back = predicted(HEAD + "[b]\nrw=read:-8k\nbs=4k\n")["b"]
    assert back.mb_s == pytest.approx(plain(rw="randread", iodepth=16).mb_s)
    outer = predicted(HEAD.replace("size=100g", "size=10g") + "[o]\nrw=read\nbs=1m\n")["o"]
    inner = predicted(HEAD.replace("size=100g", "size=10g") + "[o]\nrw=read\nbs=1m\noffset=300t\n")["o"]
    assert inner.mb_s < outer.mb_s
    strided = predicted(HEAD + "[z]\nrw=read\nbs=64k\nzonemode=strided\nzonesize=256m\nzoneskip=2g\n")["z"]
    assert 0.9 < strided.mb_s / predicted(HEAD + "[z]\nrw=read\nbs=64k\n")["z"].mb_s < 1.0


def test_the_perf_tab_lists_the_refused_sections_under_the_predicted_ones():
    from rich.console import Console

    from app.tui.widgets.perf import perf_view

    console = Console(width=80, record=True)
    console.print(perf_view(POD, RESULT, 80, None, parse_job_file(MIXED, source="m.fio"), "m.fio"))
    text = " ".join(console.export_text().split())
    assert "1 job from m.fio after the suite" in text
    assert "not predicted: [trims] m.fio:13: [trims] rw=randtrim refused: trims are not modelled" in text
    assert "not predicted: [also-good]" in text


def test_the_job_file_benchmark_counts_what_predicts_and_why_the_rest_is_refused(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "mixed.fio").write_text(MIXED)
    (tmp_path / "zoned-mix.fio").write_text("[z]\nrw=randrw\nzonemode=zbd\nzonesize=256m\n")
    (tmp_path / "net.fio").write_text("[n]\nioengine=net\n")  # not local I/O: left out
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_jobfiles.py"
    run = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "2 job files: 1 predict (at least one section), 1 refused, 0 tracebacks" in run.stdout
    assert "zonemode=zbd with a mix: the reads follow the write pointers" in run.stdout
