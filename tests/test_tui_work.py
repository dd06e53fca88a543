"""The TUI loses no work and never freezes: long pastes into number fields, job files loaded again
and again, and an exit status that says when the app crashed."""

from __future__ import annotations

import time

import pytest
from textual import events
from textual.widgets import Input

from app.tui.app import PodplanApp
from planners.example import example_pod
from tests.tui_helpers import SIZE, text_of

NUMBER_FIELDS = ["count", "groups", "members", "spares", "reserved"]


async def _paste(pilot, field: str, text: str) -> float:  # type: ignore[no-untyped-def]
    widget = pilot.app.screen.query_one(f"#{field}", Input)
    widget.focus()
    await pilot.pause()
    start = time.perf_counter()
    widget.post_message(events.Paste(text))
    await pilot.pause()
    return time.perf_counter() - start


@pytest.mark.parametrize("field", NUMBER_FIELDS)
async def test_a_long_paste_into_a_number_field_is_answered_at_once(field: str) -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = app.screen.query_one(f"#{field}", Input).value
        # Textual's integer type backtracked exponentially on digits that end in a refused character.
        took = await _paste(pilot, field, "1" * 10_000 + "x")
        assert took < 1.0, f"{took:.1f} s to refuse a 10,001-character paste"
        assert app.screen.query_one(f"#{field}", Input).value == before


async def test_a_number_too_long_for_python_is_one_line_not_a_crash() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.screen.query_one("#count", Input)
        widget.value = ""
        took = await _paste(pilot, "count", "9" * 10_000)
        await pilot.pause()
        assert took < 1.0
        assert app.is_running
        assert "count" in text_of(app, "#form-error")
        assert len(text_of(app, "#form-error")) < 200


async def _load_job(pilot, path: str | None, button: str = "") -> None:  # type: ignore[no-untyped-def]
    from app.tui.screens.dialogs import PathPrompt

    await pilot.press("ctrl+j")
    await pilot.pause()
    assert isinstance(pilot.app.screen, PathPrompt)
    if button:
        await pilot.click(f"#{button}")
    else:
        pilot.app.screen.query_one(Input).value = path
        await pilot.press("enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


async def _on_perf_tab(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.pause()
    pilot.app.screen.query_one("#result-tabs").active = "tab-performance"
    await pilot.pause()


async def test_job_files_load_again_and_again_and_unload(tmp_path) -> None:
    from app.tui.widgets import perf
    from app.tui.widgets.curve import CurvePlot

    one, two = tmp_path / "one.fio", tmp_path / "two.fio"
    one.write_text("[global]\nioengine=libaio\ndirect=1\n[db]\nrw=randwrite\nbs=8k\n")
    two.write_text("[global]\nioengine=libaio\ndirect=1\n[scan]\nrw=read\nbs=1m\n[logs]\nstonewall\nrw=write\n")
    app = PodplanApp(example_pod())
    try:
        async with app.run_test(size=SIZE) as pilot:
            # The Perf tab first, so that its charts are drawn before any job file comes.
            await _on_perf_tab(pilot)
            suite = len(app.screen.query(CurvePlot))
            assert suite
            for path in (one, two, one, two, two):
                await _load_job(pilot, str(path))
                assert app.is_running and app.return_code is None
                assert perf.loaded_job()[1] == str(path)
            assert "scan" in "".join(p.curves[0].section for p in app.screen.query(CurvePlot))
            await _load_job(pilot, None, button="unload")
            assert perf.loaded_job() == (None, "")
            assert len(app.screen.query(CurvePlot)) == suite
            assert app.is_running
    finally:
        perf.set_jobs(None, "")


async def test_a_podplan_error_in_a_dialog_worker_is_a_notification_and_a_bug_ends_the_app(
    tmp_path, monkeypatch
) -> None:
    """The app's one catch (on_worker_state_changed): a job file it cannot read is the line the
    command line prints, the session goes on; anything else in the same worker ends the app."""
    import app.shared.planfile as planfile

    missing = tmp_path / "missing.fio"
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await _load_job(pilot, str(missing))
        assert app.is_running and app.return_code is None
        assert any(str(missing) in str(n.message) and n.severity == "error" for n in app._notifications)

    def bug(path):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug")

    monkeypatch.setattr(planfile, "load_job_file", bug)
    app = PodplanApp(example_pod())
    with pytest.raises(RuntimeError, match="a bug"):  # Textual's test harness raises what ended the app
        async with app.run_test(size=SIZE) as pilot:
            await _load_job(pilot, str(missing))
    assert app.return_code == 1


def test_the_tui_exits_non_zero_after_a_crash(monkeypatch) -> None:
    from textual.app import App

    from app.tui import run_tui

    def crash(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug")

    monkeypatch.setattr(PodplanApp, "get_default_screen", crash)
    run = App.run
    monkeypatch.setattr(App, "run", lambda self, **kw: run(self, headless=True, **kw))
    assert run_tui(example_pod()) == 1


async def _edit_count(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    widget = pilot.app.screen.query_one("#count", Input)
    widget.focus()
    await pilot.press("end", *["backspace"] * len(widget.value), *text)
    await pilot.pause()


def _kept_files():  # type: ignore[no-untyped-def]
    from app.tui.recovery import recovery_dir

    return sorted(recovery_dir().glob("*.toml")) if recovery_dir().is_dir() else []


async def _hang_up(pilot) -> None:  # type: ignore[no-untyped-def]
    import os
    import signal

    os.kill(os.getpid(), signal.SIGHUP)
    for _ in range(100):
        if not pilot.app.is_running:
            break
        await pilot.pause(0.05)


@pytest.mark.parametrize("answer", ["Restore", "No"])
async def test_a_hangup_keeps_the_edits_and_the_next_start_offers_them(answer: str, monkeypatch) -> None:
    from app.tui.recovery import KeepsEdits
    from app.tui.screens.dialogs import Confirm

    monkeypatch.setattr(KeepsEdits, "DEBOUNCE_S", 0.05)
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _edit_count(pilot, "44")
        assert app.plan.disks[0].count == 44
        await pilot.pause(0.2)
        assert len(_kept_files()) == 1  # written a moment after the change, before any signal
        await _hang_up(pilot)
    assert app.return_code == 129
    assert len(_kept_files()) == 1

    again = PodplanApp(example_pod())
    async with again.run_test(size=SIZE) as pilot:
        for _ in range(50):
            if isinstance(again.screen, Confirm):
                break
            await pilot.pause(0.05)
        assert isinstance(again.screen, Confirm)
        await pilot.click("#yes" if answer == "Restore" else "#no")
        await pilot.pause()
        await again.workers.wait_for_complete()
        await pilot.pause()
        if answer == "Restore":
            assert again.plan.disks[0].count == 44 and again.modified
            assert len(_kept_files()) == 1
        else:
            assert again.plan.disks[0].count == 45 and not again.modified
            assert _kept_files() == []


async def test_saving_drops_the_kept_copy(tmp_path, monkeypatch) -> None:
    from app.tui.recovery import KeepsEdits

    monkeypatch.setattr(KeepsEdits, "DEBOUNCE_S", 0.05)
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _edit_count(pilot, "44")
        await pilot.pause(0.2)
        assert len(_kept_files()) == 1
        await pilot.press("ctrl+s")
        await pilot.pause()
        pilot.app.screen.query_one("#path", Input).value = str(tmp_path / "pod.toml")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert (tmp_path / "pod.toml").exists() and not app.modified
        assert _kept_files() == []


async def test_a_hangup_during_validate_stops_fio_and_removes_its_file(tmp_path, monkeypatch) -> None:
    import asyncio

    from tests.test_tui_validate import SLOW, _open_and_start, _shrink, needs_fio, wait_for_fio

    if needs_fio.args[0]:
        pytest.skip(needs_fio.kwargs["reason"])
    _shrink(monkeypatch, SLOW)
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await _open_and_start(pilot, str(tmp_path))
        await wait_for_fio(pilot, tmp_path)
        await _hang_up(pilot)
        assert app.return_code == 129
    # The worker's thread stops fio (SIGTERM, then its grace) and removes the file after the app ends.
    for _ in range(300):
        if not list(tmp_path.iterdir()):
            break
        await asyncio.sleep(0.1)
    assert list(tmp_path.iterdir()) == []


def test_a_dropped_terminal_keeps_the_edits(tmp_path) -> None:
    """The real podplan in tmux; the session is killed (its terminal hangs up) after an edit: the
    recovery copy is there, and the next start offers it."""
    import os
    import shutil
    import subprocess
    import sys
    import uuid

    from tests.test_tui_e2e import ROOT, _tmux, _type, _wait_for, _wait_gone

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: setup installs it")
    state = tmp_path / "state"
    session = f"podplan-hup-{uuid.uuid4().hex[:8]}"
    command = f"cd {ROOT} && XDG_STATE_HOME={state} {sys.executable} -m app.cli.main"
    _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command)
    try:
        _wait_for(session, "45 disks")
        _type(session, "BSpace", "BSpace")
        _wait_gone(session, "45 disks")
        _type(session, "4", "4")
        _wait_for(session, "44 disks")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False, timeout=10)
    kept = state / "podplan" / "recovery"
    for _ in range(100):
        if kept.is_dir() and list(kept.glob("*.toml")):
            break
        time.sleep(0.1)
    files = list(kept.glob("*.toml"))
    assert len(files) == 1 and "count = 44" in files[0].read_text()
    assert oct(os.stat(files[0]).st_mode & 0o777) == "0o600"
    session = f"podplan-hup-{uuid.uuid4().hex[:8]}"
    _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command)
    try:
        _wait_for(session, "Restore")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False, timeout=10)


async def _save_to(pilot, path: str, key: str = "ctrl+s") -> None:  # type: ignore[no-untyped-def]
    from app.tui.screens.dialogs import PathPrompt

    await pilot.press(key)
    await pilot.pause()
    assert isinstance(pilot.app.screen, PathPrompt)
    pilot.app.screen.query_one("#path", Input).value = path
    await pilot.press("enter")
    await pilot.pause()


def _pod_file(tmp_path, count: int = 45):  # type: ignore[no-untyped-def]
    from app.shared.planfile import plan_to_toml
    from tests.tui_helpers import plan_with

    f = tmp_path / "pod.toml"
    f.write_text(plan_to_toml(plan_with(count=str(count))))
    return f


async def test_saving_to_the_opened_file_unchanged_asks_nothing(tmp_path) -> None:
    from app.shared.planfile import load_plan

    f = _pod_file(tmp_path)
    app = PodplanApp(load_plan(f), f)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _edit_count(pilot, "44")
        await _save_to(pilot, str(f))
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert type(app.screen).__name__ == "PlanScreen"  # no "exists. Overwrite it?"
        assert load_plan(f).disks[0].count == 44
        # Saved once, the file is podplan's own again: a second save asks nothing either.
        await _edit_count(pilot, "43")
        await _save_to(pilot, str(f))
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert load_plan(f).disks[0].count == 43


@pytest.mark.parametrize("answer", ["overwrite", "save_as", "reload", "cancel"])
async def test_save_and_quit_over_a_file_changed_on_disk_asks(tmp_path, answer: str) -> None:
    from app.shared.planfile import load_plan, plan_to_toml
    from app.tui.screens.dialogs import ChangedOnDisk, PathPrompt, QuitDialog
    from tests.tui_helpers import plan_with

    f = _pod_file(tmp_path)
    app = PodplanApp(load_plan(f), f)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _edit_count(pilot, "44")
        theirs = plan_to_toml(plan_with(count="30"))
        f.write_text(theirs)  # an editor or git pull changes the file meanwhile
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, QuitDialog)
        await pilot.click("#save")
        await pilot.pause()
        assert isinstance(app.screen, ChangedOnDisk)
        await pilot.click(f"#{answer}")
        await pilot.pause()
        if answer == "save_as":
            assert isinstance(app.screen, PathPrompt)
            assert app.screen.query_one("#path", Input).value == str(tmp_path / "pod-mine.toml")
            await pilot.press("enter")
        if answer in ("overwrite", "save_as"):  # saved, the app quits: its workers end cancelled
            for _ in range(200):
                if not app.is_running:
                    break
                await pilot.pause(0.05)
        else:
            await app.workers.wait_for_complete()
            await pilot.pause()
        if answer == "overwrite":
            assert load_plan(f).disks[0].count == 44 and not app.is_running
        else:
            assert f.read_text() == theirs  # the other program's change is kept
        if answer == "save_as":
            assert load_plan(tmp_path / "pod-mine.toml").disks[0].count == 44 and not app.is_running
        if answer == "reload":
            assert app.is_running and app.plan.disks[0].count == 30 and not app.modified
        if answer == "cancel":
            assert app.is_running and app.plan.disks[0].count == 44


@pytest.mark.parametrize("where", ["long name", "under a file", "a directory"])
async def test_a_save_path_that_cannot_be_checked_is_one_notice(tmp_path, where: str) -> None:
    (tmp_path / "afile").write_text("x")
    path = {
        "long name": str(tmp_path / ("A" * 300 + ".toml")),
        "under a file": str(tmp_path / "afile" / "pod.toml"),
        "a directory": str(tmp_path),
    }[where]
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await _edit_count(pilot, "44")
        await _save_to(pilot, path)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.is_running and app.plan.disks[0].count == 44 and app.modified
        said = [str(n.message) for n in app._notifications]
        assert any(m.startswith("Not saved") or "cannot write" in m for m in said), said


async def test_a_big_job_file_never_blocks_typing(tmp_path) -> None:
    from app.tui.widgets import perf
    from app.tui.widgets.curve import MAX_CHARTS, CurvePlot
    from tests.tui_helpers import rendered

    job = tmp_path / "big.fio"
    sections = "".join(
        f"[j{i}]\nrw=randread\nbs={4 * (1 + i % 8)}k\niodepth={1 + i % 16}\nstonewall\n" for i in range(300)
    )
    job.write_text("[global]\nioengine=libaio\ndirect=1\nsize=1g\n" + sections)
    app = PodplanApp(example_pod())
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _on_perf_tab(pilot)
            await app.workers.wait_for_complete()
            start = time.perf_counter()
            await _edit_count(pilot, "41")  # the same four keys with the suite alone: the yardstick
            alone = time.perf_counter() - start
            await app.workers.wait_for_complete()
            await _load_job(pilot, str(job))
            for _ in range(200):  # a big job is predicted once typing pauses: after a timer, then a worker
                await app.workers.wait_for_complete()
                if len(app.screen.query(CurvePlot)) == MAX_CHARTS:
                    break
                await pilot.pause(0.05)
            assert len(app.screen.query(CurvePlot)) == MAX_CHARTS
            assert "first 12 of 304 sections" in " ".join(str(app.screen.query_one("#curves-heading").content).split())
            start = time.perf_counter()
            await _edit_count(pilot, "40")  # four keys, each a new plan whose 300 sections are predicted
            took = time.perf_counter() - start
            await pilot.pause(0.6)  # the pause after typing, then its prediction
            # Was 3 s a key: the table of 300 rows laid out again on every keystroke, in the UI thread.
            assert took < 2 * alone + 0.5, f"{took:.1f} s for four keystrokes, {alone:.1f} s with the suite alone"
            await app.workers.wait_for_complete()
            await pilot.pause()
            from app.tui.widgets.perf import perf_view

            shown = rendered(app, "#perf")
            import io

            from rich.console import Console

            console = Console(width=200, record=True, file=io.StringIO())
            console.print(perf_view(app.plan, app.result, app.screen.query_one("#results").size.width - 2))
            assert app.plan.disks[0].count == 40 and shown == console.export_text()  # the last plan's, not a stale one
    finally:
        perf.set_jobs(None, "")


@pytest.mark.parametrize("key", ["f2", "f3", "f5", "f6", "f7", "f9"])
async def test_every_footer_at_80x24_shows_its_own_keys_whole(key: str) -> None:
    import dataclasses

    from textual.binding import Binding

    from tests.test_tui_widths import screen_lines

    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(key)
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
        footer = screen_lines(app)[-1]
        own = [b for b in type(app.screen).BINDINGS if isinstance(b, Binding) and b.show]
        for b in own:
            shown = app.get_key_display(dataclasses.replace(b, key=b.key.split(",")[0]))
            assert f"{shown} {b.description}" in footer, (b.id, footer)
        assert "^p palette" in footer


@pytest.mark.parametrize("size", [(40, 12), (59, 20), (60, 20), (80, 24)])
async def test_the_usable_figure_is_never_broken_across_lines(size) -> None:
    from planners.compute import compute
    from tests.test_tui_widths import screen_lines

    app = PodplanApp(example_pod())
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.pause()
        usable = f"{compute(example_pod()).usable_bytes:,}"
        assert any(usable in line for line in screen_lines(app)), "\n".join(screen_lines(app))


@pytest.mark.parametrize("typed", ["2000398934016.5", "1000.5B", "0.5"])
def test_a_fraction_of_a_byte_is_refused_not_cut(capsys, typed: str) -> None:
    from app.cli.main import main

    assert main(["plan", "--disk-size", typed]) == 2
    err = capsys.readouterr()[1]
    assert "fraction of a byte" in err and len(err.strip().splitlines()) == 1
