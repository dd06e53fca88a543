"""The hardware under a plan: the bounds of any figure a plan gives (bounds), what each disk can do and its class
presets (disks), and the machine around them: wiring, CPU, controller, md's knobs and Hardware that gathers them
(machine). Pure.
"""
