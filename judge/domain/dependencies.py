"""Dependencies between checkpoints: a child check only counts when its parent holds.

A checklist in the DSG style asks atomic yes/no questions arranged as a forest: "is there a
cat?" is the parent of "is the cat black?". When the parent fails, the child's own answer is
meaningless (a model may still say "yes, the (absent) cat is black"), so the child counts as
failed. Unscored parents (``None``) leave their children as they are.

Example:
    >>> checks = [{"id": "c1"}, {"id": "c2", "parent": "c1"}, {"id": "c3", "parent": "c2"}]
    >>> apply_dependencies(checks, {"c1": False, "c2": True, "c3": True})
    {'c1': False, 'c2': False, 'c3': False}
    >>> dependency_problem({"a": "b", "b": "a"})
    "checkpoints 'a' -> 'b' -> 'a' form a cycle of parents; a checkpoint cannot depend on itself"
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Verdict = bool | None


def _id_parent(check: Any) -> tuple[str, str | None]:
    if isinstance(check, Mapping):
        return str(check["id"]), check.get("parent")
    return str(check.id), getattr(check, "parent", None)


def parents_of(checks: Iterable[Any]) -> dict[str, str | None]:
    """``{id: parent}`` from checkpoints (objects with ``id``/``parent`` or dicts)."""
    return dict(_id_parent(c) for c in checks)


def dependency_problem(parents: Mapping[str, str | None]) -> str | None:
    """What is wrong with ``{id: parent}`` (an unknown parent or a cycle), or ``None``."""
    for cid, parent in parents.items():
        if parent is not None and parent not in parents:
            return (
                f"checkpoint {cid!r} names parent {parent!r}, which is not a checkpoint of this "
                f"task; use one of {sorted(parents)} or drop the parent"
            )
    done: set[str] = set()
    for start in parents:
        path: list[str] = []
        node: str | None = start
        while node is not None and node not in done:
            if node in path:
                loop = [*path[path.index(node) :], node]
                chain = " -> ".join(repr(n) for n in loop)
                return (
                    f"checkpoints {chain} form a cycle of parents; a checkpoint cannot depend "
                    "on itself"
                )
            path.append(node)
            node = parents[node]
        done.update(path)
    return None


def apply_dependencies(
    checks: Iterable[Any], verdicts: Mapping[str, Verdict]
) -> dict[str, Verdict]:
    """Verdicts with every descendant of a failed checkpoint counted as failed.

    ``checks`` gives the parents (checkpoints, or dicts with ``id`` and ``parent``);
    ``verdicts`` maps ids to ``True``/``False``/``None`` (unscored). Ids without a verdict
    are left out of the answer; a parent without a verdict (or unscored) does not affect its
    children. Parents must not form a cycle (see :func:`dependency_problem`).
    """
    parents = parents_of(checks)
    out: dict[str, Verdict] = dict(verdicts)

    def failed_ancestor(cid: str) -> bool:
        seen: set[str] = set()
        parent = parents.get(cid)
        while parent is not None and parent not in seen:
            seen.add(parent)
            if verdicts.get(parent) is False:
                return True
            parent = parents.get(parent)
        return False

    for cid, verdict in verdicts.items():
        if verdict is not None and failed_ancestor(cid):
            out[cid] = False
    return out
