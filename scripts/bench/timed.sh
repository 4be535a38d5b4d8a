#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Timing fidelity per transmit method: replay honours the trace's gaps with
# every method, not only packet (batching must never cost timing).  Over a
# veth pair in namespaces this script creates, for each gap and method:
# capture at B with nanosecond timestamps, check every frame arrived in order
# (pcapdiff), and measure the inter-arrival error |arrival gap - trace gap|
# (p50, p99, max) and the duration error; tcpreplay 4.4.3 in the same run.
#
#   sudo scripts/bench/timed.sh [BUILD_DIR]     REPS=3 GAPS="100 1000" COUNT=3000
#
# Holds /tmp/replay-bench.lock for the whole run.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BUILD=${1:-build}
REPLAY=$PWD/$BUILD/replay
GENTRACE=$PWD/$BUILD/gentrace
PCAPDIFF=$PWD/$BUILD/pcapdiff
REPS=${REPS:-3}
GAPS=${GAPS:-"100 1000"}
COUNT=${COUNT:-3000}
TOOLS=${TOOLS:-"packet mmsg ring uring xdp tcpreplay"}
[ "$(id -u)" = 0 ] || { echo "timed: needs root" >&2; exit 1; }
if [ -z "${BENCH_LOCKED:-}" ]; then
	export BENCH_LOCKED=1
	exec flock /tmp/replay-bench.lock "$0" "$@"
fi

ID=$$
NA=bt-a-$ID NB=bt-b-$ID IA=bta$ID IB=btb$ID
WORK=$(mktemp -d /tmp/replay-timed.XXXXXX)
cleanup() { ip netns del "$NA" 2>/dev/null || true; ip netns del "$NB" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
veth_pair "$NA" "$IA" "$NB" "$IB"

cmd_for() {
	case $1 in
	tcpreplay) echo "tcpreplay -q -K -i $IA $2" ;;
	*) echo "$REPLAY -q -i $IA --method $1 --stats-json $WORK/js $2" ;;
	esac
}

# relative timestamps (s, ns precision) of a trace, one per line
times() { tshark -r "$1" -T fields -e frame.time_relative 2>/dev/null; }

# inter-arrival error of GOT against EXP: "p50_us p99_us max_us duration_err_pct"
iat_err() {
	paste <(times "$1") <(times "$2") >"$WORK/pairs"
	local dur
	dur=$(awk '{ le = $1; lg = $2 } END { printf "%.3f", (lg - le) * 100 / le }' "$WORK/pairs")
	awk 'NR > 1 { e = (($2 - pg) - ($1 - pe)) * 1e6; if (e < 0) e = -e; print e } { pe = $1; pg = $2 }' \
		"$WORK/pairs" | sort -g | awk -v dur="$dur" '{ v[NR] = $1 }
		END { printf "%.1f %.1f %.1f %s\n", v[int(NR * 0.5)], v[int(NR * 0.99)], v[NR], dur }'
}

echo "# replay $("$REPLAY" --version | cut -d' ' -f2), kernel $(uname -r), $(nproc) CPUs, veth, $(date -u +%FT%TZ), $COUNT frames of 64 bytes per run"
printf "%-10s %6s %28s %28s %12s %14s\n" tool gap_us "iat err p50/p99/max us" "(min..max of p99)" "duration %" "send err p99"
for gap in $GAPS; do
	"$GENTRACE" udp --size 64 --count "$COUNT" --gap-us "$gap" --nsec -o "$WORK/t.pcap" >/dev/null
	for tool in $TOOLS; do
		: >"$WORK/res"
		for _ in $(seq "$REPS"); do
			ip netns exec "$NB" tcpdump -i "$IB" -Q in -s 96 -B 65536 -U --immediate-mode \
				--time-stamp-precision=nano -w "$WORK/got.pcap" 2>"$WORK/td.err" &
			cap=$!
			for _ in $(seq 100); do grep -q "listening on" "$WORK/td.err" && break; sleep 0.05; done
			rm -f "$WORK/js"
			ip netns exec "$NA" $(cmd_for "$tool" "$WORK/t.pcap") >/dev/null 2>&1 || true
			sleep 0.3
			kill -TERM "$cap"
			wait "$cap" || true
			"$PCAPDIFF" "$WORK/t.pcap" "$WORK/got.pcap" >"$WORK/diff" || {
				echo "$tool gap $gap: far side differs: $(cat "$WORK/diff")"
				continue
			}
			sp99=-
			[ -f "$WORK/js" ] && sp99=$(grep -o '"p99":[0-9]*' "$WORK/js" | cut -d: -f2)
			echo "$(iat_err "$WORK/t.pcap" "$WORK/got.pcap") $sp99" >>"$WORK/res"
		done
		med() { cut -d' ' -f"$1" "$WORK/res" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
		printf "%-10s %6s %28s %28s %12s %14s\n" "$tool" "$gap" "$(med 1)/$(med 2)/$(med 3)" \
			"($(cut -d' ' -f2 "$WORK/res" | sort -n | head -n1)..$(cut -d' ' -f2 "$WORK/res" | sort -n | tail -n1))" \
			"$(med 4)" "$(med 5)"
	done
done
