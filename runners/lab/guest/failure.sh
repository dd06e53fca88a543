#!/bin/bash
# A failure rehearsal in the guest: build the pod with its own script, write data, fail
# members while a writer runs, measure the degraded array, rebuild onto spares or new disks,
# measure a rebuild under load, and check the data after each step.
# failure.conf sets: array, fail=(), replace=(), victim (a member that stays), probe, mnt, data_mib,
# speed_min, speed_max.
set -u
array='' mnt='' probe='' victim='' data_mib=0 speed_min=0 speed_max=0
fail=() replace=()
# shellcheck disable=SC1091
. ./failure.conf
out=${PODPLAN_OUT:-.}
now() { cut -d' ' -f1 /proc/uptime; }
step() { echo "== $*"; }
record() { echo "$1=$2" >>"$out/failure.txt"; }
sysmd() { cat "/sys/block/$name/md/$1"; }
fio_read() {  # job file, output name: the foreground workload on the array, read-only
    FIO_TARGET=$array fio --readonly --output-format=json --output="$out/$2.json" "$1" >/dev/null
}
fio_best() {  # job file, output name: twice; the host keeps the faster (the emulated CPU shares the host)
    fio_read "$1" "$2" && fio_read "$1" "$2.again"
}
wait_sync() {  # until md has started and finished its recovery; prints the guest seconds it took
    local t0=$1 i=0
    while [ "$(sysmd sync_action)" = idle ] && [ "$(sysmd degraded)" != 0 ] && [ $i -lt 100 ]; do
        sleep 0.1; i=$((i + 1))
    done
    mdadm --wait "$array" >/dev/null 2>&1
    while [ "$(sysmd sync_action)" != idle ]; do sleep 0.1; done
    echo "$(now) $t0" | awk '{printf "%.2f", $1 - $2}'
}
verify() {  # caches dropped, so the data comes back from the disks (and parity) as they are now
    sync
    echo 3 >/proc/sys/vm/drop_caches
    local f ok=yes
    for f in before during; do
        [ "$(sha256sum <"$mnt/$f.bin" | cut -d' ' -f1)" = "$sum" ] || ok=no
    done
    record "data_$1" "$ok"
}

step "build the pod with its own script"
bash ./build.sh --run --yes || exit $?
for md in /dev/md/*; do [ -e "$md" ] && mdadm --wait "$md" >/dev/null 2>&1; done
name=$(basename "$(realpath "$array")")
echo "$speed_min" >/proc/sys/dev/raid/speed_limit_min
echo "$speed_max" >/proc/sys/dev/raid/speed_limit_max

step "measure one disk on its own (the model's input)"
FIO_TARGET=$probe fio --readonly --output-format=json --output="$out/base.json" read.fio >/dev/null || exit 3

step "write $data_mib MiB and take its checksum"
head -c $((data_mib << 20)) /dev/urandom >/tmp/src
sum=$(sha256sum </tmp/src | cut -d' ' -f1)
dd if=/tmp/src of="$mnt/before.bin" bs=1M conv=fsync status=none || exit 4
fio_best read.fio normal || exit 5

step "fail ${#fail[@]} member(s) of $array while a writer runs"
# Frozen, md starts no recovery onto a spare, so the degraded array is measured on its own.
echo frozen >"/sys/block/$name/md/sync_action"
dd if=/tmp/src of="$mnt/during.bin" bs=1M oflag=direct conv=fsync status=none &
writer=$!
sleep 0.5
for d in "${fail[@]}"; do mdadm "$array" --fail "$d" || exit 6; done
wait "$writer"
record writer_rc $?
for d in "${fail[@]}"; do mdadm "$array" --remove "$d" >/dev/null || exit 7; done
record degraded_members "$(sysmd degraded)"
verify degraded
fio_best read.fio degraded || exit 8

step "rebuild onto ${#replace[@]} new disk(s) and the spares"
for d in "${replace[@]}"; do mdadm "$array" --add "$d" || exit 9; done
t0=$(now)
echo idle >"/sys/block/$name/md/sync_action"
record rebuild_s "$(wait_sync "$t0")"
record degraded_after "$(sysmd degraded)"
verify rebuilt

step "rebuild one member again while the foreground workload runs"
echo frozen >"/sys/block/$name/md/sync_action"
mdadm "$array" --fail "$victim" >/dev/null && mdadm "$array" --remove "$victim" >/dev/null || exit 10
mdadm --zero-superblock "$victim" || exit 11
mdadm "$array" --add "$victim" >/dev/null || exit 12
t0=$(now)
echo idle >"/sys/block/$name/md/sync_action"
done0=$(sysmd sync_completed | cut -d' ' -f1)
fio_read loaded.fio loaded || exit 13
done1=$(sysmd sync_completed | cut -d' ' -f1)
# How far the rebuild got while the foreground ran (sync_completed counts 512-byte sectors).
[ "$done0" != none ] && [ "$done1" != none ] && record loaded_sync_bytes $(((done1 - done0) * 512))
record loaded_fio_s "$(echo "$(now) $t0" | awk '{printf "%.2f", $1 - $2}')"
record loaded_rebuild_s "$(wait_sync "$t0")"
record degraded_final "$(sysmd degraded)"
verify final
mdadm --detail "$array" >"$out/detail.txt" 2>&1
cat /proc/mdstat
