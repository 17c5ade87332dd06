"""A synthetic posts export whose correct samples are known by construction, and a "correct
LLM" for the fake provider that answers every from-posts stage from that knowledge.

``build_export(folder)`` writes ``posts.jsonl`` (about 200 lines: reply chains, quoted posts,
fill-in-the-blank templates, chat screenshots drawn with PIL, edit requests with input and
output images, analysis- and discard-grade threads, irrelevant chatter, repeated threads and
malformed lines) plus its images, and returns the :class:`Truth`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

BLOCK = re.compile(r"<<<DATA ([A-Z ]+) #(\w+)>>>\n(.*?)\n<<<END DATA \1 #\2>>>", re.S)
T0 = datetime(2024, 3, 1, tzinfo=UTC)
COLOURS = ["red", "green", "blue", "orange", "purple", "teal", "navy", "olive", "maroon",
           "gold", "pink", "gray", "brown", "cyan", "magenta", "khaki", "salmon", "plum"]
SUBJECTS = ["a lighthouse at dusk", "a fox in fresh snow", "a glass teapot on a desk",
            "a robot tending tomatoes", "a paper boat on a puddle", "an owl on a lamp post",
            "a market stall of lemons", "a bicycle against a brick wall", "a whale over a city",
            "a violin made of ice", "a bonsai in a teacup", "a dragon reading a map",
            "a snail racing a car", "a castle on a cloud", "a diver finding a piano"]
EDITS = ["Remove the bicycle from the photo.", "Add a red scarf to the dog.",
         "Replace the sky with a starry night.", "Make the cup twice as large.",
         "Put a hat on the statue.", "Turn the lamp on.", "Add snow on the roof.",
         "Remove the people in the background.", "Add a rainbow over the field.",
         "Replace the apple with a pear."]


@dataclass
class Expected:
    """A sample the pipeline should produce."""

    prompt: str
    quality: str
    inputs: list[Image.Image] = field(default_factory=list)
    outputs: list[Image.Image] = field(default_factory=list)
    posts: set[str] = field(default_factory=set)


@dataclass
class Truth:
    """What a correct model answers, and what the pipeline should produce."""

    grades: dict[str, int] = field(default_factory=dict)          # post text -> grade
    extraction: dict[str, list[dict]] = field(default_factory=dict)  # root id -> samples
    roles: dict[str, dict] = field(default_factory=dict)           # image id -> role answer
    fills: dict[str, str] = field(default_factory=dict)            # image id -> filled prompt
    screens: dict[str, dict] = field(default_factory=dict)         # image id -> parse answer
    labels: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # remark -> label
    expected: list[Expected] = field(default_factory=list)
    discard_prompts: list[str] = field(default_factory=list)
    n_lines: int = 0
    malformed_lines: list[int] = field(default_factory=list)
    bad_box_images: list[str] = field(default_factory=list)

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The correct answer to one request of any stage."""
        name = body["response_format"]["json_schema"]["name"]
        text = "\n".join(
            p.get("text", "") for m in body["messages"] if isinstance(m["content"], list)
            for p in m["content"] if p.get("type") == "text"
        )
        blocks = {label: content for label, _, content in BLOCK.findall(text)}
        if name == "RelevanceGrade":
            return {"grade": self.grades.get(blocks["POST"], 1), "reason": "by construction"}
        if name == "Extraction":
            root = re.match(r"post (\S+) \|", blocks["THREAD"]).group(1)
            return {"samples": self.extraction.get(root, [])}
        if name == "ImageRole":
            return self.roles[blocks["IMAGE ID"]]
        if name == "TemplateFill":
            return {"prompt": self.fills[blocks["IMAGE ID"]]}
        if name == "ScreenshotParse":
            return self.screens[blocks["IMAGE ID"]]
        if name == "FeedbackLabels":
            items = []
            for line in blocks["REMARKS"].splitlines():
                idx, _, remark = line.partition(". ")
                label, keyword, family = self.labels[remark]
                items.append({"index": int(idx), "label": label, "keyword": keyword,
                              "family": family})
            return {"items": items}
        raise AssertionError(f"unexpected schema {name}")


class _Writer:
    def __init__(self, folder: Path, truth: Truth):
        self.folder = folder
        self.truth = truth
        self.lines: list[str] = []
        self.n = 0
        self.images = 0
        (folder / "img").mkdir(parents=True, exist_ok=True)

    def image(
        self, colour: str, mark: int, size: tuple[int, int] = (64, 64)
    ) -> tuple[str, Image.Image]:
        img = Image.new("RGB", size, colour)
        d = ImageDraw.Draw(img)
        d.rectangle([4 + mark % 20, 6, 30 + mark % 25, 40], fill="white")
        d.ellipse([34, 30 + mark % 10, 58, 58], fill="black")
        self.images += 1
        rel = f"img/{self.images:03d}.png"
        img.save(self.folder / rel)
        return rel, img

    def post(self, text: str, author: str, grade: int = 1, **extra: Any) -> str:
        self.n += 1
        pid = extra.pop("pid", f"p{self.n:03d}")
        when = extra.pop("when", T0 + timedelta(minutes=7 * self.n))
        row = {"id": pid, "text": text, "created_at": when.isoformat(), "author": author, **extra}
        self.lines.append(json.dumps(row))
        self.truth.grades[text] = grade
        return pid

    def raw(self, line: str) -> None:
        self.lines.append(line)
        self.truth.malformed_lines.append(len(self.lines))


def _feedback(truth: Truth, remarks: list[tuple[str, str, str, str]]) -> list[str]:
    for text, label, keyword, family in remarks:
        truth.labels[text] = (label, keyword, family)
    return [r[0] for r in remarks]


def _plain(w: _Writer, k: int) -> None:
    subject = SUBJECTS[k]
    prompt = f"{subject}, soft morning light, 35mm photo"
    rel, img = w.image(COLOURS[k], k)
    root = w.post(f"Tried this prompt on the new image model: {prompt}", f"u{k}", 5,
                  images=[rel])
    fb = _feedback(w.truth, [(f"the shadows on {subject} look painted on", "failure",
                              "flat shadows", "other"),
                             (f"love the light in {subject}", "success", "good lighting",
                              "other")])
    a = w.post(fb[0], f"v{k}", 2, reply_to=root)
    b = w.post(fb[1], f"x{k}", 2, reply_to=root)
    w.truth.roles[f"{root}#0"] = {"role": "output", "chat_screenshot": False}
    w.truth.extraction[root] = [{"kind": "prompt", "prompt": prompt, "image_ids": [f"{root}#0"],
                                 "feedback": fb, "post_ids": [root, a, b],
                                 "quality": "benchmark"}]
    w.truth.expected.append(Expected(prompt, "benchmark", [], [img], {root, a, b}))


def _edit(w: _Writer, k: int) -> None:
    instr = EDITS[k]
    src_rel, src = w.image(COLOURS[k + 3], 100 + k)
    out_rel, out = w.image(COLOURS[k + 4], 200 + k)
    root = w.post(f"Edit request for the image model: {instr}", f"e{k}", 5,
                  images=[src_rel, out_rel])
    remarks = [("the yellow tint again", "failure", "yellow tint", "colour"),
               ("identity drifted, that is not her face", "failure", "identity drift",
                "identity")] if k % 2 == 0 else [
               ("the letters on the sign are misspelled", "failure", "misspelled text", "text"),
               ("the yellow tint again", "failure", "yellow tint", "colour")]
    fb = _feedback(w.truth, remarks)
    replies = [w.post(r, f"f{k}{j}", 2, reply_to=root) for j, r in enumerate(fb)]
    w.truth.roles[f"{root}#0"] = {"role": "input", "chat_screenshot": False}
    w.truth.roles[f"{root}#1"] = {"role": "output", "chat_screenshot": False}
    w.truth.extraction[root] = [{"kind": "prompt", "prompt": instr,
                                 "image_ids": [f"{root}#0", f"{root}#1"], "feedback": fb,
                                 "post_ids": [root, *replies], "quality": "benchmark"}]
    w.truth.expected.append(Expected(instr, "benchmark", [src], [out], {root, *replies}))


def _split_chain(w: _Writer, k: int) -> None:
    first, second = f"{SUBJECTS[k + 5]}, drawn in ink,", "with gold leaf accents, square format"
    root = w.post(f"here's what I tried: prompt part one '{first}'", f"c{k}", 4)
    cont = w.post(f"...and the rest of the prompt: '{second}'", f"c{k}", 4, reply_to=root)
    fb = _feedback(w.truth, [(f"the gold on chain {k} came out brown", "failure", "wrong colour",
                              "colour")])
    reply = w.post(fb[0], f"d{k}", 2, reply_to=cont)
    prompt = f"{first} {second}"
    w.truth.extraction[root] = [{"kind": "prompt", "prompt": prompt, "image_ids": [],
                                 "feedback": fb, "post_ids": [root, cont, reply],
                                 "quality": "benchmark"}]
    w.truth.expected.append(Expected(prompt, "benchmark", [], [], {root, cont, reply}))


def _quoted(w: _Writer, k: int) -> None:
    prompt = f"{SUBJECTS[k + 10]}, isometric, pastel palette"
    quoted = w.post(f"my favourite lately — {prompt}", f"q{k}", 1)  # graded irrelevant alone
    root = w.post(f"This prompt still works on the new image model #{k}", f"r{k}", 4,
                  quotes=[quoted])
    w.truth.extraction[root] = [{"kind": "prompt", "prompt": prompt, "image_ids": [],
                                 "feedback": [], "post_ids": [root, quoted],
                                 "quality": "benchmark"}]
    w.truth.expected.append(Expected(prompt, "benchmark", [], [], {root, quoted}))


ANIMALS = [("cat", "top hat"), ("dog", "crown"), ("frog", "beret")]


def _template(w: _Writer, k: int) -> None:
    template = f"a [ANIMAL] wearing a [HAT], studio portrait, style {k}"
    root = w.post(f"Fill in the template and post what the image model gives: {template}",
                  f"t{k}", 5)
    for j, (animal, hat) in enumerate(ANIMALS):
        rel, img = w.image(COLOURS[(k + j) % len(COLOURS)], 300 + 10 * k + j)
        reply = w.post("mine!" if j else "here you go", f"s{k}{j}", 3, reply_to=root,
                       images=[rel])
        filled = template.replace("[ANIMAL]", animal).replace("[HAT]", hat)
        w.truth.fills[f"{reply}#0"] = filled
        w.truth.expected.append(Expected(filled, "benchmark", [], [img], {root, reply}))
    replies = [f"p{w.n - 2 + j:03d}" for j in range(3)]
    w.truth.extraction[root] = [{"kind": "template", "prompt": template,
                                 "image_ids": [f"{r}#0" for r in replies], "feedback": [],
                                 "post_ids": [root, *replies], "quality": "benchmark"}]


def _screenshot(w: _Writer, k: int, bad_box: bool) -> None:
    prompt = f"Make the {COLOURS[k]} car in my photo look like a toy, case {k}"
    canvas = Image.new("RGB", (320, 240), "white")
    d = ImageDraw.Draw(canvas)
    d.text((10, 10), f"You: {prompt}", fill="black")
    _, sub_in = w.image(COLOURS[k + 1], 400 + k)
    _, sub_out = w.image(COLOURS[k + 2], 500 + k)
    canvas.paste(sub_in, (20, 60))
    canvas.paste(sub_out, (200, 130))
    d.text((200, 115), "Model:", fill="black")
    w.images += 1
    rel = f"img/{w.images:03d}.png"
    canvas.save(w.folder / rel)
    root = w.post("look what the image model did with my screenshot request", f"k{k}", 5,
                  images=[rel])
    regions = [{"role": "input", "box": [20, 60, 84, 124]},
               {"role": "output", "box": [200, 130, 264, 194]}]
    if bad_box:
        regions.append({"role": "output", "box": [300, 200, 400, 260]})
        w.truth.bad_box_images.append(f"{root}#0")
    w.truth.screens[f"{root}#0"] = {"prompt": prompt, "regions": regions}
    fb = _feedback(w.truth, [(f"screenshot {k}: the car kept its shape, nice", "success",
                              "kept structure", "other")])
    reply = w.post(fb[0], f"m{k}", 2, reply_to=root)
    w.truth.extraction[root] = [{"kind": "screenshot", "prompt": "", "image_ids": [f"{root}#0"],
                                 "feedback": fb, "post_ids": [root, reply],
                                 "quality": "benchmark"}]
    w.truth.expected.append(Expected(prompt, "benchmark", [sub_in], [sub_out], {root, reply}))


def _analysis(w: _Writer, k: int) -> None:
    prompt = f"remove the {COLOURS[k]} bike from my holiday photo"
    root = w.post(f"I asked the image model to {prompt} (can't share the photo), it failed",
                  f"a{k}", 4)
    fb = _feedback(w.truth, [(f"same here, bike {k} kept coming back", "failure",
                              "object not removed", "other")])
    reply = w.post(fb[0], f"b{k}", 2, reply_to=root)
    w.truth.extraction[root] = [{"kind": "prompt", "prompt": prompt, "image_ids": [],
                                 "feedback": fb, "post_ids": [root, reply],
                                 "quality": "analysis"}]
    w.truth.expected.append(Expected(prompt, "analysis", [], [], {root, reply}))


def _discard(w: _Writer, k: int) -> None:
    prompt = f"lol make it {k}"
    root = w.post(f"prompt of the day: {prompt}", f"z{k}", 3)
    w.truth.extraction[root] = [{"kind": "prompt", "prompt": prompt, "image_ids": [],
                                 "feedback": [], "post_ids": [root], "quality": "discard"}]
    w.truth.discard_prompts.append(prompt)


def _chatter(w: _Writer, k: int) -> None:
    if k % 2:
        w.post(f"what a day, coffee number {k}", f"h{k}", 1)           # no keyword
    else:
        w.post(f"anyone else think the new prompt box font is ugly? #{k}", f"g{k}", 2)


def build_export(folder: Path) -> Truth:
    """Write the export into ``folder`` and return what a correct pipeline recovers."""
    truth = Truth()
    w = _Writer(folder, truth)
    for k in range(15):
        _plain(w, k)
    for k in range(10):
        _edit(w, k)
    for k in range(5):
        _split_chain(w, k)
        _quoted(w, k)
    for k in range(4):
        _template(w, k)
    for k in range(6):
        _screenshot(w, k, bad_box=(k == 0))
    for k in range(6):
        _analysis(w, k)
    for k in range(4):
        _discard(w, k)
    # a repeated thread: the first plain thread's main post posted again by its author
    first = json.loads(w.lines[0])
    w.post(first["text"], first["author"], 5, images=first["images"], when=T0 + timedelta(days=9))
    # a keyword that only counts after 2024-06-01 (see KEYWORDS)
    w.post("novamodel is out", "n1", 5, when=datetime(2024, 5, 1, tzinfo=UTC))
    for k in range(48):
        _chatter(w, k)
    w.raw("{not json")
    w.raw(json.dumps({"text": "no id", "created_at": T0.isoformat(), "author": "x"}))
    w.raw(json.dumps({"id": "bad-date", "text": "t", "created_at": "yesterday", "author": "x"}))
    w.raw(json.dumps({"id": "abs", "text": "prompt", "created_at": T0.isoformat(),
                      "author": "x", "images": ["/etc/passwd"]}))
    w.raw(json.dumps(["a", "list"]))
    w.raw(json.dumps({"id": "p001", "text": "dup id", "created_at": T0.isoformat(),
                      "author": "x"}))
    truth.n_lines = len(w.lines)
    (folder / "posts.jsonl").write_text("\n".join(w.lines) + "\n", encoding="utf-8")
    return truth


KEYWORDS = """
[[window]]
keywords = ["prompt", "image model", "template", "edit", "screenshot"]

[[window]]
start = 2024-06-01
keywords = ["novamodel"]
"""
