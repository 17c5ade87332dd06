"""Per-exemplar image features of a memory, computed once and cached on disk.

The cache is keyed by the feature set's version and the memory's checksum, under
``$JUDGE_CACHE_DIR`` (default ``~/.cache/t2i-judge``); a memory version may ship the same
file in its own ``derived/`` folder (the packaged ``avt-image`` does), which is read first.

Example::

    feats = exemplar_features(memory)          # image-quality features, one row per exemplar
    cams = exemplar_camera_features(memory)    # camera statistics, one row per exemplar
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from memory.memory import Memory, open_image
from skills.local.camera import CAMERA_VERSION, camera_features
from skills.local.image_features import VERSION as FEATURES_VERSION
from skills.local.image_features import image_features
from skills.settings import SkillSettings

log = logging.getLogger("judge.local")


def cache_dir() -> Path:
    """Where derived data is cached: ``$JUDGE_CACHE_DIR`` or ``~/.cache/t2i-judge``."""
    return Path(SkillSettings().cache_dir or Path.home() / ".cache" / "t2i-judge")


def shipped(memory: Memory, path: Path) -> Path:
    """``path``'s name in the memory version's own ``derived/`` folder when it exists there
    (derived data shipped with a memory, e.g. the packaged ``avt-image``), else ``path``."""
    packaged = Path(memory.folder) / "derived" / path.name
    return packaged if packaged.is_file() else path


def cached_rows(
    memory: Memory, prefix: str, compute: Callable[[Image.Image], np.ndarray]
) -> np.ndarray:
    """``compute`` of every exemplar's image, stacked, cached as ``<prefix>-<checksum>.npy``."""
    path = cache_dir() / f"{prefix}-{memory.manifest.checksum[:24]}.npy"
    try:
        cached = np.load(shipped(memory, path))
        if cached.shape[0] == len(memory.records):
            return cached
    except (OSError, ValueError):
        pass
    rows = np.stack([compute(open_image(memory.image_path(r))) for r in memory.records])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, rows)
        os.replace(tmp, path)
    except OSError as exc:  # a read-only home only costs the recomputation next time
        log.info("could not cache exemplar features: %s", exc)
    return rows


def exemplar_features(memory: Memory) -> np.ndarray:
    """Image-quality features (:mod:`skills.local.image_features`) of every exemplar."""
    return cached_rows(memory, f"features-{FEATURES_VERSION}", image_features)


def exemplar_camera_features(memory: Memory) -> np.ndarray:
    """Camera statistics (:mod:`skills.local.camera`) of every exemplar."""
    return cached_rows(memory, f"camera-{CAMERA_VERSION}", camera_features)
