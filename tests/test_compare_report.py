"""`podplan compare --report DIR`: a real fio output beside the plan as the page validate's report draws,
opened in a headless browser (see test_report_html): the bars of measured beside predicted, each job's
spread and latency as fio gave them, and what compare said under its table; `podplan report DIR` draws
the same page again from what it kept."""

from __future__ import annotations

import json
import subprocess

import pytest

from app.cli.main import main
from runners.exec import have
from tests.test_compare import PLAN
from tests.test_report_html import CHROMIUM, _kept_and_opened, browser  # noqa: F401 (the fixture)

pytestmark = [
    pytest.mark.skipif(not have("fio"), reason="fio is not installed"),
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/dev.sh installs it)"),
]


def test_compare_report_shows_bars_points_latency_and_notes(browser, tmp_path, capsys) -> None:  # noqa: F811
    job = tmp_path / "j.fio"
    body = "[rr]\nrw=randread\nbs=4k\n"
    job.write_text(f"[global]\ndirectory={tmp_path}\nsize=8m\nioengine=psync\ntime_based=1\nruntime=1\n{body}")
    out = tmp_path / "out.json"
    # a second job after the first, left out of the job file given: measured, not predicted
    ran = tmp_path / "ran.fio"
    ran.write_text(job.read_text() + "[sw]\nstonewall\nrw=write\nbs=1m\n")
    subprocess.run(["fio", "--output-format=json", f"--output={out}", str(ran)], check=True, capture_output=True)
    fio = {j["jobname"]: j for j in json.loads(out.read_text())["jobs"]}
    rep = tmp_path / "rep"
    assert main(["compare", PLAN, "--fio", str(out), "--job", str(job), "--report", str(rep)]) == 0
    said = capsys.readouterr().out
    assert f"report: {rep}/report.html" in said and "sw: not predicted" in said

    page = _kept_and_opened(browser, rep, 2)
    sets = page.evaluate("""() => [...document.querySelectorAll('canvas')].map(c => {
        const ch = Chart.getChart(c); return [ch.data.labels, ch.data.datasets.map(d => [d.kind, d.data])]; })""")
    rr, sw = fio["rr"], fio["sw"]
    # IOPS for the 4 KiB reads, beside the prediction; MB/s for the writes, which have none
    iops, mbs = sorted(sets, key=lambda s: s[0])
    assert iops[0] == ["rr"] and iops[1][0] == ["measured", [rr["read"]["iops"]]] and iops[1][1][0] == "predicted"
    assert mbs == [["sw"], [["measured", [sw["write"]["bw_bytes"] / 1e6]]]]  # no predicted bar
    rows = page.evaluate("""() => [...document.querySelectorAll('table.points tbody tr')].map(
        tr => [...tr.querySelectorAll('td')].map(td => td.textContent))""")
    assert [r[0] for r in rows] == ["rr", "sw"]
    p99 = rr["read"]["clat_ns"]["percentile"]["99.000000"] / 1000
    assert rows[0][7] == (f"{p99:,.0f} usec" if p99 < 1000 else f"{p99 / 1000:,.2f} msec"), rows[0]
    assert page.locator("h2", has_text="What compare said").count() == 1
    notes = page.locator("ul.notes li").all_inner_texts()
    assert any(n.startswith("sw: not predicted") for n in notes)
    page.close()


def test_a_report_dir_holding_files_is_refused_without_force(tmp_path, capsys) -> None:
    out = tmp_path / "out.json"
    job = tmp_path / "j.fio"
    job.write_text(f"[global]\ndirectory={tmp_path}\nsize=8m\nruntime=1\ntime_based=1\n[rr]\nrw=randread\nbs=4k\n")
    subprocess.run(["fio", "--output-format=json", f"--output={out}", str(job)], check=True, capture_output=True)
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "mine.txt").write_text("a user's file")
    assert main(["compare", PLAN, "--fio", str(out), "--report", str(rep)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["compare", PLAN, "--fio", str(out), "--report", str(rep), "--force"]) == 0
    assert (rep / "report.html").exists() and (rep / "mine.txt").read_text() == "a user's file"
