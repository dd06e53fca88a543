"""Cost and power (planners.cost): the figures by hand for the priced example pod, in plan, predict, sweep and
the HTML page's table; a plan without prices shows nothing new; prices given for some disks only are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli.main import main
from app.shared.cost_view import report_cost
from app.shared.planfile import load_plan, plan_from_toml, plan_to_toml
from app.usecases.plan import PlanRequest, plan_outputs
from app.usecases.sweep import CpuSource, SweepRequest, sweep_layouts
from planners.errors import PlanError
from planners.example import example_luns, example_pod
from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Hardware
from planners.hardware.prices import PodCost

PRICED = str(Path(__file__).parent / "fixtures" / "plans" / "pod45-priced.toml")
# The example pod's headline usable bytes (df available; tests/test_xfs_df.py and the chain tests hold
# the arithmetic to the real tools): every per-TiB figure below divides by it.
USABLE = 77_464_201_367_552
TOTAL = 45 * 120.0 + 1370.0 + 553.0 + 544.0  # disks, chassis, controllers, other: 7,867.00
TIB = USABLE / 2**40
AFR = 0.02  # the hdd7200 class's, which the loss model uses for these disks


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_json_has_every_figure_as_the_arithmetic_gives_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, ["plan", PRICED, "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["result"]["usable_bytes"] == USABLE
    c = doc["cost"]
    assert c["currency"] == "USD" and c["disks"] == 45
    assert c["disks_price"] == 5400.0 and c["pod_parts"] == {"chassis": 1370.0, "controllers": 553.0, "other": 544.0}
    assert c["pod_price"] == 2467.0 and c["total"] == TOTAL == 7867.0
    assert c["per_usable_tib"] == pytest.approx(7867.0 / TIB, rel=1e-12)
    assert c["per_usable_tb"] == pytest.approx(7867.0 / (USABLE / 1e12), rel=1e-12)
    assert round(c["per_usable_tib"], 2) == 111.66 and round(c["per_usable_tb"], 2) == 101.56
    assert c["watts_idle"] == pytest.approx(45 * 8.0) and c["watts_active"] == pytest.approx(45 * 11.6)
    assert c["watts_idle_per_usable_tib"] == pytest.approx(360.0 / TIB, rel=1e-12)
    assert c["watts_active_per_usable_tib"] == pytest.approx(522.0 / TIB, rel=1e-12)
    assert c["afr"] == AFR == doc_afr(capsys)
    assert c["replacements_per_year"] == pytest.approx(45 * AFR)
    assert c["replacements_per_year_range"] == pytest.approx([45 * 0.01, 45 * 0.04])
    assert c["replacement_cost_per_year"] == pytest.approx(5400.0 * AFR)  # 108.00 a year
    assert c["replacement_cost_per_year_range"] == pytest.approx([54.0, 216.0])
    # The plan as understood keeps its prices: it loads back the same.
    assert doc["plan"]["hardware"]["disk"]["price"] == 120.0 and doc["plan"]["hardware"]["cost"]["currency"] == "USD"
    plan = load_plan(PRICED)
    assert plan_from_toml(plan_to_toml(plan)) == plan


def doc_afr(capsys: pytest.CaptureFixture[str]) -> float:
    """The loss model's own AFR for the plan, as predict --json reports it."""
    code, out, err = run(capsys, ["predict", PRICED, "--no-host-cpu", "--workload", "seq-read", "--json"])
    assert code == 0, err
    afr: float = json.loads(out)["reliability"]["afr_nominal"]
    return afr


def test_plan_text_shows_the_cost_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, ["plan", PRICED])
    assert code == 0, err
    for words in (
        "Cost (USD)",
        "45 disks",
        "5,400.00",
        "7,867.00",
        "per usable TiB",
        "111.66",
        "101.56",
        "360.0 W",
        "5.11 W",
        "522.0 W",
        "7.41 W",
        "disk replacements a year (2.0 % AFR)",
        "0.90",
        "0.45-1.80",
        "108.00",
        "54.00-216.00",
    ):
        assert words in out


def test_predict_prices_each_workloads_speed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, ["predict", PRICED, "--no-host-cpu", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    per = {w["workload"]: w for w in doc["cost"]["workloads"]}
    assert set(per) == {p["workload"] for p in doc["predictions"]}
    for p in doc["predictions"]:
        assert per[p["workload"]]["per_mb_s"] == pytest.approx(TOTAL / p["mb_s"], rel=1e-12)
        assert per[p["workload"]]["per_1000_iops"] == pytest.approx(TOTAL / (p["iops"] / 1000), rel=1e-12)
    code, out, err = run(capsys, ["predict", PRICED, "--no-host-cpu", "--workload", "seq-read"])
    seq = next(p for p in doc["predictions"] if p["workload"] == "seq-read")
    assert "Price of the predicted speed" in out and f"{TOTAL / seq['mb_s']:,.2f}" in out


def test_nothing_new_without_prices_or_watts(capsys: pytest.CaptureFixture[str]) -> None:
    plan = example_pod()
    assert plan_outputs(PlanRequest(plan)).cost is None
    report = plan_outputs(PlanRequest(plan)).report().model_dump_json()
    assert '"cost"' not in report and '"price"' not in report and "watts" not in report
    with_hw = plan.model_copy(update={"hardware": Hardware()})
    assert "price" not in with_hw.model_dump_json() and '"cost"' not in with_hw.model_dump_json()
    code, out, err = run(capsys, ["plan", "--disks", "4", "--disk-size", "2TB", "--level", "5"])
    assert code == 0 and "Cost" not in out and "price" not in out
    code, out, err = run(capsys, ["predict", "--no-host-cpu", "--workload", "seq-read", "--json"])
    assert "cost" not in json.loads(out)
    code, out, err = run(capsys, ["sweep", "--no-host-cpu", "--json", "--disks", "6", "--disk-size", "2TB"])
    assert code == 0, err
    doc = json.loads(out)
    assert "rank" not in doc and all("cost" not in r for r in doc["rows"])
    assert report_cost(plan) is None


def test_watts_alone_give_watts_and_no_price() -> None:
    hw = Hardware(disk=DiskSpec(watts_idle=5.0, watts_active=7.0))
    out = plan_outputs(PlanRequest(example_pod().model_copy(update={"hardware": hw})))
    assert out.cost is not None and out.cost.total is None and out.cost.per_usable_tib is None
    assert out.cost.watts_active == 45 * 7.0 and out.cost.replacement_cost_per_year is None


def test_a_luns_disks_are_counted_and_priced_each() -> None:
    plan = example_luns()
    assert plan.hardware is not None and plan.hardware.disk.lun is not None
    hw = plan.hardware.model_copy(update={"disk": plan.hardware.disk.model_copy(update={"price": 100.0})})
    cost = plan_outputs(PlanRequest(plan.model_copy(update={"hardware": hw}))).cost
    assert cost is not None and cost.disks == 8 * 7 and cost.total == 8 * 7 * 100.0


@pytest.mark.parametrize(
    ("hardware", "words"),
    [
        (
            Hardware(disk=DiskSpec(price=100.0), models={"B": DiskSpec()}),
            "disk model 'B' has no price while others have one",
        ),
        (Hardware(cost=PodCost(chassis=900.0)), "no disk model has a price"),
    ],
)
def test_prices_for_some_disks_only_are_refused(hardware: Hardware, words: str) -> None:
    base = example_pod()
    disks = [
        base.disks[0].model_copy(update={"count": 40, "model": "A"}),
        base.disks[0].model_copy(update={"count": 5, "model": "B"}),
    ]
    plan = base.model_copy(update={"disks": disks, "hardware": hardware})
    with pytest.raises(PlanError, match=words):
        plan_outputs(PlanRequest(plan))


def test_bad_cost_input_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = Path(PRICED).read_text()
    for bad, words in (
        (text.replace('currency = "USD"', 'currency = "US\\nD"'), "control character"),
        (text.replace("price = 120.0", "price = -1.0"), "price"),
        (text.replace("watts_idle = 8.0", "watts_idle = nan"), "watts_idle"),
    ):
        f = tmp_path / "bad.toml"
        f.write_text(bad)
        code, out, err = run(capsys, ["plan", str(f)])
        assert code != 0 and words in err and "Traceback" not in err and out == ""
    code, out, err = run(capsys, ["sweep", "--rank", "cost", "--disks", "6", "--disk-size", "2TB", "--no-host-cpu"])
    assert code != 0 and "ranking by cost needs prices" in err and "Traceback" not in err


def test_sweep_ranks_by_price_per_usable_tib_within_the_loss_limits() -> None:
    out = sweep_layouts(SweepRequest(load_plan(PRICED), cpu=CpuSource(no_host_cpu=True), rank="cost"))
    rows = out.sweep.rows
    safe = [r for r in rows if not r.risky]
    assert out.rank == "cost" and out.priced and rows[: len(safe)] == safe
    prices = [r.cost.per_usable_tib for r in safe if r.cost and r.cost.per_usable_tib is not None]
    assert len(prices) == len(safe) and prices == sorted(prices)
    for r in rows:
        # Every layout buys the same 45 disks and pod: spares and groups change only what is usable.
        assert r.cost is not None and r.cost.total == TOTAL
        assert r.cost.per_usable_tib == pytest.approx(TOTAL / (r.usable_bytes / 2**40), rel=1e-12)
    by = {r.label: r for r in rows}
    three, spare = by["3x RAID6 15 512K linear"], by["3x RAID6 14+1 512K linear"]
    assert three.cost and spare.cost and spare.cost.per_usable_tib and three.cost.per_usable_tib
    assert spare.cost.per_usable_tib > three.cost.per_usable_tib  # a spare a group: less usable, dearer per TiB
    front = sweep_layouts(SweepRequest(load_plan(PRICED), cpu=CpuSource(no_host_cpu=True))).sweep.rows
    assert sorted(r.label for r in front) == sorted(r.label for r in rows) and front != rows


def test_sweep_cli_shows_and_ranks_by_cost(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, ["sweep", PRICED, "--rank", "cost", "--no-host-cpu", "--top", "3"])
    assert code == 0, err
    assert "price/TiB" in out and "W/TiB" in out and "ranked by price per usable TiB" in out
    code, out, err = run(capsys, ["sweep", PRICED, "--rank", "cost", "--no-host-cpu", "--json"])
    doc = json.loads(out)
    assert doc["rank"] == "cost" and doc["rows"][0]["cost"]["per_usable_tib"] == min(
        r["cost"]["per_usable_tib"] for r in doc["rows"] if not r["risky"]
    )


def test_the_report_has_the_cost_table() -> None:
    table = report_cost(load_plan(PRICED))
    assert table is not None and table["title"] == "Cost (USD)"
    assert ["total", "7,867.00"] in table["rows"] and ["per usable TiB", "111.66"] in table["rows"]


@pytest.mark.parametrize("columns", [80, 100])
def test_every_cost_figure_stays_whole_on_a_narrow_terminal(columns: int) -> None:
    from tests.test_cli_width import assert_whole, on_a_terminal

    plan = on_a_terminal(["plan", PRICED], columns)
    assert_whole(plan, {"7,867.00", "111.66", "101.56", "522.0 W", "7.41 W", "54.00-216.00"}, columns)
    text = on_a_terminal(["sweep", PRICED, "--rank", "cost", "--no-host-cpu", "--top", "4"], columns)
    # The cheapest per usable TiB: one RAID6 of 44 and a spare; the columns that did not fit are named.
    assert_whole(text, {"RAID6 44+1 64K", "103.69", "6.88", "111.66", "7.41", "1/9.2k-1/574"}, columns)
    assert "limited by: on a wider terminal, or in --json" in text or "limited by, rebuild" in text
