#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Faults a careless or hostile user makes while frames go out, for every
# transmit method: the MTU lowered mid-run below the frames' size, the veth
# deleted mid-run, an AF_XDP queue the device does not have; a forwarder
# (--source-interface) fed runts, garbage and frames over its output's MTU
# or its snap length; --rt-priority with RLIMIT_RTPRIO at 0; SIGINT with
# frames held by impairment.  Each must end as the error rule says: one line
# naming what and where, a non-zero exit (0 where the run went on, warned),
# every packet sent or failed with a reason, and no hang (every run is
# bounded in time).
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}"

# Methods this machine kind must have (io_uring and AF_XDP are compiled into its kernel).
METHODS="packet mmsg ring uring xdp"

# (--help is read whole, not piped into grep -q: over 4 KiB, it could die of SIGPIPE under pipefail.)
built() { grep -q -- "--method" <("$REPLAY" --help) && ! "$REPLAY" --method "$1" -i lo /dev/null 2>&1 | grep -q "is not one of"; }

# have METHOD: true if built in; a missing one skips (with the reason), and fails under CI.
have() {
	built "$1" && return 0
	[ "${CI:-}" = true ] && die "method $1 is not built in (scripts/deps.sh installs liburing-dev and libxdp-dev)"
	info "SKIP method $1: not built in (its library was missing at build time)"
	return 1
}

RP=""
FWD=""
TEARDOWN_PIDS="RP FWD"
NS_C="rpl-c-$ID"
IF_C="rpc$ID"
IF_F="rpf$ID"

# run_bg OUT ARGS...: replay in namespace A in the background, stdout to OUT.out and
# stderr to OUT.err; its PID ($! is replay itself: ip netns exec execs it) in $RP.
run_bg() {
	local out=$1
	shift
	ip netns exec "$NS_A" "$REPLAY" "$@" >"$out.out" 2>"$out.err" &
	RP=$!
}

# ends_within SECONDS WHAT: $RP ends by itself within SECONDS (else it is stopped and the
# test fails: a hang); its exit status in $RC.
ends_within() {
	for _ in $(seq $(($1 * 20))); do
		kill -0 "$RP" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$RP" 2>/dev/null; then
		kill -KILL "$RP"
		wait "$RP" 2>/dev/null || true
		RP=""
		die "$2: replay went on for $1 s after the fault"
	fi
	RC=0
	wait "$RP" || RC=$?
	RP=""
}

# A fault that ends the run: exit 1, the summary, the identity, at least one failed.
ended_cleanly() {
	local what=$1 out=$2
	[ "$RC" -eq 1 ] || die "$what: exit $RC, expected 1: $(head -n 3 "$out.err")"
	grep -q "^Actual: [0-9]* packets" "$out.out" || die "$what: no summary"
	check_invariant "$out.json"
	[ "$(json_get "$out.json" packets_failed)" -ge 1 ] || die "$what: nothing counted failed"
}

# The MTU lowered below the frames mid-run: the frames after fail, named with the new MTU
# (the socket methods' kernel refuses them, AF_XDP's does not check, the ring stops at
# the one it refused), and the run ends -- --loop 0 at the first pass that sends nothing.
test_mtu_lowered_midrun() {
	local m out
	"$GENTRACE" udp --size 1514 --count 2000 -o "$WORK/big.pcap" >/dev/null
	for m in $METHODS; do
		have "$m" || continue
		out="$WORK/mtu.$m"
		run_bg "$out" -i "$IF_A" --method "$m" --pps 20000 --loop 0 --stats-json "$out.json" "$WORK/big.pcap"
		sleep 0.7
		in_a ip link set dev "$IF_A" mtu 1000
		ends_within 10 "mtu $m"
		in_a ip link set dev "$IF_A" mtu 1500
		ended_cleanly "mtu $m" "$out"
		grep -qE "^replay: $WORK/big.pcap: record [0-9]+ at offset 0x[0-9a-f]+: (frame of 1514 bytes (refused by $IF_A as too large \(MTU 1000\)|exceeds $IF_A's MTU 1000 )|$IF_A: the kernel refused a 1514-byte ring frame \(was the MTU lowered mid-run\?\))" \
			"$out.err" || die "mtu $m: no reason naming the MTU 1000: $(head -n 3 "$out.err")"
		info "mtu $m: $(head -n 1 "$out.err")"
	done
}

# The veth deleted mid-run: "interface disappeared" (not "went down", which it also
# does on its way out), exit 1, everything staged counted failed.
test_veth_deleted_midrun() {
	local m out a="rqd$ID" b="rqe$ID"
	"$GENTRACE" udp --size 64 --count 2000 -o "$WORK/small.pcap" >/dev/null
	for m in $METHODS; do
		have "$m" || continue
		add_pair "$NS_A" "$a" "$NS_B" "$b"
		out="$WORK/del.$m"
		run_bg "$out" -i "$a" --method "$m" --pps 20000 --loop 0 --stats-json "$out.json" "$WORK/small.pcap"
		sleep 0.7
		in_a ip link del "$a"
		ends_within 10 "deleted $m"
		ended_cleanly "deleted $m" "$out"
		grep -q "^replay: $WORK/small.pcap: record [0-9]* at offset 0x[0-9a-f]*: $a: interface disappeared$" \
			"$out.err" || die "deleted $m: $(head -n 3 "$out.err")"
	done
}

# An AF_XDP queue the device does not have (a veth has one): refused at open, naming the
# queues it has -- the kernel itself says only EINVAL -- and nothing sent.
test_xdp_queue_missing() {
	local tx0
	have xdp || return 0
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	expect_fail 1 "^replay: $IF_A: no TX queue 5 for AF_XDP to bind: it has one \(--xdp-queue 0\)$" \
		in_a "$REPLAY" -i "$IF_A" --method xdp --xdp-queue 5 "$TRACES/dns.pcap"
	expect_fail 1 "^replay: $IF_A: no TX queue 1 for AF_XDP to bind: it has one \(--xdp-queue 0\)$" \
		in_a "$REPLAY" -i "$IF_A" --method xdp --threads 2 --xdp-queue 0,1 "$TRACES/dns.pcap"
	[ "$(ifstat "$NS_A" "$IF_A" tx_packets)" -eq "$tx0" ] || die "frames left although the queue was refused"
}

# inject IF KIND: frames of KIND sent raw out of IF in namespace C (what a hostile peer
# can put on the forwarder's input): runt (14..59 bytes), garbage (300 frames of random
# bytes, 14..1514 long) or oversize (5 frames of 1515..9014 bytes).
inject() {
	ip netns exec "$NS_C" python3 - "$1" "$2" <<'PY'
import os, random, socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
eth = bytes.fromhex('020000000002' '020000000001' '0800')
random.seed(7)
kind = sys.argv[2]
if kind == 'runt':
    frames = [(eth + bytes(60))[:n] for n in range(14, 60)]
elif kind == 'garbage':
    frames = [bytes(random.getrandbits(8) for _ in range(random.randint(14, 1514))) for _ in range(300)]
else:
    frames = [eth + os.urandom(n - 14) for n in (1515, 1600, 4000, 9000, 9014)]
for f in frames:
    s.send(f)
PY
}

# The forwarder fed what no capture should hold: runts and garbage go through as they
# are (it forwards frames, it does not judge them); frames over the output's MTU fail,
# each named by the input interface (not the pipe it reads them through); frames over
# the snap length (the input's MTU raised after the start) are counted apart and make
# the exit status 1.  Sent equals what the far side got.
test_forwarder_bad_frames() {
	local rx0 out="$WORK/fwd"
	add_ns "$NS_C"
	add_pair "$NS_C" "$IF_C" "$NS_A" "$IF_F"
	ip -n "$NS_C" link set dev "$IF_C" mtu 9000
	ip -n "$NS_A" link set dev "$IF_F" mtu 9000
	rx0=$(ifstat "$NS_B" "$IF_B" rx_packets)
	ip netns exec "$NS_A" "$REPLAY" --source-interface "$IF_F" -i "$IF_A" --stats-json "$out.json" \
		>"$out.out" 2>"$out.err" &
	FWD=$!
	wait_listening "$FWD" "$out.err" "the forwarder"
	inject "$IF_C" runt
	inject "$IF_C" garbage
	inject "$IF_C" oversize
	sleep 0.5
	kill -INT "$FWD"
	RC=0
	wait "$FWD" || RC=$?
	FWD=""
	[ "$RC" -eq 130 ] || die "forwarder: exit $RC: $(head -n 3 "$out.err")"
	check_invariant "$out.json"
	[ "$(json_get "$out.json" packets_read)" -ge 300 ] || die "forwarder: read $(json_get "$out.json" packets_read)"
	[ "$(json_get "$out.json" packets_failed)" -eq 5 ] || die "forwarder: failed $(json_get "$out.json" packets_failed)"
	[ "$(grep -c "^replay: --source-interface $IF_F: record [0-9]* at offset 0x[0-9a-f]*: frame of [0-9]* bytes exceeds $IF_A's MTU 1500" \
		"$out.err")" -eq 5 ] || die "forwarder: the oversize frames are not named: $(cat "$out.err")"
	sleep 0.2
	[ "$(($(ifstat "$NS_B" "$IF_B" rx_packets) - rx0))" -eq "$(json_get "$out.json" packets_sent)" ] ||
		die "forwarder: sent $(json_get "$out.json" packets_sent), the far side got $(($(ifstat "$NS_B" "$IF_B" rx_packets) - rx0))"
	# Started at 1500: the snap length follows that MTU; raised after, longer frames are counted apart.
	ip -n "$NS_A" link set dev "$IF_F" mtu 1500
	ip netns exec "$NS_A" "$REPLAY" --source-interface "$IF_F" -i "$IF_A" --stats-json "$out.json" \
		>"$out.out" 2>"$out.err" &
	FWD=$!
	wait_listening "$FWD" "$out.err" "the forwarder"
	ip -n "$NS_A" link set dev "$IF_F" mtu 9000
	inject "$IF_C" oversize
	sleep 0.5
	kill -INT "$FWD"
	RC=0
	wait "$FWD" || RC=$?
	FWD=""
	[ "$RC" -eq 130 ] || die "forwarder, snap length: exit $RC: $(head -n 3 "$out.err")"
	grep -q "^replay: --source-interface $IF_F: 4 frames longer than the snap length 1522 (MTU + 22) not forwarded$" \
		"$out.err" || die "forwarder, snap length: $(cat "$out.err")"
	check_invariant "$out.json"
}

# --rt-priority where RLIMIT_RTPRIO is 0: an unprivileged user granted cap_net_raw only
# runs at normal priority, warned why and how to grant it; root keeps SCHED_FIFO (its
# cap_sys_nice is kept for the waiter's return to it).  Every frame goes out either way.
test_rt_priority_rlimit() {
	local pid policy tx0
	command -v setcap >/dev/null && command -v setpriv >/dev/null && command -v prlimit >/dev/null ||
		die "setcap, setpriv and prlimit are needed (libcap2-bin, util-linux; scripts/deps.sh)"
	chmod 755 "$WORK"
	mkdir -p "$WORK/cap"
	cp "$REPLAY" "$WORK/cap/replay"
	setcap cap_net_raw=ep "$WORK/cap/replay"
	"$GENTRACE" udp --count 200 --gap-us 1000 -o "$WORK/rt.pcap" >/dev/null
	chmod 644 "$WORK/rt.pcap"
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	ip netns exec "$NS_A" prlimit --rtprio=0 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$WORK/cap/replay" -i "$IF_A" --rt-priority 50 "$WORK/rt.pcap" >"$WORK/rt.out" 2>"$WORK/rt.err" ||
		die "--rt-priority without cap_sys_nice: exit $?: $(cat "$WORK/rt.err")"
	grep -q "^replay: warning: --rt-priority 50: cannot switch to SCHED_FIFO: Operation not permitted (needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO this high, RLIMIT_RTPRIO is 0); running at normal priority" \
		"$WORK/rt.err" || die "--rt-priority: no warning: $(cat "$WORK/rt.err")"
	grep -q "setcap cap_net_raw,cap_sys_nice=ep $WORK/cap/replay" "$WORK/rt.err" ||
		die "--rt-priority: the capability is not named: $(cat "$WORK/rt.err")"
	[ "$(($(ifstat "$NS_A" "$IF_A" tx_packets) - tx0))" -eq 200 ] || die "--rt-priority: not every frame went out"
	# Root under the same limit: SCHED_FIFO, through the run.
	ip netns exec "$NS_A" prlimit --rtprio=0 "$REPLAY" -q -i "$IF_A" --rt-priority 50 --pps 1000 \
		--limit 1500 --loop 0 "$WORK/rt.pcap" >"$WORK/rt.out" 2>"$WORK/rt.err" &
	pid=$!
	sleep 1
	policy=$(chrt -p "$pid" | head -n 1)
	wait "$pid" || die "root --rt-priority under RLIMIT_RTPRIO 0: exit $?: $(cat "$WORK/rt.err")"
	[[ $policy == *SCHED_FIFO ]] || die "root --rt-priority: $policy"
}

# SIGINT while impairment holds frames, for every method on a real interface: the frames
# due before it arrive, the held ones fail in one line, exit 130.
test_sigint_held_every_method() {
	local m out rx0
	"$GENTRACE" udp --count 10 --gap-us 1000 -o "$WORK/t10.pcap" >/dev/null
	printf 'pass\ndelay 60s\npass\ndelay 60s\n' >"$WORK/hold.txt"
	for m in $METHODS; do
		have "$m" || continue
		out="$WORK/held.$m"
		rx0=$(ifstat "$NS_B" "$IF_B" rx_packets)
		run_bg "$out" -i "$IF_A" --method "$m" --stats-json "$out.json" --impair "$WORK/hold.txt" "$WORK/t10.pcap"
		for _ in $(seq 100); do
			[ "$(ifstat "$NS_B" "$IF_B" rx_packets)" -ge $((rx0 + 8)) ] && break
			sleep 0.05
		done
		sleep 0.2
		kill -INT "$RP"
		ends_within 5 "held $m"
		[ "$RC" -eq 130 ] || die "held $m: exit $RC: $(cat "$out.err")"
		grep -q "^replay: 2 frames held back by impairment not sent" "$out.err" ||
			die "held $m: $(cat "$out.err")"
		[ "$(json_get "$out.json" packets_read)" -eq 10 ] && [ "$(json_get "$out.json" packets_sent)" -eq 8 ] &&
			[ "$(json_get "$out.json" packets_failed)" -eq 2 ] || die "held $m: $(cat "$out.out")"
		[ "$(($(ifstat "$NS_B" "$IF_B" rx_packets) - rx0))" -eq 8 ] || die "held $m: the far side got otherwise"
	done
}

require_root
command -v python3 >/dev/null || die "python3 is not installed"
init_ns
run_tests test_mtu_lowered_midrun test_veth_deleted_midrun test_xdp_queue_missing test_forwarder_bad_frames \
	test_rt_priority_rlimit test_sigint_held_every_method
