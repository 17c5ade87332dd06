"""CPU time per test and per file, written as JSON: a fair measure on a shared, busy machine,
where wall times grow with everyone else's load but a test's own CPU seconds do not.

Load it with ``-p tests.cputime --cpu-json PATH``; each process (every pytest-xdist worker,
or the one process under ``-n 0``) writes ``PATH`` with its worker id before the suffix
(``times.gw0.json``). A record holds, per test (set-up, call and tear-down together), the
wall seconds, this process's CPU seconds and its reaped children's (subprocesses the test
started and waited for), and the process's collection time.
"""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path

import pytest


def cpu_now() -> tuple[float, float]:
    """(this process's CPU seconds, its reaped children's CPU seconds), user plus system.

    Example:
        >>> own, children = cpu_now()
        >>> own > 0 and children >= 0
        True
    """
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


class CpuTimes:
    """The hooks that time each test and the collection, and write them out at the end."""

    def __init__(self, path: Path, worker: str) -> None:
        self.path = path.with_name(f"{path.stem}.{worker}{path.suffix}")
        self.worker = worker
        self.start_wall = time.monotonic()
        self.start_cpu = cpu_now()
        self.collection: dict[str, float] = {}
        self.tests: dict[str, dict[str, float]] = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        own, kids = cpu_now()
        self.collection = {
            "wall": time.monotonic() - self.start_wall,
            "cpu": own - self.start_cpu[0],
            "children": kids - self.start_cpu[1],
            "items": len(session.items),
        }

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item):  # type: ignore[no-untyped-def]
        wall, (own, kids) = time.monotonic(), cpu_now()
        yield
        own2, kids2 = cpu_now()
        self.tests[item.nodeid] = {
            "wall": time.monotonic() - wall,
            "cpu": own2 - own,
            "children": kids2 - kids,
            "start": wall - self.start_wall,
        }

    def pytest_sessionfinish(self) -> None:
        own, kids = cpu_now()
        record = {
            "worker": self.worker,
            "wall": time.monotonic() - self.start_wall,
            "cpu": own - self.start_cpu[0],
            "children": kids - self.start_cpu[1],
            "collection": self.collection,
            "tests": self.tests,
        }
        self.path.write_text(json.dumps(record, indent=1), encoding="utf-8")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("cputime").addoption(
        "--cpu-json",
        metavar="PATH",
        default=None,
        help="write each test's wall and CPU seconds to PATH (one file per xdist worker)",
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("cpu_json")
    if not path:
        return
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    if worker == "main" and config.getoption("numprocesses", default=None):
        return  # the xdist controller runs no test: its workers write the records
    config.pluginmanager.register(CpuTimes(Path(path).resolve(), worker), "cpu-times")
