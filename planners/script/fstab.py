"""The mount step of the build script and the fstab line it adds.

A data volume's fstab line carries `nofail`: an array that does not assemble (disks missing,
a controller late) must not drop the host into the emergency shell; without it systemd makes
the mount a requirement of local-fs.target. It also carries a device timeout of DEVICE_TIMEOUT:
with nofail the boot does not wait for the mount, so the timeout only bounds how long systemd
keeps waiting for the array in the background. systemd's own default (DefaultTimeoutStartSec,
90 s) can run out before a degraded array appears: mdadm starts an incomplete array only when
its last-resort timer fires, 30 s after the first member shows up, and the members of a large
pod with staggered spin-up can take a minute or more to show up at all. A plan that gives its
own x-systemd.device-timeout keeps it.
"""

from __future__ import annotations

import shlex

from planners.models import Plan
from planners.results import VolumeResult
from planners.script.preamble import FSTAB, Write

NOFAIL = "nofail"
DEVICE_TIMEOUT = "x-systemd.device-timeout=180s"
_TIMEOUT_KEY = "x-systemd.device-timeout="


def q(word: str) -> str:
    return shlex.quote(word)


def fstab_options(options: list[str]) -> list[str]:
    """The plan's mount options with `nofail` and the device timeout added where the plan lacks them."""
    extra = [] if NOFAIL in options else [NOFAIL]
    if not any(o.startswith(_TIMEOUT_KEY) for o in options):
        extra.append(DEVICE_TIMEOUT)
    return [*options, *extra]


def fstab_field(text: str) -> str:
    """A field as fstab(5) spells it: blanks and backslashes octal-escaped, so a field stays one field."""
    out = []
    for ch in text:
        out.append(f"\\{ord(ch):03o}" if ch in " \t\n\\" or not ch.isprintable() else ch)
    return "".join(out)


def one_line(text: str) -> str:
    """Text for a comment line: anything that would end or bend the line shown as ?."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def fstab_line(plan: Plan, v: VolumeResult, source: str) -> str:
    """The fstab line of volume `v`, its source given (UUID=... in a run, a placeholder in a dry run)."""
    fs = plan.filesystem
    opts = ",".join(fstab_options(_mount_options(plan, v)))
    passno = 0 if fs.type == "btrfs" else 2  # btrfs checks itself at mount; fsck.btrfs does nothing
    return f"{source} {fstab_field(v.mount_point)} {fstab_field(fs.type)} {fstab_field(opts)} 0 {passno}"


def _mount_options(plan: Plan, v: VolumeResult) -> list[str]:
    # journal_path: the device is found by its path, not by the device number recorded at mkfs (numbers change);
    # XFS finds its external log only by the logdev= of every mount
    journal = [f"journal_path={v.ext4.journal_device}"] if v.ext4 and v.ext4.journal_device else []
    journal += [f"logdev={v.xfs.log_device}"] if v.xfs and v.xfs.log_device else []
    return [*plan.filesystem.mount_options, *journal] or ["defaults"]


def mount_checks(plan: Plan, v: VolumeResult, placeholder: str) -> list[str]:
    """Check lines: the mount point is free, and the fstab line (placeholder source) passes findmnt --verify."""
    return [
        f"mount_point_free {q(v.mount_point)}",
        f"fstab_verify {q(fstab_line(plan, v, placeholder))}",
    ]


def mount_step(w: Write, plan: Plan, v: VolumeResult) -> None:
    """Mount the volume and add its fstab line by UUID, once, recording how to undo each."""
    mp = q(v.mount_point)
    w("")
    w(f"step {q(f'mount {v.mount_point} and add it to fstab')}")
    w(f"if [ -e {mp} ]; then made=0; else made=1; fi")
    w(f"run mkdir -p {mp}")
    w(f'if [ "$made" -eq 1 ]; then did {q(f"made the directory {v.mount_point}")} {q(f"rmdir {mp}")}; fi')
    # By UUID, which no other filesystem shares; the label, each volume's own, names it for a reader.
    lines = [f"# LABEL={one_line(v.label)}: {one_line(v.device)} of the podplan plan {one_line(plan.name)}"] * bool(
        v.label
    )
    shown = fstab_line(plan, v, f"UUID=<uuid of {one_line(v.device)}>")
    w(f"# {fstab_options([])[0]} and {DEVICE_TIMEOUT}: the boot goes on without this volume if it fails to appear.")
    w('if [ "$RUN" -eq 1 ]; then')
    w(f"  uuid=$(blkid -s UUID -o value {q(v.device)})")
    w(f"  line={q(fstab_line(plan, v, 'UUID='))}")
    w('  line="${line/UUID=/UUID=$uuid}"')
    target = fstab_field(v.mount_point)
    # The checks refused an fstab that mounts something here already; this holds if it changed since.
    w(f'  if [ -z "$(fstab_has {q(target)})" ]; then')
    # The transcript records the lines as written, the filesystem's UUID in place of the placeholder.
    for line in lines:
        w(f"    changed {q(f'echo {q(line)} >> {FSTAB}')}")
    w(f'    changed "echo $(printf \'%q\' "$line") >> {FSTAB}"')
    w(f'    add_lines {FSTAB} {"".join(q(x) + " " for x in lines)}"$line"')
    w(f"  else say {q(f'note: {FSTAB} has a line for {v.mount_point} already; not adding another')}; fi")
    w("else")
    for line in [*lines, shown]:
        w(f"  changed {q(f'echo {q(line)} >> {FSTAB}')}")
    w("fi")
    opts = ",".join(_mount_options(plan, v))
    w(f"run mount -o {q(opts)} {q(v.device)} {mp}")
    w(f"did {q(f'mounted {v.device} on {v.mount_point}')} {q(f'umount {mp}')}")
