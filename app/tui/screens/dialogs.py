"""Small modal questions: which file, and may it be overwritten."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from app.tui.keys import bindings


class PathPrompt(ModalScreen[str | None]):
    """Ask for a file path; dismiss with the path, or None when cancelled."""

    BINDINGS = bindings("prompt")

    def __init__(self, title: str, default: str = "", *, unload: str = "") -> None:
        """`unload`: a button of that label that dismisses with "" (the job file prompt's 'Unload')."""
        super().__init__(classes="dialog-screen")
        self._title = title
        self._default = default
        self._unload = unload

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="dialog-title")
            yield Input(self._default, id="path", placeholder="file name or path")
            with Horizontal(classes="dialog-buttons"):
                yield Button("OK", variant="primary", id="ok")
                if self._unload:
                    yield Button(self._unload, id="unload")
                yield Button("Cancel", id="cancel")

    @on(Button.Pressed, "#unload")
    def _unload_pressed(self) -> None:
        self.dismiss("")

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        path = self.query_one("#path", Input).value.strip()
        if path:
            self.dismiss(path)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class Confirm(ModalScreen[bool]):
    """A yes/no question whose default answer is no."""

    BINDINGS = bindings("confirm")

    def __init__(self, question: str, yes: str = "Yes, overwrite") -> None:
        super().__init__(classes="dialog-screen")
        self._question = question
        self._yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._question, classes="dialog-title")
            with Horizontal(classes="dialog-buttons"):
                yield Button("No", variant="primary", id="no")
                yield Button(self._yes, variant="error", id="yes")

    def on_mount(self) -> None:
        self.query_one("#no").focus()

    @on(Button.Pressed, "#yes")
    def action_yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def action_no(self) -> None:
        self.dismiss(False)


class QuitDialog(ModalScreen[str]):
    """Quitting with changes no file has: 'save' (then quit), 'quit' without saving, or 'stay'."""

    BINDINGS = bindings("quit")

    def __init__(self, question: str) -> None:
        super().__init__(classes="dialog-screen")
        self._question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._question, classes="dialog-title")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Stay", id="stay")
                yield Button("Save and quit", variant="primary", id="save")
                yield Button("Quit without saving", variant="error", id="quit")

    def on_mount(self) -> None:
        self.query_one("#save").focus()  # the answer that loses nothing and still quits

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "stay")

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
