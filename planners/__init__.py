"""podplan planners: pure models and arithmetic. No subprocess, no files, no UI; pydantic and stdlib only.

At the top: the plan (models, units, versions, errors, example) and compute with its results. Each
concept has a package: hardware, md, lvm, fs (ext4, xfs, ...), findings (alignment and the other plan-time
findings), perf, reliability, layouts (sweep, from_disks), built (as-built and rehearsal comparisons),
grow, script.
"""

__version__ = "0.1.0"
