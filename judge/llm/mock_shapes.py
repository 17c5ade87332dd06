"""The mock model's answers to the judge's own questions that follow their material
(:func:`judge.llm.mock_material.shaper`).

- ``ApplicabilityAnswer`` (which shift metrics apply to an edit): the mock answers as the
  rules on the instruction decide (:mod:`skills.metrics.applicability`), so text rendering
  applies only to an instruction that asks for text, and names that text.

Example:
    >>> from judge.llm.mock_material import Material, shaped
    >>> m = Material(blocks={"EDIT INSTRUCTION": 'Write "SALE" on the sign.'})
    >>> got = shaped("ApplicabilityAnswer", m, {"text_rendering": False}, lambda *a: 0)
    >>> got["text_rendering"], got["requested_text"]
    (True, 'SALE')
"""

from __future__ import annotations

from typing import Any

from judge.llm.mock_material import Material, Pick, shaper


@shaper("ApplicabilityAnswer")
def applicability(material: Material, value: dict[str, Any], pick: Pick) -> dict[str, Any]:
    from skills.metrics.applicability import requested_text, rule_applies

    instruction = material.blocks.get("EDIT INSTRUCTION", "")
    out = dict(value)
    for metric in ("color_shift", "structure_distance", "face_identity"):
        out[metric] = rule_applies(metric, instruction)[0]
    wanted = requested_text(instruction)
    out["text_rendering"] = bool(wanted)
    out["requested_text"] = wanted[0][:500] if wanted else ""
    return out
