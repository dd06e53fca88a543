"""podplan planners: pure models and arithmetic. No subprocess, no files, no UI; pydantic and stdlib only.

At the top: the plan (models, hardware, units, versions, errors, example), compute and its results,
the alignment chain, LVM, reliability and the sweep, and the plans made for check, rehearse and
new disks (asbuilt, rehearsal, from_disks). Each layer with several modules has a package:
md, fs.ext4, fs.xfs, perf, script.
"""

__version__ = "0.1.0"
