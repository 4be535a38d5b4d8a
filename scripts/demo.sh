#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The main job, end to end: build replay if needed, make a network namespace
# pair joined by a veth link, replay a bundled trace across it at its
# recorded timing, and show the summary and what arrived on the far side:
# replay-rx's report against what was sent, and a byte-for-byte comparison.
#
#   sudo scripts/demo.sh [TRACE] [replay options...]
set -euo pipefail
cd "$(dirname "$0")/.."

TRACE=${1:-traces/http.pcap}
[ $# -gt 0 ] && shift

if [ "$(id -u)" != 0 ]; then
	echo "demo: needs root for network namespaces (try: sudo $0)" >&2
	exit 1
fi
scripts/deps.sh
if [ ! -x build/replay ] || [ ! -x build/replay-rx ]; then
	echo "== building"
	meson setup build >/dev/null
fi
ninja -C build >/dev/null

NS_A="demo-a-$$" NS_B="demo-b-$$" IF_A="dema$$" IF_B="demb$$"
WORK=$(mktemp -d /tmp/replay-demo.XXXXXX)
CAP=""
cleanup() {
	[ -n "$CAP" ] && kill -TERM "$CAP" 2>/dev/null && wait "$CAP" 2>/dev/null
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT

echo "== namespaces $NS_A and $NS_B, veth $IF_A <-> $IF_B"
ip netns add "$NS_A"
ip netns add "$NS_B"
ip link add name "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B"
quiet_link() { # NS IF: only replayed frames cross (no IPv6 chatter, no multicast)
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$1" link set dev "$2" multicast off up
}
quiet_link "$NS_A" "$IF_A"
quiet_link "$NS_B" "$IF_B"
sleep 0.5

# What will be sent: the same command line as a dry run, the far side's reference.
build/replay -q -w "$WORK/sent.pcap" "$@" "$TRACE"

echo "== far side: replay-rx receiving on $IF_B"
ip netns exec "$NS_B" build/replay-rx -i "$IF_B" -s 9216 -w "$WORK/far.pcap" \
	--reference "$WORK/sent.pcap" >"$WORK/rx.out" 2>"$WORK/rx.err" &
CAP=$!
until grep -q "listening on" "$WORK/rx.err"; do sleep 0.05; done

echo "== replay $TRACE -i $IF_A $*"
ip netns exec "$NS_A" build/replay -i "$IF_A" "$@" "$TRACE"

sleep 0.3
kill -TERM "$CAP"
rx_rc=0
wait "$CAP" || rx_rc=$?
CAP=""

echo "== what arrived on $IF_B (replay-rx)"
cat "$WORK/rx.out"
tcpdump -nn -r "$WORK/far.pcap" 2>/dev/null | head -n 5
echo "   ..."
if [ $rx_rc -eq 0 ] && build/pcapdiff "$WORK/sent.pcap" "$WORK/far.pcap"; then
	echo "== every packet arrived, byte for byte, in order"
else
	echo "== the far side does not match what was sent" >&2
	exit 1
fi
