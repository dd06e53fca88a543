"""The mkfs.xfs -N argv builder and the parser of its report, on recorded real output."""

from pathlib import Path

import pytest

from planners.fs.xfs.geometry import xfs_mkfs_options
from runners.probes.xfs import parse_mkfs_output, probe_argv, refusal_reason

FIXTURES = Path(__file__).parent / "fixtures" / "xfs"


def _fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_parse_plain_1g():
    g = parse_mkfs_output(_fixture("mkfs_N_1g.txt"))
    assert (g.block_size, g.sector_size, g.inode_size) == (4096, 512, 512)
    assert (g.agcount, g.agsize_blocks, g.data_blocks, g.imaxpct) == (4, 65536, 262144, 25)
    assert (g.sunit_blocks, g.swidth_blocks, g.su_bytes, g.sw) == (0, 0, 0, 0)
    assert (g.log_blocks, g.log_sunit_bytes, g.log_sector_size) == (16384, 0, 512)
    assert g.crc and g.finobt and g.sparse_inodes and g.reflink and g.bigtime and g.inobtcount
    assert not g.rmapbt and not g.nrext64
    assert g.data_bytes == 1 << 30
    assert g.mkfs_options == ("-b", "size=4096", "-s", "size=512", "-d", "noalign")


def test_parse_backblaze_like_stripe():
    g = parse_mkfs_output(_fixture("mkfs_N_78t_su256k_sw43.txt"))
    assert (g.agcount, g.agsize_blocks, g.data_blocks, g.imaxpct) == (79, 268435392, 20971520000, 1)
    assert (g.sunit_blocks, g.swidth_blocks) == (64, 2752)
    assert (g.su_bytes, g.sw) == (256 * 1024, 43)
    assert (g.log_blocks, g.log_sunit_bytes) == (521728, 256 * 1024)
    assert g.last_ag_blocks == 20971520000 - 78 * 268435392
    assert g.mkfs_options == ("-b", "size=4096", "-s", "size=512", "-d", "su=256k,sw=43")


def test_parse_big_stripe_unit_gets_32k_log_stripe():
    g = parse_mkfs_output(_fixture("mkfs_N_10g_su512k_sw5.txt"))
    assert (g.sunit_blocks, g.swidth_blocks, g.log_sunit_bytes) == (128, 640, 32 * 1024)
    assert g.mkfs_options[-4:] == ("-d", "su=512k,sw=5", "-l", "su=32k")


def test_parse_petabyte_4k_sectors_odd_stripe():
    g = parse_mkfs_output(_fixture("mkfs_N_1p_sect4k_su12k_sw7.txt"))
    assert (g.sector_size, g.log_sector_size) == (4096, 4096)
    assert (g.agcount, g.agsize_blocks, g.data_blocks) == (1024, 268435455, 274877905920)
    assert (g.sunit_blocks, g.swidth_blocks, g.sw) == (3, 21, 7)
    # 4 KiB log sectors make mkfs use a one-block log stripe unit, whatever the data stripe.
    assert (g.log_blocks, g.log_sunit_bytes) == (521728, 4096)


def test_parse_xfs_info_of_a_mounted_filesystem():
    g = parse_mkfs_output(_fixture("xfs_info_2g_su64k_sw4.txt"))
    assert (g.agcount, g.agsize_blocks, g.data_blocks) == (8, 65520, 524160)
    assert (g.sunit_blocks, g.swidth_blocks, g.log_blocks, g.log_sunit_bytes) == (16, 64, 16384, 65536)


@pytest.mark.parametrize("text", ["", "mkfs.xfs version 6.1.0\n", "meta-data=/x isize=512\n"])
def test_parse_rejects_what_is_not_a_report(text):
    with pytest.raises(ValueError, match=r"not a mkfs\.xfs geometry report"):
        parse_mkfs_output(text)


def test_refusal_reason_drops_usage_text():
    assert refusal_reason(_fixture("mkfs_N_200m_refused.stderr.txt")) == "Filesystem must be larger than 300MB."
    warned = "warning: data length 1000000000 not a multiple of 4096, truncated\nLog size must be at least 64MB.\n"
    assert refusal_reason(warned) == "Log size must be at least 64MB."


def test_probe_argv_is_the_build_options_plus_a_file():
    argv = probe_argv("/scratch/p.img", 10 << 30, su_bytes=65536, sw=4)
    assert argv == [
        "mkfs.xfs",
        "-N",
        "-b",
        "size=4096",
        "-s",
        "size=512",
        "-d",
        "su=64k,sw=4",
        "-d",
        "file,name=/scratch/p.img,size=10737418240",
    ]
    assert argv[2:-2] == list(xfs_mkfs_options(su_bytes=65536, sw=4, block_size=4096, sector_size=512))


@pytest.mark.parametrize(
    ("su", "sw", "sector", "tail"),
    [
        (0, 0, 512, ("-d", "noalign")),
        (0, 7, 512, ("-d", "noalign")),
        (12 * 1024, 5, 512, ("-d", "su=12k,sw=5")),
        (256 * 1024, 10, 512, ("-d", "su=256k,sw=10")),
        (1 << 20, 4, 512, ("-d", "su=1m,sw=4", "-l", "su=32k")),
        (1 << 20, 4, 4096, ("-d", "su=1m,sw=4")),
    ],
)
def test_mkfs_options(su, sw, sector, tail):
    opts = xfs_mkfs_options(su_bytes=su, sw=sw, block_size=4096, sector_size=sector)
    assert opts[:4] == ("-b", "size=4096", "-s", f"size={sector}")
    assert opts[4:] == tail
