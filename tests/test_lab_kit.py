"""Kit cache decisions and kernel extraction, without building or booting anything."""

import lzma

import pytest

from runners.lab import kit as kitmod
from runners.lab.kit import KIT_FORMAT, KitError, KitManifest, extract_vmlinux, guest_digest, is_current, load_kit

TOP = {"mdadm": "4.2-5", "linux-image-6.1.0-56-amd64": "6.1.192-2"}


def _manifest(**over) -> KitManifest:
    base = dict(
        format=KIT_FORMAT,
        kernel_package="linux-image-6.1.0-56-amd64",
        kernel_release="6.1.0-56-amd64",
        top=TOP,
        packages=TOP,
        guest_digest=guest_digest(),
        build_seconds=1.0,
        initrd_bytes=1,
        vmlinux_bytes=1,
        module_count=1,
    )
    return KitManifest(**{**base, **over})


def _write_kit(directory, manifest: KitManifest):
    directory.mkdir(parents=True)
    (directory / "manifest.json").write_text(manifest.model_dump_json())
    (directory / "vmlinux").write_bytes(b"k")
    (directory / "initrd.cpio").write_bytes(b"i")


def test_current_only_when_everything_matches():
    m = _manifest()
    assert is_current(m, "linux-image-6.1.0-56-amd64", TOP)
    assert not is_current(m, "linux-image-6.1.0-57-amd64", TOP)
    assert not is_current(m, "linux-image-6.1.0-56-amd64", {**TOP, "mdadm": "4.2-6"})
    assert not is_current(_manifest(guest_digest="0" * 64), "linux-image-6.1.0-56-amd64", TOP)
    assert not is_current(_manifest(format=KIT_FORMAT - 1), "linux-image-6.1.0-56-amd64", TOP)


def test_load_needs_manifest_and_both_images(tmp_path):
    _write_kit(tmp_path / "kit", _manifest())
    assert load_kit(tmp_path / "kit") is not None
    (tmp_path / "kit" / "initrd.cpio").unlink()
    assert load_kit(tmp_path / "kit") is None
    assert load_kit(tmp_path / "absent") is None


@pytest.mark.parametrize(
    "versions,rebuild,expect_build",
    [
        (TOP, False, False),
        ({**TOP, "mdadm": "4.3-1"}, False, True),
        (TOP, True, True),
    ],
)
def test_ensure_rebuilds_only_when_stale_or_asked(tmp_path, monkeypatch, versions, rebuild, expect_build):
    _write_kit(tmp_path / "kit", _manifest())
    built = []
    monkeypatch.setattr(kitmod, "wanted_versions", lambda: ("linux-image-6.1.0-56-amd64", versions))
    monkeypatch.setattr(kitmod, "which", lambda tool: "/usr/bin/" + tool)

    def fake_build(root, kernel, top, log):
        built.append(top)
        return load_kit(root / "kit")

    monkeypatch.setattr(kitmod, "build_kit", fake_build)
    kitmod.ensure_kit(rebuild=rebuild, root=tmp_path)
    assert bool(built) == expect_build


def test_without_apt_the_cached_kit_is_used(tmp_path, monkeypatch):
    _write_kit(tmp_path / "kit", _manifest(top={"old": "1"}))
    monkeypatch.setattr(kitmod, "which", lambda tool: None)
    monkeypatch.setattr(kitmod, "wanted_versions", lambda: pytest.fail("apt must not be asked"))
    assert kitmod.ensure_kit(root=tmp_path).manifest.top == {"old": "1"}


def test_cache_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert kitmod.cache_root() == tmp_path / "podplan" / "lab"


def test_kernel_is_the_xz_payload_after_the_boot_stub():
    elf = b"\x7fELF" + bytes(range(256)) * 64
    payload = lzma.compress(elf, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32)
    image = b"MZ boot stub" + b"\0" * 500 + payload + b"trailing setup data"
    assert extract_vmlinux(image) == elf


def test_kernel_extraction_errors():
    with pytest.raises(KitError, match="no xz"):
        extract_vmlinux(b"MZ" + b"\0" * 100)
    with pytest.raises(KitError, match="not an ELF"):
        extract_vmlinux(b"MZ" + lzma.compress(b"not elf", format=lzma.FORMAT_XZ))


def test_stale_versions_are_pruned(tmp_path):
    (tmp_path / "debs").mkdir()
    (tmp_path / "unpacked" / "mdadm_4.2-4").mkdir(parents=True)
    (tmp_path / "unpacked" / "mdadm_4.2-5").mkdir(parents=True)
    (tmp_path / "unpacked" / "python3_3.11").mkdir(parents=True)
    for name in (
        "mdadm_4.2-4_amd64.deb",
        "mdadm_4.2-5_amd64.deb",
        "busybox-static_1%3a1.35_amd64.deb",
        "busybox-static_1%3a1.34_amd64.deb",
    ):
        (tmp_path / "debs" / name).write_bytes(b"")
    kitmod.prune_stale(tmp_path, {"mdadm": "4.2-5", "busybox-static": "1:1.35"})
    assert sorted(p.name for p in (tmp_path / "debs").iterdir()) == [
        "busybox-static_1%3a1.35_amd64.deb",
        "mdadm_4.2-5_amd64.deb",
    ]
    assert sorted(p.name for p in (tmp_path / "unpacked").iterdir()) == ["mdadm_4.2-5", "python3_3.11"]
