"""Ask the real tools (mke2fs, mkfs.xfs, mdadm, LVM) what they build, on loop devices and files, for tests and rehearsals. Imports planners, runners.exec and runners.host."""
