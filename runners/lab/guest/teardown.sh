#!/bin/bash
# Undo a scenario: unmount its filesystems, deactivate LVM, stop md arrays, forget the
# configuration files a build script may have written.
# Every filesystem on a device, by whatever path it shows (btrfs keeps the one it was made with).
mounts=$(awk '$1 ~ "^/dev/" {print $2, $3}' /proc/mounts | sort -r)
while read -r m _; do
    [ -n "$m" ] && { umount "$m" || umount -l "$m"; }
done <<<"$mounts"
# The kernel keeps every btrfs device it scanned: forgotten, so the next scenario's disks start clean.
case $mounts in *" btrfs"*) btrfs device scan --forget 2>&1 ;; esac
swapoff -a 2>/dev/null
# Device-mapper only where it is in use (LVM scans every disk, half a second under emulation).
dms=(/sys/block/dm-*)
if [ -e "${dms[0]}" ]; then
    vgchange -an 2>&1
    dmsetup remove_all --force 2>&1
fi
for md in /sys/block/md*; do
    [ -e "$md" ] && mdadm --stop "/dev/${md##*/}" 2>&1
done
rm -rf /etc/mdadm/mdadm.conf /dev/md/ /mnt/*
# The udev rule a build writes: the next scenario's build refuses to write over it.
rm -f /etc/udev/rules.d/65-podplan-*.rules
: >/etc/fstab
