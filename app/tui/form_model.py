"""The plan form as plain data: the values shown for a Plan, and the Plan that values describe.

The form shows one set of identical md groups and up to two disk sets. A plan file can hold
more than that (several disk sets, groups that differ); whatever the form cannot show is kept
from the plan the form was filled from, and is replaced only when the user edits that part.
Nothing here imports Textual, so the mapping is tested on its own.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from app.shared.planfile import bound_sentence, describe_validation_error
from app.tui.presets import BY_KEY, preset_for
from app.usecases.plan import MAX_GROUPS, PlanRequest, members_per_group, plan_outputs
from planners.errors import PlanError
from planners.models import MdGroup, Plan
from planners.results import PlanResult
from planners.units import format_disk_size, format_size_compact, parse_size

Values = dict[str, Any]

PLAN_FIELDS = ("name",)
DISK_FIELDS = ("count", "size", "preset", "logical_sector", "physical_sector", "rotational", "count2", "size2")
MD_FIELDS = ("groups", "level", "layout", "members", "spares", "chunk", "bitmap", "metadata")
LVM_FIELDS = ("lvm", "lvm_mode", "stripe_size", "extent_size", "data_alignment", "lv_size")
FS_FIELDS = (
    "fs",
    "data_profile",
    "metadata_profile",
    "block_size",
    "no_stripe",
    "reserved",
    "label",
    "mount_point",
)
FIELDS = PLAN_FIELDS + DISK_FIELDS + MD_FIELDS + LVM_FIELDS + FS_FIELDS

RAID10_LAYOUTS = ("n2", "n3", "f2", "f3", "o2", "o3")
PARITY_LAYOUTS = (
    "left-symmetric",
    "left-asymmetric",
    "right-symmetric",
    "right-asymmetric",
    "parity-first",
    "parity-last",
)


def layouts_for(level: str) -> tuple[str, ...]:
    """Layouts md accepts for a level ('' = none to choose)."""
    return RAID10_LAYOUTS if level == "10" else PARITY_LAYOUTS if level in ("4", "5", "6") else ()


def _size_text(n: int | None) -> str:
    return "" if n is None else format_size_compact(n)


# What the md rows show for a plan without md (groups 0): md's own defaults, ready for when md is turned on.
_NO_MD = MdGroup(members=1)


def _homogeneous(plan: Plan) -> bool:
    if not plan.groups:
        return True
    first = plan.groups[0].model_dump(exclude={"name"})
    return all(g.model_dump(exclude={"name"}) == first for g in plan.groups[1:])


def values_from_plan(plan: Plan) -> Values:
    """What the form shows for a plan. Members read '' (auto) when the groups share the disks out evenly."""
    d0 = plan.disks[0]
    d1 = plan.disks[1] if len(plan.disks) > 1 else None
    g = plan.groups[0] if plan.groups else _NO_MD
    total = sum(d.count for d in plan.disks)
    # "auto" only where the groups use every disk: the shared rule refuses to leave one over
    auto = not plan.groups or (_homogeneous(plan) and total == len(plan.groups) * g.disks)
    return {
        "name": plan.name,
        "count": str(d0.count),
        "size": format_disk_size(d0.size),
        "preset": preset_for(d0.size, d0.logical_sector, d0.physical_sector, d0.rotational),
        "logical_sector": str(d0.logical_sector),
        "physical_sector": str(d0.physical_sector),
        "rotational": d0.rotational,
        "count2": str(d1.count) if d1 else "0",
        "size2": format_disk_size(d1.size) if d1 else "",
        "groups": str(len(plan.groups)),
        "level": str(g.level),
        "layout": g.layout or "",
        "members": "" if auto else str(g.members),
        "spares": str(g.spares),
        "chunk": _size_text(g.chunk),
        "bitmap": g.bitmap,
        "metadata": g.metadata,
        "lvm": plan.lvm.enabled,
        "lvm_mode": plan.lvm.mode,
        "stripe_size": _size_text(plan.lvm.stripe_size),
        "extent_size": _size_text(plan.lvm.extent_size),
        "data_alignment": _size_text(plan.lvm.data_alignment),
        "lv_size": _lv_size_text(plan.lvm.lv_size),
        "fs": plan.filesystem.type,
        "data_profile": plan.filesystem.data_profile or "",
        "metadata_profile": plan.filesystem.metadata_profile or "",
        "block_size": str(plan.filesystem.block_size),
        "no_stripe": plan.filesystem.stripe_unit == 0,
        "reserved": f"{plan.filesystem.reserved_percent:g}",
        "label": plan.filesystem.label,
        "mount_point": plan.filesystem.mount_point,
    }


class FormError(PlanError):
    """A value the form itself refuses; its field is already a form field."""


def _int(values: Values, key: str, what: str, *, minimum: int = 0) -> int:
    text = str(values.get(key, "")).strip()
    what = what[:1].upper() + what[1:]
    if not (text.isascii() and text.isdigit()):  # "²" is a digit to str.isdigit, not to int()
        raise FormError(f"{what}: enter a whole number", key)
    if len(text) > 18:  # int() refuses thousands of digits; no count or size here needs 19
        raise FormError(f"{what}: {text[:18]}... is too large", key)
    n = int(text)
    if n < minimum:
        raise FormError(f"{what} must be at least {minimum}", key)
    return n


def _opt_size(values: Values, key: str, what: str) -> int | None:
    text = str(values.get(key, "")).strip()
    if not text:
        return None
    try:
        return parse_size(text, what=what)
    except PlanError as exc:
        raise FormError(exc.message, key) from None


def _section(values: Values, fields: tuple[str, ...]) -> dict[str, Any]:
    return {k: values.get(k) for k in fields}


def plan_from_values(base: Plan, values: Values, shown: Values | None = None) -> Plan:
    """The plan the form describes, on top of `base`. Raises PlanError whose field is a form field.

    `shown` is what the form showed for `base` (values_from_plan): the plan screen keeps it for its
    base, as every keystroke compares the form with it."""
    data = base.model_dump(mode="json", exclude_none=True)
    shown = values_from_plan(base) if shown is None else shown
    try:
        if values.get("name", base.name) != base.name:
            data["name"] = str(values["name"]).strip()  # checked by the model, as a plan file's name is
        if _section(values, DISK_FIELDS) != _section(shown, DISK_FIELDS):
            data["disks"] = _disks(base, values)
        if _section(values, MD_FIELDS) != _section(shown, MD_FIELDS) or not values.get("members", "").strip():
            data["groups"] = _groups(base, values, sum(d["count"] for d in data["disks"]))
        if _section(values, LVM_FIELDS) != _section(shown, LVM_FIELDS):
            data["lvm"] = _lvm(data.get("lvm", {}), values)
        if _section(values, FS_FIELDS) != _section(shown, FS_FIELDS):
            data["filesystem"] = _filesystem(data.get("filesystem", {}), values)
        return _validate(data)
    except FormError:
        raise
    except PlanError as exc:
        raise FormError(_strip_location(exc.message, exc.field), form_field(exc.field)) from None


def compute_form(base: Plan, values: Values, shown: Values | None = None) -> tuple[Plan, PlanResult]:
    """The plan the form describes and its figures; any PlanError names the form field to blame."""
    plan = plan_from_values(base, values, shown)
    try:
        return plan, plan_outputs(PlanRequest(plan)).result
    except PlanError as exc:
        raise FormError(exc.message, form_field(exc.field)) from None


def _validate(data: dict[str, Any]) -> Plan:
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        cause = (err.get("ctx") or {}).get("error")
        loc = ".".join(str(x) for x in err["loc"])
        if isinstance(cause, PlanError):  # a model's own check knows the field better than pydantic's location
            raise PlanError(cause.message, cause.field or _guess_field(cause.message) or loc) from None
        # A value out of a field's bounds: the limit in one sentence, not pydantic's words for it and
        # for every field it shares out to (a disk count of 4548 also overflows each group's members).
        raise PlanError(bound_sentence(err) or describe_validation_error(exc, "form"), loc) from None


# Name checks raise without a field; their message says which name it was.
_MESSAGE_FIELDS = (
    ("plan name", "name"),
    ("filesystem label", "label"),
    ("mount point", "mount_point"),
    ("mount option", "mount_point"),
    ("md array name", "groups"),
    ("volume group", "lvm_mode"),
    ("logical volume", "lvm_mode"),
)


def _guess_field(message: str) -> str:
    low = message.lower()
    return next((field for words, field in _MESSAGE_FIELDS if low.startswith(words)), "")


def _disks(base: Plan, values: Values) -> list[dict[str, Any]]:
    old = base.model_dump(mode="json", exclude_none=True)["disks"]
    count = _int(values, "count", "disk count", minimum=1)
    size = _opt_size(values, "size", "disk size")
    if size is None:
        raise FormError("Disk size: enter a size such as 2TB, 1.8TiB or 2000398934016", "size")
    first: dict[str, Any] = {k: v for k, v in old[0].items() if k != "devices"}
    preset = BY_KEY.get(str(values.get("preset") or ""))
    first.update(
        count=count,
        size=str(values["size"]).strip(),
        logical_sector=_int(values, "logical_sector", "logical sector"),
        physical_sector=_int(values, "physical_sector", "physical sector"),
        rotational=bool(values["rotational"]),
    )
    if preset is not None:
        first["model"] = preset.model
    elif (size, first["logical_sector"], first["physical_sector"], first["rotational"]) != (
        old[0]["size"],
        old[0].get("logical_sector"),
        old[0].get("physical_sector"),
        old[0].get("rotational"),
    ):
        first.pop("model", None)  # the old model text described another disk
    if len(old[0].get("devices", [])) == count:  # device paths stay valid only while they still number one per disk
        first["devices"] = old[0]["devices"]
    out = [first]
    count2 = _int(values, "count2", "second disk set count")
    if count2:
        size2 = _opt_size(values, "size2", "second disk size")
        if size2 is None:
            raise FormError("Second disk size: enter a size such as 4TB", "size2")
        second = {k: v for k, v in (old[1] if len(old) > 1 else first).items() if k not in ("devices", "model")}
        second.update(count=count2, size=str(values["size2"]).strip())
        if len(old) > 1 and old[1].get("devices") and len(old[1]["devices"]) == count2:
            second["devices"] = old[1]["devices"]
        out.append(second)
    return out + old[2:]  # sets the form does not show are kept as they are


def _groups(base: Plan, values: Values, total: int) -> list[dict[str, Any]]:
    old = base.model_dump(mode="json", exclude_none=True)["groups"] or [
        _NO_MD.model_dump(mode="json", exclude_none=True)
    ]
    ngroups = _int(values, "groups", "md groups")
    if ngroups == 0:
        return []  # md off: LVM straight on the disks, or the filesystem on the one disk
    if ngroups > MAX_GROUPS:
        raise FormError(f"At most {MAX_GROUPS} md groups", "groups")
    spares = _int(values, "spares", "spares per group")
    if str(values.get("members", "")).strip():
        members = _int(values, "members", "members per group", minimum=1)
    else:
        try:
            members = members_per_group(total, ngroups, spares)  # the command line's rule, its words
        except PlanError as exc:  # the plan's "groups" is the form's group count here, not its members
            raise FormError(exc.message, exc.field) from None
    level = _int(values, "level", "RAID level")
    template: dict[str, Any] = {k: v for k, v in old[0].items() if k not in ("name", "layout", "chunk")}
    template.update(level=level, members=members, spares=spares, bitmap=values["bitmap"], metadata=values["metadata"])
    if values["bitmap"] == "none":
        template.pop("bitmap_chunk", None)
    layout = str(values.get("layout") or "")
    if layout and layout in layouts_for(str(level)):
        template["layout"] = layout
    if level != 1:  # RAID1 has no chunk; a leftover value from another level would only confuse mdadm
        chunk = _opt_size(values, "chunk", "chunk")
        if chunk is not None:
            template["chunk"] = chunk
    names = [g["name"] for g in old]
    return [{**template, "name": names[i] if i < len(names) else f"md{i}"} for i in range(ngroups)]


def _lvm(old: dict[str, Any], values: Values) -> dict[str, Any]:
    lvm = {k: v for k, v in old.items() if k not in ("stripe_size", "data_alignment")}
    lvm.update(enabled=bool(values["lvm"]), mode=values["lvm_mode"])
    lvm.pop("extent_size", None)
    extent = _opt_size(values, "extent_size", "PE size")
    if extent is not None:
        lvm["extent_size"] = extent
    if values["lvm_mode"] == "striped":
        stripe = _opt_size(values, "stripe_size", "stripe size")
        if stripe is not None:
            lvm["stripe_size"] = stripe
    alignment = _opt_size(values, "data_alignment", "data alignment")
    if alignment is not None:
        lvm["data_alignment"] = alignment
    lvm.pop("lv_size", None)
    size = str(values.get("lv_size", "")).strip()
    if size and lvm["enabled"]:
        lvm["lv_size"] = size  # 10G, 25% or rest: the plan model reads and checks it
    return lvm


def _lv_size_text(size: int | str | None) -> str:
    return size if isinstance(size, str) else _size_text(size)


def _filesystem(old: dict[str, Any], values: Values) -> dict[str, Any]:
    fs = dict(old)
    if values["fs"] != "btrfs":  # btrfs's own settings go with it
        for key in ("data_profile", "metadata_profile", "nodesize"):
            fs.pop(key, None)
    else:
        for key in ("data_profile", "metadata_profile"):
            fs[key] = str(values.get(key) or "") or None  # blank: mkfs.btrfs's default
    # an external journal or log goes with the filesystem that takes it
    if values["fs"] not in ("ext4", "ext3"):
        fs.pop("journal_device", None)
    if values["fs"] != "xfs":
        fs.pop("log_device", None)
    # Unticked, "no stripe" goes back to the device's stripe; a stripe unit the plan file gives stays.
    if values["fs"] == "btrfs" or bool(values.get("no_stripe")) != (fs.get("stripe_unit") == 0):
        fs.pop("stripe_unit", None)
        fs.pop("stripe_width", None)
        if values.get("no_stripe") and values["fs"] != "btrfs":
            fs.update(stripe_unit=0, stripe_width=0)
    fs.update(
        type=values["fs"],
        block_size=_int(values, "block_size", "block size"),
        label=str(values["label"]).strip(),
        mount_point=str(values["mount_point"]).strip(),
    )
    text = str(values.get("reserved", "")).strip()
    try:
        fs["reserved_percent"] = float(text or "0")
    except ValueError:
        raise FormError("Reserved: enter a percentage such as 5 or 0.5", "reserved") from None
    return fs


# Plan field names (last dotted component, or a whole path) -> the form field that sets them.
_FIELD_MAP = {
    "disks": "count",
    "count": "count",
    "size": "size",
    "member_bytes": "size",
    "logical_sector": "logical_sector",
    "physical_sector": "physical_sector",
    "devices": "count",
    "rotational": "rotational",
    "groups": "members",
    "name": "groups",
    "level": "level",
    "layout": "layout",
    "members": "members",
    "spares": "spares",
    "chunk": "chunk",
    "bitmap": "bitmap",
    "bitmap_chunk": "bitmap",
    "metadata": "metadata",
    "lvm": "lvm_mode",
    "mode": "lvm_mode",
    "stripes": "lvm_mode",
    "stripe_size": "stripe_size",
    "extent_size": "extent_size",
    "data_alignment": "data_alignment",
    "data_alignment_offset": "data_alignment",
    "lv_size": "lv_size",
    "data_profile": "data_profile",
    "metadata_profile": "metadata_profile",
    "nodesize": "fs",
    "filesystem": "fs",
    "type": "fs",
    "fs_type": "fs",
    "block_size": "block_size",
    "reserved_percent": "reserved",
    "label": "label",
    "mount_point": "mount_point",
    "mount_options": "mount_point",
    "stripe_unit": "fs",
    "stripe_width": "fs",
    "size_bytes": "fs",
    "su_bytes": "chunk",
    "stride": "chunk",
}


def form_field(plan_field: str) -> str:
    """The form field to highlight for a plan field path such as 'groups.0.members' ('' if none fits)."""
    if plan_field == "name":  # the plan's own; an md array's name ('groups.0.name') is set by the groups
        return "name"
    parts = [p for p in plan_field.split(".") if p and not p.isdigit()]
    if plan_field.startswith("disks.1."):
        return {"count": "count2", "size": "size2"}.get(parts[-1], "count2")
    for part in reversed(parts):
        if part in _FIELD_MAP:
            return _FIELD_MAP[part]
    return ""


def _strip_location(message: str, field: str) -> str:
    """Drop the 'form: groups.0.members: ' prefix: the highlighted field already says where."""
    for prefix in ("form: ", f"{field}: "):
        if (field and message.startswith(prefix)) or (prefix == "form: " and message.startswith(prefix)):
            message = message[len(prefix) :]
    return message[:1].upper() + message[1:]
