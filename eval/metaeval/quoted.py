"""The published baselines of a public set in ``report.md``: quoted, one table per source.

Each source (citation, source file, split and target) is named **once**, above a table of its
figures (a row per system, a column per statistic); its notes follow the table, each once. The
judge's own figure joins a source's table only when it is on the source's items: the quote has
a target (or the set's figure is its preference accuracy), the run scored the whole set (no
``--limit`` subset) and the judge scored every item of it. Otherwise a line says on how many
items the judge's figures are, and where the same metrics sit beside the judge on the judge's
items (the comparison tables, recomputed from the set's per-item scores when it ships them).

Example::

    lines = baseline_lines(report)   # [] when the report is not a public set's
"""

from __future__ import annotations

from typing import Any

from eval.metaeval.public_sets import judge_figure

__all__ = ["baseline_lines", "on_the_sources_items"]


def _f(v: Any) -> str:
    return "–" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))


def _quoted(v: float) -> str:
    """A published value as the source printed it (up to four decimals); a longer value (a
    notebook's full-precision output) to three."""
    return repr(v) if len(repr(v)) <= 6 else f"{v:.3f}"


def _cell(v: Any) -> str:
    return str(v).replace("|", "\\|").replace("\n", " ")


def on_the_sources_items(report: dict[str, Any], quote: dict[str, Any]) -> bool:
    """Whether the judge's figure for ``quote`` is on the items the source's figure is on."""
    section = report.get("public_set") or {}
    if quote.get("target") is None and section.get("kind") != "preferences":
        return False  # the quote says it is on other items (its note says why)
    whole_set = report.get("n_set_items") is not None and report.get("n_set_items") == report.get(
        "n_items"
    )
    if not whole_set:
        return False
    if section.get("kind") == "preferences":
        fig = report.get("preferences") or {}
    else:
        fig = (section.get("figures") or {}).get(quote.get("target") or "", {})
    return fig.get("n") is not None and fig.get("n") == fig.get("n_total")


def _groups(quotes: list[dict[str, Any]]) -> dict[tuple, list[dict[str, Any]]]:
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for q in quotes:
        key = (q["citation"], q["source"], q["split"], q.get("target"))
        groups.setdefault(key, []).append(q)
    return groups


def _notes(rows: list[dict[str, Any]]) -> list[str]:
    """Each distinct note once, with what it applies to when not to every figure."""
    out = []
    for note in dict.fromkeys(q["note"] for q in rows if q.get("note")):
        has = [q for q in rows if q.get("note") == note]
        metrics = {q["metric"] for q in has}
        if len(has) == len(rows):
            out.append(note)
        elif all(q.get("note") == note for q in rows if q["metric"] in metrics):
            out.append(f"{', '.join(sorted(metrics))}: {note}")
        else:
            which = ", ".join(f"{q['system']} {q['metric']}" for q in has)
            out.append(f"{which}: {note}")
    return out


def _judge_scope(report: dict[str, Any]) -> str:
    section = report.get("public_set") or {}
    figs = [f for f in (section.get("figures") or {}).values() if f.get("n")]
    pref = report.get("preferences") or {}
    if pref.get("n"):
        figs.append(pref)
    if not figs:
        return ""
    n = figs[0]["n"]
    total = report.get("n_set_items")
    of = f" of the set's {total}" if total else ""
    where = (
        " The set's published metrics are compared with the judge on the judge's items under "
        "“Compare metrics” above."
        if report.get("comparison")
        else ""
    )
    return (
        f"The judge's figures in this report are on {n} item(s){of}, not on these sources' "
        f"items, so none is printed beside a quote.{where}"
    )


def baseline_lines(report: dict[str, Any]) -> list[str]:
    """The quoted figures, one table per source (nothing when the report is no public set's)."""
    section = report.get("public_set")
    if not section:
        return []
    out = ["", "### Published baselines (quoted, not reproduced here)", ""]
    if not section.get("baselines"):
        out.append(
            "No published figure is quoted for this set. Sources read: "
            f"{section.get('baselines_checked') or 'none'}. Compare with the set's papers "
            "yourself (docs/public-sets.md)."
        )
        return out
    out.append(
        "Each figure below is the source's number, quoted: it was not reproduced here. Each "
        "source is named once, above its figures."
    )
    judge_shown = False
    for (citation, source, split, target), rows in _groups(section["baselines"]).items():
        metrics = list(dict.fromkeys(q["metric"] for q in rows))
        systems = list(dict.fromkeys(q["system"] for q in rows))
        value = {(q["system"], q["metric"]): q["value"] for q in rows}
        aim = f"; target: {target}" if target else ""
        out += [
            "",
            f"**{_cell(citation)}** — source: {_cell(source)}; split: {_cell(split)}{aim}.",
            "",
            "| system | " + " | ".join(metrics) + " |",
            "|---" * (len(metrics) + 1) + "|",
        ]
        for system in systems:
            cells = [_quoted(value[(system, m)]) if (system, m) in value else "" for m in metrics]
            out.append(f"| {_cell(system)} | " + " | ".join(cells) + " |")
        if on_the_sources_items(report, rows[0]):
            judge_shown = True
            cells = []
            for m in metrics:
                mine = judge_figure(report, m, target)
                lo, hi = mine["ci95"] or [None, None]
                ci = f" [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else ""
                cells.append(f"{_f(mine['value'])}{ci} (n={_f(mine['n'])})")
            out.append("| **judge (this run, same items)** | " + " | ".join(cells) + " |")
        notes = _notes(rows)
        if notes:
            out += ["", "Notes: " + "; ".join(_cell(n) for n in notes) + "."]
    if not judge_shown:
        scope = _judge_scope(report)
        if scope:
            out += ["", scope]
    return out
