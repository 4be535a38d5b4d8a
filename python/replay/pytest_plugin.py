# SPDX-License-Identifier: BSD-2-Clause
"""pytest fixtures for device tests with replay.

Load it with ``-p replay.pytest_plugin`` (or ``pytest_plugins = ["replay.pytest_plugin"]``
in the top conftest.py).  ``veth_pair`` gives two network namespaces joined
by a veth link, quiet (IPv6 and multicast off: only what a test sends
crosses it), deleted after the test however it ended.  It needs root
(without it the test is skipped)::

    def test_trace_arrives(veth_pair):
        with veth_pair.in_a():
            stats = Replay("dns.pcap", interface=veth_pair.if_a, topspeed=True).run()
        assert veth_pair.received() == stats.packets_sent == 8

``@pytest.mark.veth_queues(N)`` gives the link N TX and RX queues a side
(for ``threads=N``).
"""
from __future__ import annotations

import contextlib
import ctypes
import json
import os
import subprocess
import time
from dataclasses import dataclass
from typing import Iterator

import pytest

CLONE_NEWNET = 0x40000000


def _ip(*args: str) -> str:
    return subprocess.run(["ip", *args], check=True, capture_output=True, text=True).stdout


def _setns(fd: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


@dataclass
class VethPair:
    """Namespaces ``ns_a`` and ``ns_b``, joined by ``if_a`` (in ns_a) and ``if_b`` (in ns_b)."""

    ns_a: str
    ns_b: str
    if_a: str
    if_b: str

    @contextlib.contextmanager
    def netns(self, ns: str) -> Iterator[None]:
        """Run the body (on this thread, and threads it starts) in namespace ``ns``."""
        back = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
        try:
            _setns(target)
            try:
                yield
            finally:
                _setns(back)
        finally:
            os.close(target)
            os.close(back)

    def in_a(self) -> contextlib.AbstractContextManager:
        """Send from side A: the body runs in ns_a."""
        return self.netns(self.ns_a)

    def in_b(self) -> contextlib.AbstractContextManager:
        """The body runs in ns_b."""
        return self.netns(self.ns_b)

    def counters(self, side: str = "b") -> dict:
        """The interface's own counters (``ip -s link``'s stats64: rx and tx, packets and bytes)."""
        ns, dev = (self.ns_b, self.if_b) if side == "b" else (self.ns_a, self.if_a)
        return json.loads(_ip("-n", ns, "-j", "-s", "link", "show", dev))[0]["stats64"]

    def received(self, side: str = "b") -> int:
        """Frames the far side's interface received so far."""
        return self.counters(side)["rx"]["packets"]


def _wait_up(pair: VethPair) -> None:
    # The kernel attaches the qdisc when it sets the link operationally up; until then frames are dropped.
    for _ in range(100):
        if all("state UP" in _ip("-n", ns, "link", "show", dev)
               for ns, dev in ((pair.ns_a, pair.if_a), (pair.ns_b, pair.if_b))):
            return
        time.sleep(0.05)
    raise RuntimeError("the veth pair did not come up in 5 s")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "veth_queues(n): veth_pair's link has n TX and RX queues a side")


@pytest.fixture
def veth_pair(request: pytest.FixtureRequest) -> Iterator[VethPair]:
    """Two namespaces and a veth link between them; torn down even when the test fails."""
    mark = request.node.get_closest_marker("veth_queues")
    queues = [] if mark is None else ["numtxqueues", str(mark.args[0]), "numrxqueues", str(mark.args[0])]
    if os.geteuid() != 0:
        pytest.skip("veth_pair needs root (network namespaces)")
    tag = f"{os.getpid() % 100000}{int(time.monotonic() * 1000) % 1000:03d}"
    pair = VethPair(f"rpy-a-{tag}", f"rpy-b-{tag}", f"rpya{tag}", f"rpyb{tag}")
    made = []
    try:
        for ns in (pair.ns_a, pair.ns_b):
            _ip("netns", "add", ns)
            made.append(ns)
        _ip("link", "add", "name", pair.if_a, "netns", pair.ns_a, *queues, "type", "veth",
            "peer", "name", pair.if_b, "netns", pair.ns_b, *queues)
        for ns, dev in ((pair.ns_a, pair.if_a), (pair.ns_b, pair.if_b)):
            for key in ("all", "default", dev):
                subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw",
                                f"net.ipv6.conf.{key}.disable_ipv6=1"], check=True)
            _ip("-n", ns, "link", "set", "dev", dev, "multicast", "off")
            _ip("-n", ns, "link", "set", "dev", dev, "up")
            _ip("-n", ns, "link", "set", "dev", "lo", "up")
        _wait_up(pair)
        yield pair
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
