#!/bin/bash
# An interrupted reshape, in two boots on the same disks.
#   crash:  build the old pod, write data, start the grow script, and once md's reshape is a
#           quarter done reboot the guest at once (no sync, no unmount: a power cut).
#   resume: assemble the array from its disks, see md take the reshape up where it stopped,
#           check the data, then run the same grow script again to finish the growth.
# interrupt.conf sets: array, devices=(), mnt, data_mib, fs_device.
set -u
array='' mnt='' fs_device='' data_mib=0
devices=()
# shellcheck disable=SC1091
. ./interrupt.conf
out=${PODPLAN_OUT:-.}
record() { echo "$1=$2" >>"$out/interrupt.txt"; }
kname() { basename "$(realpath "$array")"; }
# The same bytes in both boots, so the second knows what the first wrote.
data() { yes "podplan interrupted reshape" | head -c $((data_mib << 20)); }

if [ "${1:-}" = crash ]; then
    bash ./build.sh --run --yes || exit $?
    for md in /dev/md/*; do [ -e "$md" ] && mdadm --wait "$md" >/dev/null 2>&1; done
    data | dd of="$mnt/podplan-data.bin" bs=1M iflag=fullblock conv=fsync status=none || exit 4
    bash ./grow.sh --run --yes >"$out/grow-crash.log" 2>&1 &
    for _ in $(seq 1 1500); do
        done_total=$(cat "/sys/block/$(kname)/md/sync_completed" 2>/dev/null || echo none)
        if [ "$(cat "/sys/block/$(kname)/md/sync_action" 2>/dev/null)" = reshape ] && [ "$done_total" != none ]; then
            read -r d _ t <<<"$done_total"
            [ $((d * 4)) -ge "$t" ] && break
        fi
        sleep 0.2
    done
    # Straight to the console: the scenario's own output goes through a pipe the reset would cut.
    echo "podplan-lab: out $PODPLAN_SCENARIO: == power cut with the reshape at ${done_total:-?}" >/dev/console
    sleep 1
    echo b >/proc/sysrq-trigger
    sleep 30
    exit 1  # not reached: the guest is gone
fi

echo "== assemble after the power cut"
mdadm --assemble "$array" "${devices[@]}" || exit 5
md=/sys/block/$(kname)/md
# Where the superblocks say the cut reshape stopped (in array sectors; "none" when none was under way).
record reshape_position_at_assembly "$(cat "$md/reshape_position")"
record array_state_at_assembly "$(cat "$md/array_state")"
# md assembles an array "read-auto" and holds a pending reshape until the first write (a mount
# would be one); switching it to read-write shows md taking the reshape up at once.
[ "$(cat "$md/array_state")" = read-auto ] && mdadm --readwrite "$array"
seen=idle
for _ in $(seq 1 100); do
    seen=$(cat "$md/sync_action")
    [ "$seen" != idle ] && break
    sleep 0.1
done
record action_after_assembly "$seen"
record completed_after_assembly "$(cut -d' ' -f1 "$md/sync_completed")"
mdadm --detail "$array" >"$out/detail-at-assembly.txt" 2>&1
mdadm --wait "$array" >/dev/null 2>&1
while [ "$(cat "$md/sync_action")" != idle ]; do sleep 0.5; done
mkdir -p "$mnt"
mount "$fs_device" "$mnt" || exit 6
if cmp -s <(data) "$mnt/podplan-data.bin"; then record data_after_assembly yes; else record data_after_assembly no; fi
echo "== the grow script again"
bash ./grow.sh --run --yes || exit $?
sync
echo 3 >/proc/sys/vm/drop_caches
if cmp -s <(data) "$mnt/podplan-data.bin"; then record data_intact yes; else record data_intact no; fi
rm -f "$mnt/podplan-data.bin"
sync
