"""json_sha256 hashes exactly the bytes of json.dumps, whatever the strings hold; the content
fingerprints and the mock's answers built on it are the ones the plain hash gave."""

from __future__ import annotations

import base64
import hashlib
import json
import random

import pytest

from judge.domain.submission import Submission
from judge.json_digest import LONG, content_fingerprint, json_sha256
from judge.llm.mock import SchemaAnswerer, answer
from judge.modes.compare.request import Comparison
from judge.modes.edit.request import EditSubmission


def plain(value: object, **kw: object) -> str:
    return hashlib.sha256(json.dumps(value, **kw).encode()).hexdigest()  # type: ignore[arg-type]


def long_text(rng: random.Random, alphabet: str) -> str:
    return "".join(rng.choice(alphabet) for _ in range(LONG + rng.randint(0, 300)))


ALPHABETS = [
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=",  # base64: spliced
    'abc"def',  # quotes: escaped by json.dumps, so not spliced
    "abc\\def",  # backslashes
    "abc\x00\x1f\x7fdef",  # control characters and DEL (escaped as \\u00XX)
    "abcé雪\U0001f600",  # non-ASCII, astral included
    "abc\ud800def",  # a lone surrogate
]


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_digest_equals_the_plain_hash_for_any_long_string(alphabet: str) -> None:
    rng = random.Random(len(alphabet))
    value = {
        "z": [long_text(rng, alphabet), ("tuple", long_text(rng, ALPHABETS[0]))],
        "a": {"nested": long_text(rng, alphabet), "n": 1.5, "none": None, "flag": True},
        "short": "x" * (LONG - 1),
    }
    assert json_sha256(value).hexdigest() == plain(value, sort_keys=True)
    assert json_sha256(value, sort_keys=False).hexdigest() == plain(value, sort_keys=False)


def test_a_string_that_looks_like_the_marker_is_hashed_as_text() -> None:
    sneaky = "\x00deadbeefdeadbeef:0"
    value = [sneaky, "A" * LONG, sneaky + '"']
    assert json_sha256(value).hexdigest() == plain(value, sort_keys=True)


def test_default_applies_to_what_json_cannot_write() -> None:
    value = {"obj": complex(1, 2), "img": "B" * (2 * LONG)}
    assert json_sha256(value, default=repr).hexdigest() == plain(
        value, sort_keys=True, default=repr
    )
    with pytest.raises(TypeError):
        json_sha256(value)


def data_url() -> str:
    blob = bytes(random.Random(3).randrange(256) for _ in range(3 * LONG))
    return "data:image/png;base64," + base64.b64encode(blob).decode()


# what may appear in or around a data URL's base64: its alphabet, and what json.dumps escapes
# or pybase64 refuses (whitespace, a quote, a backslash, control characters, DEL, a comma)
_NOISE = ['"', "\\", "\n", " ", "\x00", "\x1f", "\x7f", ",", "-", "_", ".", "=", "A"]


def test_data_urls_are_hashed_as_json_writes_them_whatever_their_payload_holds() -> None:
    """Data URLs take the vector base64 check; whatever it refuses (bad padding, characters
    outside the alphabet) is judged byte by byte: the digest is always the plain one."""
    rng = random.Random(11)
    good = data_url()
    heads = ["data:image/png;base64,", 'data:im"age/png;base64,', "data:x\x01;base64,", "data:"]
    for _ in range(400):
        text = rng.choice(heads) + good[22:]
        for _ in range(rng.choice([0, 0, 1, 2])):  # most with no damage, some with a little
            at = rng.randrange(len(text))
            text = text[:at] + rng.choice(_NOISE) + text[at + 1 :]
        if rng.random() < 0.2:
            text = text[: -rng.randint(1, 3)]  # broken padding
        value = {"image_url": {"url": text}, "n": 1}
        assert json_sha256(value).hexdigest() == plain(value, sort_keys=True), repr(text[:40])
    for edge in ("data:," + "A" * LONG, "data:" + "A" * LONG, "data:a," + "=" * LONG):
        assert json_sha256([edge]).hexdigest() == plain([edge], sort_keys=True)


def test_fingerprints_of_the_three_request_kinds_are_unchanged() -> None:
    sub = Submission.model_validate(
        {
            "task": {"id": "oe_1", "category": "OE", "brief": "a lake, naïvely"},
            "prompt": 'a "calm" lake\n',
            "images": [data_url()],
        }
    )
    edit = EditSubmission(instruction="make it blue", source_image=data_url(), images=[data_url()])
    pair = Comparison.model_validate(
        {"prompt": "a lake", "a": {"image": data_url()}, "b": {"image": data_url() + "AAAA"}}
    )
    for ident, model in ((sub.submission_id, sub), (edit.submission_id, edit)):
        assert ident == plain(model.model_dump(mode="json"), sort_keys=True)[:16]
    assert pair.comparison_id == plain(pair.model_dump(mode="json"), sort_keys=True)[:16]
    assert content_fingerprint({"a": 1}) == plain({"a": 1}, sort_keys=True)[:16]


def test_mock_answers_are_the_ones_the_plain_seed_gave() -> None:
    schema = {
        "type": "object",
        "properties": {
            "score": {"type": "integer", "minimum": 1, "maximum": 5},
            "items": {"type": "array", "items": {"type": "boolean"}, "minItems": 3},
        },
        "required": ["score", "items"],
    }
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "rate"}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": data_url()}}]},
    ]
    fmt = {"type": "json_schema", "json_schema": {"name": "r", "schema": schema}}
    seed = json.dumps(messages, sort_keys=True, default=str)
    expected = json.dumps(SchemaAnswerer(schema, seed).value(schema, "$"))
    assert answer(messages, fmt) == expected
