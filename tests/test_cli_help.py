"""Help as a sysadmin looks for it: `podplan help`, a suggestion for a mistyped command, shell
completion, a man page that cannot go stale, and the exit statuses said where one reads."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.commands import COMMANDS
from app.cli.main import build_parser, main
from app.cli.manpage import man_page

ROOT = Path(__file__).resolve().parent.parent


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_mistyped_command_gets_the_command_meant(capsys):
    code, out, err = _run(capsys, ["plna"])
    assert code == 2 and out == ""
    assert err.startswith("podplan: plna: no such command; did you mean plan? ")
    assert len(err.splitlines()) == 1


def test_a_word_close_to_no_command_is_still_no_command(capsys):
    code, _, err = _run(capsys, ["frobnicate"])
    assert code == 2
    assert "no such command;" in err and "did you mean" not in err


@pytest.mark.parametrize("path", ["/nonexistent/plan.toml", "missing.toml", "./plna"])
def test_a_path_is_still_read_as_a_plan_file(capsys, path):
    code, _, err = _run(capsys, [path])
    assert code == 2
    assert err == f"podplan: {path}: no such plan file\n"


def test_an_existing_file_without_a_suffix_is_a_plan_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("plna").write_text("not toml [")
    code, _, err = _run(capsys, ["plna"])
    assert code == 2 and err.startswith("podplan: plna: ") and "no such command" not in err


def test_help_alone_lists_every_command_with_the_exit_statuses(capsys):
    code, out, _ = _run(capsys, ["help"])
    assert code == 0
    for name in COMMANDS:
        assert f"\n    {name} " in out
    flat = " ".join(out.split())
    assert "exit status: 0 ok; 1 the answer is no:" in flat
    assert "a rehearsal did not match (rehearse)" in flat and "2 bad input (a flag, a file, a target)" in flat


def test_help_of_a_command_is_its_own_help_page(capsys):
    code, out, _ = _run(capsys, ["help", "grow"])
    assert code == 0
    with pytest.raises(SystemExit):
        main(["grow", "--help"])
    assert capsys.readouterr().out == out
    assert "podplan grow pod.toml --add-disks 3" in out


def test_help_of_no_command_says_so_in_one_line(capsys):
    code, out, err = _run(capsys, ["help", "sweeep"])
    assert code == 2 and out == ""
    assert err.startswith("podplan: sweeep: no such command; did you mean sweep? ")


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion_loads_and_completes_commands_plan_files_examples_and_workloads(tmp_path):
    for name in ("pod.toml", "notes.txt", "mixed.fio"):
        (tmp_path / name).write_text("")
    script = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "completion", "bash"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (tmp_path / "podplan.bash").write_text(script)
    cases = {
        "podplan pl": "plan",
        "podplan plan ''": "pod.toml",
        "podplan example btr": "btrfs6 btrfsmd",
        "podplan predict --workload rand": "rand-read-4k rand-write-4k",
        "podplan validate /srv --job ''": "mixed.fio",
        "podplan help sw": "sweep",
    }
    lines = ["source podplan.bash && complete -p podplan"]
    for words, _ in cases.items():
        lines.append(
            f"COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMPREPLY=(); _shtab_podplan; "
            'echo "${COMPREPLY[*]}"'
        )
    p = subprocess.run(["bash", "-c", "\n".join(lines)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0] == "complete -o bashdefault -F _shtab_podplan podplan"
    assert out[1:] == list(cases.values())


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_completion_know_plan_files_and_workloads(capsys, shell):
    code, out, _ = _run(capsys, ["completion", shell])
    assert code == 0
    assert "*.toml" in out and "rand-read-4k" in out and "btrfs6" in out


def test_completion_of_another_shell_is_refused_in_one_line(capsys):
    code, _, err = _run(capsys, ["completion", "tcsh"])
    assert code == 2 and len(err.splitlines()) == 1


def test_the_man_page_in_docs_is_the_one_the_parser_writes():
    """docs/podplan.1 is written by `podplan man > docs/podplan.1`: run it again after a change of flags or help."""
    assert (ROOT / "docs" / "podplan.1").read_text() == man_page(build_parser())


def test_the_man_page_has_every_command_and_flag_and_the_exit_statuses():
    page = man_page(build_parser())
    for name in COMMANDS:
        assert f"\n.SS podplan {name}\n" in page
    assert "\\fB\\-\\-max\\-rebuild\\-loss\\fR \\fIPCT\\fR" in page
    assert ".SH EXIT STATUS\nexit status: 0 ok; 1 the answer is no" in page


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed to render the man page")
def test_the_man_page_renders_without_an_error(tmp_path):
    page = tmp_path / "podplan.1"
    page.write_text(man_page(build_parser()))
    p = subprocess.run(
        ["groff", "-man", "-Tutf8", str(page)],
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "C"},
        timeout=60,
    )
    assert p.returncode == 0
    # troff warns of a line it cannot justify (a long flag with its choices); nothing else.
    assert not [line for line in p.stderr.splitlines() if "cannot adjust line" not in line]
    text = re.sub(".\b", "", p.stdout)  # grotty's overstrike for bold and underline
    assert "podplan sweep" in text and "EXIT STATUS" in text
