"""Progress lines for long test runs, and the slowest files at the end (``make test`` and
``make test-fast`` load it with ``-p tests.progress``).

Every ``--progress-every`` seconds (default 30) the run prints one line, from its first
seconds on, whether or not a test finished meanwhile (while both workers walk the docs for
minutes, pytest's own dots stay still)::

    [progress 0:30] collecting the tests (2 workers)
    [progress 4:00] 812 of 2630 tests done (31%), 0 failed; longest running: tests/x.py::t (3:12)

At the end it names the files that took longest (the sum of their tests' set-up, call and
tear-down), which is what decides a file's lane (``docs/testing.md``). It runs on the
controller only (under pytest-xdist the workers report their tests' starts and ends to it)
and works the same without xdist.

Example (what a line says; the run prints them itself)::

    >>> Progress(every_s=30, workers=2).line(now=90.0)
    '[progress 1:30] collecting the tests (2 workers)'
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict

import pytest

SLOWEST_FILES = 12
"""How many files the end-of-run summary names."""


def clock_text(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) of a duration.

    Example:
        >>> clock_text(75.4), clock_text(3725)
        ('1:15', '1:02:05')
    """
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """What the run has done so far: tests in total, done, failed, running (with their start
    times) and the seconds each file took."""

    def __init__(self, every_s: float, workers: int) -> None:
        self.every_s = every_s
        self.workers = workers
        self.start = time.monotonic()
        self.total: int | None = None
        self.done = 0
        self.failed: set[str] = set()
        self.running: dict[str, float] = {}
        self.file_seconds: dict[str, float] = defaultdict(float)
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def finished(self) -> bool:
        """Whether every collected test has run."""
        with self.lock:
            return self.total is not None and self.done >= self.total

    def line(self, now: float | None = None) -> str:
        """The progress line at ``now`` seconds into the run (default: the time now)."""
        elapsed = time.monotonic() - self.start if now is None else now
        head = f"[progress {clock_text(elapsed)}]"
        with self.lock:
            if self.total is None:
                who = f"{self.workers} workers" if self.workers > 1 else "one process"
                return f"{head} collecting the tests ({who})"
            share = 100 * self.done // self.total if self.total else 100
            text = (
                f"{head} {self.done} of {self.total} tests done ({share}%), "
                f"{len(self.failed)} failed"
            )
            if self.running:
                nodeid, since = min(self.running.items(), key=lambda kv: kv[1])
                text += f"; longest running: {nodeid} ({clock_text(self.start + elapsed - since)})"
            return text


class ProgressPlugin:
    """The hooks that feed :class:`Progress` and print its lines."""

    def __init__(self, config: pytest.Config, every_s: float) -> None:
        workers = config.getoption("numprocesses", default=None) or 0
        self.config = config
        self.progress = Progress(every_s, workers if isinstance(workers, int) else 0)
        self.thread: threading.Thread | None = None

    def _write(self, text: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            if reporter._tw.width_of_current_line:  # after pytest's dots: a line of its own
                reporter._tw.line()
            reporter.write_line(text)
            reporter.flush()

    def _beat(self) -> None:
        while not self.progress.stop.wait(self.progress.every_s):
            if not self.progress.finished():  # once all are done, the end says the rest
                self._write(self.progress.line())

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.thread = threading.Thread(target=self._beat, name="test-progress", daemon=True)
        self.thread.start()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        with self.progress.lock:
            self.progress.total = len(session.items)

    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        with self.progress.lock:
            self.progress.total = len(ids)

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        with self.progress.lock:
            self.progress.running[nodeid] = time.monotonic()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        with self.progress.lock:
            self.progress.file_seconds[report.nodeid.split("::")[0]] += report.duration
            if report.failed:
                self.progress.failed.add(report.nodeid)

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        with self.progress.lock:
            self.progress.running.pop(nodeid, None)
            self.progress.done += 1

    def pytest_sessionfinish(self) -> None:
        self.progress.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=5)
        self._write(self.progress.line())  # where the run ended

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        seconds = sorted(self.progress.file_seconds.items(), key=lambda kv: -kv[1])
        if not seconds:
            return
        terminalreporter.write_sep("=", f"slowest {min(SLOWEST_FILES, len(seconds))} files")
        for path, secs in seconds[:SLOWEST_FILES]:
            terminalreporter.write_line(f"{secs:8.1f}s  {path}")
        wall = clock_text(time.monotonic() - self.progress.start)
        spent = clock_text(sum(self.progress.file_seconds.values()))
        terminalreporter.write_line(f"wall time {wall}; the tests' own time {spent} (summed)")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("progress").addoption(
        "--progress-every",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="print a progress line (tests done of the total) every SECONDS (default 30)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the controller prints
        return
    every = config.getoption("progress_every")
    if every <= 0:
        raise pytest.UsageError(f"--progress-every: {every} is not a positive number of seconds")
    config.pluginmanager.register(ProgressPlugin(config, every), "test-progress")
