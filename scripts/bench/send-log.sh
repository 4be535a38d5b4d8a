#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# What replay --send-log costs on the send path: callgrind's instruction
# count per packet with and without it (a dry run to /dev/null: exact and
# repeatable), and top speed over a veth pair with and without it (RUNS runs
# each, alternating, every run under the bench lock).
#
#   sudo [COUNT=PACKETS] scripts/bench/send-log.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
RUNS=${1:-5}
COUNT=${COUNT:-100000}
[ "$(id -u)" = 0 ] || { echo "send-log: needs root" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "send-log: valgrind missing" >&2; exit 1; }
[ -x build/replay ] && [ -x build/gentrace ] || { echo "send-log: build first" >&2; exit 1; }

WORK=$(mktemp -d /tmp/send-log-bench.XXXXXX)
NS_A="slb-a-$$" NS_B="slb-b-$$" IF_A="slba$$" IF_B="slbb$$"
cleanup() {
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
build/gentrace udp -o "$WORK/t.pcap" --count "$COUNT" --size 64 >/dev/null

ir() { # ARGS...: instructions callgrind counts for a dry run of the trace
	valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" build/replay -q -w /dev/null \
		--topspeed "$@" "$WORK/t.pcap" 2>&1 | sed -n 's/.*Collected : \([0-9]*\)/\1/p'
}
base=$(ir)
logged=$(ir --send-log "$WORK/s.log")
echo "callgrind: $base Ir without, $logged Ir with --send-log:" \
	"$(((logged - base) / COUNT)) instructions per packet ($COUNT packets, hand-overs to the writer thread included)"

ip netns add "$NS_A"
ip netns add "$NS_B"
ip link add name "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B"
for s in "$NS_A $IF_A" "$NS_B $IF_B"; do
	set -- $s
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$1" link set dev "$2" multicast off up
done
links_up "$NS_A" "$IF_A" "$NS_B" "$IF_B"
pps() { # ARGS...: replay's own pps at top speed across the veth pair
	flock /tmp/replay-bench.lock ip netns exec "$NS_A" build/replay -q -i "$IF_A" --topspeed \
		--stats-json "$WORK/s.json" "$@" "$WORK/t.pcap"
	grep -o '"pps":[0-9.]*' "$WORK/s.json" | cut -d: -f2
}
for r in $(seq "$RUNS"); do
	echo "without $(pps)" | tee -a "$WORK/runs"
	echo "with $(pps --send-log "$WORK/s.log")" | tee -a "$WORK/runs"
done
awk '{ v[$1] = v[$1] " " $2 } END { for (k in v) print k, v[k] }' "$WORK/runs" |
	while read -r k vals; do
		echo "$k --send-log: median $(echo $vals | tr ' ' '\n' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }') pps (runs: $vals)"
	done
