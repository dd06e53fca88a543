"""Every key of the TUI in one table: each screen's bindings, the command palette's entries and the
help screen's key table are made from it, so the three cannot disagree.

Each binding has an id, `<where>.<name>`. A keymap (Textual's `App.set_keymap`: binding id ->
keys) gives an id other keys; the palette and the help then name the keys in force. Texts say a
key as `{id}` (its first key), so a remapped key is named right everywhere it is mentioned.
A person's keymap is `$XDG_CONFIG_HOME/podplan/keys.toml` (`~/.config/podplan/keys.toml`), one
line per key moved: `"app.help" = "f10"`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from textual.binding import Binding, BindingType

from app.tui.widgets.results import RESULT_TABS
from planners.errors import KeymapError, PodplanError


@dataclass(frozen=True, slots=True)
class Key:
    """One binding: its keys, what it does, and where it is named."""

    id: str
    """Binding id, `<where>.<name>`: what a keymap remaps."""
    keys: str
    """Default keys, comma-separated in Textual's spelling ("s,ctrl+s"); the first is the one named."""
    action: str
    """Textual action the keys run (on the screen or widget of `where`, or `app.` ones)."""
    description: str
    """The footer's label."""
    where: str
    """Whose BINDINGS: app, plan, script, compare, grow, sweep, validate, disks, help, prompt,
    confirm, quit, choice; textual for Textual's own keys, named here but bound by Textual."""
    show: bool = True
    """Shown in the footer."""
    palette: str = ""
    """Title of the command palette's entry ('' when not in the palette)."""
    palette_help: str = ""
    """What the palette entry says, with `{id}` for the keys."""


def _tab_keys() -> tuple[Key, ...]:
    return tuple(
        Key(
            f"plan.tab{i}",
            f"alt+{i}",
            f"show_tab('{tab}')",
            title,
            "plan",
            show=False,
            palette=f"{title} tab",
            palette_help=f"{what[0].upper()}{what[1:]} ({{plan.tab{i}}}; {{plan.next_tab}} steps through the tabs)",
        )
        for i, (tab, (title, what)) in enumerate(RESULT_TABS.items(), start=1)
    )


# In each screen's order: a screen's BINDINGS (and so its footer) follow this order.
KEYS: tuple[Key, ...] = (
    Key(
        "app.help",
        "f1",
        "help",
        "Help",
        "app",
        palette="Help",
        palette_help="Keys and what each screen does ({app.help})",
    ),
    Key(
        "app.script",
        "f2",
        "script",
        "Script",
        "app",
        palette="Show build script",
        palette_help="The script that builds this plan ({app.script})",
    ),
    Key(
        "app.compare",
        "f3",
        "compare",
        "Compare",
        "app",
        palette="Compare variants",
        palette_help="Pinned plans side by side ({app.compare})",
    ),
    Key(
        "app.pin",
        "f4",
        "pin",
        "Pin",
        "app",
        show=False,
        palette="Pin current plan",
        palette_help="Keep this plan as a variant to compare ({app.pin})",
    ),
    Key(
        "app.validate",
        "f5",
        "validate",
        "Validate",
        "app",
        palette="Validate array",
        palette_help="Measure a built array with fio beside the plan ({app.validate})",
    ),
    Key(
        "app.sweep",
        "f6",
        "sweep",
        "Sweep",
        "app",
        palette="Sweep layouts",
        palette_help="Every layout of these disks ranked; enter loads one ({app.sweep})",
    ),
    Key(
        "app.disks",
        "f7",
        "detected_disks",
        "Disks",
        "app",
        palette="New plan from detected disks",
        palette_help="Choose this machine's disks to start a plan ({app.disks})",
    ),
    # Out of the footer at 80 columns (it is full); a wide footer shows it (widgets/footer.py).
    Key(
        "app.grow",
        "f9",
        "grow",
        "Grow",
        "app",
        show=False,
        palette="Grow the pod",
        palette_help="More disks, RAID5 -> RAID6 or a new array: figures after and the grow script ({app.grow})",
    ),
    Key(
        "app.save",
        "ctrl+s",
        "save_plan",
        "Save",
        "app",
        palette="Save plan",
        palette_help="Write the plan as TOML ({app.save})",
    ),
    Key(
        "app.open",
        "ctrl+o",
        "open_plan",
        "Open",
        "app",
        show=False,
        palette="Open plan",
        palette_help="Read a TOML plan file ({app.open})",
    ),
    Key(
        "app.theme",
        "ctrl+t",
        "toggle_theme",
        "Theme",
        "app",
        show=False,
        palette="Toggle dark/light theme",
        palette_help="Switch between the dark and light themes ({app.theme})",
    ),
    Key(
        "app.job",
        "ctrl+j",
        "load_job",
        "Load fio job",
        "app",
        show=False,
        palette="Predict an fio job file",
        palette_help="Each job section on the Perf tab, beside the suite ({app.job})",
    ),
    Key("plan.next_tab", "f8", "next_tab", "Tabs", "plan"),
    # Tab would reach the figures only past every field of the form (22 presses).
    Key(
        "plan.figures",
        "ctrl+f",
        "focus_figures",
        "Figures",
        "plan",
        show=False,
        palette="Scroll the figures",
        palette_help="Arrows and PgUp/PgDn scroll the result tab in view; {plan.figures} again goes back to the form "
        "({plan.figures})",
    ),
    Key("plan.previous_tab", "shift+f8", "next_tab(-1)", "Previous tab", "plan", show=False),
    *_tab_keys(),
    Key("script.back", "escape", "app.pop_screen", "Back", "script"),
    Key(
        "script.save",
        "s,ctrl+s",
        "save_script",
        "Save script",
        "script",
        palette="Save script",
        palette_help="Write the build script to a file ({script.save})",
    ),
    Key(
        "script.copy",
        "c",
        "copy_script",
        "Copy",
        "script",
        palette="Copy script",
        palette_help="Copy the build script to the clipboard ({script.copy})",
    ),
    Key("compare.back", "escape", "app.pop_screen", "Back", "compare"),
    Key("compare.load", "l", "load_variant", "Load into form", "compare"),
    Key("compare.unpin", "x,delete", "drop_variant", "Unpin", "compare"),
    Key("compare.sweep", "s", "app.sweep", "Sweep layouts", "compare"),
    Key("grow.back", "escape", "app.pop_screen", "Back", "grow"),
    # Keys the form's text fields do not take: a letter would be typed into them.
    Key("grow.script", "f2", "toggle_script", "Script/figures", "grow"),
    Key("grow.save_script", "ctrl+s", "save_script", "Save script", "grow"),
    Key("grow.save_layout", "ctrl+l", "save_layout", "Save layout", "grow"),
    Key("sweep.back", "escape", "app.pop_screen", "Back", "sweep"),
    Key("sweep.load", "l", "load_row", "Load into form", "sweep"),
    Key("sweep.sort", "s", "next_sort", "Sort", "sweep"),
    Key("sweep.workload", "w", "next_workload", "Workload", "sweep"),
    Key("validate.back", "escape", "back", "Back", "validate"),
    Key("validate.start", "ctrl+r", "start", "Start", "validate"),
    Key("validate.cancel", "f8", "cancel_run", "Cancel run", "validate"),
    Key("disks.back", "escape", "app.pop_screen", "Back", "disks"),
    Key("disks.select", "space", "toggle_disk", "Select", "disks"),
    Key("disks.same_kind", "a", "same_kind", "All like this", "disks"),
    Key("disks.none", "n", "select_none", "None", "disks"),
    Key("disks.create", "c", "create", "Create plan", "disks"),
    Key("disks.reread", "r", "reread", "Reread", "disks"),
    Key("help.close", "escape,f1,q", "app.pop_screen", "Close", "help"),
    Key("prompt.cancel", "escape", "cancel", "Cancel", "prompt"),
    Key("confirm.no", "escape,n", "no", "No", "confirm"),
    Key("confirm.yes", "y", "yes", "Yes", "confirm"),
    Key("quit.stay", "escape,n", "answer('stay')", "Stay", "quit"),
    Key("quit.save", "s", "answer('save')", "Save and quit", "quit"),
    Key("quit.quit", "q,y", "answer('quit')", "Quit without saving", "quit"),
    Key("changed.cancel", "escape,c", "answer('')", "Cancel", "changed"),
    Key("changed.save_as", "a", "answer('save_as')", "Save as", "changed"),
    Key("changed.reload", "r", "answer('reload')", "Reload", "changed"),
    Key("changed.overwrite", "o", "answer('overwrite')", "Overwrite", "changed"),
    Key("choice.previous", "left", "step(-1)", "Previous", "choice", show=False),
    Key("choice.next", "right,space", "step(1)", "Next", "choice", show=False),
    # Textual's own: named in the help, bound by Textual (App, Screen and the command palette).
    Key("textual.focus_next", "tab", "app.focus_next", "Focus Next", "textual", show=False),
    Key("textual.focus_previous", "shift+tab", "app.focus_previous", "Focus Previous", "textual", show=False),
    Key("textual.palette", "ctrl+p", "command_palette", "palette", "textual"),
    Key("textual.quit", "ctrl+q", "quit", "Quit", "textual", show=False),
)
BY_ID = {key.id: key for key in KEYS}

# The command palette's entries, in the order it lists them.
PALETTE = (
    "app.help",
    "app.script",
    "app.compare",
    "app.sweep",
    "app.disks",
    "app.grow",
    "app.pin",
    "app.save",
    "app.open",
    "app.theme",
    "app.job",
    "app.validate",
    "plan.figures",
    *(f"plan.tab{i}" for i in range(1, len(RESULT_TABS) + 1)),
    "script.save",
    "script.copy",
)

# Whose keys the palette offers: the app's and the screens'. A dialog's keys answer its one
# question, the choice widget's step its value, and Textual names its own.
PALETTE_WHERE = ("app", "plan", "script", "compare", "grow", "sweep", "validate", "disks")


def palette_keys() -> list[Key]:
    """Every key the palette offers, PALETTE's first (in its order), then the others in the table's."""
    first = [BY_ID[i] for i in PALETTE]
    return first + [k for k in KEYS if k.where in PALETTE_WHERE and k.id not in PALETTE]


def palette_entry(key: Key) -> tuple[str, str]:
    """A key's palette title and help text (`{id}` for its keys): its own, else its footer's label."""
    return key.palette or key.description, key.palette_help or f"{key.description} ({{{key.id}}})"


# The help screen's key table: (keys, what they do), with `{id}` for a binding's keys.
HELP_ROWS: tuple[tuple[str, str], ...] = (
    ("{textual.focus_next} / {textual.focus_previous}", "next / previous field"),
    ("{choice.previous} / {choice.next}", "step through a choice (◂ ▸); typing a letter jumps to it"),
    ("{app.help}", "this help"),
    ("{app.script}", "the build script ({script.save} saves, {script.copy} copies)"),
    (
        "{app.compare}",
        "compare pinned variants ({compare.load} loads one, {compare.unpin} unpins, {compare.sweep} sweeps)",
    ),
    ("{app.pin}", "pin the current plan as a variant"),
    ("{app.validate}", "validate a built array with fio ({validate.start} starts, {validate.cancel} cancels)"),
    (
        "{app.sweep}",
        (
            "sweep every layout of the plan's disks, ranked, Pareto front marked * and layouts with over 1 % yearly "
            "loss odds marked !, or losing data to an unreadable sector in most rebuilds marked ~, ranked last "
            "(enter loads one into the form, {sweep.sort} sorts from the top, {sweep.workload} changes the workload)"
        ),
    ),
    (
        "{plan.figures}",
        (
            "into the figures of the tab in view: up / down, PgUp / PgDn, home / end scroll them ({plan.next_tab} "
            "keeps you there); {plan.figures} again goes back to the field you left"
        ),
    ),
    (
        "{plan.next_tab} / {plan.previous_tab}",
        "next / previous result tab (Capacity, Alignment, Findings, Perf); {plan.tab1} to {plan.tab4} jump to one",
    ),
    (
        "{app.disks}",
        (
            "start a new plan from this machine's disks ({disks.select} selects, {disks.same_kind} selects every free "
            "disk like the highlighted one, {disks.create} creates the plan); disks in use are marked and not "
            "preselected"
        ),
    ),
    (
        "{app.grow}",
        (
            "grow the pod built from this plan: disks to add, RAID5 -> RAID6 or a new array under LVM; every figure "
            "before -> after and the steps ({grow.script} shows the grow script, {grow.save_script} saves it, "
            "{grow.save_layout} saves the grown layout)"
        ),
    ),
    ("{app.save} / {app.open}", "save / open a plan file (TOML)"),
    ("{app.theme}", "dark / light theme"),
    ("{app.job}", "predict the sections of an fio job file on the Perf tab, beside the suite"),
    (
        "{textual.palette}",
        (
            "command palette: every action by name (the footer shows {app.grow}, {plan.figures} and "
            "{textual.palette} from 110 columns)"
        ),
    ),
    ("{script.back}", "back"),
    (
        "{textual.quit}",
        (
            "quit; with unsaved changes it asks first: {quit.save} saves (to the plan's file, or asks where) and "
            "quits, {quit.quit} quits without saving, {quit.stay} stays"
        ),
    ),
)

_NAMED = re.compile(r"\{([a-z_]+\.[a-z_0-9]+)\}")


def keys_of(key_id: str, keymap: Mapping[str, str] | None = None) -> str:
    """The keys in force for a binding: the keymap's, else the table's."""
    return (keymap or {}).get(key_id) or BY_ID[key_id].keys


def say(text: str, keymap: Mapping[str, str] | None = None) -> str:
    """`text` with each `{id}` replaced by the first key in force for that binding."""
    return _NAMED.sub(lambda m: keys_of(m.group(1), keymap).split(",")[0].strip(), text)


def bindings(where: str) -> list[BindingType]:
    """The BINDINGS of one screen or widget, in the table's order, each with its id."""
    return [
        Binding(key.keys, key.action, key.description, show=key.show, id=key.id) for key in KEYS if key.where == where
    ]


def help_table(keymap: Mapping[str, str] | None = None) -> str:
    """The help screen's key table, in Markdown."""
    rows = [f"| {say(keys, keymap)} | {say(does, keymap)} |" for keys, does in HELP_ROWS]
    return "\n".join(["| key | does |", "|---|---|", *rows])


def keymap_path() -> Path:
    """Where a person's keymap is read from: beside the config file."""
    from app.shared.config import keymap_path as beside_the_config

    return beside_the_config()


def read_keymap(path: Path | None = None) -> dict[str, str]:
    """Binding id -> keys from a keymap file (keymap_path() unless named); {} when there is none.

    A name that is no binding's, or keys that are not a string, is refused in one line: a typo
    would otherwise leave the key where it was without a word."""
    from app.shared.planfile import toml_data
    from app.usecases.files import read_text

    path = path or keymap_path()
    if not path.exists():
        return {}
    try:
        doc = toml_data(read_text(path, what="keymap"), str(path))
    except PodplanError as exc:  # a FIFO, too big, not UTF-8, not TOML: the keymap's error, not a plan's
        raise KeymapError(exc.message.replace(": not valid TOML", ": not a TOML keymap", 1)) from None
    ours = [key.id for key in KEYS if key.where != "textual"]
    for name, keys in doc.items():
        if name not in ours:
            close = difflib.get_close_matches(name, ours, n=1)
            hint = f'did you mean "{close[0]}"?' if close else "names look like app.help, plan.next_tab, script.save"
            raise KeymapError(f'{path}: no key is named "{name}"; {hint}')
        if not isinstance(keys, str) or not keys.strip():
            raise KeymapError(f'{path}: "{name}" takes keys as Textual names them, e.g. "f10" or "ctrl+k,f10"')
    return dict(doc)
