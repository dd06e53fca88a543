"""Plans written down from flags alone: a name, a saved plan file, a bitmap cleared or changed."""

import json

import pytest

from app.cli.main import main
from app.shared.planfile import load_plan

PLAN_WITH_BITMAP_CHUNK = """
name = "bm"
[[disks]]
count = 4
size = "1TB"
[[groups]]
name = "md0"
level = 5
members = 4
bitmap_chunk = "64M"
"""


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def plan_json(capsys, argv):
    code, out, err = run(capsys, ["plan", "--json", *argv])
    assert code in (0, 1), err
    return json.loads(out)["plan"]


def test_name_names_the_plan_its_label_and_mount_point(capsys):
    plan = plan_json(capsys, ["--name", "web1", "--disks", "4", "--level", "10"])
    assert plan["name"] == "web1"
    assert plan["filesystem"]["label"] == "web1" and plan["filesystem"]["mount_point"] == "/srv/web1"


def test_name_keeps_a_label_and_mount_point_given(capsys):
    plan = plan_json(capsys, ["--name", "web1", "--label", "data", "--mount-point", "/data"])
    assert plan["name"] == "web1"
    assert plan["filesystem"]["label"] == "data" and plan["filesystem"]["mount_point"] == "/data"


def test_a_name_too_long_for_the_label_leaves_it_unlabelled_and_says_so(capsys):
    code, out, err = run(capsys, ["plan", "--json", "--name", "thirteenchars"])
    plan = json.loads(out)["plan"]
    assert code in (0, 1) and plan["name"] == "thirteenchars" and plan["filesystem"].get("label", "") == ""
    assert "no label" in err and "12 characters" in err


@pytest.mark.parametrize("name", ["a b", "-x", "x;rm", "a" * 300, ""])
def test_a_bad_name_is_one_line(capsys, name):
    code, out, err = run(capsys, ["plan", f"--name={name}"])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "plan name" in err.lower()


def test_save_round_trips_and_refuses_an_existing_file(capsys, tmp_path):
    target = tmp_path / "web1.toml"
    argv = ["plan", "--json", "--name", "web1", "--disks", "6", "--level", "6", "--chunk", "256K", "--fs", "ext4"]
    code, out, err = run(capsys, [*argv, "--save", str(target)])
    assert code in (0, 1) and "wrote" in err
    assert load_plan(target).model_dump(mode="json") == json.loads(out)["plan"]
    # The saved file is the plan: loading it and showing it again gives the same plan, field for field.
    code, again, err = run(capsys, ["plan", "--json", str(target)])
    assert json.loads(again)["plan"] == json.loads(out)["plan"]
    before = target.read_text()
    code, out, err = run(capsys, [*argv, "--name", "other", "--save", str(target)])
    assert code == 2 and "already exists" in err and "--force" in err and target.read_text() == before
    code, out, err = run(capsys, [*argv, "--name", "other", "--save", str(target), "--force"])
    assert code in (0, 1) and load_plan(target).name == "other"


def test_save_never_writes_through_a_link(capsys, tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "link.toml").symlink_to(victim)
    code, _, _ = run(capsys, ["plan", "--save", str(tmp_path / "link.toml")])
    assert code == 2 and victim.read_text() == "keep"


@pytest.fixture
def bitmap_plan(tmp_path):
    path = tmp_path / "bm.toml"
    path.write_text(PLAN_WITH_BITMAP_CHUNK)
    return str(path)


@pytest.mark.parametrize(
    ("flags", "bitmap", "chunk"),
    [
        ([], "internal", 64 << 20),
        (["--bitmap", "none"], "none", None),
        (["--bitmap", "internal"], "internal", None),
        (["--bitmap", "128M"], "internal", 128 << 20),
        (["--bitmap-chunk", "32M"], "internal", 32 << 20),
        (["--level", "6", "--bitmap", "none"], "none", None),
    ],
)
def test_bitmap_flags_clear_or_change_a_plan_files_chunk(capsys, bitmap_plan, flags, bitmap, chunk):
    (group,) = plan_json(capsys, [bitmap_plan, *flags])["groups"]
    assert group["bitmap"] == bitmap and group.get("bitmap_chunk") == chunk


def test_level_0_from_a_plan_with_a_bitmap_chunk(capsys, bitmap_plan):
    """md takes no bitmap on RAID0: comparing RAID0 with the file's RAID5 needs no edited file."""
    (group,) = plan_json(capsys, [bitmap_plan, "--level", "0"])["groups"]
    assert group["level"] == 0 and group["bitmap_chunk"] is None


def test_bitmap_none_reaches_the_script(capsys, bitmap_plan):
    code, out, err = run(capsys, ["script", bitmap_plan, "--bitmap", "none"])
    assert code == 0, err
    create = next(line for line in out.splitlines() if "mdadm --create" in line)
    assert "--bitmap=none" in create and "--bitmap-chunk" not in create


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--bitmap", "none", "--bitmap-chunk", "4M"], "--bitmap none takes no --bitmap-chunk"),
        (["--bitmap", "64M", "--bitmap-chunk", "4M"], "not both"),
        (["--bitmap", "lots"], "--bitmap 'lots' is not a size"),
    ],
)
def test_bad_bitmap_flags_are_one_line(capsys, bitmap_plan, flags, says):
    code, _, err = run(capsys, ["plan", bitmap_plan, *flags])
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1
