"""podplan runners: everything that touches a machine. Imports planners, never app.

exec is the one place a program runs. probes ask the real mkfs, mdadm and LVM on loop devices;
fio runs fio; validate is the benchmark of a real target; host reads this machine; lab is the
throwaway VM with a real kernel and the rehearsal that runs there. dirs is where podplan keeps
its own files (the XDG rule); files is its one reader and one writer of them.
"""
