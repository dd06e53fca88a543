""" "No stripe" as a plain choice: the plan key, the flag and the form say it, and mkfs is told it."""

from __future__ import annotations

import pytest

from app.cli.flags import add_plan_flags, load_plan_file, plan_from_args
from app.tui.form_model import plan_from_values, values_from_plan
from planners.compute import compute
from planners.errors import PlanError
from planners.example import example_pod
from planners.models import Filesystem
from planners.script.build import build_script


def _ext4(**fs: object):
    plan = example_pod()
    return plan.model_copy(update={"filesystem": Filesystem(type="ext4", **fs)})  # type: ignore[arg-type]


def test_no_stripe_over_md_is_written_out_and_said_as_a_choice():
    plan = _ext4(stripe_unit=0, stripe_width=0)
    result = compute(plan)
    a = result.volumes[0].alignment
    assert (a.fs_stripe_unit_bytes, a.fs_stripe_width_units, a.ext4_stride_blocks) == (0, 0, None)
    assert a.md_io_opt_bytes  # the md below does stripe: mke2fs would adopt it unless told
    script = build_script(plan, result)
    (line,) = [x for x in script.splitlines() if x.startswith("run mke2fs")]
    assert " -E stride=0,stripe_width=0 " in line
    assert "# No stripe (-E stride=0,stripe_width=0): the plan asks for none" in script
    notes = [f for f in result.findings if f.field == "filesystem.stripe_unit"]
    assert [f.severity for f in notes] == ["info"] and "No filesystem stripe, as the plan asks" in notes[0].message
    assert not any("aligned to the wrong boundary" in f.message for f in notes)
    xfs = plan.model_copy(update={"filesystem": Filesystem(type="xfs", stripe_unit=0, stripe_width=0)})
    assert "-d noalign" in build_script(xfs, compute(xfs))


def test_a_stripe_needs_a_width_and_no_stripe_ignores_one():
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="stripe_unit = 0 for no stripe"):
        Filesystem(type="ext4", stripe_unit=65536, stripe_width=0)
    # A width written beside no stripe (the only way before 0 was taken) changes nothing.
    a = compute(_ext4(stripe_unit=0, stripe_width=1)).volumes[0].alignment
    assert (a.fs_stripe_unit_bytes, a.fs_stripe_width_units) == (0, 0)


def _flags(*argv: str):
    import argparse

    p = argparse.ArgumentParser()
    add_plan_flags(p)
    args = p.parse_args(list(argv))
    return plan_from_args(args, load_plan_file(args.plan_file) if args.plan_file else None)


def test_the_flag_sets_and_clears_no_stripe(tmp_path):
    from app.shared.planfile import plan_to_toml

    fs = _flags("--fs", "ext4", "--no-stripe").filesystem
    assert (fs.stripe_unit, fs.stripe_width) == (0, 0)
    path = tmp_path / "none.toml"
    path.write_text(plan_to_toml(_ext4(stripe_unit=0, stripe_width=0)))
    fs = _flags(str(path), "--stripe").filesystem
    assert (fs.stripe_unit, fs.stripe_width) == (None, None)
    with pytest.raises(PlanError, match="btrfs takes no stripe unit"):
        _flags("--fs", "btrfs", "--no-stripe")


def test_the_form_ticks_and_unticks_no_stripe():
    plan = _ext4()
    values = values_from_plan(plan)
    assert values["no_stripe"] is False
    ticked = plan_from_values(plan, {**values, "no_stripe": True})
    assert (ticked.filesystem.stripe_unit, ticked.filesystem.stripe_width) == (0, 0)
    assert values_from_plan(ticked)["no_stripe"] is True
    assert plan_from_values(ticked, values_from_plan(ticked)) == ticked
    unticked = plan_from_values(ticked, {**values_from_plan(ticked), "no_stripe": False})
    assert unticked.filesystem.stripe_unit is None
    # A stripe unit the plan file gives is kept while the box stays unticked; btrfs takes none.
    given = _ext4(stripe_unit=256 * 1024, stripe_width=4)
    assert plan_from_values(given, values_from_plan(given)).filesystem.stripe_unit == 256 * 1024
    btrfs = plan_from_values(ticked, {**values_from_plan(ticked), "fs": "btrfs", "reserved": "0"})
    assert btrfs.filesystem.stripe_unit is None
