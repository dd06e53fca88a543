"""The read-only guards every script runs before it changes anything, in a dry run too.

Plain bash kept as text. Two kinds: the devices the plan names (they fit the plan and hold
nothing in use) and what the run will create (an array name, a VG and LV, a mount point, an
fstab line, a udev rule file, an mdadm.conf line): each must be free. Every problem is one
`refuse` line naming the device or name and why, so all of them are listed before the script
stops; a function never ends the script by itself (a failing command inside a function ends
a `set -e` script without a word), so every command here that can fail is tested or guarded.
"""

from __future__ import annotations

from collections.abc import Sequence

from planners.units import format_bytes_decimal

# The last line of the checks when any failed (bash text, inside double quotes).
REFUSED = "$PROBLEMS refusal(s); nothing was changed (--override accepts only a device whose data may be destroyed)"
# The same after the confirmation: something changed while the prompt waited.
REFUSED_AGAIN = "$PROBLEMS refusal(s) on the check after the confirmation; nothing was changed"

# The source of the fstab line findmnt --verify checks in a dry run, before the filesystem (and its
# UUID) exists: a path no device has. Not a UUID= tag: findmnt resolves a tag through libblkid,
# which without udev's by-uuid links probes every block device of the host (under the lab's
# emulation, tens of seconds a check).
PLACEHOLDER_SOURCE = "/dev/podplan-not-made-yet"

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


def checked_twice(checks: list[str], refused: str = REFUSED) -> list[str]:
    """The check lines as the function `checks`, run before the confirmation and, in a run, again
    right after it: a disk mounted or given a signature while the prompt waited is refused then.
    With --yes nothing waited: the first check was right before the first change already."""
    return [
        "checks() {",
        "  PROBLEMS=0",
        "  LISTED=()",
        "  LISTED_ID=()",
        "  LISTED_NAME=()",
        *(f"  {line}" for line in checks),
        "}",
        "checks",
        f'[ "$PROBLEMS" -eq 0 ] || die "{refused}"',
        "confirm",
        'if [ "$RUN" -eq 1 ] && [ "$YES" -eq 0 ]; then',
        '  step "check again, right before the first change"',
        "  QUIET=1",
        "  checks",
        "  QUIET=0",
        f'  [ "$PROBLEMS" -eq 0 ] || die "{REFUSED_AGAIN}"',
        '  say "  ok      nothing changed since the first check"',
        "fi",
    ]


GUARDS = r"""
PROBLEMS=0
QUIET=0
ROOT_DISKS=""
ROOT_DISKS_KNOWN=0
refuse() { say "  REFUSED $*"; PROBLEMS=$((PROBLEMS + 1)); }
ok() { [ "$QUIET" -eq 1 ] || say "  ok      $*"; }
note() { [ "$QUIET" -eq 1 ] || say "  note    $*"; }

is_overridden() {
  local dev="$1" o
  for o in "${OVERRIDES[@]+"${OVERRIDES[@]}"}"; do
    [ "$(readlink -f -- "$o" 2>/dev/null || true)" = "$dev" ] && return 0
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
    if [ "$type" = disk ]; then readlink -f -- "$path" || true; fi
  done
}

# not_a_device PATH: why a path names no block device, in words. readlink -f fails when a
# directory on the way is missing (a mistyped /dev/disk/by-id/..., a host without udev).
not_a_device() {
  local dir
  dir=$(dirname -- "$1")
  if [ ! -d "$dir" ]; then echo "no such directory $dir (a mistyped path, or no udev to make it on this host)"
  elif [ -L "$1" ] && [ ! -e "$1" ]; then echo "a broken symbolic link (to $(readlink -- "$1" || true))"
  elif [ ! -e "$1" ]; then echo "no such device"
  else echo "not a block device"
  fi
}

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
    note "$given: $size bytes; the plan's figures use $want of them and leave $((size - want)) unused"
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
  dev=$(readlink -f -- "$given" 2>/dev/null || true)
  if [ -z "$dev" ] || [ ! -b "$dev" ]; then refuse "$given: $(not_a_device "$given")"; return 0; fi
  id=$(stat -L -c '%t %T' -- "$dev" 2>/dev/null) || { refuse "$given: cannot read its device number (stat $dev)"; return 0; }
  LISTED+=("$given")
  LISTED_ID+=("$(printf '%d:%d' "0x${id% *}" "0x${id#* }")")
  LISTED_NAME+=("$(basename -- "$(readlink -f "/sys/dev/block/${LISTED_ID[-1]}" || true)")")
  fits_plan "$given" "$2" "$3" "$4" || fits=1
  if [ "$ROOT_DISKS_KNOWN" -eq 0 ]; then
    ROOT_DISKS=$(root_disks || true)
    ROOT_DISKS_KNOWN=1
  fi
  # One lsblk for the device and its partitions: mount points in column 1, signatures in column 2.
  info=$(lsblk -n -r -o MOUNTPOINT,FSTYPE -- "$dev" 2>/dev/null || true)
  if printf '%s\n' "$info" | grep -q '^/' || findmnt -n -S "$dev" >/dev/null 2>&1; then why+=("mounted"); fi
  if printf '%s\n' "$info" | grep -Eq 'linux_raid_member|LVM2_member'; then why+=("in use by md or LVM"); fi
  if [ -n "$(ls -A "/sys/class/block/$(basename -- "$dev")/holders" 2>/dev/null)" ]; then why+=("held by another device (md, LVM or dm)"); fi
  if [ -n "$(wipefs -n --noheadings -- "$dev" 2>/dev/null)" ]; then why+=("carries a signature (wipefs -n $dev)"); fi
  if [ -n "$ROOT_DISKS" ] && printf '%s\n' "$ROOT_DISKS" | grep -qxF -- "$dev"; then why+=("holds the root filesystem"); fi
  if [ ${#why[@]} -eq 0 ]; then
    if [ "$fits" -eq 0 ]; then ok "$given"; fi
  elif is_overridden "$dev"; then
    [ "$QUIET" -eq 1 ] || say "  OVERRIDE $given: $(IFS=,; echo "${why[*]}") -- its data will be destroyed"
  else
    refuse "$given: $(IFS=,; echo "${why[*]}")"
  fi
}

# The kernel name of the whole disk a partition (major:minor) is on; nothing for a whole disk.
partition_of() {
  [ -e "/sys/dev/block/$1/partition" ] || return 0
  basename -- "$(dirname -- "$(readlink -f "/sys/dev/block/$1" || true)")"
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

# array_named NAME: the first ARRAY line on stdin (mdadm --detail --scan, mdadm.conf) that names
# the array NAME, as /dev/md/NAME or as name=NAME or name=HOST:NAME, with its line number.
array_named() {
  NAME="$1" awk '
    $1 == "ARRAY" {
      for (i = 2; i <= NF; i++) {
        n = ENVIRON["NAME"]
        if ($i == "/dev/md/" n || $i == "name=" n || ($i ~ /^name=/ && substr($i, length($i) - length(n)) == ":" n)) {
          print FNR ": " $0; exit
        }
      }
    }'
}

# md_free NAME: no array answers to the name the run gives its new array, running or recorded;
# otherwise creating the array fails, or the next boot assembles the other array under that name.
md_free() {
  local name="$1" dev="/dev/md/$1" found
  if [ -e "$dev" ] || [ -L "$dev" ]; then
    refuse "$dev: exists already (an array of that name is assembled: mdadm --detail $dev)"; return 0
  fi
  # An array named mdN takes the kernel device mdN.
  case "$name" in
    md[0-9]*)
      found=$(NAME="$name" awk '$1 == ENVIRON["NAME"] && $2 == ":" { print; exit }' /proc/mdstat 2>/dev/null || true)
      if [ -n "$found" ]; then refuse "$dev: /proc/mdstat has $name running already ($found)"; return 0; fi ;;
  esac
  found=$({ mdadm --detail --scan 2>/dev/null || true; } | array_named "$name")
  if [ -n "$found" ]; then refuse "$dev: a running array is named $name (mdadm --detail --scan: ${found#*: })"; return 0; fi
  found=$({ cat -- "$MDADM_CONF" 2>/dev/null || true; } | array_named "$name")
  if [ -n "$found" ]; then
    refuse "$dev: $MDADM_CONF already has an array of that name (line ${found%%: *}: ${found#*: }); remove the line if that array is gone"
    return 0
  fi
  ok "$dev: no array of that name, running or in $MDADM_CONF"
}

# lvm_free VG LV: no volume group of that name (vgcreate would fail after the arrays are made), and no
# device-mapper device where the LV's would go (a leftover makes lvcreate fail).
lvm_free() {
  local vg="$1" lv="$2" dm
  dm="/dev/mapper/${vg//-/--}-${lv//-/--}"
  # awk reads to the end: grep -q leaving early would fail the pipe under pipefail, and read as "no VG".
  if { vgs --noheadings -o vg_name 2>/dev/null || true; } | VG="$vg" awk '$1 == ENVIRON["VG"] { f = 1 } END { exit !f }'; then
    refuse "VG $vg: a volume group of that name exists (vgs $vg)"
  elif [ -e "/dev/$vg" ] || [ -L "/dev/$vg" ]; then
    refuse "VG $vg: /dev/$vg exists already (LVM puts the VG's LVs there)"
  elif [ -e "$dm" ] || [ -L "$dm" ]; then
    refuse "LV $vg/$lv: $dm exists already (a leftover device-mapper device: dmsetup info ${dm#/dev/mapper/})"
  else
    ok "VG $vg and LV $vg/$lv: free"
  fi
}

# mount_point_free DIR: nothing mounted there now and nothing in it the mount would hide.
mount_point_free() {
  local mp="$1" what first
  if [ -L "$mp" ]; then refuse "$mp: a symbolic link (to $(readlink -- "$mp" || true)): name the directory itself"; return 0; fi
  what=$(findmnt -n -r -o SOURCE,FSTYPE --mountpoint "$mp" 2>/dev/null || true)
  if [ -n "$what" ]; then refuse "$mp: already a mount point (findmnt --mountpoint $mp: ${what%%$'\n'*})"; return 0; fi
  if [ -e "$mp" ] && [ ! -d "$mp" ]; then refuse "$mp: exists and is not a directory"; return 0; fi
  first=$(find "$mp" -mindepth 1 -maxdepth 1 -print -quit 2>/dev/null || true)
  if [ -n "$first" ]; then refuse "$mp: not empty (holds $(basename -- "$first") and maybe more): the mount would hide it"; return 0; fi
  ok "$mp: $([ -d "$mp" ] && echo "an empty directory" || echo "absent; the run makes it"), not a mount point"
}

# file_free PATH WHAT: the run writes PATH as a new file (WHAT it is, in words).
file_free() {
  if [ -e "$1" ] || [ -L "$1" ]; then refuse "$1: exists already ($2; from an earlier build?)"; else ok "$1: free"; fi
}

# fstab_has TARGET: the line of FSTAB (number: text) that mounts something on TARGET already,
# commented lines aside; nothing if none does.
fstab_has() {
  TARGET="$1" awk '!/^[[:space:]]*#/ && NF >= 2 && $2 == ENVIRON["TARGET"] { print FNR ": " $0; exit }' "$FSTAB" 2>/dev/null || true
}

# fstab_verify LINE: findmnt --verify on a copy of FSTAB with LINE appended; an error in that line
# is a refusal. A dry run cannot know the filesystem's UUID, and the mount point may only come with
# the run's mkdir: those two findings are expected and left out, any other one is reported.
fstab_verify() {
  local line="$1" target copy first out found
  target=$(printf '%s\n' "$line" | awk '{ print $2 }')
  found=$(fstab_has "$target")
  # A second line for the same mount point: the boot would mount one over the other.
  if [ -n "$found" ]; then refuse "$target: $FSTAB already mounts something there (line $found)"; return 0; fi
  if ! command -v findmnt >/dev/null 2>&1; then note "$FSTAB: findmnt is not installed: the new line is not verified"; return 0; fi
  copy=$(mktemp) || { refuse "$FSTAB: no temporary file to verify the new line in (mktemp)"; return 0; }
  cat -- "$FSTAB" >"$copy" 2>/dev/null || true
  if [ -s "$copy" ] && [ -n "$(tail -c 1 -- "$copy")" ]; then printf '\n' >>"$copy"; fi
  first=$(($(wc -l <"$copy") + 1))
  printf '%s\n' "$line" >>"$copy"
  out=$(findmnt --verify --tab-file "$copy" 2>&1 || true)
  rm -f -- "$copy"
  found=$(printf '%s\n' "$out" | FIRST="$first" TARGET="$target" PLACEHOLDER="$PLACEHOLDER_SOURCE" awk '
    /: parse error at line [0-9]+/ {
      n = $0; sub(/.*: parse error at line /, "", n); sub(/[^0-9].*/, "", n)
      if (n + 0 >= ENVIRON["FIRST"] + 0) print "E parse error (findmnt reads no line there)"
      next
    }
    /^[^ ]/ { mine = ($0 == ENVIRON["TARGET"]); next }
    mine && /^ *\[[EW]\] / {
      kind = $0; sub(/^ *\[/, "", kind); kind = substr(kind, 1, 1)
      msg = $0; sub(/^ *\[[EW]\] /, "", msg)
      if (msg ~ /^unreachable on boot required target: No such file or directory$/) next
      if (index(msg, ENVIRON["PLACEHOLDER"])) next
      if (msg ~ /^cannot detect on-disk filesystem type/) next  # of the placeholder: nothing there yet
      print kind " " msg
    }')
  if [ -z "$found" ]; then ok "$FSTAB: the line it adds for $target passes findmnt --verify"; return 0; fi
  while IFS= read -r line; do
    case "$line" in
      E*) refuse "$FSTAB: the line it would add for $target fails findmnt --verify: ${line#E }" ;;
      *) note "$FSTAB: findmnt --verify warns of the line for $target: ${line#W }" ;;
    esac
  done <<<"$found"
}
"""
