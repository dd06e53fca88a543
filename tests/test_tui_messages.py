"""The TUI's own messages are dataclasses (Textual's `@dataclass class X(Message)`): fields named once, the
handlers' names as before."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pathlib

from textual.message import Message

from app.tui import messages, work_messages
from app.tui.widgets.choice import Choice

TUI = pathlib.Path(__file__).resolve().parent.parent / "app" / "tui"


def _tui_messages() -> list[type[Message]]:
    found: list[type[Message]] = []
    for p in sorted(TUI.rglob("*.py")):
        module = importlib.import_module(".".join(p.relative_to(TUI.parent.parent).with_suffix("").parts))
        for _, cls in inspect.getmembers(module, inspect.isclass):
            for c in (cls, *(v for v in vars(cls).values() if inspect.isclass(v))):
                if issubclass(c, Message) and c.__module__ == module.__name__ and c not in found:
                    found.append(c)
    return found


def test_every_message_of_the_tui_is_a_dataclass() -> None:
    found = _tui_messages()
    assert len(found) >= 15, [c.__name__ for c in found]
    assert [c.__qualname__ for c in found if not dataclasses.is_dataclass(c)] == []


def test_the_handlers_keep_their_names() -> None:
    assert messages.PlanComputed.handler_name == "on_plan_computed"
    assert work_messages.ValidationFinished.handler_name == "on_validation_finished"
    assert Choice.Changed.handler_name == "on_choice_changed"


def test_a_message_takes_its_fields_in_order_and_starts_as_textual_expects() -> None:
    rejected = messages.PlanRejected("groups must divide the disks", "groups")
    assert (rejected.message, rejected.field) == ("groups must divide the disks", "groups")
    assert rejected.time > 0 and not rejected._stop_propagation  # Message.__post_init__ ran
    finished = work_messages.ValidationFinished(outcome=None)  # type: ignore[arg-type]
    assert finished.outcome is None and finished.time > 0
