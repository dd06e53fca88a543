"""Each command imports only what it uses: a sysadmin calls podplan in loops and scripts.

benchmarks/bench_startup.py gives the times; this holds the cause of them, which (unlike a time on a
shared machine) does not move from run to run.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json, sys
from app.cli.main import main
try:
    main({argv!r})
except SystemExit:
    pass
sys.stdout.flush()
sys.stderr.write(json.dumps(sorted(sys.modules)))
"""
# What no command needs before it runs: the TUI, the machine, another command's renderers.
OTHER_COMMANDS = ("app.cli.predict", "app.cli.validate", "app.cli.grow", "app.cli.scale", "app.cli.rehearse")


def imported(*argv: str) -> set[str]:
    p = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=list(argv))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(json.loads(p.stderr))


def _under(modules: set[str], *packages: str) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in packages or m in packages or m.startswith(packages))


@pytest.mark.parametrize("argv", [["--version"], ["--help"]], ids=" ".join)
def test_version_and_help_load_no_model_and_no_renderer(argv):
    modules = imported(*argv) - {"pydantic.plugin._loader"}  # app.cli.main's own, pydantic not imported
    assert not _under(modules, "pydantic", "rich", "textual", "runners", "planners.models"), argv


def test_plan_json_loads_the_plan_s_models_and_nothing_of_the_other_commands():
    modules = imported("plan", "--json")
    assert "planners.models" in modules and "app.usecases.plan" in modules
    # runners.dirs alone (platformdirs): where the config file would be, whose defaults a plan from
    # flags takes; without a file nothing more is read.
    assert not set(_under(modules, "rich", "textual", "runners", *OTHER_COMMANDS)) - {"runners", "runners.dirs"}


def test_plan_json_does_not_look_for_pydantic_plugins():
    """pydantic's plugin loader imports importlib.metadata and reads every installed package's entry
    points at the first model; app.cli.main puts in a loader that finds none, before pydantic's own."""
    modules = imported("plan", "--json")
    assert "pydantic.plugin._loader" in modules
    assert "importlib.metadata" not in modules


# What `predict --json` prints is a document: the tables' renderers (Rich and podplan's own) are the
# other half of the command, and its flags' readers (options.py) need none of them.
RENDERERS = ("rich", "app.cli.predict", "app.cli.scale", "app.shared.console", "app.shared.fit", "app.shared.figures")


def test_predict_json_loads_no_renderer():
    modules = imported("predict", "--json", "--no-host-cpu")
    assert "app.usecases.predict" in modules and "app.shared.documents" in modules
    assert not _under(modules, *RENDERERS)


def test_plan_json_loads_no_performance_model_beyond_the_loss_odds():
    """plan --json's findings include the loss odds (planners.reliability.loss), which read the disks'
    and the bus's figures through planners.perf.context; the throughput model is predict's."""
    modules = imported("plan", "--json")
    perf = set(_under(modules, "planners.perf"))
    assert perf <= {
        "planners.perf",
        "planners.perf.context",
        "planners.perf.flash",
        "planners.perf.landing",
        "planners.perf.positioning",
    }
    assert not _under(
        modules, "app.usecases.predict", "app.usecases.sweep", "app.shared.documents", "planners.layouts.sweep"
    )


def test_the_process_entry_leaves_its_heap_to_the_exit_and_a_caller_s_main_does_not():
    """The interpreter's last collections would walk every object start-up made (a twentieth of
    plan --json's instructions): main() as the entry freezes them; main(argv) in a test does not."""
    probe = (
        "import gc, io, contextlib, sys\n"
        "from app.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--version'])\n"
        "called = gc.get_freeze_count()\n"
        "sys.argv = ['podplan', '--version']\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main()\n"
        "print(called, gc.get_freeze_count() > 0)\n"
    )
    p = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    assert p.stdout.split() == ["0", "True"]
