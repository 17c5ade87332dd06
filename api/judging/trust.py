"""Trust policies on the service: installed by an admin, named by clients.

An admin puts policy files (``NAME.json``, written by ``judge trust calibrate``) in the folder
``JUDGE_SERVE_TRUST_POLICIES``; the service reads them once at start (off the event loop), and
a file that is not a valid policy stops the start with its name and the problem. A client
never uploads a policy: it names one, ``options.trust = "NAME"``, on ``POST /v1/score``,
``/v1/compare`` and batches (an item's options, or the batch's). Before any model call the
name is resolved (an unknown one is ``400`` on ``options.trust``, naming the installed ones
and the closest) and every stage of the policy is checked against this service's judge (a
policy calibrated for other options is ``400`` on ``options.trust``, naming both judges).

Example::

    policies = load_policies(Path("/etc/judge/trust"))     # at start, in a thread
    name, body = take_trust(body)                          # options.trust out of the body
    checked = replace(checked, trust=resolve(name, checked.settings, policies))
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from judge.config import JudgeSettings
from judge.errors import ConfigError, InputError
from judge.trust.errors import TrustError
from judge.trust.policy import TrustPolicy, read_policy
from judge.trust.run import stage_overrides
from registry import did_you_mean

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@lru_cache(maxsize=4)
def load_policies(folder: Path | None) -> dict[str, TrustPolicy]:
    """Every ``NAME.json`` of ``folder`` (none when unset); a :class:`ConfigError` naming the
    file for one that is not a policy. Blocking: call it in a thread."""
    if folder is None:
        return {}
    if not folder.is_dir():
        raise ConfigError(f"JUDGE_SERVE_TRUST_POLICIES={folder}: not a folder")
    out = {}
    for path in sorted(folder.glob("*.json")):
        if not NAME.match(path.stem):
            raise ConfigError(f"{path}: a policy's name (the file name) is letters, digits, "
                              "'.', '_' or '-', at most 64")  # fmt: skip
        try:
            out[path.stem] = read_policy(path)
        except TrustError as exc:
            raise ConfigError(f"trust policy {exc}") from None
    return out


def take_trust(options: Any) -> tuple[str | None, Any]:
    """``options.trust`` and the options without it (the engine never sees it)."""
    if not isinstance(options, dict) or "trust" not in options:
        return None, options
    name = options["trust"]
    if name is not None and not isinstance(name, str):
        raise InputError("options.trust", f"expected a policy's name, got {type(name).__name__}")
    return name, {k: v for k, v in options.items() if k != "trust"}


def resolve(name: str, settings: JudgeSettings, policies: dict[str, TrustPolicy]) -> TrustPolicy:
    """The installed policy ``name``, checked against the judge of ``settings``; an
    :class:`InputError` on ``options.trust`` saying what is wrong."""
    if name not in policies:
        if not policies:
            raise InputError("options.trust", f"unknown trust policy {name!r}: this server has "
                             "no trust policies installed (an admin puts NAME.json files in "
                             "JUDGE_SERVE_TRUST_POLICIES)")  # fmt: skip
        hint = did_you_mean(name, policies)
        hint = f" ({hint})" if hint else ""
        raise InputError("options.trust", f"unknown trust policy {name!r}{hint}; this server "
                         f"has: {', '.join(sorted(policies))}")  # fmt: skip
    policy = policies[name]
    try:
        stage_overrides(settings, policy)
    except TrustError as exc:
        raise InputError("options.trust", f"{name}: {exc}") from None
    return policy
