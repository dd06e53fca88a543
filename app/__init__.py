"""podplan app: the command line (cli), the Textual planner (tui) and what both use (shared). Imports runners and planners."""
