"""What each tool that receives a name or a path from a plan accepts, as one table of rules.

A plan comes from a file someone else may have written, and its names end up in a root shell
script, in /etc/fstab, in udev rules, on mkfs's and LVM's command lines and in file names. Each
rule below is a full match (never `re.match` with `$`, which accepts a final newline) of what
the receiving tool accepts, with its length limit and reserved words, and names its source.
podplan may be stricter than a tool (no leading '.', no shell or glob characters); it is never
looser. The same table is written out for people in docs/names.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from planners.errors import PlanError

NAME_MAX = 255
"""Bytes in one path component (Linux include/uapi/linux/limits.h)."""
PATH_MAX = 4096
"""Bytes in a path, its final NUL included (same header)."""

PLAN_FILE_AFFIXES = (("65-podplan-", ".rules"), ("build-", ".sh.log"), ("grow-", ".sh.log"), ("", ".toml"))
"""The files named after a plan: its udev rule, the TUI's script and the script's transcript, the plan."""


@dataclass(frozen=True)
class NameRule:
    """One kind of name: the characters it may hold, its length and the words the tool keeps."""

    what: str
    """How a message names it: 'volume group name'."""
    pattern: str
    """A regular expression the whole name must match."""
    allowed: str
    """The pattern in words, for the message."""
    max_len: int
    """Longest accepted, in characters (all accepted characters are ASCII: bytes too)."""
    source: str
    """Where the limit and the reserved words come from."""
    reserved: tuple[str, ...] = ()
    """Names refused whole."""
    prefixes: tuple[str, ...] = ()
    """Names refused when they start with one of these."""
    substrings: tuple[str, ...] = ()
    """Names refused when they hold one of these anywhere."""

    def check(self, value: str, field: str = "") -> str:
        if not isinstance(value, str):
            raise PlanError(f"{self.what} must be text", field)
        _no_control(value, self.what, field)
        if not value:
            raise PlanError(f"{self.what} is empty", field)
        if len(value) > self.max_len:
            raise PlanError(
                f"{self.what[:1].upper()}{self.what[1:]} must be at most {self.max_len} characters, not {len(value)} "
                f"({self.source}).",
                field,
            )
        if not _compiled(self.pattern).fullmatch(value):
            raise PlanError(f"{self.what} {value!r} is not allowed: use only {self.allowed}", field)
        hit = (
            value if value in self.reserved else None,
            next((p for p in self.prefixes if value.startswith(p)), None) if self.prefixes else None,
            next((s for s in self.substrings if s in value), None) if self.substrings else None,
        )
        if hit[0]:
            raise PlanError(f"{self.what} {value!r} is reserved ({self.source})", field)
        if hit[1]:
            raise PlanError(f"{self.what} {value!r} starts with {hit[1]!r}, which is reserved ({self.source})", field)
        if hit[2]:
            raise PlanError(f"{self.what} {value!r} holds {hit[2]!r}, which is reserved ({self.source})", field)
        return value


_WORD = r"[A-Za-z0-9_][A-Za-z0-9_.+-]*"
_WORD_WORDS = "letters, digits and _.+- (not starting with - . or +)"

PLAN_NAME = NameRule(
    "plan name",
    _WORD,
    _WORD_WORDS,
    NAME_MAX - max(len(a) + len(b) for a, b in PLAN_FILE_AFFIXES),
    "it names files such as 65-podplan-NAME.rules and build-NAME.sh.log, and a file name is at most "
    "NAME_MAX, 255 bytes",
)
MD_NAME = NameRule(
    "md array name",
    r"[A-Za-z0-9_][A-Za-z0-9_.-]*",
    "letters, digits and _.- (the portable file name set; not starting with - or .)",
    32,
    "mdadm's MD_NAME_MAX: --name and the name under /dev/md/ hold at most 32 characters (mdadm.h, mdadm.c)",
)
# lvm2 lib/misc/lvm-string.c _validate_name: [A-Za-z0-9._+-], no leading '-', not '.' or '..',
# shorter than NAME_LEN (128). The LV prefixes and strings are those lvcreate 2.03.16 refuses
# (apply_lvname_restrictions): the names LVM gives its own hidden sub-volumes.
_LVM_SOURCE = "lvm2: lib/misc/lvm-string.c, NAME_LEN 128 with its NUL"
VG_NAME = NameRule("volume group name", _WORD, _WORD_WORDS, 127, _LVM_SOURCE, reserved=(".", ".."))
LV_NAME = NameRule(
    "logical volume name",
    _WORD,
    _WORD_WORDS,
    127,
    _LVM_SOURCE + "; names LVM keeps for its own sub-volumes",
    reserved=(".", ".."),
    prefixes=("snapshot", "pvmove"),
    substrings=(
        "_cdata",
        "_cmeta",
        "_corig",
        "_cpool",
        "_cvol",
        "_imeta",
        "_iorig",
        "_mimage",
        "_mlog",
        "_pmspare",
        "_rimage",
        "_rmeta",
        "_tdata",
        "_tmeta",
        "_vdata",
        "_vorigin",
        "_wcorig",
    ),
)
VG_LV_MAX = 124
"""lvcreate 2.03.16 refuses an LV whose VG and LV names together pass 124 characters ('LV name
"VG/LV" length 128 is not supported': the full name with room for LVM's own suffix)."""

_LABEL = r"[A-Za-z0-9_.+-]+"
_LABEL_WORDS = "letters, digits and _.+-"
LABELS = {
    "ext4": NameRule(
        "ext4 label", _LABEL, _LABEL_WORDS, 16, "e2fsprogs: the superblock's s_volume_name, 16 bytes; longer is cut"
    ),
    "xfs": NameRule(
        "XFS label", _LABEL, _LABEL_WORDS, 12, "xfsprogs mkfs/xfs_mkfs.c: sb_fname, 12 bytes; mkfs.xfs refuses longer"
    ),
    "btrfs": NameRule(
        "btrfs label", _LABEL, _LABEL_WORDS, 255, "btrfs-progs: BTRFS_LABEL_SIZE 256 with its NUL; mkfs.btrfs refuses"
    ),
}
LABELS["ext3"] = LABELS["ext4"]

MOUNT_OPTION = NameRule(
    "mount option",
    r"[A-Za-z0-9_][A-Za-z0-9_=.:+-]*",
    "letters, digits and _=.:+- (not starting with a punctuation mark)",
    NAME_MAX,
    "podplan's own bound: the kernel takes all options of a mount in one page",
)
MOUNT_OPTIONS_MAX = 4095
"""The options of one mount, joined by commas: mount(2) copies at most one 4 KiB page of them."""

_PATH_WORD = r"[A-Za-z0-9._+-]+"
_DEVICE_WORD = r"[A-Za-z0-9._:+@=-]+"


# Every plan checks its names and paths, and a sweep checks hundreds of plans: each pattern compiled once.
@lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def check_path(value: str, what: str, field: str = "", *, device: bool = False) -> str:
    """An absolute path of plain components: no '.' or '..', no empty component, none over NAME_MAX,
    the whole under PATH_MAX. A device path is under /dev/ and may hold udev's by-id characters."""
    if not isinstance(value, str):
        raise PlanError(f"{what} must be text", field)
    _no_control(value, what, field)
    word, words = (
        (_DEVICE_WORD, "/dev/ followed by letters, digits and ._:+@=-, with / between the names")
        if device
        else (_PATH_WORD, "an absolute path of letters, digits and ._+-, with / between the names")
    )
    if len(value.encode()) >= PATH_MAX:
        raise PlanError(f"{what} {_short(value)} is longer than PATH_MAX ({PATH_MAX} bytes with its NUL)", field)
    if value == "/" and not device:
        return value
    if not _compiled(rf"/{word}(?:/{word})*").fullmatch(value) or (device and not value.startswith("/dev/")):
        raise PlanError(f"{what} {_short(value)} is not allowed: use only {words}", field)
    parts = value.split("/")[1:]
    if "." in parts or ".." in parts:
        raise PlanError(f"{what} {value!r} holds a '.' or '..' component: give the path itself", field)
    if len(value) > NAME_MAX and (long := next((p for p in parts if len(p) > NAME_MAX), None)):
        raise PlanError(f"{what}: the name {_short(long)} is longer than NAME_MAX ({NAME_MAX} bytes)", field)
    return value


# Mounting a new, empty filesystem over one of these hides what the system runs from, now and at
# every boot (the script writes the fstab line). Exact: the directory itself; trees: it and below.
SYSTEM_DIRS = frozenset(
    {"/", "/home", "/opt", "/root", "/tmp", "/var", "/snap"}
    | {f"/var/{d}" for d in ("lib", "log", "cache", "tmp", "spool", "mail", "backups", "local", "opt", "db")}
)
SYSTEM_TREES = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/proc",
    "/run",
    "/sbin",
    "/sys",
    "/usr",
    "/var/run",
    "/var/lock",
    "/lost+found",
)


def system_directory(mount_point: str) -> str | None:
    """Why mounting over this directory would harm the host, or None for a place data may go."""
    hides = "a new, empty filesystem mounted there hides what the host runs from, now and at every boot (fstab)"
    if mount_point in SYSTEM_DIRS:
        return f"{mount_point} is a system directory: {hides}"
    for tree in SYSTEM_TREES:
        if mount_point == tree:
            return f"{mount_point} is a system directory: {hides}"
        if mount_point.startswith(tree + "/"):
            return (
                f"{mount_point} is inside {tree}, which belongs to the operating system (its programs, its "
                "configuration or the kernel's own filesystems)"
            )
    return None


def _no_control(value: str, what: str, field: str) -> None:
    """A control character (a newline above all) splits the fstab or script line the text lands on."""
    # isprintable is False for control, format (bidi overrides) and line separator characters, and
    # for every space but ' ': all of them are refused.
    if not value.isprintable() and (bad := next(c for c in value if not c.isprintable())):
        raise PlanError(
            f"{what} {_short(value)} holds the control character {bad!r}, which would split the script, fstab or "
            "report line it is written into",
            field,
        )


def check_text(value: str, what: str, field: str = "") -> str:
    """Free text (a disk's model): any printable characters."""
    _no_control(value, what, field)
    return value


def _short(value: str) -> str:
    """The value for a message, cut so that a 10,000-character name gives one readable line."""
    return repr(value) if len(value) <= 60 else repr(value[:40]) + f"... ({len(value)} characters)"
