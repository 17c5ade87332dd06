"""The provider-specific limits the README's "Providers" section states, shown on the wire."""

from __future__ import annotations

from pydantic import BaseModel, Field

from judge.config import JudgeSettings
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter
from tests.conftest import png_data_url

MESSAGES = [
    {"role": "system", "content": "INSTRUCTIONS: judge the image."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "DATA: a red cube"},
            {"type": "image_url", "image_url": {"url": png_data_url()}},
        ],
    },
]


class Score(BaseModel):
    score: int = Field(ge=1, le=5)
    rationale: str


async def structured(model: str, fake, meter: UsageMeter | None = None) -> Score:
    settings = JudgeSettings(
        model=model, api_base=fake.base_url, api_key="dummy-key", backoff_base_s=0.001
    )
    gateway = LLMGateway(settings)
    return await gateway.structured(
        model, MESSAGES, Score, tag="limits", meter=meter or UsageMeter()
    )


async def test_claude_native_structured_output_states_bounds_only_in_words(fakes) -> None:
    fake = fakes["anthropic"]
    fake.on("DATA", {"score": 7, "rationale": "out of range"}, times=1)
    meter = UsageMeter()
    answer = await structured("anthropic/claude-sonnet-4-5", fake, meter)
    sent = fake.requests[0]["output_format"]["schema"]["properties"]["score"]
    assert "minimum" not in sent and "maximum" not in sent
    assert "minimum value: 1" in sent["description"] and "maximum value: 5" in sent["description"]
    # the provider cannot enforce the range: the gateway's validation re-asks
    assert 1 <= answer.score <= 5 and meter.reasks == 1


async def test_unknown_gemini_names_get_the_schema_and_instructions_as_user_text(fakes) -> None:
    fake = fakes["gemini"]
    await structured("gemini/fake-gemini", fake)
    unknown = fake.requests[0]
    assert "system_instruction" not in unknown
    assert "response_json_schema" not in unknown["generationConfig"]
    first_user = [p.get("text") for p in unknown["contents"][0]["parts"]]
    assert first_user[0] == "INSTRUCTIONS: judge the image."
    assert first_user[-1].startswith("Use this JSON schema")
    fake.reset()
    await structured("gemini/gemini-2.5-flash", fake)
    known = fake.requests[0]
    assert known["system_instruction"] == {"parts": [{"text": "INSTRUCTIONS: judge the image."}]}
    assert "response_json_schema" in known["generationConfig"]


async def test_ollama_prefix_flattens_the_chat_ollama_chat_keeps_it(fakes) -> None:
    fake = fakes["ollama"]
    await structured("ollama/llava", fake)
    await structured("ollama_chat/llava", fake)
    flat, chat = fake.wire_calls
    assert flat.path == "/api/generate" and "messages" not in flat.body
    assert flat.body["prompt"].startswith("### System:\nINSTRUCTIONS")
    assert "DATA: a red cube" in flat.body["prompt"] and len(flat.body["images"]) == 1
    assert chat.path == "/api/chat"
    assert [m["role"] for m in chat.body["messages"]] == ["system", "user"]
    assert chat.body["messages"][1]["images"] and not chat.body["messages"][0]["images"]
