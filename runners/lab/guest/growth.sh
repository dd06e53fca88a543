#!/bin/bash
# A growth rehearsal in the guest: build the old pod with its own script, write data, run the
# grow script unmodified, wait for md, check the data, then leave the filesystem as empty as
# the plan's figures assume before the lab collects what the tools report.
# growth.conf sets: mnt, data_mib.
set -u
mnt='' data_mib=0
# shellcheck disable=SC1091
. ./growth.conf
out=${PODPLAN_OUT:-.}
record() { echo "$1=$2" >>"$out/growth.txt"; }
now() { cut -d' ' -f1 /proc/uptime; }

echo "== build the old pod with its own script"
bash ./build.sh --run --yes || exit $?
for md in /dev/md/*; do [ -e "$md" ] && mdadm --wait "$md" >/dev/null 2>&1; done

echo "== write $data_mib MiB and take its checksum"
head -c $((data_mib << 20)) /dev/urandom >/tmp/src
sum=$(sha256sum </tmp/src | cut -d' ' -f1)
dd if=/tmp/src of="$mnt/podplan-data.bin" bs=1M conv=fsync status=none || exit 4

echo "== grow with the grow script"
t0=$(now)
bash ./grow.sh --run --yes || exit $?
for md in /dev/md/*; do [ -e "$md" ] && mdadm --wait "$md" >/dev/null 2>&1; done
record grow_s "$(echo "$(now) $t0" | awk '{printf "%.2f", $1 - $2}')"
cat /proc/mdstat

echo "== check the data"
sync
echo 3 >/proc/sys/vm/drop_caches
if [ "$(sha256sum <"$mnt/podplan-data.bin" | cut -d' ' -f1)" = "$sum" ]; then
    record data_intact yes
else
    record data_intact no
fi
rm -f "$mnt/podplan-data.bin"
sync
