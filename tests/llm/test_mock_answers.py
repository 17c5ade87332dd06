"""The mock model's choices look like a judge's (issue 48, item 20): an enum answer varies by
request as its integers do; a choice between FIRST and SECOND prefers one image by its
content, so both orders of a comparison mostly agree (a made-up position bias makes a few
disagree); text rendering applies only to an edit that asks for text."""

from __future__ import annotations

import json

from judge.llm.mock import answer
from skills.rendering import data_block, image_part, messages, text_part
from skills.schemas import ApplicabilityAnswer, pairwise_schema
from skills.types import ImagePayload


def fmt(model: type) -> dict:
    spec = {"name": model.__name__, "schema": model.model_json_schema()}
    return {"type": "json_schema", "json_schema": spec}


def image(k: int) -> ImagePayload:
    return ImagePayload(data_url=f"data:image/png;base64,{k:08d}AAAA", sha256=str(k))


def pair(first: int, second: int, question: str = "Which is better?") -> list[dict]:
    parts = [text_part("FIRST image:"), image_part(image(first)), text_part("SECOND image:"),
             image_part(image(second)), text_part(question)]  # fmt: skip
    return messages("Compare the two images.", parts)


def choice(msgs: list[dict], allow_tie: bool = False) -> str:
    return json.loads(answer(msgs, fmt(pairwise_schema(allow_tie))))["choice"]


def test_a_comparison_prefers_an_image_by_content_in_both_orders() -> None:
    agree = disagree = 0
    winners = set()
    for k in range(40):
        one, two = choice(pair(2 * k, 2 * k + 1)), choice(pair(2 * k + 1, 2 * k))
        if {one, two} == {"first", "second"}:
            agree += 1
            winners.add(one)
        else:
            disagree += 1
    assert agree >= 28, (agree, disagree)  # mostly consistent ...
    assert disagree >= 1  # ... with a made-up position bias on a few pairs
    assert winners == {"first", "second"}  # and not always the image shown first
    assert choice(pair(1, 2)) == choice(pair(1, 2))  # the same request, the same answer


def test_ties_come_in_both_orders_when_allowed() -> None:
    both = [(choice(pair(2 * k, 2 * k + 1), True), choice(pair(2 * k + 1, 2 * k), True))
            for k in range(60)]  # fmt: skip
    assert ("tie", "tie") in both


def test_a_plain_enum_varies_by_request() -> None:
    schema = {"type": "object", "properties": {"colour": {"enum": ["red", "green", "blue"]}}}
    f = {"type": "json_schema", "json_schema": {"name": "c", "schema": schema}}
    got = {json.loads(answer([{"role": "user", "content": f"q{k}"}], f))["colour"]
           for k in range(30)}  # fmt: skip
    assert got == {"red", "green", "blue"}


def applicability(instruction: str) -> ApplicabilityAnswer:
    msgs = messages("Decide.", [text_part(data_block("EDIT INSTRUCTION", instruction))])
    return ApplicabilityAnswer.model_validate_json(answer(msgs, fmt(ApplicabilityAnswer)))


def test_text_rendering_applies_only_when_the_instruction_asks_for_text() -> None:
    for plain in ("Make the mug blue.", "Remove the green box from the shelf.",
                  "Make it look darker, like late evening."):  # fmt: skip
        got = applicability(plain)
        assert got.text_rendering is False and got.requested_text == "", plain
    sign = applicability('Change the sign to say "CLOSED".')
    assert sign.text_rendering is True and sign.requested_text == "CLOSED"
    assert applicability("Make the car blue.").color_shift is False  # the rules' own answer
