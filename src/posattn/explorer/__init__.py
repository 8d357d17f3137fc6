"""The "dog bites man" explorer: ``model`` (pure rules), ``figure`` (matplotlib), ``widget``."""

from .widget import ShuffleExplorer

__all__ = ["ShuffleExplorer"]
