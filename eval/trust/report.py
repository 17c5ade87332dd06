"""The trust section of a report (meta-eval, study, campaign): a table and one plot.

The numbers come from :func:`eval.trust.coverage.trust_section`; this module turns them into
markdown lines and ``trust.png`` (the risk–coverage curve of every kind with its 95% band,
the policy's operating point marked and its target drawn), the way the other report plots
are made (matplotlib, non-interactive).

Example::

    section = trust_section(decisions(results, rows), policy)
    report["trust"] = section
    made.append(trust_plot(section, out / "trust.png"))
    lines += trust_lines(section)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

COLOURS = ["#2166ac", "#b2182b", "#1b7837", "#762a83", "#e08214", "#4d4d4d"]


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.1%}"


def _ci(ci: list[float] | None) -> str:
    return "" if not ci else f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def _num(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def _full(points: list[dict[str, Any]]) -> str:
    last = points[-1]
    return f"{last['agreement']:.3f}{_ci(last['ci95'])} at {_pct(last['coverage'])}"


def trust_lines(section: dict[str, Any]) -> list[str]:
    """The report's markdown section "Trust: agreement against coverage" (nothing when
    the section is empty)."""
    if not section:
        return []
    out = ["", "## Trust: agreement against coverage", "",
           "Agreement with people on the share of labelled decisions the judge is surest of "
           "(exact 95% intervals; `trust.png`). Agreement is with the people's majority, "
           "within one point of their mean for ratings (docs/trust.md)."]  # fmt: skip
    policy = section.get("policy")
    if policy:
        out += ["", f"Policy: target {policy['target']}, delta {policy['delta']}, judge(s) "
                f"{', '.join(policy['stages'])}, calibrated on {policy['calibration_items']} "
                "items. Held out: the labelled items that were not among them."]  # fmt: skip
    out += ["", "| kind | labelled | all kept: agreement | at 50% kept | policy: kept | "
            "policy: agreement | held out: kept | held out: agreement |",
            "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for kind, entry in section["kinds"].items():
        points = entry["curve"]
        half = next((p for p in points if p["coverage"] >= 0.5), points[-1])
        op, held = entry.get("operating_point") or {}, entry.get("held_out") or {}
        mark = ""
        if held.get("meets_target") is not None:
            mark = " (meets the target)" if held["meets_target"] else " (**below the target**)"
        out.append(
            f"| {kind} | {entry['n']} | {_full(points)} | "
            f"{half['agreement']:.3f}{_ci(half['ci95'])} | "
            f"{_pct(op.get('coverage'))} | {_num(op.get('agreement'))}{_ci(op.get('ci95'))} | "
            f"{held.get('kept', '–')} of {held.get('n', '–')} | "
            f"{_num(held.get('agreement'))}{_ci(held.get('ci95'))}{mark} |"
        )
    return out


def trust_plot(section: dict[str, Any], path: Path) -> Path | None:
    """``trust.png``: agreement (y) against coverage (x), one line and 95% band per kind;
    None when the section is empty."""
    if not section:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for n, (kind, entry) in enumerate(section["kinds"].items()):
        colour = COLOURS[n % len(COLOURS)]
        pts = entry["curve"]
        x = [p["coverage"] for p in pts]
        ax.plot(x, [p["agreement"] for p in pts], color=colour, lw=1.6,
                label=f"{kind} (n={entry['n']})")  # fmt: skip
        ax.fill_between(x, [p["ci95"][0] for p in pts], [p["ci95"][1] for p in pts],
                        color=colour, alpha=0.15, lw=0)  # fmt: skip
        op = entry.get("operating_point") or {}
        if op.get("agreement") is not None:
            ax.plot([op["coverage"]], [op["agreement"]], marker="o", ms=8, color=colour,
                    markeredgecolor="black")  # fmt: skip
    policy = section.get("policy")
    if policy:
        ax.axhline(policy["target"], color="grey", ls="--", lw=0.9,
                   label=f"target {policy['target']}")  # fmt: skip
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("share of labelled decisions kept (most confident first)")
    ax.set_ylabel("agreement with people on those kept")
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
