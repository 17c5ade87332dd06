"""Scene graphs of test inputs: {context, entities with attributes, relations}.

A graph is cut into *atoms* — a bare entity (``E0``), one attribute of an entity (``A0.1``), a
relation (``R0``), a context item (``C0``) — and any set of atoms reads back as a prompt
(:func:`compose`) and as a checklist (:func:`checks_for`): an attribute or relation brings
the entities it needs along, bare. Composition is deterministic, so a sub-prompt says exactly
what its atoms say and nothing else (no model call can add or drop content).

Example:
    >>> g = SceneGraph.model_validate({"context": ["at night"],
    ...     "entities": [{"name": "moon", "attributes": ["tiny", "black"]},
    ...                  {"name": "cloud", "attributes": ["white"]}],
    ...     "relations": [{"name": "inside", "entities": ["moon", "cloud"]}]})
    >>> compose(g, all_atoms(g))
    'A tiny black moon inside a white cloud, at night.'
    >>> compose(g, {"A1.0"})
    'A white cloud.'
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_ITEMS = 16


class Entity(BaseModel):
    """An object of the scene and its attributes."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80)
    attributes: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)


class Relation(BaseModel):
    """A relation between two or more entities (named as in ``entities``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80)
    entities: list[str] = Field(min_length=2, max_length=4)


class SceneGraph(BaseModel):
    """What an input asks to see, as the LLM parses it."""

    model_config = ConfigDict(extra="forbid")

    context: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    entities: list[Entity] = Field(min_length=1, max_length=MAX_ITEMS)
    relations: list[Relation] = Field(default_factory=list, max_length=MAX_ITEMS)

    @model_validator(mode="after")
    def _consistent(self) -> SceneGraph:
        names = [e.name.strip().lower() for e in self.entities]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"entity names must be unique; repeated: {dupes}")
        for rel in self.relations:
            unknown = [n for n in rel.entities if n.strip().lower() not in names]
            if unknown:
                raise ValueError(
                    f"relation {rel.name!r} names entities {unknown} that are not in "
                    "'entities'; list every entity a relation uses"
                )
        return self

    def index(self, name: str) -> int:
        """The position of entity ``name`` (case-insensitive)."""
        key = name.strip().lower()
        return next(i for i, e in enumerate(self.entities) if e.name.strip().lower() == key)


def all_atoms(g: SceneGraph) -> frozenset[str]:
    """Every atom of the graph."""
    atoms = {f"E{i}" for i in range(len(g.entities))}
    atoms |= {f"A{i}.{j}" for i, e in enumerate(g.entities) for j in range(len(e.attributes))}
    atoms |= {f"R{k}" for k in range(len(g.relations))}
    atoms |= {f"C{k}" for k in range(len(g.context))}
    return frozenset(atoms)


def closure(g: SceneGraph, atoms: Iterable[str]) -> frozenset[str]:
    """``atoms`` plus the bare entities their attributes and relations need."""
    out = set(atoms)
    for a in list(out):
        if a.startswith("A"):
            out.add("E" + a[1:].split(".")[0])
        elif a.startswith("R"):
            out |= {f"E{g.index(n)}" for n in g.relations[int(a[1:])].entities}
    return frozenset(out)


def _attrs(g: SceneGraph, atoms: frozenset[str], i: int) -> list[str]:
    return [a for j, a in enumerate(g.entities[i].attributes) if f"A{i}.{j}" in atoms]


def _phrase(g: SceneGraph, atoms: frozenset[str], i: int, seen: set[int]) -> str:
    name = g.entities[i].name.strip()
    if i in seen:
        return f"the {name}"
    seen.add(i)
    words = " ".join([*_attrs(g, atoms, i), name])
    return f"{'an' if words[:1].lower() in 'aeiou' else 'a'} {words}"


def compose(g: SceneGraph, atoms: Iterable[str]) -> str:
    """The prompt saying exactly what ``atoms`` (closed) say."""
    full = closure(g, atoms)
    seen: set[int] = set()
    clauses = []
    for k, rel in enumerate(g.relations):
        if f"R{k}" in full:
            idx = [g.index(n) for n in rel.entities]
            first, rest = idx[0], idx[1:]
            others = " and ".join(_phrase(g, full, i, seen) for i in rest)
            clauses.append(f"{_phrase(g, full, first, seen)} {rel.name.strip()} {others}")
    for i in range(len(g.entities)):
        if f"E{i}" in full and i not in seen:
            clauses.append(_phrase(g, full, i, seen))
    context = [c.strip() for k, c in enumerate(g.context) if f"C{k}" in full]
    text = ", ".join(clauses + context)
    return (text[:1].upper() + text[1:] + ".") if text else ""


def checks_for(g: SceneGraph, atoms: Iterable[str]) -> list[str]:
    """One image check per entity (with its attributes), relation and context item."""
    full = closure(g, atoms)
    out = []
    for i in range(len(g.entities)):
        if f"E{i}" in full:
            out.append(f"The image shows {_phrase(g, full, i, set())}.")
    for k, rel in enumerate(g.relations):
        if f"R{k}" in full:
            names = [g.entities[g.index(n)].name.strip() for n in rel.entities]
            out.append(
                f"In the image, the {names[0]} is {rel.name.strip()} the "
                + " and the ".join(names[1:])
                + "."
            )
    for k, c in enumerate(g.context):
        if f"C{k}" in full:
            out.append(f"The scene is {c.strip()}.")
    return out


def _order(g: SceneGraph, atoms: frozenset[str]) -> list[list[str]]:
    """Atoms in groups: each entity with its attributes, then context items."""
    groups = []
    for i, e in enumerate(g.entities):
        group = [
            a for a in [f"E{i}", *(f"A{i}.{j}" for j in range(len(e.attributes)))] if a in atoms
        ]
        if group:
            groups.append(group)
    groups += [[f"C{k}"] for k in range(len(g.context)) if f"C{k}" in atoms]
    return groups


def split(g: SceneGraph, atoms: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """Two halves of ``atoms`` (at least two atoms): relations first, then nodes.

    With relations and other atoms, the relations go one way and the rest the other; relations
    alone are halved; without relations, whole entity groups are halved, and a single entity's
    atoms are halved among themselves.
    """
    rels = sorted(a for a in atoms if a.startswith("R"))
    rest = atoms - set(rels)
    if rels and rest:
        return frozenset(rels), frozenset(rest)
    if rels:
        mid = len(rels) // 2
        return frozenset(rels[:mid]), frozenset(rels[mid:])
    groups = _order(g, atoms)
    if len(groups) > 1:
        mid = len(groups) // 2
        return (
            frozenset(a for grp in groups[:mid] for a in grp),
            frozenset(a for grp in groups[mid:] for a in grp),
        )
    flat = groups[0]
    mid = len(flat) // 2
    return frozenset(flat[:mid]), frozenset(flat[mid:])
