"""`podplan config`: the config file's path, its text and the values in force; --init writes one."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from app.cli.command import EXIT_OK, Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--init", action="store_true", help="write a commented template of every key at the path")
    p.add_argument("--force", action="store_true", help="with --init: replace a config file that is there")


def run(args: argparse.Namespace) -> int:
    from app.shared.config import config_path, in_force, keymap_path, read_config, template

    path = config_path()
    if args.init:
        from app.usecases.files import write_text

        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_text(path, template(), force=args.force)
        print(f"wrote {path}: every key commented out; uncomment one to set it")
        return EXIT_OK
    config = read_config(path)  # a bad file: one line naming the file and the key (exit 2)
    out = [f"config file: {path}" + ("" if path.exists() else " (none: every value is the default)")]
    out.append(f"keymap file: {keymap_path()}" + ("" if keymap_path().exists() else " (none)"))
    if path.exists():
        from app.usecases.files import read_text

        text = read_text(path, what="config file")
        out += ["", f"--- {path}", text.rstrip("\n"), "---"]
    out += ["", "values in force (a plan file's own values always win over them):"]
    rows = in_force(config, path)
    width, wide = max(len(key) for key, _, _ in rows), max(len(value) for _, value, _ in rows)
    out += [f"  {key:<{width}}  {value:<{wide}}  ({source})" for key, value, source in rows]
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK


COMMAND = Command(
    name="config",
    help="show the config file (this machine's defaults) and the values in force; --init writes one",
    description="Show the config file's path, its text and the values in force, each from the file or "
    "the default. The config file holds this machine's defaults: disk model and class, tool versions, "
    "filesystem, units shown first and the TUI's theme. They fill only what neither a plan file nor a "
    "flag states: a plan file's own values always win, so that it computes the same figures on every "
    "machine.",
    examples=(
        ("podplan config", "the path, the file and every value in force"),
        ("podplan config --init", "write a commented template of every key (refused if one is there)"),
        ("podplan config --init --force", "replace the file with the template"),
    ),
    add_arguments=add_arguments,
    run=run,
)
