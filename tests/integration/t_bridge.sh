#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# replay bridge: three namespaces, A -- veth -- (M: the bridge, IF_M1 and
# IF_M2) -- veth -- B.  A UDP echo answers from B to A and from A to B
# through the bridge; a replayed trace from A arrives at B frame for frame
# and byte for byte, and one from B at A; with --loss-ab 100% A's trace is
# all dropped and B's all arrives; an impairment trace given with
# --impair-ab drops exactly its listed frames from A's trace and leaves
# B's whole, with --impair both lose them, and with --impair-flow only the
# flow it selects takes its actions; a delay of 20 ms raises the echo's round
# trip by at least that; curl in A fetches files of 1 KiB to 20 MiB from
# nginx in B byte for byte, every frame either host sends arriving unchanged
# and counted, and again with 5 ms of delay each way and 1% loss on the
# files' way (TCP retransmits through the bridge); ping's least round trip
# rises by the delays, 20 ms with --delay 10ms and 10 ms with --delay-ab
# 10ms, within 1 ms; 20000 distinct frames at 20000/s each arrive once, in
# order; a SIGINT with frames held fails them, counted, in
# one line; a frame the output port's MTU cannot carry fails, said once;
# with --enet-dmac-ab and --ttl-ba each far side gets exactly its
# direction's edits, as replay -w makes them; with --unidir only A's trace
# crosses; --mac keeps back frames from the ports' MACs and from a MAC
# learned on the other side; --no-martians IPv4 to 0/8, 127/8, 255/8; each
# --poll mode forwards held frames and stops at SIGINT; a bridge stopped
# twice under a steady flow, shorter and longer than the delay, loses nothing
# at its queue; GRO on a port is warned about at the start; and the
# refusals.  Each direction's counts are checked in --stats-json.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}" "${GENTRACE:?}"

NS_M="rpl-m-$ID"
IF_M1="rpm$ID"
IF_M2="rpn$ID"
ADDR_A=10.77.0.1
ADDR_B=10.77.0.2
BR_PID=""
ECHO_PID=""
TDA_PID=""
NGINX_PID=""
CAPA_PID=""
CAPB_PID=""
TEARDOWN_PIDS="BR_PID ECHO_PID TDA_PID NGINX_PID CAPA_PID CAPB_PID"

require_root
# Debian's python3, not a version manager's shim (seconds a start on a loaded machine).
PY=$(command -v /usr/bin/python3 || command -v python3)

WORK=$(mktemp -d /tmp/replay-it.XXXXXX)
trap teardown EXIT
trap 'exit 130' INT TERM
add_ns "$NS_A"
add_ns "$NS_B"
add_ns "$NS_M"
add_pair "$NS_A" "$IF_A" "$NS_M" "$IF_M1"
add_pair "$NS_B" "$IF_B" "$NS_M" "$IF_M2"
"$GENTRACE" udp -o "$WORK/t.pcap" --count 200 --size 200 --gap-us 200 >/dev/null
"$GENTRACE" udp -o "$WORK/big.pcap" --count 20 --size 1400 --gap-us 200 >/dev/null

# br_start NAME OPTIONS...: the bridge IF_M1 <-> IF_M2 in M, in the background; returns once it listens.
br_start() {
	local name=$1
	shift
	: >"$WORK/$name.err"
	# $! must be replay itself (ip netns exec execs it), not a subshell.
	ip netns exec "$NS_M" "$REPLAY" bridge --stats-json "$WORK/$name.json" "$@" "$IF_M1" "$IF_M2" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" &
	BR_PID=$!
	wait_listening "$BR_PID" "$WORK/$name.err" "the bridge"
}

# br_stop NAME STATUS: SIGINT the bridge; it exits STATUS.
br_stop() {
	local rc=0
	kill -INT "$BR_PID"
	wait "$BR_PID" || rc=$?
	BR_PID=""
	[ "$rc" -eq "$2" ] || die "$1: the bridge exited $rc, expected $2: $(cat "$WORK/$1.out" "$WORK/$1.err")"
}

# dir NAME ab|ba KEY: a direction's count from the bridge's --stats-json.
dir() {
	"$PY" - "$WORK/$1.json" "$2" "$3" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
d = [x for x in j["directions"] if x["direction"] == sys.argv[2]][0]
print(d[sys.argv[3]])
PY
}

# accounts NAME: in each direction received + copies = forwarded + dropped + failed, and
# the kernel handed the input ring only what the bridge received or the ring dropped (nothing
# the bridge itself sent out of that port).
accounts() {
	"$PY" - "$WORK/$1.json" <<'PY' || die "$1: the bridge's accounts do not add up"
import json, sys
for d in json.load(open(sys.argv[1]))["directions"]:
    lhs = d["received"] + d["copies"]
    rhs = (d["forwarded"] + d["dropped_impair"] + d["dropped_limit"] + d["dropped_edit"] + d["failed"]
           + d["dropped_own_mac"] + d["dropped_learned"] + d["dropped_martian"])
    if lhs != rhs:
        sys.exit("%s: received %d + copies %d != %d: %r" % (d["direction"], d["received"], d["copies"], rhs, d))
    if d["kernel_captured"] != d["received"] + d["kernel_dropped"]:
        sys.exit("%s: the kernel captured %d, but %d were received and %d dropped: %r"
                 % (d["direction"], d["kernel_captured"], d["received"], d["kernel_dropped"], d))
PY
}

# td_start NS IF FILE / td_stop: tcpdump of what arrives on IF in NS (a second one beside lib.sh's on B).
td_start() {
	: >"$WORK/tda.err"
	ip netns exec "$1" tcpdump -i "$2" -Q in -s 2048 -B 65536 -U --immediate-mode -Z root \
		--time-stamp-precision=nano -w "$3" udp 2>"$WORK/tda.err" &
	TDA_PID=$!
	wait_listening "$TDA_PID" "$WORK/tda.err" tcpdump
}

td_stop() {
	sleep 0.3
	kill -TERM "$TDA_PID"
	wait "$TDA_PID" || true
	TDA_PID=""
}

# frames FILE: the frames in a capture.
frames() { tcpdump -r "$1" 2>/dev/null | wc -l; }

# echo_rtt FROM_NS TO_ADDR N: N UDP probes, 50 ms apart, each waited 2 s for; prints "answered min_ms".
# The echo server runs in the other namespace (echo_start).
echo_rtt() {
	ip netns exec "$1" "$PY" - "$2" "$3" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2.0)
n, best = 0, None
for i in range(int(sys.argv[2])):
    t = time.monotonic()
    s.sendto(b"probe %d" % i, (sys.argv[1], 7777))
    try:
        while True:
            d, _ = s.recvfrom(100)
            if d == b"probe %d" % i:
                break
        rtt = (time.monotonic() - t) * 1000
        n += 1
        best = rtt if best is None else min(best, rtt)
    except socket.timeout:
        pass
    time.sleep(0.05)
print(n, "%.3f" % (best if best is not None else -1))
PY
}

# echo_start NS ADDR: a UDP echo server on ADDR:7777 in NS.
echo_start() {
	ip netns exec "$1" "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 7777))
print("listening on", sys.argv[1], file=sys.stderr, flush=True)
while True:
    d, a = s.recvfrom(2048)
    s.sendto(d, a)
' "$2" 2>"$WORK/echo.err" &
	ECHO_PID=$!
	wait_listening "$ECHO_PID" "$WORK/echo.err" "the echo server"
}

echo_stop() {
	kill -TERM "$ECHO_PID" 2>/dev/null || true
	wait "$ECHO_PID" 2>/dev/null || true
	ECHO_PID=""
}

# A replayed trace from A arrives at B whole, and one from B at A; each direction counted.
test_traces() {
	br_start traces
	tcpdump_start "$WORK/atob.pcap" 2048
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/t.pcap" || die "the replay from A failed"
	tcpdump_stop
	td_start "$NS_A" "$IF_A" "$WORK/btoa.pcap"
	in_b "$REPLAY" -q -i "$IF_B" "$WORK/t.pcap" || die "the replay from B failed"
	td_stop
	br_stop traces 130
	"$PCAPDIFF" "$WORK/t.pcap" "$WORK/atob.pcap" >"$WORK/diff" || die "A -> B differs: $(cat "$WORK/diff")"
	"$PCAPDIFF" "$WORK/t.pcap" "$WORK/btoa.pcap" >"$WORK/diff" || die "B -> A differs: $(cat "$WORK/diff")"
	for d in ab ba; do
		[ "$(dir traces $d received)" -eq 200 ] && [ "$(dir traces $d forwarded)" -eq 200 ] &&
			[ "$(dir traces $d failed)" -eq 0 ] ||
			die "traces: $d: $(dir traces $d received) received, $(dir traces $d forwarded) forwarded, expected 200 and 200"
	done
	[ "$(dir traces ab bytes)" -eq $((200 * 200)) ] || die "traces: ab: $(dir traces ab bytes) bytes forwarded"
	accounts traces
	grep -q "^$IF_M1 -> $IF_M2: 200 received, 200 forwarded (40000 bytes), 0 dropped by impairment, 0 dropped by the limit, 0 failed$" \
		"$WORK/traces.out" || die "traces: no (or a wrong) summary line: $(cat "$WORK/traces.out")"
	info "200 frames each way, byte for byte"
}

# A UDP echo both ways, and its round trip with 20 ms of delay one way and both.
test_echo() {
	local got rtt
	ip -n "$NS_A" addr add "$ADDR_A/24" dev "$IF_A"
	ip -n "$NS_B" addr add "$ADDR_B/24" dev "$IF_B"
	# The hosts' stacks fill their UDP checksums themselves: over veth, a frame with its checksum
	# left to offload is captured with it unfilled, and would leave the bridge so.
	in_a ethtool -K "$IF_A" tx off >/dev/null
	in_b ethtool -K "$IF_B" tx off >/dev/null
	br_start echo
	echo_start "$NS_B" "$ADDR_B"
	got=$(echo_rtt "$NS_A" "$ADDR_B" 5)
	[ "${got%% *}" = 5 ] || die "echo A -> B -> A: $got answered of 5"
	echo_stop
	echo_start "$NS_A" "$ADDR_A"
	got=$(echo_rtt "$NS_B" "$ADDR_A" 5)
	[ "${got%% *}" = 5 ] || die "echo B -> A -> B: $got answered of 5"
	echo_stop
	br_stop echo 130
	info "echo answered both ways"
	echo_start "$NS_B" "$ADDR_B"
	for spec in "--delay-ab 20ms:20" "--delay 20ms:40"; do
		br_start delay ${spec%%:*}
		got=$(echo_rtt "$NS_A" "$ADDR_B" 5)
		br_stop delay 130
		rtt=${got#* }
		[ "${got%% *}" = 5 ] || die "echo with ${spec%%:*}: $got answered of 5"
		# A lower bound only: the machine is shared.
		"$PY" -c "import sys; sys.exit(float('$rtt') < ${spec##*:})" ||
			die "echo with ${spec%%:*}: round trip $rtt ms, at least ${spec##*:} expected"
		info "round trip with ${spec%%:*}: $rtt ms"
	done
	echo_stop
	ip -n "$NS_A" addr flush dev "$IF_A"
	ip -n "$NS_B" addr flush dev "$IF_B"
}

# need TOOL...: 0 if each is installed; else a note (a failure under CI=true) and 1: the test is
# not run.
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null && continue
		[ "${CI:-}" = true ] && die "$t is not installed (scripts/deps.sh installs it)"
		info "SKIP: $t is not installed (scripts/deps.sh installs it)"
		return 1
	done
}

# hosts_up: A and B addressed as test_echo's, their veths sending only whole, checksummed
# frames: the stacks fill their checksums (tx off, as test_echo says why), and with TSO and GSO
# off, whatever the kernel makes of tx off alone, TCP hands the veth no frame longer than the
# MTU, which the bridge's capture, cut at its snapshot length, would count too long and fail
# (GRO off: nothing is merged on the way in either).
hosts_up() {
	local ns_if
	ip -n "$NS_A" addr add "$ADDR_A/24" dev "$IF_A"
	ip -n "$NS_B" addr add "$ADDR_B/24" dev "$IF_B"
	for ns_if in "$NS_A $IF_A" "$NS_B $IF_B"; do
		# shellcheck disable=SC2086 # two words
		set -- $ns_if
		ip netns exec "$1" ethtool -K "$2" tx off tso off gso off gro off >/dev/null
	done
}

hosts_down() {
	ip -n "$NS_A" addr flush dev "$IF_A"
	ip -n "$NS_B" addr flush dev "$IF_B"
}

# caps_start: every frame in and out of A's and of B's veth, whole, to $WORK/cap-a.pcap and
# $WORK/cap-b.pcap.  caps_stop: both stopped together once the last frames are written; neither
# dropped a frame.
caps_start() {
	ip netns exec "$NS_A" tcpdump -i "$IF_A" -s 2048 -B 65536 -U --immediate-mode -Z root \
		-w "$WORK/cap-a.pcap" 2>"$WORK/cap-a.err" &
	CAPA_PID=$!
	ip netns exec "$NS_B" tcpdump -i "$IF_B" -s 2048 -B 65536 -U --immediate-mode -Z root \
		-w "$WORK/cap-b.pcap" 2>"$WORK/cap-b.err" &
	CAPB_PID=$!
	wait_listening "$CAPA_PID" "$WORK/cap-a.err" "tcpdump on A"
	wait_listening "$CAPB_PID" "$WORK/cap-b.err" "tcpdump on B"
}

caps_stop() {
	local h
	sleep 0.3
	kill -TERM "$CAPA_PID" "$CAPB_PID"
	wait "$CAPA_PID" || true
	wait "$CAPB_PID" || true
	CAPA_PID=""
	CAPB_PID=""
	for h in a b; do
		if grep -qE "^[1-9][0-9]* packets dropped by kernel" "$WORK/cap-$h.err"; then
			die "tcpdump on $h dropped frames: $(cat "$WORK/cap-$h.err")"
		fi
	done
}

# crossed NAME EXACT: the frames each host sent (by source MAC, in caps_start's captures) against
# those the other received: none arrived that was not sent byte for byte (nothing corrupted,
# made or doubled), as many arrived as the bridge's --stats-json NAME counts forwarded, and its
# port's ring was handed as many as were sent.  EXACT 1: every frame sent arrived.  Prints
# "AB BA", the frames that arrived each way.
crossed() {
	local mac_a mac_b
	mac_a=$(in_a cat "/sys/class/net/$IF_A/address")
	mac_b=$(in_b cat "/sys/class/net/$IF_B/address")
	"$PY" - "$WORK/cap-a.pcap" "$WORK/cap-b.pcap" "$WORK/$1.json" "$2" "$mac_a" "$mac_b" <<'PY' || die "$1: the frames that crossed are not those sent (above)"
import collections, json, struct, sys

def frames(path):
    with open(path, "rb") as f:
        b = f.read()
    magic = struct.unpack("<I", b[:4])[0]
    if magic not in (0xa1b2c3d4, 0xa1b23c4d):
        sys.exit("%s: not a little-endian pcap" % path)
    off, out = 24, []
    while off < len(b):
        caplen, wirelen = struct.unpack("<II", b[off + 8:off + 16])
        if caplen != wirelen:
            sys.exit("%s: a frame of %d bytes captured cut to %d" % (path, wirelen, caplen))
        out.append(b[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return out

capa, capb, js, exact = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
mac = {h: bytes.fromhex(m.replace(":", "")) for h, m in (("a", sys.argv[5]), ("b", sys.argv[6]))}
fa, fb = frames(capa), frames(capb)
dirs = {d["direction"]: d for d in json.load(open(js))["directions"]}
n = []
for name, sent, got, src in (("ab", fa, fb, mac["a"]), ("ba", fb, fa, mac["b"])):
    s = collections.Counter(f for f in sent if f[6:12] == src)
    g = collections.Counter(f for f in got if f[6:12] == src)
    extra = g - s
    if extra:
        sys.exit("%s: %d frames arrived that were not sent so (corrupted or doubled)" % (name, sum(extra.values())))
    d, ng, ns = dirs[name], sum(g.values()), sum(s.values())
    if ng != d["forwarded"]:
        sys.exit("%s: %d frames arrived, the bridge forwarded %d" % (name, ng, d["forwarded"]))
    if ns != d["kernel_captured"]:
        sys.exit("%s: %d frames sent, the bridge's ring was handed %d" % (name, ns, d["kernel_captured"]))
    if exact and ng != ns:
        sys.exit("%s: %d frames sent, %d arrived" % (name, ns, ng))
    if ns < 100:
        sys.exit("%s: only %d frames sent: the captures missed the traffic" % (name, ns))
    n.append(str(ng))
print(" ".join(n))
PY
}

# fetch NAME FILE...: curl in A fetches each FILE from nginx in B in one connection; each arrives
# byte for byte.
fetch() {
	local name=$1 f urls=()
	shift
	rm -rf "$WORK/got"
	mkdir "$WORK/got"
	for f in "$@"; do
		urls+=(-o "$WORK/got/$f" "http://$ADDR_B/$f")
	done
	# A hang guard: the files take a few seconds at most, with loss and a sanitizer build.
	in_a timeout 60 curl -sS -f --connect-timeout 10 "${urls[@]}" 2>"$WORK/curl.err" ||
		die "$name: curl exited $? (124: timed out): $(cat "$WORK/curl.err"); the bridge: $(cat "$WORK/$name.err")"
	for f in "$@"; do
		[ "$(sha256sum <"$WORK/got/$f")" = "$(sha256sum <"$WORK/www/$f")" ] ||
			die "$name: $f arrived different ($(stat -c %s "$WORK/got/$f") bytes of $(stat -c %s "$WORK/www/$f"))"
	done
}

# closed: until neither host has a TCP connection to or from port 80 but in TIME-WAIT (the
# last FIN acknowledged: nothing more will be sent), 20 s at most.
closed() {
	local ns open
	for _ in $(seq 200); do
		open=""
		for ns in "$NS_A" "$NS_B"; do
			open+=$(ip netns exec "$ns" ss -Htan state connected exclude time-wait '( sport = :80 or dport = :80 )')
		done
		[ -z "$open" ] && return 0
		sleep 0.1
	done
	die "the HTTP connection did not close: $(in_a ss -tan; in_b ss -tan)"
}

# no_failures NAME [KEY...]: nothing failed, was cut or too long or held at the stop, nor
# counted in any KEY.
no_failures() {
	local name=$1 d k
	shift
	for d in ab ba; do
		for k in failed too_long held_at_stop "$@"; do
			[ "$(dir "$name" $d $k)" -eq 0 ] || die "$name: $d: $k $(dir "$name" $d $k): $(cat "$WORK/$name.err")"
		done
	done
}

# HTTP through the bridge: curl in A fetches files of random bytes from nginx in B, each
# byte for byte; every frame either host sent arrives unchanged at the other, as many as the
# bridge counts forwarded (TCP would hide a frame dropped or corrupted by retransmitting it).
# Then with 5 ms of delay each way and 1% loss B -> A, the files' way: TCP retransmits through
# the bridge, the files still arrive whole, and each frame that arrives is one its host sent.
test_http() {
	local n files=(1k.bin 1m.bin 20m.bin)
	need nginx curl sha256sum || return 0
	mkdir -p "$WORK/www"
	head -c 1024 /dev/urandom >"$WORK/www/1k.bin"
	head -c $((1 << 20)) /dev/urandom >"$WORK/www/1m.bin"
	head -c $((20 << 20)) /dev/urandom >"$WORK/www/20m.bin"
	hosts_up
	nginx_start "$ADDR_B" "$WORK/www"
	br_start http
	caps_start
	fetch http "${files[@]}"
	closed
	br_stop http 130
	caps_stop
	no_failures http kernel_dropped
	accounts http
	n=$(crossed http 1)
	info "http: ${files[*]} byte for byte; frames A -> B, B -> A: $n, each as sent"
	br_start http-loss --delay 5ms --loss-ba 1% --impair-seed 7
	caps_start
	fetch http-loss "${files[@]}"
	closed
	br_stop http-loss 130
	caps_stop
	no_failures http-loss
	accounts http-loss
	[ "$(dir http-loss ba dropped_impair)" -gt 0 ] || die "http-loss: the model dropped nothing B -> A"
	[ "$(dir http-loss ab dropped_impair)" -eq 0 ] || die "http-loss: the model dropped A -> B"
	n=$(crossed http-loss 0)
	info "http with --delay 5ms --loss-ba 1%: byte for byte; frames A -> B, B -> A: $n;" \
		"$(dir http-loss ba dropped_impair) dropped B -> A by the model; dropped before capture" \
		"(the ring full): $(dir http-loss ab kernel_dropped) A -> B, $(dir http-loss ba kernel_dropped) B -> A"
	nginx_stop
	hosts_down
}

# ping_min: 20 pings from A to B, 50 ms apart; prints the least round trip, ms.
ping_min() {
	local out
	out=$(in_a ping -q -n -c 20 -i 0.05 -W 2 "$ADDR_B" 2>&1) || die "ping: $out"
	grep -q "20 packets transmitted, 20 received" <<<"$out" || die "ping: $out"
	sed -n 's|^rtt min/avg/max/mdev = \([0-9.]*\)/.*|\1|p' <<<"$out"
}

# ping's least round trip through the plain bridge, then with --delay 10ms (both ways) and
# --delay-ab 10ms: it rises by the delays, 20 and 10 ms, within 1 ms.  The minimum, not the
# mean: a loaded machine delays some probes, never all of them.
test_ping_rtt() {
	local base got spec
	need ping || return 0
	hosts_up
	br_start ping
	base=$(ping_min)
	br_stop ping 130
	for spec in "--delay 10ms:20" "--delay-ab 10ms:10"; do
		# shellcheck disable=SC2086 # an option and its value
		br_start ping-delay ${spec%%:*}
		got=$(ping_min)
		br_stop ping-delay 130
		"$PY" -c "import sys; sys.exit(abs(float('$got') - float('$base') - ${spec##*:}) > 1)" ||
			die "ping with ${spec%%:*}: least round trip $got ms, the plain bridge's $base ms: not ${spec##*:} ms more, within 1 ms"
		info "ping with ${spec%%:*}: least round trip $got ms, plain $base ms"
	done
	hosts_down
}

# 20000 distinct frames (each with its own sequence number) at 20000 frames/s from A: each
# arrives at B once, in order, byte for byte.  The bridge's rings of 8 MiB (-B): a sanitizer
# build on a loaded machine may fall behind by more than the default holds.
test_no_doubles() {
	"$GENTRACE" udp -o "$WORK/many.pcap" --count 20000 --size 100 --gap-us 50 >/dev/null
	br_start doubles -B 8192
	tcpdump_start "$WORK/atob.pcap" 2048
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/many.pcap" || die "the replay from A failed"
	tcpdump_stop
	br_stop doubles 130
	"$PY" - "$WORK/many.pcap" "$WORK/atob.pcap" <<'PY' || die "doubles: a frame arrived twice (above)"
import collections, struct, sys

def frames(path):
    with open(path, "rb") as f:
        b = f.read()
    off, out = 24, []
    while off < len(b):
        caplen = struct.unpack("<I", b[off + 8:off + 12])[0]
        out.append(b[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return out

sent, got = frames(sys.argv[1]), frames(sys.argv[2])
if len(set(sent)) != len(sent):
    sys.exit("the trace's frames are not all distinct")
twice = [f for f, n in collections.Counter(got).items() if n > 1]
if twice:
    sys.exit("%d frames arrived more than once, of %d" % (len(twice), len(got)))
PY
	"$PCAPDIFF" "$WORK/many.pcap" "$WORK/atob.pcap" >"$WORK/diff" || die "doubles: A -> B differs: $(cat "$WORK/diff")"
	[ "$(dir doubles ab received)" -eq 20000 ] && [ "$(dir doubles ab forwarded)" -eq 20000 ] &&
		[ "$(dir doubles ab kernel_dropped)" -eq 0 ] && [ "$(dir doubles ab failed)" -eq 0 ] ||
		die "doubles: ab counts wrong: $(cat "$WORK/doubles.json")"
	accounts doubles
	info "20000 distinct frames at 20000/s: each arrived once, in order"
}

# --loss-ab 100%: A's trace is all dropped at the bridge, B's all arrives at A.
test_loss_one_way() {
	br_start loss --loss-ab 100%
	tcpdump_start "$WORK/atob.pcap" 2048
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/t.pcap" || die "the replay from A failed"
	tcpdump_stop
	td_start "$NS_A" "$IF_A" "$WORK/btoa.pcap"
	in_b "$REPLAY" -q -i "$IF_B" "$WORK/t.pcap" || die "the replay from B failed"
	td_stop
	br_stop loss 130
	[ "$(frames "$WORK/atob.pcap")" -eq 0 ] || die "loss: $(frames "$WORK/atob.pcap") frames crossed A -> B"
	"$PCAPDIFF" "$WORK/t.pcap" "$WORK/btoa.pcap" >"$WORK/diff" || die "loss: B -> A differs: $(cat "$WORK/diff")"
	[ "$(dir loss ab received)" -eq 200 ] && [ "$(dir loss ab dropped_impair)" -eq 200 ] &&
		[ "$(dir loss ab forwarded)" -eq 0 ] || die "loss: ab counts wrong: $(cat "$WORK/loss.json")"
	[ "$(dir loss ba forwarded)" -eq 200 ] && [ "$(dir loss ba dropped_impair)" -eq 0 ] ||
		die "loss: ba counts wrong: $(cat "$WORK/loss.json")"
	accounts loss
	info "A -> B all dropped, B -> A all forwarded"
}

# imp NAME ab|ba KEY: a direction's impairment count from the bridge's --stats-json ("none"
# when the direction has no impairment).
imp() {
	"$PY" - "$WORK/$1.json" "$2" "$3" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
d = [x for x in j["directions"] if x["direction"] == sys.argv[2]][0]
print(d["impairment"][sys.argv[3]] if "impairment" in d else "none")
PY
}

# An impairment trace that drops packets 3, 7, 50 and 199 of 199 actions (the 200th takes the
# default, pass): with --impair-ab B gets exactly the other 196, byte for byte, as replay -w
# --exclude writes them, and A all 200 untouched; with --impair each direction reads the trace
# from its start, so both lose the same four.  With --impair-flow only the second flow's frames
# take actions: its 2nd and 4th (packets 4 and 8) dropped, the other flow's frames unmatched.
test_drop_trace() {
	local name d
	"$PY" -c '
import sys
for n in range(1, 200):
    print("drop" if n in (3, 7, 50, 199) else "pass")' >"$WORK/drop.txt"
	"$REPLAY" -q -w "$WORK/drop-want.pcap" --exclude P:3,7,50,199 "$WORK/t.pcap" ||
		die "drop trace: replay -w --exclude failed"
	[ "$(frames "$WORK/drop-want.pcap")" -eq 196 ] || die "drop trace: the expected capture is not 196 frames"
	for name in drop-ab drop-both; do
		if [ "$name" = drop-ab ]; then
			br_start "$name" --impair-ab "$WORK/drop.txt"
		else
			br_start "$name" --impair "$WORK/drop.txt"
		fi
		tcpdump_start "$WORK/atob.pcap" 2048
		in_a "$REPLAY" -q -i "$IF_A" "$WORK/t.pcap" || die "the replay from A failed"
		tcpdump_stop
		td_start "$NS_A" "$IF_A" "$WORK/btoa.pcap"
		in_b "$REPLAY" -q -i "$IF_B" "$WORK/t.pcap" || die "the replay from B failed"
		td_stop
		br_stop "$name" 130
		"$PCAPDIFF" "$WORK/drop-want.pcap" "$WORK/atob.pcap" >"$WORK/diff" ||
			die "$name: A -> B is not the trace without packets 3, 7, 50, 199: $(cat "$WORK/diff")"
		[ "$(dir "$name" ab received)" -eq 200 ] && [ "$(dir "$name" ab dropped_impair)" -eq 4 ] &&
			[ "$(dir "$name" ab forwarded)" -eq 196 ] && [ "$(dir "$name" ab failed)" -eq 0 ] &&
			[ "$(imp "$name" ab from_trace)" -eq 199 ] && [ "$(imp "$name" ab from_default)" -eq 1 ] &&
			[ "$(imp "$name" ab dropped)" -eq 4 ] && [ "$(imp "$name" ab unmatched)" -eq 0 ] &&
			[ "$(imp "$name" ab from_model)" -eq 0 ] ||
			die "$name: ab counts wrong: $(cat "$WORK/$name.json")"
		accounts "$name"
	done
	"$PCAPDIFF" "$WORK/drop-want.pcap" "$WORK/btoa.pcap" >"$WORK/diff" ||
		die "drop-both: B -> A is not the trace without packets 3, 7, 50, 199: $(cat "$WORK/diff")"
	[ "$(dir drop-both ba dropped_impair)" -eq 4 ] && [ "$(imp drop-both ba from_trace)" -eq 199 ] ||
		die "drop-both: ba counts wrong: $(cat "$WORK/drop-both.json")"
	info "--impair-ab and --impair: packets 3, 7, 50, 199 dropped, the other 196 byte for byte"
	# Only -ab's direction: B -> A untouched, and without an impairment.  (B -> A of drop-ab's run
	# was overwritten by drop-both's: run it again.)
	br_start drop-ab2 --impair-ab "$WORK/drop.txt"
	td_start "$NS_A" "$IF_A" "$WORK/btoa.pcap"
	in_b "$REPLAY" -q -i "$IF_B" "$WORK/t.pcap" || die "the replay from B failed"
	td_stop
	br_stop drop-ab2 130
	"$PCAPDIFF" "$WORK/t.pcap" "$WORK/btoa.pcap" >"$WORK/diff" ||
		die "drop-ab: B -> A differs: $(cat "$WORK/diff")"
	[ "$(dir drop-ab ba received)" -eq 200 ] && [ "$(dir drop-ab ba forwarded)" -eq 200 ] &&
		[ "$(dir drop-ab ba dropped_impair)" -eq 0 ] && [ "$(imp drop-ab ba from_trace)" = none ] &&
		[ "$(dir drop-ab2 ba forwarded)" -eq 200 ] ||
		die "drop-ab: ba counts wrong: $(cat "$WORK/drop-ab.json" "$WORK/drop-ab2.json")"
	accounts drop-ab2
	info "--impair-ab: B -> A all 200 untouched"

	# --impair-flow: the second flow (source port 1025) alone takes the trace's actions.
	"$GENTRACE" udp -o "$WORK/t2.pcap" --count 200 --size 200 --gap-us 200 --flows 2 >/dev/null
	printf 'pass\ndrop\npass\ndrop\n' >"$WORK/flow.txt"
	"$REPLAY" -q -w "$WORK/flow-want.pcap" --exclude P:4,8 "$WORK/t2.pcap" ||
		die "flow trace: replay -w --exclude failed"
	br_start drop-flow --impair-ab "$WORK/flow.txt" --impair-flow "udp src port 1025"
	tcpdump_start "$WORK/atob.pcap" 2048
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/t2.pcap" || die "the replay from A failed"
	tcpdump_stop
	br_stop drop-flow 130
	"$PCAPDIFF" "$WORK/flow-want.pcap" "$WORK/atob.pcap" >"$WORK/diff" ||
		die "drop-flow: A -> B is not the trace without packets 4 and 8: $(cat "$WORK/diff")"
	[ "$(dir drop-flow ab received)" -eq 200 ] && [ "$(dir drop-flow ab dropped_impair)" -eq 2 ] &&
		[ "$(dir drop-flow ab forwarded)" -eq 198 ] && [ "$(imp drop-flow ab unmatched)" -eq 100 ] &&
		[ "$(imp drop-flow ab from_trace)" -eq 4 ] && [ "$(imp drop-flow ab from_default)" -eq 96 ] &&
		[ "$(imp drop-flow ab dropped)" -eq 2 ] ||
		die "drop-flow: ab counts wrong: $(cat "$WORK/drop-flow.json")"
	accounts drop-flow
	info "--impair-flow: the second flow's 2nd and 4th frames dropped, the first flow's untouched"
}

# A SIGINT with frames held: none sent early, each counted failed, one line for them.
test_sigint_held() {
	br_start held --delay-ab 10s
	tcpdump_start "$WORK/atob.pcap" 2048
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/t.pcap" || die "the replay from A failed"
	sleep 0.3
	br_stop held 130
	tcpdump_stop
	[ "$(frames "$WORK/atob.pcap")" -eq 0 ] || die "held: $(frames "$WORK/atob.pcap") frames left before their deadline"
	[ "$(dir held ab held_at_stop)" -eq 200 ] && [ "$(dir held ab failed)" -eq 200 ] &&
		[ "$(dir held ab held_peak)" -eq 200 ] || die "held: ab counts wrong: $(cat "$WORK/held.json")"
	[ "$(grep -c "held back" "$WORK/held.err")" -eq 1 ] &&
		grep -q "stopped by SIGINT: 200 frames held back by impairment not sent ($IF_M1 -> $IF_M2: 200, $IF_M2 -> $IF_M1: 0), counted failed" \
			"$WORK/held.err" || die "held: not one line for the held frames: $(cat "$WORK/held.err")"
	accounts held
	info "200 held frames failed at SIGINT, in one line"
}

# A frame the output port's MTU cannot carry: counted failed, said once; exit status 1.
test_mtu() {
	ip -n "$NS_M" link set dev "$IF_M2" mtu 1000
	br_start mtu
	grep -q "MTU is 1500, $IF_M2's 1000" "$WORK/mtu.err" || die "mtu: the MTUs are not compared at start: $(cat "$WORK/mtu.err")"
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/big.pcap" || die "the replay from A failed"
	sleep 0.3
	br_stop mtu 1
	ip -n "$NS_M" link set dev "$IF_M2" mtu 1500
	[ "$(dir mtu ab too_long)" -eq 20 ] && [ "$(dir mtu ab failed)" -eq 20 ] ||
		die "mtu: ab counts wrong: $(cat "$WORK/mtu.json")"
	[ "$(grep -c "does not fit the output port's MTU 1000" "$WORK/mtu.err")" -eq 1 ] ||
		die "mtu: not said once: $(cat "$WORK/mtu.err")"
	accounts mtu
	info "20 frames too long for $IF_M2, said once"
}

# --enet-dmac-ab and --ttl-ba: A's trace arrives at B with the new MAC and the TTL it was sent
# with, B's at A with its MAC and the new TTL (its IPv4 checksum mended), frame for frame what
# replay -w writes with the one edit; every frame counted edited on its way.
test_edits() {
	local d
	"$REPLAY" -q -w "$WORK/ab-want.pcap" --enet-dmac 02:00:00:00:00:bb "$WORK/t.pcap" ||
		die "edits: replay -w --enet-dmac failed"
	"$REPLAY" -q -w "$WORK/ba-want.pcap" --ttl 7 "$WORK/t.pcap" || die "edits: replay -w --ttl failed"
	br_start edits --enet-dmac-ab 02:00:00:00:00:bb --ttl-ba 7
	tcpdump_start "$WORK/atob.pcap" 2048
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/t.pcap" || die "the replay from A failed"
	tcpdump_stop
	td_start "$NS_A" "$IF_A" "$WORK/btoa.pcap"
	in_b "$REPLAY" -q -i "$IF_B" "$WORK/t.pcap" || die "the replay from B failed"
	td_stop
	br_stop edits 130
	"$PCAPDIFF" "$WORK/ab-want.pcap" "$WORK/atob.pcap" >"$WORK/diff" ||
		die "edits: A -> B is not the trace with --enet-dmac: $(cat "$WORK/diff")"
	"$PCAPDIFF" "$WORK/ba-want.pcap" "$WORK/btoa.pcap" >"$WORK/diff" ||
		die "edits: B -> A is not the trace with --ttl: $(cat "$WORK/diff")"
	for d in ab ba; do
		[ "$(dir edits $d received)" -eq 200 ] && [ "$(dir edits $d forwarded)" -eq 200 ] &&
			[ "$(dir edits $d edited)" -eq 200 ] && [ "$(dir edits $d edit_failed)" -eq 0 ] &&
			[ "$(dir edits $d failed)" -eq 0 ] || die "edits: $d counts wrong: $(cat "$WORK/edits.json")"
	done
	accounts edits
	grep -q "^$IF_M1 -> $IF_M2: 200 edited, 0 dropped by the edits, 0 failed in an edit$" "$WORK/edits.out" ||
		die "edits: no (or a wrong) summary line: $(cat "$WORK/edits.out")"
	info "200 frames each way, each with its direction's edit"
}

# --unidir: A's trace crosses to B whole, B's is not forwarded; one direction in the JSON.
test_unidir() {
	br_start unidir --unidir
	grep -q "listening on $IF_M1, forwarding to $IF_M2 only" "$WORK/unidir.err" ||
		die "unidir: $(cat "$WORK/unidir.err")"
	tcpdump_start "$WORK/atob.pcap" 2048
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/t.pcap" || die "the replay from A failed"
	tcpdump_stop
	td_start "$NS_A" "$IF_A" "$WORK/btoa.pcap"
	in_b "$REPLAY" -q -i "$IF_B" "$WORK/t.pcap" || die "the replay from B failed"
	td_stop
	br_stop unidir 130
	"$PCAPDIFF" "$WORK/t.pcap" "$WORK/atob.pcap" >"$WORK/diff" || die "unidir: A -> B differs: $(cat "$WORK/diff")"
	[ "$(frames "$WORK/btoa.pcap")" -eq 0 ] || die "unidir: $(frames "$WORK/btoa.pcap") frames crossed B -> A"
	[ "$(dir unidir ab received)" -eq 200 ] && [ "$(dir unidir ab forwarded)" -eq 200 ] ||
		die "unidir: ab counts wrong: $(cat "$WORK/unidir.json")"
	"$PY" - "$WORK/unidir.json" <<'PY' || die "unidir: the JSON has other directions: $(cat "$WORK/unidir.json")"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(not (j["unidir"] is True and [d["direction"] for d in j["directions"]] == ["ab"]))
PY
	! grep -q "^$IF_M2 -> $IF_M1" "$WORK/unidir.out" || die "unidir: a summary of B -> A: $(cat "$WORK/unidir.out")"
	accounts unidir
	info "--unidir: 200 frames A -> B, none B -> A"
}

# --mac (tcpbridge's): frames from either port's MAC are not forwarded, and a source MAC learned
# on IF1 is not forwarded from IF2; a MAC of B's own crosses.  Each counted in its direction.
test_mac() {
	"$REPLAY" -q -w "$WORK/own.pcap" --enet-smac 02:00:00:00:0b:02 "$WORK/t.pcap" || die "mac: replay -w failed"
	"$REPLAY" -q -w "$WORK/fromb.pcap" --enet-smac 02:00:00:00:00:0b "$WORK/t.pcap" || die "mac: replay -w failed"
	br_start mac --mac 02:00:00:00:0a:01 -M 02:00:00:00:0b:02
	tcpdump_start "$WORK/atob.pcap" 2048
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/own.pcap" || die "the replay from A failed"
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/t.pcap" || die "the replay from A failed"
	tcpdump_stop
	td_start "$NS_A" "$IF_A" "$WORK/btoa.pcap"
	in_b "$REPLAY" -q -i "$IF_B" "$WORK/t.pcap" || die "the replay from B failed"
	in_b "$REPLAY" -q -i "$IF_B" "$WORK/fromb.pcap" || die "the replay from B failed"
	td_stop
	br_stop mac 130
	"$PCAPDIFF" "$WORK/t.pcap" "$WORK/atob.pcap" >"$WORK/diff" ||
		die "mac: A -> B is not the trace alone: $(cat "$WORK/diff")"
	"$PCAPDIFF" "$WORK/fromb.pcap" "$WORK/btoa.pcap" >"$WORK/diff" ||
		die "mac: B -> A is not B's own MAC's trace alone: $(cat "$WORK/diff")"
	[ "$(dir mac ab received)" -eq 400 ] && [ "$(dir mac ab dropped_own_mac)" -eq 200 ] &&
		[ "$(dir mac ab forwarded)" -eq 200 ] && [ "$(dir mac ab dropped_learned)" -eq 0 ] ||
		die "mac: ab counts wrong: $(cat "$WORK/mac.json")"
	[ "$(dir mac ba received)" -eq 400 ] && [ "$(dir mac ba dropped_learned)" -eq 200 ] &&
		[ "$(dir mac ba forwarded)" -eq 200 ] && [ "$(dir mac ba dropped_own_mac)" -eq 0 ] ||
		die "mac: ba counts wrong: $(cat "$WORK/mac.json")"
	grep -q "^$IF_M2 -> $IF_M1: 0 from the ports' own MACs, 200 from a MAC of the other side, 0 martians, not forwarded$" \
		"$WORK/mac.out" || die "mac: no (or a wrong) summary line: $(cat "$WORK/mac.out")"
	accounts mac
	info "--mac: 200 from a port's MAC and 200 from a MAC learned on the other side kept back"
}

# --no-martians: IPv4 to 127/8 (A -> B), 0/8 and 255/8 (B -> A) is not forwarded; the rest is.
test_martians() {
	local d
	"$REPLAY" -q -w "$WORK/m127.pcap" --dstipmap 0.0.0.0/0:127.1.2.3/32 "$WORK/t.pcap" || die "martians: replay -w failed"
	"$REPLAY" -q -w "$WORK/m0.pcap" --dstipmap 0.0.0.0/0:0.1.2.3/32 "$WORK/t.pcap" || die "martians: replay -w failed"
	"$REPLAY" -q -w "$WORK/m255.pcap" --dstipmap 0.0.0.0/0:255.1.2.3/32 "$WORK/t.pcap" || die "martians: replay -w failed"
	br_start martians --no-martians
	tcpdump_start "$WORK/atob.pcap" 2048
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/m127.pcap" || die "the replay from A failed"
	in_a "$REPLAY" -q -i "$IF_A" "$WORK/t.pcap" || die "the replay from A failed"
	tcpdump_stop
	td_start "$NS_A" "$IF_A" "$WORK/btoa.pcap"
	in_b "$REPLAY" -q -i "$IF_B" "$WORK/m0.pcap" || die "the replay from B failed"
	in_b "$REPLAY" -q -i "$IF_B" "$WORK/m255.pcap" || die "the replay from B failed"
	in_b "$REPLAY" -q -i "$IF_B" "$WORK/t.pcap" || die "the replay from B failed"
	td_stop
	br_stop martians 130
	"$PCAPDIFF" "$WORK/t.pcap" "$WORK/atob.pcap" >"$WORK/diff" || die "martians: A -> B: $(cat "$WORK/diff")"
	"$PCAPDIFF" "$WORK/t.pcap" "$WORK/btoa.pcap" >"$WORK/diff" || die "martians: B -> A: $(cat "$WORK/diff")"
	[ "$(dir martians ab dropped_martian)" -eq 200 ] && [ "$(dir martians ab forwarded)" -eq 200 ] &&
		[ "$(dir martians ba dropped_martian)" -eq 400 ] && [ "$(dir martians ba forwarded)" -eq 200 ] ||
		die "martians: counts wrong: $(cat "$WORK/martians.json")"
	accounts martians
	info "--no-martians: 600 martians kept back, 200 frames each way forwarded"
}

# Each wait: every frame crosses, held ones after their delay, and a SIGINT stops a spinning bridge.
test_poll() {
	local mode
	for mode in "--poll sleep" "--poll hybrid" "--busy-poll"; do
		# shellcheck disable=SC2086 # the mode is two words or one
		br_start poll $mode --delay 5ms
		tcpdump_start "$WORK/atob.pcap" 2048
		in_a "$REPLAY" -q -i "$IF_A" "$WORK/t.pcap" || die "the replay from A failed"
		sleep 0.2
		tcpdump_stop
		br_stop poll 130
		"$PCAPDIFF" "$WORK/t.pcap" "$WORK/atob.pcap" >"$WORK/diff" || die "$mode: A -> B differs: $(cat "$WORK/diff")"
		[ "$(dir poll ab forwarded)" -eq 200 ] && [ "$(dir poll ab held_peak)" -ge 1 ] &&
			[ "$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["directions"][0]["send_error_ns"]["count"])' \
				"$WORK/poll.json")" -eq 200 ] || die "$mode: ab counts wrong: $(cat "$WORK/poll.json")"
		grep -q "^$IF_M1 -> $IF_M2: held frames sent after their deadline by p50 " "$WORK/poll.out" ||
			die "$mode: no line of the held frames' send error: $(cat "$WORK/poll.out")"
		accounts poll
		info "$mode: 200 frames held 5 ms and forwarded: $(grep -o 'p50 .*' "$WORK/poll.out")"
	done
}

# stall NAME COUNT GAP_US DELAY LIMIT STOP_S: COUNT frames GAP_US apart from A, held DELAY in a
# queue of LIMIT, the bridge stopped (SIGSTOP) for STOP_S twice meanwhile.  The frames that fell
# due during a stop leave before its backlog is taken in: nothing is dropped at the queue, every
# frame crosses, and the stops happened (frames left late).
stall() {
	local name=$1 n=$2 gap=$3 delay=$4 limit=$5 stop=$6 gen late
	"$GENTRACE" udp -o "$WORK/$name.pcap" --count "$n" --size 64 --gap-us "$gap" >/dev/null
	br_start "$name" --delay-ab "$delay" --impair-limit "$limit"
	tcpdump_start "$WORK/atob.pcap" 2048
	# --late shift: a generator held up by a loaded machine does not catch up in a burst.
	in_a "$REPLAY" -q -i "$IF_A" --late shift "$WORK/$name.pcap" &
	gen=$!
	sleep 0.2
	kill -STOP "$BR_PID"
	sleep "$stop"
	kill -CONT "$BR_PID"
	sleep 0.2
	kill -STOP "$BR_PID"
	sleep "$stop"
	kill -CONT "$BR_PID"
	wait "$gen" || die "$name: the replay from A failed"
	sleep 0.1
	tcpdump_stop
	br_stop "$name" 130
	late=$(dir "$name" ab late)
	[ "$late" -ge 1 ] || die "$name: no frame was sent late: the bridge was not stopped"
	[ "$(dir "$name" ab dropped_limit)" -eq 0 ] ||
		die "$name: $(dir "$name" ab dropped_limit) frames dropped at the queue (held peak $(dir "$name" ab held_peak) of $limit)"
	[ "$(dir "$name" ab received)" -eq "$n" ] && [ "$(dir "$name" ab forwarded)" -eq "$n" ] &&
		[ "$(dir "$name" ab kernel_dropped)" -eq 0 ] || die "$name: ab counts wrong: $(cat "$WORK/$name.json")"
	[ "$(frames "$WORK/atob.pcap")" -eq "$n" ] || die "$name: $(frames "$WORK/atob.pcap") of $n frames arrived at B"
	accounts "$name"
	info "$name: two stops of $stop s, $delay held in $limit: $n frames forwarded, none dropped at the queue, $late late, held peak $(dir "$name" ab held_peak)"
}

# Two stops, each shorter than the delay and each more than the queue's room above rate x delay
# (10000 frames/s x 50 ms = 500 held, room 700, a stop's backlog 300); then each longer than the
# delay (5000 frames/s x 10 ms = 50 held, room 200, a stop's backlog 1000, nearly all due).
test_stall() {
	stall stall-short 10000 100 50ms 700 0.03
	stall stall-long 5000 200 10ms 200 0.2
}

test_refusals() {
	expect_fail 2 "IF1 and IF2 are both" ip netns exec "$NS_M" "$REPLAY" bridge "$IF_M1" "$IF_M1"
	expect_fail 2 "give two interfaces" ip netns exec "$NS_M" "$REPLAY" bridge "$IF_M1"
	expect_fail 2 "impairs nothing" ip netns exec "$NS_M" "$REPLAY" bridge --loss-ba 0% "$IF_M1" "$IF_M2"
	expect_fail 2 "--ttl-ba excludes --unidir" ip netns exec "$NS_M" "$REPLAY" bridge --unidir --ttl-ba 7 "$IF_M1" "$IF_M2"
	expect_fail 2 "without -ab" ip netns exec "$NS_M" "$REPLAY" bridge \
		--enet-dmac-ab 02:00:00:00:00:01,02:00:00:00:00:02 "$IF_M1" "$IF_M2"
	expect_fail 1 "nosuchif" ip netns exec "$NS_M" "$REPLAY" bridge "$IF_M1" nosuchif
	expect_fail 2 "both ports' MACs" ip netns exec "$NS_M" "$REPLAY" bridge --mac 02:00:00:00:00:01 "$IF_M1" "$IF_M2"
	expect_fail 2 "^replay: bridge: --impair-flow: 'udp': --impair-flow binds to the --impair FILE before it" \
		ip netns exec "$NS_M" "$REPLAY" bridge --loss 1% --impair-flow udp "$IF_M1" "$IF_M2"
	expect_fail 1 "^replay: bridge: --impair-ba: $WORK/nosuch.txt: No such file or directory$" \
		ip netns exec "$NS_M" "$REPLAY" bridge --impair-ba "$WORK/nosuch.txt" "$IF_M1" "$IF_M2"
	printf 'pass\ndelay forever\n' >"$WORK/bad.txt"
	expect_fail 1 "^replay: bridge: --impair: $WORK/bad.txt: line 2" \
		ip netns exec "$NS_M" "$REPLAY" bridge --impair "$WORK/bad.txt" "$IF_M1" "$IF_M2"
	expect_fail 2 "refusing to overwrite an input" ip netns exec "$NS_M" "$REPLAY" bridge \
		--impair-ab "$WORK/bad.txt" --stats-json "$WORK/bad.txt" "$IF_M1" "$IF_M2"
	grep -q "delay forever" "$WORK/bad.txt" || die "--stats-json overwrote an impairment trace"
}

# GRO on a port: the bridge says at the start, once, that merged frames cannot cross, and how to
# turn it off; the other port, with GRO off, is not named.
test_gro() {
	ip netns exec "$NS_M" ethtool -K "$IF_M1" gro on || die "ethtool cannot turn GRO on at $IF_M1"
	br_start gro
	br_stop gro 130
	ip netns exec "$NS_M" ethtool -K "$IF_M1" gro off
	[ "$(grep -c "receive offload" "$WORK/gro.err")" = 1 ] &&
		grep -q "^replay: warning: port $IF_M1: receive offload (GRO is on): .*ethtool -K $IF_M1 gro off lro off$" \
			"$WORK/gro.err" || die "gro: not one warning naming $IF_M1: $(cat "$WORK/gro.err")"
	info "GRO on $IF_M1: said once at the start"
}

run_tests test_traces test_echo test_http test_ping_rtt test_no_doubles \
	test_loss_one_way test_drop_trace test_sigint_held test_mtu test_edits test_unidir \
	test_mac test_martians test_poll test_stall test_gro test_refusals
