"""The command line: argument parsing, each subcommand and its printed output. Imports app.shared, the use cases and planners' data types; the TUI only when asked to open it."""
