"""The tool versions the figures follow unless a plan's [tools] says otherwise (Debian 12's), as plain
text that imports nothing: `podplan --version` prints them without loading the models (planners.versions)."""

DEFAULT_TOOLS: dict[str, str] = {
    "mdadm": "4.2",
    "lvm2": "2.03.16",
    "e2fsprogs": "1.47.0",
    "xfsprogs": "6.1.0",
    "kernel": "6.1",
}

# The mkfs.btrfs whose chunk allocator and defaults planners/fs/btrfs.py follows (Debian 12's), checked
# against it over every profile; a plan does not choose it.
BTRFS_PROGS = "6.2"
