"""Failure localisation for editor probes: an edit instruction cut into *steps*.

A text-to-image prompt is localised over its scene graph; an edit instruction is localised
over the changes it asks for. The probe's LLM splits a failing instruction into steps (each a
short imperative sentence that stands alone: the prompt file ``prompts/edit/edit_steps.md``);
the steps become the entities of a :class:`~eval.probing.scene_graph.SceneGraph` with no
attributes, relations or context, so the localisation of :mod:`eval.probing.localise` halves
them as it halves a prompt's entities, and :func:`compose_steps` reads any set of them back as
one instruction, in the original order. Every sub-instruction edits the same source picture
as the instruction it comes from (:meth:`eval.probing.editing.SourcePictures.pin`).

Example:
    >>> g = steps_graph(EditSteps(steps=["Make the mug blue", "Remove the spoon."]))
    >>> compose_steps(g, {"E0", "E1"}), compose_steps(g, {"E1"})
    ('Make the mug blue. Remove the spoon.', 'Remove the spoon.')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from eval.probing.scene_graph import MAX_ITEMS, Entity, SceneGraph, closure


class EditSteps(BaseModel):
    """The LLM's answer: the steps of one edit instruction."""

    model_config = ConfigDict(extra="forbid")

    steps: list[Annotated[str, Field(min_length=1, max_length=80)]] = Field(
        min_length=1, max_length=MAX_ITEMS
    )


def steps_graph(answer: EditSteps) -> SceneGraph:
    """The steps as a scene graph of bare entities (names unique; at most 80 characters)."""
    names = [" ".join(s.split()) for s in answer.steps if s.strip()]
    return SceneGraph(entities=[Entity(name=n) for n in names])


def compose_steps(g: SceneGraph, atoms: Iterable[str]) -> str:
    """The instruction made of the steps in ``atoms``, in the original order."""
    full = closure(g, atoms)
    out = []
    for i, e in enumerate(g.entities):
        if f"E{i}" in full:
            text = e.name.strip()
            out.append(
                text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")
            )
    return " ".join(out)
