"""The command line: argument parsing, each subcommand and its printed output. Imports app.shared, runners and planners; the TUI only when asked to open it."""
