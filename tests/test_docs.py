"""The README and docs/: short, every link leading somewhere, every generated page what its generator writes."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.command import EXIT_ONE
from app.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """A Markdown heading's anchor as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_dangling_link(page):
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # a web address: not this repository's to hold
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.exists(), f"{page.name}: {target}"
        if anchor:
            headings = re.findall(r"^#+ (.*)$", file.read_text(), flags=re.MULTILINE)
            assert anchor in {_slug(h) for h in headings}, f"{page.name}: {target}"


def test_the_readme_is_read_in_two_minutes_and_links_every_page():
    text = README.read_text()
    assert len(text.splitlines()) <= 150
    linked = set(LINK.findall(text))
    for page in sorted((ROOT / "docs").iterdir()):
        assert f"docs/{page.name}" in linked, page.name


def test_the_readme_keeps_its_two_commands_and_ci_runs_its_test_command():
    text = README.read_text()
    assert (
        "bash scripts/dev.sh tui       # set up what is missing, open podplan on the example 45-disk pod\n"
        "bash scripts/dev.sh test      # set up what is missing, run the checks, then the whole test suite\n"
    ) in text
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("exec bash scripts/dev.sh test")


def _first_session() -> list[str]:
    text = README.read_text().split("## A first session", 1)[1]
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines()]


def test_the_first_session_is_five_commands_podplan_takes():
    lines = _first_session()
    assert [shlex.split(line)[:2] for line in lines] == [
        ["podplan", "example"],
        ["podplan", "plan"],
        ["podplan", "script"],
        ["podplan", "rehearse"],
        ["podplan", "validate"],
    ]
    for line in lines:
        build_parser().parse_args(shlex.split(line.split(" > ")[0])[1:])


def test_the_first_session_s_first_two_steps_run(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["example"]) == 0
    Path("pod.toml").write_text(capsys.readouterr().out)
    assert main(["plan", "pod.toml"]) == 0
    assert "usable" in capsys.readouterr().out.lower()


def test_the_plan_file_reference_is_what_the_models_say():
    """docs/plan-file.md is written by scripts/plan_reference.py: run it again after a change of the plan's models."""
    written = subprocess.run(
        [sys.executable, "scripts/plan_reference.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert (ROOT / "docs" / "plan-file.md").read_text() == written
    for table in ("[[disks]]", "[[groups]]", "[lvm]", "[filesystem]", "[tuning]", "[tools]", "[hardware.disk.lun]"):
        assert f"\n## {table}\n" in written


def test_the_exit_statuses_in_the_docs_are_the_ones_help_gives():
    row = next(line for line in (ROOT / "docs" / "commands.md").read_text().splitlines() if line.startswith("| 1 |"))
    for clause in re.findall(r"\(([a-z]+)\)", EXIT_ONE):
        assert f"(`{clause}`)" in row, clause
    readme = " ".join(README.read_text().split())
    assert "Exit status: 0 ok; 1 the answer is no" in readme and "2 bad input" in readme and "130 interrupted" in readme
