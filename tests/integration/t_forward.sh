#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The live forwarder (--source-interface IF_IN -i IF_OUT): three namespaces.
# A generator (namespace C) replays a known capture into the forwarder's
# input (C's end of the pair C<->A); the forwarder (A) sends what arrives out
# of A's end of A<->B, impaired as asked; on the far side (B) every frame is
# checked, frame by frame and byte by byte, against what the same impairment
# does to the same capture in a dry run (-w): the drops, the copies and the
# order its delays give.  Then --limit, a signal with frames held, and the
# refusals.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}" "${GENTRACE:?}"

NS_C="rpl-c-$ID"
IF_C="rpc$ID"
IF_F="rpf$ID"

# seqs FILE: the gentrace sequence number of every frame in FILE, one a line.
seqs() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
le = d[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1')
e = '<' if le else '>'
o = 24
while o + 16 <= len(d):
    incl = struct.unpack(e + 'I', d[o + 8:o + 12])[0]
    f = d[o + 16:o + 16 + incl]
    print(struct.unpack('>Q', f[42:50])[0])
    o += 16 + incl
PY
}

FWD_PID=""
TEARDOWN_PIDS="FWD_PID"

# fwd_start NAME OPTIONS...: the forwarder, IF_F -> IF_A, in the background; returns once it listens.
fwd_start() {
	local name=$1
	shift
	: >"$WORK/$name.err"
	FWD_T0=$(date +%s%N)
	# $! must be replay itself (ip netns exec execs it), not a subshell.
	ip netns exec "$NS_A" "$REPLAY" --source-interface "$IF_F" -i "$IF_A" --stats-json "$WORK/$name.json" \
		"$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	FWD_PID=$!
	wait_listening "$FWD_PID" "$WORK/$name.err" "the forwarder"
}

# fwd_wait NAME STATUS: the forwarder's exit status is STATUS.
fwd_wait() {
	local rc=0
	wait "$FWD_PID" || rc=$?
	FWD_PID=""
	[ "$rc" -eq "$2" ] || die "$1: the forwarder exited $rc, expected $2: $(cat "$WORK/$1.out" "$WORK/$1.err")"
}

# identity JSON: read + copies = sent + filtered + failed + impaired-dropped.
identity() {
	local r s f x d c
	r=$(json_get "$1" packets_read)
	s=$(json_get "$1" packets_sent)
	f=$(json_get "$1" packets_filtered)
	x=$(json_get "$1" packets_failed)
	d=$(json_get "$1" packets_impair_dropped || true)
	c=$(json_get "$1" impair_copies || true)
	[ $((r + ${c:-0})) -eq $((s + f + x + ${d:-0})) ] ||
		die "accounting: read $r + copies $c != sent $s + filtered $f + failed $x + impaired-dropped $d"
}

# forwarded NAME WANT OPTIONS...: generator -> forwarder (with OPTIONS, for 3 s) -> far side,
# which must hold exactly the frames WANT lists (sequence numbers), byte for byte the dry run's.
forwarded() {
	local name=$1 want=$2
	shift 2
	local exp="$WORK/$name.exp.pcap" got="$WORK/$name.got.pcap" js="$WORK/$name.json"
	"$REPLAY" -q -w "$exp" "$@" "$WORK/t.pcap" || die "$name: dry run failed"
	[ "$(seqs "$exp" | tr '\n' ' ')" = "$want " ] ||
		die "$name: -w wrote $(seqs "$exp" | tr '\n' ' '), expected $want"
	tcpdump_start "$got" 256
	fwd_start "$name" --duration 3 "$@"
	ip netns exec "$NS_C" "$REPLAY" -q -i "$IF_C" "$WORK/t.pcap" || die "$name: the generator exited $?"
	fwd_wait "$name" 0
	tcpdump_stop
	[ "$(seqs "$got" | tr '\n' ' ')" = "$want " ] ||
		die "$name: the far side got $(seqs "$got" | tr '\n' ' '), expected $want"
	"$PCAPDIFF" "$exp" "$got" >"$WORK/diff" || die "$name: far side differs from -w: $(cat "$WORK/diff")"
	[ "$(json_get "$js" packets_read)" -eq 10 ] || die "$name: the forwarder read $(json_get "$js" packets_read) frames, 10 were sent"
	[ "$(json_get "$js" packets_sent)" -eq "$(seqs "$got" | wc -l)" ] ||
		die "$name: $(json_get "$js" packets_sent) sent, $(seqs "$got" | wc -l) arrived"
	identity "$js"
	live_counts "$name" 10 "$(seqs "$got" | wc -l)"
	info "$name: $(json_get "$js" packets_sent) frames, as expected"
}

# live_counts NAME CAPTURED FORWARDED: the live source's account, in --stats-json's "live"
# object and in the summary, each loss on its own line: CAPTURED frames captured, none
# dropped before capture, FORWARDED sent; the snap length the MTU's (1500 + 22), the ring
# the default 64 MiB; the run's elapsed time within the forwarder's own lifetime.
live_counts() {
	local name=$1 js="$WORK/$1.json" out="$WORK/$1.out"
	python3 - "$js" "$IF_F" "$2" "$3" "${FWD_T0:?}" "$(date +%s%N)" <<'PY2' || die "$name: the live account is wrong (above)"
import json, sys
j = json.load(open(sys.argv[1]))
lv = j.get("live")
want = {"interface": sys.argv[2], "captured": int(sys.argv[3]), "kernel_dropped": 0, "interface_dropped": 0,
        "too_long": 0, "forwarded": int(sys.argv[4]), "snaplen": 1522, "buffer_bytes": 64 << 20}
if lv != want:
    sys.exit("live: %r, expected %r" % (lv, want))
if lv["forwarded"] != j["packets_sent"]:
    sys.exit("live.forwarded %d != packets_sent %d" % (lv["forwarded"], j["packets_sent"]))
lifetime = int(sys.argv[6]) - int(sys.argv[5])
if not 0 < j["elapsed_ns"] <= lifetime:
    sys.exit("elapsed_ns %d, but the forwarder lived %d ns" % (j["elapsed_ns"], lifetime))
PY2
	grep -q "^Live source: $IF_F: $2 frames captured (snap length 1522, ring 65536 KiB), $3 forwarded$" "$out" &&
		grep -q "^Live source: $IF_F: 0 frames dropped by the kernel before capture, 0 by the interface$" "$out" ||
		die "$name: no (or a wrong) live source line: $(cat "$out")"
}

test_plain() {
	# No impairment: a bridge; every frame, in order, byte for byte the capture's.
	forwarded plain "0 1 2 3 4 5 6 7 8 9"
	"$PCAPDIFF" "$WORK/t.pcap" "$WORK/plain.got.pcap" >"$WORK/diff" || die "plain: $(cat "$WORK/diff")"
}

test_trace() {
	# 20 ms apart: the 2nd held 50 ms (arrives between the 4th, at 60 ms, and the 5th, at 80; 10 ms
	# either side, so a loaded machine's late generator cannot swap them);
	# the 3rd and 7th dropped, the 5th with a copy.
	printf 'pass\ndelay 50ms\ndrop\npass\ndup 1\npass\ndrop\n' >"$WORK/tr.txt"
	forwarded trace "0 3 1 4 4 5 7 8 9" --impair "$WORK/tr.txt"
	[ "$(json_get "$WORK/trace.json" packets_impair_dropped)" -eq 2 ] || die "trace: not 2 dropped by action"
	[ "$(json_get "$WORK/trace.json" impair_copies)" -eq 1 ] || die "trace: not 1 copy"
	# The same trace in its binary form: the same frames.
	"$REPLAY" impair convert "$WORK/tr.txt" "$WORK/tr.rpim" || die "convert failed"
	forwarded trace-bin "0 3 1 4 4 5 7 8 9" --impair "$WORK/tr.rpim"
}

test_model() {
	# netem's loss with a seed: the same frames as the dry run's draws.
	forwarded model "$("$REPLAY" -q -w "$WORK/m.pcap" --loss 30% --duplicate 10% --impair-seed 42 \
		"$WORK/t.pcap" && seqs "$WORK/m.pcap" | tr '\n' ' ' | sed 's/ $//')" \
		--loss 30% --duplicate 10% --impair-seed 42
}

test_overflow() {
	# --impair-limit 3 with a delay of 1 s: the ten frames (180 ms) all arrive before the first
	# is due, so the queue fills at the third and the other seven find no room -- every run,
	# whatever the load.  The summary says so plainly, with the limit's peak and a remedy.
	local js="$WORK/over.json" out="$WORK/over.out"
	forwarded over "0 1 2" --delay 1s --impair-limit 3
	[ "$(json_get "$js" packets_impair_queue_dropped)" -eq 7 ] || die "over: not 7 dropped for want of room"
	python3 - "$js" <<'PY2' || die "over: the queue's account is wrong (above)"
import json, sys
i = json.load(open(sys.argv[1]))["impairment"]
want = {"queue_limit": 3, "queue_peak": 3, "queue_full": 1, "queue_dropped": 7, "dropped": 0, "delayed": 10}
got = {k: i[k] for k in want}
if got != want:
    sys.exit("impairment: %r, expected %r" % (got, want))
PY2
	grep -Eq "^Impairment: queue limit 3 reached 1 times \(peak held 3\): 7 frames dropped for want of room; at [0-9]+ frames/s delayed 1000.00 ms on average, about [0-9]+ frames are held: raise --impair-limit \(to [0-9]+, say\)$" "$out" ||
		die "over: the summary does not say the queue overflowed: $(cat "$out")"
	# No overflow, no such line.
	! grep -q "queue limit" "$WORK/trace.out" || die "trace: a queue line without an overflow"
}

test_limit() {
	# --limit 4: four frames out, then the forwarder ends by itself (no --duration).
	local got="$WORK/limit.got.pcap"
	tcpdump_start "$got" 256
	fwd_start limit --limit 4
	ip netns exec "$NS_C" "$REPLAY" -q -i "$IF_C" "$WORK/t.pcap" || die "limit: the generator exited $?"
	fwd_wait limit 0
	tcpdump_stop
	[ "$(seqs "$got" | tr '\n' ' ')" = "0 1 2 3 " ] || die "limit: the far side got $(seqs "$got" | tr '\n' ' ')"
	[ "$(json_get "$WORK/limit.json" packets_sent)" -eq 4 ] || die "limit: not 4 sent"
	identity "$WORK/limit.json"
}

test_sigint_held() {
	# Every frame after the first held 60 s; a SIGINT: the first went, the other nine fail in
	# one line, the identity holds, exit 130.
	local got="$WORK/sig.got.pcap" rc=0
	printf 'pass\n' >"$WORK/sig.txt"
	tcpdump_start "$got" 256
	fwd_start sig --impair "$WORK/sig.txt" --impair-default "delay 60s"
	ip netns exec "$NS_C" "$REPLAY" -q -i "$IF_C" "$WORK/t.pcap" || die "sig: the generator exited $?"
	sleep 0.5
	kill -INT "$FWD_PID"
	fwd_wait sig 130
	tcpdump_stop
	[ "$(seqs "$got" | tr '\n' ' ')" = "0 " ] || die "sig: the far side got $(seqs "$got" | tr '\n' ' ')"
	[ "$(grep -c "held back by impairment" "$WORK/sig.err")" -eq 1 ] &&
		grep -q "^replay: 9 frames held back by impairment not sent" "$WORK/sig.err" ||
		die "sig: the held frames are not one line of 9: $(cat "$WORK/sig.err")"
	[ "$(json_get "$WORK/sig.json" packets_failed)" -eq 9 ] || die "sig: not 9 failed"
	identity "$WORK/sig.json"
}

test_sigint_ignored() {
	# A non-interactive shell starts a background job with SIGINT ignored, and replay inherits
	# that.  (1) A SIGINT during the set-up, before the handler is installed, ends it (it used
	# to be thrown away, and the forwarder ran on): the set-up is held in reading --load-opts
	# from a FIFO until the signal has been sent.  (2) Once listening, a SIGINT stops it with
	# its summary, exit 130.
	local fifo="$WORK/opts.fifo" rc=0 pid exe i
	mkfifo "$fifo"
	: >"$WORK/ign.err"
	( trap '' INT; exec ip netns exec "$NS_A" "$REPLAY" --load-opts "$fifo" --source-interface "$IF_F" \
		-i "$IF_A" --duration 3 >"$WORK/ign.out" 2>"$WORK/ign.err" ) &
	pid=$!
	FWD_PID=$pid
	exe=$(realpath "$REPLAY")
	for i in $(seq 200); do
		# replay itself (ip has exec'd it), waiting in open() for the FIFO's writer.
		if [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$exe" ] &&
			{ grep -qx wait_for_partner "/proc/$pid/wchan" 2>/dev/null ||
				grep -Eq "^(2|257) " "/proc/$pid/syscall" 2>/dev/null; }; then
			break
		fi
		[ "$i" -lt 200 ] || die "ignored: replay never waited for its --load-opts FIFO"
		sleep 0.05
	done
	kill -INT "$pid"
	sleep 0.2
	# The options it waits for (O_RDWR: no wait for a reader that may be gone).
	exec 3<>"$fifo"
	printf '# nothing more\n' >&3
	exec 3>&-
	wait "$pid" || rc=$?
	FWD_PID=""
	[ "$rc" -eq 130 ] || die "ignored: a SIGINT during the set-up was lost: exit $rc: $(cat "$WORK/ign.out" "$WORK/ign.err")"
	! grep -q "listening on" "$WORK/ign.err" || die "ignored: it went on to listen after a SIGINT"

	# (2) From the same kind of shell, listening: stopped by SIGINT, with its summary.
	: >"$WORK/ign2.err"
	( trap '' INT; exec ip netns exec "$NS_A" "$REPLAY" --source-interface "$IF_F" -i "$IF_A" \
		--stats-json "$WORK/ign2.json" >"$WORK/ign2.out" 2>"$WORK/ign2.err" ) &
	FWD_PID=$!
	wait_listening "$FWD_PID" "$WORK/ign2.err" "the forwarder"
	ip netns exec "$NS_C" "$REPLAY" -q -i "$IF_C" --limit 3 "$WORK/t.pcap" || die "ignored: the generator exited $?"
	sleep 0.3
	kill -INT "$FWD_PID"
	fwd_wait ign2 130
	grep -q "^Packets: read 3, sent 3, filtered 0, failed 0" "$WORK/ign2.out" ||
		die "ignored: no summary after SIGINT: $(cat "$WORK/ign2.out" "$WORK/ign2.err")"
	[ "$(json_get "$WORK/ign2.json" packets_sent)" -eq 3 ] || die "ignored: not 3 sent"
}

test_burst() {
	# 3000 frames back to back (--topspeed): the capture thread takes them in batches of up to
	# 256 per pcap_dispatch(), one write each, and looks again at once after a full batch
	# (src/live/live.c).  Every frame arrives, in order, byte for byte; the live account and the
	# identity hold.
	local got="$WORK/burst.got.pcap" js="$WORK/burst.json"
	"$GENTRACE" udp -o "$WORK/b.pcap" --count 3000 --size 64 >/dev/null
	tcpdump_start "$got" 256
	fwd_start burst --duration 4
	ip netns exec "$NS_C" "$REPLAY" -q -i "$IF_C" --topspeed "$WORK/b.pcap" || die "burst: the generator exited $?"
	fwd_wait burst 0
	tcpdump_stop
	"$PCAPDIFF" "$WORK/b.pcap" "$got" >"$WORK/diff" || die "burst: far side differs from the trace: $(cat "$WORK/diff")"
	[ "$(json_get "$js" packets_read)" -eq 3000 ] || die "burst: the forwarder read $(json_get "$js" packets_read) of 3000"
	[ "$(json_get "$js" packets_sent)" -eq 3000 ] || die "burst: $(json_get "$js" packets_sent) of 3000 sent"
	identity "$js"
	live_counts burst 3000 3000
}

test_held_on_time() {
	# Every held frame leaves at its deadline, the last one too.  A held frame found already
	# due (its deadline passed while the one before it went) was staged but not kicked, and
	# with the input silent the forwarder then slept until the next frame arrived, or to the
	# end of the run: at the end of a burst the last frame went out seconds late (the 2 s
	# one-way delay of the 90k pps benchmark).  Allowed here: 200 ms beyond the delay, for a
	# loaded machine.
	local slog="$WORK/held.slog" js="$WORK/held.json" got="$WORK/dup.got.pcap"
	# (1) 300 frames back to back, --delay 10ms: the last ones are due a few us apart, so
	# most of them are found already due.  The far side must have all 300 long before the
	# forwarder stops (--duration 3), each 10 to 210 ms after the generator sent it.
	"$GENTRACE" udp -o "$WORK/h.pcap" --count 300 --size 64 >/dev/null
	rx_start "$WORK/held.rx.json" -R "$WORK/h.pcap" --send-log "$slog"
	fwd_start held --duration 3 --delay 10ms
	ip netns exec "$NS_C" "$REPLAY" -q -i "$IF_C" --topspeed --send-log "$slog" "$WORK/h.pcap" ||
		die "held: the generator exited $?"
	rx_stop
	[ "$(json_get "$RX_JSON" received)" -eq 300 ] && [ "$(json_get "$RX_JSON" lost)" -eq 0 ] ||
		die "held: $(json_get "$RX_JSON" received) of 300 frames arrived within 0.3 s of the last one sent: held frames were not sent at their deadlines: $(cat "$WORK/rx.out")"
	set -- "$(json_get "$RX_JSON" latency_count)" "$(json_get "$RX_JSON" latency_min_ns)" \
		"$(json_get "$RX_JSON" latency_max_ns)"
	[ "$1" -eq 300 ] || die "held: $1 one-way delays of 300"
	[ "$2" -ge 10000000 ] || die "held: a frame arrived $2 ns after it was sent, under the 10 ms delay"
	[ "$3" -le 210000000 ] || die "held: a frame arrived $3 ns after it was sent, more than 200 ms beyond its 10 ms delay"
	fwd_wait held 0
	[ "$(json_get "$js" packets_sent)" -eq 300 ] || die "held: $(json_get "$js" packets_sent) of 300 sent"
	identity "$js"
	info "held: 300 frames, one-way delay $(($2 / 1000)) to $(($3 / 1000)) us"

	# (2) Deterministically: each frame and its copy share one deadline ("delay 10ms dup 1"),
	# so the copy is always found due the moment its frame has gone.  Every copy must arrive
	# within 200 ms of its frame, the last one too, and before the forwarder stops.
	tcpdump_start "$got" 256
	printf 'pass\n' >"$WORK/dup.txt"
	fwd_start dup --duration 3 --impair "$WORK/dup.txt" --impair-default "delay 10ms dup 1"
	ip netns exec "$NS_C" "$REPLAY" -q -i "$IF_C" "$WORK/t.pcap" || die "dup: the generator exited $?"
	sleep 0.3
	tcpdump_stop
	python3 - "$got" <<'PY' || die "dup: a copy was held beyond its deadline (above)"
import struct, sys
d = open(sys.argv[1], 'rb').read()
o, seen = 24, {}
while o + 16 <= len(d):
    sec, nsec, incl = struct.unpack('<III', d[o:o + 12])
    seq = struct.unpack('>Q', d[o + 16 + 42:o + 16 + 50])[0]
    seen.setdefault(seq, []).append(sec * 10**9 + nsec)
    o += 16 + incl
want = {0: 1}
want.update({k: 2 for k in range(1, 10)})
got = {k: len(v) for k, v in seen.items()}
if got != want:
    sys.exit("the far side got %r frames of each sequence number before the forwarder stopped, expected %r" % (got, want))
for k, v in sorted(seen.items()):
    if max(v) - min(v) > 200000000:
        sys.exit("frame %d: its copy arrived %d ns after it, with the same deadline" % (k, max(v) - min(v)))
PY
	fwd_wait dup 0
	[ "$(json_get "$WORK/dup.json" packets_sent)" -eq 19 ] || die "dup: $(json_get "$WORK/dup.json" packets_sent) of 19 sent"
	identity "$WORK/dup.json"
}

test_refusals() {
	expect_fail 2 "^replay: --source-interface $IF_F is the input: give no trace file" \
		in_a "$REPLAY" --source-interface "$IF_F" -i "$IF_A" "$WORK/t.pcap"
	expect_fail 2 "^replay: --source-interface needs --intf1: it forwards out of an interface$" \
		in_a "$REPLAY" --source-interface "$IF_F" -w "$WORK/x.pcap"
	expect_fail 2 "^replay: --source-interface excludes --topspeed: it sends each frame when it arrives" \
		in_a "$REPLAY" --source-interface "$IF_F" -i "$IF_A" --topspeed
	expect_fail 2 "^replay: --source-interface and -i both name $IF_A" \
		in_a "$REPLAY" --source-interface "$IF_A" -i "$IF_A"
	expect_fail 2 "^replay: --source-interface excludes --loop 2: it forwards one interface to one" \
		in_a "$REPLAY" --source-interface "$IF_F" -i "$IF_A" --loop 2
	expect_fail 1 "^replay: --source-interface nosuch$ID: " \
		in_a "$REPLAY" --source-interface "nosuch$ID" -i "$IF_A"
}

require_root
init_ns
# The generator's namespace and its pair into the forwarder.
add_ns "$NS_C"
add_pair "$NS_C" "$IF_C" "$NS_A" "$IF_F"
"$GENTRACE" udp -o "$WORK/t.pcap" --count 10 --gap-us 20000 --flows 2
run_tests test_plain test_burst test_trace test_model test_overflow test_limit test_sigint_held test_sigint_ignored \
	test_held_on_time test_refusals
