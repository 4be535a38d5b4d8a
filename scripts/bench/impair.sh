#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Impairment under load, after the evaluation (section 5.2 and appendix A)
# of A. Keller, "Trace Control for Netem", ETH Zurich semester thesis
# SA-2006-15, 2006: UDP at 10'000, 80'000 and 90'000 packets/s (and at top
# speed) through an emulator adding 1 ms or 10 ms, once with netem's delay
# (here: --delay D) and once trace-driven (here: --impair with a binary trace
# of "delay D" per packet, --impair-default drop as the thesis configured it:
# a packet without an action is dropped), plus a reference without the
# emulator.  Measured per case, as the thesis did:
#   - packet loss (far side vs sent), and apart: the emulator's queue
#     overflow (--impair-limit, 1000 as netem's) and the kernel's drops;
#   - one-way delay generator -> far side (AVG, STD, MIN, MAX, and p99,
#     p99.9), from the generator's --send-log and the far side's capture
#     (replay-rx --send-log; one host, one clock);
#   - the applied delay's error: the emulator's send time minus its
#     impaired deadline (arrival + delay), p50/p99/p99.9 (its send_error_ns);
#   - the emulator's CPU while the load runs (utime + stime from /proc).
# Three namespaces: generator (C) -> emulator (A) -> receiver (B), veth pairs.
# MODES: "forward" = the emulator is replay --source-interface (the thesis's
# set-up: live traffic through the emulator); "bridge" = the emulator is
# replay bridge (both ports, the impairment on each direction; the statistical
# cases only, the bridge takes no impairment trace); "replay" = impaired replay
# straight from the trace, generator and emulator in one (no C): there the
# send log holds the impaired send times, so the one-way delay is the wire's
# alone and the applied delay's accuracy is the delay error column.
#
# The figures to beat (the thesis, tables 5.1, 5.2, A.1, A.2, A.3; AMD Athlon
# 2 GHz, RTL8139, Linux 2.6.16, 1 ms timer; delays in ms):
#   10k pps   no emulator  AVG 0.155  STD 0.014  MIN 0.13   MAX 0.499   CPU 0.3%  loss 0
#             netem 1ms    AVG 1.701  STD 0.303  MIN 1.149  MAX 34.259  CPU 0.3%  loss 0
#             trace 1ms    AVG 1.701  STD 0.3    MIN 1.158  MAX 30.679  CPU 0.3%  loss 0
#             netem 10ms   AVG 10.96  STD 0.178  MIN 10.152 MAX 39.954  CPU 0.3%  loss 0
#             trace 10ms   AVG 10.939 STD 0.183  MIN 9.869  MAX 41.932  CPU 0.3%  loss 0
#   80k pps   no emulator  AVG 0.2    STD 0.026  MIN 0.134  MAX 2.019   CPU 50%   loss 0
#             netem 1ms    AVG 2.022  STD 0.103  MIN 1.191  MAX 4.329   CPU 7%    loss 0
#             trace 1ms    AVG 2.024  STD 0.111  MIN 1.167  MAX 8.018   CPU 15%   loss 0
#             netem 10ms   AVG 10.993 STD 0.063  MIN 10.252 MAX 15.234  CPU 7%    loss 1.8e-5
#             trace 10ms   AVG 11.007 STD 0.162  MIN 10.074 MAX 18.324  CPU 15%   loss 3.7e-5
#   90k pps   no emulator  AVG 8.9    STD 3.9                           CPU 100%  loss 5%
#             netem 1ms    AVG 10.9   STD 2.9                           CPU 100%  loss 8%
#             trace 1ms    AVG 9.8    STD 3.5                           CPU 100%  loss 98%
#             netem 10ms   AVG 13.2   STD 1.0                           CPU 100%  loss 16%
#             trace 10ms   AVG 13.1   STD 0.9                           CPU 100%  loss 97%
# (netem's mean is about 1 ms above the delay asked for: its 1 ms timer, and
# a packet goes only once its time stamp is past.)  Goals: no loss
# below the queue limit at 90k pps with 10 ms (the thesis lost 1e-5 at 80k
# and 97% at 90k trace-driven), the applied delay's p99 error within the
# timing engine's own p99 (the reference case's send error), and the mean
# one-way delay within the reference's of D (not D + 1 ms).
#
#   sudo [RATES="10000 80000 90000 top"] [DELAYS="1 10"] [SECS=10] [MODES="forward bridge replay"] \
#        [SIZE=64] [LIMIT=1000] [REPS=1] [BRIDGE_POLL=auto] [BRIDGE_BUFFER=KIB] scripts/bench/impair.sh
#
# LIMIT is the emulator's --impair-limit, frames (default 1000, netem's
# limit): at 90k pps x 10 ms about 900 frames are held on average, so a
# burst from the generator overflows 1000; LIMIT=4000 measures that case
# with the queue above the offered load.  Every case with an emulator gets
# it (the reference without one has no queue); each line shows it.
#
# BRIDGE_POLL is the bridge's --poll (auto, sleep, hybrid, busy; MODES=bridge
# only): busy spins a whole core for the least latency, sleep is the old
# ppoll() to each deadline.  Each bridge line shows it.  BRIDGE_BUFFER is
# the bridge's capture ring per port, KiB (-B; default the bridge's 2048):
# on a paravirtualised 2-core VM a 65536 KiB ring forwarded a twentieth of
# the frames of a 2048 KiB one at 90k pps (78 % of the bridge's time was
# libpcap's one store handing each ring frame back to the kernel).
#
# The sender (replay mode) runs on CPU $SENDER_CPU (default 0) and the receiver on
# $RX_CPU (default 1), as in timing.sh: the far side never competes with it.
#
# Prints one line per case; the raw JSON stays in $WORK when KEEP=1.  Every
# case runs under the bench lock (/tmp/replay-bench.lock).  Timing figures
# mean something only on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
RATES=${RATES:-10000 80000 90000 top}
DELAYS=${DELAYS:-1 10}
SECS=${SECS:-10}
MODES=${MODES:-forward replay}
SIZE=${SIZE:-64}
LIMIT=${LIMIT:-1000}
BRIDGE_POLL=${BRIDGE_POLL:-auto}
BRIDGE_BUFFER=${BRIDGE_BUFFER:-} # the bridge's -B, KiB (empty: its default)
case $BRIDGE_BUFFER in
*[!0-9]* | 0*) echo "impair: BRIDGE_BUFFER=$BRIDGE_BUFFER: not a number of KiB" >&2; exit 2 ;;
esac
case $BRIDGE_POLL in
auto | sleep | hybrid | busy) ;;
*) echo "impair: BRIDGE_POLL=$BRIDGE_POLL: not auto, sleep, hybrid or busy" >&2; exit 2 ;;
esac
REPS=${REPS:-1} # the whole matrix this many times, interleaved; then each case's median (min..max)
SENDER_CPU=${SENDER_CPU:-0} # replay mode: the sender on one CPU, the receiver on the other (as timing.sh)
RX_CPU=${RX_CPU:-1}
# replay's own range for --impair-limit: refused here, before any namespace is made.
case $LIMIT in
'' | *[!0-9]* | 0*) echo "impair: LIMIT=$LIMIT: not a number of frames from 1 to 1048576" >&2; exit 2 ;;
esac
[ "${#LIMIT}" -le 7 ] && [ "$LIMIT" -le 1048576 ] ||
	{ echo "impair: LIMIT=$LIMIT: not a number of frames from 1 to 1048576" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "impair: needs root" >&2; exit 1; }
[ -x build/replay ] && [ -x build/replay-rx ] && [ -x build/gentrace ] || { echo "impair: build first" >&2; exit 1; }

WORK=$(mktemp -d /tmp/impair-bench.XXXXXX)
ID=$$
NS_A="ibn-a-$ID" NS_B="ibn-b-$ID" NS_C="ibn-c-$ID"
IF_A="iba$ID" IF_B="ibb$ID" IF_C="ibc$ID" IF_F="ibf$ID"
PIDS=""
cleanup() {
	local p
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	ip netns del "$NS_C" 2>/dev/null || true
	if [ "${KEEP:-0}" = 1 ]; then echo "# kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

for ns in "$NS_A" "$NS_B" "$NS_C"; do
	ip netns add "$ns"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$ns" link set dev lo up
done
ip link add name "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B"
ip link add name "$IF_C" netns "$NS_C" type veth peer name "$IF_F" netns "$NS_A"
for s in "$NS_A $IF_A" "$NS_B $IF_B" "$NS_C $IF_C" "$NS_A $IF_F"; do
	set -- $s
	ip -n "$1" link set dev "$2" multicast off up
done
links_up "$NS_A" "$IF_A" "$NS_B" "$IF_B" "$NS_C" "$IF_C" "$NS_A" "$IF_F"

jget() { grep -o "\"$2\":[-0-9.e+]*" "$1" | head -n1 | cut -d: -f2; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
HZ=$(getconf CLK_TCK)

# one MODE RATE EMU DELAY_MS: a case; prints its line.
one() {
	local mode=$1 rate=$2 emu=$3 d=$4 n pace emuargs=() gen=() fpid t0 t1 c0 c1 cpu rc
	local js="$WORK/emu.json" rx="$WORK/rx.json" slog="$WORK/send.log"
	if [ "$rate" = top ]; then
		n=$((1000000 * SECS / 10)) pace=(--topspeed)
	else
		n=$((rate * SECS)) pace=(--pps "$rate")
	fi
	build/gentrace udp -o "$WORK/t.pcap" --count "$n" --size "$SIZE" >/dev/null
	case $emu in
	none) ;;
	netem) emuargs=(--delay "${d}ms" --impair-limit "$LIMIT") ;;
	trace)
		# One action per packet, streamed from a binary trace; none left: dropped.
		awk -v n="$n" -v d="$d" 'BEGIN { for (i = 0; i < n; i++) print "delay " d "ms" }' >"$WORK/tr.txt"
		build/replay impair convert "$WORK/tr.txt" "$WORK/tr.rpim" >/dev/null
		emuargs=(--impair "$WORK/tr.rpim" --impair-default drop --impair-limit "$LIMIT")
		;;
	esac
	rm -f "$rx" "$js" "$slog"
	ip netns exec "$NS_B" taskset -c "$RX_CPU" build/replay-rx -i "$IF_B" -R "$WORK/t.pcap" --send-log "$slog" --idle 2 \
		--json "$rx" >"$WORK/rx.out" 2>"$WORK/rx.err" &
	PIDS="$PIDS $!"
	local rxpid=$!
	for _ in $(seq 100); do grep -q "listening on" "$WORK/rx.err" && break; sleep 0.05; done
	if [ "$mode" = forward ] || [ "$mode" = bridge ]; then
		if [ "$mode" = bridge ]; then
			ip netns exec "$NS_A" build/replay bridge "$IF_F" "$IF_A" --stats-json "$js" \
				--poll "$BRIDGE_POLL" ${BRIDGE_BUFFER:+-B "$BRIDGE_BUFFER"} --duration $((SECS + 30)) "${emuargs[@]}" >"$WORK/emu.out" 2>"$WORK/emu.err" &
		else
			ip netns exec "$NS_A" build/replay --source-interface "$IF_F" -i "$IF_A" --stats-json "$js" \
				--duration $((SECS + 30)) "${emuargs[@]}" >"$WORK/emu.out" 2>"$WORK/emu.err" &
		fi
		fpid=$!
		PIDS="$PIDS $fpid"
		for _ in $(seq 200); do grep -q "listening on" "$WORK/emu.err" && break; sleep 0.05; done
		t0=$(date +%s%N) c0=$(ticks "$fpid")
		flock /tmp/replay-bench.lock ip netns exec "$NS_C" build/replay -q -i "$IF_C" "${pace[@]}" \
			--send-log "$slog" "$WORK/t.pcap"
		# The last frames' delay, then the emulator's CPU over the load.
		sleep $(((d + 999) / 1000 + 1))
		t1=$(date +%s%N) c1=$(ticks "$fpid")
		kill -INT "$fpid"
		wait "$fpid" || true
	else
		gen=(build/replay --cpu "$SENDER_CPU" -i "$IF_A" "${pace[@]}" --send-log "$slog" --stats-json "$js" "${emuargs[@]}" "$WORK/t.pcap")
		# The sender's own CPU share (user + system over its wall time), from its rusage:
		# sampling /proc of a pid found by name missed it at times (a 0.0 % column).
		rm -f "$WORK/cpu.json"
		flock /tmp/replay-bench.lock ip netns exec "$NS_A" build/timing-stats run "$WORK/cpu.json" -- \
			"${gen[@]}" >"$WORK/emu.out" 2>"$WORK/emu.err" || true
	fi
	rc=0
	wait "$rxpid" || rc=$?
	if [ "$mode" = forward ] || [ "$mode" = bridge ]; then
		cpu=$(awk -v c="$((c1 - c0))" -v hz="$HZ" -v ns="$((t1 - t0))" 'BEGIN { printf "%.1f", ns ? 100 * c / hz / (ns / 1e9) : 0 }')
	else
		cpu=$(awk -v v="$(jget "$WORK/cpu.json" cpu_pct || echo 0)" 'BEGIN { printf "%.1f", v }')
	fi
	local recv lost qd kd
	recv=$(jget "$rx" received || echo 0)
	lost=$(jget "$rx" lost || echo "?")
	# The bridge's is its first direction's dropped_limit (the generator's traffic goes one way).
	qd=$(jget "$js" packets_impair_queue_dropped || jget "$js" dropped_limit || echo 0)
	# The live source's kernel drops (its "live" object; none in replay mode).
	kd=$(grep -o '"kernel_dropped":[0-9]*' "$js" 2>/dev/null | cut -d: -f2 | head -n1 || true)
	printf '%-7s %-5s %-6s %-4s limit %-6s sent %-8s recv %-8s loss %-9s queue-drop %-6s kernel-drop %-6s ' \
		"$([ "$mode" = bridge ] && echo "bridge:$BRIDGE_POLL" || echo "$mode")" "$rate" "$emu" "${d}ms" "$([ "$emu" = none ] && echo - || echo "$LIMIT")" "$n" "$recv" \
		"$(awk -v l="${lost:-0}" -v n="$n" 'BEGIN { printf "%.2e", n ? l / n : 0 }')" "${qd:-0}" "${kd:--}"
	printf 'owd ms: AVG %s STD %s MIN %s MAX %s p99 %s p99.9 %s  ' \
		"$(awk -v v="$(jget "$rx" latency_mean_ns || echo 0)" 'BEGIN { printf "%.3f", v / 1e6 }')" \
		"$(awk -v v="$(jget "$rx" latency_stddev_ns || echo 0)" 'BEGIN { printf "%.3f", v / 1e6 }')" \
		"$(awk -v v="$(jget "$rx" latency_min_ns || echo 0)" 'BEGIN { printf "%.3f", v / 1e6 }')" \
		"$(awk -v v="$(jget "$rx" latency_max_ns || echo 0)" 'BEGIN { printf "%.3f", v / 1e6 }')" \
		"$(awk -v v="$(jget "$rx" latency_p99_ns || echo 0)" 'BEGIN { printf "%.3f", v / 1e6 }')" \
		"$(awk -v v="$(jget "$rx" latency_p999_ns || echo 0)" 'BEGIN { printf "%.3f", v / 1e6 }')"
	local se
	se=$(grep -o '"send_error_ns":{[^}]*}' "$js" 2>/dev/null || true)
	printf 'delay error us: p50 %s p99 %s p99.9 %s  CPU %s%%\n' \
		"$(awk -v v="$(echo "$se" | grep -o '"p50":[0-9]*' | cut -d: -f2)" 'BEGIN { printf "%.1f", v / 1e3 }')" \
		"$(awk -v v="$(echo "$se" | grep -o '"p99":[0-9]*' | cut -d: -f2)" 'BEGIN { printf "%.1f", v / 1e3 }')" \
		"$(awk -v v="$(echo "$se" | grep -o '"p999":[0-9]*' | cut -d: -f2)" 'BEGIN { printf "%.1f", v / 1e3 }')" \
		"$cpu"
	printf '%s %s %s %s\n' "$mode/$rate/$emu/${d}ms" \
		"$(awk -v v="$(echo "$se" | grep -o '"p99":[0-9]*' | cut -d: -f2)" 'BEGIN { printf "%.1f", v / 1e3 }')" \
		"$(awk -v v="$(echo "$se" | grep -o '"p999":[0-9]*' | cut -d: -f2)" 'BEGIN { printf "%.1f", v / 1e3 }')" \
		"$(awk -v l="${lost:-0}" -v n="$n" 'BEGIN { printf "%.2e", n ? l / n : 0 }')" >>"$WORK/cases.txt"
	[ "${KEEP:-0}" = 1 ] && cp "$rx" "$WORK/rx.$mode.$rate.$emu.$d.json" && cp "$js" "$WORK/emu.$mode.$rate.$emu.$d.json" || true ; [ "${KEEP:-0}" = 1 ] && cp "$slog" "$WORK/send.$mode.$rate.$emu.$d.log" || true
}

for rep in $(seq "$REPS"); do
	[ "$REPS" = 1 ] || echo "# repetition $rep of $REPS"
	for mode in $MODES; do
		for rate in $RATES; do
			one "$mode" "$rate" none 0
			for d in $DELAYS; do
				one "$mode" "$rate" netem "$d"
				[ "$mode" = bridge ] || one "$mode" "$rate" trace "$d"
			done
		done
	done
done
# With repetitions: per case, the applied-delay error's p99 and p99.9 (us) and the loss,
# median (min..max) over the repetitions.
if [ "$REPS" -gt 1 ]; then
	echo "# per case over $REPS repetitions: median (min..max)"
	awk '
	function med(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return sprintf("%s (%s..%s)", a[int((n + 1) / 2)], a[1], a[n])
	}
	{ k = $1; if (!(k in p99)) order[++nk] = k; p99[k] = p99[k] " " $2; p999[k] = p999[k] " " $3; loss[k] = loss[k] " " $4 }
	END { for (i = 1; i <= nk; i++) { k = order[i]; printf "%-28s delay error p99 %s us  p99.9 %s us  loss %s\n", k, med(p99[k]), med(p999[k]), med(loss[k]) } }
	' "$WORK/cases.txt"
fi
