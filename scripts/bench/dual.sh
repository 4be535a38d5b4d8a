#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Two-interface benchmark: client->server frames out one port, server->client
# out the other, from one schedule -- replay -i A1 -I A2 against tcpreplay
# (Debian's 4.4.3) and tcpreplay 4.6 with a tcpprep cache, in the same run,
# over two veth pairs between two network namespaces this script creates.
# tcpreplay 4.6 is $TCPREPLAY46, else $ANCHOR_BIN/tcpreplay; neither set, its
# rows are skipped with a note.
#
#   sudo scripts/bench/dual.sh [-r REPS] [-o DIR] [-S SENDERS] [POINT...]
#
#   -r REPS     repetitions, interleaved (default 3); medians and ranges reported
#   -o DIR      traces, captures and results (default: a new /tmp/replay-dual.*)
#   -S SENDERS  default "replay replay-cache tcpreplay tcpreplay46"
#   POINT       top (top speed, $COUNT 64-byte frames, default 200000) or dN
#               (recorded timing at N us gaps for $SECS seconds, default 2):
#               default "top d100 d1000"
#
# The trace is gentrace's pingpong stream: request (198.18.0.x -> 198.19.0.1)
# then reply, alternately, so exactly half the frames belong on each port and
# every reply must leave after its request.  Direction: replay classifies on
# the fly (--split cidr:198.18.0.0/16: a source in the net goes out -i, as
# tcpprep -c does); replay-cache and both tcpreplays read the cache that
# tcpprep -c 198.18.0.0/16 writes (replay-cache through -c, the same file).
#
# Per run:
#   top:  pps = frames counted at the far ends (nftables netdev ingress
#         counters on both B ports) / wall time of the command; lost = asked -
#         counted; wrong = frames on the wrong port (each port must count half).
#   dN:   both far ends captured by replay-rx (nanosecond kernel stamps, the
#         receivers on $RX_CPU), merged by time (mergecap), and compared with
#         the trace by timing-stats: inter-arrival error over consecutive
#         arrivals across both ports (p50/p99/p99.9; the pingpong stream
#         alternates ports, so every pair is a cross-port one: this is the
#         cross-port skew), frames out of order (a reply ahead of its request
#         counts), lost, duration error; and each port's own p99 (its
#         consecutive arrivals only).  Goal: cross-port p99 no worse than
#         the one-port p99.
# The sender runs on $SENDER_CPU (default 0) under taskset; every run holds
# /tmp/replay-bench.lock.  Results: DIR/results.tsv and DIR/summary.md.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/bench/lib.sh"
BUILD=${BUILD:-$ROOT/build}
TCPREPLAY46=${TCPREPLAY46:-${ANCHOR_BIN:+$ANCHOR_BIN/tcpreplay}}
TCPPREP=${TCPPREP:-$(command -v tcpprep || true)}
SENDER_CPU=${SENDER_CPU:-0}
RX_CPU=${RX_CPU:-1}
COUNT=${COUNT:-200000}
SECS=${SECS:-2}
REPS=3
OUT=""
SENDERS="replay replay-cache tcpreplay tcpreplay46"
die() { echo "dual: $*" >&2; exit 1; }
while getopts "r:o:S:" opt; do
	case $opt in
	r) REPS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	S) SENDERS=$OPTARG ;;
	*) die "usage: $0 [-r REPS] [-o DIR] [-S SENDERS] [POINT...]" ;;
	esac
done
shift $((OPTIND - 1))
POINTS=("$@")
[ ${#POINTS[@]} -gt 0 ] || POINTS=(top d100 d1000)
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
for t in replay replay-rx gentrace timing-stats; do
	[ -x "$BUILD/$t" ] || die "build first: $BUILD/$t is missing"
done
[ -n "$TCPPREP" ] || die "tcpprep (Debian's tcpreplay package) is needed for the cache"
command -v mergecap >/dev/null || die "mergecap (wireshark-common) is needed to merge the two captures"
command -v nft >/dev/null || die "nft (nftables) is needed for the far-side counters"

[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/replay-dual.XXXXXX)
mkdir -p "$OUT/bin"
# A copy of the binaries: a rebuild during the run cannot change what is measured.
for t in replay replay-rx gentrace timing-stats; do cp "$BUILD/$t" "$OUT/bin/"; done
git -C "$ROOT" describe --always --dirty >"$OUT/version" 2>/dev/null || true
B=$OUT/bin
WORK=$(mktemp -d /tmp/replay-dual-work.XXXXXX)

ID=$$
NA=dl-a-$ID NB=dl-b-$ID
A1=dla1$ID A2=dla2$ID B1=dlb1$ID B2=dlb2$ID
CAP_PIDS=()
cleanup() {
	local p
	for p in "${CAP_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	ip netns del "$NA" 2>/dev/null || true
	ip netns del "$NB" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
ip netns add "$NA"
ip netns add "$NB"
ip link add "$A1" netns "$NA" type veth peer name "$B1" netns "$NB"
ip link add "$A2" netns "$NA" type veth peer name "$B2" netns "$NB"
for s in "$NA $A1" "$NA $A2" "$NB $B1" "$NB $B2"; do
	set -- $s
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip -n "$1" link set "$2" multicast off up
done
ip netns exec "$NB" nft add table netdev dual
for p in "$B1" "$B2"; do
	ip netns exec "$NB" nft "add chain netdev dual in_$p { type filter hook ingress device $p priority 0; }"
	ip netns exec "$NB" nft add rule netdev dual "in_$p" counter
done
links_up "$NA" "$A1" "$NA" "$A2" "$NB" "$B1" "$NB" "$B2"
far() { ip netns exec "$NB" nft list chain netdev dual "in_$1" | awk '/counter packets/ {print $3; exit}'; }

trace_of() { echo "$OUT/trace-$1.pcap"; }
make_trace() {
	local f
	f=$(trace_of "$1")
	[ -s "$f" ] && return 0
	case $1 in
	top) "$B/gentrace" pingpong -o "$f" --count "$COUNT" --flows 64 --gap-us 1 ;;
	d*) "$B/gentrace" pingpong -o "$f" --count $((SECS * 1000000 / ${1#d})) --flows 64 --gap-us "${1#d}" ;;
	*) die "unknown point $1" ;;
	esac
	"$TCPPREP" -c 198.18.0.0/16 -i "$f" -o "$f.cache" >/dev/null 2>&1 || die "tcpprep failed on $f"
}

json_num() { grep -o "\"$2\":-\?[0-9.]*" "$1" | head -n1 | cut -d: -f2; }

rx_start() {
	: >"$WORK/rx1.err"
	: >"$WORK/rx2.err"
	CAP_PIDS=()
	ip netns exec "$NB" taskset -c "$RX_CPU" "$B/replay-rx" -i "$B1" -s 96 -q -w "$WORK/c1.pcap" 2>"$WORK/rx1.err" &
	CAP_PIDS+=($!)
	ip netns exec "$NB" taskset -c "$RX_CPU" "$B/replay-rx" -i "$B2" -s 96 -q -w "$WORK/c2.pcap" 2>"$WORK/rx2.err" &
	CAP_PIDS+=($!)
	for _ in $(seq 100); do
		grep -q "listening on" "$WORK/rx1.err" && grep -q "listening on" "$WORK/rx2.err" && return 0
		sleep 0.05
	done
	die "receivers did not start: $(cat "$WORK/rx1.err" "$WORK/rx2.err")"
}
rx_stop() {
	local p
	sleep 0.3
	for p in "${CAP_PIDS[@]}"; do kill -TERM "$p"; done
	for p in "${CAP_PIDS[@]}"; do wait "$p" || true; done
	CAP_PIDS=()
}

# measure POINT SENDER REP
measure() {
	local point=$1 sender=$2 rep=$3 trace topt=() ropt=() t0 t1 n1 n2 asked ana
	trace=$(trace_of "$point")
	[ "$point" = top ] && topt=(-t) ropt=(-t -K)
	local -a cmd
	case $sender in
	replay) cmd=("$B/replay" -q "${topt[@]}" -i "$A1" -I "$A2" --split cidr:198.18.0.0/16 "$trace") ;;
	replay-cache) cmd=("$B/replay" -q "${topt[@]}" -i "$A1" -I "$A2" -c "$trace.cache" "$trace") ;;
	tcpreplay) cmd=(tcpreplay -q "${ropt[@]}" -c "$trace.cache" -i "$A1" -I "$A2" "$trace") ;;
	tcpreplay46)
		[ -x "$TCPREPLAY46" ] || { echo "# $sender: no tcpreplay 4.6 at '$TCPREPLAY46' (set ANCHOR_BIN or TCPREPLAY46), skipped" >&2; return 0; }
		cmd=("$TCPREPLAY46" -q "${ropt[@]}" -c "$trace.cache" -i "$A1" -I "$A2" "$trace") ;;
	*) die "unknown sender $sender" ;;
	esac
	asked=$("$B/replay" --info "$trace" 2>/dev/null | awk '/^packets:/ {print $2; exit}')
	exec 9>/tmp/replay-bench.lock
	flock 9
	local f1 f2
	f1=$(far "$B1")
	f2=$(far "$B2")
	[ "$point" = top ] || rx_start
	t0=$(date +%s%N)
	ip netns exec "$NA" timeout -s INT -k 5 $((SECS * 10 + 60)) taskset -c "$SENDER_CPU" "${cmd[@]}" \
		>"$WORK/sender.out" 2>"$WORK/sender.err" ||
		echo "# $point $sender $rep: sender exited $?: $(head -c 300 "$WORK/sender.err")" >&2
	t1=$(date +%s%N)
	[ "$point" = top ] || rx_stop
	sleep 0.2
	n1=$(($(far "$B1") - f1))
	n2=$(($(far "$B2") - f2))
	flock -u 9
	exec 9>&-
	: "${asked:=$(( (n1 + n2) ))}"
	if [ "$point" = top ]; then
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\t\t\t\t\n' "$point" "$sender" "$rep" "$asked" "$n1" "$n2" \
			"$((asked - n1 - n2))" "$(awk -v n=$((n1 + n2)) -v t=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1e9 / t }')" \
			>>"$OUT/results.tsv"
	else
		ana="$OUT/$point-$sender-$rep.json"
		mergecap -F nsecpcap -w "$WORK/merged.pcap" "$WORK/c1.pcap" "$WORK/c2.pcap"
		"$B/timing-stats" analyze "$trace" "$WORK/merged.pcap" >"$ana"
		# Each port alone: its consecutive arrivals against their recorded gaps (the other
		# port's frames count as lost there, which is why only the error is taken).
		"$B/timing-stats" analyze "$trace" "$WORK/c1.pcap" >"$ana.p1"
		"$B/timing-stats" analyze "$trace" "$WORK/c2.pcap" >"$ana.p2"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$point" "$sender" "$rep" "$asked" "$n1" "$n2" \
			"$(json_num "$ana" lost)" "$(json_num "$ana" pps)" "$(json_num "$ana" out_of_order)" \
			"$(json_num "$ana" p50)" "$(json_num "$ana" p99)" "$(json_num "$ana" p999)" \
			"$(json_num "$ana" duration_error_pct)" "$(json_num "$ana.p1" p99)" "$(json_num "$ana.p2" p99)" \
			>>"$OUT/results.tsv"
		if [ -n "${KEEP:-}" ]; then mv "$WORK/c1.pcap" "$WORK/c2.pcap" "$WORK/merged.pcap" "$OUT/"; else rm -f "$WORK/c1.pcap" "$WORK/c2.pcap" "$WORK/merged.pcap"; fi
		rm -f "$ana.p1" "$ana.p2"
	fi
	tail -n1 "$OUT/results.tsv"
}

echo "dual: results in $OUT" >&2
for p in "${POINTS[@]}"; do make_trace "$p"; done
printf 'point\tsender\trep\tasked\tport1\tport2\tlost\tpps\tout_of_order\tia_p50_ns\tia_p99_ns\tia_p999_ns\tdur_err_pct\tport1_p99_ns\tport2_p99_ns\n' \
	>"$OUT/results.tsv"
for rep in $(seq "$REPS"); do
	for p in "${POINTS[@]}"; do
		for s in $SENDERS; do measure "$p" "$s" "$rep"; done
	done
done

# Medians (and ranges) per point and sender; the port split must be half and half.
awk -F'\t' '
function med(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
NR == 1 { next }
{
	k = $1 "\t" $2; keys[k] = 1; n[k]++
	pps[k, n[k]] = $8; p99[k, n[k]] = $11; lost[k] += $7; ooo[k] += $9
	q1[k, n[k]] = $14; q2[k, n[k]] = $15
	if ($5 != $6) split_bad[k]++
}
END {
	for (k in keys) {
		m = n[k]; lo = hi = pps[k, 1]; plo = phi = p99[k, 1]
		for (i = 1; i <= m; i++) {
			a[i] = pps[k, i]; b[i] = p99[k, i]
			if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i]
			if (b[i] < plo) plo = b[i]; if (b[i] > phi) phi = b[i]
		}
		split(k, f, "\t")
		pp = med(a, m)
		for (i = 1; i <= m; i++) { b2[i] = b[i]; c1[i] = q1[k, i]; c2[i] = q2[k, i] }
		q = med(b2, m)
		printf "| %s | %s | %.0f (%.0f-%.0f) | %s | %s | %d | %d | %d |\n", f[1], f[2], pp, lo, hi,
			(f[1] == "top" ? "-" : sprintf("%.1f (%.1f-%.1f)", q / 1e3, plo / 1e3, phi / 1e3)),
			(f[1] == "top" ? "-" : sprintf("%.1f / %.1f", med(c1, m) / 1e3, med(c2, m) / 1e3)),
			lost[k], ooo[k], split_bad[k]
	}
}' "$OUT/results.tsv" | sort -t'|' -k2,2 -k3,3 >"$WORK/rows"
{
	echo "| point | sender | pps (median, range) | cross-port inter-arrival p99 us (median, range) | per-port p99 us (port 1 / port 2) | lost (all reps) | out of order (all reps) | runs with unequal ports |"
	echo "|---|---|---|---|---|---|---|---|"
	cat "$WORK/rows"
} >"$OUT/summary.md"
cat "$OUT/summary.md"
