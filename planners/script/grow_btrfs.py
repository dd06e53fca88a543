"""The grow script of a btrfs across raw disks: the build script's guards on the added disks, a read-only check
that the mounted filesystem is the plan's, then `btrfs device add` and the balance. A run interrupted after the
add finds the disks already in the filesystem and goes on with the balance."""

from __future__ import annotations

import shlex

from planners import __version__ as PODPLAN_VERSION
from planners.assumed import assumed_tools
from planners.grow.btrfs import BtrfsGrowth
from planners.models import Plan
from planners.script.build import Write
from planners.script.grow import grow_prelude
from planners.script.guards import checked_twice
from planners.script.preamble import device_checks

CHECKS = r"""
MISMATCHES=0
mismatch() { say "  MISMATCH $*"; MISMATCHES=$((MISMATCHES + 1)); }

# btrfs_devices MOUNTPOINT: how many devices the mounted btrfs has (0: none mounted there).
btrfs_devices() {
  btrfs filesystem show --raw "$1" 2>/dev/null | grep -c '^[[:space:]]*devid' || true
}

# expect_btrfs MOUNTPOINT DEVICES DF_SIZE: the plan's btrfs is mounted there, with its disks and size.
expect_btrfs() {
  local type n size
  type=$(findmnt -n -o FSTYPE --mountpoint "$1" 2>/dev/null || true)
  if [ "$type" != btrfs ]; then mismatch "$1 is ${type:-not mounted}, the plan says btrfs"; return 0; fi
  n=$(btrfs_devices "$1")
  size=$(df -B1 --output=size -- "$1" | tail -n 1 | tr -d ' ')
  [ "$n" = "$2" ] || mismatch "$1 spans $n devices, the plan says $2"
  [ "$size" = "$3" ] || mismatch "$1 has df size $size, the plan says $3"
  if [ "$n" = "$2" ] && [ "$size" = "$3" ]; then say "  ok      $1: btrfs over $2 devices, df size $3 bytes"; fi
}

# expect_in_btrfs MOUNTPOINT DEVICE: a disk the plan lists is one of the filesystem's devices.
expect_in_btrfs() {
  local dev p found=0
  dev=$(readlink -f -- "$2" || printf '%s' "$2")
  # Read whole before comparing: grep -q leaving a pipe early would fail the pipeline under pipefail.
  while read -r p; do
    [ "$(readlink -f -- "$p" || true)" = "$dev" ] && found=1
  done < <(btrfs filesystem show --raw "$1" 2>/dev/null | sed -n 's/.* path //p')
  [ "$found" -eq 1 ] || mismatch "$2 is not a device of the btrfs on $1"
}
"""


def q(word: str) -> str:
    return shlex.quote(word)


def btrfs_grow_script(old: Plan, g: BtrfsGrowth) -> str:
    """The bash script that grows the btrfs built as `old` the way `g` says."""
    lines: list[str] = []
    w = lines.append
    mnt = q(g.mount_point)
    before, after = len(g.devices_before), len(g.devices_before) + len(g.added_devices)
    _header(w, old, g)
    w("")
    w('step "check that the running system is the plan (read-only)"')
    w("RESUMED=0")
    w(f'if [ "$(btrfs_devices {mnt})" = {after} ]; then')
    w("  RESUMED=1")
    w(
        f'  say "  resume  {g.mount_point} already spans {after} devices: an earlier run added the disks; the balance runs"'
    )
    w(f"  expect_btrfs {mnt} {after} {g.df_size_bytes_after}")
    w("else")
    w(f"  expect_btrfs {mnt} {before} {g.df_size_bytes_before}")
    w("fi")
    for dev in g.devices_before:
        if dev:
            w(f"expect_in_btrfs {mnt} {q(dev)}")
    w('[ "$MISMATCHES" -eq 0 ] || die "$MISMATCHES difference(s) from the plan; nothing was changed"')
    w("")
    w('step "check the added disks (read-only)"')
    w(f"ADDED=({' '.join(q(d) for d in g.added_devices)})")
    w('if [ "$RESUMED" -eq 1 ]; then')
    w(f'  for d in "${{ADDED[@]}}"; do expect_in_btrfs {mnt} "$d"; done')
    w('  [ "$MISMATCHES" -eq 0 ] || die "$MISMATCHES difference(s) from the plan; nothing was changed"')
    w("fi")
    # Resumed, the disks are the filesystem's own by now: the device guards would refuse them.
    checks = [
        'if [ "$RESUMED" -eq 0 ]; then',
        *(f"  {x}" for x in device_checks([("ADDED", g.added_disks)])),
        "  check_distinct",
        "fi",
    ]
    for line in checked_twice(checks):
        w(line)
    add, balance, cleanup = g.steps
    _step(w, add.title, add.why)
    w('if [ "$RESUMED" -eq 0 ]; then')
    w(f'  run btrfs device add "${{ADDED[@]}}" {mnt}')
    w(
        f'  did {q(f"added the disks to the btrfs on {g.mount_point}")} "btrfs device remove$(printf \' %q\' "${{ADDED[@]}}")"{q(" " + mnt)}'
    )
    w("fi")
    _step(w, balance.title, balance.why)
    w(f"run btrfs balance start {' '.join(q(a) for a in g.balance)} {mnt}")
    _step(w, cleanup.title, cleanup.why)
    w(f"run btrfs balance start {' '.join(q(a) for a in g.cleanup)} {mnt}")
    w("")
    w('step "done"')
    w('if [ "$RUN" -eq 1 ]; then')
    w(f"  df -B1 {mnt}")
    w(f"  btrfs filesystem usage -b {mnt} | grep -F 'Free (estimated)'")
    w(
        f"  say 'podplan expected: size {g.df_size_bytes_after}, Free (estimated) {g.free_estimated_bytes_after} "
        "(less whatever is stored)'"
    )
    w("else")
    w('  say "dry run: nothing was changed; run again with --run to grow"')
    w("fi")
    return "\n".join(lines) + "\n"


def _header(w: Write, old: Plan, g: BtrfsGrowth) -> None:
    """What the script grows and to what, in comments, then the shared preamble and checks."""
    before, after = len(g.devices_before), len(g.devices_before) + len(g.added_devices)
    w("#!/usr/bin/env bash")
    w(
        f"# Grow script for the podplan plan {old.name!r} (btrfs device add + balance), generated by podplan {PODPLAN_VERSION}."
    )
    w(f"# Figures assume: {assumed_tools(old)}.")
    w(
        f"# Disks: {before} -> {after}; data {g.data_profile[0]} -> {g.data_profile[1]}, metadata "
        f"{g.metadata_profile[0]} -> {g.metadata_profile[1]}."
    )
    w(
        f"# df -B1 {g.mount_point}: size {g.df_size_bytes_before} -> {g.df_size_bytes_after}; btrfs filesystem usage -b "
        f"Free (estimated) {g.free_estimated_bytes_before} -> {g.free_estimated_bytes_after} (empty filesystem)."
    )
    grow_prelude(w, old, CHECKS)


def _step(w: Write, title: str, why: str) -> None:
    w("")
    w(f"step {q(title)}")
    w(f"# {why}.")
