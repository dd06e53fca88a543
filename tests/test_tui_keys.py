"""Every key from one table (app/tui/keys.py): the bindings, the palette and the help agree, and a keymap
remaps a key everywhere it is named."""

from __future__ import annotations

import ast
import pathlib
import re

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from app.tui.app import PodplanApp
from app.tui.keys import BY_ID, HELP_ROWS, KEYS, PALETTE, bindings, help_table, palette_entry, palette_keys, say
from app.tui.screens.compare_screen import CompareScreen
from app.tui.screens.dialogs import ChangedOnDisk, Confirm, PathPrompt, QuitDialog
from app.tui.screens.disks_screen import DisksScreen
from app.tui.screens.grow_screen import GrowScreen
from app.tui.screens.help_screen import HelpScreen, help_text
from app.tui.screens.plan_screen import PlanScreen
from app.tui.screens.script_screen import ScriptScreen
from app.tui.screens.sweep_screen import SweepScreen
from app.tui.screens.validate_screen import ValidateScreen
from app.tui.widgets.choice import Choice
from planners.example import example_pod
from tests.tui_helpers import SIZE

TUI = pathlib.Path(__file__).resolve().parent.parent / "app" / "tui"
OWNERS = {
    "app": PodplanApp,
    "plan": PlanScreen,
    "script": ScriptScreen,
    "compare": CompareScreen,
    "grow": GrowScreen,
    "sweep": SweepScreen,
    "validate": ValidateScreen,
    "disks": DisksScreen,
    "help": HelpScreen,
    "prompt": PathPrompt,
    "confirm": Confirm,
    "quit": QuitDialog,
    "changed": ChangedOnDisk,
    "choice": Choice,
}


def _fields(b: Binding) -> tuple[str, str, str, bool, str | None]:
    return (b.key, b.action, b.description, b.show, b.id)


def test_every_binding_is_the_tables() -> None:
    for where, owner in OWNERS.items():
        own = [b for b in owner.BINDINGS if isinstance(b, Binding)]
        assert len(own) == len(owner.BINDINGS), f"{where}: a binding not made by keys.bindings"
        assert [_fields(b) for b in own] == [_fields(b) for b in bindings(where) if isinstance(b, Binding)], where
        assert own and all(b.id and b.id.startswith(f"{where}.") for b in own), where
    assert {k.where for k in KEYS} == {*OWNERS, "textual"}
    assert len(BY_ID) == len(KEYS), "two keys share an id"


def test_no_binding_is_written_outside_the_table() -> None:
    """Nothing in app/tui but keys.py builds a Binding or a BINDINGS list of its own."""
    found = []
    for p in sorted(TUI.rglob("*.py")):
        if p.name == "keys.py":
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Binding":
                found.append(f"{p.name}:{node.lineno} Binding(...)")
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "BINDINGS" for t in node.targets):
                call = node.value
                if not (isinstance(call, ast.Call) and getattr(call.func, "id", "") == "bindings"):
                    found.append(f"{p.name}:{node.lineno} BINDINGS")
    assert not found


def test_textuals_own_keys_are_named_as_textual_binds_them() -> None:
    app_keys = {(b.key, b.action) for b in App.BINDINGS if isinstance(b, Binding)}
    screen_keys = {(b.key, b.action) for b in Screen.BINDINGS if isinstance(b, Binding)}
    assert (BY_ID["textual.quit"].keys, BY_ID["textual.quit"].action) in app_keys
    for name in ("focus_next", "focus_previous"):
        key = BY_ID[f"textual.{name}"]
        assert (key.keys, key.action) in screen_keys
    assert BY_ID["textual.palette"].keys == App.COMMAND_PALETTE_BINDING


def test_the_help_table_is_made_of_the_tables_keys() -> None:
    table = help_table()
    assert table in help_text()
    rows = table.splitlines()[2:]
    assert len(rows) == len(HELP_ROWS)
    for (keys, _), row in zip(HELP_ROWS, rows, strict=True):
        ids = re.findall(r"\{([\w.]+)\}", keys)
        assert ids and all(i in BY_ID for i in ids)
        assert row.startswith(f"| {' / '.join(BY_ID[i].keys.split(',')[0] for i in ids)} |")
    # the keys a screen's own text names are all in the table
    for _, does in HELP_ROWS:
        assert "{" not in say(does)
    # the exact words the page has said since it was written (f2's row and ctrl+q's)
    assert "| f2 | the build script (s saves, c copies) |" in rows
    assert "| ctrl+s / ctrl+o | save / open a plan file (TOML) |" in rows
    assert rows[-1].startswith("| ctrl+q | quit; with unsaved changes it asks first: s saves")


async def test_the_palette_is_the_tables_and_names_each_key() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        on_plan = {c.title: c.help for c in app.get_system_commands(app.screen)}
        textual_own = {c.title for c in App.get_system_commands(app, app.screen)}
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, ScriptScreen)
        on_script = {c.title: c.help for c in app.get_system_commands(app.screen)}
        textual_own |= {c.title for c in App.get_system_commands(app, app.screen)}
    for commands, where in ((on_plan, ("app", "plan")), (on_script, ("app", "script"))):
        ours = {title for title in commands if title not in textual_own}
        offered = {palette_entry(k)[0]: k for k in palette_keys() if k.where in where}
        assert ours <= set(offered), ours
        for title in ours:  # every entry names its key
            assert offered[title].keys.split(",")[0] in commands[title], title
        # every action of the screen is there, but an app key the screen binds itself
        screen_keys = {k for t in ours if offered[t].where != "app" for k in offered[t].keys.split(",")}
        for title, key in offered.items():
            if key.where == "app" and screen_keys & set(key.keys.split(",")):
                continue
            assert title in ours, f"{title} is missing from the palette on {where[1]}"
    for key_id in PALETTE:
        key = BY_ID[key_id]
        commands = on_script if key.where == "script" else on_plan
        if key_id == "app.save":
            continue  # on the script screen ctrl+s saves the script; on the plan screen it is below
        assert commands[key.palette] == say(key.palette_help)
        assert key.keys.split(",")[0] in commands[key.palette], key.id
    assert on_plan["Help"] == "Keys and what each screen does (f1)"
    assert on_plan["Findings tab"] == "Every misalignment and warning, in full (alt+3; f8 steps through the tabs)"
    assert on_script["Save script"] == "Write the build script to a file (s)"


async def test_a_keymap_moves_a_key_and_every_place_that_names_it() -> None:
    app = PodplanApp(example_pod())
    app.set_keymap({"app.help": "f10", "plan.next_tab": "f12"})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert commands["Help"] == "Keys and what each screen does (f10)"
        assert commands["Perf tab"].endswith("(alt+4; f12 steps through the tabs)")
        await pilot.press("f1")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f10")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        page = help_text(app.keymap)
        assert "| f10 | this help |" in page
        assert "| f12 / shift+f8 | next / previous result tab" in page


def test_a_keymap_file_moves_keys_and_a_bad_one_is_refused_in_one_line(tmp_path, monkeypatch, capsys) -> None:
    from app.cli.main import main
    from app.tui.keys import keymap_path, read_keymap

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert keymap_path() == tmp_path / "podplan" / "keys.toml"
    assert read_keymap() == {}  # none written: every key as the table has it
    keymap_path().parent.mkdir()
    keymap_path().write_text('"app.help" = "f10"\n"plan.next_tab" = "f12,ctrl+n"\n')
    assert read_keymap() == {"app.help": "f10", "plan.next_tab": "f12,ctrl+n"}
    for text, words in (
        ('"app.hlep" = "f10"\n', 'no key is named "app.hlep"; did you mean "app.help"?'),
        ('"textual.quit" = "f10"\n', 'no key is named "textual.quit"'),
        ('"app.help" = 10\n', '"app.help" takes keys as Textual names them'),
        ("app.help = [\n", "not a TOML keymap"),
    ):
        keymap_path().write_text(text)
        assert main(["tui"]) == 2  # refused before the screen changes
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err and str(keymap_path()) in err, err


async def test_the_grow_screen_names_its_own_ctrl_s() -> None:
    """On the grow screen ctrl+s saves the grow script: the palette says so, not 'Save plan'."""
    from app.tui.screens.grow_screen import GrowScreen as Grow

    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f9")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, Grow)
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
    assert BY_ID["app.save"].palette not in commands
    assert commands["Save script"] == "Save script (ctrl+s)"
    assert commands["Save layout"] == "Save layout (ctrl+l)"
    assert commands["Back"] == "Back (escape)"
