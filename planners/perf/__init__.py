"""The performance model: workloads in fio's terms, the plan's context, the bottleneck terms, predict, and the kernel's parity benchmark. Pure: imports the plan model and compute."""
