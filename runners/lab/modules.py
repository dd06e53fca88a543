"""Which kernel modules the guest needs, from the kernel's own modules.dep.

The stock kernel ships thousands of modules; the guest needs md, device-mapper, the
filesystems, virtio and SCSI disks and what those depend on. `depmod -b` run over the
whole unpacked tree tells the dependencies; the closure is copied into the initramfs and
depmod runs again there so the guest's modprobe sees only what it has.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Set

# Loaded by the guest at boot, in this order (modprobe pulls in dependencies).
GUEST_MODULES = (
    "virtio_pci",
    "virtio_blk",
    "virtio_scsi",
    "sd_mod",
    # SMART from emulated drives: an ATA disk on AHCI, an NVMe controller
    "ahci",
    "nvme",
    "crc32c_generic",
    "crc32c_intel",
    "libcrc32c",
    "md_mod",
    "linear",
    "raid0",
    "raid1",
    "raid10",
    "raid456",
    "dm_mod",
    "dm_snapshot",
    "dm_mirror",
    "dm_zero",
    "dm_thin_pool",
    "dm_raid",
    "loop",
    "ext4",
    "xfs",
    "btrfs",
)
# Asked for by name at run time (crypto by algorithm name, lvm targets): shipped, loaded on demand.
ON_DEMAND_DIRS = ("kernel/crypto/", "kernel/arch/x86/crypto/", "kernel/drivers/md/")


def module_name(path: str) -> str:
    base = posixpath.basename(path)
    for ext in (".ko.xz", ".ko.zst", ".ko.gz", ".ko"):
        if base.endswith(ext):
            base = base[: -len(ext)]
            break
    return base.replace("-", "_")


def parse_modules_dep(text: str) -> dict[str, list[str]]:
    """{module path: [paths it depends on]} from modules.dep."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        path, sep, deps = line.partition(":")
        if sep:
            out[path.strip()] = deps.split()
    return out


def parse_builtin(text: str) -> set[str]:
    """Names of the modules built into the kernel (modules.builtin)."""
    return {module_name(line.strip()) for line in text.splitlines() if line.strip()}


def closure(
    deps: dict[str, list[str]], wanted: Iterable[str], builtin: Set[str] = frozenset(), extra_dirs: Iterable[str] = ()
) -> list[str]:
    """Module paths for the wanted names, their dependencies and everything under extra_dirs.

    A wanted name that is built in needs nothing; one that is neither built in nor
    shipped is an error, so a kernel that drops md or xfs fails the kit build.
    """
    by_name = {module_name(p): p for p in deps}
    todo = []
    for name in wanted:
        key = name.replace("-", "_")
        if key in by_name:
            todo.append(by_name[key])
        elif key not in builtin:
            raise LookupError(f"kernel has no module {name!r}")
    extra = tuple(extra_dirs)
    todo += [p for p in deps if p.startswith(extra)] if extra else []
    seen: set[str] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(deps.get(path, []))
    return sorted(seen)
