"""One XDG rule for every file podplan keeps: an absolute $XDG_*_HOME is used, a relative or unset one
is ignored for the spec's default under $HOME (the XDG base directory specification)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runners.dirs import cache_dir, config_dir, state_dir

RULES = [
    ("XDG_CONFIG_HOME", config_dir, ".config"),
    ("XDG_STATE_HOME", state_dir, ".local/state"),
    ("XDG_CACHE_HOME", cache_dir, ".cache"),
]


@pytest.fixture
def home(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.mark.parametrize(("var", "where", "default"), RULES)
def test_an_absolute_variable_is_used(var, where, default, home, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv(var, str(tmp_path / "xdg"))
    assert where() == tmp_path / "xdg" / "podplan"


@pytest.mark.parametrize(("var", "where", "default"), RULES)
def test_a_relative_variable_is_ignored(var, where, default, home, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv(var, "relative/dir")
    assert where() == home / default / "podplan"


@pytest.mark.parametrize(("var", "where", "default"), RULES)
@pytest.mark.parametrize("unset", [True, False], ids=["unset", "empty"])
def test_an_unset_or_empty_variable_gives_the_default(var, where, default, unset, home, monkeypatch):  # type: ignore[no-untyped-def]
    if unset:
        monkeypatch.delenv(var, raising=False)
    else:
        monkeypatch.setenv(var, "")
    assert where() == home / default / "podplan"


def test_every_kept_file_follows_the_rule(home, monkeypatch):  # type: ignore[no-untyped-def]
    """The transcript, the burn-in state, the recovery copies, the keymap and the lab's kits: each under
    its directory, and none of them reads a relative variable (one of them once did)."""
    from app.tui.keys import keymap_path
    from app.tui.recovery import recovery_dir
    from runners import transcript
    from runners.lab.kit import cache_root
    from runners.validate.burnin import state_path

    for var, _, _ in RULES:
        monkeypatch.setenv(var, "relative/dir")
    assert transcript.default_path() == home / ".local/state/podplan/commands.log"
    assert state_path() == home / ".local/state/podplan/burn-in.json"
    assert recovery_dir() == home / ".local/state/podplan/recovery"
    assert keymap_path() == home / ".config/podplan/keys.toml"
    assert cache_root() == home / ".cache/podplan/lab"
    assert not Path("relative").exists()
