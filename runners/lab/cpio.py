"""An uncompressed cpio archive in the "newc" format, as the kernel unpacks an initramfs.

Written here rather than by a host cpio so that the kit needs nothing but qemu on the host
and so that entries come out sorted, owned by root and with one fixed mtime: the same
inputs give the same archive.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO

_TRAILER = "TRAILER!!!"


@dataclass(frozen=True)
class Entry:
    """One member: a directory, a symlink (data is its target) or a regular file."""

    path: str
    mode: int
    data: bytes = b""
    source: str | None = None  # a host file to stream instead of data

    @staticmethod
    def directory(path: str, perm: int = 0o755) -> Entry:
        return Entry(path, stat.S_IFDIR | perm)

    @staticmethod
    def symlink(path: str, target: str) -> Entry:
        return Entry(path, stat.S_IFLNK | 0o777, target.encode())

    @staticmethod
    def file(path: str, data: bytes = b"", perm: int = 0o644, source: str | None = None) -> Entry:
        return Entry(path, stat.S_IFREG | perm, data, source)


def _pad(n: int) -> bytes:
    return b"\0" * (-n % 4)


def _header(ino: int, mode: int, nlink: int, mtime: int, size: int, name: bytes) -> bytes:
    fields = (ino, mode, 0, 0, nlink, mtime, size, 0, 0, 0, 0, len(name) + 1, 0)
    return b"070701" + b"".join(b"%08X" % f for f in fields)


def write_cpio(out: BinaryIO, entries: Iterable[Entry], *, mtime: int = 0) -> int:
    """Write entries (sorted by path, so parents precede children) and return bytes written."""
    written = 0

    def put(chunk: bytes) -> None:
        nonlocal written
        out.write(chunk)
        written += len(chunk)

    for ino, entry in enumerate(sorted(entries, key=lambda e: e.path), start=1):
        name = entry.path.lstrip("/").encode()
        if entry.source is not None:
            with open(entry.source, "rb") as src:
                data = src.read()
        else:
            data = entry.data
        size = 0 if stat.S_ISDIR(entry.mode) else len(data)
        nlink = 2 if stat.S_ISDIR(entry.mode) else 1
        head = _header(ino, entry.mode, nlink, mtime, size, name) + name + b"\0"
        put(head + _pad(len(head)))
        if size:
            put(data + _pad(size))
    head = _header(0, 0, 1, 0, 0, _TRAILER.encode()) + _TRAILER.encode() + b"\0"
    put(head + _pad(len(head)))
    return written


def read_cpio(data: bytes) -> list[tuple[str, int, bytes]]:
    """(path, mode, data) of every member of a newc archive; for tests and inspection."""
    out: list[tuple[str, int, bytes]] = []
    pos = 0
    while True:
        if data[pos : pos + 6] != b"070701":
            raise ValueError(f"bad cpio magic at offset {pos}")
        fields = [int(data[pos + 6 + 8 * i : pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name_start = pos + 110
        name = data[name_start : name_start + namesize - 1].decode()
        pos = name_start + namesize
        pos += -pos % 4
        if name == _TRAILER:
            return out
        out.append((name, mode, data[pos : pos + size]))
        pos += size
        pos += -pos % 4
