"""A one-line choice among a handful of options: `◂ RAID6 ▸`.

A form of a dozen drop-downs costs a dozen overlays and option lists, which shows in the
time to first paint; most choices here have two to six options, so cycling through them
in place is both lighter and quicker to use from the keyboard:

- left / right (or space) step through the options, wrapping around;
- typing a character jumps to the next option whose label contains it ("6" -> RAID6);
- a click on the left arrow steps back, anywhere else steps forward.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from app.tui.keys import bindings


class Choice(Widget, can_focus=True):
    """Pick one value among `options` ((label, value) pairs); '' is the blank choice if `blank` names it."""

    BINDINGS = bindings("choice")

    value: reactive[str] = reactive("", init=False)
    """The chosen value ('' = the blank choice)."""

    @dataclass
    class Changed(Message):
        """The user (or code) picked another value."""

        choice: Choice
        value: str

        @property
        def control(self) -> Choice:
            return self.choice

    def __init__(
        self,
        options: list[tuple[str, str]],
        value: str = "",
        *,
        blank: str = "",
        id: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(id=id, disabled=disabled)
        self._blank = blank
        self._options: list[tuple[str, str]] = []
        self.set_options(options)
        self.set_reactive(Choice.value, value if value in self.values else self.values[0] if self.values else "")

    @property
    def values(self) -> list[str]:
        return [v for _, v in self._options]

    def set_options(self, options: list[tuple[str, str]]) -> None:
        """Replace the options; the value falls back to the first one if it is no longer offered."""
        self._options = ([(self._blank, "")] if self._blank else []) + list(options)
        if self.is_mounted and self.value not in self.values:
            self.value = self.values[0] if self.values else ""
        self.refresh()

    def is_blank(self) -> bool:
        return self.value == ""

    def render(self) -> Text:
        label = next((lbl for lbl, v in self._options if v == self.value), self.value)
        if not self._options or len(self._options) == 1:
            return Text(f"  {label}")
        return Text.assemble(("◂ ", "dim"), label, (" ▸", "dim"))

    def watch_value(self, value: str) -> None:
        self.post_message(self.Changed(self, value))

    def action_step(self, delta: int) -> None:
        values = self.values
        if values:
            i = values.index(self.value) if self.value in values else 0
            self.value = values[(i + delta) % len(values)]

    def on_key(self, event: events.Key) -> None:
        if not event.is_printable or not event.character or event.character == " ":
            return
        values = self.values
        i = values.index(self.value) if self.value in values else -1
        for step in range(1, len(values) + 1):
            label, value = self._options[(i + step) % len(values)]
            if event.character.lower() in label.lower():
                self.value = value
                event.stop()
                return

    def on_click(self, event: events.Click) -> None:
        self.action_step(-1 if event.x < 2 else 1)
