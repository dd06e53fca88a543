"""[tools] versions are read when the plan is: one podplan cannot read, or one outside the versions
its figures follow, is one line naming the field and the versions it knows, with exit status 2."""

from __future__ import annotations

import pytest

from app.cli.main import main
from app.shared.planfile import plan_to_toml
from planners.example import example_pod
from planners.versions import ACCEPTED_TEXT, ToolVersions

TOOLS = tuple(ACCEPTED_TEXT)


def _plan_file(tmp_path, tool: str, text: str):  # type: ignore[no-untyped-def]
    toml = plan_to_toml(example_pod()).replace(
        f'{tool} = "{getattr(ToolVersions(), tool)}"', f"{tool} = {text!r}".replace("'", '"')
    )
    assert f"{tool} = " in toml
    path = tmp_path / "pod.toml"
    path.write_text(toml)
    return path


@pytest.mark.parametrize("command", ["plan", "script", "predict", "sweep"])
@pytest.mark.parametrize("text", ["abc", "", "1.0", "99.0", "6.1;reboot"])
@pytest.mark.parametrize("tool", TOOLS)
def test_a_version_podplan_cannot_follow_is_one_line(capsys, tmp_path, tool, text, command) -> None:  # type: ignore[no-untyped-def]
    code = main([command, str(_plan_file(tmp_path, tool, text)), *(["--no-host-cpu"] if command == "predict" else [])])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    low, high = ACCEPTED_TEXT[tool]
    assert f"tools.{tool}: " in err and f" {low} up to (not including) {high}" in err, err


@pytest.mark.parametrize("tool", TOOLS)
def test_a_newline_never_reaches_the_script(capsys, tmp_path, tool) -> None:  # type: ignore[no-untyped-def]
    """The build script prints the versions: a parseable one followed by a command is refused."""
    path = tmp_path / "pod.toml"
    path.write_text(_plan_file(tmp_path, tool, "x").read_text().replace(f'{tool} = "x"', f'{tool} = "4.2\\nreboot"'))
    assert main(["script", str(path)]) == 2
    assert "reboot" not in capsys.readouterr().out


def test_real_spellings_and_the_bounds_are_read() -> None:
    ToolVersions(kernel="6.1.0-18-amd64", mdadm="v4.2", lvm2="2.03.16(2)", e2fsprogs="1.47.0", xfsprogs="6.1.0")
    for tool, (low, _) in ACCEPTED_TEXT.items():
        assert getattr(ToolVersions(**{tool: low}), tool) == low
    ToolVersions(kernel="2.6.32", mdadm="4.4", lvm2="2.02.187", e2fsprogs="1.47.3", xfsprogs="6.4.0")
    for tool, (_, high) in ACCEPTED_TEXT.items():
        with pytest.raises(ValueError, match=f"tools.{tool}|not modelled"):
            ToolVersions(**{tool: high})


def test_a_plan_names_only_the_tools_its_stack_uses():
    from planners.assumed import assumed_tools
    from planners.example import EXAMPLES

    said = {name: assumed_tools(EXAMPLES[name][1]()) for name in ("pod45", "luns8", "scratch", "btrfs6", "btrfsmd")}
    assert said == {
        "pod45": "mdadm 4.2, lvm2 2.03.16, xfsprogs 6.1.0, Linux 6.1",
        "luns8": "lvm2 2.03.16, e2fsprogs 1.47.0, Linux 6.1",
        "scratch": "e2fsprogs 1.47.0, Linux 6.1",
        "btrfs6": "btrfs-progs 6.2, Linux 6.1",
        "btrfsmd": "mdadm 4.2, btrfs-progs 6.2, Linux 6.1",
    }
