"""podplan validate: the guard before any write, the storage under a target, the fio suite, and measured beside predicted. Imports planners, runners.exec, runners.fio and runners.host."""
