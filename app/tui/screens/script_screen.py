"""The build script of the current plan, highlighted, with save and copy."""

from __future__ import annotations

import os

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from app.tui.keys import bindings
from app.tui.widgets.footer import ScreenFooter
from app.usecases.plan import PlanRequest, build_script
from planners.errors import PlanError
from planners.models import Plan
from planners.results import PlanResult


class ScriptScreen(Screen[None]):
    """Read the exact script `podplan script` would print for this plan."""

    BINDINGS = bindings("script")

    def __init__(self, plan: Plan, result: PlanResult, *, stale: str = "") -> None:
        super().__init__(id="script-screen")
        try:
            script = build_script(PlanRequest(plan), result)
        except PlanError as exc:  # a refusal (a system directory as mount point) shows instead of a script
            self.script, self._unnamed, self._refused = "", 0, exc.message
        else:
            self.script, self._unnamed, self._refused = script.text, script.unnamed, ""
        self._stale = stale

    def compose(self) -> ComposeResult:
        yield Header()
        if self._stale:
            yield Static(
                f"The form has an error ({self._stale}); this is the script of the last valid plan.",
                classes="stale-note",
            )
        if self._refused:
            yield Static(f"No script: {self._refused}.", classes="stale-note")
        if unnamed := self._unnamed:
            yield Static(
                f"{unnamed} disks have no device path: the script stops at their placeholders. f7 starts "
                "a plan from this machine's disks; `podplan script PLAN --devices PATH,...` names them.",
                classes="stale-note",
            )
        with VerticalScroll(id="script-scroll"):
            yield Static(id="script")
        yield ScreenFooter()

    def on_mount(self) -> None:
        self._highlight()
        self.query_one("#script-scroll").focus()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._highlight())

    def _highlight(self) -> None:
        theme = "monokai" if self.app.current_theme.dark else "default"
        syntax = Syntax(
            self.script, "bash", theme=theme, line_numbers=True, word_wrap=False, background_color="default"
        )
        self.query_one("#script", Static).update(syntax)

    def _said_refusal(self) -> bool:
        if self._refused:
            self.notify(f"No script: {self._refused}", severity="error", timeout=8)
        return bool(self._refused)

    def action_save_script(self) -> None:
        if not self._said_refusal():
            self.app.save_script(self.script)  # type: ignore[attr-defined]

    def action_copy_script(self) -> None:
        if self._said_refusal():
            return
        self.app.copy_to_clipboard(self.script)
        # The copy travels as a terminal escape (OSC 52): podplan cannot see whether the terminal
        # took it, so it says where it went and what to do if nothing arrived.
        via = " through tmux (it passes it on only with `set -g set-clipboard on`)" if os.environ.get("TMUX") else ""
        self.notify(
            f"Sent the script ({len(self.script.splitlines())} lines) to the terminal's clipboard{via}. "
            "Nothing to paste? Press s to save it to a file.",
            timeout=8,
        )
