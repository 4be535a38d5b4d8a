#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Timing benchmark: how well replay keeps the recorded timing and requested
# rates, measured where it matters -- at the far end of a veth pair, by a
# receiver in another network namespace with nanosecond timestamps -- with
# tcpreplay (4.4.3, Debian) measured in the same run by the same receiver.
#
#   sudo scripts/bench/timing.sh [-r REPS] [-o DIR] [-s SECONDS] [-x] [POINT...]
#
#   -r REPS     repetitions of the whole matrix, interleaved (default 3); medians reported
#   -o DIR      where traces, captures and results go (default: a new /tmp/replay-timing.*)
#   -s SECONDS  length of each run (default 2; 3 for the 1 ms and 2.5 ms gaps)
#   -x          also the loaded variant: stress-ng --cpu 2 --io 1 --vm 1 during every run
#               (senders: $LOAD_SENDERS, default "replay replay-rt tcpreplay")
#   -S SENDERS  the senders on an idle machine (default "replay replay-rt tcpreplay
#               tcpreplay46 cyclictest")
#   POINT       any of dN (N us gaps: d10 d20 d70 d100 d1000 d2500 ...), ppsN[k],
#               mbpsN (default: d10 d20 d70 d100 d1000 d2500 pps10k pps100k pps500k
#               mbps100 mbps1000)
#
# Senders: replay (defaults), replay-rt (--rt-priority 50), replay-b (the
# defaults of another build, $REPLAY_B: an A/B of two versions; replay-b-rt
# the same with --rt-priority 50), replay-m-METHOD (the defaults with --method
# METHOD: which injector keeps the far side's timing best), replay-x (the
# defaults plus $REPLAY_X_OPTS), python (the defaults through the Python bindings
# over $BUILD's libreplay.so: Replay(TRACE, interface=IF, ...).run()), tcpreplay
# (Debian's 4.4.3), tcpreplay46 (4.6: $TCPREPLAY46, else $ANCHOR_BIN/tcpreplay;
# skipped with a note when neither is set), and cyclictest (rt-tests; at the dN
# points only: the machine's floor -- cyclictest -p 50 on the sender's CPU at
# the same interval, its wake-up latency percentiles in the ia_* columns,
# for the "within 1.5 us of cyclictest's p99" comparison); under load
# (LOAD_SENDERS) replay, replay-rt and tcpreplay.  The sender runs on CPU
# $SENDER_CPU (default 0), the receiver on $RX_CPU (default 1): the
# far-side receiver never competes with the sender.  For each run: frames lost, duration
# error, inter-arrival error percentiles (|actual gap - scheduled gap| over
# consecutive arrivals), achieved rate and the sender's CPU share
# (timing-stats run: user + system time of the sender / wall time).  Each
# rep also records the machine's own floor (timing-stats lateness): how late
# clock_nanosleep wakes and how long the VM pauses a spinning thread.
# A sender still running after $SENDER_TIMEOUT seconds (default ten times the
# trace's length plus 30) is stopped; its missing frames show as lost.
#
# Every run holds /tmp/replay-bench.lock, so benchmarks on this machine never
# overlap.  The receiver is replay-rx (rx_start/rx_stop below; RX=tcpdump
# for tcpdump).  Results: DIR/results.tsv (every run), DIR/summary.md
# (medians, and tcpreplay's p99 over replay's).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
REPLAY=$BUILD/replay
GENTRACE=$BUILD/gentrace
TSTATS=$BUILD/timing-stats
REPLAY_RX=$BUILD/replay-rx
TRACES=$ROOT/traces
LOCK=/tmp/replay-bench.lock
export REPLAY TRACES

REPS=3
OUT=""
SECS=2
STRESS=0
SENDERS="replay replay-rt tcpreplay tcpreplay46 cyclictest"
SENDER_CPU=${SENDER_CPU:-0}
RX_CPU=${RX_CPU:-1}
TCPREPLAY46=${TCPREPLAY46:-${ANCHOR_BIN:+$ANCHOR_BIN/tcpreplay}}
while getopts "r:o:s:xS:" opt; do
	case $opt in
	S) SENDERS=$OPTARG ;;
	r) REPS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	s) SECS=$OPTARG ;;
	x) STRESS=1 ;;
	*) sed -n '2,30p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
POINTS=("$@")
[ ${#POINTS[@]} -gt 0 ] || POINTS=(d10 d20 d70 d100 d1000 d2500 pps10k pps100k pps500k mbps100 mbps1000)

for f in "$REPLAY" "$GENTRACE" "$TSTATS" "$REPLAY_RX"; do
	[ -x "$f" ] || { echo "timing.sh: $f missing: build first (meson setup build && ninja -C build)" >&2; exit 1; }
done
for t in tcpdump tcpreplay; do
	command -v $t >/dev/null || { echo "timing.sh: $t missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
case " $SENDERS " in
*" cyclictest "*) command -v cyclictest >/dev/null ||
	{ echo "timing.sh: cyclictest missing (scripts/deps.sh installs rt-tests)" >&2; exit 1; } ;;
esac
case " $SENDERS " in
*" tcpreplay46 "*)
	if [ ! -x "$TCPREPLAY46" ]; then
		echo "timing.sh: note: no tcpreplay 4.6 at '$TCPREPLAY46' (set ANCHOR_BIN or TCPREPLAY46): not measured" >&2
		SENDERS=$(echo " $SENDERS " | sed 's/ tcpreplay46 / /')
	fi ;;
esac
[ $STRESS = 0 ] || command -v stress-ng >/dev/null ||
	{ echo "timing.sh: stress-ng missing (scripts/deps.sh installs it)" >&2; exit 1; }

# Namespaces, veth, teardown: the integration tests' harness.
. "$ROOT/tests/integration/lib.sh"
require_root
init_ns
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/replay-timing.XXXXXX)
mkdir -p "$OUT/bin"
# A rebuild during a long run must not change the programs half-way: run copies.
cp "$REPLAY" "$GENTRACE" "$TSTATS" "$REPLAY_RX" "$OUT/bin/"
REPLAY=$OUT/bin/replay
GENTRACE=$OUT/bin/gentrace
TSTATS=$OUT/bin/timing-stats
REPLAY_RX=$OUT/bin/replay-rx
# The python sender: argv PYTHON_DIR IF STATS_JSON TRACE [--NAME VALUE]... as Replay(...).run().
if echo " $SENDERS ${LOAD_SENDERS:-} " | grep -q ' python '; then
	command -v python3 >/dev/null || { echo "timing.sh: the python sender needs python3" >&2; exit 1; }
	[ -f "$BUILD/src/lib/libreplay.so.0" ] || { echo "timing.sh: the python sender needs $BUILD/src/lib/libreplay.so.0" >&2; exit 1; }
	cp "$BUILD/src/lib/libreplay.so.0" "$OUT/bin/"
	cat >"$OUT/bin/run.py" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import replay
iface, js, trace, rest = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
opts = {rest[i].lstrip("-").replace("-", "_"): rest[i + 1] for i in range(0, len(rest), 2)}
replay.Replay(trace, interface=iface, quiet=True, stats_json=js, **opts).run()
PYEOF
fi
git -C "$ROOT" describe --always --dirty >"$OUT/version" 2>/dev/null || true
STRESS_PID=""
stop_stress() {
	if [ -n "$STRESS_PID" ]; then
		kill -TERM "$STRESS_PID" 2>/dev/null || true
		wait "$STRESS_PID" 2>/dev/null || true
		STRESS_PID=""
	fi
}
trap 'stop_stress; teardown' EXIT

# ---- the receiver --------------------------------------------------------
# rx_start FILE: replay-rx on B's end writes every frame arriving there to
# FILE with nanosecond timestamps taken by the kernel as the frame is queued
# to B (for veth: inside the sender's send call), 128-byte snap, 64 MiB
# TPACKET_V3 ring (small snaplen, big buffer, as Menski, "tcpdump Analyse",
# 2016, found keeps capture loss down); returns once it
# listens.  RX=tcpdump uses tcpdump instead (the same kernel stamps: t_rx
# checks that the two agree to the nanosecond).
rx_start() {
	: >"$WORK/rx.err"
	rm -f "$WORK/rx.json"
	if [ "${RX:-replay-rx}" = tcpdump ]; then
		ip netns exec "$NS_B" taskset -c "$RX_CPU" tcpdump -i "$IF_B" -Q in -s 128 -B 65536 --immediate-mode \
			--time-stamp-precision=nano -w "$1" 2>"$WORK/rx.err" &
	else
		ip netns exec "$NS_B" taskset -c "$RX_CPU" "$REPLAY_RX" -i "$IF_B" -s 128 -q -w "$1" \
			--json "$WORK/rx.json" 2>"$WORK/rx.err" &
	fi
	CAP_PID=$!
	for _ in $(seq 100); do
		grep -q "listening on" "$WORK/rx.err" && return 0
		sleep 0.05
	done
	die "receiver did not start: $(cat "$WORK/rx.err")"
}

# rx_stop: let the last frames land, stop; RX_DROPS = what the capture itself lost.
rx_stop() {
	sleep 0.3
	kill -TERM "$CAP_PID"
	wait "$CAP_PID" || true
	CAP_PID=""
	if [ "${RX:-replay-rx}" = tcpdump ]; then
		RX_DROPS=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$WORK/rx.err")
	else
		RX_DROPS=$(json_num "$WORK/rx.json" kernel_drops)
	fi
	: "${RX_DROPS:=?}"
}

# ---- the points ----------------------------------------------------------
# point_trace POINT: the trace file; point_opts: how replay, tcpreplay and the
# analyser are told the rate.
point_trace() { echo "$OUT/trace-$1.pcap"; }
# point_rate POINT: pps10k -> 10000, mbps100 -> 100.
point_rate() {
	local r=${1#pps}
	r=${r#mbps}
	case $r in *k) echo $((${r%k} * 1000)) ;; *) echo "$r" ;; esac
}

make_trace() {
	local p=$1 f n secs=$SECS
	f=$(point_trace "$p")
	[ -s "$f" ] && return 0
	case $p in
	d1000 | d2500) secs=$((SECS > 3 ? SECS : 3)) ;;
	esac
	# 64-byte frames at gaps of d us or for --pps; full-size frames for --mbps.
	case $p in
	d*) n=$((secs * 1000000 / ${p#d})); "$GENTRACE" udp -o "$f" --count $n --gap-us "${p#d}" ;;
	pps*) "$GENTRACE" udp -o "$f" --count $((SECS * $(point_rate "$p"))) --gap-us 1 ;;
	mbps*) "$GENTRACE" udp -o "$f" --count $((SECS * $(point_rate "$p") * 1000000 / (1514 * 8))) \
		--size 1514 --gap-us 1 ;;
	*) die "unknown point $p" ;;
	esac
}

# Options for replay / tcpreplay / timing-stats analyze at POINT.
replay_opts() {
	case $1 in
	d*) ;;
	pps*) echo "--pps $(point_rate "$1")" ;;
	mbps*) echo "--mbps $(point_rate "$1")" ;;
	esac
}
tcpreplay_opts() {
	case $1 in
	d*) ;;
	pps*) echo "--pps=$(point_rate "$1")" ;;
	mbps*) echo "--mbps=$(point_rate "$1")" ;;
	esac
}

# ---- one run -------------------------------------------------------------
# json_num FILE KEY: a number from a one-line JSON object (first match).
json_num() { grep -o "\"$2\":-\?[0-9.]*" "$1" | head -n1 | cut -d: -f2; }

# measure VARIANT POINT SENDER REP: one run under the bench lock; appends to results.tsv.
measure() {
	local variant=$1 point=$2 sender=$3 rep=$4 id trace cap cpu js ana
	id="$variant-$point-$sender-$rep"
	trace=$(point_trace "$point")
	cap="$WORK/cap.pcap"
	cpu="$OUT/$id.cpu.json"
	js="$OUT/$id.replay.json"
	ana="$OUT/$id.json"
	local -a cmd
	case $sender in
	replay) cmd=("$REPLAY" -q -i "$IF_A" --stats-json "$js" $(replay_opts "$point") "$trace") ;;
	replay-rt) cmd=("$REPLAY" -q -i "$IF_A" --stats-json "$js" --rt-priority 50 $(replay_opts "$point") "$trace") ;;
	tcpreplay) cmd=(tcpreplay -q -i "$IF_A" $(tcpreplay_opts "$point") "$trace") ;;
	tcpreplay46) cmd=("$TCPREPLAY46" -q -i "$IF_A" $(tcpreplay_opts "$point") "$trace") ;;
	cyclictest)
		case $point in d*) ;; *) return 0 ;; esac
		cyclic "$variant" "$point" "$rep"
		return 0 ;;
	# For experiments: SCHED_FIFO from outside (no mlockall, no throttling guard).
	replay-rt-shift) cmd=("$REPLAY" -q -i "$IF_A" --stats-json "$js" --rt-priority 50 --late shift $(replay_opts "$point") "$trace") ;;
	replay-rt-spin) cmd=("$REPLAY" -q -i "$IF_A" --stats-json "$js" --rt-priority 50 --timer spin $(replay_opts "$point") "$trace") ;;
	replay-chrt) cmd=(chrt -f 50 "$REPLAY" -q -i "$IF_A" --stats-json "$js" $(replay_opts "$point") "$trace") ;;
	# A/B of two builds in the same run: replay-b is $REPLAY_B (another build's replay) with the defaults.
	replay-b) [ -x "${REPLAY_B:-}" ] || die "replay-b: set REPLAY_B to another build's replay"
		cmd=("$REPLAY_B" -q -i "$IF_A" --stats-json "$js" $(replay_opts "$point") "$trace") ;;
	replay-b-rt) [ -x "${REPLAY_B:-}" ] || die "replay-b-rt: set REPLAY_B to another build's replay"
		cmd=("$REPLAY_B" -q -i "$IF_A" --stats-json "$js" --rt-priority 50 $(replay_opts "$point") "$trace") ;;
	# The defaults but another transmit method: replay-m-mmsg, replay-m-packet, replay-m-xdp ...
	replay-m-*) cmd=("$REPLAY" -q -i "$IF_A" --stats-json "$js" --method "${sender#replay-m-}" \
		$(replay_opts "$point") "$trace") ;;
	# The defaults plus $REPLAY_X_OPTS (word-split): any option's effect, e.g. REPLAY_X_OPTS="--late shift".
	replay-x) cmd=("$REPLAY" -q -i "$IF_A" --stats-json "$js" ${REPLAY_X_OPTS:-} $(replay_opts "$point") "$trace") ;;
	# The same run through the Python bindings (libreplay.so of $BUILD): the same engine, driven from Python.
	python) cmd=(env LIBREPLAY="$OUT/bin/libreplay.so.0" python3 "$OUT/bin/run.py" "$ROOT/python" "$IF_A" "$js"
		"$trace" $(replay_opts "$point")) ;;
	*) die "unknown sender $sender" ;;
	esac
	exec 9>"$LOCK"
	flock 9
	if [ "$variant" = load ]; then
		stress-ng --cpu 2 --io 1 --vm 1 --timeout 300 >/dev/null 2>&1 &
		STRESS_PID=$!
		sleep 1
	fi
	rx_start "$cap"
	# A sender that cannot finish (tcpreplay 4.4.3 under stress-ng never did a
	# 2 s trace in 2 minutes) is stopped after $SENDER_TIMEOUT s (default ten
	# times the trace plus 30 s): its unsent frames count as lost.
	local secs_p=$SECS
	case $point in d1000 | d2500) secs_p=$((SECS > 3 ? SECS : 3)) ;; esac
	in_a timeout -s INT -k 5 "${SENDER_TIMEOUT:-$((secs_p * 10 + 30))}" \
		taskset -c "$SENDER_CPU" "$TSTATS" run "$cpu" -- "${cmd[@]}" >"$WORK/sender.out" 2>"$WORK/sender.err" ||
		echo "# $id: sender exited $? (124: stopped by the timeout): $(head -c 300 "$WORK/sender.err")" >&2
	rx_stop
	stop_stress
	flock -u 9
	exec 9>&-
	"$TSTATS" analyze "$trace" "$cap" $(replay_opts "$point") >"$ana"
	rm -f "$cap"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$variant" "$point" "$sender" "$rep" \
		"$(json_num "$ana" expected)" "$(json_num "$ana" lost)" "$RX_DROPS" \
		"$(json_num "$ana" duration_error_pct)" \
		"$(json_num "$ana" p50)" "$(json_num "$ana" p99)" "$(json_num "$ana" p999)" \
		"$(json_num "$ana" max)" "$(json_num "$cpu" cpu_pct)" \
		"$(json_num "$ana" pps)" "$(json_num "$ana" mbps)" \
		"$( [ -s "$js" ] && json_num "$js" late_stalls || echo -)" \
		"$(json_num "$ana" short_gaps)" \
		"$( [ -s "$js" ] && json_num "$js" spin_pauses || echo -)" \
		"$( [ -s "$js" ] && json_num "$js" sleep_overshoots || echo -)" >>"$OUT/results.tsv"
	tail -n1 "$OUT/results.tsv"
}

# cyclic VARIANT POINT REP: cyclictest at POINT's interval on the sender's CPU,
# SCHED_FIFO 50, memory locked, for as long as a sender's run; its wake-up
# latency p50/p99/p99.9/max (from a 1 us histogram; overflows past 20 ms
# count as 20 ms) go into the ia_* columns, cpu_pct is left empty.
cyclic() {
	local variant=$1 point=$2 rep=$3 id hist secs=$SECS us=${2#d}
	id="$variant-$point-cyclictest-$rep"
	hist="$OUT/$id.hist"
	case $point in d1000 | d2500) secs=$((SECS > 3 ? SECS : 3)) ;; esac
	exec 9>"$LOCK"
	flock 9
	if [ "$variant" = load ]; then
		stress-ng --cpu 2 --io 1 --vm 1 --timeout 300 >/dev/null 2>&1 &
		STRESS_PID=$!
		sleep 1
	fi
	cyclictest -m -q -t 1 -a "$SENDER_CPU" -p 50 -i "$us" -D "$secs" -h 20000 --histfile="$hist" \
		>"$WORK/cyclic.out" 2>&1 || echo "# $id: cyclictest exited $?: $(head -c 300 "$WORK/cyclic.out")" >&2
	stop_stress
	flock -u 9
	exec 9>&-
	awk -v id="$variant\t$point\tcyclictest\t$rep" '
	/^# Histogram Overflows:/ { over = $4 + 0 }
	/^# Max Latencies:/ { mx = $4 + 0 }
	/^[0-9]/ { n = $2 + 0; if (n) { lat[++k] = $1 + 0; cnt[k] = n; tot += n } }
	END {
		tot += over
		if (!tot) { printf "%s\t0\t0\t0\t\t\t\t\t\t\t\t\t\t\t\t\n", id; exit }
		for (i = 1; i <= k; i++) {
			c += cnt[i]
			if (!p50 && c * 2 >= tot) p50 = lat[i]
			if (!p99 && c * 100 >= tot * 99) p99 = lat[i]
			if (!p999 && c * 1000 >= tot * 999) p999 = lat[i]
		}
		if (!p50) p50 = 20000; if (!p99) p99 = 20000; if (!p999) p999 = 20000
		printf "%s\t%d\t0\t0\t\t%d\t%d\t%d\t%d\t\t\t\t\t\t\t\n", id, tot, p50 * 1000, p99 * 1000, p999 * 1000, mx * 1000
	}' "$hist" >>"$OUT/results.tsv"
	tail -n1 "$OUT/results.tsv"
}

# floor REP: the machine's own timing floor, under the lock.
floor() {
	exec 9>"$LOCK"
	flock 9
	"$TSTATS" lateness 1000 1000 >"$OUT/floor-$1.json"
	"$TSTATS" lateness 1000 1000 fifo >"$OUT/floor-fifo-$1.json"
	flock -u 9
	exec 9>&-
	info "floor $1: $(cat "$OUT/floor-$1.json")"
	info "floor $1 fifo: $(cat "$OUT/floor-fifo-$1.json")"
}

# ---- the matrix ----------------------------------------------------------
run_matrix() {
info "results in $OUT"
for p in "${POINTS[@]}"; do make_trace "$p"; done
printf 'variant\tpoint\tsender\trep\tframes\tlost\trx_drops\tdur_err_pct\tia_p50_ns\tia_p99_ns\tia_p999_ns\tia_max_ns\tcpu_pct\tpps\tmbps\tlate_stalls\tshort_gaps\tspin_pauses\tsleep_overshoots\n' \
	>"$OUT/results.tsv"
for rep in $(seq "$REPS"); do
	floor "$rep"
	for p in "${POINTS[@]}"; do
		for s in $SENDERS; do
			measure idle "$p" "$s" "$rep"
		done
		if [ $STRESS = 1 ]; then
			for s in ${LOAD_SENDERS:-replay replay-rt tcpreplay}; do
				measure load "$p" "$s" "$rep"
			done
		fi
	done
done
}

# ---- the summary: medians over reps -------------------------------------
summarize() {
	awk -F'\t' '
	function median(key, col,   n, i, j, v, t) {
		n = cnt[key]
		for (i = 1; i <= n; i++) v[i] = val[key, i, col] + 0
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function range(key, col,   n, i, lo, hi, x) {
		n = cnt[key]; lo = hi = val[key, 1, col] + 0
		for (i = 2; i <= n; i++) { x = val[key, i, col] + 0; if (x < lo) lo = x; if (x > hi) hi = x }
		return sprintf("%.1f-%.1f", lo / 1000, hi / 1000)
	}
	NR == 1 { next }
	{
		key = $1 SUBSEP $2 SUBSEP $3
		if (!(key in cnt)) order[++nk] = key
		cnt[key]++
		for (c = 5; c <= 17; c++) val[key, cnt[key], c] = $c
		lost[key] += $6; drops[key] = drops[key] " " $7
	}
	END {
		print "| load | point | sender | lost | duration error | ia p50 | ia p99 (range) | ia p99.9 | ia max | short gaps | CPU | rate | p99 ratio |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		for (k = 1; k <= nk; k++) {
			key = order[k]; split(key, f, SUBSEP)
			p99[key] = median(key, 10)
		}
		for (k = 1; k <= nk; k++) {
			key = order[k]; split(key, f, SUBSEP)
			tk = f[1] SUBSEP f[2] SUBSEP "tcpreplay"
			ratio = (f[3] != "tcpreplay" && (tk in p99) && p99[key] > 0) ? sprintf("%.1fx", p99[tk] / p99[key]) : ""
			rate = f[2] ~ /^mbps/ ? sprintf("%.2f Mbit/s", median(key, 15)) : sprintf("%.0f pps", median(key, 14))
			if (f[3] == "cyclictest") { rate = "(wake-up latency)"; ratio = "" }
			printf "| %s | %s | %s | %d | %+.3f %% | %.1f us | %.1f us (%s) | %.1f us | %.1f us | %.2f %% | %.0f %% | %s | %s |\n",
				f[1], f[2], f[3], lost[key], median(key, 8), median(key, 9) / 1000,
				p99[key] / 1000, range(key, 10), median(key, 11) / 1000, median(key, 12) / 1000,
				median(key, 17) * 100 / median(key, 5), median(key, 13), rate, ratio
		}
	}' "$OUT/results.tsv"
}
# floors: the machine's own lateness per rep, in us.
floors() {
	local f kind
	echo
	echo "| rep | policy | sleep late p50 | p99 | p99.9 | max | spin paused | pauses > 10 us in 100 ms | pause p50 | pause max |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for f in "$OUT"/floor-*.json; do
		kind=other
		case $f in *fifo*) kind=fifo ;; esac
		awk -v rep="$(basename "$f" .json | sed 's/.*-//')" -v kind="$kind" '{
			match($0, /"sleep_late_ns":\{[^}]*\}/); s = substr($0, RSTART, RLENGTH)
			match($0, /"spin_pauses_100ms":\{[^}]*\}/); p = substr($0, RSTART, RLENGTH)
			printf "| %s | %s | %.1f us | %.1f us | %.1f us | %.1f us | %.1f %% | %d | %.1f us | %.1f us |\n", rep, kind,
				v(s, "p50") / 1000, v(s, "p99") / 1000, v(s, "p999") / 1000, v(s, "max") / 1000,
				v(p, "paused_pct"), v(p, "over_10us"), v(p, "p50") / 1000, v(p, "max") / 1000
		}
		function v(str, k,   m) { if (match(str, "\"" k "\":[0-9.]+")) return substr(str, RSTART + length(k) + 3, RLENGTH - length(k) - 3); return 0 }' "$f"
	done
}
# runs: replay's runs one by one -- a p99 set against what the sender itself
# saw: spin_pauses (a spin across a deadline's last stretch lost the CPU for
# over 5 us: the VM or the host took it) and sleep_overshoots (a sleep woke
# past its margin).  A run whose p99 stands out beside the others of its
# point usually has the pauses to show for it (BENCHMARKS.md, "Run-to-run spread").
runs() {
	echo
	echo "| load | point | sender | rep | ia p99 | ia p99.9 | spin pauses | sleep overshoots |"
	echo "|---|---|---|---|---|---|---|---|"
	awk -F'\t' 'NR > 1 && $3 ~ /^replay/ {
		printf "| %s | %s | %s | %s | %.1f us | %.1f us | %s | %s |\n", $1, $2, $3, $4, $10 / 1000, $11 / 1000, $18, $19
	}' "$OUT/results.tsv"
}
# SUMMARY_ONLY=1: only summarize the results already in DIR.
[ "${SUMMARY_ONLY:-0}" = 1 ] || run_matrix
{ summarize; floors; runs; } | tee "$OUT/summary.md"
