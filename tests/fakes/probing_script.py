"""A scripted fake LLM and judge for probing tests and ``python -m benchmarks.probe``: an LLM that
writes distinct inputs, a judge that fails a controlled share of checks. Not a model.

Run it as its own process (prints ``READY <base_url>``)::

    python -m tests.fakes.probing_script --latency 0.5

The LLM side answers by the requested schema (``response_format.json_schema.name``):

- ``InputBatch``: the requested number of inputs ``"A <colour> <animal> <relation> a <object>"``,
  all different (animals rotate with a counter); every input whose position in its batch is
  below ``failing`` (of 5) gets the planted colour (default ``purple``);
- ``ReviewBatch``: every candidate relevant, with one check per entity and one per relation;
- ``SceneGraph``: parsed from the input's fixed shape; ``TopicBatch``: ``<facet> of <object>s <n>``;
- the judge's checklist answers (``BatchCheckAnswer``/``CheckAnswer``): a check fails exactly
  when its text names the planted colour.
"""

from __future__ import annotations

import itertools
import json
import re
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from tests.fakes.provider import FakeProvider, Responder
from tests.fakes.provider.responder import messages_text

COLOURS = ["red", "green", "blue", "yellow", "orange", "white", "black", "brown", "grey", "pink"]
ANIMALS = [
    "giraffe",
    "lion",
    "zebra",
    "otter",
    "falcon",
    "tortoise",
    "badger",
    "heron",
    "lynx",
    "camel",
    "walrus",
    "beaver",
    "panda",
    "koala",
    "moose",
    "bison",
    "gecko",
    "raven",
    "salmon",
    "donkey",
]
RELATIONS = ["beside", "under", "behind", "above", "inside"]
OBJECTS = ["table", "chair", "lamp", "barrel", "bucket", "ladder", "crate", "sofa", "kettle"]
FACETS = ["texture", "motion", "crowds", "lighting", "scale", "text"]
SHAPE = re.compile(r"A (\w+) (\w+) (\w+) an? (\w+)")


def block(text: str, label: str) -> str | None:
    """The content of the first data block ``label`` in ``text``."""
    m = re.search(rf"<<<DATA {label} #\w+>>>\n(.*?)\n<<<END DATA {label} #\w+>>>", text, re.S)
    return m.group(1) if m else None


def schema_name(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    return str((fmt.get("json_schema") or {}).get("name", ""))


class ProbeScript:
    """Installs the scripted answers on a fake provider's responder."""

    def __init__(self, token: str = "purple", failing: int = 2, graph_ok: bool = True):
        self.token = token
        self.failing = failing
        self.graph_ok = graph_ok
        self.counter = itertools.count()
        self.duplicates = False

    def install(self, responder: Responder) -> None:
        for name, reply in [
            ("InputBatch", self.inputs),
            ("ReviewBatch", self.review),
            ("SceneGraph", self.scene_graph),
            ("TopicBatch", self.topics),
            ("BatchCheckAnswer", self.batch_checks),
            ("CheckAnswer", self.single_check),
        ]:
            responder.on(lambda body, n=name: schema_name(body) == n, reply)

    def inputs(self, body: dict[str, Any]) -> dict[str, Any]:
        system = body["messages"][0]["content"]
        m = re.search(r"exactly (\d+)", system)
        count = int(m.group(1)) if m else 5
        out = []
        for i in range(count):
            n = 0 if self.duplicates else next(self.counter)
            colour = self.token if i % 5 < self.failing else COLOURS[n % len(COLOURS)]
            out.append(
                f"A {colour} {ANIMALS[n % len(ANIMALS)]}{n // len(ANIMALS) or ''} "
                f"{RELATIONS[n % len(RELATIONS)]} a {OBJECTS[n % len(OBJECTS)]}"
            )
        return {"inputs": out}

    def review(self, body: dict[str, Any]) -> dict[str, Any]:
        listing = block(messages_text(body), "CANDIDATES") or ""
        results = []
        for line in listing.splitlines():
            idx, _, text = line.partition(": ")
            m = SHAPE.match(text)
            checks = (
                [
                    f"The image shows a {m[1]} {m[2]}.",
                    f"The image shows a {m[4]}.",
                    f"The {m[2]} is {m[3]} the {m[4]}.",
                ]
                if m
                else [f"The image shows {text}."]
            )
            results.append({"index": int(idx), "relevant": True, "checks": checks})
        return {"results": results}

    def scene_graph(self, body: dict[str, Any]) -> dict[str, Any] | str:
        if not self.graph_ok:
            return '{"entities": "not a list"}'
        text = block(messages_text(body), "PROMPT") or ""
        m = SHAPE.match(text)
        if not m:
            return {
                "context": [],
                "entities": [{"name": text[:40] or "thing", "attributes": []}],
                "relations": [],
            }
        return {
            "context": [],
            "entities": [{"name": m[2], "attributes": [m[1]]}, {"name": m[4], "attributes": []}],
            "relations": [{"name": m[3], "entities": [m[2], m[4]]}],
        }

    def topics(self, body: dict[str, Any]) -> dict[str, Any]:
        system = body["messages"][0]["content"]
        count = int(re.search(r"exactly (\d+)", system).group(1))  # type: ignore[union-attr]
        out = []
        for k in range(count):
            n = next(self.counter)
            out.append(f"{FACETS[k % len(FACETS)]} of {OBJECTS[n % len(OBJECTS)]}s {n}")
        return {"topics": out}

    def _ok(self, text: str) -> bool:
        return self.token not in text

    def batch_checks(self, body: dict[str, Any]) -> dict[str, Any]:
        listing = json.loads(block(messages_text(body), "CHECKPOINTS") or "[]")
        return {
            "results": [
                {"id": c["id"], "rationale": "scripted", "verdict": self._ok(c["check"])}
                for c in listing
            ]
        }

    def single_check(self, body: dict[str, Any]) -> dict[str, Any]:
        text = block(messages_text(body), "CHECKPOINT") or ""
        return {"rationale": "scripted", "verdict": self._ok(text)}


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the scripted fake provider until SIGTERM/SIGINT."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tests.fakes.probing_script")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per call")
    parser.add_argument("--failing", type=int, default=2, help="planted inputs per 5")
    args = parser.parse_args(argv)
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    with FakeProvider(latency=args.latency) as provider:
        ProbeScript(failing=args.failing).install(provider.responder)
        print(f"READY {provider.base_url}", flush=True)
        while not done.wait(timeout=1.0):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
