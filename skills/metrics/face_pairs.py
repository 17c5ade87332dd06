"""One-to-one pairing of source and edited faces for ``face_identity``'s details.

Each source face is paired with the edited face that fits it best under the assignment that
maximises the summed cosine (so two source people never claim the same edited face); faces
left over on either side are reported as unmatched, and a pair whose cosine is under
:data:`~skills.metrics.faces.SAME_PERSON_COSINE` is flagged as not the same person.

Example:
    >>> import numpy as np
    >>> from skills.metrics.faces import Face
    >>> a = Face(box=(0, 0, 10, 10), score=1.0, descriptor=np.ones(2))
    >>> b = Face(box=(20, 0, 30, 10), score=1.0, descriptor=np.ones(2))
    >>> out = pair_faces([a, b], [a], np.array([[1.0], [0.5]]))
    >>> out["unmatched_source"], out["summary"].split("; ")[-1]
    ([(20, 0, 30, 10)], '1 source face unmatched')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skills.metrics.faces import SAME_PERSON_COSINE, Face


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def pair_faces(source: list[Face], edited: list[Face], sims: np.ndarray) -> dict[str, Any]:
    """Pairs, unmatched faces, lowest pair and a summary; ``sims[i, j]`` is the cosine of
    source face ``i`` and edited face ``j``."""
    from scipy.optimize import linear_sum_assignment  # the [local] extra

    rows, cols = linear_sum_assignment(-sims)
    pairs = [
        {
            "source": source[i].box,
            "edited": edited[j].box,
            "cosine": round(float(sims[i, j]), 4),
            "same_person": bool(sims[i, j] >= SAME_PERSON_COSINE),
        }
        for i, j in zip(rows, cols, strict=True)
    ]
    unmatched_source = [source[i].box for i in range(len(source)) if i not in set(rows)]
    unmatched_edited = [edited[j].box for j in range(len(edited)) if j not in set(cols)]
    lowest = min(pairs, key=lambda p: p["cosine"])
    same = sum(p["same_person"] for p in pairs)
    summary = (
        f"{_count(len(source), 'face')} in the source, {len(edited)} in the edit; "
        f"{len(pairs)} paired ({same} the same person, lowest cosine {lowest['cosine']})"
    )
    if unmatched_source:
        summary += f"; {_count(len(unmatched_source), 'source face')} unmatched"
    if unmatched_edited:
        summary += f"; {_count(len(unmatched_edited), 'new face')} in the edit"
    return {
        "pairs": pairs,
        "unmatched_source": unmatched_source,
        "unmatched_edited": unmatched_edited,
        "lowest_pair": lowest,
        "same_person_pairs": same,
        "summary": summary,
    }
