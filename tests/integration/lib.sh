#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Shared harness for the integration tests (after xdp-tools' test_runner):
# two network namespaces joined by a veth pair, nothing else on the link.
# Source it, define the test, call `run_tests test_a test_b ...`.
#
# Environment (meson sets these): REPLAY, GENTRACE, PCAPDIFF, TRACES.
# V=1 shows every command; KEEP=1 keeps the work directory.
# Not root: exit 77 (SKIP) -- except under CI=true, where a skip is a failure.

set -euo pipefail
[ "${V:-0}" = 1 ] && set -x

SKIP=77
: "${REPLAY:?}" "${TRACES:?}"

die() { echo "FAIL: $*" >&2; exit 1; }
info() { echo "# $*"; }

require_root() {
	if [ "$(id -u)" != 0 ]; then
		[ "${CI:-}" = true ] && die "integration tests must run as root in CI"
		echo "SKIP: needs root (network namespaces, veth)"
		exit $SKIP
	fi
	for tool in ip tcpdump; do
		command -v $tool >/dev/null || die "$tool is not installed (scripts/test.sh installs it)"
	done
}

# Names unique to this run, short enough for IFNAMSIZ.
ID="$$"
NS_A="rpl-a-$ID"
NS_B="rpl-b-$ID"
IF_A="rpa$ID"
IF_B="rpb$ID"
WORK=""
CAP_PID=""

teardown() {
	local rc=$?
	if [ -n "$CAP_PID" ] && kill -0 "$CAP_PID" 2>/dev/null; then
		kill -TERM "$CAP_PID" 2>/dev/null || true
		wait "$CAP_PID" 2>/dev/null || true
	fi
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	if [ -n "$WORK" ] && [ "${KEEP:-0}" != 1 ]; then
		rm -rf "$WORK"
	elif [ -n "$WORK" ]; then
		echo "# kept $WORK"
	fi
	exit $rc
}

# init_ns: namespaces A and B, veth A<->B, up, quiet.  Only frames we send cross it:
# no addresses, IPv6 off (no DAD, RS, MLD), multicast off.
init_ns() {
	WORK=$(mktemp -d /tmp/replay-it.XXXXXX)
	trap teardown EXIT
	trap 'exit 130' INT TERM
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip link add name "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B"
	for side in "$NS_A $IF_A" "$NS_B $IF_B"; do
		set -- $side
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.all.disable_ipv6=1"
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.default.disable_ipv6=1"
		ip -n "$1" link set dev "$2" multicast off
		ip -n "$1" link set dev "$2" up
		ip -n "$1" link set dev lo up
	done
	# Wait for carrier on both ends.
	for _ in $(seq 50); do
		ip -n "$NS_A" link show "$IF_A" | grep -q LOWER_UP && break
		sleep 0.1
	done
}

in_a() { ip netns exec "$NS_A" "$@"; }
in_b() { ip netns exec "$NS_B" "$@"; }

# capture_start FILE: record every frame arriving on B's end with tcpdump,
# nanosecond timestamps, a large buffer; returns once it is listening.
# --immediate-mode makes libpcap use TPACKET_V2, whose ring slots are sized
# by the snap length: 9216 bytes (a jumbo frame) x 64 MiB = ~7000 frames in
# flight, where -s 0 would leave room for only ~250.
capture_start() {
	local out=$1
	: >"$WORK/tcpdump.err"
	# Not through in_b: $! must be tcpdump itself, not a subshell that ignores signals.
	ip netns exec "$NS_B" tcpdump -i "$IF_B" -Q in -s 9216 -B 65536 -U --immediate-mode -Z root \
		--time-stamp-precision=nano -w "$out" 2>"$WORK/tcpdump.err" &
	CAP_PID=$!
	for _ in $(seq 100); do
		grep -q "listening on" "$WORK/tcpdump.err" && return 0
		sleep 0.05
	done
	die "tcpdump did not start: $(cat "$WORK/tcpdump.err")"
}

# capture_stop: let the last frames land, stop tcpdump, check it dropped nothing.
capture_stop() {
	sleep 0.3
	kill -TERM "$CAP_PID"
	wait "$CAP_PID" || true
	CAP_PID=""
	if grep -E "^[1-9][0-9]* packets dropped by kernel" "$WORK/tcpdump.err"; then
		die "the capture itself dropped packets: $(cat "$WORK/tcpdump.err")"
	fi
}

# ifstat NS IF COUNTER: an interface counter (tx_packets, rx_dropped, ...).
ifstat() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"; }

# softnet_drops: packets the per-CPU backlogs dropped, summed (column 2, hex).
softnet_drops() {
	local sum=0 d
	while read -r _ d _; do sum=$((sum + 16#$d)); done </proc/net/softnet_stat
	echo $sum
}

# json_get FILE KEY: a numeric value from replay's --stats-json output.
json_get() {
	grep -o "\"$2\":[0-9.]*" "$1" | head -n1 | cut -d: -f2
}

# check_invariant FILE: read = sent + filtered + failed.
check_invariant() {
	local r s f x
	r=$(json_get "$1" packets_read)
	s=$(json_get "$1" packets_sent)
	f=$(json_get "$1" packets_filtered)
	x=$(json_get "$1" packets_failed)
	[ "$r" -eq $((s + f + x)) ] || die "accounting: read $r != sent $s + filtered $f + failed $x"
}

# expect_fail STATUS PATTERN CMD...: CMD exits STATUS and its stderr has one line matching PATTERN.
expect_fail() {
	local want=$1 pat=$2 rc=0
	shift 2
	"$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" -eq "$want" ] || die "'$*' exited $rc, expected $want; stderr: $(cat "$WORK/err")"
	grep -qE -- "$pat" "$WORK/err" || die "'$*': stderr lacks /$pat/: $(cat "$WORK/err")"
}

run_tests() {
	local t
	for t in "$@"; do
		info "$t"
		"$t"
	done
	echo "PASS: $# tests"
}
