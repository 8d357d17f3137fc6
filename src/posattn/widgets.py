from .explorer import ShuffleExplorer  # noqa: F401  (the old import path keeps working)
