#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Impairment across a veth pair (--impair, --loss, ...): on the far side
# exactly the frames the impairment leaves, in the order its delays give,
# byte for byte; each checked against the sequence numbers expected and
# against what -w writes for the same command line (whose timestamps carry
# the impaired deadlines).
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}" "${GENTRACE:?}"

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

# tstamps FILE: every frame's timestamp in ns, one a line.
tstamps() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
le = d[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1')
ns = d[:4] in (b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d')
e = '<' if le else '>'
o = 24
while o + 16 <= len(d):
    s, f, incl = struct.unpack(e + 'III', d[o:o + 12])
    print(s * 10**9 + (f if ns else f * 1000))
    o += 16 + incl
PY
}

# impaired NAME WANT OPTIONS...: the dry run and the real run with OPTIONS;
# the far side must hold the frames WANT lists (sequence numbers), exactly
# the dry run's frames, and the accounting identity must hold.
impaired() {
	local name=$1 want=$2
	shift 2
	local exp="$WORK/$name.exp.pcap" got="$WORK/$name.got.pcap" js="$WORK/$name.json"
	local r s f x d c

	"$REPLAY" -q -w "$exp" "$@" "$WORK/t.pcap" || die "$name: dry run failed"
	[ "$(seqs "$exp" | tr '\n' ' ')" = "$want " ] ||
		die "$name: -w wrote $(seqs "$exp" | tr '\n' ' '), expected $want"
	tcpdump_start "$got" 256
	in_a "$REPLAY" -q -i "$IF_A" --stats-json "$js" "$@" "$WORK/t.pcap" ||
		die "$name: replay exited $?"
	tcpdump_stop
	[ "$(seqs "$got" | tr '\n' ' ')" = "$want " ] ||
		die "$name: the far side got $(seqs "$got" | tr '\n' ' '), expected $want"
	"$PCAPDIFF" "$exp" "$got" >"$WORK/diff" || die "$name: far side differs from -w: $(cat "$WORK/diff")"
	r=$(json_get "$js" packets_read)
	s=$(json_get "$js" packets_sent)
	f=$(json_get "$js" packets_filtered)
	x=$(json_get "$js" packets_failed)
	d=$(json_get "$js" packets_impair_dropped)
	c=$(json_get "$js" impair_copies)
	[ $((r + c)) -eq $((s + f + x + d)) ] ||
		die "$name: accounting: read $r + copies $c != sent $s + filtered $f + failed $x + impaired-dropped $d"
	[ "$s" -eq "$(seqs "$got" | wc -l)" ] || die "$name: $s sent, $(seqs "$got" | wc -l) arrived"
	info "$name: $s frames, as expected"
}

test_drop_and_duplicate() {
	# Packets 3 and 7 (from 1) dropped, 5 duplicated: 10 - 2 + 1 frames.
	printf 'pass\npass\ndrop\npass\ndup 1\npass\ndrop\n' >"$WORK/dd.txt"
	impaired drop-dup "0 1 3 4 4 5 7 8 9" --impair "$WORK/dd.txt"
	# The same trace in binary form: the same frames.
	"$REPLAY" impair convert "$WORK/dd.txt" "$WORK/dd.rpim" || die "convert failed"
	impaired drop-dup-bin "0 1 3 4 4 5 7 8 9" --impair "$WORK/dd.rpim"
}

test_delay_reorders() {
	# Packet 2 delayed 2.5 ms, 1 ms apart: 3 and 4 overtake it.
	printf 'pass\ndelay 2500us\n' >"$WORK/dl.txt"
	impaired delay "0 2 3 1 4 5 6 7 8 9" --impair "$WORK/dl.txt"
	# -w stamps it 2.5 ms after its own slot: 1.5 ms after packet 2's (seq 1 at 1 ms).
	local ts
	ts=$(tstamps "$WORK/delay.exp.pcap" | tr '\n' ' ')
	set -- $ts
	[ $(($4 - $1)) -eq 3500000 ] || die "delayed frame stamped $(($4 - $1)) ns after the first, expected 3500000"
	[ $(($3 - $2)) -eq 1000000 ] || die "frames 3 and 4 stamped $(($3 - $2)) ns apart"
}

test_corrupt_and_flow() {
	# Only frames of flow 1 (source port 1025) take the trace: its first dropped,
	# its second with one byte of the payload inverted (it arrives: the wire checks nothing).
	printf 'drop\ncorrupt byte 60\n' >"$WORK/fl.txt"
	impaired flow "0 2 3 4 5 6 7 8 9" --impair "$WORK/fl.txt" --impair-flow "udp src port 1025" \
		--impair-repeat 1
	# Frame seq 3 (flow 1's second; the third to arrive) is the trace's with byte 60 inverted.
	python3 - "$WORK/t.pcap" "$WORK/flow.got.pcap" <<'PY' || die "flow: the corrupted frame is not the trace's with byte 60 inverted"
import struct, sys
def frames(path):
    d = open(path, 'rb').read()
    e = '<' if d[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
    o, out = 24, []
    while o + 16 <= len(d):
        incl = struct.unpack(e + 'I', d[o + 8:o + 12])[0]
        out.append(bytearray(d[o + 16:o + 16 + incl]))
        o += 16 + incl
    return out
want, got = frames(sys.argv[1])[3], frames(sys.argv[2])[2]
want[60] ^= 0xff
sys.exit(0 if want == got else 1)
PY
}

test_statistical_repeatable() {
	# The same seed, the same losses and copies, twice; on the wire too.
	"$REPLAY" -q -w "$WORK/s1.pcap" --loss 30% --duplicate 10% --impair-seed 42 "$WORK/t.pcap"
	"$REPLAY" -q -w "$WORK/s2.pcap" --loss 30% --duplicate 10% --impair-seed 42 "$WORK/t.pcap"
	local a
	a=$(seqs "$WORK/s1.pcap" | tr '\n' ' ')
	[ "$a" = "$(seqs "$WORK/s2.pcap" | tr '\n' ' ')" ] || die "seed 42 gave two different runs"
	[ "$a" != "0 1 2 3 4 5 6 7 8 9 " ] || die "--loss 30% --duplicate 10% changed nothing"
	impaired stat "${a% }" --loss 30% --duplicate 10% --impair-seed 42
}

test_sigint_held() {
	# Packets 2 and 4 held 60 s; a SIGINT once the other 8 are out: those 8 arrive, the
	# two held fail in one line, the identity holds, exit 130 (replay(1) EXIT STATUS).
	printf 'pass\ndelay 60s\npass\ndelay 60s\n' >"$WORK/hold.txt"
	local js="$WORK/hold.json" got="$WORK/hold.got.pcap" rc=0 pid r s f x d c rx0
	rx0=$(ifstat "$NS_B" "$IF_B" rx_packets)
	tcpdump_start "$got" 256
	# $! must be replay itself (ip netns exec execs it), not a subshell.
	ip netns exec "$NS_A" "$REPLAY" -i "$IF_A" --stats-json "$js" --impair "$WORK/hold.txt" \
		"$WORK/t.pcap" >"$WORK/hold.out" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		[ "$(ifstat "$NS_B" "$IF_B" rx_packets)" -ge $((rx0 + 8)) ] && break
		sleep 0.05
	done
	sleep 0.2
	kill -0 "$pid" 2>/dev/null || die "sigint: replay ended before the signal: $(cat "$WORK/hold.out")"
	kill -INT "$pid"
	wait "$pid" || rc=$?
	tcpdump_stop
	[ "$rc" -eq 130 ] || die "sigint: exit $rc, expected 130: $(cat "$WORK/hold.out")"
	grep -q "^Actual: [0-9]* packets" "$WORK/hold.out" || die "sigint: no summary: $(cat "$WORK/hold.out")"
	[ "$(grep -c "held back by impairment" "$WORK/hold.out")" -eq 1 ] ||
		die "sigint: not one line for the held frames: $(cat "$WORK/hold.out")"
	grep -q "^replay: 2 frames held back by impairment not sent" "$WORK/hold.out" ||
		die "sigint: the held frames are not named as 2: $(cat "$WORK/hold.out")"
	[ "$(seqs "$got" | tr '\n' ' ')" = "0 2 4 5 6 7 8 9 " ] ||
		die "sigint: the far side got $(seqs "$got" | tr '\n' ' ')"
	r=$(json_get "$js" packets_read)
	s=$(json_get "$js" packets_sent)
	f=$(json_get "$js" packets_filtered)
	x=$(json_get "$js" packets_failed)
	d=$(json_get "$js" packets_impair_dropped)
	c=$(json_get "$js" impair_copies)
	[ "$r" -eq 10 ] && [ "$s" -eq 8 ] && [ "$x" -eq 2 ] ||
		die "sigint: read $r sent $s failed $x, expected 10, 8, 2"
	[ $((r + c)) -eq $((s + f + x + d)) ] ||
		die "sigint: accounting: read $r + copies $c != sent $s + filtered $f + failed $x + impaired-dropped $d"
}

# A second veth pair, A2 -> B2, for -I (made by the test that needs it).
IF_A2="rqa$ID"
IF_B2="rqb$ID"
TD2_PID=""
TEARDOWN_PIDS="TD2_PID"

test_two_interfaces() {
	# --dualfile t.pcap t.pcap: the merged order is A0 B0 A1 B1 ... (a tie goes to file 1,
	# out -i; file 2 goes out -I).  The n-th sent gets the n-th action: 1st (A0) dropped,
	# 4th (B1) dropped, 5th (A2) duplicated, 6th (B2) delayed 3.5 ms (after B5 at 5 ms).
	printf 'drop\npass\npass\ndrop\ndup 1\ndelay 3500us\n' >"$WORK/two.txt"
	local js="$WORK/two.json" g1="$WORK/two.1.pcap" g2="$WORK/two.2.pcap" r s f x d c
	add_pair "$NS_A" "$IF_A2" "$NS_B" "$IF_B2"
	tcpdump_start "$g1" 256
	: >"$WORK/tcpdump2.err"
	ip netns exec "$NS_B" tcpdump -i "$IF_B2" -Q in -s 256 -B 65536 -U --immediate-mode -Z root \
		--time-stamp-precision=nano -w "$g2" 2>"$WORK/tcpdump2.err" &
	TD2_PID=$!
	wait_listening "$TD2_PID" "$WORK/tcpdump2.err" tcpdump
	in_a "$REPLAY" -q -i "$IF_A" -I "$IF_A2" --stats-json "$js" --impair "$WORK/two.txt" \
		--dualfile "$WORK/t.pcap" "$WORK/t.pcap" || die "-I: replay exited $?"
	tcpdump_stop
	sleep 0.3
	kill -TERM "$TD2_PID"
	wait "$TD2_PID" || true
	TD2_PID=""
	[ "$(seqs "$g1" | tr '\n' ' ')" = "1 2 2 3 4 5 6 7 8 9 " ] ||
		die "-I: -i's far side got $(seqs "$g1" | tr '\n' ' ')"
	[ "$(seqs "$g2" | tr '\n' ' ')" = "0 3 4 5 2 6 7 8 9 " ] ||
		die "-I: -I's far side got $(seqs "$g2" | tr '\n' ' ')"
	r=$(json_get "$js" packets_read)
	s=$(json_get "$js" packets_sent)
	f=$(json_get "$js" packets_filtered)
	x=$(json_get "$js" packets_failed)
	d=$(json_get "$js" packets_impair_dropped)
	c=$(json_get "$js" impair_copies)
	[ "$r" -eq 20 ] && [ "$s" -eq 19 ] && [ "$d" -eq 2 ] && [ "$c" -eq 1 ] ||
		die "-I: read $r sent $s impaired-dropped $d copies $c, expected 20, 19, 2, 1"
	[ $((r + c)) -eq $((s + f + x + d)) ] ||
		die "-I: accounting: read $r + copies $c != sent $s + filtered $f + failed $x + impaired-dropped $d"
}

test_bad_options() {
	expect_fail 2 "^replay: --loss: '150%'" "$REPLAY" -w "$WORK/x.pcap" --loss 150% "$WORK/t.pcap"
	expect_fail 2 "^replay: --impair-flow: 'udp'" "$REPLAY" -w "$WORK/x.pcap" --impair-flow udp "$WORK/t.pcap"
	expect_fail 2 "^replay: --impair-limit" "$REPLAY" -w "$WORK/x.pcap" --loss 1% --impair-limit 0 "$WORK/t.pcap"
	printf 'pass\ndelay forever\n' >"$WORK/bad.txt"
	expect_fail 1 "bad.txt: line 2" "$REPLAY" -w "$WORK/x.pcap" --impair "$WORK/bad.txt" "$WORK/t.pcap"
	[ ! -e "$WORK/x.pcap" ] || die "a refused run wrote its output"
}

require_root
init_ns
"$GENTRACE" udp -o "$WORK/t.pcap" --count 10 --gap-us 1000 --flows 2
run_tests test_drop_and_duplicate test_delay_reorders test_corrupt_and_flow test_statistical_repeatable \
	test_sigint_held test_two_interfaces test_bad_options
