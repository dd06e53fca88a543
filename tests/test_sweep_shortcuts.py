"""The sweep's shortcuts give the figures the long way gives: compute without findings, the leading
term without the prediction's range, the loss odds shared by layouts alike below LVM, and a striped
LV's alike arrays' terms worked out once."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.shared.planfile import load_plan
from planners.compute import compute
from planners.cost import plan_cost
from planners.errors import PlanError
from planners.example import EXAMPLES
from planners.layouts.sweep import btrfs_layouts, layout_plan, layouts, sweep
from planners.models import DiskSet, MdGroup, Plan
from planners.perf.context import build_ctx
from planners.perf.predict import leading_ctx, predict_ctx
from planners.perf.random_io import random_terms
from planners.perf.terms import _sequential
from planners.perf.workloads import PRESETS, for_plan
from planners.reliability.formulas import AFR_RANGE
from planners.reliability.loss import loss_ctx, loss_key, reliability_ctx, standing

PRICED = Path(__file__).parent / "fixtures" / "plans" / "pod45-priced.toml"


def plans() -> list[Plan]:
    small = Plan(name="s", disks=[DiskSet(count=14, size=4_000_787_030_016)], groups=[MdGroup(members=14)])
    return [small, EXAMPLES["btrfs6"][1](), EXAMPLES["luns8"][1](), load_plan(PRICED)]


def each_layout(plan: Plan) -> list[tuple[str, Plan]]:
    raw = plan.lvm.model_copy(update={"enabled": False, "mode": "linear", "volumes": []})
    out = []
    for label, groups, lvm, fs in [(a, g, lvm, None) for a, g, lvm in layouts(plan)] + [
        (a, [], raw, fs) for a, fs in btrfs_layouts(plan)
    ]:
        try:
            p = layout_plan(plan, groups, lvm, fs)
            compute(p)
        except PlanError:
            continue
        out.append((label, p))
    return out


@pytest.mark.parametrize("plan", plans(), ids=lambda p: p.name)
def test_every_row_has_the_figures_of_its_plan_computed_predicted_and_scored_whole(plan: Plan) -> None:
    w = PRESETS["rand-write-4k"]
    rows = {r.label: r for r in sweep(plan, w).rows}
    for label, p in each_layout(plan):
        result = compute(p)
        lean = compute(p, findings=False)
        assert lean == result.model_copy(update={"findings": [], "capacity": []})
        ctx = build_ctx(p, result)
        (pred,) = predict_ctx(ctx, result.volumes[0].alignment.top_io_opt_bytes, [w])
        rel = reliability_ctx(ctx)
        row = rows[label]
        assert (row.mb_s, row.iops, row.binding) == (pred.mb_s, pred.iops, pred.binding)
        assert row.loss == rel.loss and row.rebuild_hours == max(standing(g).rebuild_hours for g in rel.groups)
        assert row.cost == plan_cost(p, result.usable_bytes, rel.afr_nominal, AFR_RANGE)
        assert row.usable_bytes == result.usable_bytes and row.plan == p


@pytest.mark.parametrize("plan", plans()[:2], ids=lambda p: p.name)
def test_layouts_alike_in_what_the_loss_model_reads_have_the_same_odds(plan: Plan) -> None:
    # The sweep reuses one layout's odds for the next when their loss_key is equal (LVM linear, then
    # striped, over the same arrays): everything else of the context must leave the odds alone.
    seen: list[tuple[tuple[object, ...], tuple[object, ...]]] = []  # the hardware is not hashable
    shared = 0
    for _, p in each_layout(plan):
        ctx = build_ctx(p, compute(p))
        figures = loss_ctx(ctx)
        alike = [f for key, f in seen if key == loss_key(ctx)]
        shared += bool(alike)
        assert all(f == figures for f in alike)
        seen.append((loss_key(ctx), figures))
        other = replace(ctx, volume_groups=ctx.volume_groups[:1], lvm_mode="none", volume_bytes=1, readahead=4096)
        assert loss_ctx(replace(other, fs_type="ext4", kernel="5.10", lv_stripe=0)) == figures
    assert shared


@pytest.mark.parametrize("workload", ["seq-read", "seq-write", "rand-read-4k", "rand-write-4k", "bonnie-write"])
def test_an_arrays_own_terms_read_neither_its_name_nor_its_members_places(workload: str) -> None:
    # simple_terms works out a striped LV's arrays once when they differ only in these.
    plan = Plan(
        name="s",
        disks=[DiskSet(count=24, size=4_000_787_030_016)],
        groups=[MdGroup(name=f"md{i}", level=6, members=12) for i in range(2)],
        lvm={"enabled": True, "mode": "striped"},
    )
    result = compute(plan)
    ctx = build_ctx(plan, result)
    w = for_plan(PRESETS[workload], result.volumes[0].alignment.top_io_opt_bytes, stripes=2, disks=24)
    first, second = ctx.groups
    assert first.members != second.members
    moved = replace(first, name=second.name, members=second.members)
    for degraded in (0, 1):
        if w.is_random:
            same = (random_terms(ctx, g, w, 0.5, degraded) for g in (first, moved))
        else:
            same = (_sequential(ctx, g, w, 0.5, degraded) for g in (first, moved))
        assert next(same) == next(same)


def test_leading_term_is_the_predictions_for_every_preset() -> None:
    plan = EXAMPLES["pod45"][1]()
    result = compute(plan)
    ctx = build_ctx(plan, result)
    stripe = result.volumes[0].alignment.top_io_opt_bytes
    for w in PRESETS.values():
        (pred,) = predict_ctx(ctx, stripe, [w])
        assert leading_ctx(ctx, stripe, w) == (pred.mb_s, pred.iops, pred.binding)
