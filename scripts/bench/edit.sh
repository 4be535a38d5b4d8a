#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Edit-chain benchmarks (BENCHMARKS.md, "Editing"):
#  1. cost per packet of the chain alone, in ns (median of 5 runs) and in
#     instructions (callgrind, counting inside edit_chain_apply only), for: no
#     edits, MAC rewrite, pnat + fixcsum, padding on the fly, padding with the
#     prep sidecar;
#  2. top speed over a veth pair: --pad-payload from a 96-byte-snaplen trace
#     vs an unpadded replay of the original, with tcpreplay on the original as
#     the anchor, all in the same run; bytes and packets counted on the far side.
# Every measurement holds /tmp/replay-bench.lock.  Needs root for part 2.
# Usage: scripts/bench/edit.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
B=${1:-build}
W=$(mktemp -d /tmp/bench-edit.XXXXXX)
NS_A=bea$$ NS_B=beb$$ VA=vea$$ VB=veb$$
cleanup() { ip netns del "$NS_A" 2>/dev/null || true; ip netns del "$NS_B" 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT
LOCK=(flock /tmp/replay-bench.lock)

cc -O2 -std=gnu11 -D_GNU_SOURCE -Iinclude -o "$W/edit_bench" scripts/bench/edit_bench.c \
	"$B/libreplay.a" -lpcap -lm
# 20000 full-size UDP frames, and the same captured with a 96-byte snap length.
"$B/gentrace" udp -o "$W/full.pcap" --count 20000 --size 1514 --gap-us 10 >/dev/null
editcap -F pcap -s 96 "$W/full.pcap" "$W/snap96.pcap"
"$B/replay" prep "$W/snap96.pcap" -o "$W/snap96.prep" --pad-payload -q

# median (min-max) of numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {printf "%s (%s-%s)", a[int((NR+1)/2)], a[1], a[NR]}'; }
echo "== edit chain cost per packet (20000 packets x 50 passes; median of 5; callgrind Ir inside edit_chain_apply)"
printf "%-28s %22s %12s\n" case "ns/pkt (min-max)" Ir/pkt
bench_case() { # NAME TRACE ARGS...
	local name=$1 trace=$2; shift 2
	local ns ir
	ns=$(for _ in 1 2 3 4 5; do "${LOCK[@]}" "$W/edit_bench" -n 50 "$trace" "$@" | sed 's/ns_per_pkt=\([0-9.]*\).*/\1/'; done | median)
	"${LOCK[@]}" valgrind --tool=callgrind --toggle-collect=edit_chain_apply \
		--callgrind-out-file="$W/cg.out" "$W/edit_bench" -n 1 "$trace" "$@" >/dev/null 2>"$W/cg.err"
	ir=$(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$W/cg.out")
	printf "%-28s %22s %12.1f\n" "$name" "$ns" "$(echo "$ir / 20000" | bc -l)"
}
bench_case "no edits" "$W/full.pcap"
bench_case "MAC rewrite" "$W/full.pcap" --dmac 00:11:22:33:44:55
bench_case "pnat + fixcsum" "$W/full.pcap" --pnat 198.18.0.0/15:10.0.0.0/8 --fixcsum
bench_case "padding, on the fly" "$W/snap96.pcap" --pad-payload
bench_case "padding, prep sidecar" "$W/snap96.pcap" --pad-payload --prep "$W/snap96.prep"

[ "$(id -u)" = 0 ] || { echo "== top speed: skipped (needs root)"; exit 0; }
echo "== top speed over veth: 20000 x 1514-byte frames; 5 runs each: median (min-max)"
veth_pair "$NS_A" "$VA" "$NS_B" "$VB"
rx() { ip netns exec "$NS_B" cat "/sys/class/net/$VB/statistics/$1"; }
top_case() { # NAME CMD...
	local name=$1; shift
	local p0 b0 out pps
	for _ in 1 2 3 4 5; do
		p0=$(rx rx_packets); b0=$(rx rx_bytes)
		out=$("${LOCK[@]}" ip netns exec "$NS_A" "$@" 2>&1)
		pps=$(grep -oE '"pps":[0-9.]+' <<<"$out" | cut -d: -f2 || true)
		[ -n "$pps" ] || pps=$(grep -oE '[0-9.]+ pps' <<<"$out" | head -1 | cut -d' ' -f1)
		echo "$pps $(( $(rx rx_packets) - p0 )) $(( $(rx rx_bytes) - b0 ))"
	done | sort -n >"$W/runs"
	read -r pps pk by < <(sed -n 3p "$W/runs")
	printf "%-34s %10.0f pps (%.0f-%.0f)   far side: %s pkts, %s bytes\n" "$name" "$pps" \
		"$(head -1 "$W/runs" | cut -d' ' -f1)" "$(tail -1 "$W/runs" | cut -d' ' -f1)" "$pk" "$by"
}
top_case "replay original (1514 B)" "$B/replay" -q --topspeed -i "$VA" --stats-json - "$W/full.pcap"
top_case "replay 96 B snap + --pad-payload" "$B/replay" -q --topspeed -i "$VA" --stats-json - --pad-payload "$W/snap96.pcap"
top_case "replay same + --prep" "$B/replay" -q --topspeed -i "$VA" --stats-json - --pad-payload --prep "$W/snap96.prep" "$W/snap96.pcap"
top_case "tcpreplay original (anchor)" tcpreplay -q --topspeed -i "$VA" "$W/full.pcap"
