"""The optional parts of posattn and the extra that installs each: ``pip install .`` brings numpy
only, and a part whose packages are missing says which extra to install, not just which module
it could not find.

>>> print(needs_extra("plot", "posattn.plotting", ModuleNotFoundError(name="matplotlib")))
... # doctest: +ELLIPSIS
posattn.plotting needs the 'plot' extra (matplotlib); got no module named 'matplotlib' in ...
"""

import sys

PACKAGES = {  # extra -> what it installs, as pyproject.toml's optional-dependencies name them
    "plot": ("matplotlib",),
    "widgets": ("matplotlib", "ipywidgets"),
}
MODULES = {  # extra -> the top-level modules its packages bring
    "plot": ("matplotlib", "PIL"),  # Pillow comes with matplotlib
    "widgets": ("matplotlib", "PIL", "ipywidgets", "IPython"),  # IPython comes with ipywidgets
}


def needs_extra(extra: str, part: str, missing: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error for ``part`` imported without ``extra``; ``missing`` itself when it is not one of
    the extra's modules (a bug is not dressed up as a missing install)."""
    if (missing.name or "").split(".")[0] not in MODULES[extra]:
        return missing
    return ModuleNotFoundError(
        f"{part} needs the {extra!r} extra ({', '.join(PACKAGES[extra])}); got no module named "
        f"{missing.name!r} in this Python ({sys.executable}). Install the extra from the series' "
        f"folder: pip install '.[{extra}]' (add -e for an editable install), or use `make lab`, "
        "whose environment has everything.", name=missing.name)
