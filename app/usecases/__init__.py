"""What a person does with podplan, without a screen: one function per use case, a frozen request
in and a frozen outcome out (the plan's outputs, a validate session, a rehearsal, a grow plan, a
sweep). The command line (app.cli) and the TUI (app.tui) only render what these return, so the two
cannot compute a figure two ways; each use case also names the types of what it returns (a
prediction, a growth, a validate report), so the front ends import no model or runner module that
computes or touches the machine. Imports planners, runners and app.shared's parts without Rich;
never app.cli, app.tui, Textual or Rich (a test reads every import)."""
