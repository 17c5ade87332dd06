"""``logprobs``: the probability the judge model gave the answer's own token.

The item's ordinary call asks for log-probabilities (``logprobs``, ``top_logprobs=5``). In
the reply, the token where each answer's value starts (``true``, ``first``, the digit of a
score) is found; its probability and those of the allowed alternatives listed beside it
(``false``; ``second``, ``tie``; the other digits) are the votes, so the confidence is the
answer's probability among the allowed answers. When no alternative is listed, the
confidence is the answer token's own probability. With a panel the first model's reply is
read.

No extra calls. Calls that ask for log-probabilities are never answered from the response
cache (it keeps answers, not probabilities) and go through litellm. A provider that returns
no log-probabilities leaves every confidence null, with the reason; the mock model and the
local backend have none and are refused before any call.

Example:
    >>> from judge.llm.reply import TokenLogprob as T
    >>> toks = (T('{"', 0.0), T('verdict', 0.0), T('":', 0.0), T(' true', -0.2231,
    ...         ((' true', -0.2231), (' false', -1.6094))), T('}', 0.0))
    >>> ballot = reply_ballots('{"verdict": true}', toks, {"c1": True}, {})["c1"]
    >>> [(v, round(w, 2)) for v, w in ballot.votes]
    [(True, 0.8), (False, 0.2)]
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from judge.confidence.ballot import Answer, Ballot
from judge.confidence.base import ItemEstimator, Method, answers_of, needs_model
from judge.confidence.positions import Path, leaf_offsets
from judge.llm import mock

if TYPE_CHECKING:
    from judge.agent.panel import Combined
    from judge.config import JudgeSettings
    from judge.llm.reply import Reply, TokenLogprob
    from skills.kinds import Skill
    from skills.types import ModelClient, SkillInput, SkillOutput

PARAMS = {"logprobs": True, "top_logprobs": 5}
FIELDS = ("score", "verdict", "choice")
OTHER = "\x00other"
"""a vote for none of the allowed answers (the probability left over)"""


def _candidates(answer: Answer) -> dict[str, Answer]:
    if isinstance(answer, bool):
        return {"true": True, "false": False}
    if isinstance(answer, str):
        return {c: c for c in ("first", "second", "tie")}
    return {str(n): n for n in range(1, 6)}


def _value_of(token: str, candidates: dict[str, Answer]) -> Answer | None:
    """The allowed answer a token begins (``"fir`` → ``first``), if exactly one."""
    t = token.strip().strip('"').lower()
    hits = [v for k, v in candidates.items() if t and k.startswith(t)]
    return hits[0] if len(hits) == 1 else None


def _token_at(tokens: tuple[TokenLogprob, ...], offset: int) -> TokenLogprob | None:
    """The token whose text covers ``offset``, skipping a leading quote or space."""
    pos = 0
    for t in tokens:
        end = pos + len(t.token)
        if pos <= offset < end:
            return t
        pos = end
    return None


def _owner(path: Path, data: Any, keys: list[str], positional: dict[str, str]) -> str | None:
    """The output key a value's path answers (a dimension, a checkpoint, the only key)."""
    if len(path) >= 2 and isinstance(path[-2], str) and path[-2] in keys:
        return path[-2]
    if len(path) == 3 and isinstance(path[1], int):
        try:
            pid = data[path[0]][path[1]]["id"]
        except (KeyError, IndexError, TypeError):
            return None
        return positional.get(pid)
    return keys[0] if len(keys) == 1 else None


def reply_ballots(
    text: str,
    tokens: tuple[TokenLogprob, ...],
    answers: dict[str, Answer | None],
    positional: dict[str, str],
) -> dict[str, Ballot]:
    """The ballots of one reply: per answered key, the allowed answers' probabilities at
    the token where its value starts. ``positional`` maps a batched answer's ids (``k1``)
    to checkpoint ids."""
    joined = "".join(t.token for t in tokens)
    if joined != text:
        return {
            k: Ballot.unavailable("the log-probabilities do not match the reply") for k in answers
        }
    try:
        data = json.loads(text[text.find("{") :])
    except ValueError:
        data = None
    keys = list(answers)
    found: dict[str, Ballot] = {}
    for path, offset in leaf_offsets(text):
        if not path or path[-1] not in FIELDS:
            continue
        key = _owner(path, data, keys, positional)
        answer = answers.get(key) if key else None
        token = _token_at(tokens, offset)
        if key is None or answer is None or token is None:
            continue
        cands = _candidates(answer)
        votes: dict[Answer, float] = {}
        alts = {token.token: token.logprob}
        for alt, lp in token.top:  # the token itself is usually listed too: once
            alts.setdefault(alt, lp)
        for alt, lp in alts.items():
            value = _value_of(alt, cands)
            if value is not None:
                votes[value] = votes.get(value, 0.0) + math.exp(lp)
        if not votes:
            continue
        if len(votes) == 1:
            only = next(iter(votes.values()))
            votes[OTHER] = max(0.0, 1.0 - only)
        found[key] = Ballot(tuple(votes.items()))
    missing = "no token of the reply carries this answer's value"
    return {k: found.get(k) or Ballot.unavailable(missing) for k in answers}


class LogprobEstimator(ItemEstimator):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.reply: Reply | None = None

    def client(self, model: str) -> ModelClient:
        base = self.ctx.client(model)
        if model != self.ctx.models[0]:
            return base
        return base.with_call_options(extra=PARAMS, on_reply=self._keep)  # type: ignore[attr-defined]  # the engine's client has it; the protocol does not

    def _keep(self, reply: Reply) -> None:
        self.reply = reply

    async def ballots(
        self, skill: Skill, inp: SkillInput, outputs: list[SkillOutput], merged: Combined
    ) -> dict[str, Ballot]:
        answers = answers_of(outputs[0])
        model = self.ctx.models[0]
        if self.reply is None:
            return {k: Ballot.unavailable(f"{model} gave no reply to read") for k in answers}
        if self.reply.logprobs is None:
            why = f"{model} returned no log-probabilities (its provider may not offer them)"
            return {k: Ballot.unavailable(why) for k in answers}
        positional = {f"k{n}": c.id for n, c in enumerate(inp.checks, start=1)}
        return reply_ballots(self.reply.text, self.reply.logprobs, answers, positional)


class LogprobsMethod(Method):
    name = "logprobs"
    estimator_class = LogprobEstimator

    def check(self, mode: str, settings: JudgeSettings) -> None:
        needs_model(self.spec, settings)
        first = settings.models()[0] if settings.models() else ""
        if mock.is_mock(first):
            raise ValueError(
                f"logprobs: the mock model {first} returns no log-probabilities; try "
                "samples:K or annotators:K offline"
            )
