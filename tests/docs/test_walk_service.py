"""The docs walk's ``service`` chain: studies, the service and the participant pages, the API and
reference pages, every ``sh`` and ``python`` block run as written (``tests/test_readme.py``
explains the walk and lists the chains)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_readme import walk, walk_env

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)


@pytest.mark.timeout(3600)  # every docs command in its own process: minutes, not seconds
def test_the_service_pages_run_as_written(tmp_path: Path) -> None:
    with walk_env(tmp_path) as env:
        walk("service", env)
