"""The topic tree: nodes, their tests and failures, in the shape of docs/design.md#probes.

A NODE serialises as ``{"id", "topic", "depth", "tests": [...], "pass_rate", "reflection",
"failures": [...], "children": [...]}`` plus a few extras (``status``, ``reason``,
``reflections``). A test's ``verdicts`` are the *effective* ones — a person's override where
there is one, else the judge's — with the judge's kept in ``judge_verdicts`` and the
overrides (who, when) beside them.

Example:
    >>> t = ProbeTest(input="a red cube", judge_verdicts=[True, False, None])
    >>> t.verdicts, t.pass_rate
    ([True, False, None], 0.5)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

TestStatus = Literal["ok", "refused", "blocked", "empty", "failed", "judge_failed"]


class Override(BaseModel):
    """A person's verdict on one image, kept beside the judge's."""

    verdict: bool
    who: str = Field(min_length=1, max_length=128)
    when: str
    note: str | None = Field(default=None, max_length=2000)


class ProbeTest(BaseModel):
    """One input rendered ``n_x`` times and labelled image by image."""

    input: str
    round: int = 0
    status: TestStatus = "ok"
    reason: str | None = None
    checks: list[str] = Field(default_factory=list)
    images: list[str] = Field(default_factory=list)
    judge_verdicts: list[bool | None] = Field(default_factory=list)
    overrides: dict[str, Override] = Field(default_factory=dict)

    @property
    def verdicts(self) -> list[bool | None]:
        """The effective verdicts: an override where present, else the judge's."""
        out = list(self.judge_verdicts)
        for key, ov in self.overrides.items():
            i = int(key)
            if 0 <= i < len(out):
                out[i] = ov.verdict
        return out

    @property
    def pass_rate(self) -> float | None:
        """Passed / labelled images (unlabelled ones excluded); None when none is labelled."""
        labelled = [v for v in self.verdicts if v is not None]
        return sum(labelled) / len(labelled) if labelled else None

    def to_json(self) -> dict[str, Any]:
        rate = self.pass_rate
        return {
            "input": self.input,
            "images": self.images,
            "verdicts": self.verdicts,
            "pass_rate": None if rate is None else round(rate, 4),
            "judge_verdicts": self.judge_verdicts,
            "overrides": {k: v.model_dump() for k, v in sorted(self.overrides.items())},
            "checks": self.checks,
            "status": self.status,
            "reason": self.reason,
            "round": self.round,
        }


class SplitTest(BaseModel):
    """One re-rendered sub-prompt of a localisation (not counted in the metrics)."""

    prompt: str
    parts: list[str]
    pass_rate: float | None
    passed: bool | None
    images: list[str] = Field(default_factory=list)


class Failure(BaseModel):
    """A failing input and the smallest sub-prompts that still fail."""

    input: str
    test_index: int
    status: Literal["done", "failed", "skipped"] = "done"
    reason: str | None = None
    scene_graph: dict[str, Any] | None = None
    minimal_failing: list[str] = Field(default_factory=list)
    tests: list[SplitTest] = Field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump()


class ProbeNode(BaseModel):
    """One topic of the tree."""

    id: str
    topic: str
    depth: int
    parent: str | None = None
    status: Literal["pending", "running", "done", "failed"] = "pending"
    reason: str | None = None
    tests: list[ProbeTest] = Field(default_factory=list)
    reflections: list[str] = Field(default_factory=list)
    failures: list[Failure] = Field(default_factory=list)
    children: list[ProbeNode] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @property
    def pass_rate(self) -> float | None:
        """Passed / labelled images over the node's tests (localisation renders excluded)."""
        labelled = [v for t in self.tests for v in t.verdicts if v is not None]
        return sum(labelled) / len(labelled) if labelled else None

    def walk(self) -> list[ProbeNode]:
        """This node and its descendants, breadth-first."""
        out, queue = [], [self]
        while queue:
            node = queue.pop(0)
            out.append(node)
            queue.extend(node.children)
        return out

    def find(self, node_id: str) -> ProbeNode | None:
        """The node with ``node_id`` in this subtree."""
        return next((n for n in self.walk() if n.id == node_id), None)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProbeNode:
        """Rebuild a node (and its subtree) from :meth:`to_json` output."""
        tests = [
            ProbeTest(
                input=t["input"],
                round=t.get("round", 0),
                status=t.get("status", "ok"),
                reason=t.get("reason"),
                checks=t.get("checks", []),
                images=t.get("images", []),
                judge_verdicts=t.get("judge_verdicts", t.get("verdicts", [])),
            )
            for t in data.get("tests", [])
        ]
        return cls(
            id=data["id"],
            topic=data["topic"],
            depth=data["depth"],
            parent=data.get("parent"),
            status=data.get("status", "done"),
            reason=data.get("reason"),
            tests=tests,
            reflections=data.get("reflections")
            or ([data["reflection"]] if data.get("reflection") else []),
            failures=[Failure.model_validate(f) for f in data.get("failures", [])],
            children=[cls.from_json(c) for c in data.get("children", [])],
            notes=data.get("notes", []),
        )

    def to_json(self) -> dict[str, Any]:
        rate = self.pass_rate
        return {
            "id": self.id,
            "topic": self.topic,
            "depth": self.depth,
            "tests": [t.to_json() for t in self.tests],
            "pass_rate": None if rate is None else round(rate, 4),
            "reflection": self.reflections[-1] if self.reflections else None,
            "reflections": self.reflections,
            "failures": [f.to_json() for f in self.failures],
            "children": [c.to_json() for c in self.children],
            "status": self.status,
            "reason": self.reason,
            "notes": self.notes,
        }


def child_id(parent: str, index: int) -> str:
    """Ids read as paths: the root is ``n0``, its second child ``n0.1``.

    Example:
        >>> child_id("n0", 1), child_id("n0.1", 0)
        ('n0.1', 'n0.1.0')
    """
    return f"{parent}.{index}"
