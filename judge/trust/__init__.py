"""Trust policies: which of the judge's answers may be trusted, by the judge itself.

The statistics that *make* a policy (calibration on human labels) live in ``eval.trust``; this
package reads a policy and applies it, so scoring and the service can use it without the
evaluation workflows (docs/trust.md).

Example:
    >>> from judge.trust import TrustPolicy, apply, apply_stages, fingerprint, read_policy
    >>> callable(apply) and callable(apply_stages) and callable(fingerprint)
    True
"""

from judge.trust.apply import apply, apply_stages, decides, interval
from judge.trust.errors import TrustError, TrustMismatch
from judge.trust.fingerprint import Fingerprint, compatible, fingerprint
from judge.trust.items import TrustItem, result_id, trust_items, unwrap
from judge.trust.policy import Interval, KindPolicy, Stage, TrustPolicy, parse_policy, read_policy

__all__ = [
    "Fingerprint",
    "Interval",
    "KindPolicy",
    "Stage",
    "TrustError",
    "TrustItem",
    "TrustMismatch",
    "TrustPolicy",
    "apply",
    "apply_stages",
    "compatible",
    "decides",
    "fingerprint",
    "interval",
    "parse_policy",
    "read_policy",
    "result_id",
    "trust_items",
    "unwrap",
]
