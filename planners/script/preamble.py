"""The fixed part of every build script: argument parsing, the dry-run switch and the guards.

It is plain bash kept as text; the generator fills in the plan-specific parts around it.
The guards read only (blockdev, lsblk, findmnt, wipefs -n, stat, sysfs), so they run in a dry
run too and a refusal shows up before anyone types --run.
"""

from __future__ import annotations

from collections.abc import Sequence

from planners.units import format_bytes_decimal

# The last line of the checks when any failed (bash text, inside double quotes).
REFUSED = "$PROBLEMS refusal(s); nothing was changed (--override accepts only a device whose data may be destroyed)"

DiskFigures = tuple[int, int, int]
"""A disk as the plan has it: bytes, logical and physical sector size in bytes."""


def device_checks(arrays: Sequence[tuple[str, Sequence[DiskFigures]]], call: str = "check_device") -> list[str]:
    """Bash lines that run `call DEVICE BYTES LOGICAL PHYSICAL` on each device of each named bash
    array, with its figures in the same order: a loop per array whose disks are alike, as they
    mostly are, under a comment that says the figures in words wherever they change."""
    lines: list[str] = []
    said = None
    for array, disks in arrays:
        if not disks:
            continue
        if len(set(disks)) > 1:
            lines += [
                f'{call} "${{{array}[{i}]}}" {size} {logical} {physical}'
                for i, (size, logical, physical) in enumerate(disks)
            ]
            said = None
            continue
        size, logical, physical = disks[0]
        if disks[0] != said:
            lines.append(
                f"# The plan's disk: {size} bytes ({format_bytes_decimal(size)}), {logical}-byte logical and "
                f"{physical}-byte physical sectors."
            )
            said = disks[0]
        lines.append(f'for dev in "${{{array}[@]}}"; do {call} "$dev" {size} {logical} {physical}; done')
    return lines


PREAMBLE = r"""
usage() {
  cat <<'USAGE'
Usage: bash SCRIPT [--run] [--yes] [--override DEVICE]...
  (no option)        dry run: check every device and print the commands, change nothing
  --run              build the array for real (asks for confirmation)
  --yes              do not ask for confirmation (with --run)
  --override DEVICE  accept DEVICE even if it is mounted, in use by md/LVM, carries a
                     signature or holds the root filesystem (its data will be destroyed)
USAGE
}

RUN=0
YES=0
OVERRIDES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --run) RUN=1 ;;
    --yes) YES=1 ;;
    --override) [ $# -ge 2 ] || { usage >&2; exit 2; }; OVERRIDES+=("$2"); shift ;;
    --override=*) OVERRIDES+=("${1#--override=}") ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

say() { printf '%s\n' "$*"; }
die() { printf 'podplan: %s\n' "$*" >&2; exit 1; }

STEP="checks"
on_error() {
  printf 'podplan: FAILED during step "%s"; the steps after it did not run.\n' "$STEP" >&2
}
trap on_error ERR

# The transcript beside this script: one record per command it runs (or, in a dry run, would
# run): start (UTC), run or dry-run, exit status, seconds, the command shell-quoted as it can be
# pasted back, then the last lines of its stderr. A log that cannot be written stops nothing.
LOG="${BASH_SOURCE[0]:-podplan-script}.log"
log() { printf '%s\n' "$@" 2>/dev/null >>"$LOG" || true; }
now_us() { local t="${EPOCHREALTIME:-$(date +%s).000000}"; printf '%s\n' "${t/./}"; }
log "# $(date -u +%FT%TZ) $([ "$RUN" -eq 1 ] && echo run || echo dry run) of $0"

# In a dry run, print each command (shell-quoted) instead of running it.
run() {
  local start t0 us status=0 err
  start=$(date -u +%FT%TZ)
  if [ "$RUN" -ne 1 ]; then
    printf '+'; printf ' %q' "$@"; printf '\n'
    log "$start dry-run$(printf ' %q' "$@")"
    return 0
  fi
  t0=$(now_us)
  err=$(mktemp)
  # stderr is kept for the transcript's tail, then shown: after the command, not beside its stdout.
  "$@" 2>"$err" || status=$?
  cat -- "$err" >&2
  us=$(( $(now_us) - t0 ))
  log "$start run exit=$status $((us / 1000000)).$(printf '%03d' $((us % 1000000 / 1000)))s$(printf ' %q' "$@")"
  if [ -s "$err" ]; then log "$(tail -n 10 -- "$err" | sed 's/^/  stderr: /')"; fi
  rm -f -- "$err"
  return "$status"
}

# changed WHAT: a change the script makes itself, not by a command (a line added to a file, a
# sysfs value): printed in a dry run, recorded in the transcript either way.
changed() {
  if [ "$RUN" -ne 1 ]; then say "+ $*"; fi
  log "$(date -u +%FT%TZ) $([ "$RUN" -eq 1 ] && echo edit || echo dry-run edit): $*"
}

step() {
  STEP="$1"
  say ""
  say "== $1"
}

is_overridden() {
  local dev="$1" o
  for o in "${OVERRIDES[@]+"${OVERRIDES[@]}"}"; do
    [ "$(readlink -f -- "$o")" = "$dev" ] && return 0
  done
  return 1
}

# The whole disk that holds the root filesystem (resolving md/LVM/partitions down to disks).
root_disks() {
  local src
  src=$(findmnt -n -o SOURCE / 2>/dev/null || true)
  [ -n "$src" ] || return 0
  # An initramfs or container root has no block device behind it: then there is no root disk.
  { lsblk -n -s -r -o PATH,TYPE -- "$src" 2>/dev/null || true; } | while read -r path type; do
    if [ "$type" = disk ]; then readlink -f -- "$path"; fi
  done
}

PROBLEMS=0
ROOT_DISKS=""
ROOT_DISKS_KNOWN=0
refuse() { say "  REFUSED $*"; PROBLEMS=$((PROBLEMS + 1)); }

# fits_plan PATH BYTES LOGICAL PHYSICAL: the disk holds at least the plan's bytes and has its
# sector sizes, or the plan's figures do not describe what would be built. No --override for these.
fits_plan() {
  local given="$1" want="$2" logical="$3" physical="$4" figures size ss pbsz fits=0
  figures=$(blockdev --getsize64 --getss --getpbsz "$given" 2>/dev/null) ||
    { refuse "$given: cannot read its size (blockdev --getsize64 $given; run as root)"; return 1; }
  { read -r size; read -r ss; read -r pbsz; } <<<"$figures"
  if [ "$size" -lt "$want" ]; then refuse "$given: $size bytes, smaller than the plan's disk of $want bytes"; fits=1; fi
  # A sector size of - is the plan's to leave open (an external journal's device).
  if [ "$logical" != - ] && [ "$ss" -ne "$logical" ]; then refuse "$given: $ss-byte logical sectors, the plan's disk has $logical"; fits=1; fi
  if [ "$physical" != - ] && [ "$pbsz" -ne "$physical" ]; then refuse "$given: $pbsz-byte physical sectors, the plan's disk has $physical"; fits=1; fi
  if [ "$fits" -eq 0 ] && [ "$logical" != - ] && [ "$size" -gt "$want" ]; then
    say "  note    $given: $size bytes; the plan's figures use $want of them and leave $((size - want)) unused"
  fi
  return "$fits"
}

# Every device checked, for check_distinct: the path given, major:minor, kernel name.
LISTED=()
LISTED_ID=()
LISTED_NAME=()

# check_device PATH BYTES LOGICAL PHYSICAL: the disk fits the plan and holds nothing in use.
check_device() {
  local given="$1" dev why=() info fits=0 id
  case "$given" in
    *FILL-IN*) die "device path $given is a placeholder: name the real disks (--devices PATH,... of the podplan command that wrote this script, or the devices list of the plan) and write the script again" ;;
  esac
  dev=$(readlink -f -- "$given")
  [ -b "$dev" ] || die "$given is not a block device"
  id=$(stat -L -c '%t %T' -- "$dev")
  LISTED+=("$given")
  LISTED_ID+=("$(printf '%d:%d' "0x${id% *}" "0x${id#* }")")
  LISTED_NAME+=("$(basename "$(readlink -f "/sys/dev/block/${LISTED_ID[-1]}")")")
  fits_plan "$given" "$2" "$3" "$4" || fits=1
  if [ "$ROOT_DISKS_KNOWN" -eq 0 ]; then
    ROOT_DISKS=$(root_disks || true)
    ROOT_DISKS_KNOWN=1
  fi
  # One lsblk for the device and its partitions: mount points in column 1, signatures in column 2.
  info=$(lsblk -n -r -o MOUNTPOINT,FSTYPE -- "$dev" 2>/dev/null || true)
  if printf '%s\n' "$info" | grep -q '^/' || findmnt -n -S "$dev" >/dev/null 2>&1; then why+=("mounted"); fi
  if printf '%s\n' "$info" | grep -Eq 'linux_raid_member|LVM2_member'; then why+=("in use by md or LVM"); fi
  if [ -n "$(ls -A "/sys/class/block/$(basename "$dev")/holders" 2>/dev/null)" ]; then why+=("held by another device (md, LVM or dm)"); fi
  if [ -n "$(wipefs -n --noheadings -- "$dev" 2>/dev/null)" ]; then why+=("carries a signature (wipefs -n $dev)"); fi
  if [ -n "$ROOT_DISKS" ] && printf '%s\n' "$ROOT_DISKS" | grep -qxF -- "$dev"; then why+=("holds the root filesystem"); fi
  if [ ${#why[@]} -eq 0 ]; then
    if [ "$fits" -eq 0 ]; then say "  ok      $given"; fi
  elif is_overridden "$dev"; then
    say "  OVERRIDE $given: $(IFS=,; echo "${why[*]}") -- its data will be destroyed"
  else
    refuse "$given: $(IFS=,; echo "${why[*]}")"
  fi
}

# The kernel name of the whole disk a partition (major:minor) is on; nothing for a whole disk.
partition_of() {
  [ -e "/sys/dev/block/$1/partition" ] || return 0
  basename "$(dirname "$(readlink -f "/sys/dev/block/$1")")"
}

# related I J: how listed device J stands to listed device I, if it is the same disk or overlaps it.
related() {
  local i="$1" j="$2"
  if [ "${LISTED_ID[i]}" = "${LISTED_ID[j]}" ]; then
    echo "the same device as ${LISTED[i]} (major:minor ${LISTED_ID[i]})"
  elif [ "$(partition_of "${LISTED_ID[j]}")" = "${LISTED_NAME[i]}" ]; then
    echo "a partition of ${LISTED[i]}"
  elif [ -e "/sys/dev/block/${LISTED_ID[i]}/holders/${LISTED_NAME[j]}" ] ||
       [ -e "/sys/dev/block/${LISTED_ID[j]}/slaves/${LISTED_NAME[i]}" ]; then
    echo "a holder of ${LISTED[i]} (built on it)"
  fi
}

# check_distinct: no two listed paths share blocks (one disk under two names, a disk and its
# partition, a device and what it is built on): md would write the same blocks twice.
# No --override for these.
check_distinct() {
  local i j how
  for ((i = 0; i < ${#LISTED[@]}; i++)); do
    for ((j = i + 1; j < ${#LISTED[@]}; j++)); do
      how=$(related "$i" "$j")
      if [ -n "$how" ]; then refuse "${LISTED[j]}: $how"; continue; fi
      how=$(related "$j" "$i")
      if [ -n "$how" ]; then refuse "${LISTED[i]}: $how"; fi
    done
  done
}

confirm() {
  [ "$RUN" -eq 1 ] || return 0
  [ "$YES" -eq 1 ] && return 0
  [ -t 0 ] || die "refusing to build without a terminal to confirm on; pass --yes to confirm in advance"
  local answer
  read -r -p "This destroys all data on the devices above. Type the plan name ($PLAN_NAME) to go on: " answer
  [ "$answer" = "$PLAN_NAME" ] || die "not confirmed; nothing was changed"
}

md_kernel_name() {
  basename "$(readlink -f -- "$1")"
}

# md_attr /dev/md/NAME ATTR VALUE: write an md sysfs attribute. The kernel name (md127...) exists
# only once the array does, so a dry run names the array instead of guessing.
md_attr() {
  if [ "$RUN" -eq 1 ]; then
    local k
    k=$(md_kernel_name "$1")
    if [ -z "$k" ] || [ ! -d "/sys/block/$k/md" ]; then die "$1: no md array there to set $2 on"; fi
    say "+ echo $3 > /sys/block/$k/md/$2"
    changed "echo $3 > /sys/block/$k/md/$2"
    printf '%s\n' "$3" > "/sys/block/$k/md/$2"
  else
    changed "echo $3 > /sys/block/<kernel name of $1>/md/$2"
  fi
}
"""
