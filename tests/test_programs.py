"""One list says which programs podplan and its tests run and which package gives each
(runners.exec.PROGRAMS); the code, scripts/dev.sh and Debian's base are held against it."""

from __future__ import annotations

import ast
import pathlib
import re
import shutil
import subprocess

import pytest

import app.cli.main as cli
from runners import exec as chokepoint
from runners.exec import PROGRAMS, CommandError, not_found, run

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Calls that are given a program: the chokepoint and its neighbours, subprocess, shutil.which.
TAKES_PROGRAM = {
    "run",
    "spawn",
    "which",
    "have",
    "resolve",
    "Popen",
    "check_output",
    "check_call",
    "run_fio",
    "boot",
    "_tool",
}


def _program_names(path: pathlib.Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if func not in TAKES_PROGRAM:
            continue
        first = node.args[0]
        if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
            first = first.elts[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and "/" not in first.value:
            names.add(first.value)
    return names


def _programs_in_code() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for top in ("app", "runners", "tests", "benchmarks"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for name in _program_names(path):
                found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return found


def _setup_packages() -> tuple[list[str], dict[str, str]]:
    text = (ROOT / "scripts" / "dev.sh").read_text()
    packages = re.search(r"^APT_PACKAGES=\(([^)]*)\)", text, re.M)
    provides = re.search(r"^declare -A PROVIDES=\((.*?)\)\n", text, re.M | re.S)
    assert packages and provides, "scripts/dev.sh: APT_PACKAGES and PROVIDES not found"
    return packages.group(1).split(), dict(re.findall(r"\[([\w.+-]+)\]=([\w.+-]+)", provides.group(1)))


def test_every_program_the_code_runs_is_listed():
    found = _programs_in_code()
    # The scan must see the programs it is there for, or it would pass by finding nothing.
    assert {"mdadm", "depmod", "qemu-system-x86_64", "dpkg-deb", "wipefs", "tmux", "shellcheck"} <= set(found)
    unlisted = {name: sorted(where) for name, where in found.items() if name not in PROGRAMS}
    assert not unlisted, f"add these to runners.exec.PROGRAMS with their package: {unlisted}"


def test_the_scan_reads_calls_not_strings(tmp_path):
    f = tmp_path / "m.py"
    f.write_text(
        'run(["newtool", "-x"])\nwhich("other")\nsubprocess.run(("third",))\nprint(["not-a-call", 1])\n'
        'run([exe, "--version"])\nrun(["/abs/path"])\n'
    )
    assert _program_names(f) == {"newtool", "other", "third"}


def test_setup_installs_every_package_podplan_needs():
    packages, provides = _setup_packages()
    needed = {p.package for p in PROGRAMS.values() if not p.base and not p.optional}
    assert needed <= set(packages), f"scripts/dev.sh does not install {sorted(needed - set(packages))}"
    # Setup decides "missing" by looking for one program of each package: it must be that package's.
    for package in packages:
        assert package in provides, f"scripts/dev.sh: no PROVIDES entry for {package}"
        program = provides[package]
        assert program in PROGRAMS and PROGRAMS[program].package == package, (package, program)


def test_the_base_packages_are_in_debians_required_base():
    if shutil.which("dpkg-query") is None:
        pytest.skip("dpkg-query is absent: not a Debian system, priorities cannot be read")
    for package in sorted({p.package for p in PROGRAMS.values() if p.base}):
        out = subprocess.run(["dpkg-query", "-W", "-f=${Priority}", package], capture_output=True, text=True)
        if out.returncode != 0:
            pytest.fail(f"{package} is marked base but is not installed here")
        # apt is on every system that can run setup (setup runs apt-get), whatever its recorded priority.
        assert out.stdout == "required" or package == "apt", (
            f"{package} is Priority {out.stdout}, not required: setup must install it"
        )


def test_the_installed_programs_come_from_their_packages():
    """Where dpkg can tell, each listed program really is in the package the list names."""
    if shutil.which("dpkg") is None:
        pytest.skip("dpkg is absent: not a Debian system")
    candidates: dict[str, set[str]] = {}
    for name in PROGRAMS:
        exe = chokepoint.which(name)
        if exe is not None:
            candidates[name] = {exe, str(pathlib.Path(exe).resolve())} | {
                f"{d}/{name}" for d in ("/usr/bin", "/usr/sbin", "/bin", "/sbin")
            }
    # One dpkg call for every path (it names the owner of each it knows, and complains of the rest).
    out = subprocess.run(["dpkg", "-S", *sorted(set().union(*candidates.values()))], capture_output=True, text=True)
    owner_of: dict[str, set[str]] = {}
    for line in out.stdout.splitlines():
        packages, _, path = line.partition(": ")
        owner_of.setdefault(path.strip(), set()).update(p.strip().split(":")[0] for p in packages.split(","))
    checked = 0
    for name, paths in candidates.items():
        owners = set().union(*(owner_of.get(p, set()) for p in paths))
        if owners:
            assert PROGRAMS[name].package in owners, (
                f"{name} comes from {sorted(owners)}, the list says {PROGRAMS[name].package}"
            )
            checked += 1
    assert checked >= 10


def test_a_missing_program_names_its_package(monkeypatch):
    monkeypatch.setattr(chokepoint, "which", lambda tool: None)
    with pytest.raises(CommandError) as caught:
        run(["depmod", "-b", "/nowhere", "6.1.0"])
    assert str(caught.value) == "depmod not found: install kmod (apt-get install kmod)"
    assert not_found("qemu-system-x86_64") == (
        "qemu-system-x86_64 not found: install qemu-system-x86 (apt-get install qemu-system-x86)"
    )


def test_an_unlisted_program_is_refused_before_it_runs():
    argv = ["frobnicate", "--now"]  # a variable: the scan above reads literal calls only
    with pytest.raises(CommandError, match=r"^frobnicate: not in runners.exec.PROGRAMS"):
        run(argv)


def test_the_cli_says_one_line_when_a_program_is_missing(monkeypatch, capsys):
    def missing(args):
        raise CommandError(["depmod", "-a"], None, "", reason=chokepoint.MISSING)

    monkeypatch.setattr(cli, "_dispatch", missing)
    assert cli.main(["plan"]) == 1
    err = capsys.readouterr().err
    assert err == "podplan: depmod not found: install kmod (apt-get install kmod)\n"
