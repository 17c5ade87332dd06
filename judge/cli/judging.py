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
from typing import Any

from judge.errors import ConfigError, InputError

ERRORS = (InputError, ConfigError, ValueError)
"""What :func:`exit_code` turns into a message and exit code (ValueError: settings validation,
e.g. a negative timeout)."""


def add_model_flags(p: argparse.ArgumentParser, panel_help: str) -> None:
    """The judge model flags both verbs take (read back by :func:`shared_overrides`); the
    panel's help says how the verb combines the panel's answers."""
    p.add_argument("--model", help="litellm model string (env JUDGE_MODEL)")
    p.add_argument("--api-base", help="provider base URL (env JUDGE_API_BASE)")
    p.add_argument("--api-key", help="provider key (env JUDGE_API_KEY)")
    p.add_argument("--panel", help=panel_help)


def shared_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The given ones of the flags both verbs take, as settings overrides."""
    out: dict[str, Any] = {
        "backend": args.backend,
        "model": args.model,
        "api_base": args.api_base,
        "api_key": args.api_key,
        "panel": args.panel,
        "timeout_s": args.timeout,
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
