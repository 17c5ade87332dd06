"""Score every item of a dataset concurrently, resumably, into ``predictions.jsonl``.

Each finished item is appended (and flushed) as one line, so an interrupted run resumes
where it stopped: items with a successful line are not sent again. At the end the file is
rewritten in item order, one line per item::

    {"image": "images/craiyon/p01.png", "id": "...", "scores": {"appeal": 3.2, ...},
     "objective": {"prompt": {"c1": true}, "image": {...}}, "status": "scored"}

Example::

    preds = asyncio.run(run_items(items, client, dataset, Path("out/predictions.jsonl")))
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from eval.datasets.base import Dataset, EvalItem
from eval.kit.client import JudgeCallError, JudgeClient, Scored
from eval.metaeval.trust_report import trust_marks
from judge.confidence.attach import confidences
from judge.errors import JudgeError
from judge.llm.batch.deferral import ItemWaiting
from memory.io.atomic import write_atomic


def prediction_of(item: EvalItem, dataset: Dataset, result: Scored) -> dict:
    """The prediction line for one scored item (labels never enter it). The dataset's
    targets and ``prediction_extra`` read the result's JSON (``result.to_dict()``)."""
    data = result.to_dict()
    objective = getattr(result, "objective", {})  # score results only
    subjective = getattr(result, "subjective", {})
    extra = getattr(dataset, "prediction_extra", None)  # e.g. a compare-mode summary
    method = (data.get("provenance") or {}).get("confidence")
    sure = {"confidence_method": method, "confidence": confidences(data)} if method else {}
    return {
        **(extra(data) if extra else {}),
        **item.key,
        "id": item.id,
        "scores": {t.name: t.read(data) for t in dataset.targets},
        "unscored": {t.name: why for t in dataset.targets if (why := t.reason(data)) is not None},
        "objective": {
            side: {i.id: i.verdict for i in objective[side].items} if side in objective else {}
            for side in ("prompt", "image")
        },
        "status": result.status,
        "exemplars": sorted(
            {e.id for side in subjective.values() for d in side.values() for e in d.exemplars}
        ),
        "usage": {"llm_calls": result.usage.llm_calls, "cache_hits": result.usage.cache_hits},
        **sure,
        **trust_marks(data),
    }


def read_predictions(path: Path) -> dict[str, dict]:
    """id → latest line; a torn last line (interrupted write) is ignored."""
    out: dict[str, dict] = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and "id" in row:
            out[row["id"]] = row
    return out


async def run_items(
    items: list[EvalItem],
    client: JudgeClient,
    dataset: Dataset,
    out_path: Path,
    *,
    concurrency: int = 4,
    overrides: Callable[[EvalItem], dict[str, Any]] = lambda item: {},
    progress: bool = True,
) -> list[dict]:
    """Score the items not yet done; return one prediction per item, in item order.

    With a client in provider-batch mode an item whose calls wait for a provider batch is not
    written (the client raises ``ItemWaiting``); it is scored again on the next pass.
    """
    out_path.parent.mkdir(parents=True, exist_ok=True)
    done = {k: v for k, v in read_predictions(out_path).items() if "error" not in v}
    todo = [i for i in items if i.id not in done]
    sem = asyncio.Semaphore(concurrency)
    waiting: list[str] = []
    bar = tqdm(
        total=len(items),
        initial=len(items) - len(todo),
        desc="scoring",
        unit="item",
        disable=not progress,
    )
    with open(out_path, "a+", encoding="utf-8") as fh:
        if fh.tell() > 0:  # a torn last line (interrupted write) must not swallow the next
            fh.seek(fh.tell() - 1)
            if fh.read(1) != "\n":
                fh.write("\n")

        async def one(item: EvalItem) -> None:
            async with sem:
                try:
                    result = await client.score(item.submission, item.base_dir, overrides(item))
                    row = prediction_of(item, dataset, result)
                except ItemWaiting:  # provider-batch mode: scored on a later pass
                    waiting.append(item.id)
                    bar.set_postfix_str(f"{len(waiting)} wait for a batch")
                    return
                except (JudgeCallError, JudgeError, ValueError, RuntimeError, OSError) as exc:
                    row = {**item.key, "id": item.id, "error": f"{type(exc).__name__}: {exc}"}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
            done[item.id] = row
            bar.update(1)

        await asyncio.gather(*(one(i) for i in todo))
    bar.close()
    latest = {**read_predictions(out_path), **done}
    ordered = [latest[i.id] for i in items if i.id in latest]
    write_atomic(out_path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ordered))
    return ordered
