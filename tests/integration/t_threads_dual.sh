#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --threads N with two interfaces (-i A -I B): two veth pairs, each end with
# two queues, into one far namespace.  For --split first (and with the
# edits by direction), -c and --dualfile, each far port's capture under
# --threads 2 (and 4) must hold exactly the frames the single-thread run
# delivered on that port, byte for byte, each flow in the same order
# (tests/integration/flow_order.py), and the totals (and each side's) must be
# the single thread's; every thread's account holds on each interface and
# they sum to the sides'.  The first case's trace makes --split first's
# answer for a packet depend on packets of other flows (a host seen first as
# a destination in one flow is a server when it sends in another), so threads
# that classified only their own shard would put frames on the wrong port.
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}"
FLOW_ORDER="$(dirname "$0")/flow_order.py"
# tcpprep 4.6: $TCPPREP, else $ANCHOR_BIN/tcpprep; neither set, its cases are skipped with a note.
TCPPREP=${TCPPREP:-${ANCHOR_BIN:+$ANCHOR_BIN/tcpprep}}

require_root
command -v python3 >/dev/null || die "python3 is not installed"
VETH_QUEUES=2
init_ns
# The second pair, two queues a side (VETH_QUEUES), as lib.sh builds the first.
IF_A2="rta$ID"
IF_B2="rtb$ID"
add_pair "$NS_A" "$IF_A2" "$NS_B" "$IF_B2"
RX2_PID=""
TEARDOWN_PIDS="RX2_PID"

# rx2_start FILE: replay-rx on the second far port, every frame to FILE.
rx2_start() {
	: >"$WORK/rx2.err"
	ip netns exec "$NS_B" "$REPLAY_RX" -i "$IF_B2" --json "$WORK/rx2.json" -s 9216 -w "$1" \
		>"$WORK/rx2.out" 2>"$WORK/rx2.err" &
	RX2_PID=$!
	wait_listening "$RX2_PID" "$WORK/rx2.err" "replay-rx on $IF_B2"
}

rx2_stop() {
	local rc=0
	kill -TERM "$RX2_PID"
	wait "$RX2_PID" || rc=$?
	RX2_PID=""
	[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || die "replay-rx on $IF_B2 exited $rc: $(cat "$WORK/rx2.err")"
	[ "$(json_get "$WORK/rx2.json" kernel_drops)" = 0 ] ||
		die "the capture on $IF_B2 itself dropped frames: $(cat "$WORK/rx2.out")"
}

# two_ports NAME REPLAY-ARGS...: replay -i A -I A2 REPLAY-ARGS; each far port's frames to
# $WORK/NAME.1.pcap and NAME.2.pcap, the statistics to NAME.json; each port received what
# replay says it sent there.
two_ports() {
	local name=$1 js="$WORK/$1.json"
	shift
	capture_start "$WORK/$name.1.pcap"
	rx2_start "$WORK/$name.2.pcap"
	in_a "$REPLAY" -q -i "$IF_A" -I "$IF_A2" --stats-json "$js" "$@" || die "$name: replay exited $?"
	capture_stop
	rx2_stop
	check_invariant "$js"
	python3 - "$js" "$RX_JSON" "$WORK/rx2.json" <<'EOF' || die "$name: a port did not receive what was sent on it"
import json, sys
j = json.load(open(sys.argv[1]))
for side, rx in (("intf1", sys.argv[2]), ("intf2", sys.argv[3])):
    got = json.load(open(rx))["received"]
    assert got == j[side]["packets_sent"], (side, got, j[side]["packets_sent"])
EOF
}

# threads_dual NAME N REPLAY-ARGS...: one thread, then --threads N, with REPLAY-ARGS:
# each port gets the same frames, each flow in the same order; the same totals.
threads_dual() {
	local name=$1 n=$2 one="$WORK/$1.one.json" many="$WORK/$1.threads.json" k
	shift 2
	two_ports "$name.one" --threads 1 "$@" # none given: top speed would take two here (threads_auto.h)
	two_ports "$name.threads" --threads "$n" --cpu 0,1 "$@"
	for k in 1 2; do
		python3 "$FLOW_ORDER" "$WORK/$name.one.$k.pcap" "$WORK/$name.threads.$k.pcap" >"$WORK/order" ||
			die "$name: port $k under --threads $n differs from one thread's: $(cat "$WORK/order")"
		info "$name: port $k: $(cat "$WORK/order")"
	done
	python3 - "$one" "$many" "$n" <<'EOF' || die "$name: the accounts do not hold (above)"
import json, sys
one = json.load(open(sys.argv[1]))
j = json.load(open(sys.argv[2]))
n = int(sys.argv[3])
keys = ("packets_read", "packets_sent", "packets_filtered", "packets_failed", "bytes_sent")
# Both ports carried frames, and nothing failed: the case tests something.
for side in ("intf1", "intf2"):
    assert one[side]["packets_sent"] > 0, ("one thread sent nothing on", side)
assert one["packets_failed"] == 0 and j["packets_failed"] == 0, (one["packets_failed"], j["packets_failed"])
# The totals, and each side's, are the single thread's.
for k in keys:
    assert j[k] == one[k], (k, j[k], one[k])
    for side in ("intf1", "intf2"):
        assert j[side][k] == one[side][k], (side, k, j[side][k], one[side][k])
# A flow lives in one thread: the merged flow statistics are the single thread's.
assert j["flows"] == dict(one["flows"], fps=j["flows"]["fps"]), (j["flows"], one["flows"])
ts = j["threads"]
assert len(ts) == n, ("threads in the JSON", len(ts))
busy = 0
for t in ts:
    # Each thread: read = sent + filtered + failed, in total and on each side; the sides sum to its total.
    assert t["packets_read"] == t["packets_sent"] + t["packets_filtered"] + t["packets_failed"], t
    for side in ("intf1", "intf2"):
        s = t[side]
        assert s["packets_read"] == s["packets_sent"] + s["packets_filtered"] + s["packets_failed"], (side, t)
    for k in keys:
        assert t[k] == t["intf1"][k] + t["intf2"][k], (k, t)
    busy += t["intf1"]["packets_sent"] > 0 and t["intf2"]["packets_sent"] > 0
# The threads' accounts on each side sum to the side's.
for side in ("intf1", "intf2"):
    for k in keys:
        assert sum(t[side][k] for t in ts) == j[side][k], (side, k)
assert busy >= 2, "fewer than two threads sent on both ports: the flows did not spread"
EOF
}

# A trace where --split first places one flow's packets by another flow's: host 10.0.1.i is
# first a destination (flow A_i, from 10.0.0.1), then sends in flow B_i (to 10.0.2.i):
# a server, so B_i's requests go by intf2 -- by intf1 to a classifier that missed A_i.
python3 - "$WORK/cross.pcap" <<'EOF'
import struct, sys

def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF)
    return ~(s + (s >> 16)) & 0xFFFF

def udp(src, dst, sport, dport, seq):
    payload = struct.pack("!Q", seq) + bytes(range(30))
    u = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(u), seq & 0xFFFF, 0, 64, 17, 0, bytes(src), bytes(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00" + ip + u

frames = []
def flow(i, rnd):
    a, b, c = [10, 0, 0, 1], [10, 0, 1, i], [10, 0, 2, i]
    return [udp(a, b, 1000 + i, 80, rnd), udp(b, a, 80, 1000 + i, rnd),
            udp(b, c, 2000 + i, 53, rnd), udp(c, b, 53, 2000 + i, rnd)]
for i in range(64):  # every A_i first
    frames.append(flow(i, 0)[0])
for rnd in range(1, 40):
    for i in range(64):
        frames += flow(i, rnd)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for n, fr in enumerate(frames):
        t = 1704067200 * 10**6 + n * 20
        f.write(struct.pack("<IIII", t // 10**6, t % 10**6, len(fr), len(fr)) + fr)
EOF
"$GENTRACE" pingpong -o "$WORK/pingpong.pcap" --count 10000 --gap-ns 2000 --flows 64 --size 128 >/dev/null
"$GENTRACE" udp -o "$WORK/udp.pcap" --count 5000 --gap-ns 3000 --flows 32 --size 96 >/dev/null
INPUTS=("$WORK/cross.pcap" "$TRACES/http.pcap" "$TRACES/http6.pcap" "$TRACES/dns.pcap" "$TRACES/mixed.pcap"
	"$WORK/pingpong.pcap")

test_split_first() {
	threads_dual split-first 2 --topspeed --split first "${INPUTS[@]}"
	threads_dual split-first4 4 --topspeed --split first "${INPUTS[@]}"
}

test_split_client() {
	# client learns the whole trace before sending: each thread's classifier learns it too.
	threads_dual split-client 2 --topspeed --split client "$WORK/cross.pcap" "$TRACES/http.pcap"
}

# Is method $1 built in?
built() { ! "$REPLAY" --method "$1" -i lo /dev/null 2>&1 | grep -q "is not one of"; }

test_xdp() {
	if ! built xdp; then
		info "SKIP xdp: not built in"
		return 0
	fi
	# AF_XDP: thread i binds queue i of each interface.
	threads_dual split-xdp 2 --topspeed --method xdp --split first "$WORK/cross.pcap" "$WORK/pingpong.pcap"
	python3 - "$WORK/split-xdp.threads.json" <<'EOF' || die "xdp: a thread not on its queue of each interface"
import json, sys
for t in json.load(open(sys.argv[1]))["threads"]:
    for side in ("intf1", "intf2"):
        assert t[side]["method_mode"].startswith("copy mode, queue %d" % t["thread"]), (side, t)
EOF
	# -K: one copy; each thread's socket on each port registers it and sends its frames in place.
	threads_dual split-xdp-K 2 --topspeed -K --method xdp --xdp-in-place --split first "$WORK/pingpong.pcap"
	python3 - "$WORK/split-xdp-K.threads.json" <<'EOF' || die "xdp -K: a socket not sending in place"
import json, sys
for t in json.load(open(sys.argv[1]))["threads"]:
    for side in ("intf1", "intf2"):
        assert t[side]["method_mode"] == "copy mode, queue %d, frames sent in place from the preload" % t["thread"], (side, t)
EOF
}

test_split_first_timed() {
	# At recorded timing (10x): one schedule across both ports and both threads.
	threads_dual split-first-timed 2 --speed 10 --split first "$WORK/cross.pcap" "$TRACES/dns.pcap"
}

test_split_edits_by_side() {
	# The pair forms and -e take each packet's side: every thread must give the same one.
	# UDP flows only, told apart by their ports: the rewritten frames of different flows
	# (ARP's, say, keyed by their MAC pair) would look like one flow to flow_order.py.
	threads_dual split-edits 2 --topspeed --split first --enet-dmac 02:00:00:00:aa:01,02:00:00:00:bb:01 \
		--enet-smac 02:00:00:00:aa:02,02:00:00:00:bb:02 -e 10.9.0.1:10.9.0.2 "$WORK/cross.pcap" \
		"$WORK/pingpong.pcap"
	grep -q '"thread":1' "$WORK/split-edits.threads.json" || die "split-edits: no thread 1 in the JSON"
	# Both --pnat maps: the first for intf1's packets, the second for intf2's.
	threads_dual split-pnat 2 --topspeed --split first --pnat 10.0.0.0/16:172.16.0.0/16 \
		--pnat 10.0.0.0/16:172.17.0.0/16 "$WORK/cross.pcap" "$WORK/pingpong.pcap"
}

test_cachefile() {
	if [ ! -x "$TCPPREP" ]; then
		info "SKIP -c: no tcpprep at '$TCPPREP' (set TCPPREP or ANCHOR_BIN)"
		return 0
	fi
	"$TCPPREP" -a client -i "$WORK/cross.pcap" -o "$WORK/cross.cache" >/dev/null ||
		die "tcpprep could not write the cache"
	threads_dual cache 2 --topspeed -c "$WORK/cross.cache" "$WORK/cross.pcap"
}

test_dualfile() {
	threads_dual dualfile 2 --topspeed --dualfile "$WORK/udp.pcap" "$WORK/pingpong.pcap" \
		"$TRACES/http.pcap" "$TRACES/dns.pcap"
}

test_summary_lines() {
	local out="$WORK/summary.out"
	in_a "$REPLAY" -i "$IF_A" -I "$IF_A2" --topspeed --threads 2 --split first "$TRACES/http.pcap" \
		"$TRACES/dns.pcap" >"$out" || die "summary run exited $?"
	[ "$(grep -c '^Thread [01]' "$out")" -eq 2 ] || die "no line per thread: $(cat "$out")"
	[ "$(grep -c "^  intf1 .*on $IF_A: read" "$out")" -eq 2 ] || die "no intf1 line per thread: $(cat "$out")"
	[ "$(grep -c "^  intf2 .*on $IF_A2: read" "$out")" -eq 2 ] || die "no intf2 line per thread: $(cat "$out")"
	grep -q '^Packets: read 48, sent 48' "$out" || die "merged totals wrong: $(cat "$out")"
}

run_tests test_split_first test_split_client test_xdp test_split_first_timed test_split_edits_by_side test_cachefile test_dualfile \
	test_summary_lines
