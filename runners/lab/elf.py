"""What a dynamically linked ELF file needs from the loader, read from the file itself.

The kit ships binaries from packages that are unpacked, not installed, so `ldd` (which
runs the loader) cannot be trusted to look in the right tree. The dynamic section has
the answer: DT_NEEDED names, DT_RUNPATH/DT_RPATH search paths and the PT_INTERP loader.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_PT_LOAD, _PT_DYNAMIC, _PT_INTERP = 1, 2, 3
_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_RPATH, _DT_RUNPATH = 0, 1, 5, 15, 29


@dataclass(frozen=True)
class ElfDeps:
    needed: tuple[str, ...]
    runpath: tuple[str, ...]
    interpreter: str | None


def is_elf(head: bytes) -> bool:
    return head[:4] == b"\x7fELF"


def parse_elf_deps(data: bytes) -> ElfDeps | None:
    """The dynamic dependencies of an ELF image; None for anything that is not ELF.

    A static binary gives empty needs. Only little-endian ELF64 and ELF32 are read;
    the kit is x86-64 only.
    """
    if not is_elf(data) or len(data) < 52:
        return None
    is64 = data[4] == 2
    if data[5] != 1:
        return None
    if is64:
        (phoff,) = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        ph_fmt, dyn_fmt = "<IIQQQQQQ", "<qQ"
    else:
        (phoff,) = struct.unpack_from("<I", data, 0x1C)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x2A)
        ph_fmt, dyn_fmt = "<IIIIIIII", "<iI"
    loads: list[tuple[int, int, int]] = []
    dynamic: tuple[int, int] | None = None
    interp = None
    for i in range(phnum):
        off = phoff + i * phentsize
        if off + struct.calcsize(ph_fmt) > len(data):
            return None
        fields = struct.unpack_from(ph_fmt, data, off)
        if is64:
            p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = fields[:6]
        else:
            p_type, p_offset, p_vaddr, _paddr, p_filesz = fields[:5]
        if p_type == _PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == _PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
        elif p_type == _PT_INTERP:
            interp = data[p_offset : p_offset + p_filesz].split(b"\0", 1)[0].decode()
    if dynamic is None:
        return ElfDeps((), (), interp)
    entries: list[tuple[int, int]] = []
    step = struct.calcsize(dyn_fmt)
    for off in range(dynamic[0], dynamic[0] + dynamic[1], step):
        tag, val = struct.unpack_from(dyn_fmt, data, off)
        if tag == _DT_NULL:
            break
        entries.append((tag, val))
    strtab_vaddr = next((v for t, v in entries if t == _DT_STRTAB), None)
    if strtab_vaddr is None:
        return ElfDeps((), (), interp)
    # DT_STRTAB is a virtual address: find the loaded segment that holds it.
    strtab = next((off + strtab_vaddr - va for va, off, size in loads if va <= strtab_vaddr < va + size), None)
    if strtab is None:
        return None

    def string(offset: int) -> str:
        start = strtab + offset
        return data[start : data.index(b"\0", start)].decode()

    needed = tuple(string(v) for t, v in entries if t == _DT_NEEDED)
    runpath = tuple(p for t, v in entries if t in (_DT_RUNPATH, _DT_RPATH) for p in string(v).split(":") if p)
    return ElfDeps(needed, runpath, interp)
