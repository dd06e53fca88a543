"""LVM (pvcreate, vgcreate, lvcreate) arithmetic: pe_start, the extent size, linear and striped LVs over the
arrays, and the LV's geometry. Pure: imports planners' top-level models only.
"""
