"""The plan screen's footer: the keys that fit 80 columns, and on a wide terminal a few more.

At 80 columns the footer is full with the keys a first look needs; from the `-wide`
breakpoint (podplan.tcss) it also shows the keys of `WIDE_ONLY` and the command palette's,
which otherwise only the help (f1) and the palette itself name.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported; Textual is pinned (pyproject.toml)

# Actions of bindings kept out of the narrow footer (show=False) that a wide one shows.
WIDE_ONLY = ("focus_figures", "grow")


class PodplanFooter(Footer):
    """A compact Footer with the palette's key, and the `WIDE_ONLY` keys marked `-wide-only`."""

    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=True)

    def compose(self) -> ComposeResult:
        yield from super().compose()
        if not self._bindings_ready:
            return
        active = {binding.action: (binding, enabled) for _, binding, enabled, _ in self.screen.active_bindings.values()}
        for action in WIDE_ONLY:
            if action in active:
                binding, enabled = active[action]
                yield FooterKey(
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    disabled=not enabled,
                    classes="-wide-only",
                ).data_bind(compact=Footer.compact)


class ScreenFooter(Footer):
    """The footer of the screens other than the plan's: their own keys, then help and the palette.

    The app's keys (f2 script, f3 compare, ctrl+s save, ...) still work there, but listed after a
    screen's own they pushed its last keys past 80 columns, cut mid-label ('r R', 'f2 S'); the
    palette (ctrl+p) and the help (f1) name them all.
    """

    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=True)

    def compose(self) -> ComposeResult:
        from app.tui.keys import KEYS

        hidden = {k.action for k in KEYS if k.where == "app" and k.id != "app.help"}
        shown = [w for w in super().compose() if not (isinstance(w, FooterKey) and w.action in hidden)]
        self.styles.grid_size_columns = len(shown)
        yield from shown
