#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --threads N over a veth pair with N queues on each end: every frame arrives
# byte-exact, each flow in its recorded order (tests/integration/flow_order.py
# on the far side's capture against the -w dry run), and the totals equal the
# single-thread run's; each thread's account holds on its own; SIGINT stops
# every thread with the summary; what several threads cannot do is refused.
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}"
FLOW_ORDER="$(dirname "$0")/flow_order.py"

# The bundled captures (many protocols, VLANs, IPv6, fragments) and 64 UDP flows, as one run.
inputs() {
	echo "$TRACES"/http.pcap "$TRACES"/http6.pcap "$TRACES"/dns.pcap "$TRACES"/mixed.pcap \
		"$TRACES"/vlan.pcap "$TRACES"/ipv6.pcap "$TRACES"/icmp-flood.pcap "$WORK/flows.pcap"
}

# threads_compare NAME OPTIONS...: the dry run's frames arrive, flow by flow in order.
threads_compare() {
	local name=$1
	shift
	local exp="$WORK/$name.expected.pcap" got="$WORK/$name.got.pcap" js="$WORK/$name.json"
	local sent read tx0 tx1 n

	# shellcheck disable=SC2046
	"$REPLAY" -q -w "$exp" --topspeed $(inputs) || die "$name: dry run failed"
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	capture_start "$got"
	# shellcheck disable=SC2046
	in_a "$REPLAY" -q -i "$IF_A" --stats-json "$js" "$@" $(inputs) || die "$name: replay exited $?"
	capture_stop
	check_invariant "$js"
	[ "$(json_get "$js" packets_failed)" = 0 ] || die "$name: packets failed"
	sent=$(json_get "$js" packets_sent)
	read=$(json_get "$js" packets_read)
	tx1=$(ifstat "$NS_A" "$IF_A" tx_packets)
	[ $((tx1 - tx0)) -eq "$sent" ] || die "$name: interface sent $((tx1 - tx0)), replay says $sent"
	# The totals are the single-thread run's (every packet read once, by one thread).
	[ "$read" -eq "$SINGLE_READ" ] || die "$name: read $read, one thread read $SINGLE_READ"
	[ "$sent" -eq "$SINGLE_SENT" ] || die "$name: sent $sent, one thread sent $SINGLE_SENT"
	[ "$(json_get "$js" bytes_sent)" -eq "$SINGLE_BYTES" ] || die "$name: bytes differ from one thread's"
	[ "$(json_get "$RX_JSON" received)" -eq "$sent" ] ||
		die "$name: far side received $(json_get "$RX_JSON" received), $sent sent"
	python3 "$FLOW_ORDER" "$exp" "$got" >"$WORK/order" || die "$name: $(cat "$WORK/order")"
	# Each thread: read = sent + filtered + failed; their sums are the totals.
	n=$(grep -o '"thread":[0-9]*' "$js" | wc -l)
	[ "$n" -eq "$THREADS" ] || die "$name: $n threads in the JSON, expected $THREADS"
	python3 - "$js" "$WORK/single.json" <<'EOF' || die "$name: a thread's account does not hold"
import json, sys
j = json.load(open(sys.argv[1]))
one = json.load(open(sys.argv[2]))
# A flow lives in one thread: the merged flow statistics are the single thread's.
assert j["flows"] == dict(one["flows"], fps=j["flows"]["fps"]), (j["flows"], one["flows"])
tot = {k: 0 for k in ("packets_read", "packets_sent", "packets_filtered", "packets_failed", "bytes_sent")}
busy = 0
for t in j["threads"]:
    assert t["packets_read"] == t["packets_sent"] + t["packets_filtered"] + t["packets_failed"], t
    for k in tot:
        tot[k] += t[k]
    busy += t["packets_sent"] > 0
for k in tot:
    assert tot[k] == j[k], (k, tot[k], j[k])
assert busy >= 2, "the flows did not spread over the threads"
EOF
	info "$name: $(cat "$WORK/order"), $sent sent"
}

test_single_baseline() {
	local js="$WORK/single.json"
	# shellcheck disable=SC2046
	# --threads 1: with none given, top speed on this veth's queues takes several (t_threads_auto.sh).
	in_a "$REPLAY" -q -i "$IF_A" --topspeed --threads 1 --stats-json "$js" $(inputs) || die "one thread: exited $?"
	SINGLE_READ=$(json_get "$js" packets_read)
	SINGLE_SENT=$(json_get "$js" packets_sent)
	SINGLE_BYTES=$(json_get "$js" bytes_sent)
	grep -q '"threads"' "$js" && die "one thread: a threads array in the JSON"
	[ "$SINGLE_SENT" -gt 20000 ] || die "one thread sent only $SINGLE_SENT"
}

test_two_threads_topspeed() {
	THREADS=2
	threads_compare threads2 --topspeed --threads 2 --cpu 0,1
}

test_four_threads_topspeed() {
	THREADS=4
	threads_compare threads4 --topspeed --threads 4 --cpu 0-1
}

test_two_threads_timed() {
	# At recorded timing (100x): one schedule, flows still in order, nothing lost.
	THREADS=2
	threads_compare threads2-timed --speed 100 --threads 2 --cpu 0,1
}

test_four_threads_xdp() {
	THREADS=4
	if ! built xdp; then
		info "SKIP xdp: not built in"
		return 0
	fi
	threads_compare threads4-xdp --topspeed --threads 4 --cpu 0,1 --method xdp --xdp-queue 3,2,1,0
	grep -q '"thread":3,"cpu":1,"method_mode":"copy mode, queue 0' "$WORK/threads4-xdp.json" ||
		die "xdp: thread 3 not on queue 0: $(cat "$WORK/threads4-xdp.json")"
}

# Is method $1 built in?
built() { ! "$REPLAY" --method "$1" -i lo /dev/null 2>&1 | grep -q "is not one of"; }

test_methods_and_loop() {
	THREADS=2
	# AF_XDP: one socket per queue, queues 0 and 1 by default.
	if built xdp; then
		threads_compare threads2-xdp --topspeed --threads 2 --cpu 0,1 --method xdp
		grep -q '"method_mode":"copy mode, queue 1' "$WORK/threads2-xdp.json" ||
			die "xdp: thread 1 not on queue 1: $(cat "$WORK/threads2-xdp.json")"
	else
		info "SKIP xdp: not built in"
	fi
	threads_compare threads2-ring --topspeed --threads 2 --cpu 0,1 --method ring
	# Two passes: every thread rewinds its own readers.
	local r=$SINGLE_READ s=$SINGLE_SENT b=$SINGLE_BYTES
	SINGLE_READ=$((2 * r)) SINGLE_SENT=$((2 * s)) SINGLE_BYTES=$((2 * b))
	local js="$WORK/loop.json"
	# shellcheck disable=SC2046
	in_a "$REPLAY" -q -i "$IF_A" --topspeed --threads 2 --loop 2 --stats-json "$js" $(inputs) ||
		die "--loop 2: exited $?"
	check_invariant "$js"
	[ "$(json_get "$js" packets_sent)" -eq "$SINGLE_SENT" ] || die "--loop 2: sent $(json_get "$js" packets_sent)"
	SINGLE_READ=$r SINGLE_SENT=$s SINGLE_BYTES=$b
}

test_summary_lines() {
	local out="$WORK/summary.out"
	in_a "$REPLAY" -i "$IF_A" --topspeed --threads 2 "$TRACES/http.pcap" "$TRACES/dns.pcap" >"$out" ||
		die "summary run exited $?"
	[ "$(grep -c '^Thread [01]' "$out")" -eq 2 ] || die "no line per thread: $(cat "$out")"
	grep -q '^Packets: read 48, sent 48' "$out" || die "merged totals wrong: $(cat "$out")"
}

# --preload: one copy of the traces, read by every thread (not one copy each).
test_preload_shared() {
	THREADS=2
	threads_compare threads2-K --topspeed --threads 2 --cpu 0,1 -K
	if ! built xdp; then
		info "SKIP preload in place: xdp not built in"
		return 0
	fi
	# AF_XDP: both threads send in place from that one copy (each socket registers it as its UMEM).
	local big="$WORK/big.pcap" js="$WORK/threads2-K-xdp.json" rx0 rx1 bytes rss1 rss2 sent
	"$GENTRACE" udp -o "$big" --count 44000 --gap-ns 1000 --flows 64 --size 1514 >/dev/null
	bytes=$(stat -c %s "$big")
	# The same run with one thread first: its peak RSS is the yardstick (a sanitizer build's is higher).
	rss1=$(peak_rss "$REPLAY" -q -i "$IF_A" --topspeed --threads 1 -K --method xdp --xdp-in-place "$big")
	rx0=$(ifstat "$NS_B" "$IF_B" rx_packets)
	rss2=$(peak_rss "$REPLAY" -q -i "$IF_A" --topspeed --threads 2 --cpu 0,1 -K --method xdp --xdp-in-place \
		--loop 2 --stats-json "$js" "$big")
	rx1=$(ifstat "$NS_B" "$IF_B" rx_packets)
	check_invariant "$js"
	sent=$(json_get "$js" packets_sent)
	[ "$sent" -eq 88000 ] || die "preload in place: sent $sent of 88000"
	[ $((rx1 - rx0)) -ge 88000 ] || die "preload in place: far side received $((rx1 - rx0)) of 88000"
	[ "$(grep -o 'queue [01], frames sent in place from the preload' "$js" | sort -u | wc -l)" -eq 2 ] ||
		die "preload in place: not both threads in place: $(cat "$js")"
	# The second thread adds its socket's staging memory, not a second copy of the 64 MiB trace.
	[ "$rss2" -lt $((rss1 + (bytes >> 11))) ] ||
		die "preload in place: peak RSS $rss2 KiB with two threads, $rss1 with one, for a $((bytes >> 10)) KiB trace: a copy per thread?"
	info "preload in place: $sent sent, peak RSS $((rss2 >> 10)) MiB with two threads, $((rss1 >> 10)) with one, for a $((bytes >> 20)) MiB trace"
	# Without --xdp-in-place, a copy-mode socket (veth has no zero-copy) stages every frame.
	js="$WORK/threads1-K-xdp.json"
	rx0=$(ifstat "$NS_B" "$IF_B" rx_packets)
	in_a "$REPLAY" -i "$IF_A" --topspeed -K --method xdp --stats-json "$js" "$big" >"$WORK/staged.out" 2>&1 ||
		die "xdp -K staged: run failed: $(cat "$WORK/staged.out")"
	rx1=$(ifstat "$NS_B" "$IF_B" rx_packets)
	check_invariant "$js"
	[ "$(json_get "$js" packets_sent)" -eq 44000 ] || die "xdp -K staged: sent $(json_get "$js" packets_sent) of 44000"
	[ $((rx1 - rx0)) -ge 44000 ] || die "xdp -K staged: far side received $((rx1 - rx0)) of 44000"
	grep -q "Method: xdp (copy mode, queue 0) on $IF_A" "$WORK/staged.out" ||
		die "xdp -K in copy mode: not staged: $(cat "$WORK/staged.out")"
}

# peak_rss CMD...: run CMD in A's namespace (its output dropped); print its peak RSS, KiB.
peak_rss() {
	local kib
	kib=$(in_a python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else "exit %d" % rc)
' "$@")
	case $kib in '' | *[!0-9]*) die "peak_rss: $1 ${kib:-failed}" ;; esac
	echo "$kib"
}

# wait_handler PID: until process PID catches SIGINT (a background job starts with it ignored).
wait_handler() {
	local cgt
	for _ in $(seq 200); do
		cgt=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || die "process $1 ended early"
		[ -n "$cgt" ] && [ $((16#$cgt & 2)) -ne 0 ] && return 0
		sleep 0.05
	done
	die "process $1 never caught SIGINT"
}

test_sigint_stops_all() {
	local js="$WORK/sigint.json" pid rc=0 t0 sent
	# 500 000 frames 10 us apart at recorded timing: 5 s of schedule, stopped after 1 s.
	"$GENTRACE" udp -o "$WORK/long.pcap" --count 500000 --gap-ns 10000 --flows 16 >/dev/null
	ip netns exec "$NS_A" "$REPLAY" -q -i "$IF_A" --threads 2 --stats-json "$js" "$WORK/long.pcap" &
	pid=$!
	wait_handler "$pid"
	sleep 1
	t0=$SECONDS
	kill -INT "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ] || die "SIGINT: exit $rc, expected 130"
	[ $((SECONDS - t0)) -le 2 ] || die "SIGINT: the threads took $((SECONDS - t0)) s to stop"
	check_invariant "$js"
	sent=$(json_get "$js" packets_sent)
	[ "$sent" -gt 0 ] && [ "$sent" -lt 500000 ] || die "SIGINT: $sent sent"
	[ "$(grep -o '"thread":[0-9]*' "$js" | wc -l)" -eq 2 ] || die "SIGINT: no per-thread account"
	# Gaps of 4 s: every thread is asleep when the signal comes; thread 0 wakes the others.
	"$GENTRACE" udp -o "$WORK/sparse.pcap" --count 8 --gap-us 4000000 --flows 8 >/dev/null
	rc=0
	ip netns exec "$NS_A" "$REPLAY" -q -i "$IF_A" --threads 2 --stats-json "$js" "$WORK/sparse.pcap" &
	pid=$!
	wait_handler "$pid"
	sleep 1
	t0=$SECONDS
	kill -INT "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ] || die "SIGINT asleep: exit $rc, expected 130"
	[ $((SECONDS - t0)) -le 2 ] || die "SIGINT asleep: the threads took $((SECONDS - t0)) s to stop"
	check_invariant "$js"
}

test_loop0_futile() {
	# --loop 0, one flow of 64 kept by the filter: the other thread's share of every pass is all
	# filtered out.  That thread stops alone, quietly; the other sends its flow until --duration
	# (the run used to stop, exit 1, blaming the filter).  Every flow filtered out: nothing can
	# ever be sent, the run stops, said once for the whole pass (not once by each thread).
	local js="$WORK/loop0.json" err="$WORK/loop0.err" rc=0 sent
	"$GENTRACE" udp -o "$WORK/f64.pcap" --count 128 --gap-us 1000 --flows 64 >/dev/null
	in_a "$REPLAY" -q -i "$IF_A" --threads 2 --loop 0 --duration 1 --filter 'udp src port 1024' \
		--stats-json "$js" "$WORK/f64.pcap" 2>"$err" || die "--loop 0, one thread's share filtered: exit $?: $(cat "$err")"
	! grep -q "sent nothing" "$err" || die "--loop 0, one thread's share filtered: $(cat "$err")"
	check_invariant "$js"
	sent=$(json_get "$js" packets_sent)
	[ "$sent" -ge 4 ] && [ "$sent" -le 20 ] || die "--loop 0, one flow of 2 packets a pass for 1 s: $sent sent"
	in_a "$REPLAY" -q -i "$IF_A" --threads 2 --loop 0 --filter 'udp src port 9999' "$WORK/f64.pcap" \
		2>"$err" || rc=$?
	[ "$rc" -eq 1 ] || die "--loop 0, all filtered: exit $rc: $(cat "$err")"
	[ "$(grep -c "sent nothing" "$err")" -eq 1 ] &&
		grep -q "^replay: --loop 0: a whole pass over the traces sent nothing (128 packets read: 128 filtered or excluded, 0 failed); stopping$" "$err" ||
		die "--loop 0, all filtered: not one line for the whole pass: $(cat "$err")"
}

test_refused() {
	expect_fail 2 "^replay: --limit excludes --threads 2: --limit counts the packets of one sender thread; use one thread" \
		in_a "$REPLAY" -i "$IF_A" --threads 2 --limit 5 "$TRACES/http.pcap"
	expect_fail 2 "^replay: --loss excludes --threads 2: impairment holds packets back on one schedule" \
		in_a "$REPLAY" -i "$IF_A" --threads 2 --loss 1% "$TRACES/http.pcap"
	expect_fail 2 "^replay: -w excludes --threads 2: a dry run writes one file" \
		"$REPLAY" -w "$WORK/x.pcap" --threads 2 "$TRACES/http.pcap"
	expect_fail 2 "--threads 2: every thread reads the traces itself; standard input can be read once: give a file, or add --preload" \
		in_a "$REPLAY" -i "$IF_A" --threads 2 - <"$TRACES/http.pcap"
	# A named pipe: refused at open (one reader only), before anything is sent -- not a hang.
	local fifo="$WORK/fifo" js="$WORK/fifo.json" tx0 rc=0 writer
	mkfifo "$fifo"
	timeout 20 cat "$TRACES/http.pcap" >"$fifo" &
	writer=$!
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	timeout 20 ip netns exec "$NS_A" "$REPLAY" -q -i "$IF_A" --threads 2 "$fifo" 2>"$WORK/fifo.err" || rc=$?
	wait "$writer" || true
	[ "$rc" -eq 1 ] || die "--threads over a named pipe: exit $rc, expected 1: $(cat "$WORK/fifo.err")"
	grep -q "^replay: $fifo: not a regular file (a pipe or a device): --threads 2 has every thread read it; add --preload" \
		"$WORK/fifo.err" || die "--threads over a named pipe: $(cat "$WORK/fifo.err")"
	[ "$(ifstat "$NS_A" "$IF_A" tx_packets)" -eq "$tx0" ] || die "--threads over a named pipe: frames went out"
	# With -K the pipe, and standard input, are read once into memory and every thread sends from it.
	timeout 20 cat "$TRACES/http.pcap" >"$fifo" &
	writer=$!
	in_a "$REPLAY" -q -i "$IF_A" --threads 2 -K --stats-json "$js" "$fifo" || die "--threads -K over a named pipe: exit $?"
	wait "$writer" || true
	check_invariant "$js"
	[ "$(json_get "$js" packets_sent)" -eq 40 ] || die "--threads -K over a named pipe: sent $(json_get "$js" packets_sent)"
	[ "$(grep -o '"thread":[0-9]*' "$js" | wc -l)" -eq 2 ] || die "--threads -K over a named pipe: not two threads"
	cat "$TRACES/http.pcap" | in_a "$REPLAY" -q -i "$IF_A" --threads 2 -K --stats-json "$js" - ||
		die "--threads -K from standard input: exit $?"
	[ "$(json_get "$js" packets_sent)" -eq 40 ] || die "--threads -K from standard input: sent $(json_get "$js" packets_sent)"
	expect_fail 2 "--cpu: 2 CPUs given for one thread" \
		in_a "$REPLAY" -i "$IF_A" --cpu 0,1 "$TRACES/http.pcap"
	expect_fail 2 "--xdp-queue: 3 queues given for --threads 2" \
		in_a "$REPLAY" -i "$IF_A" --threads 2 --xdp-queue 0-2 "$TRACES/http.pcap"
}

require_root
command -v python3 >/dev/null || die "python3 is not installed"
# Two queues a side, then four: a thread's socket on a CPU of its own sends by that CPU's queue (XPS).
for VETH_QUEUES in 2 4; do
	info "veth with $VETH_QUEUES queues a side"
	init_ns
	"$GENTRACE" udp -o "$WORK/flows.pcap" --count 20000 --gap-ns 2000 --flows 64 --size 128 >/dev/null
	if [ "$VETH_QUEUES" = 2 ]; then
		run_tests test_single_baseline test_two_threads_topspeed test_four_threads_topspeed \
			test_two_threads_timed test_methods_and_loop test_preload_shared test_summary_lines test_sigint_stops_all \
			test_loop0_futile test_refused
	else
		run_tests test_single_baseline test_two_threads_topspeed test_four_threads_topspeed test_four_threads_xdp
		break # teardown (on exit) takes this pair down
	fi
	ip netns del "$NS_A"
	ip netns del "$NS_B"
	rm -rf "$WORK"
done
