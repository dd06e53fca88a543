"""The grow script: readable bash that grows a built pod as a Growth says, guarded, dry run by default.

It shares the build script's preamble (options, dry run, device guards, confirmation). Before
anything changes it checks that the running system is the old plan: every array's level,
member count, size and listed members, the VG/LV size, the filesystem type, device and df size
at the mount point; a dry run makes the same read-only checks. Everything it needs is in the
file, so it runs unmodified on the pod or in a throwaway VM.
"""

from __future__ import annotations

import shlex

from planners import __version__ as PODPLAN_VERSION
from planners.assumed import assumed_tools
from planners.compute import compute
from planners.era import refuse_older_tools
from planners.grow.model import ArrayGrowth, Growth
from planners.grow.steps import add_argv, backup_path, create_argv, fs_argv, grow_argv, lvm_argvs
from planners.models import Plan
from planners.script.build import _var
from planners.script.guards import checked_twice
from planners.script.preamble import PREAMBLE, Write, device_checks

GROW_PREAMBLE = PREAMBLE.replace("build the array for real", "grow the pod for real").replace(
    "refusing to build without", "refusing to grow without"
)

CHECKS = r"""
MISMATCHES=0
mismatch() { say "  MISMATCH $*"; MISMATCHES=$((MISMATCHES + 1)); }

# grown_already DEVICE LEVEL MEMBERS: the array already has its new shape (an earlier run was
# interrupted during or after its reshape; md goes on with a reshape when the array is assembled).
grown_already() {
  local out
  [ -e "$1" ] || return 1
  out=$(mdadm --detail --export "$1" 2>/dev/null || true)
  [ "$(printf '%s\n' "$out" | sed -n 's/^MD_LEVEL=//p')" = "raid$2" ] &&
    [ "$(printf '%s\n' "$out" | sed -n 's/^MD_DEVICES=//p')" = "$3" ]
}

# expect_md DEVICE LEVEL MEMBERS BYTES: the array as the old plan built it, idle.
expect_md() {
  local out lvl n size k action
  if [ ! -e "$1" ]; then mismatch "$1: no such array"; return 0; fi
  out=$(mdadm --detail --export "$1" 2>/dev/null || true)
  lvl=$(printf '%s\n' "$out" | sed -n 's/^MD_LEVEL=//p')
  n=$(printf '%s\n' "$out" | sed -n 's/^MD_DEVICES=//p')
  size=$(blockdev --getsize64 "$1" 2>/dev/null || echo 0)
  [ "$lvl" = "raid$2" ] || mismatch "$1 is ${lvl:-not an md array}, the plan says raid$2"
  [ "$n" = "$3" ] || mismatch "$1 has ${n:-no} members, the plan says $3"
  [ "$size" = "$4" ] || mismatch "$1 holds $size bytes, the plan says $4"
  k=$(md_kernel_name "$1")
  action=$(cat "/sys/block/$k/md/sync_action" 2>/dev/null || echo idle)
  [ "$action" = idle ] || mismatch "$1 is busy ($action): wait until it is idle"
  if [ "$lvl" = "raid$2" ] && [ "$n" = "$3" ] && [ "$size" = "$4" ]; then say "  ok      $1: raid$2, $3 members, $4 bytes"; fi
}

# expect_member ARRAY DEVICE: a disk the old plan lists is a member of that array.
expect_member() {
  local dev
  dev=$(readlink -f -- "$2" || printf '%s' "$2")
  mdadm --detail "$1" 2>/dev/null | grep -qE "[[:space:]]$dev\$" || mismatch "$2 is not a member of $1"
}

# expect_lv VG/LV BYTES
expect_lv() {
  local size
  size=$(lvs --noheadings --nosuffix --units b -o lv_size -- "$1" 2>/dev/null | tr -d ' ' || true)
  if [ "$size" = "$2" ]; then say "  ok      $1: $2 bytes"; else mismatch "$1 holds ${size:-nothing}, the plan says $2 bytes"; fi
}

# expect_fs MOUNTPOINT TYPE DEVICE DF_SIZE
expect_fs() {
  local type src size
  type=$(findmnt -n -o FSTYPE --mountpoint "$1" 2>/dev/null || true)
  src=$(findmnt -n -o SOURCE --mountpoint "$1" 2>/dev/null || true)
  if [ -z "$type" ]; then mismatch "nothing is mounted on $1"; return 0; fi
  [ "$type" = "$2" ] || mismatch "$1 is $type, the plan says $2"
  [ "$(readlink -f -- "$src" || true)" = "$(readlink -f -- "$3" || true)" ] || mismatch "$1 is on $src, the plan says $3"
  size=$(df -B1 --output=size -- "$1" | tail -n 1 | tr -d ' ')
  if [ "$size" = "$4" ]; then say "  ok      $1: $2 on $3, df size $4 bytes"; else mismatch "$1 has df size $size, the plan says $4"; fi
}

# check_added RESUMED ARRAY DEVICE BYTES LOGICAL PHYSICAL: an added disk passes the build script's
# guards; once an earlier run got as far as the reshape, it is a member of the array instead.
check_added() {
  if [ "$1" -eq 1 ]; then expect_member "$2" "$3"; else check_device "${@:3}"; fi
}

# wait_idle DEVICE: mdadm --wait fails when there was nothing left to wait for, so watch sysfs too.
wait_idle() {
  run mdadm --wait "$1" || true
  [ "$RUN" -eq 1 ] || return 0
  local k
  k=$(md_kernel_name "$1")
  while [ "$(cat "/sys/block/$k/md/sync_action" 2>/dev/null || echo idle)" != idle ]; do sleep 5; done
}

# expect_size DEVICE BYTES: after a step, the size it was meant to reach.
expect_size() {
  [ "$RUN" -eq 1 ] || return 0
  local size
  size=$(blockdev --getsize64 "$1")
  [ "$size" = "$2" ] || die "$1 holds $size bytes after the step, not the planned $2; stopping here"
  say "  ok      $1: $2 bytes"
}

# record_array DEVICE: replace the array's line in mdadm.conf (found by UUID) with the current one.
record_array() {
  changed "mdadm --detail --brief $1 >> $MDADM_CONF (replacing its old line)"
  [ "$RUN" -eq 1 ] || return 0
  local line uuid
  line=$(mdadm --detail --brief "$1")
  uuid=$(printf '%s\n' "$line" | sed -n 's/.*UUID=\([0-9a-f:]*\).*/\1/p')
  if [ -n "$uuid" ] && [ -f "$MDADM_CONF" ]; then sed -i "/UUID=$uuid/d" "$MDADM_CONF"; fi
  printf '%s\n' "$line" >> "$MDADM_CONF"
  did "replaced the line of $1 in $MDADM_CONF (it holds the array's new shape)" ""
}
"""


def q(word: str) -> str:
    return shlex.quote(word)


def _line(argv: list[str]) -> str:
    return "run " + " ".join(q(a) for a in argv)


def grow_script(old: Plan, growth: Growth) -> str:
    """The bash script that grows a pod built as `old` the way `growth` says."""
    refuse_older_tools(old)
    g = growth
    lines: list[str] = []
    w = lines.append
    _header(w, old, g)
    _expect_system(w, old, g)
    _expect_added(w, g)
    for a in g.arrays:
        _array_steps(w, a, old.name)
    w("")
    w('step "record the arrays in mdadm.conf so they assemble at boot in their new shape"')
    for a in g.arrays:
        w(f"record_array {q(a.device)}")
    w("if command -v update-initramfs >/dev/null 2>&1; then run update-initramfs -u; fi")
    if g.lvm:
        w("")
        w(f'step "grow the LV {g.vg}/{g.lv}"')
        if g.resized_pvs:
            w("# pvresize first: LVM sees the bigger md device only when told; the PV keeps its pe_start.")
        if g.new_pvs:
            w("# The new PV gets the same --dataalignment as the others, so its pe_start is theirs.")
        for argv in lvm_argvs(g):
            w(_line(argv))
            w(_did_lvm(argv))
        w(f"expect_size {q(g.volume_device)} {g.lv_bytes_after}")
    w("")
    w(f'step "grow the {g.fs_type} filesystem on {g.mount_point}"')
    w(f"# {g.fs_detail}.")
    w(_line(fs_argv(g)))
    _alignment_steps(w, old, g)
    _done(w, g)
    return "\n".join(lines) + "\n"


def _header(w: Write, old: Plan, g: Growth) -> None:
    """The figures before and after as comments, the shell settings and the shared functions."""
    w("#!/usr/bin/env bash")
    w(f"# Grow script for the podplan plan {old.name!r} ({g.mode}), generated by podplan {PODPLAN_VERSION}.")
    w(f"# Figures assume: {assumed_tools(old)}.")
    for a in g.arrays:
        w(
            f"# {a.device}: {a.members_before} -> {a.members_after} members, {a.array_bytes_before} -> "
            f"{a.array_bytes_after} bytes."
        )
    if g.lvm:
        w(f"# LV {g.vg}/{g.lv}: {g.lv_bytes_before} -> {g.lv_bytes_after} bytes.")
    w(
        f"# df -B1 {g.mount_point}: size {g.df_size_bytes_before} -> {g.df_size_bytes_after}, "
        f"available {g.df_available_bytes_before} -> {g.df_available_bytes_after} (empty filesystem)."
    )
    grow_prelude(w, old, CHECKS)


def grow_prelude(w: Write, old: Plan, checks: str) -> None:
    """After a grow script's own header comments: the shared settings and preamble, then its checks' functions."""
    w("# Default is a dry run that checks the system and the added disks and prints the commands; --run grows.")
    w("set -euo pipefail")
    w("export LC_ALL=C")
    w(f"PLAN_NAME={q(old.name)}")
    w(GROW_PREAMBLE.rstrip())
    w(checks.rstrip())


def _expect_system(w: Write, old: Plan, g: Growth) -> None:
    """Read-only: each array (or its interrupted reshape), its members, the LV and the filesystem are the plan's."""
    result = compute(old)
    w("")
    w('step "check that the running system is the plan (read-only)"')
    reshaped = {a.device: a for a in g.arrays if not a.new}
    for gr, pg in zip(result.groups, old.groups, strict=True):
        a = reshaped.get(gr.device)
        if a is not None:
            var = _var(a, "RESUMED")
            w(f"{var}=0")
            w(f"if grown_already {q(a.device)} {a.level_after} {a.members_after}; then")
            w(f"  {var}=1")
            w(
                f'  say "  resume  {a.device} already has {a.members_after} members at raid{a.level_after}: an earlier '
                f'run was interrupted; md finishes the reshape and the steps after it run"'
            )
            w("else")
            w(f"  expect_md {q(gr.device)} {pg.level} {pg.members} {gr.md.array_bytes}")
            w("fi")
        else:
            w(f"expect_md {q(gr.device)} {pg.level} {pg.members} {gr.md.array_bytes}")
        for dev in gr.member_devices:
            if dev:
                w(f"expect_member {q(gr.device)} {q(dev)}")
    if g.lvm:
        w(f"expect_lv {q(f'{g.vg}/{g.lv}')} {g.lv_bytes_before}")
    w(f"expect_fs {q(g.mount_point)} {q(g.fs_type)} {q(g.volume_device)} {g.df_size_bytes_before}")
    w(
        '[ "$MISMATCHES" -eq 0 ] || die "$MISMATCHES difference(s) from the plan; nothing was changed '
        '(podplan check shows what was built)"'
    )


def _expect_added(w: Write, g: Growth) -> None:
    """Read-only: the added disks are there, unused and distinct, and no array has a new array's name;
    then the one confirmation, and in a run the same checks again right after it."""
    w("")
    w('step "check the added disks (read-only)"')
    for a in g.arrays:
        w(f"{_var(a, 'ADDED')}=({' '.join(q(d) for d in a.added_devices)})")
    checks = []
    for a in g.arrays:
        call = "check_device" if a.new else f'check_added "${_var(a, "RESUMED")}" {q(a.device)}'
        checks += device_checks([(_var(a, "ADDED"), a.added_disks)], call)
    checks.append("check_distinct")
    checks += [f"md_free {q(a.name)}" for a in g.arrays if a.new]
    for line in checked_twice(checks):
        w(line)


def _did_lvm(argv: list[str]) -> str:
    """The record of an LVM step of the grow, with its undo where one is safe (none once the LV grew)."""
    what = " ".join(q(x) for x in argv)
    undo = {"pvcreate": ["pvremove", argv[-1]], "vgextend": ["vgreduce", *argv[1:]]}.get(argv[0])
    return f"did {q(what)} {q(' '.join(q(x) for x in undo) if undo else '')}"


def _alignment_steps(w: Write, old: Plan, g: Growth) -> None:
    """The alignment settings that follow the new full stripe online, and a note for each that cannot."""
    fixes = [c for c in g.alignment if c.in_script]
    if fixes:
        w("")
        w('step "follow the new full stripe where that can change online"')
        for c in fixes:
            w(f"# {c.figure}: {c.before} -> {c.ideal}. {c.remedy}")
            for cmd in c.commands:
                w(f"run {cmd}")
            if c.layer == "tuning" and not g.lvm:
                _udev_readahead(w, old, g, c.ideal)
    for c in g.alignment:
        if not c.in_script:
            w(f"say {q(f'note: {c.figure} stays {c.before} (ideal {c.ideal}): {c.remedy}')}")
            for cmd in c.commands:
                w(f"say {q('  ' + cmd)}")


def _done(w: Write, g: Growth) -> None:
    """The df after a run beside the figure podplan expects, or the dry run's last word."""
    w("")
    w('step "done"')
    w('if [ "$RUN" -eq 1 ]; then')
    w(f"  df -B1 {q(g.mount_point)}")
    w(
        f"  say 'podplan expected: size {g.df_size_bytes_after}, available {g.df_available_bytes_after} "
        "(less whatever is stored)'"
    )
    w("else")
    w('  say "dry run: nothing was changed; run again with --run to grow"')
    w("fi")


def _array_steps(w: Write, a: ArrayGrowth, plan_name: str) -> None:
    w("")
    if a.new:
        w(f'step "create {a.device}"')
        w(
            f"# Shaped like the plan's other arrays: {a.array_bytes_after} bytes; it syncs in the background "
            f"(about {a.hours:.1f} h) and takes data at once."
        )
        w(_line(create_argv(a)))
        undo = f"mdadm --stop {q(a.device)} && mdadm --zero-superblock {' '.join(q(d) for d in a.added_devices)}"
        w(f"did {q(f'created {a.device}')} {q(undo)}")
        w(f"expect_size {q(a.device)} {a.array_bytes_after}")
        if a.stripe_cache_size:
            w(
                f"# stripe_cache_size {a.stripe_cache_size} entries, as the build script sets on the other arrays; "
                "the udev rule keeps it at boot."
            )
            w(f"md_attr {q(a.device)} stripe_cache_size {a.stripe_cache_size}")
            rule = f"/etc/udev/rules.d/65-podplan-{plan_name}.rules"
            line = (
                f'SUBSYSTEM=="block", KERNEL=="md*", ENV{{MD_DEVNAME}}=="{a.name}", '
                f'ATTR{{md/stripe_cache_size}}="{a.stripe_cache_size}"'
            )
            w(f'changed "add {a.name} to {rule}"')
            w(f'if [ "$RUN" -eq 1 ]; then add_lines {q(rule)} {q(line)}; fi')
        return
    resumed = _var(a, "RESUMED")
    w(f'step "add {len(a.added_devices)} disk(s) to {a.device} as spares"')
    w(f'if [ "${resumed}" -eq 0 ]; then')
    w("  " + _line(add_argv(a)))
    undo = f"mdadm {q(a.device)} --remove {' '.join(q(d) for d in a.added_devices)}"
    w(f"  did {q(f'added {len(a.added_devices)} spare(s) to {a.device}')} {q(undo)}")
    w("fi")
    w("")
    w(f'step "reshape {a.device} to {a.members_after} members"')
    w(f"# {a.backup_reason}.")
    w(f"# About {a.hours:.1f} h with no other I/O: {a.rate_mb_s:.0f} MB/s per member, limited by {a.rate_limit}.")
    w(f'if [ "${resumed}" -eq 0 ]; then')
    if a.backup_file:
        path = backup_path(a)
        w(f"  # The backup file must not be on {a.device}; mdadm removes it when the reshape ends.")
        w(f'  if [ "$RUN" -eq 1 ] && [ -e {q(path)} ]; then die "{path} exists: an earlier reshape may need it"; fi')
    w("  " + _line(grow_argv(a)))
    w(f"  did {q(f'started the reshape of {a.device} (md carries it through; it cannot be undone)')} ''")
    w(f'elif [ "$(cat "/sys/block/$(md_kernel_name {q(a.device)})/md/array_state" 2>/dev/null)" = read-auto ]; then')
    w("  # Assembled after an interruption, md holds the rest of the reshape until the array is written to.")
    w(f"  run mdadm --readwrite {q(a.device)}")
    w("fi")
    w(f"wait_idle {q(a.device)}")
    w(f"expect_size {q(a.device)} {a.array_bytes_after}")


def _udev_readahead(w: Write, old: Plan, g: Growth, sectors: str) -> None:
    rule = f"/etc/udev/rules.d/65-podplan-{old.name}.rules"
    kib = int(sectors) // 2
    w(f'if [ "$RUN" -eq 1 ] && [ -f {q(rule)} ]; then')
    w(f'  sed -i \'s/ATTR{{queue\\/read_ahead_kb}}="[0-9]*"/ATTR{{queue\\/read_ahead_kb}}="{kib}"/\' {q(rule)}')
    w("fi")
