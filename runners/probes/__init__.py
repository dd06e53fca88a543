"""Ask the real tools (mke2fs, mkfs.xfs, mdadm, LVM) what they build, on loop devices over sparse files (loopdev), for tests and rehearsals. Imports planners and runners.exec."""
