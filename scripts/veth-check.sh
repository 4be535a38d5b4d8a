#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# veth-check: replay a trace across a veth pair between two throw-away network
# namespaces and prove on the far side that it arrived -- every packet once,
# in order, byte for byte as `replay -w` says it is sent, with no kernel drops
# -- and, if asked, that the timing kept within limits.  For CI jobs.
#
#   sudo scripts/veth-check.sh [CHECKS] [--] REPLAY-ARGUMENTS...
#
# REPLAY-ARGUMENTS are replay's own (options and trace files); the script adds
# -i or -w.  Exit status: 0 every check passed, 1 a check failed or a program
# failed, 2 usage error.  The namespaces and files are removed on every exit.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: veth-check.sh [CHECKS] [--] REPLAY-ARGUMENTS...
Replay across a veth pair in throw-away network namespaces; check the far side.

Checks (every packet arriving once, in order, with no kernel drops is always checked):
  --max-loss N               up to N packets may be lost (default 0)
  --allow-reorder            reordered packets are not a failure
  --max-error-us US          p99 of |inter-arrival error| at most US microseconds
  --max-error-p50-us US      p50 of |inter-arrival error| at most US microseconds
  --max-duration-error-pct P |duration error| at most P percent
Setup and output:
  --mtu BYTES                MTU of both ends (default 1500)
  --json FILE                keep replay-rx's JSON report in FILE
  --plot DIR                 draw replay-rx's figures into DIR
  -h, --help                 this help
Environment: REPLAY, REPLAY_RX name the programs (default: this script's own
directory, then build/ beside it, then PATH).  Exit status: 0 passed, 1 failed, 2 usage error.
EOF
}

die() { echo "veth-check: $*" >&2; exit 1; }
bad_usage() { echo "veth-check: $* (try --help)" >&2; exit 2; }

MAX_LOSS=0 ALLOW_REORDER=0 MAX_P99="" MAX_P50="" MAX_DUR="" MTU=1500 JSON_OUT="" PLOT=""
is_num() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; }
while [ $# -gt 0 ]; do
	case $1 in
	--max-loss) [[ ${2:-} =~ ^[0-9]+$ ]] || bad_usage "--max-loss needs a count"; MAX_LOSS=$2; shift 2 ;;
	--allow-reorder) ALLOW_REORDER=1; shift ;;
	--max-error-us) is_num "${2:-}" || bad_usage "--max-error-us needs a number"; MAX_P99=$2; shift 2 ;;
	--max-error-p50-us) is_num "${2:-}" || bad_usage "--max-error-p50-us needs a number"; MAX_P50=$2; shift 2 ;;
	--max-duration-error-pct) is_num "${2:-}" || bad_usage "--max-duration-error-pct needs a number"
		MAX_DUR=$2; shift 2 ;;
	--mtu) [[ ${2:-} =~ ^[0-9]+$ ]] || bad_usage "--mtu needs a number"; MTU=$2; shift 2 ;;
	--json) [ -n "${2:-}" ] || bad_usage "--json needs a file"; JSON_OUT=$2; shift 2 ;;
	--plot) [ -n "${2:-}" ] || bad_usage "--plot needs a directory"; PLOT=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || bad_usage "no trace given"
[ "$(id -u)" = 0 ] || die "needs root for network namespaces (try: sudo $0 ...)"

here=$(cd "$(dirname "$0")/.." && pwd)
find_prog() { # NAME: $NAME from the environment, the build directory, or PATH
	local var=$1 name=$2
	if [ -n "${!var:-}" ]; then echo "${!var}"
	elif [ -x "$(dirname "$0")/$name" ]; then echo "$(dirname "$0")/$name" # installed beside them
	elif [ -x "$here/build/$name" ]; then echo "$here/build/$name"
	elif command -v "$name" >/dev/null; then command -v "$name"
	else die "cannot find $name: build it (meson setup build && ninja -C build) or set $var"
	fi
}
REPLAY=$(find_prog REPLAY replay)
REPLAY_RX=$(find_prog REPLAY_RX replay-rx)

ID=$$
NS_A="vchk-a-$ID" NS_B="vchk-b-$ID" IF_A="vcka$ID" IF_B="vckb$ID"
WORK=$(mktemp -d /tmp/veth-check.XXXXXX)
RX_PID=""
cleanup() {
	local rc=$?
	if [ -n "$RX_PID" ] && kill -0 "$RX_PID" 2>/dev/null; then
		kill -TERM "$RX_PID" 2>/dev/null || true
		wait "$RX_PID" 2>/dev/null || true
	fi
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# What will be sent: the same command line as a dry run.
"$REPLAY" -q -w "$WORK/sent.pcap" "$@" || die "replay -w $* failed: see above"

ip netns add "$NS_A"
ip netns add "$NS_B"
ip link add name "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B"
quiet_link() { # NS IF: only replayed frames cross (no IPv6 DAD or solicitations, no multicast)
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$1" link set dev "$2" mtu "$MTU" multicast off up
}
quiet_link "$NS_A" "$IF_A"
quiet_link "$NS_B" "$IF_B"
# Both ends operationally up, not only carrier (LOWER_UP): the kernel attaches a
# device's qdisc (noop until then: it drops everything) up to about a second after
# the carrier, from link-watch work that sets the operational state in the same step.
for _ in $(seq 100); do
	ip -n "$NS_A" link show "$IF_A" | grep -q "state UP" && ip -n "$NS_B" link show "$IF_B" | grep -q "state UP" &&
		break
	sleep 0.05
done

ip netns exec "$NS_B" "$REPLAY_RX" -i "$IF_B" --reference "$WORK/sent.pcap" --json "$WORK/rx.json" \
	${PLOT:+--plot "$PLOT"} >"$WORK/rx.out" 2>"$WORK/rx.err" &
RX_PID=$!
for _ in $(seq 200); do
	grep -q "listening on" "$WORK/rx.err" && break
	kill -0 "$RX_PID" 2>/dev/null || die "replay-rx did not start: $(cat "$WORK/rx.err")"
	sleep 0.05
done

replay_rc=0
ip netns exec "$NS_A" "$REPLAY" -i "$IF_A" "$@" || replay_rc=$?
# replay waits until its last frame has left; give the receiver a moment, then its report.
sleep 0.3
kill -TERM "$RX_PID"
rx_rc=0
wait "$RX_PID" || rx_rc=$?
RX_PID=""
cat "$WORK/rx.out"
[ -s "$WORK/rx.json" ] || die "replay-rx failed ($rx_rc): $(cat "$WORK/rx.err")"
[ -z "$JSON_OUT" ] || cp "$WORK/rx.json" "$JSON_OUT"

get() { grep -o "\"$1\":[-0-9.]*" "$WORK/rx.json" | awk -F: 'NR == 1 { print $2 }'; }
# over VALUE LIMIT: VALUE > LIMIT, as decimals
over() { awk -v v="$1" -v l="$2" 'BEGIN { exit !(v > l) }'; }
abs() { echo "${1#-}"; }

fail=()
[ "$replay_rc" -eq 0 ] || fail+=("replay exited $replay_rc")
[ "$(get kernel_drops)" = 0 ] || fail+=("the receiver's kernel ring dropped $(get kernel_drops) frames: the measurement does not count")
[ "$(get lost)" -le "$MAX_LOSS" ] || fail+=("$(get lost) packets lost (at most $MAX_LOSS allowed)")
[ "$(get duplicated)" = 0 ] || fail+=("$(get duplicated) packets duplicated")
[ "$(get foreign)" = 0 ] || fail+=("$(get foreign) foreign frames arrived")
[ "$ALLOW_REORDER" = 1 ] || [ "$(get reordered)" = 0 ] || fail+=("$(get reordered) packets reordered")
if [ -n "$MAX_P99" ] && over "$(get error_abs_p99_ns)" "$(awk -v u="$MAX_P99" 'BEGIN { print u * 1000 }')"; then
	fail+=("inter-arrival error p99 $(get error_abs_p99_ns) ns > $MAX_P99 us")
fi
if [ -n "$MAX_P50" ] && over "$(get error_abs_p50_ns)" "$(awk -v u="$MAX_P50" 'BEGIN { print u * 1000 }')"; then
	fail+=("inter-arrival error p50 $(get error_abs_p50_ns) ns > $MAX_P50 us")
fi
if [ -n "$MAX_DUR" ] && over "$(abs "$(get duration_error_pct)")" "$MAX_DUR"; then
	fail+=("duration error $(get duration_error_pct) % beyond $MAX_DUR %")
fi

if [ ${#fail[@]} -eq 0 ]; then
	echo "veth-check: PASS: $(get matched) of $(get reference_packets) packets arrived once, in order"
	exit 0
fi
for f in "${fail[@]}"; do
	echo "veth-check: FAIL: $f" >&2
done
exit 1
