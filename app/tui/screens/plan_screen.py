"""The plan screen: the form on the left, every figure it implies on the right.

`values` (what the form shows) is the reactive input; each change recomputes the plan at
once. Computing a 60-disk plan takes well under a millisecond, so it runs on the UI thread
and the figures follow the keystroke with no debounce and no race between answers.

A keystroke reaches the figures through a few message hops (key -> Input.Changed ->
FormEdited). Left alone, Textual paints the echo of the key first and the figures one frame
(1/60 s) later; `hold_frame` batches the two into one paint, which is what the user waits for.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager
from typing import Any

from textual import events, on
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, Static, TabbedContent

from app.tui.form_model import Values, compute_form, values_from_plan
from app.tui.keys import bindings
from app.tui.messages import FormEdited, PlanComputed, PlanRejected
from app.tui.widgets.footer import PodplanFooter
from app.tui.widgets.plan_form import PlanForm
from app.tui.widgets.results import RESULT_TABS, ResultsPane
from planners.errors import PlanError
from planners.models import Plan

TABS = tuple(RESULT_TABS)
# xterm, tmux and most Linux terminals send alt+1 as ESC 1, which Textual reads as the character
# macOS puts on option+1 ('¡'), and a focused text field would take it: the app turns these four
# into their tabs before any field sees them (PodplanApp.on_event), or alt+1..4 do nothing there.
TAB_OF_ALT_DIGIT = dict(
    zip(("inverted_exclamation_mark", "trade_mark_sign", "pound_sign", "cent_sign"), TABS, strict=True)
)


class PlanScreen(Screen[None]):
    """Edit a plan and watch its capacity, alignment and findings follow."""

    AUTO_FOCUS = "#count"
    # The result tabs are reached from any field: typing stays in the form, the figures change tab.
    BINDINGS = bindings("plan")

    values: var[Values] = var(dict, init=False)

    def __init__(self, plan: Plan) -> None:
        super().__init__(id="plan-screen", classes=_breakpoint_class(self.app))
        self.base = plan
        self._initial = values_from_plan(plan)
        """What the form shows for `base`: each keystroke's values are compared with it."""
        self._held: AbstractContextManager[None] | None = None
        self.started = asyncio.Event()
        """Set once the form is mounted and its first figures computed (or refused)."""
        self._shown = False
        self._form_focus: Widget | None = None  # where ctrl+f left the form, to go back to

    # Longest a key may hold the paint back when it edits nothing (cursor moves, tab).
    HOLD_SECONDS = 0.02

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="plan-body"):
            with Vertical(id="form-column"):
                yield PlanForm(self._initial, id="form")
                yield Static(id="form-error")
            yield ResultsPane(id="results")
        # What fits in 80 columns; f4, ctrl+o, ctrl+t (and at 80 columns f9, ctrl+f and ctrl+p) are in
        # the help (f1) and the palette.
        yield PodplanFooter()

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Textual's own handler (Screen's, run after this one) restyles every widget of the
        # screen when the screen shows. The first time, each widget was styled as it was mounted
        # and every change since (focus, classes) restyled the widget it touched: a second pass
        # over the hundred widgets, a good share of the time before the first paint, would change
        # nothing. Later shows (back from another screen, after a theme change) restyle as usual.
        if not self._shown:
            self._shown = True
            event.refresh_styles = False

    def on_mount(self) -> None:
        try:
            self.values = dict(self._initial)
        finally:
            self.started.set()

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#result-tabs", TabbedContent).active = tab
        self._keep_focus_in_figures()

    def action_next_tab(self, step: int = 1) -> None:
        tabs = self.query_one("#result-tabs", TabbedContent)
        tabs.active = TABS[(TABS.index(tabs.active) + step) % len(TABS)]
        self._keep_focus_in_figures()

    def action_focus_figures(self) -> None:
        """ctrl+f: into the figures of the tab in view (arrows, PgUp/PgDn, Home/End scroll them); again, back
        to the field it left."""
        if self._in_figures():
            back = self._form_focus if self._form_focus is not None and self._form_focus.is_attached else None
            (back or self.query_one("#count")).focus()
            return
        self._form_focus = self.focused
        self._focus_active_scroll()

    def _in_figures(self) -> bool:
        return self.focused is not None and self.query_one(ResultsPane) in self.focused.ancestors_with_self

    def _keep_focus_in_figures(self) -> None:
        # The scroll that had focus is hidden with its tab; the new tab's scroll is made as it is shown.
        if self._in_figures():
            self.call_after_refresh(self._focus_active_scroll)

    def _focus_active_scroll(self) -> None:
        tabs = self.query_one("#result-tabs", TabbedContent)
        scroll = tabs.get_pane(tabs.active).query(".result-scroll").first()
        scroll.focus()

    def load(self, plan: Plan) -> None:
        """Start over from `plan` (a file just opened, or a pinned variant)."""
        self.base = plan
        values = values_from_plan(plan)
        self._initial = values
        self.query_one(PlanForm).fill(values)
        self.values = dict(values)

    def hold_frame(self) -> None:
        """Paint nothing until the key now arriving has updated the figures (or HOLD_SECONDS pass)."""
        if self._held is None:
            self._held = self.app.batch_update()
            self._held.__enter__()
            self.set_timer(self.HOLD_SECONDS, self.release_frame)

    def release_frame(self, *, figures_changed: bool = False) -> None:
        if self._held is not None:
            held, self._held = self._held, None
            if figures_changed:
                # Widgets report their own repaints from their idle handlers, which can come after
                # the next frame; a screen repaint takes every widget already marked dirty now.
                self.refresh()
            held.__exit__(None, None, None)

    def on_screen_suspend(self) -> None:
        self.release_frame()

    @on(FormEdited)
    def _form_edited(self, event: FormEdited) -> None:
        self.values = event.values

    def watch_values(self, values: dict[str, Any]) -> None:
        form = self.query_one(PlanForm)
        try:
            plan, result = compute_form(self.base, values, self._initial)
        except PlanError as exc:
            form.show_error(exc.field, exc.message)
            self.query_one(ResultsPane).reject(exc.message)
            self.post_message(PlanRejected(exc.message, exc.field))
            self.release_frame(figures_changed=True)
            return
        except Exception as exc:  # noqa: BLE001 - a planner bug must not take the user's session down
            form.show_error("", f"internal error: {exc!r}")
            self.query_one(ResultsPane).reject(f"internal error: {exc!r}")
            self.post_message(PlanRejected(f"internal error: {exc!r}", ""))
            self.release_frame()
            return
        form.clear_error()
        self.query_one(ResultsPane).show(plan, result)
        self.post_message(PlanComputed(plan, result))
        self.release_frame(figures_changed=True)


def _breakpoint_class(app: App[Any]) -> str:
    """The class Textual's first resize gives the screen for the terminal's width (`-narrow`...).

    Given from the start: added by that resize, it would restyle every widget of the screen a
    second time, tens of milliseconds before the first paint.
    """
    width = app.size.width
    return next((name for edge, name in sorted(app.HORIZONTAL_BREAKPOINTS or [], reverse=True) if width >= edge), "")
