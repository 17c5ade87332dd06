"""``face_identity``: best cosine similarity of dlib identity descriptors, source vs edit.

Faces are found and embedded in both images (:mod:`skills.metrics.faces`); the value is the
highest cosine similarity over all (source face, edited face) pairs, as ECHO does with its
face embeddings. Larger = same person. dlib descriptors are usually compared by Euclidean
distance (same person below 0.6); that distance for the best pair and dlib's verdict are
in ``details``. With these descriptors the same person typically gives a cosine above
0.95 and different people below 0.93 (see tests/metrics/test_face_identity.py).

Not applicable when the source has no detectable face, or the instruction asks for a
different person, to remove the person, or for a stylisation. When the source has a face
and the edit has none, the value is 0.0 (identity lost) and ``details.edited_faces`` is 0.

Example:
    >>> import numpy as np
    >>> round(cosine(np.array([1.0, 0.0]), np.array([1.0, 1.0])), 3)
    0.707
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skills.metrics.applicability import rule_applies
from skills.metrics.cache import memo
from skills.metrics.faces import DLIB_SAME_PERSON, find_faces
from skills.metrics.registry import Metric, MetricOptions, register
from skills.metrics.types import ImagePair, MetricValue


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors."""
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-12))


@register
class FaceIdentity(Metric):
    """Best source–edit face pair by cosine of dlib descriptors."""

    name = "face_identity"
    direction = "cosine in [-1, 1], larger = same person"
    order = 3

    def applicability(self, instruction: str) -> tuple[bool, str | None, dict[str, Any]]:
        ok, reason = rule_applies(self.name, instruction)
        return ok, reason, {}

    def compute(
        self, pair: ImagePair, options: MetricOptions, facts: dict[str, Any]
    ) -> MetricValue:
        source_faces = memo("faces", pair.source, lambda im: find_faces(np.asarray(im)))
        if not source_faces:
            return MetricValue.not_applicable("no face detected in the source image")
        edited_faces = memo("faces", pair.edited, lambda im: find_faces(np.asarray(im)))
        details: dict[str, Any] = {
            "model": "dlib face_recognition_resnet_model_v1 (128-d), 5-point alignment",
            "source_faces": len(source_faces),
            "edited_faces": len(edited_faces),
            "source_boxes": [f.box for f in source_faces],
            "edited_boxes": [f.box for f in edited_faces],
        }
        if not edited_faces:
            details["note"] = "the source has a face and the edit none: identity counted as lost"
            return MetricValue(value=0.0, details=details)
        pairs = [
            (cosine(s.descriptor, e.descriptor), s, e) for s in source_faces for e in edited_faces
        ]
        best, s, e = max(pairs, key=lambda p: p[0])
        distance = float(np.linalg.norm(s.descriptor - e.descriptor))
        details.update(
            euclidean_distance=round(distance, 4),
            dlib_same_person=distance < DLIB_SAME_PERSON,
            best_pair={"source": s.box, "edited": e.box},
        )
        return MetricValue(value=round(best, 4), details=details)
