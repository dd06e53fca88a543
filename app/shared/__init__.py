"""What the command line and the TUI both use: plan files, the Rich tables of a computed plan, the parity CPU source. Imports runners and planners, never app.cli or app.tui."""
