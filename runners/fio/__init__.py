"""fio itself: job files as data, running one job with progress, its JSON results, and the read-only per-disk baseline. Imports planners and runners.exec."""
