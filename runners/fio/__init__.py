"""fio: job files as data, running one job, its JSON results, the per-disk baseline and the multi-host client/server mode. Imports planners and runners.exec."""
