"""The plan form: one line per setting, grouped by layer, with the reason under a bad field.

The form knows nothing about computing: it reports every edit with `FormEdited` and shows
an error where the screen tells it to. Values are strings as typed (sizes keep the user's
spelling), booleans for the check boxes; `app.tui.form_model` turns them into a Plan.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, Static

from app.tui.form_model import FIELDS, Values, layouts_for
from app.tui.messages import FormEdited
from app.tui.presets import BY_KEY, PRESETS, preset_for
from app.tui.widgets.choice import Choice
from app.tui.widgets.tick import Tick
from planners.errors import PlanError
from planners.models import BTRFS_PROFILES
from planners.units import parse_size, size_meaning

_SECTORS = [("512", "512"), ("4096", "4096")]
_LEVELS = [(f"RAID{n}", str(n)) for n in (0, 1, 4, 5, 6, 10)]
# The classes Textual gives a valid Input (-valid) and a ticked Checkbox (-on) are given at
# birth, and compact is set without its class toggle (`_compact`): added one by one as the
# widgets start, each would restyle its widget at once, thirty restyles before the first paint
# that the widget's first styling redoes anyway. Textual still sets them as it always does
# afterwards (an invalid value takes -valid away).
_BORN_INPUT = "-valid"
_COMPACT = "-textual-compact"  # the class Input's and Checkbox's `compact` reactive toggles


# Lines of the plan screen that are never the form's: the header, the footer and the three error
# lines under the form (podplan.tcss). Were they fewer, a row would show one frame late, no more.
_ABOVE_AND_BELOW = 5
_ROW_STARTS = frozenset({"form-section", "size-meaning", "form-label"})


def _first_screenful(widgets: list[Widget], lines: int) -> int:
    """How many of the form's widgets fill its first `lines` lines: a grid row starts with a shown
    section title, size meaning or label; a section title after the first has a blank line above it."""
    used = 0
    for i, widget in enumerate(widgets):
        if not (widget.display and widget.classes & _ROW_STARTS):
            continue
        if used >= lines:
            return i
        used += 2 if "form-section" in widget.classes and used else 1
    return len(widgets)


def _compact(widget: Input | Checkbox) -> Input | Checkbox:
    widget.set_reactive(type(widget).compact, True)
    widget.add_class(_COMPACT, update=False)
    return widget


_DIGITS = {"integer": r"[0-9]*", "number": r"[0-9.]*"}


class PlanForm(VerticalScroll):
    """Every setting of a plan the form can edit. Post `FormEdited` on each change."""

    def __init__(self, values: Values, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._initial = values
        self._error_shown: str | None = None

    def compose(self) -> ComposeResult:
        widgets = list(self._widgets(self._initial))
        # Looked up once: every keystroke reads all fields, and a DOM query per field adds up.
        self._by_id: dict[str, Any] = {w.id: w for w in widgets if w.id}
        self._controls: dict[str, Any] = {field: self._by_id[field] for field in FIELDS}
        # A row below the form's last line cannot be in the first frame: the rows from there on
        # join the form just after it (see on_mount): almost half its widgets at 80x24.
        cut = _first_screenful(widgets, self.app.size.height - _ABOVE_AND_BELOW)
        self._later = widgets[cut:]
        yield from widgets[:cut]

    def _widgets(self, v: Values) -> ComposeResult:
        """Every widget of the form in order. A grid row is a section title, a size's meaning,
        or a label and its control."""
        # Each control is born as _sync_enabled would leave it: greyed out or its row gone after
        # mounting, it would restyle again (and lay out again) before the first paint.
        self._born_disabled, self._born_hidden = _disabled(v), _hidden(v)
        yield from self._input(
            "name",
            "plan name",
            v,
            tooltip="Names the saved file and the build script, "
            "which asks for it before it changes anything (letters, digits and _.+-)",
        )
        yield Static("Disks", classes="form-section")
        yield from self._input("count", "count", v, type="integer", tooltip="How many disks of this kind")
        yield from self._input(
            "size",
            "size",
            v,
            placeholder="2TB, 1.8TiB or bytes",
            tooltip="Bytes one disk reports. TB/GB are decimal (as disks are sold); T, G and TiB are binary",
        )
        yield from self._meaning("size", v)
        yield from self._select("preset", "model", [(p.label, p.key) for p in PRESETS], v, blank="custom")
        yield from self._select("logical_sector", "log. sector", _SECTORS, v)
        yield from self._select("physical_sector", "phys. sector", _SECTORS, v)
        yield from self._check("rotational", "", "spinning", v)
        yield from self._input(
            "count2",
            "more disks",
            v,
            type="integer",
            valid_empty=True,
            tooltip="A second set of another size (0: none)",
        )
        yield from self._input("size2", "their size", v, placeholder="e.g. 4TB")
        yield from self._meaning("size2", v)
        yield Static("md arrays", classes="form-section")
        yield from self._input(
            "groups",
            "groups",
            v,
            type="integer",
            tooltip="Identical md arrays to build; 0: no md (LVM straight on the disks, or the "
            "filesystem on the one disk)",
        )
        yield from self._select("level", "level", _LEVELS, v)
        yield from self._select("layout", "layout", [(x, x) for x in layouts_for(v["level"])], v, blank="default")
        yield from self._input(
            "members",
            "members",
            v,
            type="integer",
            placeholder="auto: fill",
            valid_empty=True,
            tooltip="Active disks per array; empty shares all disks out",
        )
        yield from self._input("spares", "spares", v, type="integer", tooltip="Hot spares per array")
        yield from self._input("chunk", "chunk", v, placeholder="512K (default)")
        yield from self._select("bitmap", "bitmap", [("internal", "internal"), ("none", "none")], v)
        yield from self._select("metadata", "metadata", [(m, m) for m in ("1.2", "1.1", "1.0")], v)
        yield Static("LVM", classes="form-section")
        yield from self._check("lvm", "", "use LVM", v)
        yield from self._select("lvm_mode", "mode", [("linear", "linear"), ("striped", "striped")], v)
        yield from self._input("stripe_size", "stripe size", v, placeholder="auto: md stripe")
        yield from self._input(
            "extent_size",
            "PE size",
            v,
            placeholder="auto",
            tooltip="vgcreate -s. Empty: 4M, or for a linear LV a multiple of the md full stripe",
        )
        yield from self._input("data_alignment", "data align", v, placeholder="full stripe")
        yield from self._input(
            "lv_size", "LV size", v, placeholder="all", tooltip="lvcreate: a size such as 10G, N% of the VG, or rest"
        )
        yield Static("Filesystem", classes="form-section")
        yield from self._select(
            "fs", "type", [("XFS", "xfs"), ("ext4", "ext4"), ("ext3", "ext3"), ("btrfs", "btrfs")], v
        )
        profiles = [(p, p) for p in BTRFS_PROFILES]
        yield from self._select("data_profile", "data", profiles, v, blank="default")
        yield from self._select("metadata_profile", "metadata", profiles, v, blank="default")
        yield from self._select("block_size", "block size", [(b, b) for b in ("4096", "2048", "1024")], v)
        yield from self._check("no_stripe", "", "no stripe", v)
        yield from self._input("reserved", "reserved %", v, type="number")
        yield from self._input("label", "label", v)
        yield from self._input("mount_point", "mount point", v)

    def on_mount(self) -> None:
        self._sync_enabled(self._initial)
        if self._later:
            self.call_after_refresh(self._mount_later)

    def _mount_later(self) -> None:
        later, self._later = self._later, []
        self.mount_all(later)

    # -- building: the form is a two-column grid of labels and controls ----------------------
    def _row(self, label: str, control: Widget, field: str) -> ComposeResult:
        control.set_reactive(Widget.disabled, self._born_disabled.get(field, False))
        caption = Label(label, id=f"label-{field}", classes="form-label")
        if self._born_hidden.get(field, False):
            caption.display = control.display = False
        yield caption
        yield control

    def _input(self, field: str, label: str, v: Values, **kw: Any) -> ComposeResult:
        tooltip = kw.pop("tooltip", None)
        # Textual's own integer and number types check each keystroke with a regex of nested
        # quantifiers, which backtracks exponentially on a long run of digits ending in a refused
        # character (26 digits then 'x' froze the UI for seconds): a flat character class answers at
        # once, and the form's own check refuses a number out of bounds in one line.
        if (kind := kw.pop("type", "text")) != "text":
            kw["restrict"] = _DIGITS[kind]
        control = _compact(Input(str(v[field]), id=field, select_on_focus=True, classes=_BORN_INPUT, **kw))
        control.tooltip = tooltip
        return self._row(label, control, field)

    def _meaning(self, field: str, v: Values) -> ComposeResult:
        """Under a disk size, what it was understood as: '18T' is binary, and says so."""
        yield Static(_meaning_of(str(v[field])), id=f"meaning-{field}", classes="size-meaning")

    def _select(
        self, field: str, label: str, options: list[tuple[str, str]], v: Values, blank: str = ""
    ) -> ComposeResult:
        return self._row(label, Choice(options, str(v[field]), blank=blank, id=field), field)

    def _check(self, field: str, label: str, text: str, v: Values) -> ComposeResult:
        classes = "-on" if v[field] else ""
        return self._row(label, _compact(Tick(text, bool(v[field]), id=field, classes=classes)), field)

    # -- reading and writing --------------------------------------------------------------
    def values(self) -> Values:
        return {field: control.value for field, control in self._controls.items()}

    def fill(self, values: Values) -> None:
        """Show `values` (a plan just opened). The change events that follow all carry these same values."""
        self._set_layouts(values["level"])
        for field, control in self._controls.items():
            control.value = values[field]
        self._sync_enabled(values)
        self._show_meanings(values)

    def show_error(self, field: str, message: str) -> None:
        """Mark the field that caused the plan to be refused; the reason goes in `#form-error`.

        The reason has a line of its own under the form rather than under the field: a line
        that comes and goes would reflow the whole screen on every keystroke that makes or
        mends an error, and a fixed line stays in sight however far the form is scrolled.
        """
        if self._error_shown != field:
            self.clear_error()
        reason = self.screen.query_one("#form-error", Static)
        if field in self._controls:
            caption = self._by_id[f"label-{field}"]
            label = str(caption.content).strip()
            for w in (caption, self._controls[field]):
                w.add_class("-error")
            self._error_shown = field
            reason.update(Text.assemble((f"{label}: ", "bold"), message), layout=False)
        else:
            reason.update(message, layout=False)

    def clear_error(self) -> None:
        if self._error_shown is None:
            return
        field, self._error_shown = self._error_shown, None
        for w in (self._by_id[f"label-{field}"], self._controls[field]):
            w.remove_class("-error")
        self.screen.query_one("#form-error", Static).update("", layout=False)

    # -- reacting -------------------------------------------------------------------------
    @on(Input.Changed)
    @on(Choice.Changed)
    @on(Checkbox.Changed)
    def _edited(self, event: Input.Changed | Choice.Changed | Checkbox.Changed) -> None:
        event.stop()
        field = event.control.id or ""
        if field not in FIELDS:
            return
        if field == "preset":
            self._apply_preset()
        elif field == "level":
            self._set_layouts(str(event.value))
        values = self.values()
        if field in ("size", "logical_sector", "physical_sector", "rotational"):
            self._match_preset(values)
            values = self.values()
        self._sync_enabled(values)
        if field in ("size", "size2", "preset"):
            self._show_meanings(values)
        self.post_message(FormEdited(values, field))

    def _show_meanings(self, values: Values) -> None:
        for f in ("size", "size2"):
            self._by_id[f"meaning-{f}"].update(_meaning_of(str(values[f])), layout=False)

    def _apply_preset(self) -> None:
        key = self._controls["preset"].value
        preset = BY_KEY.get(str(key))
        if preset is None:
            return
        c = self._controls
        c["size"].value = str(preset.size)
        c["logical_sector"].value = str(preset.logical_sector)
        c["physical_sector"].value = str(preset.physical_sector)
        c["rotational"].value = preset.rotational

    def _match_preset(self, values: Values) -> None:
        """Keep the model choice honest: it names a preset only while every property matches it."""
        try:
            size = parse_size(str(values["size"]))
        except PlanError:
            size = -1
        key = preset_for(
            size, int(values["logical_sector"]), int(values["physical_sector"]), bool(values["rotational"])
        )
        self._controls["preset"].value = key

    def _set_layouts(self, level: str) -> None:
        layout: Choice = self._controls["layout"]
        options = [(x, x) for x in layouts_for(level)]
        if layout.values[1:] != [v for _, v in options]:
            layout.set_options(options)

    def _sync_enabled(self, values: Values) -> None:
        """Grey out what the other choices make meaningless, so nobody edits a value that is ignored."""
        for field, off in _disabled(values).items():
            self._controls[field].disabled = off
        for field, gone in _hidden(values).items():
            self._controls[field].display = not gone
            self._by_id[f"label-{field}"].display = not gone


def _meaning_of(text: str) -> str:
    if not text.strip():
        return ""
    try:
        return size_meaning(parse_size(text))
    except PlanError:
        return "not a size"


def _disabled(values: Values) -> dict[str, bool]:
    """Whether each field the other choices can make meaningless is so."""
    lvm = bool(values["lvm"])
    no_md = str(values["groups"]).strip() == "0"
    return {
        **dict.fromkeys(("level", "members", "spares", "bitmap", "metadata"), no_md),
        "layout": no_md or not layouts_for(values["level"]),
        "chunk": no_md or values["level"] == "1",
        "size2": values["count2"].strip() in ("", "0"),
        "lvm_mode": not lvm,
        "extent_size": not lvm,
        "data_alignment": not lvm,
        "lv_size": not lvm,
        "stripe_size": not lvm or values["lvm_mode"] != "striped",
        "reserved": values["fs"] in ("xfs", "btrfs"),
    }


def _hidden(values: Values) -> dict[str, bool]:
    """Whether each row that can go is gone."""
    # XFS has no reserved blocks: the row goes rather than show a number that means nothing.
    btrfs = values["fs"] == "btrfs"
    return {
        "reserved": values["fs"] in ("xfs", "btrfs"),
        "data_profile": not btrfs,
        "metadata_profile": not btrfs,
        "no_stripe": btrfs,  # btrfs takes no stripe from mkfs
    }
