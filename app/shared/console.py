"""The Rich console of the command line: a terminal's width on a terminal, and never a cut figure.

Written to a file or a pipe, Rich would assume 80 columns and cut a wide table's cells into
an ellipsis ("26,003,426,508,8…"). podplan promises byte-exact figures, so off a terminal
each thing printed gets the width it needs: tables at their natural width, text unwrapped.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.measure import Measurement

# Wide enough for any table podplan prints; a measurement is capped by the width it is offered.
_UNBOUNDED = 100_000


class FitConsole(Console):
    """A Console whose output off a terminal is as wide as its widest line needs."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if self.is_terminal or not objects or kwargs.get("width") is not None:
            super().print(*objects, **kwargs)
            return
        options = self.options.update(width=_UNBOUNDED, max_width=_UNBOUNDED)
        need = max(
            Measurement.get(self, options, self.render_str(o) if isinstance(o, str) else o).maximum for o in objects
        )
        saved = self._width
        self._width = max(need, self.size.width)
        try:
            super().print(*objects, **kwargs)
        finally:
            self._width = saved


def cli_console(*, stderr: bool = False) -> Console:
    return FitConsole(stderr=stderr)
