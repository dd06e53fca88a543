"""Filesystems on top of the stack: ext4/ext3 (fs.ext4) and XFS (fs.xfs), each as mkfs builds it and as df reports it. Pure."""
