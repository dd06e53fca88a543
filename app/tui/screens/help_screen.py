"""Help: what the screens do and every key, in one page."""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from app.tui.keys import bindings, help_table

HELP = """\
# podplan

Type in the form on the left; the figures on the right follow every keystroke.
A value the plan cannot take is marked in red with the reason, and the last valid
figures stay on screen until the form makes sense again.

## Keys

{keys}

## Fields

* **plan name** names the saved file (`NAME.toml`) and the build script, which asks you to type it before it changes anything: letters, digits and `_.+-` only, as in a plan file.
* **size** takes bytes or sizes such as `2TB` (decimal), `1.8TiB` or `512K` (binary); a bare `T` is binary too (`18T` = 18 TiB = 19.79 TB), and the line under it says what was understood.
* **members** empty shares the disks out evenly over the groups, after the spares.
* **chunk**, **stripe size**, **data align** empty use the tools' defaults.

Files are written atomically (temporary file, then rename) and never overwritten
without asking.
"""


def help_text(keymap: Mapping[str, str] | None = None) -> str:
    """The help page, its keys as a keymap has them (keys.help_table)."""
    return HELP.replace("{keys}", help_table(keymap))


class HelpScreen(ModalScreen[None]):
    BINDINGS = bindings("help")

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(help_text(getattr(self.app, "keymap", None)))
