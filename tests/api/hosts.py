"""Separate "machines" for the scale-out test: each host is a network namespace of its own
(``ip netns``; needs root) joined to the test's namespace by a veth pair on a private /30 made
here, so its processes share nothing with the others but what is reached over that link.
Where namespaces cannot be made (not root, no ``ip``), every host is the test's own loopback
and its processes still share nothing but the URLs they are given.

The namespaces, links and addresses exist only while the :class:`Hosts` is open; closing it
deletes them (a namespace's end of the veth goes with it).

Example::

    with Hosts() as hosts:
        api = hosts.add("api")            # Host(ns="j22-...", address="10.2xx.x.2", gateway=...)
        proc = subprocess.Popen(api.wrap(["python", "-m", "judge.cli.main", "serve"]))
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from dataclasses import dataclass


def stop_all(procs: list[subprocess.Popen], grace_s: float = 20.0) -> None:
    """SIGTERM every process still running, then SIGKILL those not gone after ``grace_s``."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass(frozen=True)
class Host:
    """One host: its namespace (None = the test's own), its address as seen from the test,
    and the test side's address as seen from the host (where the test's servers listen)."""

    name: str
    ns: str | None
    address: str
    gateway: str

    def wrap(self, cmd: list[str]) -> list[str]:
        """``cmd`` run inside the host (``ip netns exec`` keeps the process id)."""
        return ["ip", "netns", "exec", self.ns, *cmd] if self.ns else cmd


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


def namespaces_work() -> bool:
    """True when this process may create network namespaces (root with ``ip``)."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return False
    probe = f"j22probe{os.getpid()}"
    try:
        _ip("netns", "add", probe)
    except (subprocess.SubprocessError, OSError):
        return False
    _ip("netns", "del", probe)
    return True


class Hosts:
    """Hosts made for one test; a context manager that removes them all."""

    def __init__(self, use_namespaces: bool | None = None):
        self.isolated = namespaces_work() if use_namespaces is None else use_namespaces
        self.hosts: list[Host] = []
        self.tag = f"{os.getpid() % 100000}{random.randrange(100)}"
        self.net = self._free_net() if self.isolated else ""

    @staticmethod
    def _free_net() -> str:
        """A 10.24x.y prefix no interface here uses (each host gets a /30 in it)."""
        used = subprocess.run(["ip", "-o", "-4", "addr"], capture_output=True, text=True).stdout
        while True:
            net = f"10.{random.randrange(240, 256)}.{random.randrange(256)}"
            if f" {net}." not in used:
                return net

    def add(self, name: str) -> Host:
        """A new host called ``name``."""
        if not self.isolated:
            host = Host(name, None, "127.0.0.1", "127.0.0.1")
            self.hosts.append(host)
            return host
        i = len(self.hosts)
        ns, outer, inner = f"j22-{self.tag}-{i}", f"j{self.tag}o{i}", f"j{self.tag}i{i}"
        gateway, address = f"{self.net}.{4 * i + 1}", f"{self.net}.{4 * i + 2}"
        _ip("netns", "add", ns)
        host = Host(name, ns, address, gateway)
        self.hosts.append(host)  # recorded first: close() removes a half-made host too
        _ip("link", "add", outer, "type", "veth", "peer", "name", inner, "netns", ns)
        _ip("addr", "add", f"{gateway}/30", "dev", outer)
        _ip("link", "set", outer, "up")
        _ip("netns", "exec", ns, "ip", "addr", "add", f"{address}/30", "dev", inner)
        _ip("netns", "exec", ns, "ip", "link", "set", inner, "up")
        _ip("netns", "exec", ns, "ip", "link", "set", "lo", "up")
        return host

    def close(self) -> None:
        """Delete every namespace made here (their links and addresses go with them)."""
        for host in self.hosts:
            if host.ns:
                subprocess.run(["ip", "netns", "del", host.ns], capture_output=True, timeout=30)
        self.hosts.clear()

    def __enter__(self) -> Hosts:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
