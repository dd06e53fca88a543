"""Debian packages for the kit: which versions apt would fetch, fetching them, unpacking them.

Nothing is installed on the host: packages are fetched with `apt-get download` and
unpacked with `dpkg-deb -x` into a directory of their own. The parsers are pure
functions of what apt-cache prints, so they are tested on recorded output.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable, Sequence

from runners.exec import run

KERNEL_META = "linux-image-amd64"


def policy_argv(packages: Sequence[str]) -> list[str]:
    return ["apt-cache", "policy", *packages]


def depends_argv(packages: Sequence[str]) -> list[str]:
    return [
        "apt-cache",
        "depends",
        "--no-recommends",
        "--no-suggests",
        "--no-conflicts",
        "--no-breaks",
        "--no-replaces",
        "--no-enhances",
        *packages,
    ]


def download_argv(directory: str, pinned: Sequence[str]) -> list[str]:
    # apt-get download writes into the current directory; env -C gives it one without a shell.
    return ["env", "-C", directory, "apt-get", "download", "-q", *pinned]


def parse_policy(text: str) -> dict[str, str]:
    """{package: candidate version} from `apt-cache policy P...`; packages without one are left out."""
    out: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        if line and not line[0].isspace() and line.endswith(":"):
            current = line[:-1]
        elif current and line.strip().startswith("Candidate:"):
            version = line.split(":", 1)[1].strip()
            if version and version != "(none)":
                out[current] = version
    return out


def parse_depends(text: str) -> dict[str, list[list[str]]]:
    """{package: [alternatives, ...]} from `apt-cache depends`, Depends and PreDepends only.

    Each dependency is a list of acceptable packages: the alternatives of an "a | b"
    group, and for a virtual package (shown as <name>) the packages that provide it.
    """
    out: dict[str, list[list[str]]] = {}
    current: list[list[str]] | None = None
    group: list[str] = []
    in_dep = False
    continues = False
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            current = out.setdefault(line.strip(), [])
            group, in_dep, continues = [], False, False
            continue
        if current is None:
            continue
        m = re.match(r"^ ([ |])(\w+): (.*)$", line)
        if m:
            alt, kind, name = m.groups()
            in_dep = kind in ("Depends", "PreDepends")
            if not in_dep:
                continue
            if not continues:
                group = []
                current.append(group)
            name = name.strip()
            if not name.startswith("<"):
                group.append(name)
            continues = alt == "|"
        elif in_dep and line.startswith("    "):
            # Providers of the virtual package just named.
            group.append(line.strip())
    for deps in out.values():
        deps[:] = [g for g in deps if g]
    return out


def parse_kernel_package(depends_text: str) -> str:
    """The versioned kernel package that the `linux-image-amd64` meta-package pulls in."""
    deps = parse_depends(depends_text).get(KERNEL_META, [])
    for group in deps:
        for name in group:
            if name.startswith("linux-image-"):
                return name
    raise ValueError(f"{KERNEL_META} names no linux-image package")


def deb_filename_glob(package: str, version: str) -> str:
    # apt writes an epoch's colon as %3a in file names.
    return f"{package}_{version.replace(':', '%3a')}_*.deb"


def candidates(packages: Sequence[str], *, timeout: float = 60.0) -> dict[str, str]:
    return parse_policy(run(policy_argv(packages), timeout=timeout).stdout)


def depends(packages: Sequence[str], *, timeout: float = 60.0) -> dict[str, list[list[str]]]:
    return parse_depends(run(depends_argv(packages), timeout=timeout).stdout)


def kernel_package(*, timeout: float = 60.0) -> str:
    return parse_kernel_package(run(depends_argv([KERNEL_META]), timeout=timeout).stdout)


def fetch(directory: str, versions: dict[str, str], *, timeout: float = 900.0) -> dict[str, str]:
    """Download the given package versions into `directory` (reusing files already there).

    Returns {package: path of its .deb}.
    """
    os.makedirs(directory, exist_ok=True)
    found: dict[str, str] = {}
    missing = []
    for pkg, ver in sorted(versions.items()):
        hits = glob.glob(os.path.join(directory, deb_filename_glob(pkg, ver)))
        if hits:
            found[pkg] = hits[0]
        else:
            missing.append(f"{pkg}={ver}")
    if missing:
        run(download_argv(directory, missing), timeout=timeout)
        for pkg, ver in versions.items():
            if pkg not in found:
                hits = glob.glob(os.path.join(directory, deb_filename_glob(pkg, ver)))
                if not hits:
                    raise FileNotFoundError(f"apt-get download left no .deb for {pkg}={ver}")
                found[pkg] = hits[0]
    return found


def unpack(deb: str, directory: str, *, timeout: float = 300.0) -> str:
    """Unpack a .deb into directory (once: a completed unpack is marked and reused)."""
    done = os.path.join(directory, ".unpacked")
    if not os.path.exists(done):
        os.makedirs(directory, exist_ok=True)
        run(["dpkg-deb", "-x", deb, directory], timeout=timeout)
        with open(done, "w") as f:
            f.write(os.path.basename(deb) + "\n")
    return directory


def flatten(groups: Iterable[list[str]]) -> list[str]:
    return [name for group in groups for name in group]
