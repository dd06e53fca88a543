"""Plan files round-trip exactly, and saving is atomic and never overwrites by surprise."""

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.shared.planfile import load_plan, plan_from_toml, plan_to_toml, save_plan, write_script
from planners.errors import PlanError
from planners.example import example_pod
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan, Tuning

pow2 = st.integers(min_value=12, max_value=24).map(lambda e: 2**e)


@st.composite
def plans(draw):
    nsets = draw(st.integers(1, 3))
    disks = [
        DiskSet(
            count=draw(st.integers(1, 20)),
            size=draw(st.integers(1_100, 20_000_000)) * 4096,
            logical_sector=draw(st.sampled_from([512, 4096])),
            physical_sector=4096,
            rotational=draw(st.booleans()),
            model=draw(st.sampled_from(["", "WD Red 4TB", "ST2000DM001"])),
        )
        for _ in range(nsets)
    ]
    total = sum(d.count for d in disks)
    ngroups = draw(st.integers(1, min(3, total)))
    per = total // ngroups
    groups = [
        MdGroup(
            name=f"md{i}",
            level=draw(st.sampled_from([0, 5, 6, 10])),
            members=max(1, per - 1),
            spares=1 if per > 1 else 0,
            chunk=draw(st.one_of(st.none(), pow2)),
            metadata=draw(st.sampled_from(["1.0", "1.1", "1.2"])),
            bitmap=draw(st.sampled_from(["internal", "none"])),
        )
        for i in range(ngroups)
    ]
    return Plan(
        name=draw(st.sampled_from(["pod", "nas-12", "db.1"])),
        disks=disks,
        groups=groups,
        lvm=Lvm(enabled=draw(st.booleans()), extent_size=draw(pow2.filter(lambda n: n >= 65536)), mode="linear"),
        filesystem=Filesystem(
            type=draw(st.sampled_from(["xfs", "ext4", "ext3"])),
            reserved_percent=draw(st.sampled_from([0.0, 1.0, 5.0, 2.5])),
            mount_options=draw(st.sampled_from([["noatime"], [], ["noatime", "nodiratime"]])),
        ),
        tuning=Tuning(
            readahead=draw(st.one_of(st.none(), pow2)),
            stripe_cache_size=draw(st.one_of(st.none(), st.integers(17, 32768))),
        ),
    )


@settings(max_examples=200, deadline=None)
@given(plans())
def test_toml_round_trip_is_exact(plan):
    text = plan_to_toml(plan)
    again = plan_from_toml(text)
    assert again == plan
    assert plan_to_toml(again) == text


def test_example_round_trips():
    plan = example_pod()
    assert plan_from_toml(plan_to_toml(plan)) == plan


def test_sizes_accept_every_spelling():
    text = """
[[disks]]
count = 4
size = "%s"
[[groups]]
level = 5
members = 4
chunk = "%s"
"""
    for size, chunk, want_size, want_chunk in [
        ("2TB", "256K", 2 * 10**12, 262144),
        ("1.8TiB", "512KiB", 18 * 1024**4 // 10 // 4096 * 4096, 524288),
        ("2000398934016", "65536", 2000398934016, 65536),
    ]:
        plan = plan_from_toml(text % (size, chunk))
        assert plan.disks[0].size == want_size
        assert plan.groups[0].chunk == want_chunk


def test_save_is_atomic_and_refuses_overwrite(tmp_path):
    path = tmp_path / "p.toml"
    save_plan(example_pod(), path)
    assert load_plan(path) == example_pod()
    with pytest.raises(PlanError, match="already exists"):
        save_plan(example_pod(), path)
    save_plan(example_pod().model_copy(update={"name": "other"}), path, overwrite=True)
    assert load_plan(path).name == "other"
    assert [p.name for p in tmp_path.iterdir()] == ["p.toml"]  # no temp file left behind


def test_an_atomic_save_gives_the_mode_a_new_file_gets_or_keeps_the_old_one(tmp_path):
    old = os.umask(0o027)
    try:
        save_plan(example_pod(), tmp_path / "p.toml")
        write_script(tmp_path / "b.sh", "#!/bin/sh\n", False)
        assert oct((tmp_path / "p.toml").stat().st_mode & 0o7777) == oct(0o640)
        assert oct((tmp_path / "b.sh").stat().st_mode & 0o7777) == oct(0o750)
        (tmp_path / "p.toml").chmod(0o664)  # a file shared with a group keeps that when saved over
        save_plan(example_pod(), tmp_path / "p.toml", overwrite=True)
        assert oct((tmp_path / "p.toml").stat().st_mode & 0o7777) == oct(0o664)
        (tmp_path / "b.sh").chmod(0o644)  # a script saved over becomes runnable by whoever could read it
        write_script(tmp_path / "b.sh", "#!/bin/sh\n", True)
        assert oct((tmp_path / "b.sh").stat().st_mode & 0o7777) == oct(0o755)
    finally:
        os.umask(old)


def test_a_round_disk_size_comes_back_as_it_was_typed():
    from planners.units import parse_size

    for typed, back in (("18TB", "18TB"), ("18T", "18TiB"), ("500GB", "500GB"), ("2000398934016", "2000398934016")):
        plan = example_pod()
        data = plan.model_dump(mode="json")
        data["disks"][0]["size"] = typed
        text = plan_to_toml(Plan.model_validate(data))
        assert f'size = "{back}"' in text or f"size = {back}" in text
        assert plan_from_toml(text).disks[0].size == parse_size(typed)


def test_every_problem_of_a_file_is_named(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        plan_to_toml(example_pod())
        .replace("count = 45", "count = 45\ncolour = 1\nshade = 2")
        .replace("level = 6", "level = 6\nflavour = 3", 1)
    )
    with pytest.raises(PlanError) as caught:
        load_plan(bad)
    message = caught.value.message
    assert "more problem" not in message and "\n" not in message
    for name in ("colour", "shade", "flavour"):
        assert f"{name}: unknown setting" in message


@pytest.mark.parametrize(
    ("change", "field"), [({"name": "a b"}, "name"), ({"groups": [{"level": 6, "members": 50}]}, "groups.members")]
)
def test_the_plans_own_checks_name_their_field(change, field):
    """Checks of the plan as a whole have no location in pydantic's error: the PlanError says which field."""
    from app.shared.planfile import plan_from_data

    with pytest.raises(PlanError) as caught:
        plan_from_data({**example_pod().model_dump(mode="json"), **change})
    assert caught.value.field == field
