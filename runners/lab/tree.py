"""The guest's file tree, put together from unpacked packages without copying them.

Debian 12 is merged-/usr: a package may ship /bin/x or /usr/bin/x, and both name the
same file once /bin is a link to usr/bin. The tree maps every archive path to its
source on the host (or a link target), folding /bin, /sbin, /lib and /lib64 into /usr,
first package first: a later package never covers a file an earlier one shipped.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from runners.lab.elf import parse_elf_deps

MERGED = {"bin": "usr/bin", "sbin": "usr/sbin", "lib": "usr/lib", "lib64": "usr/lib64"}
LIB_DIRS = ("usr/lib/x86_64-linux-gnu", "usr/lib64", "usr/lib")
# What no guest reads: left out to keep the initramfs small.
DROP_PREFIXES = (
    "usr/share/doc/",
    "usr/share/man/",
    "usr/share/info/",
    "usr/share/locale/",
    "usr/share/lintian/",
    "usr/share/bash-completion/",
    "usr/share/bug/",
    "usr/share/zsh/",
    "usr/share/fish/",
    "etc/init.d/",
    "usr/lib/systemd/",
    "usr/lib/udev/",
    "etc/cron.",
    "usr/share/initramfs-tools/",
    "boot/",
    "usr/lib/modules/",
    "usr/lib/x86_64-linux-gnu/gconv/",
)


def canonical(path: str) -> str:
    """Archive path (no leading slash) with the merged-/usr links folded in."""
    path = posixpath.normpath(path.lstrip("/"))
    head, _, rest = path.partition("/")
    if head in MERGED:
        return posixpath.join(MERGED[head], rest) if rest else MERGED[head]
    return path


@dataclass
class Node:
    kind: str  # "file", "dir" or "link"
    source: str = ""  # host path of a file
    target: str = ""  # target of a link
    mode: int = 0o644
    package: str = ""


@dataclass
class Tree:
    nodes: dict[str, Node] = field(default_factory=dict)

    def add_package(self, package: str, root: str, *, drop: bool = True) -> None:
        for dirpath, dirnames, filenames in os.walk(root):
            rel_dir = os.path.relpath(dirpath, root)
            for name in dirnames + filenames:
                host = os.path.join(dirpath, name)
                rel = canonical(os.path.join(rel_dir, name))
                if rel in MERGED.values() and os.path.islink(host):
                    continue
                if (drop and (rel + "/").startswith(DROP_PREFIXES)) or rel in self.nodes or rel == ".unpacked":
                    continue
                st = os.lstat(host)
                if os.path.islink(host):
                    self.nodes[rel] = Node("link", target=os.readlink(host), package=package)
                elif os.path.isdir(host):
                    self.nodes[rel] = Node("dir", mode=0o755, package=package)
                else:
                    self.nodes[rel] = Node("file", source=host, mode=st.st_mode & 0o7777, package=package)

    def add_file(self, path: str, data_source: str, mode: int = 0o755) -> None:
        self.nodes[canonical(path)] = Node("file", source=data_source, mode=mode, package="(kit)")

    def add_dir(self, path: str) -> None:
        self.nodes.setdefault(canonical(path), Node("dir", mode=0o755, package="(kit)"))

    def add_link(self, path: str, target: str) -> None:
        self.nodes.setdefault(canonical(path), Node("link", target=target, package="(kit)"))

    def resolve(self, path: str, depth: int = 0) -> str | None:
        """The archive path a (possibly linked) path ends at, or None if it dangles."""
        path = canonical(path)
        if depth > 20:
            return None
        parts = path.split("/")
        for i in range(1, len(parts) + 1):
            prefix = "/".join(parts[:i])
            node = self.nodes.get(prefix)
            if node is None:
                if i == len(parts):
                    return None
                continue  # a directory only implied by the paths below it
            if node.kind == "link":
                base = posixpath.dirname(prefix)
                target = node.target if node.target.startswith("/") else posixpath.join(base, node.target)
                rest = "/".join(parts[i:])
                return self.resolve(posixpath.join(target, rest) if rest else target, depth + 1)
        return path

    def find_library(self, soname: str, runpath: Iterable[str] = ()) -> str | None:
        for d in (*runpath, *LIB_DIRS):
            hit = self.resolve(posixpath.join(d, soname))
            if hit is not None and self.nodes[hit].kind == "file":
                return hit
        return None

    def ensure_parents(self) -> None:
        for path in list(self.nodes):
            parent = posixpath.dirname(path)
            while parent and parent not in self.nodes:
                self.nodes[parent] = Node("dir", mode=0o755, package="(kit)")
                parent = posixpath.dirname(parent)


def missing_libraries(tree: Tree) -> dict[str, list[str]]:
    """{soname: [archive paths that need it]} for every library no file in the tree provides."""
    missing: dict[str, list[str]] = {}
    for path, node in sorted(tree.nodes.items()):
        if node.kind != "file":
            continue
        with open(node.source, "rb") as f:
            if f.read(4) != b"\x7fELF":
                continue
            f.seek(0)
            deps = parse_elf_deps(f.read())
        if deps is None:
            continue
        origin = posixpath.dirname(path)
        runpath = [canonical(p.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)) for p in deps.runpath]
        wanted = list(deps.needed)
        if deps.interpreter:
            wanted_interp = tree.resolve(deps.interpreter)
            if wanted_interp is None:
                missing.setdefault(deps.interpreter, []).append(path)
        for soname in wanted:
            if tree.find_library(soname, runpath) is None:
                missing.setdefault(soname, []).append(path)
    return missing
