#!/bin/bash
# Runs the batch: for each scenario its script, the collector, then a teardown that
# stops whatever it built, so the next scenario starts from a clean guest.
out_root=$1
# Builtins: under emulation every process costs a tenth of a second.
mark() { local up _; read -r up _ </proc/uptime; echo "podplan-lab: $* t=$up"; }
now() { local up _; read -r up _ </proc/uptime; echo "$up"; }
# Per disk: signature type, and digests of its first and last MiB (where md, LVM and
# filesystems keep their labels), to tell whether a script left the disks untouched.
fingerprint() {
    local d size
    for d in "${disks[@]}"; do
        size=$(blockdev --getsize64 "$d")
        printf '%s type=%s head=%s tail=%s\n' "$d" "$(blkid -p -o value -s TYPE "$d" 2>/dev/null)" \
            "$(dd if="$d" bs=1M count=1 status=none | md5sum | cut -d' ' -f1)" \
            "$(dd if="$d" bs=1M skip=$((size / 1048576 - 1)) count=1 status=none | md5sum | cut -d' ' -f1)"
    done
}
{ mdadm --version; lvm version; mkfs.xfs -V; mke2fs -V; fio --version; uname -r; } >"$out_root/versions.txt" 2>&1
# md's resync speed limits as the kernel set them: a scenario may change them, the next starts with these.
raid=/proc/sys/dev/raid speed_min='' speed_max=''
if [ -r "$raid/speed_limit_max" ]; then
    read -r speed_min <"$raid/speed_limit_min"
    read -r speed_max <"$raid/speed_limit_max"
fi
while read -r name; do
    dir=/jobs/scenarios/$name
    out=$out_root/scenarios/$name
    mkdir -p "$out"
    # shellcheck disable=SC1091
    . "$dir/config"
    if [ -f "$dir/prepare.sh" ]; then
        mark scenario "$name" prepare
        (cd "$dir" && PODPLAN_DISKS="${disks[*]}" timeout -k 10 "$timeout" bash ./prepare.sh "${disks[@]}") \
            >"$out/prepare.log" 2>&1 </dev/null
        echo $? >"$out/prepare_rc"
    fi
    [ "$fingerprint" = 1 ] && fingerprint >"$out/disks.before"
    mark scenario "$name" start
    start=$(now)
    (
        cd "$dir" || exit 99
        export PODPLAN_DISKS="${disks[*]}" PODPLAN_OUT="$out" PODPLAN_SCENARIO="$name"
        timeout -k 10 "$timeout" bash ./script.sh "${args[@]}" 2>"$out/stderr" </dev/null \
            | tee "$out/stdout" | sed -u "s/^/podplan-lab: out $name: /"
        echo "${PIPESTATUS[0]}" >"$out/rc"
    )
    rc=$(cat "$out/rc" 2>/dev/null || echo 99)
    script_end=$(now)
    [ "$fingerprint" = 1 ] && fingerprint >"$out/disks.after"
    if [ "$collect" = 1 ]; then
        mark scenario "$name" collect
        PODPLAN_DISKS="${disks[*]}" timeout -k 10 300 bash /jobs/collect.sh "$out/collect" >"$out/collect.log" 2>&1
    fi
    timeout -k 10 120 bash /jobs/teardown.sh >"$out/teardown.log" 2>&1
    [ -n "$speed_max" ] && echo "$speed_min" >"$raid/speed_limit_min" && echo "$speed_max" >"$raid/speed_limit_max"
    echo "start=$start script_end=$script_end end=$(now)" >"$out/times"
    mark scenario "$name" "rc=$rc"
done </jobs/order
