"""The "dog bites man" explorer: ``model`` (pure rules), ``figure`` (matplotlib), ``widget``.

``ShuffleExplorer`` is imported on first use, so ``posattn.explorer.model`` needs numpy only.
"""

__all__ = ["ShuffleExplorer"]


def __getattr__(name: str):
    if name == "ShuffleExplorer":
        from .widget import ShuffleExplorer

        return ShuffleExplorer
    raise AttributeError(f"module 'posattn.explorer' has no attribute {name!r}")
