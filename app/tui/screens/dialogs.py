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


class ChangedOnDisk(ModalScreen[str | None]):
    """Saving over the plan file that another program changed since it was opened or saved:
    'save_as' another file, 'reload' it (the form's edits are lost), 'overwrite' it, or None."""

    BINDINGS = bindings("changed")

    def __init__(self, path: object) -> None:
        super().__init__(classes="dialog-screen")
        self._question = (
            f"{path} was changed on disk since podplan opened or saved it (an editor, git, another podplan): "
            "saving over it would lose that change. Save as another file, reload it (the form's edits are lost), "
            "or overwrite it?"
        )

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._question, classes="dialog-title")
            with Horizontal(classes="dialog-buttons"):
                # Compact: four buttons of the usual width would not fit the dialog at 80 columns.
                yield Button("Cancel", id="cancel", compact=True)
                yield Button("Save as...", variant="primary", id="save_as", compact=True)
                yield Button("Reload", id="reload", compact=True)
                yield Button("Overwrite", variant="error", id="overwrite", compact=True)

    def on_mount(self) -> None:
        self.query_one("#save_as").focus()  # the answer that loses nothing

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "cancel" else event.button.id)

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer or None)
