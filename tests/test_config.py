"""The config file (app/shared/config.py, `podplan config`): this machine's defaults fill what neither a
plan file nor a flag states; a plan file's own values win; a bad file is one line naming file and key;
the TUI keeps its theme there."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from app.cli.main import main
from app.shared.config import Config, config_path, read_config, save_setting, template
from planners.errors import ConfigError, PlanError
from planners.example import example_pod

pytestmark = pytest.mark.usefixtures("config_home")


@pytest.fixture
def config_home(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "podplan"


def write(text: str) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def plan_json(capsys, *argv: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    status, out, err = run(capsys, "plan", "--json", *argv)
    assert status == 0, err
    doc: dict = json.loads(out)  # type: ignore[type-arg]
    return doc["plan"]


def test_the_path_is_the_xdg_config_directory(config_home):  # type: ignore[no-untyped-def]
    assert config_path() == config_home / "config.toml"


def test_config_shows_the_path_and_every_default_without_a_file(capsys, config_home):  # type: ignore[no-untyped-def]
    status, out, _ = run(capsys, "config")
    assert status == 0
    assert f"config file: {config_home / 'config.toml'} (none" in out
    assert f"keymap file: {config_home / 'keys.toml'}" in out
    assert "units            decimal" in out and "tools.kernel     6.1" in out
    assert "(default)" in out and str(config_home / "config.toml") + ")" not in out


def test_config_shows_the_file_and_where_each_value_comes_from(capsys, config_home):  # type: ignore[no-untyped-def]
    path = write('units = "binary"  # TiB first\n[tools]\nkernel = "6.6"\n')
    status, out, _ = run(capsys, "config")
    assert status == 0
    assert 'units = "binary"  # TiB first' in out  # the file's text
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert lines["units"].split()[1] == "binary" and lines["units"].endswith(f"({path})")
    assert lines["tools.kernel"].split()[1] == "6.6" and lines["tools.kernel"].endswith(f"({path})")
    assert lines["theme"].endswith("(default)") and lines["tools.mdadm"].endswith("(default)")


def test_init_writes_the_template_and_refuses_to_overwrite_it(capsys, config_home):  # type: ignore[no-untyped-def]
    assert run(capsys, "config", "--init")[0] == 0
    assert config_path().read_text() == template()
    assert read_config() == Config()  # every key commented out: every default
    config_path().write_text("theme = 'textual-light'\n")
    status, _, err = run(capsys, "config", "--init")
    assert status == 2 and err.strip() == f"podplan: {config_path()}: already exists (pass --force to overwrite)"
    assert run(capsys, "config", "--init", "--force")[0] == 0
    assert config_path().read_text() == template()


def test_every_line_of_the_template_is_a_valid_setting_once_uncommented():  # type: ignore[no-untyped-def]
    text = "\n".join(
        line[2:] if line.startswith("# ") and ("=" in line.split("#")[1] or line == "# [tools]") else line
        for line in template().splitlines()
    )
    config = Config.model_validate(__import__("tomllib").loads(text))
    assert config.model_fields_set == set(Config.model_fields)  # the template names every key


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('disk_klass = "nvme"\n', "disk_klass: no such key; the keys are disk_model, disk_class,"),
        ('disk_class = "ssd"\n', "disk_class: one of 'hdd5400', 'hdd7200'"),
        ('units = "metric"\n', "units: one of 'decimal' or 'binary', not 'metric'"),
        ('[tools]\nkernel = "99.1"\n', "tools.kernel: 99.1 is not modelled; it knows Linux"),
        ('[tools]\nzfs = "2.2"\n', "tools.zfs.[key]: "),
        ("units = \n", "not valid TOML"),
    ],
)
def test_a_bad_config_file_is_one_line_naming_the_file_and_the_key(capsys, text, says):  # type: ignore[no-untyped-def]
    path = write(text)
    for argv in (["config"], ["plan"], ["plan", "--disks", "12"]):
        status, out, err = run(capsys, *argv)
        assert status == 2 and out == ""
        assert err.startswith(f"podplan: {path}") and says in err and err.count("\n") == 1, err


def test_a_config_error_is_not_a_plan_error():  # type: ignore[no-untyped-def]
    write("nope = 1\n")
    with pytest.raises(ConfigError) as caught:
        read_config()
    assert not isinstance(caught.value, PlanError)


def test_the_defaults_fill_a_plan_from_flags_or_the_example(capsys):  # type: ignore[no-untyped-def]
    write('disk_model = "HGST HUS728T8TAL"\ndisk_class = "hdd5400"\nfilesystem = "ext4"\n[tools]\nkernel = "6.6"\n')
    for argv in ([], ["--disks", "12"]):
        plan = plan_json(capsys, *argv)
        assert plan["filesystem"]["type"] == "ext4"
        assert plan["disks"][0]["model"] == "HGST HUS728T8TAL"
        assert plan["hardware"]["disk"]["disk_class"] == "hdd5400"
        assert plan["tools"]["kernel"] == "6.6"
    assert plan_json(capsys, "--fs", "xfs")["filesystem"]["type"] == "xfs"  # a flag wins over the config


def test_a_plan_file_computes_the_same_figures_whatever_the_config(capsys, tmp_path):  # type: ignore[no-untyped-def]
    from app.shared.planfile import plan_to_toml

    pod = tmp_path / "pod.toml"
    pod.write_text(plan_to_toml(example_pod()))
    status, before, _ = run(capsys, "plan", "--json", str(pod))
    write('disk_model = "other"\ndisk_class = "nvme"\nfilesystem = "btrfs"\n[tools]\nxfsprogs = "6.8.0"\n')
    status, after, _ = run(capsys, "plan", "--json", str(pod))
    assert status == 0 and after == before
    assert plan_json(capsys, str(pod), "--disks", "30")["filesystem"]["type"] == "xfs"  # flags on a file: the file's


def test_units_say_which_family_comes_first(capsys):  # type: ignore[no-untyped-def]
    _, decimal, _ = run(capsys, "plan")
    write('units = "binary"\n')
    _, binary, _ = run(capsys, "plan")
    assert "usable 77,464,201,367,552 B (77.46 TB, 70.45 TiB)" in decimal
    assert "usable 77,464,201,367,552 B (70.45 TiB, 77.46 TB)" in binary
    swapped = re.sub(r"\(([\d.]+ [kMGTPE]?B), ([\d.]+ [KMGTPE]iB)\)", r"(\2, \1)", decimal)
    assert swapped == binary  # every pair swapped, nothing else changed


def test_saving_a_setting_keeps_the_other_keys_and_the_comments():  # type: ignore[no-untyped-def]
    path = write('# mine\nunits = "binary"  # TiB first\ntheme = "textual-dark"\n\n[tools]\nkernel = "6.6"\n')
    save_setting("theme", "textual-light")
    assert (
        path.read_text()
        == '# mine\nunits = "binary"  # TiB first\ntheme = "textual-light"\n\n[tools]\nkernel = "6.6"\n'
    )
    path.write_text('# only a comment\n[tools]\nkernel = "6.6"\n')
    save_setting("theme", "textual-dark")  # a key the file does not have goes ahead of its first table
    assert read_config() == Config(theme="textual-dark", tools={"kernel": "6.6"})
    assert path.read_text().startswith('# only a comment\ntheme = "textual-dark"\n[tools]')
    os.unlink(path)
    save_setting("theme", "textual-light")  # no file (nor directory) yet: made
    assert read_config().theme == "textual-light"


async def test_the_tui_saves_its_theme_and_starts_with_it(config_home):  # type: ignore[no-untyped-def]
    from app.tui.app import PodplanApp
    from tests.tui_helpers import SIZE

    write('units = "binary"\n')
    app = PodplanApp(example_pod(), theme=read_config().theme)
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "textual-dark"
        await pilot.press("ctrl+t")
        await app.workers.wait_for_complete()
        assert app.theme == "textual-light"
    assert read_config() == Config(units="binary", theme="textual-light")
    again = PodplanApp(example_pod(), theme=read_config().theme)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.current_theme.name == "textual-light"
