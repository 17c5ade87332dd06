"""Retrieval-augmented subjective scoring through the whole graph."""

from __future__ import annotations

from memory.exemplar import load_exemplars
from memory.store import MemoryStore
from tests.conftest import submission
from tests.memory.conftest import PROMPTS, prompt_records, write_jsonl


def build_prompt_memory(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", prompt_records())
    store = MemoryStore(tmp_path / "store")
    store.build("prompt-CO", load_exemplars(path), base_dir=tmp_path)
    return store


def subjective_requests(provider):
    return [
        r
        for r in provider.requests
        if r["response_format"]["json_schema"]["name"] == "SubjectiveAnswer"
    ]


def texts(body) -> str:
    return "\n".join(p.get("text", "") for p in body["messages"][1]["content"])


async def test_exemplars_calibrate_prompt_scores(make_judge, provider, tmp_path):
    build_prompt_memory(tmp_path)
    judge = make_judge(memory_dir=str(tmp_path / "store"))
    result = await judge.ascore(submission("CO", n_checks=1, prompt=PROMPTS[4] + " at dusk"))
    dim = result.subjective["prompt"]["instructional_clarity"]
    assert dim.exemplars[0].id == "p4"
    assert len(dim.exemplars) == 3 and dim.exemplars[0].similarity > 0.8
    assert result.provenance.memories["prompt-CO"].startswith("v1-")
    assert result.provenance.memories["image-CO"] == "absent (zero-shot)"
    # the exemplars, with their expert scores, are in data blocks of the prompt-side calls
    prompt_calls = [r for r in subjective_requests(provider) if "EVALUATED PROMPT" in texts(r)]
    assert len(prompt_calls) == 4
    for body in prompt_calls:
        assert "EXEMPLAR 1 EXPERT SCORES" in texts(body)
        assert "Expert-scored exemplars" in body["messages"][0]["content"]


async def test_retrieval_none_is_zero_shot(make_judge, provider, tmp_path):
    build_prompt_memory(tmp_path)
    judge = make_judge(memory_dir=str(tmp_path / "store"), retrieval="none")
    result = await judge.ascore(submission("CO", n_checks=1))
    assert all(not d.exemplars for d in result.subjective["prompt"].values())
    assert all("EXEMPLAR" not in texts(r) for r in subjective_requests(provider))


async def test_fixed_and_k(make_judge, provider, tmp_path):
    build_prompt_memory(tmp_path)
    judge = make_judge(memory_dir=str(tmp_path / "store"), retrieval="fixed", retrieval_k=2)
    a = await judge.ascore(submission("CO", n_checks=1, prompt="a fox logo"))
    b = await judge.ascore(submission("CO", n_checks=1, prompt="misty mountains"))
    ids = lambda r: [e.id for e in r.subjective["prompt"]["creative_elaboration"].exemplars]  # noqa: E731
    assert ids(a) == ids(b) and len(ids(a)) == 2
    assert result_options(a)["retrieval"] == "fixed"


def result_options(result):
    return result.provenance.options


async def test_unknown_skill_selection_is_an_input_error(make_judge, provider):
    import pytest

    from judge.errors import InputError

    with pytest.raises(InputError, match=r"skills: unknown skill 'avt_apeal'.*avt_appeal"):
        await make_judge(skills=["avt_apeal"]).ascore(submission("CO"))
