"""Reading DT_NEEDED, RUNPATH and the loader from ELF files, as the kit's dependency walk does."""

import glob
import shutil
import struct
import sys

import pytest

from runners.lab.elf import parse_elf_deps


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def test_a_dynamic_executable_names_libc_and_the_loader():
    path = shutil.which("bash")
    deps = parse_elf_deps(_read(path))
    assert deps is not None
    assert "libc.so.6" in deps.needed
    assert deps.interpreter is not None and deps.interpreter.endswith("ld-linux-x86-64.so.2")


def test_a_shared_library_has_needs_but_no_loader():
    libm = next((p for p in glob.glob("/usr/lib/x86_64-linux-gnu/libm.so.6") + glob.glob("/lib*/libm.so.6")), None)
    if libm is None:
        pytest.skip("no glibc libm.so.6 on this host")
    deps = parse_elf_deps(_read(libm))
    assert deps is not None and deps.interpreter is None
    assert "libc.so.6" in deps.needed


def test_not_elf():
    assert parse_elf_deps(b"#!/bin/sh\necho hi\n") is None
    assert parse_elf_deps(b"") is None


def _tiny_elf64(needed: list[str], runpath: str) -> bytes:
    """A minimal ELF64 with one PT_LOAD covering everything and a PT_DYNAMIC."""
    strtab = b"\0" + b"".join(n.encode() + b"\0" for n in needed) + runpath.encode() + b"\0"
    offsets, pos = [], 1
    for n in needed:
        offsets.append(pos)
        pos += len(n) + 1
    runpath_off = pos
    ehdr_size, phdr_size = 64, 56
    str_off = ehdr_size + 2 * phdr_size
    dyn_off = str_off + len(strtab) + (-len(strtab) % 8)
    vaddr = 0x400000
    dyn = b"".join(struct.pack("<qQ", 1, o) for o in offsets)
    dyn += struct.pack("<qQ", 29, runpath_off) + struct.pack("<qQ", 5, vaddr + str_off) + struct.pack("<qQ", 0, 0)
    total = dyn_off + len(dyn)
    ehdr = b"\x7fELF" + bytes([2, 1, 1]) + b"\0" * 9
    ehdr += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, ehdr_size, 0, 0, ehdr_size, phdr_size, 2, 64, 0, 0)
    load = struct.pack("<IIQQQQQQ", 1, 5, 0, vaddr, vaddr, total, total, 0x1000)
    dynamic = struct.pack("<IIQQQQQQ", 2, 6, dyn_off, vaddr + dyn_off, vaddr + dyn_off, len(dyn), len(dyn), 8)
    body = ehdr + load + dynamic + strtab
    return body + b"\0" * (dyn_off - len(body)) + dyn


def test_synthetic_elf_with_runpath():
    deps = parse_elf_deps(_tiny_elf64(["libfoo.so.1", "libbar.so.2"], "$ORIGIN/../lib:/opt/x"))
    assert deps is not None
    assert deps.needed == ("libfoo.so.1", "libbar.so.2")
    assert deps.runpath == ("$ORIGIN/../lib", "/opt/x")
    assert deps.interpreter is None


@pytest.mark.skipif(sys.platform != "linux", reason="needs Linux ELF binaries")
def test_python_itself_parses():
    assert parse_elf_deps(_read(sys.executable)) is not None
