"""The TUI's widgets, one per module: the plan form, the result tables, the Perf tab, a choice list. Import app.shared and planners."""
