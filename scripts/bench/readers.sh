#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Trace-reader benchmarks (BENCHMARKS.md, "Trace readers"), each figure the
# median of RUNS runs, our reader and its anchor in the same run:
#
#  1. read throughput, drain only: ours vs libpcap's pcap_next_ex on the same
#     file (pcap and pcapng, 64- and 1514-byte frames), page cache warm, then
#     cold (drop_caches) next to the disk's own sequential read (dd);
#  2. peak RSS of `replay -w /dev/null --topspeed` on traces 8x and 32x the
#     window, and of replay and tcpreplay sending the 8x trace on a veth;
#  3. the longest read stall at 100 kpps from a cold trace (NetVCR fig. 3):
#     ours with the read-ahead window, ours without it, libpcap.
#
# Needs root (drop_caches, a network namespace).  Traces are generated here,
# in $OUT (default /var/tmp/replay-bench-readers, ~3.5 GB), never committed.
# Every measurement holds /tmp/replay-bench.lock so benchmarks never overlap.
#   scripts/bench/readers.sh [BUILD_DIR]      RUNS=3 OUT=... KEEP=1
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
RUNS=${RUNS:-3}
OUT=${OUT:-/var/tmp/replay-bench-readers}
LOCK=/tmp/replay-bench.lock
NS="rb-$$"

[ "$(id -u)" = 0 ] || { echo "readers.sh: needs root (drop_caches, netns)" >&2; exit 1; }
ninja -C "$B" replay gentrace reformat readbench >/dev/null
mkdir -p "$OUT"
cleanup() {
	ip netns del "$NS" 2>/dev/null || true
	[ "${KEEP:-0}" = 1 ] || rm -rf "$OUT"
}
trap cleanup EXIT

say() { echo "$*" >&2; }
cold() { sync; echo 3 >/proc/sys/vm/drop_caches; }
# median of the numbers on stdin
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# field NAME: the number after NAME in a readbench line on stdin
field() { grep -o "$1 [0-9.]*" | awk '{ print $2 }'; }
locked() { flock "$LOCK" "$@"; }

# ---- traces -------------------------------------------------------------------------
say "== generating traces in $OUT"
W=$((32 << 20)) # the default window
# 64-byte frames: the per-record cost; 1514-byte: the per-byte cost.  About 1 GiB each.
[ -s "$OUT/small.pcap" ] || "$B/gentrace" udp --count 13421772 --size 64 --gap-us 10 --flows 16 -o "$OUT/small.pcap"
[ -s "$OUT/large.pcap" ] || "$B/gentrace" udp --count 701000 --size 1514 --gap-us 10 -o "$OUT/large.pcap"
[ -s "$OUT/small.pcapng" ] || "$B/reformat" "$OUT/small.pcap" "$OUT/small.pcapng" ng-nsec-be
[ -s "$OUT/large.pcapng" ] || "$B/reformat" "$OUT/large.pcap" "$OUT/large.pcapng" ng-nsec-be
# 8x and 32x the window for the RSS test
[ -s "$OUT/x8.pcap" ] || "$B/gentrace" udp --count $((8 * W / 1530)) --size 1514 --gap-us 10 -o "$OUT/x8.pcap"
ls -l "$OUT" >&2

# ---- 1. throughput ------------------------------------------------------------------
# drain_median MODE FILE COLD: "records/s GB/s" medians over RUNS runs
drain_median() {
	local mode=$1 f=$2 c=$3 r rs=() gs=()
	for _ in $(seq "$RUNS"); do
		if [ "$c" = 1 ]; then
			r=$(locked bash -c "sync; echo 3 >/proc/sys/vm/drop_caches; '$B/readbench' drain $mode '$f'")
		else
			locked "$B/readbench" drain "$mode" "$f" >/dev/null # warm it
			r=$(locked "$B/readbench" drain "$mode" "$f")
		fi
		rs+=("$(echo "$r" | field rec_per_s)")
		gs+=("$(echo "$r" | field GB_per_s)")
	done
	echo "$(printf '%s\n' "${rs[@]}" | median) $(printf '%s\n' "${gs[@]}" | median) [$(printf '%s\n' "${gs[@]}" | sort -g | tr '\n' ' ')]"
}

say "== 1. read throughput (median of $RUNS; GB/s of every run in brackets)"
printf "%-14s %-6s %-8s %14s %8s %14s %8s %7s\n" file cache mode "ours rec/s" "GB/s" "libpcap rec/s" "GB/s" ratio
for f in small.pcap large.pcap small.pcapng large.pcapng; do
	for c in 0 1; do
		read -r ro go rest_o < <(drain_median ours "$OUT/$f" $c)
		read -r rl gl rest_l < <(drain_median libpcap "$OUT/$f" $c)
		printf "%-14s %-6s %-8s %14.0f %8.3f %14.0f %8.3f %6.2fx   ours %s libpcap %s\n" "$f" \
			"$([ $c = 1 ] && echo cold || echo warm)" drain "$ro" "$go" "$rl" "$gl" \
			"$(echo "$ro $rl" | awk '{ print $1 / $2 }')" "$rest_o" "$rest_l"
	done
done
ds=()
for _ in $(seq "$RUNS"); do
	ds+=("$(locked bash -c "sync; echo 3 >/proc/sys/vm/drop_caches; dd if='$OUT/large.pcap' of=/dev/null bs=1M 2>&1" |
		awk '/copied/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) v = $i; u = $NF; print (u == "GB/s" ? v : v / 1000) }')")
done
echo "disk (dd bs=1M, cold, large.pcap): $(printf '%s\n' "${ds[@]}" | median) GB/s [$(printf '%s\n' "${ds[@]}" | sort -g | tr '\n' ' ')]"

# ---- 2. peak RSS --------------------------------------------------------------------
say "== 2. peak RSS (KiB, median of $RUNS)"
rss() { # rss CMD...: median peak RSS in KiB
	local v=()
	for _ in $(seq "$RUNS"); do
		v+=("$(locked /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n1)")
	done
	printf '%s\n' "${v[@]}" | median
}
echo "replay -w /dev/null --topspeed, 8-packet trace:            $(rss "$B/replay" -q -w /dev/null --topspeed traces/dns.pcap) KiB"
echo "replay -w /dev/null --topspeed, x8.pcap ($(du -m "$OUT/x8.pcap" | cut -f1) MB, 8 windows):  $(rss "$B/replay" -q -w /dev/null --topspeed "$OUT/x8.pcap") KiB"
echo "replay -w /dev/null --topspeed, large.pcap ($(du -m "$OUT/large.pcap" | cut -f1) MB, 32 windows): $(rss "$B/replay" -q -w /dev/null --topspeed "$OUT/large.pcap") KiB"
echo "replay -w /dev/null --topspeed, large.pcapng:             $(rss "$B/replay" -q -w /dev/null --topspeed "$OUT/large.pcapng") KiB"
echo "replay -w /dev/null --topspeed -K, x8.pcap:               $(rss "$B/replay" -q -w /dev/null --topspeed -K "$OUT/x8.pcap") KiB"
# Sending: replay and tcpreplay on a veth whose peer drops everything (no capture needed).
ip netns add "$NS"
ip -n "$NS" link add rba$$ type veth peer name rbb$$
ip -n "$NS" link set rba$$ up
ip -n "$NS" link set rbb$$ up
echo "replay -i veth --topspeed, x8.pcap:                       $(rss ip netns exec "$NS" "$B/replay" -q -i rba$$ --topspeed "$OUT/x8.pcap") KiB"
echo "tcpreplay -i veth --topspeed, x8.pcap:                    $(rss ip netns exec "$NS" tcpreplay -q -i rba$$ --topspeed "$OUT/x8.pcap") KiB"
echo "tcpreplay -i veth --topspeed -K, x8.pcap:                 $(rss ip netns exec "$NS" tcpreplay -q -i rba$$ --topspeed -K "$OUT/x8.pcap") KiB"

# ---- 3. stalls ----------------------------------------------------------------------
say "== 3. longest read at 100 kpps from a cold trace, 10 s (median of $RUNS)"
for mode in ours noahead libpcap; do
	l=() p=() o=() late=()
	for _ in $(seq "$RUNS"); do
		r=$(locked bash -c "sync; echo 3 >/proc/sys/vm/drop_caches; '$B/readbench' pace $mode '$OUT/small.pcap' 100000 10")
		l+=("$(echo "$r" | field longest)")
		p+=("$(echo "$r" | field p99.9)")
		o+=("$(echo "$r" | grep -o 'over 100 us [0-9]*' | awk '{ print $4 }')")
		late+=("$(echo "$r" | field lateness)")
	done
	printf "%-8s longest %8.1f us  p99.9 %6.1f us  reads over 100 us %5s  worst lateness %8.1f us   [longest: %s]\n" \
		"$mode" "$(printf '%s\n' "${l[@]}" | median)" "$(printf '%s\n' "${p[@]}" | median)" \
		"$(printf '%s\n' "${o[@]}" | median)" "$(printf '%s\n' "${late[@]}" | median)" \
		"$(printf '%s\n' "${l[@]}" | sort -g | tr '\n' ' ')"
done
