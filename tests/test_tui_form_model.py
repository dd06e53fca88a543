"""The form <-> plan mapping, without Textual: what the form shows, what it builds, where errors go."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.tui.form_model import FIELDS, compute_form, form_field, plan_from_values, values_from_plan
from app.tui.presets import PRESETS, idema_bytes
from planners.errors import PlanError
from planners.example import TWO_TB_DRIVE, example_pod
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan


def test_example_round_trips_through_the_form() -> None:
    plan = example_pod()
    values = values_from_plan(plan)
    assert set(values) == set(FIELDS)
    assert values["members"] == ""  # three even groups: the form shows "auto"
    assert plan_from_values(plan, values) == plan


def test_idema_sizes_match_real_drives() -> None:
    assert idema_bytes(2000) == TWO_TB_DRIVE
    assert idema_bytes(4000) == 4000787030016
    assert idema_bytes(8000) == 8001563222016
    assert {p.key for p in PRESETS} >= {"hdd2", "nvme3840"}


def test_auto_members_follow_the_disk_count() -> None:
    plan = example_pod()
    bigger = plan_from_values(plan, {**values_from_plan(plan), "count": "60"})
    assert [g.members for g in bigger.groups] == [20, 20, 20]
    assert [g.name for g in bigger.groups] == ["md0", "md1", "md2"]


def test_what_the_form_cannot_show_is_kept() -> None:
    plan = Plan(
        name="mixed",
        disks=[
            DiskSet(count=4, size="4TB"),
            DiskSet(count=4, size="8TB"),
            DiskSet(count=2, size="1TB", rotational=False),
        ],
        groups=[MdGroup(name="fast", level=1, members=2), MdGroup(name="big", level=6, members=8)],
        lvm=Lvm(enabled=False),
        filesystem=Filesystem(type="ext4", mount_options=["noatime", "nodiratime"]),
    )
    values = values_from_plan(plan)
    assert plan_from_values(plan, values) == plan
    relabelled = plan_from_values(plan, {**values, "label": "data"})
    assert relabelled.groups == plan.groups and relabelled.disks == plan.disks
    assert relabelled.filesystem.mount_options == ["noatime", "nodiratime"]


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"count": "x"}, "count", "whole number"),
        ({"size": "2XB"}, "size", "unknown unit"),
        ({"chunk": "3K"}, "chunk", "power of two"),
        ({"label": "a b"}, "label", "not allowed"),
        ({"label": "much-too-long-for-xfs"}, "label", "at most 12 characters"),  # XFS's own limit
        ({"mount_point": "srv"}, "mount_point", "not allowed"),
        ({"groups": "1", "spares": "45"}, "members", "no members"),
        ({"members": "16"}, "members", "need 48 disks"),
        ({"extent_size": "4Q"}, "extent_size", "PE size"),
    ],
)
def test_errors_name_the_field_to_highlight(changes: dict[str, str], field: str, words: str) -> None:
    plan = example_pod()
    with pytest.raises(PlanError) as info:
        plan_from_values(plan, {**values_from_plan(plan), **changes})
    assert info.value.field == field
    assert words in info.value.message
    assert not info.value.message.startswith("form:")


def test_an_empty_pe_size_lets_podplan_align_the_extent() -> None:
    plan = example_pod()
    auto = plan_from_values(plan, {**values_from_plan(plan), "extent_size": ""})
    fixed = plan_from_values(plan, {**values_from_plan(plan), "extent_size": "4M"})
    assert (auto.lvm.extent_size, fixed.lvm.extent_size) == (None, 4 * 2**20)
    assert values_from_plan(auto)["extent_size"] == ""
    assert compute_form(plan, values_from_plan(auto))[1].volumes[0].lvm.extent_bytes == 13 * 512 * 1024


def test_impossible_layouts_blame_the_members() -> None:
    plan = example_pod()
    with pytest.raises(PlanError) as info:
        compute_form(plan, {**values_from_plan(plan), "groups": "1", "count": "3"})
    assert (info.value.field, info.value.message) == ("members", "md0: RAID6 needs at least 4 members, got 3")


@pytest.mark.parametrize(
    ("plan_field", "form"),
    [
        ("groups.0.members", "members"),
        ("groups", "members"),
        ("disks.1.size", "size2"),
        ("lvm.stripe_size", "stripe_size"),
        ("filesystem.reserved_percent", "reserved"),
        ("member_bytes", "size"),
        ("", ""),
    ],
)
def test_plan_fields_map_to_form_fields(plan_field: str, form: str) -> None:
    assert form_field(plan_field) == form


@settings(max_examples=60, deadline=None)
@given(
    groups=st.integers(1, 4),
    per_group=st.integers(4, 16),
    spares=st.integers(0, 2),
    level=st.sampled_from([0, 1, 5, 6, 10]),
    chunk=st.sampled_from([None, 64 * 1024, 256 * 1024, 1024 * 1024]),
    lvm=st.booleans(),
    striped=st.booleans(),
    fs=st.sampled_from(["xfs", "ext4", "ext3"]),
    extra=st.integers(0, 3),
)
def test_any_form_shaped_plan_round_trips(groups, per_group, spares, level, chunk, lvm, striped, fs, extra) -> None:
    plan = Plan(
        disks=[DiskSet(count=groups * (per_group + spares) + extra, size=TWO_TB_DRIVE)],
        groups=[
            MdGroup(name=f"md{i}", level=level, members=per_group, spares=spares, chunk=None if level == 1 else chunk)
            for i in range(groups)
        ],
        lvm=Lvm(enabled=lvm, mode="striped" if striped and lvm else "linear"),
        filesystem=Filesystem(type=fs),
    )
    values = values_from_plan(plan)
    assert (values["members"] == "") == (extra == 0)  # auto only where the groups use every disk
    assert plan_from_values(plan, values) == plan


def test_a_changed_disk_drops_the_old_model_text():
    from planners.example import example_pod

    base = example_pod()
    assert base.disks[0].model

    def edited(**changes: object) -> Plan:
        return plan_from_values(base, {**values_from_plan(base), **changes})

    assert edited(size="18TB", preset="").disks[0].model == ""
    assert edited(count="30").disks[0].model == base.disks[0].model


@pytest.mark.parametrize(
    "field,typed,said",
    [
        ("count", "4548", "Disk count must be from 1 to 1024, not 4548."),
        ("members", "2000", "Group members must be from 1 to 384, not 2000."),
        ("spares", "65", "Group spares must be from 0 to 64, not 65."),  # members typed: not shared out
        ("reserved", "70", "Filesystem reserved percent must be from 0 to 50, not 70."),
        (
            "label",
            "a" * 20,
            (
                "Ext4 label must be at most 16 characters, not 20 (e2fsprogs: the superblock's s_volume_name, "
                "16 bytes; longer is cut)."
            ),
        ),
    ],
)
def test_a_value_out_of_bounds_is_one_sentence_with_the_range(field, typed, said) -> None:
    """Not pydantic's 'Input should be less than or equal to 1024; groups.0.members: ...'."""
    plan = example_pod().model_copy(update={"filesystem": example_pod().filesystem.model_copy(update={"type": "ext4"})})
    with pytest.raises(PlanError) as caught:
        compute_form(plan, {**values_from_plan(plan), "members": "13", field: typed})
    assert (caught.value.field, caught.value.message) == (field, said)


def test_no_bound_the_form_can_reach_answers_in_pydantics_words() -> None:
    plan = example_pod().model_copy(update={"filesystem": example_pod().filesystem.model_copy(update={"type": "ext4"})})
    shown = values_from_plan(plan)
    said = []
    for field in (
        "count",
        "count2",
        "groups",
        "members",
        "spares",
        "chunk",
        "extent_size",
        "reserved",
        "label",
        "mount_point",
    ):  # every field typed into, but the disk sizes (no upper bound)
        for typed in ("0", "-1", "70", "100000", "9" * 12, "x" * 40, "4TB" * 10):
            extra = {"size2": "4TB"} if field == "count2" else {}
            try:
                compute_form(plan, {**shown, **extra, field: typed})
            except PlanError as exc:
                said.append((field, typed, exc.message))
    assert said and not [s for s in said if "should" in s[2] or "Input" in s[2]], said


def test_striped_lvm_over_one_array_computes_with_the_stripe_size_left_empty() -> None:
    base = example_pod()
    values = {**values_from_plan(base), "groups": "1", "members": "", "lvm_mode": "striped", "stripe_size": ""}
    plan, result = compute_form(base, values)
    assert plan.lvm.mode == "striped" and result.volumes[0].alignment.lv_stripes == 1
