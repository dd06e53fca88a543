"""The fixed part of every script: argument parsing, the dry-run switch, the transcript, the record
of what a run has done (and how to undo it) and the guards.

It is plain bash kept as text; the generator fills in the plan-specific parts around it.
The guards (planners.script.guards) read only, so they run in a dry run too and a refusal
shows up before anyone types --run.
"""

from __future__ import annotations

from collections.abc import Callable

from planners.script.guards import GUARDS, PLACEHOLDER_SOURCE, REFUSED, DiskFigures, device_checks

__all__ = ["FSTAB", "MDADM_CONF", "PREAMBLE", "REFUSED", "DiskFigures", "Write", "device_checks"]

# A script is written a line at a time: each step function takes the list's append.
Write = Callable[[str], None]

FSTAB = "/etc/fstab"
MDADM_CONF = "/etc/mdadm/mdadm.conf"

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
# SAID: the script already said why it stops (die), so the exit trap does not say it again.
SAID=0
die() { printf 'podplan: %s\n' "$*" >&2; SAID=1; exit 1; }

STEP="checks"
# What a run has done so far, one entry per completed change, beside the command that undoes it
# (empty where nothing undoes it). Filled only after a change succeeded, so the list is exact.
DONE_WHAT=()
DONE_UNDO=()
INITRAMFS=0
did() {
  [ "$RUN" -eq 1 ] || return 0
  DONE_WHAT+=("$1")
  DONE_UNDO+=("$2")
  log "$(date -u +%FT%TZ) done: $1${2:+; undo: $2}"
}
initramfs_updated() { if [ "$RUN" -eq 1 ]; then INITRAMFS=1; fi; }

# An EXIT trap, not an ERR trap: under set -e a failure inside a function ends the script without
# running an ERR trap (bash inherits it into functions only with errtrace), and die exits on purpose.
# Either way a run that stops half-way says what it did and how to take it back, last change first.
on_exit() {
  local status=$? i
  [ "$status" -ne 0 ] || return 0
  if [ "$SAID" -eq 0 ]; then
    printf 'podplan: FAILED during step "%s" (exit status %d); the steps after it did not run.\n' "$STEP" "$status" >&2
  fi
  [ ${#DONE_WHAT[@]} -gt 0 ] || return 0
  printf 'podplan: done before it stopped:\n' >&2
  for ((i = 0; i < ${#DONE_WHAT[@]}; i++)); do printf '  %s\n' "${DONE_WHAT[i]}" >&2; done
  printf 'podplan: the step "%s" may have done part of its work too; check it before undoing.\n' "$STEP" >&2
  printf 'podplan: to undo what was done, run in this order:\n' >&2
  for ((i = ${#DONE_UNDO[@]} - 1; i >= 0; i--)); do
    if [ -n "${DONE_UNDO[i]}" ]; then printf '  %s\n' "${DONE_UNDO[i]}" >&2; fi
  done
  # The initramfs holds a copy of mdadm.conf: rebuilt once its lines are gone.
  if [ "$INITRAMFS" -eq 1 ]; then printf '  update-initramfs -u\n' >&2; fi
}
trap on_exit EXIT

# The transcript beside this script: one record per command it runs (or, in a dry run, would
# run): start (UTC), run or dry-run, exit status, seconds, the command shell-quoted as it can be
# pasted back, then the last lines of its stderr. A log that cannot be written stops nothing.
# It lives beside the script, where whoever can write can change the script too; still, a planted
# link must not make root append to another file, so a log that is a symbolic link, not a regular
# file of ours, or has other hard links is not written (and a note says so). Mode 0600: commands
# and their errors name devices and paths. Past LOG_MAX bytes it moves to .log.1 (the older goes).
LOG="${BASH_SOURCE[0]:-podplan-script}.log"
LOG_MAX=1048576
log_off() { say "note: no transcript this time: $LOG $1"; LOG=""; }
log_open() {
  if [ -L "$LOG" ]; then log_off "is a symbolic link (never followed)"; return 0; fi
  if [ -e "$LOG" ]; then
    if [ ! -f "$LOG" ]; then log_off "is not a regular file"; return 0; fi
    if [ ! -O "$LOG" ]; then log_off "belongs to another user"; return 0; fi
    if [ "$(stat -c %h -- "$LOG" 2>/dev/null || echo 0)" != 1 ]; then log_off "has other hard links"; return 0; fi
    if [ "$(stat -c %s -- "$LOG" 2>/dev/null || echo 0)" -gt "$LOG_MAX" ] && ! mv -fT -- "$LOG" "$LOG.1" 2>/dev/null; then
      log_off "is over $LOG_MAX bytes and could not move to $LOG.1"; return 0
    fi
  fi
  if ! (umask 077 && : >>"$LOG") 2>/dev/null || ! chmod 600 -- "$LOG" 2>/dev/null; then LOG=""; fi
}
log_open
log() { if [ -n "$LOG" ] && [ ! -L "$LOG" ]; then printf '%s\n' "$@" 2>/dev/null >>"$LOG" || true; fi; }
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

FSTAB=@FSTAB@
MDADM_CONF=@MDADM_CONF@
[ -d "$(dirname "$MDADM_CONF")" ] || MDADM_CONF=/etc/mdadm.conf
PLACEHOLDER_SOURCE=@PLACEHOLDER_SOURCE@

# add_lines FILE LINE...: append whole lines to a config file (after a newline when its last line
# lacks one, which would otherwise join the first new line), and record the sed that takes them out.
add_lines() {
  local file="$1" from
  shift
  if [ -s "$file" ] && [ -n "$(tail -c 1 -- "$file")" ]; then printf '\n' >>"$file"; fi
  from=$(($( (wc -l <"$file") 2>/dev/null || echo 0) + 1))
  printf '%s\n' "$@" >>"$file"
  did "added line(s) $from-$((from + $# - 1)) to $file: $*" "sed -i '$from,$((from + $# - 1))d' $(printf '%q' "$file")"
}
@GUARDS@

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
for _mark, _text in (
    ("@GUARDS@", GUARDS.strip()),
    ("@PLACEHOLDER_SOURCE@", PLACEHOLDER_SOURCE),
    ("@FSTAB@", FSTAB),
    ("@MDADM_CONF@", MDADM_CONF),
):
    PREAMBLE = PREAMBLE.replace(_mark, _text)
