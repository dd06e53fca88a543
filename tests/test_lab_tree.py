"""The guest tree from unpacked packages, and the library walk that picks dependency packages."""

import os
import shutil

import pytest

from runners.lab import kit
from runners.lab.tree import Tree, canonical, missing_libraries

LIBDIR = "usr/lib/x86_64-linux-gnu"


def _pkg(root, files: dict[str, str | bytes], links: dict[str, str] | None = None):
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            shutil.copy(content, p)
    for rel, target in (links or {}).items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, p)
    return str(root)


def test_merged_usr_paths():
    assert canonical("/bin/bash") == "usr/bin/bash"
    assert canonical("./sbin/mdadm") == "usr/sbin/mdadm"
    assert canonical("lib64/ld-linux-x86-64.so.2") == "usr/lib64/ld-linux-x86-64.so.2"
    assert canonical("etc/lvm/lvm.conf") == "etc/lvm/lvm.conf"


def test_first_package_wins_and_docs_are_dropped(tmp_path):
    a = _pkg(tmp_path / "a", {"bin/ls": b"from a", "usr/share/doc/a/copyright": b"x"})
    b = _pkg(tmp_path / "b", {"usr/bin/ls": b"from b", "usr/bin/other": b"b"})
    tree = Tree()
    tree.add_package("a", a)
    tree.add_package("b", b)
    assert tree.nodes["usr/bin/ls"].package == "a"
    assert tree.nodes["usr/bin/other"].package == "b"
    assert not any(p.startswith("usr/share/doc") for p in tree.nodes)


def test_links_resolve_through_merged_usr(tmp_path):
    libc = _pkg(
        tmp_path / "libc",
        {"lib/x86_64-linux-gnu/ld-linux-x86-64.so.2": b"ld"},
        {
            "lib64/ld-linux-x86-64.so.2": "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            "lib/x86_64-linux-gnu/libc.so.6": "libc.so.6.real",
        },
    )
    tree = Tree()
    tree.add_package("libc6", libc)
    assert tree.resolve("/lib64/ld-linux-x86-64.so.2") == f"{LIBDIR}/ld-linux-x86-64.so.2"
    assert tree.find_library("libc.so.6") is None  # dangling link


def _needy_tree(tmp_path):
    tree = Tree()
    tree.add_package("tool", _pkg(tmp_path / "tool", {"usr/bin/tool": shutil.which("bash")}))
    return tree


def test_missing_libraries_of_a_real_binary(tmp_path):
    missing = missing_libraries(_needy_tree(tmp_path))
    assert "libc.so.6" in missing and missing["libc.so.6"] == ["usr/bin/tool"]
    assert "/lib64/ld-linux-x86-64.so.2" in missing


def test_resolution_keeps_only_packages_that_provide_something(tmp_path, monkeypatch):
    """Depends name libc6 (provides libc and the loader), a daemon and a useless library."""
    tree = _needy_tree(tmp_path)
    needed = [s for s in missing_libraries(tree) if not s.startswith("/")]
    provides = {f"lib/x86_64-linux-gnu/{s}": b"\x7fELF-not-really" for s in needed}
    packages = {
        "libc6": _pkg(
            tmp_path / "libc6",
            {**provides, "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2": b"ld"},
            {"lib64/ld-linux-x86-64.so.2": "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
        ),
        "libunused1": _pkg(tmp_path / "libunused1", {"usr/lib/x86_64-linux-gnu/libunused.so.1": b"u"}),
        "somedaemon": _pkg(tmp_path / "somedaemon", {"usr/sbin/somed": b"d"}),
    }
    monkeypatch.setattr(kit.debs, "depends", lambda pkgs: {"tool": [["libc6"], ["libunused1"], ["somedaemon"]]})
    monkeypatch.setattr(kit.debs, "candidates", lambda pkgs: dict.fromkeys(pkgs, "1.0"))
    monkeypatch.setattr(kit, "_unpack_all", lambda root, versions: {p: packages[p] for p in versions})
    chosen = {"tool": "1.0"}
    kit.resolve_libraries(tmp_path, tree, chosen, lambda _m: None)
    assert chosen == {"tool": "1.0", "libc6": "1.0"}
    assert missing_libraries(tree) == {}


def test_resolution_fails_clearly_when_nothing_provides(tmp_path, monkeypatch):
    tree = _needy_tree(tmp_path)
    monkeypatch.setattr(kit.debs, "depends", lambda pkgs: {"tool": [["libnothing"]]})
    monkeypatch.setattr(kit.debs, "candidates", lambda pkgs: dict.fromkeys(pkgs, "1.0"))
    empty = _pkg(tmp_path / "libnothing", {"usr/share/x": b""})
    monkeypatch.setattr(kit, "_unpack_all", lambda root, versions: dict.fromkeys(versions, empty))
    with pytest.raises(kit.KitError, match=r"libc\.so\.6"):
        kit.resolve_libraries(tmp_path, tree, {"tool": "1.0"}, lambda _m: None)
