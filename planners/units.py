"""Sizes: the one parser of human sizes and the formatters for the edge.

Inside podplan every size is an int of bytes. Suffixes follow the tools' own habits:
`K`, `M`, `G`, `T`, `P` alone are binary (as mdadm's `--chunk=512K` and LVM's `-I 64k`
mean), `KB`/`MB`/`GB`/`TB`/`PB` are decimal (as disk vendors sell them), `KiB`..`PiB`
are binary. A fraction (`1.8TiB`) is rounded down to a whole byte; where a size must be a
whole number of sectors the model rounds a fractional spelling down to 4 KiB.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from planners.errors import PlanError

KiB = 1024
MiB = 1024**2
GiB = 1024**3
TiB = 1024**4
PiB = 1024**5

_UNITS: dict[str, int] = {"": 1, "B": 1}
for _i, _p in enumerate("KMGTPE", start=1):
    _UNITS[_p] = 1024**_i
    _UNITS[_p + "IB"] = 1024**_i
    _UNITS[_p + "B"] = 1000**_i
    _UNITS[_p + "I"] = 1024**_i

# The kernel addresses a block device's bytes with a signed 64-bit offset (loff_t): nothing podplan
# sizes is larger, and refusing more keeps every figure a float can hold.
MAX_BYTES = 2**63 - 1

_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*([A-Za-z]*)\s*$")


def parse_size(text: str | int, *, what: str = "size") -> int:
    """'2TB' -> 2000000000000, '1.5TiB', '256K' -> 262144, '2000398934016' -> itself."""
    if isinstance(text, bool):
        raise PlanError(f"{what} must be a size such as 2TB or 256K, not {text!r}")
    if isinstance(text, int):
        if text < 0:
            raise PlanError(f"{what} must not be negative (got {text if text > -MAX_BYTES else 'less than -8 EiB'})")
        return _at_most_max(text, str(text), what)
    if not isinstance(text, str):
        raise PlanError(f"{what} must be a size such as 2TB or 256K, not {text!r}")
    m = _SIZE.match(text)
    if not m:
        raise PlanError(f"{what} {text!r} is not a size; write it like 2TB, 1.8TiB, 256K or 2000398934016")
    number, unit = m.group(1), m.group(2).upper()
    if unit not in _UNITS:
        raise PlanError(
            f"{what} {text!r} has an unknown unit {m.group(2)!r}; use B, K/KiB, KB, M/MiB, MB, G/GiB, GB, T/TiB, TB"
        )
    try:
        value = Decimal(number) * _UNITS[unit]
    except InvalidOperation:  # pragma: no cover - the regex admits only valid decimals
        raise PlanError(f"{what} {text!r} is not a number") from None
    if _UNITS[unit] == 1 and value != value.to_integral_value():
        # A fraction of a unit is a size (1.8TiB, rounded down to a byte); a fraction of a byte is a typo.
        raise PlanError(f"{what} {text.strip()!r} is a fraction of a byte: a byte count is a whole number")
    return _at_most_max(int(value), text, what)  # int() of a Decimal truncates: 1.8TiB rounds down to a whole byte


def _at_most_max(n: int, text: str, what: str) -> int:
    if n > MAX_BYTES:
        shown = text.strip() if len(text.strip()) <= 24 else text.strip()[:20] + "..."
        raise PlanError(f"{what} {shown} is larger than any device Linux can address (8 EiB)")
    return n


def format_bytes_binary(n: int, digits: int = 2) -> str:
    """1649267441664 -> '1.50 TiB'."""
    return _format(n, 1024, ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"), digits)


def format_bytes_decimal(n: int, digits: int = 2) -> str:
    """2000398934016 -> '2.00 TB'."""
    return _format(n, 1000, ("B", "kB", "MB", "GB", "TB", "PB", "EB"), digits)


def _format(n: int, base: int, names: tuple[str, ...], digits: int) -> str:
    sign = "-" if n < 0 else ""
    value = abs(n)
    i = 0
    while value >= base ** (i + 1) and i < len(names) - 1:
        i += 1
    if i == 0:
        return f"{sign}{value} B"
    return f"{sign}{value / base**i:.{digits}f} {names[i]}"


def format_bytes_both(n: int, units: str = "decimal", sep: str = ", ") -> str:
    """Both unit families, the one a person's config asks for first: '2.00 TB, 1.82 TiB' (decimal)
    or '1.82 TiB, 2.00 TB' (binary)."""
    both = (format_bytes_decimal(n), format_bytes_binary(n))
    return sep.join(reversed(both) if units == "binary" else both)


def format_size_compact(n: int) -> str:
    """The shortest exact binary spelling, as tools take it: 524288 -> '512K', 3 -> '3'."""
    for suffix, factor in (("T", TiB), ("G", GiB), ("M", MiB), ("K", KiB)):
        if n and n % factor == 0:
            return f"{n // factor}{suffix}"
    return str(n)


def format_disk_size(n: int) -> str:
    """A disk size spelled as a person would have typed it, exactly: 18000000000000 -> '18TB',
    19791209299968 -> '18T', 2000398934016 (a real drive) -> itself. Decimal first: disks are sold so."""
    for suffix, factor in (("PB", 1000**5), ("TB", 1000**4), ("GB", 1000**3), ("PiB", PiB), ("TiB", TiB), ("GiB", GiB)):
        if n and n % factor == 0:
            return f"{n // factor}{suffix}"
    return str(n)


def size_meaning(n: int) -> str:
    """What a size means in both unit families, so '18T' (binary) never passes for '18TB': '= 18.00 TiB = 19.79 TB'."""
    return f"= {format_bytes_binary(n)} = {format_bytes_decimal(n)}"


def bare_unit_note(text: object) -> str | None:
    """For a disk size written with a bare binary unit, the line that says so ('18T read as 18 TiB
    = 19.79 TB; write 18TB for a drive sold as 18 TB'); None for any other spelling.

    Drives are sold in decimal units, so a bare `T` is most often meant as `TB`: the 10 % between
    them is a whole disk in a pod of ten.
    """
    if not isinstance(text, str):
        return None
    m = _SIZE.match(text)
    if not m or m.group(2).upper() not in tuple("KMGTPE"):
        return None
    number, unit = m.group(1), m.group(2).upper()
    decimal = "kB" if unit == "K" else f"{unit}B"
    return (
        f"{text.strip()} read as {number} {unit}iB = {format_bytes_decimal(parse_size(text))}; "
        f"write {number}{unit}B for a drive sold as {number} {decimal}"
    )


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def round_down(n: int, multiple: int) -> int:
    return n - n % multiple


def round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple
