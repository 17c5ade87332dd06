"""``judge meta-eval`` options from the README: ``--memory-dir``, the default output folder,
ablations that refuse to be meaningless, and well-formed report tables."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from eval.metaeval.report import markdown
from judge.cli.main import main
from memory.exemplar import load_exemplars
from memory.store import MemoryStore
from tests.eval.conftest import EXPERT, cli_args
from tests.fakes.provider import FakeProvider

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "exemplars"


def example_store(root: Path) -> Path:
    for name in ("prompt-CO", "prompt-OE", "prompt-IM"):
        MemoryStore(root).build(name, load_exemplars(EXAMPLES / f"{name}.jsonl"), base_dir=EXAMPLES)
    return root


@pytest.mark.slow
def test_memory_dir_scores_with_that_store(provider: FakeProvider, tmp_path: Path) -> None:
    store = example_store(tmp_path / "store")
    out = tmp_path / "out"
    args = ["--dataset", "expert-jsonl", "--data", EXPERT, "--out", out, "--memory-dir", store]
    assert main(cli_args(provider, *args, "--skills", "instructional_clarity")) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["config"]["settings"]["memory_dir"] == str(store)
    preds = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert any(e.startswith("ex-") for p in preds for e in p.get("exemplars", []))


def test_memory_dir_with_a_memory_source_is_refused(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--dataset", "expert-jsonl", "--data", EXPERT, "--out", tmp_path / "o"]
    assert main(cli_args(provider, *args, "--memory-dir", tmp_path, "--cv", "lopo")) == 2
    assert "give only one" in capsys.readouterr().err
    assert main(cli_args(provider, *args, "--memory-dir", tmp_path / "missing")) == 2
    assert "not a folder" in capsys.readouterr().err


def test_out_defaults_to_the_user_data_folder(
    provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_HOME", str(tmp_path / "home"))
    args = ["--dataset", "expert-jsonl", "--data", EXPERT, "--limit", "1"]
    assert main(cli_args(provider, *args, "--skills", "instructional_clarity")) == 0
    (run,) = (tmp_path / "home" / "runs").glob("expert-jsonl-*")
    assert (run / "report.md").is_file()


@pytest.mark.parametrize("kind", ["retrieval", "k"])
def test_an_ablation_without_memory_is_refused(
    kind: str, provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--dataset", "expert-jsonl", "--data", EXPERT, "--out", tmp_path / "o"]
    assert main(cli_args(provider, *args, "--ablation", kind)) == 2
    err = capsys.readouterr().err
    assert "no exemplar memory" in err and "--memory-dir" in err
    assert not (tmp_path / "o" / "predictions.jsonl").exists()  # refused before scoring
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(cli_args(provider, *args, "--ablation", kind, "--memory-dir", empty)) == 2


def table_ok(lines: list[str]) -> bool:
    """Every row of a Markdown table has the header's number of cells."""
    cells = [len(re.findall(r"(?<!\\)\|", line)) for line in lines]
    return len(set(cells)) == 1


def tables(md: str) -> list[list[str]]:
    out, cur = [], []
    for line in md.splitlines():
        if line.startswith("|"):
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    return out + ([cur] if cur else [])


def report_with_slices(slices: dict) -> dict:
    metrics = {"spearman": 0.5, "kendall": 0.4, "pearson": 0.5, "mae": 0.7, "within1": 0.8}
    return {
        "dataset": "avt",
        "data": "d",
        "n_items": 8,
        "n_predicted": 8,
        "n_errors": 0,
        "config": {"memory_from": None, "cv": None},
        "targets": {
            "appeal": {**metrics, "n": 6, "n_total": 8},
            "realism": {**metrics, "n": 8, "n_total": 8},
        },
        "slices": slices,
    }


def test_slice_tables_are_well_formed_for_small_and_missing_groups() -> None:
    md = markdown(
        report_with_slices(
            {
                "generator": {
                    "appeal": {"a|b": {"spearman": None, "mae": 0.5, "n": 3}},
                    "realism": {},
                },
                "is_real_photo": {"appeal": {}, "realism": {}},
            }
        )
    )
    assert all(table_ok(t) for t in tables(md)), md
    assert "No group has the 3 scored items" in md
    assert "| appeal | a\\|b | 3 | – | 0.500 |" in md
    assert "| 6/8 |" in md and "| 8/8 |" in md  # coverage next to the figures


def test_an_ablation_on_the_local_backend_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("JUDGE_MODEL", "JUDGE_PANEL", "JUDGE_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    store = example_store(tmp_path / "store")
    args = ["meta-eval", "--dataset", "expert-jsonl", "--data", str(EXPERT)]
    args += ["--out", str(tmp_path / "o"), "--memory-dir", str(store), "--ablation", "k"]
    assert main(args) == 2
    assert "local backend" in capsys.readouterr().err


def test_the_cli_tables_name_real_keywords_and_settings() -> None:
    """``judge meta-eval`` passes flags from two tables (``AS_NAMED``, ``SETTINGS``): every
    name must be a keyword of ``meta_eval`` or a judge setting and a flag of the verb, so a
    rename on either side fails here, not at a user's run."""
    import argparse
    import inspect

    from eval.metaeval import cli
    from eval.metaeval.python_api import meta_eval
    from judge.config import JudgeSettings

    keywords = set(inspect.signature(meta_eval).parameters)
    assert set(cli.AS_NAMED) <= keywords, set(cli.AS_NAMED) - keywords
    assert set(cli.SETTINGS) <= set(JudgeSettings.model_fields), set(cli.SETTINGS)
    assert not set(cli.SETTINGS) & keywords
    verbs = argparse.ArgumentParser().add_subparsers()
    cli.register(verbs)
    dests = {action.dest for action in verbs.choices["meta-eval"]._actions}
    passed = set(cli.AS_NAMED) | set(cli.SETTINGS)
    assert passed <= dests, passed - dests
