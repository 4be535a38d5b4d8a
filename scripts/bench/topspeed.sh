#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Top-speed transmit benchmark: every replay --method against tcpreplay -t -K,
# netsniff-ng and trafgen, in the same run, over a veth pair between two
# network namespaces this script creates (and removes).
#
#   sudo scripts/bench/topspeed.sh [BUILD_DIR]     (default: build)
#   REPS=3 SIZES="64 512 1514" METHODS="..." COUNT_64=1000000 ...
#   PRELOAD="xdp xdp@2" TRACE_STATE=written|cold|cached
#   QUEUES=2 FLOWS=64 METHODS="mmsg xdp mmsg@2 xdp@2" ANCHORS="tcpreplay46-xdp trafgen2"
#
# A method written METHOD runs replay --method METHOD --threads 1; "default"
# runs a plain replay -t (--method auto, one thread); "threads-auto" runs
# replay -t --threads auto (with QUEUES >= 2, one thread per queue and CPU:
# man replay, --threads, Threads by auto).
# A method written METHOD@N runs replay --method METHOD --threads N --cpu
# 0-(N-1) (flow-sharded sender threads; FLOWS gives the traces that many
# flows to shard, QUEUES the veth pair that many TX/RX queues -- the same
# link for every tool of the run).  A method written METHOD+K (METHOD@N+K)
# adds -K (--preload): replay reads the whole trace into memory before its
# first packet, as tcpreplay -K does, instead of streaming it from the page
# cache.  PRELOAD lists the methods that get such a row after the METHODS
# rows (default "xdp"; "" for none): the like-for-like comparison with
# tcpreplay's -K rows -- both wall rates then include the preload, both self
# rates exclude it (replay's starts at its schedule's start, after the
# trace was opened; tcpreplay's after its cache was filled).
# TRACE_STATE is what the streamed trace is in the page cache when it is
# sent: "written" (default; as gentrace left it: 4 KiB folios from its
# 4 KiB writes, so the reader's mapping takes a fault per 64 KiB and a TLB
# miss per 4 KiB), "cold" (dropped from the page cache after it is written:
# replay reads it from disk, as a trace not replayed lately) or "cached"
# (dropped, then read once through replay's own reader, which leaves it in
# the 2 MiB folios the kernel reads ahead in: a trace replayed again).
# Anchors: tcpreplay (Debian's 4.4.3, -K), tcpreplay46 (4.6: $TCPREPLAY46,
# else $ANCHOR_BIN/tcpreplay; neither set, the tcpreplay46 rows are skipped
# with a note; -K), tcpreplay46-xdp (the same with
# --xdp --xdp-batch-size 64, its best injector), tcpreplay46-xdp-stream (the
# same without -K: it reads the trace while sending, like replay's default),
# trafgen (--cpus 1),
# trafgen2 (--cpus 2), netsniff-ng.
#
# For each frame size, REPS rounds, each running every tool once in turn (a
# slow phase of the machine then falls on all tools alike); per tool the
# median is printed with the spread (min..max of the rate).  Per run:
#   pps       frames that left A (A's tx_packets delta) / wall time of the command
#             (trace loading included: tcpreplay -K preloads, replay maps)
#   self      the tool's own rate for its send phase, where it reports one
#   far       frames B's ingress counted (nftables netdev ingress counter), must equal what was asked
#   cpu/pkt   (user + sys CPU of the sender) / frames, ns
#   lost      frames asked for minus frames counted at B (softnet and veth drops
#             are checked too and reported)
# A second pass ("hot") sends the same number of frames from a 1000-frame
# trace looped (--loop / tcpreplay --loop), so the trace stays in the CPU
# caches as trafgen's single frame does: it separates the cost of streaming a
# large trace from the page cache (the reader's) from the cost of sending.
# Then a fidelity pass: 50000 64-byte frames per tool, captured at B with
# tcpdump and compared frame by frame (pcapdiff), for loss and reordering.
# Every measurement holds /tmp/replay-bench.lock (other benchmarks wait).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BUILD=${1:-build}
REPLAY=$PWD/$BUILD/replay
GENTRACE=$PWD/$BUILD/gentrace
PCAPDIFF=$PWD/$BUILD/pcapdiff
READBENCH=$PWD/$BUILD/readbench
REPS=${REPS:-3}
SIZES=${SIZES:-"64 512 1514"}
METHODS=${METHODS:-"packet mmsg ring ring+bypass uring xdp default"}
PRELOAD=${PRELOAD-"xdp"}
TRACE_STATE=${TRACE_STATE:-written}
PRELOAD_ROWS=$(for m in $PRELOAD; do printf '%s+K ' "$m"; done)
HOT_TOOLS=${HOT_TOOLS:-"mmsg ring+bypass uring xdp tcpreplay"}
# netsniff-ng is left out by default: replaying a pcap it sends ~15 frames/s on
# this kernel (with --mmap it spins forever); ANCHORS="... netsniff-ng" adds it.
ANCHORS=${ANCHORS:-"tcpreplay trafgen"}
QUEUES=${QUEUES:-1}
FLOWS=${FLOWS:-1}
TCPREPLAY46=${TCPREPLAY46:-${ANCHOR_BIN:+$ANCHOR_BIN/tcpreplay}}
if [ ! -x "$TCPREPLAY46" ] && [[ " $ANCHORS " == *" tcpreplay46"* ]]; then
	echo "topspeed: note: no tcpreplay 4.6 at '$TCPREPLAY46' (set ANCHOR_BIN or TCPREPLAY46): its rows are skipped" >&2
	ANCHORS=$(for a in $ANCHORS; do [[ $a == tcpreplay46* ]] || printf '%s ' "$a"; done)
fi
declare -A COUNT=([64]=${COUNT_64:-1000000} [512]=${COUNT_512:-400000} [1514]=${COUNT_1514:-200000})
case $TRACE_STATE in written | cold | cached) ;; *) echo "topspeed: TRACE_STATE is written, cold or cached" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "topspeed: needs root (network namespaces)" >&2; exit 1; }
[ -x "$REPLAY" ] || { echo "topspeed: build first (ninja -C $BUILD)" >&2; exit 1; }
[ "$TRACE_STATE" != cached ] || [ -x "$READBENCH" ] ||
	{ echo "topspeed: TRACE_STATE=cached needs $BUILD/readbench (ninja -C $BUILD readbench)" >&2; exit 1; }

# Hold the bench lock for the whole run (re-exec under flock once).
if [ -z "${BENCH_LOCKED:-}" ]; then
	export BENCH_LOCKED=1
	exec flock /tmp/replay-bench.lock "$0" "$@"
fi

ID=$$
NA=bn-a-$ID NB=bn-b-$ID IA=bna$ID IB=bnb$ID
WORK=$(mktemp -d /tmp/replay-bench.XXXXXX)
cleanup() { ip netns del "$NA" 2>/dev/null || true; ip netns del "$NB" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
veth_pair "$NA" "$IA" "$NB" "$IB" "$QUEUES"
far_counter "$NB" "$IB"
far_count() { far_read "$NB" | cut -d' ' -f1; }
txp() { ip netns exec "$NA" cat /sys/class/net/$IA/statistics/tx_packets; }
txd() { ip netns exec "$NA" cat /sys/class/net/$IA/statistics/tx_dropped; }
softnet() { local s=0 d; while read -r _ d _; do s=$((s + 16#$d)); done </proc/net/softnet_stat; echo $s; }

# trafgen sends one frame over and over: the trace's first frame, as a config.
trafgen_cfg() {
	od -An -v -tx1 -j 40 -N "$2" "$1" | tr -s ' \n' ' ' |
		sed 's/^ //; s/ $//; s/\([0-9a-f][0-9a-f]\)/0x\1,/g; s/^/{ /; s/,$/ }/' >"$3"
}

# cmd_for TOOL TRACE N: the command line that sends N frames of TRACE (LOOP times over).
LOOP=1
cmd_for() {
	local tool=$1 tr=$2 n=$3 size=$4 l=""
	[ "$LOOP" = 1 ] || l="--loop $LOOP"
	case $tool in
	*+K) l="$l -K" tool=${tool%+K} ;;
	esac
	case $tool in
	tcpreplay) echo "tcpreplay -q -t -K $l -i $IA $tr" ;;
	tcpreplay46) echo "$TCPREPLAY46 -q -t -K $l -i $IA $tr" ;;
	tcpreplay46-xdp) echo "$TCPREPLAY46 -q -t -K --xdp --xdp-batch-size 64 $l -i $IA $tr" ;;
	# Without -K: it reads the trace as it sends, as replay's default does.
	tcpreplay46-xdp-stream) echo "$TCPREPLAY46 -q -t --xdp --xdp-batch-size 64 $l -i $IA $tr" ;;
	trafgen2) echo "trafgen --dev $IA --conf $WORK/t$size.cfg --num $n --cpus 2" ;;
	*@*) echo "$REPLAY -q -i $IA --method ${tool%@*} --threads ${tool#*@} --cpu 0-$((${tool#*@} - 1)) --topspeed $l --stats-json $WORK/js $tr" ;;
	netsniff-ng) echo "netsniff-ng --in $tr --out $IA --ring-size 64MiB -A --silent" ;;
	trafgen) echo "trafgen --dev $IA --conf $WORK/t$size.cfg --num $n --cpus 1" ;;
	# default: a plain replay -t, its method its own (--method auto, one thread).
	default) echo "$REPLAY -q -i $IA --topspeed $l --stats-json $WORK/js $tr" ;;
	threads-auto) echo "$REPLAY -q -i $IA --threads auto --topspeed $l --stats-json $WORK/js $tr" ;;
	# --threads 1 spelled out: the same as none given (an A/B build may predate --threads auto).
	ring+bypass) echo "$REPLAY -q -i $IA --method ring --qdisc-bypass --threads 1 --topspeed $l --stats-json $WORK/js $tr" ;;
	*) echo "$REPLAY -q -i $IA --method $tool --threads 1 --topspeed $l --stats-json $WORK/js $tr" ;;
	esac
}

# self_pps TOOL: the rate the tool itself reported for the last run, or 0.
self_pps() {
	case $1 in
	tcpreplay | tcpreplay46*) grep -o "[0-9.]* pps" "$WORK/out" | head -n1 | cut -d' ' -f1 ;;
	trafgen* | netsniff-ng) echo 0 ;;
	*) grep -o '"pps":[0-9.]*' "$WORK/js" | cut -d: -f2 ;;
	esac
}

# measure TOOL SIZE N [TRACE]: one run; prints "pps far lost cpu_ns_per_pkt drops self_pps".
measure() {
	local tool=$1 size=$2 n=$3 tr=${4:-$WORK/u$2.pcap} t0 f0 d0 s0 start end
	[ "$tr" = "$WORK/u$size.pcap" ] && trace_state "$tr"
	t0=$(txp) f0=$(far_count) d0=$(txd) s0=$(softnet)
	rm -f "$WORK/js"
	start=$(date +%s%N)
	# (netsniff-ng --mmap spins forever at the end of its input here: hence no --mmap, and a timeout)
	/usr/bin/time -f "%U %S" -o "$WORK/time" timeout -s KILL 120 ip netns exec "$NA" $(cmd_for "$tool" "$tr" "$n" "$size") \
		>"$WORK/out" 2>&1 || true
	end=$(date +%s%N)
	sleep 0.2 # frames in B's backlog reach its ingress counter
	local left=$(($(txp) - t0)) far=$(($(far_count) - f0))
	local drops=$(($(txd) - d0 + $(softnet) - s0))
	read -r u s <"$WORK/time"
	awk -v l="$left" -v f="$far" -v n="$n" -v ns=$((end - start)) -v u="$u" -v s="$s" -v d="$drops" \
		-v sp="$(self_pps "$tool")" \
		'BEGIN { printf "%.0f %d %d %.0f %d %.0f\n", l * 1e9 / ns, f, n - f, (u + s) * 1e9 / (f ? f : 1), d, sp }'
}

# trace_state FILE: put FILE in the page cache state TRACE_STATE names (before each run).
trace_state() {
	[ "$TRACE_STATE" = written ] && return 0
	sync "$1"
	# POSIX_FADV_DONTNEED over the whole file: its clean pages leave the page cache.
	dd if="$1" iflag=nocache count=0 status=none
	[ "$TRACE_STATE" = cached ] && "$READBENCH" drain ours "$1" >/dev/null
	return 0
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# summarize TOOL LABEL SIZE N: one line of medians over TOOL's runs ($WORK/res.TOOL).
summarize() {
	local res=$WORK/res.$1 label=$2 size=$3 n=$4 pps lo hi lost drops cpu self
	pps=$(cut -d' ' -f1 <"$res" | median)
	lo=$(cut -d' ' -f1 <"$res" | sort -n | head -n1)
	hi=$(cut -d' ' -f1 <"$res" | sort -n | tail -n1)
	lost=$(awk '{s += $3} END {print s}' "$res")
	drops=$(awk '{s += $5} END {print s}' "$res")
	cpu=$(cut -d' ' -f4 <"$res" | median)
	self=$(cut -d' ' -f6 <"$res" | median)
	[ "$self" = 0 ] && self=-
	printf "%-16s %5s %8s %8s (%7s..%7s) %8s %8s %6s %8s\n" "$label" "$size" "$n" "$pps" "$lo" "$hi" "$self" "$lost" "$drops" "$cpu"
}

# run_tools SIZE N TRACE SUFFIX TOOL...: REPS rounds, each running every TOOL
# once in turn -- so a slow phase of the machine (they last seconds here)
# falls on every tool alike, not on one tool's runs -- then a line of
# medians per tool, labelled TOOL SUFFIX.
run_tools() {
	local size=$1 n=$2 tr=$3 suffix=$4 tool
	shift 4
	for tool in "$@"; do : >"$WORK/res.$tool"; done
	for _ in $(seq "$REPS"); do
		for tool in "$@"; do measure "$tool" "$size" "$n" "$tr" >>"$WORK/res.$tool"; done
	done
	for tool in "$@"; do summarize "$tool" "$tool$suffix" "$size" "$n"; done
}

echo "# replay $("$REPLAY" --version | cut -d' ' -f2), kernel $(uname -r), $(nproc) CPUs, veth with $QUEUES queues, $FLOWS flows, $(date -u +%FT%TZ)"
printf "%-16s %5s %8s %26s %8s %8s %6s %8s\n" tool bytes frames "pps median (min..max)" self far-lost drops "cpu ns/pkt"
for size in $SIZES; do
	n=${COUNT[$size]}
	"$GENTRACE" udp --size "$size" --count "$n" --flows "$FLOWS" -o "$WORK/u$size.pcap" >/dev/null
	trafgen_cfg "$WORK/u$size.pcap" "$size" "$WORK/t$size.cfg"
	"$GENTRACE" udp --size "$size" --count 1000 --flows "$FLOWS" -o "$WORK/h$size.pcap" >/dev/null
	# shellcheck disable=SC2086 # the lists are words
	run_tools "$size" "$n" "$WORK/u$size.pcap" "" $METHODS $PRELOAD_ROWS $ANCHORS
	LOOP=$((n / 1000))
	# shellcheck disable=SC2086
	run_tools "$size" "$n" "$WORK/h$size.pcap" "(hot)" $HOT_TOOLS
	LOOP=1
	rm -f "$WORK/u$size.pcap"
done

# Fidelity: what arrived, frame by frame, in order.
echo
echo "# fidelity: 50000 64-byte frames, captured at B, compared with the trace"
"$GENTRACE" udp --size 64 --count 50000 --flows "$FLOWS" -o "$WORK/f.pcap" >/dev/null
for tool in $METHODS $(echo "$ANCHORS" | sed 's/trafgen2*//g'); do
	ip netns exec "$NB" tcpdump -i "$IB" -Q in -s 96 -B 262144 -U --immediate-mode -w "$WORK/got.pcap" \
		2>"$WORK/td.err" &
	cap=$!
	for _ in $(seq 100); do grep -q "listening on" "$WORK/td.err" && break; sleep 0.05; done
	timeout -s KILL 60 ip netns exec "$NA" $(cmd_for "$tool" "$WORK/f.pcap" 50000 64) >/dev/null 2>&1 || true
	sleep 0.5
	kill -TERM "$cap"
	wait "$cap" || true
	capdrop=$(grep -o "^[0-9]* packets dropped by kernel" "$WORK/td.err" | cut -d' ' -f1)
	# Sender threads keep each flow's order, not the order across flows: checked per flow.
	case $tool in
	*@* | threads-auto) verdict=$(python3 tests/integration/flow_order.py "$WORK/f.pcap" "$WORK/got.pcap" 2>&1 || true) ;;
	*) verdict=$("$PCAPDIFF" "$WORK/f.pcap" "$WORK/got.pcap" || true) ;;
	esac
	printf "%-12s %s (capture dropped %s)\n" "$tool" "$verdict" "${capdrop:-?}"
done
