"""The podplan application: keeps the current plan, the pinned variants and the file it came from."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.actions import parse as parse_action
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from app.tui.keys import BY_ID, bindings, keys_of, palette_entry, palette_keys, say
from app.tui.messages import FileFailed, FileSaved, PlanComputed, PlanOpened, PlanRejected
from app.tui.recovery import KeepsEdits, origin_of, when
from app.tui.saving import SavesFiles, identity_of
from app.tui.screens.plan_screen import TAB_OF_ALT_DIGIT, PlanScreen
from app.tui.variants import Variant
from app.tui.widgets.plan_form import PlanForm
from planners.errors import PlanError, PodplanError
from planners.models import Plan
from planners.results import PlanResult

if TYPE_CHECKING:
    from app.tui.widgets.curve import MeasuredPoints
    from app.usecases.predict import HostParity, JobFile

# Screens other than the plan screen are imported when first opened: first paint matters more.

_DIALOG_WORKERS = frozenset({"recovery-dialog", "quit-dialog", "job-dialog", "open-dialog", "save-dialog"})
"""The app's workers whose errors on_worker_state_changed reports; the others (file-io, host-cpu) catch their own."""


class PodplanApp(SavesFiles, KeepsEdits, App[int]):
    """Plan a storage array interactively."""

    CSS_PATH = Path(__file__).with_name("podplan.tcss")
    TITLE = "podplan"
    # Under 60 columns the form and the figures stand one above the other: side by side the figures
    # had a few columns, and a 17-digit byte count broke across lines.
    HORIZONTAL_BREAKPOINTS = [(0, "-tiny"), (60, "-narrow"), (110, "-wide")]
    BINDINGS = bindings("app")  # every key is in app/tui/keys.py, with its id for a keymap

    def __init__(
        self, plan: Plan, plan_file: str | Path | None = None, theme: str = "textual-dark", units: str = "decimal"
    ) -> None:
        super().__init__()
        self.start_plan = plan
        self.plan_file = Path(plan_file) if plan_file else None
        self.plan: Plan = plan
        self.result: PlanResult | None = None
        self.error = ""
        self.variants: list[Variant] = []
        self.units = units  # TB or TiB first where both are shown: the config file's
        self.theme = theme  # the config file's (read by the caller, where a bad file is one line)
        # The plan as last opened or saved (None: never saved); compared with the form's plan for
        # the modified mark. Taken from the form's first computation after an open, so that the
        # form's own spelling of a file's plan does not count as a change.
        self.saved_plan: Plan | None = None
        self._take_saved_from_form = True
        self._saving: Plan | None = None
        self._quit_after_save = False  # 'save and quit': exit once the plan is written
        self._origin = f"example {plan.name}"
        self._remember_identity(self.plan_file)
        # What the Perf tab, the compare screen and validate read besides the plan: the app's, not
        # a widget module's, so that two apps (tests, an embedding program) never share them.
        self.host_parity: HostParity | None = None
        """This host's raid6/xor benchmark, read once in a worker after the first paint; None until
        then (the plan's own figures or presets are used meanwhile)."""
        self.loaded_job: tuple[JobFile | None, str] = (None, "")
        """The fio job file loaded with ctrl+j (None if none) and where it was read."""
        self.measured: MeasuredPoints = {}
        """What validate measured last, drawn on the Perf tab's curves until the next run."""
        self._recovery_init()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The TUI's one catch of podplan's own errors (planners.errors.PodplanError): one that
        leaves one of the app's workers (a file it cannot read, a program missing or failing)
        becomes a notification, the line the command line would print, and the session goes on.
        Anything else is a bug: raised again here, it ends the app with its traceback as Textual
        does. The app's workers run with exit_on_error=False so that their errors come here, as
        a message, rather than through Textual's private App._handle_exception; a screen's or a
        widget's workers report to that node (the message does not bubble), each catching its own."""
        if event.state != WorkerState.ERROR or event.worker.group not in _DIALOG_WORKERS:
            return
        error = event.worker.error
        if isinstance(error, PodplanError):
            self.notify(error.message, severity="error", timeout=10)
        elif error is not None:
            raise error

    def get_default_screen(self) -> Screen:
        return PlanScreen(self.start_plan)

    async def on_mount(self) -> None:
        # The plan screen is the app's first screen, and the app's start waits for the form and
        # its first figures only, not for their first frame. Textual holds every paint back
        # until the app's start is over: pushed from here instead, the plan screen would be laid
        # out and rendered inside that hold, its frame thrown away and made again after it.
        # Waiting here keeps what a test or an embedding program sees once the app is ready:
        # the plan screen in place, figures computed.
        self._set_subtitle()
        await self._plan_screen().started.wait()
        self._recovery_start()
        self._offer_kept_edits()
        self.call_after_refresh(self._first_frame_painted)

    def on_unmount(self) -> None:
        self._recovery_stop()

    @work(exclusive=True, exit_on_error=False, group="recovery-dialog")
    async def _offer_kept_edits(self) -> None:
        """The edits a hangup or SIGTERM kept at the last start of this plan: restore them, or drop them."""
        from app.tui.screens.dialogs import Confirm

        kept, self._kept = self._kept, None
        restored = False
        if kept is not None and kept.plan != self.plan:
            question = (
                f"podplan ended on {when(kept.written)} with unsaved edits of {self._where()}; "
                "they were kept. Restore them into the form?"
            )
            if restored := await self.push_screen_wait(Confirm(question, yes="Restore")):
                self.load_into_form(kept.plan, "the kept edits")
        self._keeping = True
        if kept is not None and not restored:
            self._edits_gone()  # declined (or the same as the file): the copy goes
        else:
            self._edits_changed()

    def _first_frame_painted(self) -> None:
        self._collect_garbage_again()
        # Well after the first paint: a subprocess and a parse in a thread still hold the GIL now and then.
        self.set_timer(
            1.0, lambda: self.run_worker(self._read_host_parity, thread=True, exit_on_error=False, group="host-cpu")
        )

    @staticmethod
    def _collect_garbage_again() -> None:
        """The cyclic collector, off since start-up (app.cli.main), runs again.

        What start-up made is frozen first (kept out of every later collection), so that a
        collection during typing walks only what was made since. A no-op where nobody turned
        the collector off (tests, an embedding program).
        """
        if not gc.isenabled():
            gc.freeze()
            gc.enable()

    def _read_host_parity(self) -> None:
        """This host's raid6/xor benchmark for the Perf tab; read after the first paint (dmesg can be slow)."""
        from app.shared.host_cpu import host_parity

        self.call_from_thread(self._host_parity_read, host_parity())

    def _host_parity_read(self, parity: HostParity) -> None:
        self.host_parity = parity
        self._redraw_figures()

    def _redraw_figures(self) -> None:
        from app.tui.widgets.results import ResultsPane

        for pane in self.screen.query(ResultsPane):
            pane.refresh_figures()

    @property
    def modified(self) -> bool:
        """The form holds changes that no file has: quitting or opening another file would lose them.

        A value the plan cannot take is a change too: the user typed it, and no file holds it.
        """
        return self.saved_plan is None or self.plan != self.saved_plan or bool(self.error)

    def _set_subtitle(self) -> None:
        where = str(self.plan_file) if self.plan_file else self._origin
        mark = " [modified]" if self.saved_plan is not None and self.modified else ""
        self.sub_title = where + mark + ("" if self.plan_file else " (not saved)")

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and isinstance(self.screen, PlanScreen):
            if event.key in TAB_OF_ALT_DIGIT:
                self.screen.action_show_tab(TAB_OF_ALT_DIGIT[event.key])
                return
            focused = self.screen.focused
            if focused is not None and isinstance(focused.parent, PlanForm):
                self.screen.hold_frame()
        await super().on_event(event)

    # -- state from the plan screen ----------------------------------------------------------
    @on(PlanComputed)
    def _plan_computed(self, event: PlanComputed) -> None:
        self.plan, self.result, self.error = event.plan, event.result, ""
        if self._take_saved_from_form:
            self._take_saved_from_form = False
            self.saved_plan = event.plan
        self._set_subtitle()
        self._edits_changed()

    @on(PlanRejected)
    def _plan_rejected(self, event: PlanRejected) -> None:
        self.error = event.message
        self._set_subtitle()
        self._edits_changed()

    def _plan_screen(self) -> PlanScreen:
        return next(s for s in self.screen_stack if isinstance(s, PlanScreen))

    def _back_to_plan(self) -> None:
        while not isinstance(self.screen, PlanScreen):
            self.pop_screen()

    # -- actions ----------------------------------------------------------------------------
    def action_help(self) -> None:
        from app.tui.screens.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_script(self) -> None:
        if self.result is None:
            self.notify("No valid plan yet: fix the form first", severity="error")
            return
        from app.tui.screens.script_screen import ScriptScreen

        self._back_to_plan()
        self.push_screen(ScriptScreen(self.plan, self.result, stale=self.error))

    def action_compare(self) -> None:
        from app.tui.screens.compare_screen import CompareScreen

        self._back_to_plan()
        current = Variant("current", self.plan, self.result) if self.result else None
        self.push_screen(CompareScreen(self.variants, current))

    def action_sweep(self) -> None:
        if self.result is None:
            self.notify("No valid plan yet: fix the form first", severity="error")
            return
        from app.tui.screens.sweep_screen import SweepScreen

        if isinstance(self.screen, SweepScreen):
            return
        if self.screen.id != "compare-screen":  # from Compare, escape goes back to Compare
            self._back_to_plan()
        if self.error:
            self.notify("The form has an error: sweeping the disks of the last valid plan", severity="warning")
        self.push_screen(SweepScreen(self.plan))

    def action_detected_disks(self) -> None:
        from app.tui.screens.disks_screen import DisksScreen

        if not isinstance(self.screen, DisksScreen):
            self._back_to_plan()
            self.push_screen(DisksScreen())

    def action_grow(self) -> None:
        if self.result is None:
            self.notify("No valid plan yet: fix the form first", severity="error")
            return
        from app.tui.screens.grow_screen import GrowScreen

        if not isinstance(self.screen, GrowScreen):
            self._back_to_plan()
            self.push_screen(GrowScreen(self.plan))

    def open_new_plan(self, plan: Plan, what: str) -> None:
        """A new plan, from no file, in the form; `what` says where it came from."""
        self.plan_file = None
        self.saved_plan = None  # never saved: quitting asks first
        self._origin = what
        self.load_into_form(plan, what)
        self._set_subtitle()

    def action_pin(self) -> None:
        if self.result is None or self.error:
            self.notify("The form has an error; fix it before pinning", severity="error")
            return
        name = _variant_name(len(self.variants))
        self.variants.append(Variant(name, self.plan, self.result))
        self.notify(f"Pinned the current plan as {name}; f3 compares the variants")

    def action_validate(self) -> None:
        from app.tui.screens.validate_screen import ValidateScreen

        self._back_to_plan()
        self.push_screen(ValidateScreen(self.plan if self.result is not None else None))

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"
        self._save_theme(self.theme)

    @work(thread=True, exclusive=True, exit_on_error=False, group="config")
    def _save_theme(self, theme: str) -> None:
        """The toggled theme into the config file (its one line; the file's other keys and comments
        stay), so the next start has it. A file that cannot be written is said, the toggle stands."""
        from app.shared.config import save_setting

        try:
            save_setting("theme", theme)
        except (PodplanError, OSError) as exc:
            message = exc.message if isinstance(exc, PodplanError) else f"{exc.strerror or exc}"
            self.call_from_thread(self.notify, f"Theme not saved: {message}", severity="warning")

    def load_variant(self, variant: Variant) -> None:
        self.load_into_form(variant.plan, f"variant {variant.name}")

    def load_into_form(self, plan: Plan, what: str) -> None:
        """Back to the plan screen with `plan` in the form; `what` names it in the notification."""
        self._back_to_plan()
        self._plan_screen().load(plan)
        self.notify(f"Loaded {what} into the form")

    # -- files --------------------------------------------------------------------------------
    # A worker, so the dialog's answer can be awaited; Textual runs the action and drops what it returns.
    @work(exclusive=True, exit_on_error=False, group="quit-dialog")
    async def action_quit(self) -> None:  # type: ignore[override]
        """ctrl+q: when the form holds changes no file has, ask: save them first, quit anyway, or stay."""
        if not self.modified:
            self.exit()
            return
        from app.tui.screens.dialogs import QuitDialog

        answer = await self.push_screen_wait(QuitDialog(f"{self._where()} has unsaved changes."))
        if answer == "quit":
            self._edits_gone()
            self.exit()
        elif answer == "save":
            self._save_plan(then_quit=True)

    def _where(self) -> str:
        return str(self.plan_file) if self.plan_file else f"{self._origin} (never saved)"

    @work(exclusive=True, exit_on_error=False, group="job-dialog")
    async def action_load_job(self) -> None:
        """An fio job file's sections, predicted on the Perf tab beside the suite."""
        from app.shared.planfile import load_job_file
        from app.tui.screens.dialogs import PathPrompt

        job, source = self.loaded_job
        answer = await self.push_screen_wait(
            PathPrompt("Predict the jobs of an fio job file", source, unload="Unload" if job else "")
        )
        if answer is None:
            return
        if not answer:
            self.loaded_job = (None, "")
            self._redraw_figures()
            self.notify(f"Unloaded {source}: the Perf tab shows the suite alone")
            return
        path = Path(answer).expanduser()
        # a file it cannot read or parse: the app's one catch (on_worker_state_changed) says so
        parsed = load_job_file(path)
        self.loaded_job = (parsed, str(path))
        self._back_to_plan()
        self._plan_screen().action_show_tab("tab-performance")
        self._redraw_figures()
        refused = f"; {len(parsed.refused)} not predicted (listed there)" if parsed.refused else ""
        self.notify(f"Predicting {len(parsed.workloads)} job(s) of {path} on the Perf tab{refused}")

    @work(exclusive=True, exit_on_error=False, group="open-dialog")
    async def action_open_plan(self) -> None:
        from app.tui.screens.dialogs import Confirm, PathPrompt

        if self.modified and not await self.push_screen_wait(
            Confirm(f"Open another plan and lose the changes to {self._where()}?", yes="Yes, open")
        ):
            return
        answer = await self.push_screen_wait(PathPrompt("Open a plan file (TOML)", str(self.plan_file or "")))
        if answer:
            self._read(Path(answer).expanduser())

    @work(thread=True, exclusive=True, exit_on_error=False, group="file-io")
    def _read(self, path: Path) -> None:
        from app.shared.planfile import load_plan

        try:
            plan = load_plan(path)
            identity = identity_of(path)
        except PlanError as exc:
            self.post_message(FileFailed(exc.message))
        except OSError as exc:
            self.post_message(FileFailed(f"{path}: cannot read ({exc.strerror or exc})"))
        else:
            self.post_message(PlanOpened(plan, path, identity))

    @on(PlanOpened)
    def _plan_opened(self, event: PlanOpened) -> None:
        self.plan_file = event.path
        self.file_identity = event.identity  # type: ignore[assignment]
        self._take_saved_from_form = True
        self._back_to_plan()
        self._plan_screen().load(event.plan)
        self._set_subtitle()
        self.notify(f"Opened {event.path}")

    @on(FileSaved)
    def _file_saved(self, event: FileSaved) -> None:
        if event.what == "plan":
            before = origin_of(self.plan_file, self._origin)
            self.plan_file = event.path
            self.file_identity = event.identity  # type: ignore[assignment]
            self._edits_gone(before)
            self.saved_plan = self._saving
            self._set_subtitle()
            if self._quit_after_save:
                self.exit()
                return
        self.notify(f"Saved the {event.what} to {event.path}")

    @on(FileFailed)
    def _file_failed(self, event: FileFailed) -> None:
        self._quit_after_save = False  # not written: stay, with the reason
        self.notify(event.message, severity="error", timeout=8)

    # -- command palette ------------------------------------------------------------------------
    @property
    def keymap(self) -> Mapping[str, str]:
        """Binding id -> keys, as set by `set_keymap` (Textual keeps it unexported; pinned in pyproject.toml)."""
        return self._keymap

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # Textual's own "Theme" offers every theme it ships; podplan's colours are chosen for the
        # dark and light pair its toggle switches between (contrast checked in both), no others.
        yield from (c for c in super().get_system_commands(screen) if c.callback != self.action_change_theme)
        on_screen = [b for b in type(screen).BINDINGS if isinstance(b, Binding)]
        screen_ids = {b.id for b in on_screen}
        # A screen's own binding of a key hides the app's (the grow screen's ctrl+s saves the grow
        # script, not the plan): the palette names what the key does where the user is.
        taken = {k.strip() for i in screen_ids if i in BY_ID for k in keys_of(i, self.keymap).split(",")}
        seen: set[str] = set()
        for key in palette_keys():
            if key.where == "app":
                if taken & {k.strip() for k in keys_of(key.id, self.keymap).split(",")}:
                    continue
            elif key.id not in screen_ids:
                continue
            namespace, name, params = parse_action(key.action)
            target = self if key.where == "app" or namespace == "app" else screen
            method = getattr(target, f"action_{name}", None)
            title, help_text = palette_entry(key)
            if method is None or title in seen:
                continue
            seen.add(title)
            callback = partial(method, *params) if params else method
            yield SystemCommand(title, say(help_text, self.keymap), callback)


def _variant_name(i: int) -> str:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return letters[i] if i < len(letters) else f"V{i + 1}"
