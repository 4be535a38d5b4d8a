# SPDX-License-Identifier: BSD-2-Clause
"""A device test in ten lines: a trace over a veth link, checked on the far side.

    pytest -p replay.pytest_plugin examples/test_veth.py     (as root; TRACES: the traces folder)
"""
import os

from replay import Receiver, Replay

TRACE = os.path.join(os.environ.get("TRACES", "traces"), "http.pcap")


def test_every_packet_arrives(veth_pair):
    with veth_pair.in_b(), Receiver(veth_pair.if_b, reference=TRACE) as rx:
        with veth_pair.in_a():
            stats = Replay(TRACE, interface=veth_pair.if_a, pps=2000).run()
    assert stats.packets_sent == stats.packets_read == 40
    assert rx.report["received"] == 40 and rx.exit_status == 0  # each once, in order
    assert veth_pair.received() == 40
