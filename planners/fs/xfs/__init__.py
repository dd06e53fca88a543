"""XFS as mkfs.xfs builds it (mkfs, model, geometry) and what df shows on it (df). Pure: imports planners.errors/versions only."""
