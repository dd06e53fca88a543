"""The one error type a user's input can cause in the planners."""


class PlanError(ValueError):
    """An impossible or invalid plan. The message is one sentence a sysadmin can act on.

    `field` names the plan field that caused it (dotted path, e.g. "groups.0.members"),
    so the TUI can highlight the input; it is empty when no single field is to blame.
    """

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.message = message
        self.field = field
