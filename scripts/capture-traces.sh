#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
#
# capture-traces.sh - record the real traces in traces/ and rebuild the generated ones.
#
# Two network namespaces joined by a veth pair; real programs (python3 http.server, curl,
# ping, small python3 DNS and UDP peers) talk across it while tcpdump records the veth in
# namespace A. Nothing is routed out: the namespaces hold only lo and the veth, and every
# address used is a documentation address (192.0.2.0/24, 2001:db8::/64) on that link.
#
# usage: capture-traces.sh [--generated-only] [--out DIR]
#   --generated-only  only rebuild vlan.pcap, mixed.pcap, udp-1ms.pcap and
#                     http-nsec-be.pcap with gentrace (no root, no captures)
#   --out DIR         write there instead of traces/
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/traces
GENERATED_ONLY=0
NS_A=gt-a-$$
NS_B=gt-b-$$
IF_A=vgt-a
IF_B=vgt-b
MAC_A=02:00:00:00:01:0a
MAC_B=02:00:00:00:01:0b
IP4_A=192.0.2.10
IP4_B=192.0.2.11
IP6_A=2001:db8::a
IP6_B=2001:db8::b
PY=$(command -v /usr/bin/python3 || command -v python3)
TMP=
PIDS=()		# every background process we started, so cleanup kills exactly those
NETNS_MADE=0

die() {
	echo "capture-traces: $*" >&2
	exit 1
}

# stop_pid PID SIG: SIG, then SIGKILL if PID is still there after 2 s. tcpdump gets SIGINT,
# on which it writes out what it has; the python servers get SIGTERM, because a background
# job of a non-interactive shell starts with SIGINT ignored and python then keeps it so.
stop_pid() {
	local pid=$1 i

	kill "-$2" "$pid" 2>/dev/null || true
	for ((i = 0; i < 40; i++)); do
		# a child that has exited stays a zombie until wait: that counts as gone
		ps -o stat= -p "$pid" 2>/dev/null | grep -qv '^Z' || break
		sleep 0.05
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# Runs on every exit: stop what we started, by PID, and delete our namespaces.
cleanup() {
	local rc=$? pid

	set +e
	for pid in "${PIDS[@]}"; do
		stop_pid "$pid" TERM
	done
	if ((NETNS_MADE)); then
		ip netns del "$NS_A" 2>/dev/null
		ip netns del "$NS_B" 2>/dev/null
	fi
	[[ -n $TMP ]] && rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_a() { ip netns exec "$NS_A" "$@"; }
in_b() { ip netns exec "$NS_B" "$@"; }

# Remove a PID from PIDS once we have reaped it ourselves.
forget() {
	local keep=() pid

	for pid in "${PIDS[@]}"; do
		[[ $pid == "$1" ]] || keep+=("$pid")
	done
	PIDS=("${keep[@]}")
}

# start_bg LOG NS CMD...: bash forks and execs a simple command, and ip netns exec execs
# CMD in turn, so $! is the PID of CMD itself (a shell function here would add a subshell).
start_bg() {
	local log=$1 ns=$2

	shift 2
	ip netns exec "$ns" "$@" >"$log" 2>&1 &
	BG_PID=$!
	PIDS+=("$BG_PID")
}

stop_bg() {
	stop_pid "$1" "${2:-TERM}"
	forget "$1"
}

wait_for() {
	local what=$1 i

	shift
	for ((i = 0; i < 100; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	die "timed out waiting for $what"
}

setup_netns() {
	local ns

	ip netns add "$NS_A"
	NETNS_MADE=1
	ip netns add "$NS_B"
	for ns in "$NS_A" "$NS_B"; do
		# Set before the veth exists so that its own settings inherit them: no DAD,
		# no router solicitations, and MLD reports sent at once rather than later
		# into a capture.
		# shellcheck disable=SC2016 # $k is for the inner sh
		ip netns exec "$ns" sh -c '
			for k in accept_dad=0 dad_transmits=0 router_solicitations=0 \
				 mldv2_unsolicited_report_interval=1 \
				 mldv1_unsolicited_report_interval=1; do
				sysctl -qw net.ipv6.conf.default.$k net.ipv6.conf.all.$k
			done'
		ip netns exec "$ns" ip link set lo up
	done
	in_a ip link add "$IF_A" address "$MAC_A" type veth \
		peer name "$IF_B" address "$MAC_B" netns "$NS_B"
	# Without these, the kernel leaves TCP/UDP checksums for "hardware" to fill in
	# (so tcpdump records them unfinished) and records 64 KiB GSO super-frames.
	in_a ethtool -K "$IF_A" tx off sg off tso off gso off gro off >/dev/null
	in_b ethtool -K "$IF_B" tx off sg off tso off gso off gro off >/dev/null
	in_a ip addr add "$IP4_A/24" dev "$IF_A"
	in_b ip addr add "$IP4_B/24" dev "$IF_B"
	in_a ip addr add "$IP6_A/64" dev "$IF_A" nodad
	in_b ip addr add "$IP6_B/64" dev "$IF_B" nodad
	in_a ip link set "$IF_A" up
	in_b ip link set "$IF_B" up
	wait_for "link-local addresses" \
		sh -c "ip netns exec $NS_A ip -6 addr show dev $IF_A scope link | grep -q fe80 &&
		       ip netns exec $NS_B ip -6 addr show dev $IF_B scope link | grep -q fe80"
	# let the joins' MLD reports (two each, 1 ms apart) go before anything records
	sleep 1
}

# capture NAME [tcpdump options]: start recording; stop_capture ends it and moves the
# checked file into OUT, so an interrupted run never leaves half a trace there.
capture() {
	local file=$TMP/$1

	shift
	# every capture starts from empty neighbour caches, so each shows ARP or ND
	in_a ip neigh flush dev "$IF_A"
	in_b ip neigh flush dev "$IF_B"
	CAP_FILE=$file
	# --immediate-mode: otherwise packets wait in a ring block for up to a second, and
	# SIGINT drops that block. -Z root: tcpdump would drop to its own user, which
	# cannot write into OUT.
	start_bg "$TMP/tcpdump.log" "$NS_A" tcpdump -i "$IF_A" -n -U --immediate-mode -Z root \
		"$@" -w "$file"
	CAP_PID=$BG_PID
	wait_for "tcpdump on $IF_A" grep -q "listening on" "$TMP/tcpdump.log"
}

stop_capture() {
	sleep 0.3 # the last ACKs and replies
	stop_bg "$CAP_PID" INT
	[[ -s $CAP_FILE ]] || die "$CAP_FILE: empty"
	local n

	n=$(tcpdump -r "$CAP_FILE" 2>/dev/null | wc -l)
	((n > 0)) || die "$CAP_FILE: no packets"
	mv "$CAP_FILE" "$OUT/"
	echo "  $(basename "$CAP_FILE"): $n packets, $(stat -c %s "$OUT/${CAP_FILE##*/}") bytes"
}

listening() {
	in_b ss -H -ln "$@" | grep -q .
}

# Serve a 20100-byte file over HTTP/1.1 from B, fetch it with curl from A.
capture_http() {
	local name=$1 bind=$2 url=$3 pid i

	mkdir -p "$TMP/www"
	for ((i = 0; i < 300; i++)); do
		printf 'replay test page, line %03d: the quick brown fox jumps over the dog\n' "$i"
	done >"$TMP/www/page.txt"
	"$PY" -m http.server --help 2>&1 | grep -q -- --protocol ||
		die "$PY is too old: http.server has no --protocol (Python >= 3.11)"
	start_bg "$TMP/http.log" "$NS_B" "$PY" -m http.server -p HTTP/1.1 -b "$bind" \
		-d "$TMP/www" 8000
	pid=$BG_PID
	wait_for "http.server" listening -t "sport = :8000"
	capture "$name"
	in_a curl -sS -o "$TMP/page.out" "$url"
	stop_capture
	stop_bg "$pid"
	cmp -s "$TMP/page.out" "$TMP/www/page.txt" || die "curl got the wrong page"
}

# A tiny authoritative DNS server for example.com (A, AAAA, NXDOMAIN) and its client.
DNS_PY='
import socket, struct, sys

ZONE = {("www.example.com", 1): socket.inet_pton(socket.AF_INET, "192.0.2.80"),
        ("www.example.com", 28): socket.inet_pton(socket.AF_INET6, "2001:db8::80")}

def qname(name):
    return b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"

def serve(addr):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, 53))
    while True:
        q, peer = s.recvfrom(512)
        qid, = struct.unpack("!H", q[:2])
        end = q.index(b"\0", 12) + 5
        labels, i = [], 12
        while q[i]:
            labels.append(q[i + 1:i + 1 + q[i]].decode())
            i += 1 + q[i]
        qtype, = struct.unpack("!H", q[end - 4:end - 2])
        rdata = ZONE.get((".".join(labels).lower(), qtype))
        known = any(n == ".".join(labels).lower() for n, _ in ZONE)
        rcode = 0 if rdata or known else 3
        hdr = struct.pack("!HHHHHH", qid, 0x8400 | 0x0100 | rcode, 1, 1 if rdata else 0, 0, 0)
        ans = b""
        if rdata:
            ans = struct.pack("!HHHIH", 0xc00c, qtype, 1, 300, len(rdata)) + rdata
        s.sendto(hdr + q[12:end] + ans, peer)

def ask(server):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    for qid, (name, qtype) in enumerate([("www.example.com", 1), ("www.example.com", 28),
                                         ("nosuch.example.com", 1)], 0x4a01):
        s.sendto(struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + qname(name) +
                 struct.pack("!HH", qtype, 1), (server, 53))
        r = s.recv(512)
        assert r[:2] == struct.pack("!H", qid), "wrong answer"

serve(sys.argv[2]) if sys.argv[1] == "serve" else ask(sys.argv[2])
'

# A UDP echo server and a client sending three datagrams, over IPv6.
UDP_PY='
import socket, sys

s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
if sys.argv[1] == "serve":
    s.bind((sys.argv[2], 7777))
    while True:
        d, peer = s.recvfrom(2048)
        s.sendto(d, peer)
s.settimeout(2)
for i in range(3):
    s.sendto(b"replay udp6 datagram %d" % i, (sys.argv[2], 7777))
    assert s.recv(2048) == b"replay udp6 datagram %d" % i
'

capture_dns() {
	local pid

	start_bg "$TMP/dns.log" "$NS_B" "$PY" -c "$DNS_PY" serve "$IP4_B"
	pid=$BG_PID
	wait_for "DNS server" listening -u "sport = :53"
	capture dns.pcap
	in_a "$PY" -c "$DNS_PY" ask "$IP4_B"
	stop_capture
	stop_bg "$pid"
}

capture_icmp_flood() {
	capture icmp-flood.pcap --time-stamp-precision=nano
	in_a ping -q -f -c 500 "$IP4_B" >/dev/null
	stop_capture
}

capture_ipv6() {
	local pid

	start_bg "$TMP/udp6.log" "$NS_B" "$PY" -c "$UDP_PY" serve "$IP6_B"
	pid=$BG_PID
	wait_for "UDP echo server" listening -u "sport = :7777"
	capture ipv6.pcap
	in_a ping -6 -q -c 3 -i 0.2 "$IP6_B" >/dev/null
	in_a "$PY" -c "$UDP_PY" ask "$IP6_B"
	stop_capture
	stop_bg "$pid"
}

need_tools() {
	local t missing=()

	((EUID == 0)) || die "captures need root (or use --generated-only)"
	for t in ip tcpdump curl ethtool ss; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	((${#missing[@]} == 0)) || die "missing: ${missing[*]}"
	if ! command -v ping >/dev/null; then
		echo "capture-traces: installing iputils-ping for ping -f" >&2
		apt-get install -y -qq iputils-ping >/dev/null ||
			{ apt-get update -qq && apt-get install -y -qq iputils-ping >/dev/null; } ||
			die "cannot install iputils-ping"
	fi
}

# A gentrace from a build directory if it is newer than its source; otherwise build one.
find_gentrace() {
	local src=$REPO/scripts/gentrace.c bin

	for bin in "$REPO"/build*/gentrace "$REPO"/build*/scripts/gentrace; do
		if [[ -x $bin && $bin -nt $src ]]; then
			GENTRACE=$bin
			return
		fi
	done
	GENTRACE=$TMP/gentrace
	"${CC:-cc}" -std=gnu11 -Wall -Wextra -O2 -o "$GENTRACE" "$src"
}

generate() {
	local f

	find_gentrace
	"$GENTRACE" vlan -o "$OUT/vlan.pcap"
	"$GENTRACE" mixed -o "$OUT/mixed.pcap"
	"$GENTRACE" udp -o "$OUT/udp-1ms.pcap" --count 1000 --size 64 --gap-us 1000
	[[ -s $OUT/http.pcap ]] || die "$OUT/http.pcap missing: run without --generated-only"
	"$GENTRACE" convert "$OUT/http.pcap" "$OUT/http-nsec-be.pcap" --nsec --be
	for f in vlan mixed udp-1ms http-nsec-be; do
		echo "  $f.pcap: $(tcpdump -r "$OUT/$f.pcap" 2>/dev/null | wc -l) packets," \
			"$(stat -c %s "$OUT/$f.pcap") bytes"
	done
}

main() {
	while (($#)); do
		case $1 in
		--generated-only) GENERATED_ONLY=1 ;;
		--out) OUT=${2:?--out needs a directory}; shift ;;
		-h | --help) sed -n '4,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
		*) echo "capture-traces: unknown argument: $1" >&2; exit 2 ;;
		esac
		shift
	done
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd)
	TMP=$(mktemp -d)
	if ((!GENERATED_ONLY)); then
		need_tools
		setup_netns
		echo "capturing into $OUT"
		capture_http http.pcap "$IP4_B" "http://$IP4_B:8000/page.txt"
		capture_http http6.pcap "$IP6_B" "http://[$IP6_B]:8000/page.txt"
		capture_dns
		capture_icmp_flood
		capture_ipv6
	fi
	echo "generating into $OUT"
	generate
}

main "$@"
