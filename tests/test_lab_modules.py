"""Choosing the kernel modules the guest ships, from modules.dep."""

import pytest

from runners.lab.modules import GUEST_MODULES, closure, module_name, parse_builtin, parse_modules_dep

DEP = """kernel/drivers/md/raid456.ko: kernel/crypto/async_tx/async_raid6_recov.ko kernel/lib/raid6/raid6_pq.ko kernel/crypto/xor.ko
kernel/crypto/async_tx/async_raid6_recov.ko: kernel/lib/raid6/raid6_pq.ko
kernel/lib/raid6/raid6_pq.ko:
kernel/crypto/xor.ko:
kernel/crypto/crc32c_generic.ko:
kernel/fs/xfs/xfs.ko: kernel/lib/libcrc32c.ko
kernel/lib/libcrc32c.ko:
kernel/drivers/net/e1000.ko:
kernel/drivers/md/dm-mod.ko:
"""


def test_names():
    assert module_name("kernel/drivers/md/dm-mod.ko") == "dm_mod"
    assert module_name("kernel/fs/xfs/xfs.ko.xz") == "xfs"


def test_closure_follows_dependencies_and_extra_dirs():
    deps = parse_modules_dep(DEP)
    got = closure(deps, ["raid456", "dm-mod"], extra_dirs=["kernel/crypto/"])
    assert "kernel/lib/raid6/raid6_pq.ko" in got and "kernel/crypto/xor.ko" in got
    assert "kernel/crypto/crc32c_generic.ko" in got  # shipped for on-demand loading
    assert "kernel/drivers/net/e1000.ko" not in got and "kernel/fs/xfs/xfs.ko" not in got
    assert got == sorted(got)


def test_built_in_modules_need_nothing_and_missing_ones_fail():
    deps = parse_modules_dep(DEP)
    builtin = parse_builtin("kernel/drivers/virtio/virtio_pci.ko\n")
    assert closure(deps, ["virtio_pci"], builtin) == []
    with pytest.raises(LookupError, match="raid10"):
        closure(deps, ["raid10"], builtin)


def test_guest_loads_md_dm_and_both_filesystems():
    for name in ("raid0", "raid1", "raid10", "raid456", "dm_mod", "ext4", "xfs", "virtio_scsi", "sd_mod"):
        assert name in GUEST_MODULES
