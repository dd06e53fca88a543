"""The build script as text: the fixed guarded preamble and the plan-specific commands. Pure: imports the plan model and results."""
