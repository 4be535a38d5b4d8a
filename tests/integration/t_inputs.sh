#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Inputs that do not behave like a quiet file on disk: a pipe that stays
# open and silent, a pipe preloaded with -K, a trace truncated while it is
# replayed.  Every run is bounded in time (a regression cannot hang CI), and
# what the far side received is checked against what replay reports.
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}" "${REFORMAT:?}"

RP=""

# replay_bg OUT ARGS...: replay in the background, stdout and stderr to OUT; its PID in $RP.
replay_bg() {
	local out=$1
	shift
	"$REPLAY" "$@" >"$out" 2>&1 7>&- &
	RP=$!
}

# replay_ns_bg OUT ARGS...: the same in namespace A ($! is replay itself: ip netns exec execs it).
replay_ns_bg() {
	local out=$1
	shift
	ip netns exec "$NS_A" "$REPLAY" "$@" >"$out" 2>&1 7>&- &
	RP=$!
}

# wait_bounded SECONDS: wait for $RP to end, at most SECONDS; its exit status in $RC.
wait_bounded() {
	local i
	for i in $(seq $(($1 * 20))); do
		kill -0 "$RP" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$RP" 2>/dev/null; then
		kill -KILL "$RP"
		wait "$RP" 2>/dev/null || true
		die "replay did not end within $1 s"
	fi
	RC=0
	wait "$RP" || RC=$?
}

# open_fifo PATH: a FIFO held open for writing on fd 7 (read-write, so opening does not block).
open_fifo() {
	rm -f "$1"
	mkfifo "$1"
	exec 7<>"$1"
}

close_fifo() { exec 7>&-; }

# A pipe's records go out as they arrive: the first ones are on the wire while
# the writer is still silent, not after 64 KiB or the end of the input.
pipe_prompt() {
	local fmt=$1 tr="$WORK/three.$1" rx0 n
	"$GENTRACE" udp --count 3 --size 100 --gap-us 10 -o "$WORK/three.pcap" >/dev/null
	[ "$fmt" = pcap ] || "$REFORMAT" "$WORK/three.pcap" "$tr" ng-usec >/dev/null
	open_fifo "$WORK/in.fifo"
	rx0=$(ifstat "$NS_B" "$IF_B" rx_packets)
	replay_ns_bg "$WORK/p.out" -i "$IF_A" --stats-json "$WORK/p.json" "$WORK/in.fifo"
	cat "$tr" >&7
	for _ in $(seq 60); do
		n=$(($(ifstat "$NS_B" "$IF_B" rx_packets) - rx0))
		[ "$n" -ge 3 ] && break
		sleep 0.05
	done
	kill -0 "$RP" 2>/dev/null || die "$fmt: replay ended early: $(cat "$WORK/p.out")"
	[ "$n" -eq 3 ] || { close_fifo; wait_bounded 10; die "$fmt: $n of 3 frames sent while the pipe stayed open"; }
	close_fifo
	wait_bounded 10
	[ "$RC" -eq 0 ] || die "$fmt: exit $RC: $(cat "$WORK/p.out")"
	[ "$(json_get "$WORK/p.json" packets_sent)" -eq 3 ] || die "$fmt: $(cat "$WORK/p.out")"
	[ "$(($(ifstat "$NS_B" "$IF_B" rx_packets) - rx0))" -eq 3 ] || die "$fmt: more frames arrived"
}

test_pipe_pcap_starts_at_first_record() { pipe_prompt pcap; }
test_pipe_pcapng_starts_at_first_record() { pipe_prompt pcapng; }

# SIGINT while a pipe is silent: stopped (130) with the summary, whether the
# header had come or not, read as a stream or preloaded with -K.
sigint_silent() {
	local what=$1 want=$2
	shift 2
	open_fifo "$WORK/in.fifo"
	replay_bg "$WORK/s.out" -w "$WORK/s.pcap" --stats-json "$WORK/s.json" "$@" "$WORK/in.fifo"
	[ "$what" = empty ] || cat "$WORK/three.pcap" >&7
	sleep 0.5
	kill -INT "$RP"
	wait_bounded 5
	close_fifo
	[ "$RC" -eq 130 ] || die "$what $*: exit $RC, expected 130: $(cat "$WORK/s.out")"
	grep -q "^Actual: $want packets" "$WORK/s.out" || die "$what $*: no summary: $(cat "$WORK/s.out")"
	check_invariant "$WORK/s.json"
	[ "$(json_get "$WORK/s.json" packets_sent)" -eq "$want" ] || die "$what $*: $(cat "$WORK/s.out")"
}

test_sigint_waiting_for_pipe() {
	"$GENTRACE" udp --count 3 --size 100 --gap-us 10 -o "$WORK/three.pcap" >/dev/null
	sigint_silent empty 0
	sigint_silent records 3
	sigint_silent empty 0 --preload
	sigint_silent records 0 --preload
	sigint_silent records 0 --topspeed --preload
}

test_sigterm_preloading_pipe() {
	"$GENTRACE" udp --count 3 --size 100 --gap-us 10 -o "$WORK/three.pcap" >/dev/null
	open_fifo "$WORK/in.fifo"
	replay_bg "$WORK/s.out" -w "$WORK/s.pcap" -K --loop 2 "$WORK/in.fifo"
	cat "$WORK/three.pcap" >&7
	sleep 0.5
	kill -TERM "$RP"
	wait_bounded 5
	close_fifo
	[ "$RC" -eq 143 ] || die "exit $RC, expected 143: $(cat "$WORK/s.out")"
	grep -q "^Actual: 0 packets" "$WORK/s.out" || die "no summary: $(cat "$WORK/s.out")"
}

# A trace truncated while it is replayed (log rotation, a copy still being
# written): a clean error naming the file, the summary, exit 1 -- not SIGBUS
# -- and every frame counted sent reached the far side.
test_truncated_while_replayed() {
	local tr="$WORK/big.pcap" rx0 sent
	"$GENTRACE" udp --count 40000 --size 1000 --gap-us 10 -o "$tr" >/dev/null
	rx0=$(ifstat "$NS_B" "$IF_B" rx_packets)
	replay_ns_bg "$WORK/t.out" -i "$IF_A" --pps 20000 --stats-json "$WORK/t.json" "$tr"
	sleep 0.5
	truncate -s 1000000 "$tr"
	wait_bounded 10
	[ "$RC" -eq 1 ] || die "exit $RC, expected 1: $(cat "$WORK/t.out")"
	grep -q "big.pcap: the file shrank from 40640024 to 1000000 bytes while it was replayed" \
		"$WORK/t.out" || die "no clear error: $(cat "$WORK/t.out")"
	[ "$(grep -c "shrank" "$WORK/t.out")" -eq 1 ] || die "said more than once: $(cat "$WORK/t.out")"
	grep -q "^Actual: [0-9]* packets" "$WORK/t.out" || die "no summary: $(cat "$WORK/t.out")"
	check_invariant "$WORK/t.json"
	sent=$(json_get "$WORK/t.json" packets_sent)
	[ "$sent" -gt 100 ] && [ "$sent" -lt 40000 ] || die "sent $sent: $(cat "$WORK/t.out")"
	sleep 0.2
	[ "$(($(ifstat "$NS_B" "$IF_B" rx_packets) - rx0))" -eq "$sent" ] ||
		die "sent $sent, the far side got $(($(ifstat "$NS_B" "$IF_B" rx_packets) - rx0))"
}

# Inputs read whole before the run, as files -- an impairment trace (read again
# for a repeat), a tcpprep cache -- that are FIFOs no one writes: refused at once,
# naming the file, not waited for in open() forever.
test_side_inputs_not_fifos() {
	local f="$WORK/side.fifo"
	rm -f "$f"
	mkfifo "$f"
	replay_bg "$WORK/f.out" -w "$WORK/f.pcap" --impair "$f" "$TRACES/dns.pcap"
	wait_bounded 5
	[ "$RC" -eq 1 ] || die "--impair FIFO: exit $RC: $(cat "$WORK/f.out")"
	grep -q "^replay: $f: not a regular file" "$WORK/f.out" || die "--impair FIFO: $(cat "$WORK/f.out")"
	replay_bg "$WORK/f.out" -w "$WORK/f.pcap" -c "$f" -e 10.0.0.1:10.0.0.2 "$TRACES/dns.pcap"
	wait_bounded 5
	[ "$RC" -eq 1 ] || die "-c FIFO: exit $RC: $(cat "$WORK/f.out")"
	grep -q "^replay: $f: not a tcpprep cache file (not a regular file)" "$WORK/f.out" ||
		die "-c FIFO: $(cat "$WORK/f.out")"
	[ ! -e "$WORK/f.pcap" ] || die "a refused run wrote its output"
}

# SIGINT while a long impairment trace is checked at open (4 GiB of "pass", sparse:
# seconds of reading): the check is left unfinished and the run stops before its first
# packet, as one waiting for a pipe does -- exit 130 at once, the summary, nothing sent.
test_sigint_checking_impairment() {
	local t="$WORK/long.rpim"
	printf 'RPIM\1\0\4\0\0\0\0\0\0\0\0\0' >"$t"
	truncate -s 4G "$t"
	replay_bg "$WORK/i.out" -w "$WORK/i.pcap" --stats-json "$WORK/i.json" --impair "$t" "$TRACES/dns.pcap"
	sleep 1
	kill -0 "$RP" 2>/dev/null || die "the check of 4 GiB ended within a second: $(cat "$WORK/i.out")"
	kill -INT "$RP"
	wait_bounded 2
	[ "$RC" -eq 130 ] || die "exit $RC, expected 130: $(cat "$WORK/i.out")"
	grep -q "^Actual: 0 packets" "$WORK/i.out" || die "no summary: $(cat "$WORK/i.out")"
	[ "$(json_get "$WORK/i.json" packets_read)" -eq 0 ] || die "read after the signal: $(cat "$WORK/i.out")"
	rm -f "$t"
}

# A prep sidecar truncated while a run reads it (made again by another `replay prep`,
# say): no SIGBUS (exit 135).  From the fault on, the records fail, each naming the
# sidecar and how it shrank; the first pass of --loop 0 that sends nothing ends the
# run (exit 1); every packet is accounted for.
test_prep_truncated_while_read() {
	"$GENTRACE" udp --count 20000 --size 100 --gap-us 10 -o "$WORK/p.pcap" >/dev/null
	"$REPLAY" prep -q "$WORK/p.pcap" -o "$WORK/p.prep" --fixcsum || die "replay prep failed"
	replay_bg "$WORK/pr.out" -w /dev/null --loop 0 --fixcsum --prep "$WORK/p.prep" \
		--stats-json "$WORK/pr.json" "$WORK/p.pcap"
	sleep 0.5
	truncate -s 100000 "$WORK/p.prep"
	wait_bounded 10
	[ "$RC" -eq 1 ] || die "exit $RC, expected 1: $(head -n 5 "$WORK/pr.out")"
	grep -q "^replay: .*p.pcap: record [0-9]* at offset 0x[0-9a-f]*: edit: $WORK/p.prep: the prep sidecar shrank from 800064 to 100000 bytes while it was read" \
		"$WORK/pr.out" || die "no reason: $(head -n 5 "$WORK/pr.out")"
	grep -q "^Actual: [0-9]* packets" "$WORK/pr.out" || die "no summary: $(tail -n 5 "$WORK/pr.out")"
	check_invariant "$WORK/pr.json"
	[ "$(json_get "$WORK/pr.json" packets_failed)" -ge 20000 ] ||
		die "failed $(json_get "$WORK/pr.json" packets_failed), not a whole pass"
}

require_root
init_ns
run_tests test_pipe_pcap_starts_at_first_record test_pipe_pcapng_starts_at_first_record \
	test_sigint_waiting_for_pipe test_sigterm_preloading_pipe test_truncated_while_replayed \
	test_side_inputs_not_fifos test_sigint_checking_impairment test_prep_truncated_while_read
