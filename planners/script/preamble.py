"""The fixed part of every build script: argument parsing, the dry-run switch and the guards.

It is plain bash kept as text; the generator fills in the plan-specific parts around it.
The guards read only (lsblk, findmnt, wipefs -n, sysfs), so they run in a dry run too and
a refusal shows up before anyone types --run.
"""

PREAMBLE = r'''
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

# In a dry run, print each command (shell-quoted) instead of running it.
run() {
  if [ "$RUN" -eq 1 ]; then
    "$@"
  else
    printf '+'; printf ' %q' "$@"; printf '\n'
  fi
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
check_device() {
  local given="$1" dev why=() info
  case "$given" in
    *FILL-IN*) die "device path $given is a placeholder: name the real disks (--devices PATH,... of the podplan command that wrote this script, or the devices list of the plan) and write the script again" ;;
  esac
  dev=$(readlink -f -- "$given")
  [ -b "$dev" ] || die "$given is not a block device"
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
    say "  ok      $given"
  elif is_overridden "$dev"; then
    say "  OVERRIDE $given: $(IFS=,; echo "${why[*]}") -- its data will be destroyed"
  else
    say "  REFUSED $given: $(IFS=,; echo "${why[*]}")"
    PROBLEMS=$((PROBLEMS + 1))
  fi
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
    printf '+ echo %s > /sys/block/%s/md/%s\n' "$3" "$k" "$2"
    printf '%s\n' "$3" > "/sys/block/$k/md/$2"
  else
    printf '+ echo %s > /sys/block/<kernel name of %s>/md/%s\n' "$3" "$1" "$2"
  fi
}
'''
