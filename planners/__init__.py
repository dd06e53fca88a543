"""podplan planners: pure models and arithmetic."""

__version__ = "0.1.0"
