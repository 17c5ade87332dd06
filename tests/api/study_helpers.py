"""A study registration body for the studies tests (API and browser)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests.conftest import png_data_url


def study_body(n_plain: int = 3, **overrides: Any) -> dict[str, Any]:
    """``n_plain`` OE/CO tasks as suite lines plus one IM task (target in ``targets``)."""
    tasks: list[Any] = []
    for i in range(n_plain):
        category = "OE" if i % 2 == 0 else "CO"
        line = {
            "id": f"{category.lower()}_{i + 1}",
            "category": category,
            "brief": f"Task {i + 1}: a harbour at dusk, <b>not bold</b> & {{{{ not jinja }}}}",
            "checklist": [{"id": "c1", "primitive": "quantity", "image_check": "Two boats."}],
            "tags": {"primitives": ["quantity"], "topic": "harbour"},
        }
        tasks.append(json.dumps(line))
    tasks.append(
        {
            "id": "im_1",
            "category": "IM",
            "brief": "Reproduce the target picture.",
            "target_image": "targets/im_1.png",
        }
    )
    body = {
        "id": f"s-{uuid.uuid4().hex[:10]}",
        "name": "Harbour study <i>draft</i>",
        "tasks": tasks,
        "participants": 2,
        "targets": {"targets/im_1.png": png_data_url("blue", (48, 32))},
    }
    body.update(overrides)
    return body
