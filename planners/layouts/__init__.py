"""Layouts for a set of disks: every sensible layout ranked by bytes, speed and loss odds (sweep), and a first plan
for disks found on a machine (from_disks). Pure: they call compute, perf and reliability.
"""
