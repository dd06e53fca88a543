import pytest
from hypothesis import given
from hypothesis import strategies as st

from planners.errors import PlanError
from planners.units import (
    bare_unit_note,
    format_bytes_binary,
    format_bytes_decimal,
    format_size_compact,
    parse_size,
)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("2TB", 2_000_000_000_000),
        ("1.8TiB", 18 * 1024**4 // 10),
        ("256K", 262144),
        ("256k", 262144),
        ("256KiB", 262144),
        ("256KB", 256000),
        ("2000398934016", 2000398934016),
        ("1.5 TiB", 3 * 1024**4 // 2),
        ("4M", 4 * 1024**2),
        ("0", 0),
        ("512B", 512),
        (" 64 MiB ", 64 * 1024**2),
        (4096, 4096),
    ],
)
def test_parse_size(text, expected):
    if expected is None:
        with pytest.raises(PlanError):
            parse_size(text)
    else:
        assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["", "abc", "2XB", "-1", "1e3", "2 T B", "..5K", True, None, 1.5, -4])
def test_parse_size_rejects(bad):
    with pytest.raises(PlanError) as exc:
        parse_size(bad)
    assert "\n" not in str(exc.value)


@given(st.integers(min_value=1, max_value=2**60))
def test_compact_round_trips(n):
    assert parse_size(format_size_compact(n)) == n


def test_formatters():
    assert format_bytes_decimal(2000398934016) == "2.00 TB"
    assert format_bytes_binary(1649267441664) == "1.50 TiB"
    assert format_bytes_binary(512) == "512 B"
    assert format_size_compact(524288) == "512K"
    assert format_size_compact(3 * 1024**4) == "3T"


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("18T", "18T read as 18 TiB = 19.79 TB; write 18TB for a drive sold as 18 TB"),
        ("1.5t", "1.5t read as 1.5 TiB = 1.65 TB; write 1.5TB for a drive sold as 1.5 TB"),
        ("960G", "960G read as 960 GiB = 1.03 TB; write 960GB for a drive sold as 960 GB"),
        ("18TB", None),
        ("18TiB", None),
        ("2000398934016", None),
        (2000398934016, None),
        ("18X", None),
    ],
)
def test_a_bare_binary_unit_is_noted(text, note):
    assert bare_unit_note(text) == note
