"""``face_identity``: best cosine similarity of identity descriptors, source vs edit.

Faces are found and embedded in both images (:mod:`skills.metrics.faces`: MTCNN detection,
upright alignment, dlib's 128-d descriptors). The value is the highest cosine similarity
over all (source face, edited face) pairs, as ECHO does with its face embeddings; larger =
same person. With several people, ``details`` also pairs the faces one to one (each source
face with the edited face that fits it best, by the assignment maximising the summed
cosine) and lists the faces left unmatched on either side; ``details.lowest_pair`` is the
worst-kept identity among the pairs and ``details.summary`` says it all in a sentence.
A pair counts as the same person from :data:`~skills.metrics.faces.SAME_PERSON_COSINE`
(0.93; on the evaluation set of docs/faces.md, 1% of same-person pairs fall below it and
0.01% of different-person pairs reach it). dlib's Euclidean distance for the best pair
and dlib's own verdict (below 0.6) are in ``details`` too.

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

from skills.metrics.cache import memo
from skills.metrics.face_pairs import pair_faces
from skills.metrics.faces import DLIB_SAME_PERSON, find_faces
from skills.metrics.registry import Metric, MetricOptions
from skills.metrics.types import ImagePair, MetricValue


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors."""
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-12))


class FaceIdentity(Metric):
    """Best source–edit face pair by cosine of identity descriptors; faces paired one to one."""

    name = "face_identity"
    direction = "cosine in [-1, 1], larger = same person"
    order = 3

    def compute(
        self, pair: ImagePair, options: MetricOptions, facts: dict[str, Any]
    ) -> MetricValue:
        source_faces = memo("faces", pair.source, lambda im: find_faces(np.asarray(im)))
        if not source_faces:
            return MetricValue.not_applicable(
                "no face detected in the source image", source_faces=0
            )
        edited_faces = memo("faces", pair.edited, lambda im: find_faces(np.asarray(im)))
        details: dict[str, Any] = {
            "model": "MTCNN detection; dlib face_recognition_resnet_model_v1 (128-d) "
            "on upright 5-point-aligned faces",
            "source_faces": len(source_faces),
            "edited_faces": len(edited_faces),
            "source_boxes": [f.box for f in source_faces],
            "edited_boxes": [f.box for f in edited_faces],
        }
        if not edited_faces:
            details["note"] = "the source has a face and the edit none: identity counted as lost"
            details["summary"] = (
                f"{len(source_faces)} face(s) in the source, none in the edit: identity lost"
            )
            details["unmatched_source"] = [f.box for f in source_faces]
            return MetricValue(value=0.0, details=details)
        sims = np.array(
            [[cosine(s.descriptor, e.descriptor) for e in edited_faces] for s in source_faces]
        )
        i, j = np.unravel_index(int(sims.argmax()), sims.shape)
        s, e = source_faces[i], edited_faces[j]
        distance = float(np.linalg.norm(s.descriptor - e.descriptor))
        details.update(
            euclidean_distance=round(distance, 4),
            dlib_same_person=distance < DLIB_SAME_PERSON,
            best_pair={"source": s.box, "edited": e.box},
            **pair_faces(source_faces, edited_faces, sims),
        )
        return MetricValue(value=round(float(sims[i, j]), 4), details=details)
