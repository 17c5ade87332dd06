"""Reports rendered from page models and Jinja2 templates (eval/kit/render.py) write the same
bytes the string-built reports did: each ``tests/eval/data/report_pins/<case>.md`` was written
by the code before the move, from the ``report.json`` beside it (real runs' reports from the
test suite and the campaign record pins, and a synthetic one per report with every section
its module writes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.campaigns.plots import markdown as campaign_markdown
from eval.kit.render import Table, render_text
from eval.metaeval.report import markdown
from eval.studies.edits.report.markdown import render as edit_markdown
from eval.studies.report.markdown import render_markdown

PINNED = Path(__file__).parent / "data" / "report_pins"
CASES = sorted(p.stem for p in PINNED.glob("*.json"))


@pytest.mark.parametrize("case", CASES)
def test_a_report_renders_byte_for_byte_as_before(case: str) -> None:
    report = json.loads((PINNED / f"{case}.json").read_text(encoding="utf-8"))
    before = (PINNED / f"{case}.md").read_bytes().decode("utf-8")
    if case.startswith("metaeval"):
        now = markdown(report)
    elif case.startswith("study"):
        now = render_markdown(report)
    elif case.startswith("edit-study"):
        now = edit_markdown(report)
    else:  # a campaign's report and the figures written beside it
        now = campaign_markdown(report["report"], report["figures"])
    assert now == before


def test_the_pins_cover_every_section() -> None:
    """The synthetic cases reach the sections the real runs' reports do not."""
    meta = (PINNED / "metaeval-synthetic.md").read_text(encoding="utf-8")
    for heading in ("## Items without a prediction", "## Left out: images", "calibrated on "
                    "their own labels", "## Against published IQA", "## Human baseline",
                    "## Objective checks", "## Reference figures", "## Ablation:",
                    "## Slices by empty \\| key", "## Edit success", "## Plots",
                    "**Made-up numbers:**"):  # fmt: skip
        assert heading in meta
    study = (PINNED / "study-synthetic.md").read_text(encoding="utf-8")
    wanted = ("# Study report: unnamed study", "> note: ", "## Group comparisons",
              "Within each category:", "## Satisfaction per primitive", "## Plots")  # fmt: skip
    for heading in wanted:
        assert heading in study
    campaign = (PINNED / "campaign-synthetic.md").read_text(encoding="utf-8")
    wanted = ("## Validation tasks by kind", "**Warning:** the comparison graph", "## Judge and "
              "humans", "Judged by ", "## Judge–human agreement before/after", "## Trust:",
              "![Agreement with people against coverage](trust.png)")  # fmt: skip
    for heading in wanted:
        assert heading in campaign
    edit = (PINNED / "edit-study-synthetic.md").read_text(encoding="utf-8")
    for heading in ("no pairwise votes", "| not judged |", "![extra.png]", "## Notes"):
        assert heading in edit
    assert "Position consistency:" in (PINNED / "edit-study-hm.md").read_text(encoding="utf-8")


def test_a_template_refuses_a_name_it_is_not_given() -> None:
    with pytest.raises(Exception, match="'missing' is undefined"):
        render_text("{{ missing }}")


def test_a_table_is_well_formed_markdown() -> None:
    text = render_text("{% from 'markdown.md.j2' import table %}{{ table(t) }}{##}after\n",
                       t=Table(head=["a", "b"], rows=[["1", "x \\| y"]]))  # fmt: skip
    assert text == "| a | b |\n|---|---|\n| 1 | x \\| y |\nafter\n"
