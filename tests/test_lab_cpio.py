"""The initramfs writer: newc format the kernel accepts, and the same bytes for the same input."""

import io
import stat

from runners.lab.cpio import Entry, read_cpio, write_cpio


def _archive(entries):
    buf = io.BytesIO()
    n = write_cpio(buf, entries)
    assert n == len(buf.getvalue())
    return buf.getvalue()


def test_round_trip_sorted_with_modes(tmp_path):
    src = tmp_path / "blob"
    src.write_bytes(b"x" * 1001)  # odd size: data must be padded to 4 bytes
    data = _archive(
        [
            Entry.file("usr/bin/tool", source=str(src), perm=0o755),
            Entry.directory("usr"),
            Entry.symlink("bin", "usr/bin"),
            Entry.directory("usr/bin"),
            Entry.file("init", b"#!/bin/bash\n", 0o755),
        ]
    )
    members = read_cpio(data)
    assert [m[0] for m in members] == ["bin", "init", "usr", "usr/bin", "usr/bin/tool"]
    by = {m[0]: m for m in members}
    assert stat.S_ISLNK(by["bin"][1]) and by["bin"][2] == b"usr/bin"
    assert stat.S_ISDIR(by["usr"][1]) and by["usr"][2] == b""
    assert by["usr/bin/tool"][2] == b"x" * 1001 and stat.S_IMODE(by["usr/bin/tool"][1]) == 0o755
    assert len(data) % 4 == 0
    assert data.rstrip(b"\0").endswith(b"TRAILER!!!")


def test_headers_are_newc_and_owned_by_root():
    data = _archive([Entry.file("a", b"hi", 0o600)])
    head = data[:110]
    assert head[:6] == b"070701"
    fields = [int(head[6 + 8 * i : 14 + 8 * i], 16) for i in range(13)]
    ino, mode, uid, gid, nlink, mtime, size = fields[:7]
    assert (uid, gid, mtime, size, nlink) == (0, 0, 0, 2, 1)
    assert mode == stat.S_IFREG | 0o600 and ino == 1
    assert fields[11] == 2  # name length with its NUL


def test_same_entries_in_any_order_give_the_same_bytes():
    entries = [Entry.directory("d"), Entry.file("d/f", b"1"), Entry.symlink("l", "d/f")]
    assert _archive(entries) == _archive(list(reversed(entries)))
