#!/bin/bash
# The standard collection after a scenario: everything podplan predicts, as the tools report it.
# The LVM field lists (between double at-signs) are filled in by the host.
out=$1
# Timed trace in collect.log: under emulation every tool call costs, and this shows which.
PS4='+ ${EPOCHREALTIME} '
set -x
# Files are read with builtins (mapfile, read): under emulation every fork and exec costs a tenth of a second.
get() { REPLY=; [ -r "$1" ] && read -r REPLY <"$1"; }
copy() { local lines; [ -r "$1" ] || return 0; mapfile -t lines <"$1"; printf '%s\n' "${lines[@]}" >"$2"; }
mkdir -p "$out/md" "$out/examine" "$out/fs"
copy /proc/mdstat "$out/mdstat.txt"
copy /proc/mounts "$out/mounts.txt"
for md in /sys/block/md*; do
    [ -e "$md" ] || continue
    n=${md##*/}
    mdadm --detail --export "/dev/$n" >"$out/md/$n.export" 2>&1
    mdadm --detail "/dev/$n" >"$out/md/$n.detail" 2>&1
    for a in level raid_disks chunk_size layout component_size metadata_version stripe_cache_size \
        sync_action array_state; do
        [ -r "$md/md/$a" ] && read -r v <"$md/md/$a" && echo "$a $v"
    done >"$out/md/$n.sysfs"
    for d in "$md"/md/dev-*; do
        [ -e "$d/block" ] || continue
        m=${d##*/dev-}
        mdadm --examine "/dev/$m" >"$out/examine/$m.txt" 2>&1
        read -r slot <"$d/slot"; read -r state <"$d/state"
        echo "$m $slot $state" >>"$out/md/$n.members"
    done
done
members=()
# Each path a device was given by, with its kernel name: the scenario's disks, and mount sources that are
# links (btrfs shows the path it was made or mounted with, e.g. /dev/disk/by-id/... or /dev/md/NAME).
for d in $PODPLAN_DISKS; do r=$(readlink -f "$d"); members+=("/sys/block/${r##*/}"); echo "$d ${r##*/}"; done \
    >"$out/aliases.txt"
# Filesystems mounted straight on a disk (a plan without md or LVM), as " name:type " words; where
# each device is mounted (btrfs reports only on a mounted path).
on_disks=" "
declare -A mounted_at
while read -r src target fstype _; do
    case $src in
    /dev/disk/* | /dev/md/*) r=$(readlink -f "$src"); echo "$src ${r##*/}" >>"$out/aliases.txt"; src=$r ;;
    esac
    mounted_at[$src]=$target
    case $src in /dev/sd* | /dev/vd*) on_disks+="${src#/dev/}:$fstype " ;; esac
done </proc/mounts
# A btrfs as it reports itself: each device's size and chunks, then the usage summary (Free (estimated)).
btrfs_report() {
    local at=${mounted_at[$1]:-}
    [ -n "$at" ] || return 0
    { btrfs filesystem show --raw "$at"; btrfs filesystem usage -b "$at"; } >"$out/fs/$2.btrfs" 2>&1
}
lvm_seen=0
for b in /sys/block/md* /sys/block/dm-* "${members[@]}"; do
    [ -e "$b" ] || continue
    n=${b##*/}
    q=$b/queue
    line="dev=$n"
    for k in minimum_io_size:io_min optimal_io_size:io_opt read_ahead_kb:read_ahead_kb \
        logical_block_size:logical physical_block_size:physical rotational:rotational; do
        get "$q/${k%%:*}"; line+=" ${k#*:}=$REPLY"
    done
    get "$b/dm/name"; line+=" dm_name=$REPLY"
    get "$b/md/stripe_cache_size"; line+=" stripe_cache_size=$REPLY"
    case $n in
    sd* | vd*)
        # Members: sysfs gives what blockdev would, without a process per value.
        get "$b/size"; line+=" size=$((REPLY * 512))"
        get "$q/read_ahead_kb"; line+=" ra=$((REPLY * 2))"
        echo "$line"
        case $on_disks in
        *" $n:xfs "*) xfs_info "/dev/$n" >"$out/fs/$n.xfs_info" 2>&1 ;;
        *" $n:ext"[234]" "*) dumpe2fs -h "/dev/$n" >"$out/fs/$n.dumpe2fs" 2>&1 ;;
        *" $n:btrfs "*) btrfs_report "/dev/$n" "$n" ;;
        esac
        continue
        ;;
    dm-*) lvm_seen=1 ;;
    esac
    { read -r ra; read -r size; } < <(blockdev --getra --getsize64 "/dev/$n")
    echo "$line size=$size ra=$ra"
    t=$(blkid -p -o value -s TYPE "/dev/$n" 2>/dev/null)
    case $t in
    xfs) xfs_info "/dev/$n" >"$out/fs/$n.xfs_info" 2>&1 ;;
    ext2 | ext3 | ext4) dumpe2fs -h "/dev/$n" >"$out/fs/$n.dumpe2fs" 2>&1 ;;
    LVM2_member) lvm_seen=1 ;;
    btrfs)
        get "$b/dm/name"
        btrfs_report "/dev/$n" "$n"
        [ -n "$REPLY" ] && btrfs_report "/dev/mapper/$REPLY" "$n"
        ;;
    esac
done >"$out/block.txt"
# LVM's reports only where LVM is: a physical volume on an array or a mapped volume (each report
# scans every disk, half a second apiece under emulation). Without them the collection has no LVM.
if [ "$lvm_seen" = 1 ]; then
    lvm_opts=(--reportformat json --units b --nosuffix)
    pvs "${lvm_opts[@]}" -o "@@PV_FIELDS@@,vg_name" >"$out/pvs.json" 2>"$out/pvs.err"
    vgs "${lvm_opts[@]}" -o "@@VG_FIELDS@@" >"$out/vgs.json" 2>"$out/vgs.err"
    lvs "${lvm_opts[@]}" --segments -o "@@LV_FIELDS@@,vg_name,lv_read_ahead,lv_kernel_read_ahead,lv_dm_path" \
        >"$out/lvs.json" 2>"$out/lvs.err"
fi
df -B1 --output=source,fstype,size,used,avail,target >"$out/df.txt" 2>&1
lsblk -J -b -O >"$out/lsblk.json" 2>&1
copy /run/podplan-stubs.log "$out/stubs.log"
true
