"""This machine: its disks and what uses them, the inventory read by check, its kernel log, and loop devices. Imports planners and runners.exec."""
