"""The TUI's screens, one per module: plan, script, compare, sweep, validate, disks, help, dialogs. Import app.shared, runners, planners and the TUI's widgets."""
