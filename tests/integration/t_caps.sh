#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Running without root: replay and replay-rx as an unprivileged user (setpriv
# --reuid/--regid), given file capabilities on copies of the binaries.  Without
# them each refuses in one line naming the capability and the setcap command;
# with them the frames cross the veth pair exactly, and once sending (or
# capturing) has started the process holds no capability at all (CapEff and
# CapPrm in /proc/PID/status are 0).
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}"

NOBODY=65534

# as_user CMD...: CMD in namespace A as uid/gid 65534, no supplementary groups.
as_user_in() {
	local ns=$1
	shift
	ip netns exec "$ns" setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"
}

# A directory the user can read, holding copies of both programs: plain ones
# and ones granted cap_net_raw (the file capabilities a package would set).
setup_bins() {
	command -v setcap >/dev/null || die "setcap is not installed (libcap2-bin; scripts/deps.sh)"
	command -v setpriv >/dev/null || die "setpriv is not installed (util-linux)"
	chmod 755 "$WORK"
	mkdir -p "$WORK/plain" "$WORK/cap"
	cp "$REPLAY" "$REPLAY_RX" "$WORK/plain/"
	cp "$REPLAY" "$REPLAY_RX" "$WORK/cap/"
	setcap cap_net_raw=ep "$WORK/cap/replay"
	mkdir -p "$WORK/xdp"
	cp "$REPLAY" "$WORK/xdp/"
	setcap cap_net_raw,cap_ipc_lock=ep "$WORK/xdp/replay"
	setcap cap_net_raw=ep "$WORK/cap/replay-rx"
	getcap "$WORK/cap/replay" | grep -q cap_net_raw || die "setcap did not take on $WORK (no xattrs?)"
	"$GENTRACE" udp -o "$WORK/t.pcap" --count 400 --gap-us 5000 >/dev/null
	chmod 644 "$WORK/t.pcap"
	mkdir "$WORK/user"
	chown $NOBODY:$NOBODY "$WORK/user"
}

# status_caps PID: "CapEff CapPrm" of a running process, in hex.
status_caps() {
	awk '/^CapEff:/ { e = $2 } /^CapPrm:/ { p = $2 } END { print e, p }' "/proc/$1/status"
}

test_refusal_without_caps() {
	expect_fail 1 "^replay: sending on $IF_A needs cap_net_raw, which this process does not have: run as root, or grant it once \(as root\): setcap cap_net_raw=ep $WORK/plain/replay$" \
		as_user_in "$NS_A" "$WORK/plain/replay" -i "$IF_A" "$WORK/t.pcap"
	expect_fail 1 "^replay-rx: capturing on $IF_B needs cap_net_raw, which this process does not have: .*setcap cap_net_raw=ep $WORK/plain/replay-rx$" \
		as_user_in "$NS_B" "$WORK/plain/replay-rx" -i "$IF_B" --count 1
	# AF_XDP loads no program, but locks 16 MiB of UMEM per socket: over an 8 MiB
	# RLIMIT_MEMLOCK it needs cap_ipc_lock, and says so, with the limit and the setcap line.
	expect_fail 1 "^replay: sending on $IF_A with --method xdp \(32 MiB of AF_XDP memory to lock, over RLIMIT_MEMLOCK's 8192 KiB: or raise it, ulimit -l\) needs cap_ipc_lock, which this process does not have: .*setcap cap_net_raw,cap_ipc_lock=ep $WORK/cap/replay$" \
		ip netns exec "$NS_A" prlimit --memlock=8388608:8388608 setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		"$WORK/cap/replay" -i "$IF_A" --method xdp --threads 2 "$WORK/t.pcap"
	# Nothing went out.
	[ "$(ifstat "$NS_B" "$IF_B" rx_packets)" = 0 ] || die "frames crossed although replay refused"
	# A dry run needs nothing.
	as_user_in "$NS_A" "$WORK/plain/replay" -q -w /dev/null "$WORK/t.pcap" || die "a dry run as a user failed"
}

# wait_sending BEFORE WHAT ERRFILE: B's interface counts more than BEFORE frames within 2 s
# (the sender has started), or the test dies naming WHAT and its stderr.
wait_sending() {
	for _ in $(seq 100); do
		[ "$(ifstat "$NS_B" "$IF_B" rx_packets)" -gt "$1" ] && return 0
		sleep 0.02
	done
	die "$2 sent nothing: $(cat "$3")"
}

# check_dropped NAME PID [KEPT]: the process is running and holds no capability but KEPT
# (hex; default none).
check_dropped() {
	local c want=${3:-0000000000000000}
	c=$(status_caps "$2")
	[ "$c" = "$want $want" ] ||
		die "$1 holds capabilities while running: CapEff CapPrm = $c, expected $want $want"
	info "$1 (pid $2) while running: CapEff CapPrm = $c"
}

# run_as_user WHO: replay-rx and replay as WHO ("user" or "root"), the capabilities of
# both checked mid-run, every frame accounted for on the far side.
run_as() {
	local who=$1 rx=("$WORK/cap/replay-rx") tx=("$WORK/cap/replay") pid before kept method=
	# user-xdp: the user's replay granted cap_net_raw,cap_ipc_lock (nothing else) sends
	# with AF_XDP, under an 8 MiB RLIMIT_MEMLOCK its 16 MiB UMEM could not fit in.
	if [ "$who" = user-xdp ]; then
		tx=(prlimit --memlock=8388608:8388608 "$WORK/xdp/replay" --method xdp)
		method=xdp
		who=user
	fi
	# Both write an output file into $WORK/user, a directory root does not own: root keeps
	# cap_dac_override and cap_fowner (bits 1 and 3) to put it in place at the end, and
	# nothing else; a user never had them.
	kept=000000000000000a
	if [ "$who" = user ]; then
		kept=0000000000000000
		rx=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "${rx[@]}")
		tx=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "${tx[@]}")
		[ -n "$method" ] && who=user-xdp
	fi
	: >"$WORK/rx.err"
	ip netns exec "$NS_B" "${rx[@]}" -i "$IF_B" --json "$WORK/user/rx-$who.json" \
		>"$WORK/rx.out" 2>"$WORK/rx.err" &
	CAP_PID=$!
	RX_JSON="$WORK/user/rx-$who.json"
	wait_listening "$CAP_PID" "$WORK/rx.err" replay-rx
	check_dropped "replay-rx ($who)" "$CAP_PID" "$kept"
	before=$(ifstat "$NS_B" "$IF_B" rx_packets)
	ip netns exec "$NS_A" "${tx[@]}" -q -i "$IF_A" --stats-json "$WORK/user/st-$who.json" \
		"$WORK/t.pcap" 2>"$WORK/tx.err" &
	pid=$!
	# Sending has started once frames arrive; the run lasts 2 s.
	wait_sending "$before" "replay ($who)" "$WORK/tx.err"
	check_dropped "replay ($who)" "$pid" "$kept"
	wait "$pid" || die "replay ($who) failed: $(cat "$WORK/tx.err")"
	rx_stop
	[ "$(json_get "$WORK/user/st-$who.json" packets_sent)" = 400 ] || die "replay ($who) sent $(json_get "$WORK/user/st-$who.json" packets_sent) of 400"
	[ "$(json_get "$RX_JSON" received)" = 400 ] || die "replay-rx ($who) received $(json_get "$RX_JSON" received) of 400"
	if [ -n "$method" ]; then
		grep -q "\"method\": *\"$method\"" "$WORK/user/st-$who.json" ||
			die "replay ($who) did not send with $method: $(grep -o '"method": *"[a-z]*"' "$WORK/user/st-$who.json")"
	fi
}

test_user_with_file_caps() {
	run_as user
}

# AF_XDP as a user: cap_net_raw and cap_ipc_lock are all it needs (no program is loaded).
test_user_xdp() {
	run_as user-xdp
}

# Root drops its capabilities as well: it needs them no more than a user does.
test_root_drops_too() {
	run_as root
}

# --rt-priority as root: where the kernel throttles real-time threads the waiter
# pays that at normal priority and returns to SCHED_FIFO after, so cap_sys_nice
# (bit 23) is the one capability kept; nothing else.
test_rt_priority_keeps_sys_nice() {
	local pid before want=0000000000800000
	[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = -1 ] && want=0000000000000000
	before=$(ifstat "$NS_B" "$IF_B" rx_packets)
	ip netns exec "$NS_A" "$REPLAY" -q --rt-priority 10 -i "$IF_A" "$WORK/t.pcap" 2>"$WORK/rt.err" &
	pid=$!
	wait_sending "$before" "replay --rt-priority" "$WORK/rt.err"
	check_dropped "replay --rt-priority" "$pid" "$want"
	wait "$pid" || die "replay --rt-priority failed: $(cat "$WORK/rt.err")"
	[ $(( $(ifstat "$NS_B" "$IF_B" rx_packets) - before )) -eq 400 ] || die "replay --rt-priority: not 400 frames across"
}

# --rt-priority without cap_sys_nice (and no RLIMIT_RTPRIO): a warning naming it and the command.
test_rt_priority_hint() {
	as_user_in "$NS_A" "$WORK/cap/replay" -q -w /dev/null "$WORK/t.pcap" 2>/dev/null ||
		die "dry run failed"
	as_user_in "$NS_A" "$WORK/cap/replay" --rt-priority 10 -t -i "$IF_A" --limit 1 "$WORK/t.pcap" \
		>/dev/null 2>"$WORK/err" || die "replay --rt-priority as a user failed: $(cat "$WORK/err")"
	grep -qE "^replay: warning: --rt-priority 10: cannot switch to SCHED_FIFO: .*; cap_sys_nice is missing: run as root, or grant it once \(as root\): setcap cap_net_raw,cap_sys_nice=ep $WORK/cap/replay$" \
		"$WORK/err" || die "no cap_sys_nice hint: $(cat "$WORK/err")"
	# Under RLIMIT_RTPRIO 0: one line, naming the limit, the capability and the command; the run goes on.
	ip netns exec "$NS_A" prlimit --rtprio=0 setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		"$WORK/cap/replay" --rt-priority 10 -t -i "$IF_A" --limit 1 "$WORK/t.pcap" \
		>/dev/null 2>"$WORK/err" || die "replay --rt-priority under RLIMIT_RTPRIO 0 failed: $(cat "$WORK/err")"
	[ "$(grep -c -- "--rt-priority" "$WORK/err")" -eq 1 ] || die "not one line: $(cat "$WORK/err")"
	grep -qE "^replay: warning: --rt-priority 10: cannot switch to SCHED_FIFO: Operation not permitted \(needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO this high, RLIMIT_RTPRIO is 0\); running at normal priority, less precisely; cap_sys_nice is missing: .*setcap cap_net_raw,cap_sys_nice=ep $WORK/cap/replay$" \
		"$WORK/err" || die "the line does not name the limit and the remedy: $(cat "$WORK/err")"
}

require_root
init_ns
setup_bins
run_tests test_refusal_without_caps test_user_with_file_caps test_user_xdp test_root_drops_too test_rt_priority_keeps_sys_nice test_rt_priority_hint
