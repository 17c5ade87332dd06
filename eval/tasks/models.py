"""The model options of the ``judge tasks`` actions that call a model, and the settings they
make (``--model``, ``--api-base``, ``--api-key-env``; JUDGE_* variables otherwise).

Example:
    >>> import argparse
    >>> args = argparse.Namespace(model="openai/gpt-4o", api_base=None, api_key_env=None)
    >>> model_settings(args, "to write checklists").max_tokens
    4096
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge.config import JudgeSettings


def model_options(p: argparse.ArgumentParser) -> None:
    """The options of a model-calling action (``from-posts``, ``edits``)."""
    p.add_argument("--model", help="litellm model string (default: JUDGE_MODEL)")
    p.add_argument("--api-base", help="OpenAI-compatible endpoint (default: JUDGE_API_BASE)")
    p.add_argument("--api-key-env", help="variable holding the key (default: JUDGE_API_KEY)")
    p.add_argument("--concurrency", type=int, default=16, help="model calls in flight at most")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def model_settings(args: argparse.Namespace, purpose: str = "") -> JudgeSettings:
    """Judge settings from the options; a ``ValueError`` saying what to pass when there is no
    model (``purpose`` completes "no model …") or the key's variable is unset."""
    from judge.config import JudgeSettings

    overrides: dict = {"max_tokens": 4096}
    if args.model:
        overrides["model"] = args.model
    if args.api_base:
        overrides["api_base"] = args.api_base
    if args.api_key_env:
        key = os.environ.get(args.api_key_env)
        if not key:
            raise ValueError(f"--api-key-env: the variable {args.api_key_env} is not set")
        overrides["api_key"] = key
    settings = JudgeSettings(**overrides)
    if not settings.model:
        what = f"no model {purpose}".rstrip()
        raise ValueError(f"{what}: pass --model (or set JUDGE_MODEL)")
    if getattr(args, "concurrency", None) is not None:
        settings = settings.model_copy(update={"llm_concurrency": max(1, args.concurrency)})
    return settings

