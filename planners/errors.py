"""The root of every error podplan raises for a person to read, and the planners' own."""


class PodplanError(Exception):
    """An error whose message is one line a sysadmin can act on; the CLI prints it, the TUI notifies it.

    Every exception class podplan defines derives from it (a test walks app/, planners/ and
    runners/), so the command line and the TUI each catch it in one place and nothing has to be
    re-raised as another type on its way up. `field` names the plan field to blame (dotted path,
    e.g. "groups.0.members"), for the TUI to highlight; None or "" when no single field is.
    """

    exit_status = 2
    """The command line's exit status: 2, the user's input (a flag, a file, a target) is wrong."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class PlanError(PodplanError, ValueError):
    """An impossible or invalid plan. The message is one sentence a sysadmin can act on.

    `field` names the plan field that caused it (dotted path, e.g. "groups.0.members"),
    so the TUI can highlight the input; it is empty when no single field is to blame.
    """

    field: str  # a plan error always has its field ("" for none): the TUI keys its highlight on it

    def __init__(self, message: str, field: str = ""):
        super().__init__(message, field)


# The rest name their concern, so that a handler can tell a plan's error from another file's: an
# `except PlanError` around a plan's computation must not also swallow a keymap's typo.


class KeymapError(PodplanError):
    """The TUI's keymap file (keys.toml) cannot be read or names a binding that is not there."""


class ConfigError(PodplanError):
    """The config file (config.toml) cannot be read, or a key in it is unknown or has a bad value."""


class TranscriptError(PodplanError):
    """The command transcript named by --transcript cannot be written."""


class ReportError(PodplanError):
    """A kept report (the curves of a validate run) cannot be read."""
