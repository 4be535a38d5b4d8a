#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Files and privileges, and runs that must end: no output overwrites an
# input or another output, nothing is written through another user's
# symbolic link, a failed run leaves no -w output (not even a temporary after
# SIGKILL), -w writes only what its own header allows, a closed -w - pipe and
# a --loop 0 that sends nothing end the run, and a run on an interface is
# checked against the interface's own TX counter; a send log is whole after a SIGINT.
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}"

# intact FILE COPY: FILE still has COPY's bytes.
intact() { cmp -s "$1" "$2" || die "$1 was changed"; }

test_output_on_input() {
	local d="$WORK/conf" in
	mkdir -p "$d/sub"
	in="$d/in.pcap"
	cp "$TRACES/http.pcap" "$in"
	expect_fail 2 "^replay: --stats-json $in: is the same file as the input $in; refusing to overwrite an input$" \
		"$REPLAY" -w "$d/o.pcap" --stats-json "$in" "$in"
	intact "$in" "$TRACES/http.pcap"
	expect_fail 2 "^replay: --send-log $in: is the same file as the input" \
		"$REPLAY" -w "$d/o.pcap" --send-log "$in" "$in"
	intact "$in" "$TRACES/http.pcap"
	expect_fail 2 "^replay: -w $in: is the same file as the input" "$REPLAY" -w "$in" "$in" "$in"
	intact "$in" "$TRACES/http.pcap"
	# --save-opts writes nothing over a trace, even through a symbolic link.
	expect_fail 2 "^replay: --save-opts $in: is the same file as the input $in; refusing to overwrite an input$" \
		"$REPLAY" --save-opts "$in" -w "$d/o.pcap" "$in"
	intact "$in" "$TRACES/http.pcap"
	# Another name for it: a hard link, a symbolic link, a path through ..
	ln "$in" "$d/hard.pcap"
	expect_fail 2 "^replay: -w $d/hard.pcap: is the same file as the input" "$REPLAY" -w "$d/hard.pcap" "$in"
	ln -s in.pcap "$d/sym.pcap"
	expect_fail 2 "is the same file as the input" "$REPLAY" -w "$d/sym.pcap" "$in"
	expect_fail 2 "is the same file as the input" "$REPLAY" -w "$d/sub/../in.pcap" "$in"
	intact "$in" "$TRACES/http.pcap"
	# Two outputs on one file, existing or not yet.
	expect_fail 2 "^replay: -w $d/x.pcap and --send-log $d/sub/../x.pcap: the same file; each output needs its own$" \
		"$REPLAY" -w "$d/x.pcap" --send-log "$d/sub/../x.pcap" "$in"
	[ ! -e "$d/x.pcap" ] || die "a refused run created its output"
	expect_fail 2 "^replay: -w - and --stats-json -: both would write to standard output" \
		"$REPLAY" -w - --stats-json - "$in"
	[ ! -s "$WORK/out" ] || die "-w - --stats-json -: something was written to standard output"
	# The prep sidecar on its own trace.
	expect_fail 2 "^replay: -o $in: is the same file as the input" "$REPLAY" prep "$in" -o "$in"
	intact "$in" "$TRACES/http.pcap"
	# replay-rx: its JSON, pcap or plots on the reference or the pcap it reads.
	expect_fail 2 "^replay-rx: --json $in: is the same file as the --reference $in; refusing to overwrite an input$" \
		"$REPLAY_RX" -r "$TRACES/http.pcap" --reference "$in" --json "$in"
	expect_fail 2 "^replay-rx: -w $in: is the same file as the -r $in" "$REPLAY_RX" -r "$in" -w "$in"
	expect_fail 2 "^replay-rx: --json $d/r.json and -w $d/r.json: the same file" \
		"$REPLAY_RX" -r "$in" --json "$d/r.json" -w "$d/r.json"
	intact "$in" "$TRACES/http.pcap"
	# Distinct outputs still work, and a run's -w is readable by tcpdump.
	"$REPLAY" -q -w "$d/o.pcap" --stats-json "$d/s.json" --send-log "$d/s.log" "$in" || die "distinct outputs: exit $?"
	tcpdump -r "$d/o.pcap" -c 1 >/dev/null 2>&1 || die "tcpdump cannot read replay's -w output"
	[ -s "$d/s.json" ] && [ -s "$d/s.log" ] || die "distinct outputs were not written"
}

test_foreign_symlink() {
	# A world-writable sticky directory, as /tmp, with links planted by nobody.
	local d="$WORK/sticky" victim="$WORK/victim"
	mkdir -p "$d"
	chmod 1777 "$d"
	echo secret >"$victim"
	for opt in --stats-json --send-log -w; do
		ln -s "$victim" "$d/planted$opt"
		chown -h nobody "$d/planted$opt"
		if [ "$opt" = -w ]; then
			expect_fail 1 "planted-w is a symbolic link owned by another user \(uid [0-9]+\); refusing to write through it" \
				"$REPLAY" -w "$d/planted$opt" "$TRACES/dns.pcap"
		else
			expect_fail 1 "is a symbolic link owned by another user \(uid [0-9]+\); refusing to write through it" \
				"$REPLAY" -w /dev/null "$opt" "$d/planted$opt" "$TRACES/dns.pcap"
		fi
		[ "$(cat "$victim")" = secret ] || die "$opt wrote through another user's symbolic link"
		[ -L "$d/planted$opt" ] || die "$opt replaced another user's link"
	done
	# replay-rx's report likewise.
	ln -s "$victim" "$d/planted.rx"
	chown -h nobody "$d/planted.rx"
	expect_fail 1 "owned by another user" "$REPLAY_RX" -r "$TRACES/dns.pcap" --json "$d/planted.rx"
	[ "$(cat "$victim")" = secret ] || die "replay-rx --json wrote through another user's symbolic link"
	# Our own link is followed: its target is replaced, whole.
	ln -s "$WORK/mine.json" "$d/mine.json"
	"$REPLAY" -q -w /dev/null --stats-json "$d/mine.json" "$TRACES/dns.pcap" || die "own link: exit $?"
	[ -L "$d/mine.json" ] && grep -q packets_sent "$WORK/mine.json" || die "own link not followed"
}

test_failed_run_leaves_nothing() {
	local d="$WORK/partial" pid fifo n
	mkdir -p "$d"
	# A trace whose fourth record is corrupt: three packets are written, then the run fails.
	python3 - "$TRACES/http.pcap" "$d/bad.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = 24
for _ in range(3):
    off += 16 + struct.unpack('<I', d[off + 8:off + 12])[0]
open(sys.argv[2], 'wb').write(d[:off] + struct.pack('<IIII', 1, 0, 300000, 300000) + bytes(64))
PY
	expect_fail 1 "bad.pcap: record 4 at offset 0x[0-9a-f]+: captured length 300000 is absurd" \
		"$REPLAY" -w "$d/out.pcap" "$d/bad.pcap"
	[ ! -e "$d/out.pcap" ] || die "a failed run left its -w output"
	echo old >"$d/out.pcap"
	expect_fail 1 "captured length 300000 is absurd" "$REPLAY" -w "$d/out.pcap" "$TRACES/http.pcap" "$d/bad.pcap"
	[ "$(cat "$d/out.pcap")" = old ] || die "a failed run replaced the old -w output"
	[ "$(ls -A "$d" | wc -l)" = 2 ] || die "a failed run left files behind: $(ls -A "$d")"
	rm "$d/out.pcap"
	# SIGKILL while writing: the output is open (unnamed) while replay waits for pipe input.
	fifo="$d/in.fifo"
	mkfifo "$fifo"
	{ head -c 200 "$TRACES/http.pcap"; sleep 30; } >"$fifo" &
	TD_PID=$!
	"$REPLAY" -q -w "$d/out.pcap" "$fifo" &
	pid=$!
	for n in $(seq 100); do
		ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "$d" && break
		sleep 0.05
	done
	ls -l "/proc/$pid/fd" | grep -q "$d" || die "replay did not open its output"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	kill "$TD_PID" 2>/dev/null || true
	wait "$TD_PID" 2>/dev/null || true
	TD_PID=""
	[ "$(ls -A "$d")" = "$(printf 'bad.pcap\nin.fifo')" ] || die "SIGKILL left files behind: $(ls -A "$d")"
}

test_write_limits() {
	local d="$WORK/limits"
	mkdir -p "$d"
	# A RAW (101) IPv4 record of 262144 bytes, the readers' cap: as Ethernet it is 14 bytes more.
	python3 - "$d/raw-big.pcap" <<'PY'
import struct, sys
n = 262144
ip = bytearray(n)
ip[0] = 0x45
struct.pack_into('>H', ip, 2, 65535)
ip[8] = 64; ip[9] = 17
ip[12:16] = bytes([192, 0, 2, 1]); ip[16:20] = bytes([192, 0, 2, 2])
hdr = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 101)
open(sys.argv[1], 'wb').write(hdr + struct.pack('<IIII', 1, 0, n, n) + bytes(ip))
PY
	"$REPLAY" -q -w "$d/big-out.pcap" "$d/raw-big.pcap" 2>"$d/err" && die "a frame over the snap length was written (exit 0)"
	grep -qE "record 1 .*(snap length|larger|exceed|too long|longer)" "$d/err" || die "no per-record error: $(cat "$d/err")"
	[ ! -e "$d/big-out.pcap" ] || die "an output holding a record over its snap length was left"
	# A timestamp 2^32 s after the first: refused, not wrapped.
	python3 - "$d/late.pcap" <<'PY'
import struct, sys
f = bytes(60)
hdr = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
rec = lambda s: struct.pack('<IIII', s, 0, 60, 60) + f
open(sys.argv[1], 'wb').write(hdr + rec(0) + rec(0xffffffff))
PY
	expect_fail 1 "late.pcap: record 2 at offset 0x[0-9a-f]+: send time [0-9]+ s is beyond what a pcap timestamp holds" \
		"$REPLAY" -w "$d/late-out.pcap" "$d/late.pcap"
	[ ! -e "$d/late-out.pcap" ] || die "an output with a wrapped timestamp was left"
}

test_closed_pipe() {
	local rc t0 big="$WORK/pipe-big.pcap"
	# 4 MB: far more than a pipe holds, so the writer meets the closed end.
	"$GENTRACE" udp --size 1000 --count 4000 -o "$big" >/dev/null
	for loop in 1 0; do
		t0=$(date +%s)
		rc=0
		timeout 20 "$REPLAY" -q -w - --topspeed --loop "$loop" "$big" 2>"$WORK/pipe.err" | head -c 100 >/dev/null ||
			rc=${PIPESTATUS[0]}
		[ "$rc" = 1 ] || die "-w - into a closed pipe, --loop $loop: exit $rc, expected 1: $(cat "$WORK/pipe.err")"
		grep -q -- "-: write failed: Broken pipe" "$WORK/pipe.err" || die "no EPIPE message: $(cat "$WORK/pipe.err")"
		[ $(($(date +%s) - t0)) -lt 10 ] || die "--loop $loop into a closed pipe took too long"
	done
}

test_loop_sends_nothing() {
	local rc=0
	timeout 20 "$REPLAY" -w /dev/null --loop 0 --filter 'udp port 9' "$TRACES/http.pcap" \
		>"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" = 1 ] || die "--loop 0, all filtered: exit $rc (124 = still running after 20 s): $(cat "$WORK/err")"
	grep -q "^replay: --loop 0: a whole pass over the traces sent nothing (40 packets read: 40 filtered or excluded, 0 failed); stopping$" \
		"$WORK/err" || die "no clear error: $(cat "$WORK/err")"
	# On an interface, with packet selection excluding everything.
	rc=0
	timeout 20 ip netns exec "$NS_A" "$REPLAY" -i "$IF_A" --topspeed --loop 0 --exclude 1-40 \
		"$TRACES/http.pcap" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" = 1 ] || die "--loop 0, all excluded: exit $rc: $(cat "$WORK/err")"
	grep -q "a whole pass over the traces sent nothing" "$WORK/err" || die "no clear error: $(cat "$WORK/err")"
}

test_interface_counter() {
	local js="$WORK/if.json"
	# Every frame leaves: the interface counted what replay says it sent.
	in_a "$REPLAY" -q -i "$IF_A" --topspeed --stats-json "$js" "$TRACES/http.pcap" || die "plain run: exit $?"
	[ "$(json_get "$js" interface_tx_packets)" -ge "$(json_get "$js" packets_sent)" ] ||
		die "interface_tx_packets below packets_sent: $(cat "$js")"
	[ "$(json_get "$js" interface_tx_deficit)" = 0 ] || die "deficit on a clean run: $(cat "$js")"
	# Raw IP with a next hop that does not resolve: the kernel sends ARP requests, not the packets.
	in_a ip addr add 198.51.100.1/24 dev "$IF_A"
	in_a ip route add default via 198.51.100.2 dev "$IF_A"
	expect_fail 1 "^replay: $IF_A: [0-9]+ packets reported sent, but the interface counted [0-9]+ leaving it \([0-9]+ dropped by it\): [0-9]+ never left$" \
		in_a "$REPLAY" -i "$IF_A" --method raw --topspeed --stats-json "$js" "$TRACES/udp-1ms.pcap"
	grep -q "DEFICIT: [0-9]* packets reported sent never left it" "$WORK/out" ||
		die "the summary does not show the deficit: $(cat "$WORK/out")"
	[ "$(json_get "$js" interface_tx_deficit)" -gt 0 ] || die "no deficit in the JSON: $(cat "$js")"
	[ "$(json_get "$js" interface_tx_packets)" -lt "$(json_get "$js" packets_sent)" ] || die "deficit inconsistent: $(cat "$js")"
	info "raw, unresolved next hop: sent $(json_get "$js" packets_sent), interface $(json_get "$js" interface_tx_packets)"
	in_a ip route del default
	in_a ip addr del 198.51.100.1/24 dev "$IF_A"
}

test_send_log_sigint() {
	# A run stopped by SIGINT while the send log's writer thread has buffers in hand: the
	# thread is joined, every record of every packet sent is in the file, and the header,
	# rewritten at close, counts them (src/stats/sendlog.c).
	local d="$WORK/sigint" pid rc sent count size
	mkdir -p "$d"
	"$GENTRACE" udp -o "$d/t.pcap" --count 200000 --gap-us 10 >/dev/null
	( trap '' INT; exec ip netns exec "$NS_A" "$REPLAY" -q -i "$IF_A" --send-log "$d/s.log" \
		--stats-json "$d/s.json" "$d/t.pcap" >"$d/out" 2>"$d/err" ) &
	pid=$!
	sleep 1.5
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ] || die "sigint: exit $rc: $(cat "$d/err")"
	[ -s "$d/s.log" ] || die "sigint: no send log after SIGINT"
	sent=$(json_get "$d/s.json" packets_sent)
	count=$(od -An -t u8 -j 24 -N 8 "$d/s.log" | tr -d ' ')
	size=$(stat -c %s "$d/s.log")
	[ "$sent" -gt 0 ] && [ "$sent" -lt 200000 ] || die "sigint: $sent sent: not stopped midway"
	[ "$count" = "$sent" ] || die "sigint: the log's header counts $count, $sent were sent"
	[ "$size" -eq $((64 + 24 * sent)) ] || die "sigint: log of $size bytes for $sent records"
	echo "send log after SIGINT: $sent packets sent, all logged"
}

test_plot_is_a_file() {
	local f="$WORK/plot-file"
	echo keep >"$f"
	expect_fail 1 "^replay-rx: --plot $f: exists and is not a directory$" \
		in_b "$REPLAY_RX" -i "$IF_B" --reference "$TRACES/http.pcap" --plot "$f" --timeout 5
	grep -q "listening" "$WORK/err" && die "replay-rx captured before refusing --plot"
	[ "$(cat "$f")" = keep ] || die "--plot file was changed"
}

test_plot_symlink() {
	# Another user plants a link to a directory of root's (outside a sticky directory, where
	# fs.protected_symlinks does not apply): replay-rx --plot through it must write nothing there.
	local d="$WORK/rootdir" x="$WORK/plot-link"
	mkdir -p "$d"
	ln -s "$d" "$x"
	chown -h nobody "$x"
	expect_fail 1 "^replay-rx: --plot $x: is a symbolic link; give the directory itself$" \
		"$REPLAY_RX" -r "$TRACES/dns.pcap" --reference "$TRACES/dns.pcap" --plot "$x"
	[ "$(wc -l <"$WORK/err")" -eq 1 ] || die "--plot through a link: more than one line: $(cat "$WORK/err")"
	[ -z "$(ls -A "$d")" ] || die "--plot wrote through another user's link: $(ls -A "$d")"
	# One level up: another user's link on the way to a directory of root's.
	mkdir -p "$d/figs"
	expect_fail 1 "plot-link is a symbolic link owned by another user \(uid [0-9]+\); refusing to follow it" \
		"$REPLAY_RX" -r "$TRACES/dns.pcap" --reference "$TRACES/dns.pcap" --plot "$x/figs"
	[ -z "$(ls -A "$d/figs")" ] || die "--plot wrote through another user's link: $(ls -A "$d/figs")"
	# A directory anyone may write in, without the sticky bit.
	chmod 0777 "$d/figs"
	expect_fail 1 "anyone may write in the directory \(mode 0777, no sticky bit\)" \
		"$REPLAY_RX" -r "$TRACES/dns.pcap" --reference "$TRACES/dns.pcap" --plot "$d/figs"
	[ -z "$(ls -A "$d/figs")" ] || die "--plot wrote into a world-writable directory"
}

require_root
init_ns
run_tests ${T_FILES_TESTS:-test_output_on_input test_foreign_symlink test_failed_run_leaves_nothing test_write_limits \
	test_closed_pipe test_loop_sends_nothing test_interface_counter test_plot_is_a_file test_plot_symlink test_send_log_sigint}
