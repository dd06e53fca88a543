"""The lab's boot kit: a stock Debian kernel and an initramfs holding the storage tools.

Built from Debian packages fetched with apt and unpacked (never installed) on the host,
cached under the user's cache directory with the versions it was made from, and rebuilt
only when asked, when apt would now fetch other versions, or when the guest's own files
change. The kernel is stored uncompressed and the initramfs is an uncompressed cpio:
under emulation, decompressing them costs the guest about ten seconds a boot.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import lzma
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PodplanError
from runners.exec import run, which
from runners.lab import debs
from runners.lab.cpio import Entry, write_cpio
from runners.lab.modules import GUEST_MODULES, ON_DEMAND_DIRS, closure, parse_builtin, parse_modules_dep
from runners.lab.tree import Tree, missing_libraries

KIT_FORMAT = 1
GUEST_DIR = Path(__file__).parent / "guest"
# In this order: an earlier package's file wins over a later one's; busybox only fills gaps.
TOP_PACKAGES = (
    "bash",
    "dash",
    "coreutils",
    "util-linux",
    "mount",
    "kmod",
    "mdadm",
    "lvm2",
    "dmsetup",
    "fio",
    "smartmontools",
    "e2fsprogs",
    "xfsprogs",
    "btrfs-progs",
    "tar",
    "grep",
    "sed",
    "mawk",
    "findutils",
    "busybox-static",
)
# Tools a build script may call that mean nothing in the guest.
STUBBED = ("udevadm", "update-initramfs", "systemctl")
XZ_MAGIC = b"\xfd7zXZ\x00"
Log = Callable[[str], None]


class KitError(PodplanError, RuntimeError):
    """The kit could not be built (no apt, a missing package, a library nothing provides)."""


class KitManifest(BaseModel):
    model_config = ConfigDict(frozen=True)

    format: int = Field(description="Layout version of the kit; a change forces a rebuild.")
    kernel_package: str = Field(description="Versioned Debian kernel package, e.g. linux-image-6.1.0-56-amd64.")
    kernel_release: str = Field(description="Kernel release (uname -r in the guest).")
    top: dict[str, str] = Field(description="Requested packages and the versions apt offered, package -> version.")
    packages: dict[str, str] = Field(description="Every package unpacked into the kit, package -> version.")
    guest_digest: str = Field(description="sha256 of the guest's init, config and module list.")
    build_seconds: float = Field(description="Wall time of the build, in seconds.")
    initrd_bytes: int = Field(description="Size of the uncompressed initramfs, in bytes.")
    vmlinux_bytes: int = Field(description="Size of the uncompressed kernel, in bytes.")
    module_count: int = Field(description="Kernel modules shipped in the initramfs, count.")


class Kit(BaseModel):
    model_config = ConfigDict(frozen=True)

    directory: str = Field(description="Directory holding the kit.")
    manifest: KitManifest = Field(description="What the kit was built from.")

    @property
    def vmlinux(self) -> str:
        return os.path.join(self.directory, "vmlinux")

    @property
    def initrd(self) -> str:
        return os.path.join(self.directory, "initrd.cpio")


def cache_root() -> Path:
    from runners.dirs import cache_dir

    return cache_dir() / "lab"


def guest_digest() -> str:
    """Hash of what goes into the kit besides the packages: the guest's files and the builder's code."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for path in (
        GUEST_DIR / "init",
        GUEST_DIR / "stub",
        GUEST_DIR / "lvm.conf",
        here / "kit.py",
        here / "tree.py",
        here / "modules.py",
        here / "cpio.py",
    ):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    h.update("\n".join((*GUEST_MODULES, *ON_DEMAND_DIRS, *TOP_PACKAGES, *STUBBED)).encode())
    return h.hexdigest()


def wanted_versions(*, timeout: float = 60.0) -> tuple[str, dict[str, str]]:
    """(kernel package, {package: version}) that a build today would use."""
    kernel = debs.kernel_package(timeout=timeout)
    names = [*TOP_PACKAGES, kernel]
    found = debs.candidates(names, timeout=timeout)
    absent = [n for n in names if n not in found]
    if absent:
        raise KitError(f"apt offers no version of {', '.join(absent)} (run apt-get update?)")
    return kernel, found


def is_current(manifest: KitManifest, kernel: str, top: dict[str, str]) -> bool:
    return (
        manifest.format == KIT_FORMAT
        and manifest.kernel_package == kernel
        and manifest.top == top
        and manifest.guest_digest == guest_digest()
    )


def load_kit(directory: Path) -> Kit | None:
    try:
        manifest = KitManifest.model_validate_json((directory / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    kit = Kit(directory=str(directory), manifest=manifest)
    if not (os.path.isfile(kit.vmlinux) and os.path.isfile(kit.initrd)):
        return None
    return kit


def ensure_kit(*, rebuild: bool = False, root: Path | None = None, log: Log | None = None) -> Kit:
    """The cached kit, built first if it is absent, stale or `rebuild` is asked."""
    root = root or cache_root()
    root.mkdir(parents=True, exist_ok=True)
    # One builder at a time per cache (parallel test workers share it); the others wait and reuse its kit.
    with open(root / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _ensure_locked(rebuild, root, log or (lambda _msg: None))


def _ensure_locked(rebuild: bool, root: Path, log: Log) -> Kit:
    cached = load_kit(root / "kit")
    if cached is not None and not rebuild and which("apt-cache") is None:
        return cached  # nothing to compare with: trust the cache
    kernel, top = wanted_versions()
    if cached is not None and not rebuild and is_current(cached.manifest, kernel, top):
        return cached
    return build_kit(root, kernel, top, log)


def extract_vmlinux(vmlinuz: bytes) -> bytes:
    """The uncompressed kernel inside a bzImage whose payload is xz."""
    at = vmlinuz.find(XZ_MAGIC)
    if at < 0:
        raise KitError("vmlinuz holds no xz payload")
    out = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(vmlinuz[at:])
    if out[:4] != b"\x7fELF":
        raise KitError("the xz payload of vmlinuz is not an ELF kernel")
    return out


def prune_stale(root: Path, packages: dict[str, str]) -> None:
    """Remove downloads and unpacked trees of older versions of the kit's packages."""
    for sub in ("debs", "unpacked"):
        folder = root / sub
        if not folder.is_dir():
            continue
        for entry in folder.iterdir():
            name, _, rest = entry.name.partition("_")
            version = rest.split("_")[0].replace("%3a", ":") if sub == "debs" else rest
            if name in packages and version != packages[name]:
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def _unpack_all(root: Path, versions: dict[str, str]) -> dict[str, str]:
    found = debs.fetch(str(root / "debs"), versions)
    return {p: debs.unpack(deb, str(root / "unpacked" / f"{p}_{versions[p]}")) for p, deb in found.items()}


def _is_library_package(name: str) -> bool:
    return name.startswith(("lib", "zlib"))


def resolve_libraries(root: Path, tree: Tree, chosen: dict[str, str], log: Log) -> None:
    """Add to `tree` (and `chosen`) the dependency packages that provide missing libraries.

    Candidates are the Depends of packages already chosen; only those that provide a
    library some shipped ELF file needs are kept, so a package's Depends on daemons,
    debconf or python never reach the initramfs.
    """
    widen = False
    for _round in range(12):
        missing = missing_libraries(tree)
        if not missing:
            return
        groups = debs.depends(sorted(chosen))
        # The first of each group of alternatives, as apt itself would choose.
        pool = sorted({g[0] for p in chosen for g in groups.get(p, []) if g[0] not in chosen})
        if not widen:
            pool = [n for n in pool if _is_library_package(n)]
        offered = debs.candidates(pool) if pool else {}
        unpacked = _unpack_all(root, offered)
        added = []
        for pkg, directory in sorted(unpacked.items()):
            probe = Tree()
            probe.add_package(pkg, directory)
            if any(probe.find_library(s) is not None or probe.resolve(s) is not None for s in missing):
                tree.add_package(pkg, directory)
                chosen[pkg] = offered[pkg]
                added.append(pkg)
        log(f"libraries: {len(missing)} missing, added {', '.join(added) or 'nothing'}")
        if not added:
            if widen:
                raise KitError("no package provides " + ", ".join(sorted(missing)))
            widen = True
    raise KitError("library resolution did not settle")


def _add_modules(tree: Tree, kernel_dir: str, release: str, work: Path) -> int:
    moddir = os.path.join(kernel_dir, "lib", "modules", release)
    run(["depmod", "-b", kernel_dir, release], timeout=300)
    deps = parse_modules_dep(Path(moddir, "modules.dep").read_text())
    builtin = parse_builtin(Path(moddir, "modules.builtin").read_text())
    chosen = closure(deps, GUEST_MODULES, builtin, ON_DEMAND_DIRS)
    base = work / "modroot"
    target = base / "lib" / "modules" / release
    for rel in chosen:
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.link(os.path.join(moddir, rel), dest) if _same_fs(moddir, work) else shutil.copy(
            os.path.join(moddir, rel), dest
        )
    for name in ("modules.builtin", "modules.builtin.modinfo", "modules.order"):
        if os.path.exists(os.path.join(moddir, name)):
            shutil.copy(os.path.join(moddir, name), target / name)
    run(["depmod", "-b", str(base), release], timeout=300)
    tree.add_package("(modules)", str(base), drop=False)
    return len(chosen)


def _same_fs(a: str, b: Path) -> bool:
    return os.stat(a).st_dev == os.stat(b).st_dev


def _add_busybox_applets(tree: Tree) -> None:
    busybox = tree.nodes.get("usr/bin/busybox")
    if busybox is None:
        raise KitError("busybox-static shipped no /bin/busybox")
    have = {p.rsplit("/", 1)[-1] for p in tree.nodes if p.startswith(("usr/bin/", "usr/sbin/"))}
    for line in run([busybox.source, "--list-full"], timeout=30).stdout.split():
        name = line.rsplit("/", 1)[-1]
        if name not in have and name != "busybox":
            tree.add_link(line, "/usr/bin/busybox")
            have.add(name)


def _add_guest_files(tree: Tree, work: Path) -> None:
    extras = work / "extras"
    extras.mkdir()
    texts = {
        "etc/podplan/modules": "\n".join(m for m in GUEST_MODULES if m not in ("ext4", "xfs", "btrfs")) + "\n",
        "etc/passwd": "root:x:0:0:root:/root:/bin/bash\n",
        "etc/group": "root:x:0:\ndisk:x:6:\n",
        "etc/fstab": "",
    }
    for rel, text in texts.items():
        p = extras / rel.replace("/", "_")
        p.write_text(text)
        tree.add_file(rel, str(p), 0o644)
    tree.add_file("init", str(GUEST_DIR / "init"), 0o755)
    tree.add_file("etc/lvm/lvm.conf", str(GUEST_DIR / "lvm.conf"), 0o644)
    for name in STUBBED:
        tree.add_file(f"usr/sbin/{name}", str(GUEST_DIR / "stub"), 0o755)
    tree.add_link("bin/sh", "dash")
    for d in ("proc", "sys", "dev", "run", "tmp", "root", "mnt", "etc/mdadm", "jobs", "results"):
        tree.add_dir(d)


def _entries(tree: Tree) -> list[Entry]:
    entries = [
        Entry.symlink(link, target)
        for link, target in (("bin", "usr/bin"), ("sbin", "usr/sbin"), ("lib", "usr/lib"), ("lib64", "usr/lib64"))
    ]
    for path, node in tree.nodes.items():
        if node.kind == "dir":
            entries.append(Entry.directory(path, node.mode))
        elif node.kind == "link":
            entries.append(Entry.symlink(path, node.target))
        else:
            entries.append(Entry.file(path, perm=node.mode, source=node.source))
    return entries


def build_kit(root: Path, kernel: str, top: dict[str, str], log: Log) -> Kit:
    started = time.monotonic()
    root.mkdir(parents=True, exist_ok=True)
    log(f"kit: fetching {len(top)} packages")
    unpacked = _unpack_all(root, top)
    tree = Tree()
    chosen = {p: top[p] for p in TOP_PACKAGES}
    for pkg in TOP_PACKAGES:
        tree.add_package(pkg, unpacked[pkg])
    resolve_libraries(root, tree, chosen, log)
    _add_busybox_applets(tree)
    kernel_dir = unpacked[kernel]
    release = kernel.removeprefix("linux-image-")
    with tempfile.TemporaryDirectory(dir=root, prefix="build.") as tmp:
        work = Path(tmp)
        out = work / "kit"
        out.mkdir()
        log("kit: kernel modules")
        modules = _add_modules(tree, kernel_dir, release, work)
        _add_guest_files(tree, work)
        tree.ensure_parents()
        vmlinuz = Path(kernel_dir, "boot", f"vmlinuz-{release}").read_bytes()
        (out / "vmlinux").write_bytes(extract_vmlinux(vmlinuz))
        log("kit: writing the initramfs")
        with open(out / "initrd.cpio", "wb") as f:
            initrd_bytes = write_cpio(f, _entries(tree))
        manifest = KitManifest(
            format=KIT_FORMAT,
            kernel_package=kernel,
            kernel_release=release,
            top=top,
            packages={**chosen, kernel: top[kernel]},
            guest_digest=guest_digest(),
            build_seconds=round(time.monotonic() - started, 1),
            initrd_bytes=initrd_bytes,
            vmlinux_bytes=(out / "vmlinux").stat().st_size,
            module_count=modules,
        )
        (out / "manifest.json").write_text(json.dumps(manifest.model_dump(), indent=1, sort_keys=True) + "\n")
        final = root / "kit"
        old = root / "kit.old"
        shutil.rmtree(old, ignore_errors=True)
        if final.exists():
            final.rename(old)
        out.rename(final)
        shutil.rmtree(old, ignore_errors=True)
    prune_stale(root, manifest.packages)
    log(f"kit: built in {manifest.build_seconds:.0f} s, initramfs {initrd_bytes / 2**20:.0f} MiB")
    kit = load_kit(final)
    assert kit is not None
    return kit
