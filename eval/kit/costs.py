"""What one judge call should cost, from litellm's price map: the estimate every ``--dry-run``
(studies, meta-evaluation) and the probe meter share.

Token counts are rough allowances (a fixed prompt, a fixed allowance per image and per reply);
a model the price map does not know is ``None`` — listed as unpriced, never guessed.

Example:
    >>> token_cost("builtin/none", 10, 10) is None
    True
    >>> token_cost("gpt-4o-mini", JUDGE_PROMPT_TOKENS, JUDGE_REPLY_TOKENS) > 0
    True
"""

from __future__ import annotations

from judge.llm.litellm_settings import load as load_litellm

IMAGE_TOKENS = 765
"""Input tokens one image costs a vision model (a 1024-px image in OpenAI's accounting)."""
JUDGE_PROMPT_TOKENS = 900
"""Input tokens of one judge call's instructions, rubric and data blocks (without images)."""
JUDGE_REPLY_TOKENS = 150
"""Output tokens of one structured judge answer."""


def token_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for one chat call, or ``None`` when the price map has no entry."""
    try:
        p, c = load_litellm().cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # litellm raises a bare Exception for unknown models
        return None
    return float(p) + float(c)
