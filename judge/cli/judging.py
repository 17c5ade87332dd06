"""What the judging verbs (``judge score``, ``judge compare``) share: the flags both take and
read back as settings overrides, and how an input, configuration or option error becomes a
message on stderr and an exit code.

Example:
    >>> import argparse
    >>> args = argparse.Namespace(backend="local", model=None, api_base=None, api_key=None,
    ...                           panel=None, timeout=5.0, sequential_safety=True, no_cache=False)
    >>> shared_overrides(args)
    {'backend': 'local', 'timeout_s': 5.0, 'speculative_safety': False}
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.errors import ConfigError, InputError

if TYPE_CHECKING:
    from judge.config import JudgeSettings
    from judge.engine import Judge

ERRORS = (InputError, ConfigError, ValueError)
"""What :func:`exit_code` turns into a message and exit code (ValueError: a flag's value the
settings refuse, e.g. a negative timeout: see :func:`with_flags`)."""

FLAGS = {
    "timeout_s": "--timeout",
    "checkpoint_batching": "--batching",
    "retrieval_k": "--k",
    "memories": "--memory",
    "compare_allow_tie": "--allow-tie",
}
"""The settings fields whose flag is not ``--`` + the field's name with dashes."""


def flag_of(field: str) -> str:
    """The flag that sets settings field ``field``.

    Example:
        >>> flag_of("timeout_s"), flag_of("selection_rule")
        ('--timeout', '--selection-rule')
    """
    return FLAGS.get(field, "--" + field.replace("_", "-"))


def with_flags(settings: JudgeSettings, changes: dict[str, Any]) -> JudgeSettings:
    """``settings`` with the flags' ``changes`` applied; a value the settings refuse raises a
    one-line ``ValueError`` naming the flag, the value and the problem.

    Example:
        >>> from judge.config import JudgeSettings
        >>> try:
        ...     with_flags(JudgeSettings(), {"timeout_s": -1.0})
        ... except ValueError as exc:
        ...     print(exc)
        --timeout -1.0: Input should be greater than 0
    """
    from pydantic import ValidationError

    try:
        return settings.merged(**changes)
    except ValidationError as exc:
        problems = [f"{flag_of(str(e['loc'][0]))} {e.get('input')!r}: "
                    f"{e['msg'].removeprefix('Value error, ')}" for e in exc.errors()]  # fmt: skip
        raise ValueError("; ".join(problems)) from None


def judge_for(settings: JudgeSettings, args: argparse.Namespace, own: dict[str, Any]) -> Judge:
    """The engine a judging verb runs: ``settings`` with the flags both verbs take
    (:func:`shared_overrides`) and the verb's ``own`` overrides applied (:func:`with_flags`),
    under the ``--trust`` policy when one is given."""
    from judge.engine import Judge

    return Judge(with_flags(settings, shared_overrides(args) | own), trust=args.trust)


def add_model_flags(p: argparse.ArgumentParser, panel_help: str) -> None:
    """The judge model flags both verbs take (read back by :func:`shared_overrides`); the
    panel's help says how the verb combines the panel's answers."""
    p.add_argument("--model", help="litellm model string (env JUDGE_MODEL)")
    p.add_argument("--api-base", help="provider base URL (env JUDGE_API_BASE)")
    p.add_argument("--api-key", help="provider key (env JUDGE_API_KEY)")
    p.add_argument("--panel", help=panel_help)


CONFIDENCE_HELP = (
    "estimate each item's confidence (0-1) with METHOD: samples:K (K more answers at a "
    "temperature), swap (a comparison's two orders), panel (the --panel models), logprobs (the "
    "answer token's probability), annotators:K (simulated annotators from a memory's human "
    "labels); see docs/confidence.md (env JUDGE_CONFIDENCE; default: none, no extra calls)"
)


def add_confidence_and_trust_flags(p: argparse.ArgumentParser) -> None:
    """``--confidence`` and ``--confidence-memory`` (read back by :func:`shared_overrides`),
    then ``--trust POLICY.json``: judge under a trust policy (read back by :func:`judge_for`)."""
    p.add_argument("--confidence", metavar="METHOD", help=CONFIDENCE_HELP)
    p.add_argument(
        "--confidence-memory",
        metavar="MEMORY",
        help="annotators:K: the exemplar memory whose human labels the simulated annotators "
        "see (env JUDGE_CONFIDENCE_MEMORY; default: the memory of the item's card)",
    )
    p.add_argument(
        "--trust",
        type=Path,
        metavar="POLICY",
        help="judge under this trust policy (judge trust calibrate): its judges in order, "
        "each answer marked trusted or not (docs/trust.md)",
    )


def shared_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The given ones of the flags both verbs take, as settings overrides."""
    out: dict[str, Any] = {
        "backend": args.backend,
        "model": args.model,
        "api_base": args.api_base,
        "api_key": args.api_key,
        "panel": args.panel,
        "timeout_s": args.timeout,
        "confidence": getattr(args, "confidence", None),
        "confidence_memory": getattr(args, "confidence_memory", None),
    }
    if args.sequential_safety:
        out["speculative_safety"] = False
    if args.no_cache:
        out["cache"] = False
    return {k: v for k, v in out.items() if v is not None}


def exit_code(exc: Exception) -> int:
    """Say what went wrong on stderr; the exit code: 3 for configuration, else 2."""
    from judge.cli.main import EXIT_CONFIG, EXIT_INPUT

    if isinstance(exc, InputError):
        print(f"judge: invalid input: {exc}", file=sys.stderr)
        return EXIT_INPUT
    if isinstance(exc, ConfigError):
        print(f"judge: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    print(f"judge: invalid option: {exc}", file=sys.stderr)
    return EXIT_INPUT
