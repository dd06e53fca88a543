"""The plan against what was built or rehearsed: as built against as planned, each difference with its cost
(asbuilt), and the plan scaled down for a rehearsal on virtual disks (rehearsal). Pure: the figures read from a
machine arrive as arguments.
"""
