"""One error root: every exception class podplan defines derives from PodplanError, so the command
line and the TUI each catch it in one place."""

from __future__ import annotations

import importlib
import inspect
import pathlib
import subprocess
import sys

from planners.errors import PlanError, PodplanError

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _modules() -> list[str]:
    names = []
    for layer in ("app", "planners", "runners"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


def _exception_classes() -> dict[str, type[BaseException]]:
    found = {}
    for name in _modules():
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == name and issubclass(cls, BaseException):
                found[f"{name}.{cls.__qualname__}"] = cls
    return found


def test_every_exception_class_derives_from_the_root():
    classes = _exception_classes()
    assert len(classes) >= 11  # the walk found them (a walk that finds none proves nothing)
    assert {name for name, cls in classes.items() if not issubclass(cls, PodplanError)} == set()


def test_subclasses_keep_their_behaviour():
    from runners.exec import MISSING, CommandError
    from runners.validate.guard import GuardError

    err = PlanError("groups: at most 64", "groups")
    assert isinstance(err, ValueError) and (err.message, err.field, str(err)) == (
        "groups: at most 64",
        "groups",
        "groups: at most 64",
    )
    assert PlanError("no field").field == ""
    missing = CommandError(["fio", "--version"], None, "", reason=MISSING)
    assert missing.message == str(missing) == "fio not found: install fio (apt-get install fio)"
    assert (missing.exit_status, GuardError("x").exit_status, err.exit_status) == (1, 2, 2)


def test_main_says_each_in_one_line_with_its_status(tmp_path):
    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "app.cli.main", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
        )

    bad_flag = cli("plan", "--chunk", "banana")
    assert bad_flag.returncode == 2 and bad_flag.stderr.count("\n") == 1 and bad_flag.stderr.startswith("podplan: ")
    # A GuardError reaches main() as itself (no longer re-raised as a PlanError on its way).
    guard = cli("validate", str(tmp_path / "absent"))
    assert guard.returncode == 2 and guard.stderr == f"podplan: {tmp_path / 'absent'}: no such device or directory\n"


async def test_the_tui_says_an_error_leaving_a_worker_and_goes_on(tmp_path):
    """ctrl+j on a job file that is not there: the job loader no longer catches the error itself; the
    app's one catch turns it into the line the CLI prints, and the session goes on."""
    from textual.widgets import Input

    from app.tui.app import PodplanApp
    from app.tui.screens.dialogs import PathPrompt
    from planners.example import example_pod
    from tests.tui_helpers import SIZE

    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+j")
        await pilot.pause()
        assert isinstance(app.screen, PathPrompt)
        app.screen.query_one("#path", Input).value = str(tmp_path / "absent.fio")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
        assert any("absent.fio: cannot read the job file" in m for m in said), said
        assert app.is_running and app.return_code is None
