"""Where podplan keeps its files on this machine: the XDG base directories, through platformdirs.

One rule for every file podplan keeps (the command transcript, the burn-in state, the TUI's
recovery copies, the keymap, the config file, the lab's kits): `$XDG_*_HOME/podplan`, or the
spec's default under the home directory when the variable is unset, empty or relative (the
XDG base directory specification says a relative path must be ignored; platformdirs does so).
Nothing is created here: a reader must not make directories, the writers make their own.
"""

from __future__ import annotations

from pathlib import Path

from platformdirs import PlatformDirs

APP = "podplan"


def _dirs() -> PlatformDirs:
    # Made at each call, not once: platformdirs reads the environment when asked, and a test or
    # an embedding program may change XDG_* between two calls.
    return PlatformDirs(APP, appauthor=False, ensure_exists=False)


def config_dir() -> Path:
    """`$XDG_CONFIG_HOME/podplan` (`~/.config/podplan`): the config file and the keymap."""
    return Path(_dirs().user_config_dir)


def state_dir() -> Path:
    """`$XDG_STATE_HOME/podplan` (`~/.local/state/podplan`): the transcript, burn-in state, recovery copies."""
    return Path(_dirs().user_state_dir)


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/podplan` (`~/.cache/podplan`): the lab's kits, which can be built again."""
    return Path(_dirs().user_cache_dir)
