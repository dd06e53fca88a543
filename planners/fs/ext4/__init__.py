"""ext4/ext3 as mke2fs lays it out (geometry, layout, alloc) and what df shows on it (df). Pure: imports planners.errors/units/versions only."""
