"""A check box whose mark says its state: `▐X▌` ticked, `▐ ▌` not.

Textual's Checkbox draws the same X either way and tells the two apart by colour alone,
which a monochrome terminal, a colour-blind user or a pasted screenshot loses.
"""

from __future__ import annotations

from textual.widgets import Checkbox


class Tick(Checkbox):
    """A Checkbox with an empty box when off; styled, bound and posting messages as a Checkbox."""

    # Textual's ToggleButton reads a class constant; a property gives the box the state it draws.
    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return "X" if self.value else " "
