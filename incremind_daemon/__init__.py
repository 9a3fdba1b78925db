"""Long-term memory for a person and their coding agents."""

__version__ = "0.1.0"
