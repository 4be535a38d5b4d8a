#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The Python package over libreplay.so and its pytest plugin: the example
# device test (examples/test_veth.py) runs under pytest, sends a trace over
# the veth pair its fixture makes, and the far side counts every packet; a
# device test that fails still has its namespaces torn down; a run stopped
# from another thread ends early; progress snapshots at their interval, by
# iteration and by a callback whose return (or exception) stops the run; a
# receiver's progress during a live capture (one ring and two), growing, its
# last count the report's, and its callback ending the capture; a replay's
# progress with --threads 2 over a two-queue link, the sum of the threads;
# the set-up-done callbacks, before the first packet, on the run's thread.
# LIBREPLAY and PYTHONPATH name the library and the package of the build.
. "$(dirname "$0")/lib.sh"
: "${LIBREPLAY:?}" "${PYTHON_SRC:?}" "${EXAMPLES:?}"
export LIBREPLAY TRACES PYTHONPATH="$PYTHON_SRC"
# Nothing written into the source tree.
export PYTHONDONTWRITEBYTECODE=1
PYTEST=$(command -v pytest-3 || true)
[ -n "$PYTEST" ] || die "pytest-3 is not installed (python3-pytest; scripts/deps.sh installs it)"
# A sanitizer build's library needs its runtimes loaded before Python's own
# libraries; leaks are not checked (Python keeps its objects to the end, and the
# programs pytest starts inherit the preload), whatever ASAN_OPTIONS asked before.
SAN=$(ldd "$LIBREPLAY" | awk '/lib(asan|ubsan)\.so/ { print $3 }' | paste -sd: -)
pytest3() {
	if [ -n "$SAN" ]; then
		LD_PRELOAD="$SAN" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$PYTEST" "$@"
	else
		"$PYTEST" "$@"
	fi
}

# Namespaces the plugin made (rpy-...) and left behind.
leftover() { ip netns list | awk '{print $1}' | grep '^rpy-' || true; }

test_example() {
	local before
	before=$(leftover)
	(cd "$WORK" && pytest3 -p no:cacheprovider -p replay.pytest_plugin -rA "$EXAMPLES/test_veth.py") \
		>"$WORK/out" 2>&1 || die "the example failed: $(cat "$WORK/out")"
	# Passed, not skipped: the fixture ran and the far side counted.
	grep -q "PASSED.*test_every_packet_arrives" "$WORK/out" || die "the example did not pass: $(cat "$WORK/out")"
	grep -q "1 passed" "$WORK/out" || die "not one test passed: $(cat "$WORK/out")"
	[ "$(leftover)" = "$before" ] || die "namespaces left behind: $(leftover)"
}

test_failing_test_tears_down() {
	local before
	before=$(leftover)
	cat >"$WORK/test_fails.py" <<'PY'
def test_fails(veth_pair):
    assert veth_pair.received() == 0
    raise AssertionError("on purpose")
PY
	local rc=0
	(cd "$WORK" && pytest3 -p no:cacheprovider -p replay.pytest_plugin "$WORK/test_fails.py") \
		>"$WORK/out" 2>&1 || rc=$?
	[ "$rc" = 1 ] || die "a failing test gave pytest status $rc: $(cat "$WORK/out")"
	grep -q "on purpose" "$WORK/out" || die "not the test's own failure: $(cat "$WORK/out")"
	[ "$(leftover)" = "$before" ] || die "a failed test left namespaces: $(leftover)"
}

test_stop_and_errors() {
	cat >"$WORK/test_stop.py" <<'PY'
import os, time
import pytest
from replay import Replay, ReplayError

TRACES = os.environ["TRACES"]

def test_stop_ends_a_background_run(veth_pair):
    with veth_pair.in_a():
        r = Replay(os.path.join(TRACES, "udp-1ms.pcap"), interface=veth_pair.if_a, loop=0).start()
        time.sleep(0.5)
        stats = r.stop(timeout=10)
    assert stats.stopped and 0 < stats.packets_sent < 10000
    assert veth_pair.received() == stats.packets_sent
    assert stats.json["packets_sent"] == stats.packets_sent

def test_bad_option_raises():
    with pytest.raises(ReplayError) as e:
        Replay(os.path.join(TRACES, "dns.pcap"), pps=100, topspeed=True)
    assert e.value.errno == 22 and "pps" in str(e.value)
PY
	(cd "$WORK" && pytest3 -p no:cacheprovider -p replay.pytest_plugin -rA "$WORK/test_stop.py") \
		>"$WORK/out" 2>&1 || die "stop/errors failed: $(cat "$WORK/out")"
	grep -q "2 passed" "$WORK/out" || die "not two passed: $(cat "$WORK/out")"
}

test_progress() {
	cat >"$WORK/test_progress.py" <<'PY'
import os
import pytest
from replay import Replay

TRACES = os.environ["TRACES"]
DNS = os.path.join(TRACES, "dns.pcap")  # 8 packets

def pcap_packets(path):
    data, off, n = open(path, "rb").read(), 24, 0
    while off + 16 <= len(data):
        off += 16 + int.from_bytes(data[off + 8:off + 12], "little")
        n += 1
    return n

def test_progress_iterates(veth_pair):
    with veth_pair.in_a():
        snaps = list(Replay(DNS, interface=veth_pair.if_a, pps=200, loop=10).progress(interval=0.05))
    *during, end = snaps
    # About 0.4 s: a snapshot per 50 ms gone by, never two in one, then the end's.
    assert 2 <= len(during) <= end.duration_ns // 50_000_000
    assert all(s.exit_status == -1 for s in during)
    assert all(s.duration_ns >= (i + 1) * 50_000_000 for i, s in enumerate(during))
    sent = [s.packets_sent for s in during]
    assert sent == sorted(sent) and sent[-1] < end.packets_sent == 80
    assert end.exit_status == 0 and not end.stopped and end.json["packets_sent"] == 80
    assert veth_pair.received() == 80

def test_progress_callback_stops(tmp_path):
    seen = []
    def cb(s):
        seen.append(s)
        return len(seen) == 3
    r = Replay(DNS, write=str(tmp_path / "o.pcap"), pps=20000, loop=0, limit=40000)
    stats = r.run(progress=cb, interval=0.02)
    assert len(seen) == 3 and stats.stopped and 0 < stats.packets_sent < 40000

def test_progress_callback_raises(tmp_path):
    def cb(s):
        raise KeyError("from the callback")
    r = Replay(DNS, write=str(tmp_path / "o.pcap"), pps=20000, loop=0, limit=4000)
    with pytest.raises(KeyError, match="from the callback"):
        r.run(progress=cb, interval=0.02)
    assert 0 < pcap_packets(tmp_path / "o.pcap") < 4000
    # Raised after the run stopped early; the handle runs again to its end, the callback forgotten.
    again = r.run()
    assert again.packets_sent == 4000 and not again.stopped

def test_leaving_the_loop_stops(tmp_path):
    r = Replay(DNS, write=str(tmp_path / "o.pcap"), pps=20000, loop=0, limit=40000)
    for s in r.progress(interval=0.02):
        assert s.exit_status == -1 and s.packets_sent > 0
        break
    stats = r.wait(timeout=10)
    assert stats.stopped and stats.packets_sent < 40000
PY
	(cd "$WORK" && pytest3 -p no:cacheprovider -p replay.pytest_plugin -rA "$WORK/test_progress.py") \
		>"$WORK/out" 2>&1 || die "progress failed: $(cat "$WORK/out")"
	grep -q "4 passed" "$WORK/out" || die "not four passed: $(cat "$WORK/out")"
}

test_rx_progress() {
	cat >"$WORK/test_rx_progress.py" <<'PY'
import os
import pytest
from replay import Receiver, Replay, RxProgress

TRACES = os.environ["TRACES"]
DNS = os.path.join(TRACES, "dns.pcap")  # 8 packets

@pytest.mark.parametrize("fanout", [None, 2])
def test_rx_progress_live(veth_pair, fanout):
    with veth_pair.in_b():
        # Ends 1 s after the last frame (--fanout takes no --count); the link's own IPv6 chatter left out.
        rx = Receiver(veth_pair.if_b, filter="not ip6", idle=1, timeout=20, block_timeout=10,
                      fanout=fanout)
        snaps = rx.progress(interval=0.05)
    with veth_pair.in_a():
        sender = Replay(DNS, interface=veth_pair.if_a, pps=100, loop=10).start()
    got = list(snaps)
    stats = sender.wait(timeout=20)
    *during, end = got
    assert all(isinstance(p, RxProgress) and not p.done for p in during) and end.done
    # Called while frames came in (0.8 s of them), at most once an interval, the counts only growing.
    assert any(0 < p.frames < 80 for p in during)
    assert all(p.elapsed_ns >= (i + 1) * 50_000_000 for i, p in enumerate(during))
    frames = [p.frames for p in got]
    nbytes = [p.bytes for p in got]
    assert frames == sorted(frames) and nbytes == sorted(nbytes)
    assert stats.packets_sent == 80
    assert end.frames == rx.report["received"] == 80 and end.bytes == rx.report["bytes"]
    assert rx.exit_status == 0

def test_rx_progress_callback_ends_capture(veth_pair):
    seen = []
    def cb(p):
        seen.append(p)
        return p.frames >= 20
    with veth_pair.in_b():
        rx = Receiver(veth_pair.if_b, timeout=20, block_timeout=10).start(progress=cb, interval=0.02)
    with veth_pair.in_a():
        sender = Replay(DNS, interface=veth_pair.if_a, pps=1000, loop=0).start()
    report = rx.wait()
    sender.stop(timeout=10)
    during = [p for p in seen if not p.done]
    assert during[-1].frames >= 20 and all(p.frames < 20 for p in during[:-1])
    assert seen[-1].done and seen[-1].frames == report["received"] >= 20
    # Ended by the callback, long before the timeout.
    assert seen[-1].elapsed_ns < 10_000_000_000

def test_rx_progress_callback_raises(veth_pair):
    def cb(p):
        raise KeyError("from the callback")
    with veth_pair.in_b():
        rx = Receiver(veth_pair.if_b, timeout=20).start(progress=cb, interval=0.02)
    with pytest.raises(KeyError, match="from the callback"):
        rx.wait()
    assert rx.report is not None and "received" in rx.report
PY
	(cd "$WORK" && pytest3 -p no:cacheprovider -p replay.pytest_plugin -rA "$WORK/test_rx_progress.py") \
		>"$WORK/out" 2>&1 || die "receiver progress failed: $(cat "$WORK/out")"
	grep -q "4 passed" "$WORK/out" || die "not four passed: $(cat "$WORK/out")"
}

test_threads_progress() {
	cat >"$WORK/test_threads_progress.py" <<'PY'
import os
import pytest
from replay import Replay

TRACES = os.environ["TRACES"]
MIXED = os.path.join(TRACES, "mixed.pcap")  # 40 packets, a dozen flows

@pytest.mark.veth_queues(2)
def test_progress_sums_the_threads(veth_pair):
    assert "numtxqueues 2" in " ".join(os.popen(f"ip -n {veth_pair.ns_a} -d link show {veth_pair.if_a}").read().split())
    with veth_pair.in_a():
        snaps = list(Replay(MIXED, interface=veth_pair.if_a, threads=2, pps=200, loop=5).progress(interval=0.05))
    *during, end = snaps
    # About 1 s: snapshots while both threads send, never two in one interval.
    assert 2 <= len(during) <= end.duration_ns // 50_000_000 + 1
    sent = [s.packets_sent for s in during]
    assert sent == sorted(sent) and sent[-1] <= end.packets_sent == 200
    assert all(s.packets_read >= s.packets_sent for s in during)
    shares = [t["packets_sent"] for t in end.json["threads"]]
    assert len(shares) == 2 and sum(shares) == 200 and min(shares) > 0
    # The sum over the threads, not thread 0's share: more than either sent in all.
    assert sent[-1] > max(shares)
    assert veth_pair.received() == 200
PY
	(cd "$WORK" && pytest3 -p no:cacheprovider -p replay.pytest_plugin -rA "$WORK/test_threads_progress.py") \
		>"$WORK/out" 2>&1 || die "progress with --threads failed: $(cat "$WORK/out")"
	grep -q "1 passed" "$WORK/out" || die "not one passed: $(cat "$WORK/out")"
}

test_ready() {
	cat >"$WORK/test_ready.py" <<'PY'
import os
import threading
from replay import Receiver, Replay

TRACES = os.environ["TRACES"]
DNS = os.path.join(TRACES, "dns.pcap")  # 8 packets

def test_ready_before_the_first_packet(veth_pair):
    seen = []
    with veth_pair.in_b():
        rx = Receiver(veth_pair.if_b, timeout=20, idle=0.5)
        rx.start(ready=lambda: seen.append(("rx", threading.get_ident())))
    # Called once on the receiver's thread, before start() returned.
    assert len(seen) == 1 and seen[0][0] == "rx" and seen[0][1] != threading.get_ident()
    with veth_pair.in_a():
        stats = Replay(DNS, interface=veth_pair.if_a, pps=100).run(
            ready=lambda: seen.append(("tx", threading.get_ident(), veth_pair.received())))
    report = rx.wait()
    # On the run's thread, with nothing sent yet.
    assert seen[1:] == [("tx", threading.get_ident(), 0)]
    assert stats.packets_sent == 8 == report["received"] == veth_pair.received()

def test_ready_true_ends_unsent(veth_pair):
    with veth_pair.in_a():
        stats = Replay(DNS, interface=veth_pair.if_a, pps=100).run(ready=lambda: True)
    assert stats.stopped and stats.packets_sent == 0 and veth_pair.received() == 0
PY
	(cd "$WORK" && pytest3 -p no:cacheprovider -p replay.pytest_plugin -rA "$WORK/test_ready.py") \
		>"$WORK/out" 2>&1 || die "ready callbacks failed: $(cat "$WORK/out")"
	grep -q "2 passed" "$WORK/out" || die "not two passed: $(cat "$WORK/out")"
}

test_output() {
	cat >"$WORK/test_output.py" <<'PY'
import json
import os
import re
import subprocess
import threading
import time
from replay import Receiver, Replay

TRACES = os.environ["TRACES"]
DNS = os.path.join(TRACES, "dns.pcap")  # 8 packets
REPLAY, REPLAY_RX = os.environ["REPLAY"], os.environ["REPLAY_RX"]

def shape(lines):
    # Times, rates and what is said of lateness differ from run to run; which lines, in what
    # order and on which stream may not: each line by its label, numbers masked.
    return [(s, re.sub(r"\d+(\.\d+)?", "N", re.split(r"\s{2,}|:", l.strip())[0])) for s, l in lines]

def exact(lines, starts):
    # The lines that count what arrived, up to where they give a time.
    return [re.sub(r" in [0-9.]+ s(econds)?$", "", l) for _, l in lines if l.startswith(starts)]

def printed(out, err):
    return [("stdout", l) for l in out.splitlines()] + [("stderr", l) for l in err.splitlines()]

def test_replay_lines_are_the_programs(veth_pair):
    got, threads = [], set()
    def out(stream, line):
        got.append((stream, line))
        threads.add(threading.get_ident())
    with veth_pair.in_a():
        stats = Replay(DNS, interface=veth_pair.if_a, pps=1000, loop=2, stats=0).run(output=out)
    cli = subprocess.run(["ip", "netns", "exec", veth_pair.ns_a, REPLAY, "-i", veth_pair.if_a,
                          "--pps", "1000", "--loop", "2", "--stats", "0", DNS],
                         capture_output=True, text=True, check=True)
    assert stats.packets_sent == 16 and threads == {threading.get_ident()}
    # A --stats 0 line pair per pass, then the summary: as replay prints them, where it prints them.
    assert shape(got) == shape(printed(cli.stdout, cli.stderr))
    counts = exact(got, ("Actual:", "Packets:"))
    assert counts == exact(printed(cli.stdout, cli.stderr), ("Actual:", "Packets:"))
    assert len(counts) == 4 and counts[-1] == "Packets: read 16, sent 16, filtered 0, failed 0, retried 0"
    # What the handle keeps is what was handed over.
    assert "\n".join(l for _, l in got) + "\n" == stats.summary

def rx_cli(pair, args):
    p = subprocess.Popen(["ip", "netns", "exec", pair.ns_b, REPLAY_RX, "-i", pair.if_b] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()  # the "listening on" line: the capture is open
    assert first.startswith("replay-rx: listening on "), first
    with pair.in_a():
        Replay(DNS, interface=pair.if_a, pps=1000).run()
    out, err = p.communicate(timeout=30)
    return p.returncode, printed(out, first + err)

def test_receiver_lines_are_the_programs(veth_pair):
    got = []
    with veth_pair.in_b():
        rx = Receiver(veth_pair.if_b, count=8, timeout=20, reference=DNS, json="-")
        rx.start(output=lambda s, l: got.append((s, l)))
    # The "listening on" line comes as the capture opens.
    assert got and got[0][1].startswith("replay-rx: listening on ")
    with veth_pair.in_a():
        Replay(DNS, interface=veth_pair.if_a, pps=1000).run()
    report = rx.wait()
    status, cli = rx_cli(veth_pair, ["-c", "8", "--timeout", "20", "--reference", DNS, "--json", "-"])
    assert report["received"] == 8 and rx.exit_status == status == 0
    assert got[0] == next(x for x in cli if x[0] == "stderr")
    # --json -: the JSON on stdout, the table on stderr, as the program's (each stream in order).
    for stream in ("stdout", "stderr"):
        assert shape(x for x in got if x[0] == stream) == shape(x for x in cli if x[0] == stream)
    counts = exact(got, ("Received:", "Reference:", "  matched", "Verdict:"))
    assert counts == exact(cli, ("Received:", "Reference:", "  matched", "Verdict:"))
    assert len(counts) == 4 and counts[0].startswith("Received: 8 frames (")
    cli_doc = json.loads("\n".join(l for s, l in cli if s == "stdout"))
    assert json.loads("\n".join(l for s, l in got if s == "stdout")) == report
    assert sorted(report) == sorted(cli_doc) and report["received"] == cli_doc["received"]
    assert "\n".join(l for s, l in got[1:] if s == "stderr") + "\n" == rx.table

def test_status_line_and_forwarding_line(veth_pair):
    got = []
    with veth_pair.in_a():
        stats = Replay(DNS, interface=veth_pair.if_a, pps=6).run(output=lambda s, l: got.append((s, l)))
    # About 1.2 s: a status line every 0.5 s, then an empty one, before the summary; not in it.
    status = [i for i, (s, _) in enumerate(got) if s == "status"]
    assert stats.packets_sent == 8 and len(status) >= 2 and got[status[-1]][1] == ""
    assert all(got[i][1] for i in status[:-1]) and status == list(range(len(status)))
    assert "\n".join(l for s, l in got if s != "status") + "\n" == stats.summary
    # --source-interface's line, as the program's, once it listens.
    got = []
    with veth_pair.in_a():
        fwd = Replay([], source_interface="lo", interface=veth_pair.if_a)
        fwd.start(output=lambda s, l: got.append((s, l)))
        time.sleep(0.5)
        fwd.stop(timeout=10)
    assert got[0] == ("stderr", "replay: listening on lo, forwarding to " + veth_pair.if_a)
PY
	(cd "$WORK" && pytest3 -p no:cacheprovider -p replay.pytest_plugin -rA "$WORK/test_output.py") \
		>"$WORK/out" 2>&1 || die "output lines failed: $(cat "$WORK/out")"
	grep -q "3 passed" "$WORK/out" || die "not three passed: $(cat "$WORK/out")"
}

require_root
WORK=$(mktemp -d /tmp/replay-it.XXXXXX)
trap teardown EXIT
run_tests test_example test_failing_test_tears_down test_stop_and_errors test_progress test_rx_progress test_threads_progress test_ready test_output
