#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Shared harness for the integration tests (after xdp-tools' test_runner):
# two network namespaces joined by a veth pair, nothing else on the link.
# Source it, define the test, call `run_tests test_a test_b ...`.
#
# Environment (meson sets these): REPLAY, REPLAY_RX, GENTRACE, PCAPDIFF, PCAPFAULT, TRACES.
# V=1 shows every command; KEEP=1 keeps the work directory.
# Not root: exit 77 (SKIP) -- except under CI=true, where a skip is a failure.

set -euo pipefail
[ "${V:-0}" = 1 ] && set -x

SKIP=77
: "${REPLAY:?}" "${REPLAY_RX:?}" "${TRACES:?}"

die() { echo "FAIL: $*" >&2; exit 1; }
info() { echo "# $*"; }

require_root() {
	if [ "$(id -u)" != 0 ]; then
		[ "${CI:-}" = true ] && die "integration tests must run as root in CI"
		echo "SKIP: needs root (network namespaces, veth)"
		exit $SKIP
	fi
	for tool in ip tcpdump; do
		command -v $tool >/dev/null || die "$tool is not installed (scripts/test.sh installs it)"
	done
}

# Names unique to this run, short enough for IFNAMSIZ.
ID="$$"
NS_A="rpl-a-$ID"
NS_B="rpl-b-$ID"
IF_A="rpa$ID"
IF_B="rpb$ID"
WORK=""
CAP_PID=""
TD_PID=""
RX_RC=""
RX_JSON=""

EXTRA_NS=""

# TEARDOWN_PIDS: names of a test's own variables holding background PIDs (a second
# receiver, a forwarder), stopped at teardown like CAP_PID and TD_PID; e.g.
# TEARDOWN_PIDS="RX2_PID".
TEARDOWN_PIDS=""

teardown() {
	local rc=$?
	local pid ns v pids=""
	# A test's own processes first (its teardown_extra, if it defines one).
	if declare -F teardown_extra >/dev/null; then
		teardown_extra || true
	fi
	for v in $TEARDOWN_PIDS; do pids="$pids ${!v:-}"; done
	for pid in $pids $CAP_PID $TD_PID; do
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		fi
	done
	for ns in $EXTRA_NS; do ip netns del "$ns" 2>/dev/null || true; done
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	if [ -n "$WORK" ] && [ "${KEEP:-0}" != 1 ]; then
		rm -rf "$WORK"
	elif [ -n "$WORK" ]; then
		echo "# kept $WORK"
	fi
	exit $rc
}

# init_ns: namespaces A and B, veth A<->B, up, quiet.  Only frames we send cross it:
# no addresses, IPv6 off (no DAD, RS, MLD), multicast off.
init_ns() {
	WORK=$(mktemp -d /tmp/replay-it.XXXXXX)
	trap teardown EXIT
	trap 'exit 130' INT TERM
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	# VETH_QUEUES=N: N receive and transmit queues on each end (default 1).
	ip link add name "$IF_A" netns "$NS_A" ${VETH_QUEUES:+numrxqueues $VETH_QUEUES numtxqueues $VETH_QUEUES} \
		type veth peer name "$IF_B" netns "$NS_B" \
		${VETH_QUEUES:+numrxqueues $VETH_QUEUES numtxqueues $VETH_QUEUES}
	for side in "$NS_A $IF_A" "$NS_B $IF_B"; do
		set -- $side
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.all.disable_ipv6=1"
		ip netns exec "$1" sysctl -qw "net.ipv6.conf.default.disable_ipv6=1"
		ip -n "$1" link set dev "$2" multicast off
		ip -n "$1" link set dev "$2" up
		ip -n "$1" link set dev lo up
	done
	# Wait until both ends are operationally up, not only for carrier (LOWER_UP): the
	# kernel attaches a device's qdisc (noop, which drops everything, until then) from
	# its link-watch work, up to about a second later, and sets the operational state
	# in the same step (scripts/rfc2544.sh lost its first trial's first 0.7 s to it).
	wait_up "$NS_A" "$IF_A" "$NS_B" "$IF_B"
}

# add_ns NS: one more namespace, lo up, IPv6 off; teardown deletes it.
add_ns() {
	ip netns add "$1"
	EXTRA_NS="$EXTRA_NS $1"
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.all.disable_ipv6=1"
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.default.disable_ipv6=1"
	ip -n "$1" link set dev lo up
}

# add_pair NS1 IF1 NS2 IF2: one more veth pair, IF1 in NS1 to IF2 in NS2, quiet as
# init_ns's (IPv6 off on both ends, multicast off; VETH_QUEUES queues a side, as
# init_ns), up, and its carrier waited for.  Deleting either namespace deletes it.
add_pair() {
	local nss=("$1" "$3") devs=("$2" "$4") i
	ip link add name "$2" netns "$1" ${VETH_QUEUES:+numrxqueues $VETH_QUEUES numtxqueues $VETH_QUEUES} \
		type veth peer name "$4" netns "$3" ${VETH_QUEUES:+numrxqueues $VETH_QUEUES numtxqueues $VETH_QUEUES}
	for i in 0 1; do
		ip netns exec "${nss[i]}" sysctl -qw "net.ipv6.conf.${devs[i]}.disable_ipv6=1"
		ip -n "${nss[i]}" link set dev "${devs[i]}" multicast off
		ip -n "${nss[i]}" link set dev "${devs[i]}" up
	done
	wait_up "$1" "$2" "$3" "$4"
}

# wait_up NS IF [NS IF ...]: until each interface is operationally up (state UP), 5 s at most.
wait_up() {
	local i args=("$@") up
	for _ in $(seq 100); do
		up=1
		for ((i = 0; i < ${#args[@]}; i += 2)); do
			ip -n "${args[i]}" link show "${args[i + 1]}" | grep -q "state UP" || { up=0; break; }
		done
		[ "$up" = 1 ] && return 0
		sleep 0.05
	done
}

in_a() { ip netns exec "$NS_A" "$@"; }
in_b() { ip netns exec "$NS_B" "$@"; }

# rx_start JSON [OPTIONS...]: replay-rx on B's end with OPTIONS, its JSON report
# to JSON ($RX_JSON), the table to $WORK/rx.out.  Returns once it is listening.
rx_start() {
	RX_JSON=$1
	shift
	rm -f "$RX_JSON"
	: >"$WORK/rx.err"
	# Not through in_b: $! must be replay-rx itself, not a subshell that ignores signals.
	ip netns exec "$NS_B" "$REPLAY_RX" -i "$IF_B" --json "$RX_JSON" "$@" \
		>"$WORK/rx.out" 2>"$WORK/rx.err" &
	CAP_PID=$!
	wait_listening "$CAP_PID" "$WORK/rx.err" replay-rx
}

# rx_stop: let the last frames land, stop replay-rx (its report follows); $RX_RC is
# its exit status: 0 exact, 3 not exact against the reference or kernel drops.
rx_stop() {
	sleep 0.3
	kill -TERM "$CAP_PID"
	RX_RC=0
	wait "$CAP_PID" || RX_RC=$?
	CAP_PID=""
	[ "$RX_RC" -eq 0 ] || [ "$RX_RC" -eq 3 ] ||
		die "replay-rx exited $RX_RC: $(cat "$WORK/rx.err")"
}

# capture_start FILE [REFERENCE]: the far side's receiver.  replay-rx records
# every frame arriving on B's end, whole (-s 9216: a jumbo frame), to FILE
# (a ns pcap, VLAN tags re-inserted), matching against REFERENCE when given.
capture_start() {
	rx_start "$WORK/rx.json" -s 9216 -w "$1" ${2:+--reference "$2"}
}

# capture_stop: stop replay-rx, check that the capture itself dropped nothing.
capture_stop() {
	rx_stop
	[ "$(json_get "$RX_JSON" kernel_drops)" = 0 ] ||
		die "the capture itself dropped frames: $(cat "$WORK/rx.out")"
}

# rx_exact SENT: the far side got exactly the reference -- SENT frames, none lost,
# doubled, reordered or foreign -- as replay-rx's exit status and report say.
rx_exact() {
	local k
	[ "$RX_RC" -eq 0 ] || die "replay-rx: the replay was not exact: $(cat "$WORK/rx.out")"
	[ "$(json_get "$RX_JSON" received)" -eq "$1" ] ||
		die "replay-rx received $(json_get "$RX_JSON" received) frames, $1 were sent"
	for k in lost duplicated reordered foreign; do
		[ "$(json_get "$RX_JSON" $k)" = 0 ] || die "replay-rx: $k $(json_get "$RX_JSON" $k)"
	done
}

# wait_listening PID ERRFILE NAME: until a capture prints "listening on", or die if it exits.
wait_listening() {
	for _ in $(seq 200); do
		grep -q "listening on" "$2" && return 0
		kill -0 "$1" 2>/dev/null || die "$3 did not start: $(cat "$2")"
		sleep 0.05
	done
	die "$3 did not start: $(cat "$2")"
}

# tcpdump_start FILE [SNAPLEN]: an independent receiver on B's end, nanosecond
# timestamps, a 64 MiB buffer.  --immediate-mode makes libpcap use TPACKET_V2,
# whose ring slots are sized by the snap length: 9216 bytes (a jumbo frame) x
# 64 MiB = ~7000 frames in flight, where -s 0 would leave room for only ~250.
tcpdump_start() {
	local out=$1 snap=${2:-9216}
	: >"$WORK/tcpdump.err"
	ip netns exec "$NS_B" tcpdump -i "$IF_B" -Q in -s "$snap" -B 65536 -U --immediate-mode -Z root \
		--time-stamp-precision=nano -w "$out" 2>"$WORK/tcpdump.err" &
	TD_PID=$!
	wait_listening "$TD_PID" "$WORK/tcpdump.err" tcpdump
}

# tcpdump_stop: stop tcpdump, check it dropped nothing.
tcpdump_stop() {
	sleep 0.3
	kill -TERM "$TD_PID"
	wait "$TD_PID" || true
	TD_PID=""
	if grep -E "^[1-9][0-9]* packets dropped by kernel" "$WORK/tcpdump.err"; then
		die "tcpdump dropped packets: $(cat "$WORK/tcpdump.err")"
	fi
}

# ifstat NS IF COUNTER: an interface counter (tx_packets, rx_dropped, ...).
ifstat() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"; }

# softnet_drops: packets the per-CPU backlogs dropped, summed (column 2, hex).
softnet_drops() {
	local sum=0 d
	while read -r _ d _; do sum=$((sum + 16#$d)); done </proc/net/softnet_stat
	echo $sum
}

# json_get FILE KEY: a numeric value from replay's --stats-json or replay-rx's --json output.
json_get() {
	# awk reads every match (head -n1 would close the pipe early: grep's SIGPIPE, under
	# pipefail, then ended the test with 141 when "passes" held thousands of matches).
	grep -o "\"$2\":[-0-9.]*" "$1" | awk -F: 'NR == 1 { print $2 }'
}

# check_invariant FILE: read = sent + filtered + failed.
check_invariant() {
	local r s f x
	r=$(json_get "$1" packets_read)
	s=$(json_get "$1" packets_sent)
	f=$(json_get "$1" packets_filtered)
	x=$(json_get "$1" packets_failed)
	[ "$r" -eq $((s + f + x)) ] || die "accounting: read $r != sent $s + filtered $f + failed $x"
}

# check_passes FILE N: --stats-json FILE has N loop passes (the "passes" array), each
# with its accounting identity (read + copies + in flight before = sent +
# filtered + failed + impaired-dropped + in flight after; the copies and drops
# with impairment only; with --segment, + segments - segmented on the left),
# what one leaves in flight the next starts with, back to back in time, and
# summing to the totals (counters, elapsed time, send errors, flows).
# Prints each pass's packets read, space-separated.
check_passes() {
	python3 - "$1" "$2" <<'PY' || die "$1: loop passes do not add up (above)"
import json, sys
j = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
ps = j.get("passes")
def fail(msg):
    print("check_passes: " + msg, file=sys.stderr)
    sys.exit(1)
if j.get("schema_version") != 2: fail("schema_version %r, expected 2" % j.get("schema_version"))
if ps is None: fail("no passes array")
if len(ps) != n: fail("%d passes, expected %d" % (len(ps), n))
imp = "packets_impair_dropped" in j
keys = ["packets_read", "packets_sent", "packets_failed", "packets_filtered", "packets_retried", "bytes_sent"]
if imp: keys += ["packets_impair_dropped", "impair_copies"]
seg = "packets_segmented" in j
if seg: keys += ["packets_segmented", "segments"]
t = 0
for i, p in enumerate(ps):
    if p["pass"] != i + 1 or p["passes"] != 1: fail("pass %d numbered %d (%d)" % (i + 1, p["pass"], p["passes"]))
    lhs = p["packets_read"] + p["in_flight_before"]
    rhs = p["packets_sent"] + p["packets_filtered"] + p["packets_failed"] + p["in_flight_after"]
    if imp:
        lhs += p["impair_copies"]
        rhs += p["packets_impair_dropped"]
    if seg:
        lhs += p["segments"] - p["packets_segmented"]
    prev = ps[i - 1]["in_flight_after"] if i else 0
    if p["in_flight_before"] != prev: fail("pass %d: in flight before %d, the pass before left %d" % (i + 1, p["in_flight_before"], prev))
    if lhs != rhs: fail("pass %d: identity %d != %d: %r" % (i + 1, lhs, rhs, p))
    if p["start_ns"] != t: fail("pass %d starts at %d, the pass before ended at %d" % (i + 1, p["start_ns"], t))
    t += p["elapsed_ns"]
if ps and ps[-1]["in_flight_after"]: fail("the last pass left packets in flight")
if t != j["elapsed_ns"]: fail("passes last %d ns, the run %d" % (t, j["elapsed_ns"]))
for k in keys:
    if sum(p[k] for p in ps) != j[k]: fail("%s: passes sum to %d, total %d" % (k, sum(p[k] for p in ps), j[k]))
if sum(p["send_error_ns"]["count"] for p in ps) != j["send_error_ns"]["count"]: fail("send error counts")
if "flows" in j:
    for k in ["flows", "unique", "expired", "flow_packets", "non_flow_packets", "invalid_packets", "untracked_packets"]:
        if sum(p["flows"][k] for p in ps) != j["flows"][k]: fail("flows.%s do not sum" % k)
print(" ".join(str(p["packets_read"]) for p in ps))
PY
}

# expect_fail STATUS PATTERN CMD...: CMD exits STATUS and its stderr has one line matching PATTERN.
expect_fail() {
	local want=$1 pat=$2 rc=0
	shift 2
	"$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[ "$rc" -eq "$want" ] || die "'$*' exited $rc, expected $want; stderr: $(cat "$WORK/err")"
	grep -qE -- "$pat" "$WORK/err" || die "'$*': stderr lacks /$pat/: $(cat "$WORK/err")"
}

# nginx_start ADDR DOCROOT: a real nginx (Debian's nginx-light) in B on ADDR:80 serving
# DOCROOT, its config, pid file, logs and temp files in $WORK/nginx; in NGINX_PID (the caller
# lists it in TEARDOWN_PIDS).  Returns once it accepts a connection from B itself.
nginx_start() {
	local d="$WORK/nginx"
	mkdir -p "$d"
	cat >"$d/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log;
events { worker_connections 4096; }
http {
	access_log $d/access.log;
	client_body_temp_path $d/body;
	proxy_temp_path $d/proxy;
	fastcgi_temp_path $d/fastcgi;
	uwsgi_temp_path $d/uwsgi;
	scgi_temp_path $d/scgi;
	keepalive_requests 10000;
	server {
		listen $1:80;
		root $2;
		location / { }
	}
}
CONF
	ip netns exec "$NS_B" nginx -c "$d/nginx.conf" -p "$d" 2>>"$d/stderr" &
	NGINX_PID=$!
	for _ in $(seq 100); do
		in_b bash -c "exec 3<>/dev/tcp/$1/80" 2>/dev/null && return 0
		kill -0 "$NGINX_PID" 2>/dev/null || die "nginx did not start: $(cat "$d/stderr" "$d/error.log" 2>/dev/null)"
		sleep 0.05
	done
	die "nginx does not listen: $(cat "$d/stderr" "$d/error.log" 2>/dev/null)"
}

nginx_stop() {
	[ -n "${NGINX_PID:-}" ] || return 0
	kill -TERM "$NGINX_PID" 2>/dev/null || true
	wait "$NGINX_PID" 2>/dev/null || true
	NGINX_PID=""
}

run_tests() {
	local t
	for t in "$@"; do
		info "$t"
		"$t"
	done
	echo "PASS: $# tests"
}
