"""md (mdadm) arithmetic: mdadm's placement rules and the array geometry they give. Pure: imports planners' top-level models only."""
