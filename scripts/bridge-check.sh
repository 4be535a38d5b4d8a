#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# bridge-check: measure `replay bridge` between two throw-away network
# namespaces, A -- veth -- (M: the bridge) -- veth -- B.  A generator replays
# a UDP trace at a fixed rate with a send log; replay-rx on the far side
# matches every frame against the trace and the send log.  Each direction is
# measured twice: through the bridge with no impairment (the path's own
# latency, the baseline) and then with the impairment given.  Per direction:
# frames sent and received; the applied delay (arrival - send - the
# baseline's median) p50/p99/p99.9/std/min/max against the delay configured;
# the loss split into the bridge's capture drops, its queue (--impair-limit),
# its impairment and the rest.
#
#   sudo scripts/bridge-check.sh [OPTIONS] [--] [BRIDGE-IMPAIRMENT...]
#
# BRIDGE-IMPAIRMENT are `replay bridge` options for the measured run only
# (e.g. --delay 10ms).  Exit status: 0 every frame arrived, 1 a frame was
# lost or a program failed, 2 usage error.  The namespaces and files are
# removed on every exit, a signal's too.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: bridge-check.sh [OPTIONS] [--] [BRIDGE-IMPAIRMENT...]
Measure replay bridge between throw-away network namespaces: per direction,
frames sent and received, the applied delay (arrival - send - the unimpaired
path's median) and the loss split into capture, queue, impairment and other.
BRIDGE-IMPAIRMENT: replay bridge's --loss, --delay, --duplicate, --corrupt, --reorder,
--rate, --impair-* options (and their -ab, -ba forms), anywhere among these; its
other options after --.  A value of several words is one argument: --delay "10ms 1ms".

Load:
  --pps R                frames per second per direction (default 10000)
  --seconds S            seconds of load per direction (default 5)
  --size BYTES           UDP frame size, 50..1500 (default 64)
  --trace FILE           replay FILE at --pps instead of a generated trace (--seconds, --size unused)
Directions (default: A->B, then B->A):
  --direction ab|ba      one direction only
  --both                 both directions at once
Bridge:
  --bridge-cpu N|none    the CPU the bridge runs on, the generators and receivers on the others
                         (default: the last CPU, when there are two or more; none: not pinned)
  --gen-timer KIND       the generators' replay --timer (default sleep: a spinning generator
                         per direction would take the bridge's CPU; the applied delay is
                         measured from each frame's send, so the generators' own timing does
                         not enter it)
  --gen-late POLICY      the generators' replay --late after a stall (default catchup: the frames
                         a stall held back go at once, so the rate holds, in bursts; shift: no
                         bursts, but a generator on a busy CPU falls short of --pps, shown as
                         "sent at")
  --bridge-args "ARGS"   replay bridge options for both runs, split at blanks (e.g. "--poll busy -B 4096")
  --bridge-cmd PATH      run tcpbridge at PATH (tcpreplay's) in the measured run instead of
                         replay bridge, with no impairment: its forwarding cost over the baseline
Output:
  --json FILE            write the results as JSON to FILE
  -q, --quiet            print only the table
  -h, --help             this help
Environment: REPLAY, REPLAY_RX name the programs (default: this script's own
directory, then build/ beside it, then PATH).
Exit status: 0 every frame arrived, 1 a frame was lost or a program failed, 2 usage error.
EOF
}

die() { echo "bridge-check: $*" >&2; exit 1; }
bad_usage() { echo "bridge-check: $* (try --help)" >&2; exit 2; }

IMPAIR=()
NCPU=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
BRIDGE_CPU=$([ "$NCPU" -ge 2 ] && echo $((NCPU - 1)) || echo none) GEN_TIMER=sleep GEN_LATE=catchup
PPS=10000 SECS=5 SIZE=64 TRACE="" DIRS="ab ba" BOTH=0 BRIDGE_ARGS="" BRIDGE_CMD="" JSON_OUT="" QUIET=0
is_uint() { [[ $1 =~ ^[1-9][0-9]{0,8}$ ]]; }
while [ $# -gt 0 ]; do
	case $1 in
	--pps) is_uint "${2:-}" || bad_usage "--pps needs a rate from 1 to 999999999"; PPS=$2; shift 2 ;;
	--seconds) is_uint "${2:-}" && [ "$2" -le 86400 ] || bad_usage "--seconds needs a whole number from 1 to 86400"
		SECS=$2; shift 2 ;;
	--size) is_uint "${2:-}" && [ "$2" -ge 50 ] && [ "$2" -le 1500 ] || bad_usage "--size needs bytes from 50 to 1500"
		SIZE=$2; shift 2 ;;
	--trace) [ -n "${2:-}" ] || bad_usage "--trace needs a file"
		[ -f "$2" ] && [ -r "$2" ] || bad_usage "--trace $2: not a readable file"
		TRACE=$(realpath -- "$2"); shift 2 ;;
	--direction) case ${2:-} in ab | ba) DIRS=$2 ;; *) bad_usage "--direction needs ab or ba" ;; esac; shift 2 ;;
	--both) BOTH=1; shift ;;
	--bridge-cpu) case ${2:-} in
		none) ;;
		[0-9] | [1-9][0-9] | [1-9][0-9][0-9]) [ "$2" -lt "$NCPU" ] || bad_usage "--bridge-cpu $2: this machine has CPUs 0-$((NCPU - 1))"
			[ "$NCPU" -ge 2 ] || bad_usage "--bridge-cpu $2: one CPU, nothing to keep apart (use none)" ;;
		*) bad_usage "--bridge-cpu needs a CPU number or none" ;;
		esac
		BRIDGE_CPU=$2; shift 2 ;;
	--gen-timer) case ${2:-} in hybrid | sleep | spin | nano | select | gtod) ;; *)
		bad_usage "--gen-timer needs one of replay's --timer kinds: hybrid, sleep, spin, nano, select, gtod" ;; esac
		GEN_TIMER=$2; shift 2 ;;
	--gen-late) case ${2:-} in catchup | shift) ;; *)
		bad_usage "--gen-late needs one of replay's --late policies: catchup, shift" ;; esac
		GEN_LATE=$2; shift 2 ;;
	--bridge-args) [ $# -ge 2 ] || bad_usage "--bridge-args needs its options in one argument"
		BRIDGE_ARGS=$2; shift 2 ;;
	--bridge-cmd) [ -n "${2:-}" ] || bad_usage "--bridge-cmd needs the path of tcpbridge"
		[ -f "$2" ] && [ -x "$2" ] || bad_usage "--bridge-cmd $2: not an executable file"
		BRIDGE_CMD=$(realpath -- "$2"); shift 2 ;;
	--json) [ -n "${2:-}" ] || bad_usage "--json needs a file"
		[ ! -L "$2" ] || bad_usage "--json $2: a symbolic link; name the file itself"
		[ -d "$(dirname -- "$2")" ] || bad_usage "--json $2: no such directory"
		JSON_OUT=$2; shift 2 ;;
	-q | --quiet) QUIET=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; IMPAIR+=("$@"); break ;;
	# The bridge's impairment options and their values, wherever they stand among ours.
	--loss* | --delay* | --duplicate* | --corrupt* | --reorder* | --rate* | --impair*) IMPAIR+=("$1"); shift ;;
	-*) bad_usage "unknown option $1 (the bridge's other options go in --bridge-args, or after --)" ;;
	*)
		[ ${#IMPAIR[@]} -gt 0 ] || bad_usage "unexpected argument $1: the bridge's interfaces are made here"
		IMPAIR+=("$1"); shift ;;
	esac
done
[ "$BOTH" = 0 ] || [ "$DIRS" = "ab ba" ] || bad_usage "--both and --direction exclude each other"
[ -z "$BRIDGE_CMD" ] || [ ${#IMPAIR[@]} -eq 0 ] ||
	bad_usage "--bridge-cmd runs tcpbridge, which impairs nothing: give no bridge impairment"
[ -z "$BRIDGE_CMD" ] || [ -z "$BRIDGE_ARGS" ] ||
	bad_usage "--bridge-args are replay bridge's; --bridge-cmd runs tcpbridge with its own"
read -r -a BARGS <<<"$BRIDGE_ARGS"
# ON_BRIDGE, ON_REST: the commands' prefixes that put the bridge on its CPU and the rest elsewhere.
ON_BRIDGE=() ON_REST=()
if [ "$BRIDGE_CPU" != none ]; then
	command -v taskset >/dev/null || die "taskset is not installed (util-linux); or give --bridge-cpu none"
	rest=$(seq 0 $((NCPU - 1)) | grep -vx "$BRIDGE_CPU" | paste -sd, -)
	ON_BRIDGE=(taskset -c "$BRIDGE_CPU") ON_REST=(taskset -c "$rest")
fi
[ "$(id -u)" = 0 ] || die "needs root for network namespaces (try: sudo $0 ...)"
for tool in ip awk; do command -v $tool >/dev/null || die "$tool is not installed"; done

here=$(cd "$(dirname "$0")/.." && pwd)
find_prog() { # VAR NAME: $VAR from the environment, beside this script, the build directory, or PATH
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

# The delay configured, in ns, from --delay-ab D / --delay D / --impair-stat "delay D"
# (tc's units, bare = microseconds); empty when none or unreadable.
delay_ns() { # WORD
	awk -v w="$1" 'BEGIN {
		if (!match(w, /^[0-9]+([.][0-9]+)?/)) exit
		v = substr(w, 1, RLENGTH); u = substr(w, RLENGTH + 1)
		m["s"] = m["sec"] = m["secs"] = 1e9; m["ms"] = m["msec"] = m["msecs"] = 1e6
		m["us"] = m["usec"] = m["usecs"] = m[""] = 1e3; m["ns"] = m["nsec"] = m["nsecs"] = 1
		if (u in m) printf "%.0f", v * m[u]
	}'
}
configured_ns() { # DIRECTION: the delay the impairment asks of it (its own options before both's)
	local i a d=$1 spec sfx
	for sfx in "-$d" ""; do
		for ((i = 0; i < ${#IMPAIR[@]}; i++)); do
			a=${IMPAIR[i]}
			case $a in
			--delay"$sfx") a=${IMPAIR[i + 1]:-}; delay_ns "${a%%[[:space:]]*}"; return ;;
			--impair-stat"$sfx")
				spec=" ${IMPAIR[i + 1]:-} "
				if [[ $spec =~ [[:space:]]delay[[:space:]]+([^[:space:]]+) ]]; then
					delay_ns "${BASH_REMATCH[1]}"
					return
				fi ;;
			esac
		done
	done
	return 0
}

delay_ms() { local v; v=$(configured_ns "$1"); echo $((${v:-0} / 1000000)); }

ID=$$
NS_A="rbc-a-$ID" NS_B="rbc-b-$ID" NS_M="rbc-m-$ID"
IF_A="rbca$ID" IF_B="rbcb$ID" IF_M1="rbcm$ID" IF_M2="rbcn$ID"
WORK=""
PIDS=()
cleanup() {
	local rc=$? p
	trap - EXIT INT TERM
	for p in "${PIDS[@]}"; do
		if kill -0 "$p" 2>/dev/null; then
			kill -TERM "$p" 2>/dev/null || true
			wait "$p" 2>/dev/null || true
		fi
	done
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	ip netns del "$NS_M" 2>/dev/null || true
	[ -z "$WORK" ] || rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
WORK=$(mktemp -d /tmp/bridge-check.XXXXXX)

say() { [ "$QUIET" = 1 ] || echo "bridge-check: $*" >&2; }

# The trace: the given one, or 64-byte UDP for S seconds at R.
if [ -n "$TRACE" ]; then
	"$REPLAY" -q -w "$WORK/t.pcap" "$TRACE" || die "--trace $TRACE: replay cannot read it: see above"
else
	GENTRACE=${GENTRACE:-}
	[ -n "$GENTRACE" ] || { [ -x "$here/build/gentrace" ] && GENTRACE=$here/build/gentrace; } || true
	if [ -n "$GENTRACE" ]; then
		"$GENTRACE" udp -o "$WORK/t.pcap" --count $((PPS * SECS)) --size "$SIZE" >/dev/null ||
			die "gentrace could not write the trace"
	else
		# No generator installed: the same frames from awk, a classic microsecond pcap.
		LC_ALL=C awk -v n=$((PPS * SECS)) -v size="$SIZE" -f /dev/stdin >"$WORK/t.pcap" <<'AWK'
function le(v, k,   s, i) { s = ""; for (i = 0; i < k; i++) { s = s sprintf("%c", v % 256); v = int(v / 256) }; return s }
function be(v, k,   s, i) { s = ""; for (i = 0; i < k; i++) { s = sprintf("%c", v % 256) s; v = int(v / 256) }; return s }
function csum(h,   s, i) { s = 0; for (i = 1; i <= length(h); i += 2) s += ord[substr(h, i, 1)] * 256 + ord[substr(h, i + 1, 1)]
	while (s > 65535) s = int(s / 65536) + s % 65536; return 65535 - s }
BEGIN {
	for (i = 0; i < 256; i++) ord[sprintf("%c", i)] = i
	printf "%s", le(2712847316, 4) le(2, 2) le(4, 2) le(0, 8) le(65535, 4) le(1, 4)
	ip_len = size - 14; udp_len = ip_len - 20
	for (s = 0; s < n; s++) {
		printf "%s", le(1704067200 + int(s / 1000), 4) le((s % 1000) * 1000, 4) le(size, 4) le(size, 4)
		ih = be(69 * 256, 2) be(ip_len, 2) be(s % 65536, 2) be(0, 2) be(64 * 256 + 17, 2) be(0, 2) \
		     be(198, 1) be(18, 1) be(0, 1) be(1, 1) be(198, 1) be(19, 1) be(0, 1) be(1, 1)
		ih = substr(ih, 1, 10) be(csum(ih), 2) substr(ih, 13)
		pl = be(s, 8); for (i = 8; i < udp_len - 8; i++) pl = pl sprintf("%c", (i - 8) % 256)
		printf "%s", be(2, 1) be(0, 4) be(2, 1) be(2, 1) be(0, 4) be(1, 1) be(2048, 2) ih \
		       be(1024, 2) be(9, 2) be(udp_len, 2) be(0, 2) pl
	}
}
AWK
	fi
fi
# B -> A's frames: A -> B's with the MACs of the first frame swapped, so that a bridge
# that learns which side a MAC is on (tcpbridge) sees each on one side only.
read -r -a mac <<<"$(od -An -tx1 -j 40 -N 12 "$WORK/t.pcap" | tr -s ' \n' ' ')"
[ "${#mac[@]}" = 12 ] || die "the trace's first frame is shorter than an Ethernet header"
dmac=$(IFS=:; echo "${mac[*]:0:6}") smac=$(IFS=:; echo "${mac[*]:6:6}")
"$REPLAY" -q -w "$WORK/ba.pcap" --enet-dmac "$smac" --enet-smac "$dmac" "$WORK/t.pcap" ||
	die "cannot write B -> A's frames: see above"
mv "$WORK/t.pcap" "$WORK/ab.pcap"
NFRAMES=$("$REPLAY" -q -w /dev/null --stats-json - "$WORK/ab.pcap" | grep -o '"packets_sent":[0-9]*' | head -n1 | cut -d: -f2)
[ -n "$NFRAMES" ] && [ "$NFRAMES" -gt 0 ] || die "the trace holds no frame replay sends"
# A given trace lasts as long as its frames take at R.
[ -z "$TRACE" ] || SECS=$(((NFRAMES + PPS - 1) / PPS))

# Every program of a case lives at most this long, s (the bridge's --duration, the far sides'
# --timeout): the case's load with room to spare.
LIFE_S=$((SECS * 4 + 60))
# Namespaces left by a check killed outright (rbc-{a,b,m}-PID, PID no longer a check): removed.
for ns in $(ip netns list | awk '{print $1}' | grep -E '^rbc-[abm]-[0-9]+$' || true); do
	grep -qs bridge-check "/proc/${ns##*-}/cmdline" && continue
	ip netns del "$ns" 2>/dev/null && say "removed $ns, left by a check that no longer runs"
done
for ns in "$NS_A" "$NS_B" "$NS_M"; do
	ip netns add "$ns"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip link add name "$IF_A" netns "$NS_A" type veth peer name "$IF_M1" netns "$NS_M"
ip link add name "$IF_B" netns "$NS_B" type veth peer name "$IF_M2" netns "$NS_M"
for s in "$NS_A $IF_A" "$NS_B $IF_B" "$NS_M $IF_M1" "$NS_M $IF_M2"; do
	set -- $s
	ip -n "$1" link set dev "$2" multicast off up
done
# Every end operationally up (its qdisc attached), not only carrier.
for s in "$NS_A $IF_A" "$NS_B $IF_B" "$NS_M $IF_M1" "$NS_M $IF_M2"; do
	set -- $s
	for _ in $(seq 100); do ip -n "$1" link show "$2" | grep -q "state UP" && break; sleep 0.05; done
	ip -n "$1" link show "$2" | grep -q "state UP" || die "$2 did not come up"
done

jget() { grep -o "\"$2\":[-0-9.e+]*" "$1" 2>/dev/null | head -n1 | cut -d: -f2; }
jg() { local v; v=$(jget "$@"); echo "${v:--}"; } # as jget, "-" for none
# wait_for FILE PID WHAT WORDS: until FILE says WORDS; fails with the program's own words.
wait_for() {
	local i
	for i in $(seq 200); do
		grep -q "$4" "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || die "$3 did not start: $(head -n1 "$1")"
		sleep 0.05
	done
	die "$3 did not start in 10 s: $(head -n1 "$1")"
}
src_of() { [ "$1" = ab ] && echo "$NS_A $IF_A" || echo "$NS_B $IF_B"; }
dst_of() { [ "$1" = ab ] && echo "$NS_B $IF_B" || echo "$NS_A $IF_A"; }

# run_case TAG KIND DIRS...: one run through the bridge (KIND: plain, impaired, anchor), the
# generator of each direction at once, replay-rx on each far side.  Leaves
# $WORK/TAG.{bridge,DIR.rx,DIR.gen}.json.
run_case() {
	local tag=$1 kind=$2 d bpid ns ifn rc wait_ms
	shift 2
	local dirs=("$@") rxp=() genp=()
	local -a cmd
	case $kind in
	anchor) cmd=("$BRIDGE_CMD" -i "$IF_M1" -I "$IF_M2") ;;
	# --duration: a bridge whose check was killed outright (SIGKILL: no clean-up) still ends,
	# as the far sides do at --timeout and the generators at their trace's end.
	plain) cmd=("$REPLAY" bridge --duration "$LIFE_S" --stats-json "$WORK/$tag.bridge.json" "${BARGS[@]}"
		"$IF_M1" "$IF_M2") ;;
	impaired) cmd=("$REPLAY" bridge --duration "$LIFE_S" --stats-json "$WORK/$tag.bridge.json" "${BARGS[@]}"
		"${IMPAIR[@]}" "$IF_M1" "$IF_M2") ;;
	esac
	ip netns exec "$NS_M" "${ON_BRIDGE[@]}" "${cmd[@]}" >"$WORK/$tag.bridge.out" 2>"$WORK/$tag.bridge.err" &
	bpid=$!
	PIDS+=("$bpid")
	if [ "$kind" = anchor ]; then
		# tcpbridge says nothing when ready: give it a moment, then check it lives.
		sleep 1
		kill -0 "$bpid" 2>/dev/null || die "$BRIDGE_CMD did not start: $(head -n1 "$WORK/$tag.bridge.err")"
	else
		wait_for "$WORK/$tag.bridge.err" "$bpid" "replay bridge" "listening on"
	fi
	# The far side waits for the last frame's delay and a second more.
	wait_ms=$(($(delay_ms ab) + $(delay_ms ba) + 1000))
	for d in "${dirs[@]}"; do
		read -r ns ifn <<<"$(dst_of "$d")"
		ip netns exec "$ns" "${ON_REST[@]}" "$REPLAY_RX" -i "$ifn" -R "$WORK/$d.pcap" --send-log "$WORK/$tag.$d.log" \
			--idle "$((wait_ms / 1000)).$(printf %03d $((wait_ms % 1000)))" --timeout "$LIFE_S" \
			--json "$WORK/$tag.$d.rx.json" >"$WORK/$tag.$d.rx.out" 2>"$WORK/$tag.$d.rx.err" &
		rxp+=($!)
		PIDS+=($!)
		wait_for "$WORK/$tag.$d.rx.err" "$!" "replay-rx" "listening on"
	done
	for d in "${dirs[@]}"; do
		read -r ns ifn <<<"$(src_of "$d")"
		ip netns exec "$ns" "${ON_REST[@]}" "$REPLAY" -q -i "$ifn" --timer "$GEN_TIMER" --late "$GEN_LATE" --pps "$PPS" --send-log "$WORK/$tag.$d.log" \
			--stats-json "$WORK/$tag.$d.gen.json" "$WORK/$d.pcap" >"$WORK/$tag.$d.gen.out" 2>"$WORK/$tag.$d.gen.err" &
		genp+=($!)
		PIDS+=($!)
	done
	for d in "${!dirs[@]}"; do
		rc=0
		wait "${genp[d]}" || rc=$?
		[ "$rc" = 0 ] || die "the generator ${dirs[d]} failed ($rc): $(head -n1 "$WORK/$tag.${dirs[d]}.gen.err")"
	done
	# The far sides stop at --idle after their last frame; one that got none is stopped
	# once the last frame's delay and a second more are past.
	local t
	for ((t = 0; t < wait_ms + 1000; t += 50)); do
		for d in "${rxp[@]}"; do kill -0 "$d" 2>/dev/null && break; done
		kill -0 "$d" 2>/dev/null || break
		sleep 0.05
	done
	for d in "${rxp[@]}"; do kill -TERM "$d" 2>/dev/null || true; done
	for d in "${!dirs[@]}"; do
		rc=0
		wait "${rxp[d]}" || rc=$?
		# 3: loss or drops, which the table shows; anything else is a failure.
		[ "$rc" = 0 ] || [ "$rc" = 3 ] ||
			die "replay-rx ${dirs[d]} failed ($rc): $(head -n1 "$WORK/$tag.${dirs[d]}.rx.err")"
	done
	kill -INT "$bpid"
	rc=0
	wait "$bpid" || rc=$?
	# replay bridge: 130 at SIGINT, 1 when frames held at the stop failed (counted in its JSON).
	if [ "$kind" != anchor ] && [ "$rc" != 130 ] && [ "$rc" != 1 ]; then
		die "replay bridge exited $rc: $(head -n1 "$WORK/$tag.bridge.err")"
	fi
	if [ "$kind" != anchor ] && [ ! -s "$WORK/$tag.bridge.json" ]; then
		die "replay bridge wrote no --stats-json: $(head -n1 "$WORK/$tag.bridge.err")"
	fi
}

# The bridge's count KEY of direction DIR in FILE (its "directions" array, ab first).
bget() { # FILE DIR KEY
	awk -v dir="$2" -v key="$3" '
	{ s = s $0 }
	END {
		i = index(s, "\"direction\":\"" dir "\""); if (!i) exit
		t = substr(s, i); j = index(t, "\"" key "\":"); if (!j) exit
		t = substr(t, j + length(key) + 3); match(t, /^[-0-9.e+]+/); print substr(t, 1, RLENGTH)
	}' "$1" 2>/dev/null
}

if [ "$BOTH" = 1 ]; then GROUPS_=("ab ba"); else read -r -a GROUPS_ <<<"$DIRS"; fi
ROWS="$WORK/rows"
: >"$ROWS"
for g in "${GROUPS_[@]}"; do
	read -r -a gd <<<"$g"
	mode=$([ "${#gd[@]}" = 2 ] && echo both || echo alone)
	say "baseline ${gd[*]}: replay bridge ${BRIDGE_ARGS:-(no options)}, $NFRAMES frames at $PPS pps"
	run_case "base.$mode" plain "${gd[@]}"
	if [ -n "$BRIDGE_CMD" ]; then
		say "measured ${gd[*]}: $BRIDGE_CMD"
		run_case "meas.$mode" anchor "${gd[@]}"
	else
		say "measured ${gd[*]}: replay bridge ${BRIDGE_ARGS:+$BRIDGE_ARGS }${IMPAIR[*]:-(no impairment)}"
		run_case "meas.$mode" impaired "${gd[@]}"
	fi
	for d in "${gd[@]}"; do
		b="$WORK/base.$mode.$d.rx.json" m="$WORK/meas.$mode.$d.rx.json" bj="$WORK/meas.$mode.bridge.json"
		[ -s "$b" ] && [ -s "$m" ] || die "replay-rx $d wrote no report"
		base50=$(jget "$b" latency_p50_ns)
		[ -n "$base50" ] || die "the baseline $d has no latency: no frame arrived through the plain bridge"
		cfg=$([ -n "$BRIDGE_CMD" ] && echo "" || configured_ns "$d")
		if [ -n "$BRIDGE_CMD" ]; then cap="" que="" imp="" late="- - -"; else
			cap=$(bget "$bj" "$d" kernel_dropped) que=$(bget "$bj" "$d" dropped_limit) imp=$(bget "$bj" "$d" dropped_impair)
			# How late the bridge sent held frames (its send_error_ns, the first p50/p99/p999 after
			# the direction): the share of the applied delay's error that is the bridge's own.
			late="$(bget "$bj" "$d" p50) $(bget "$bj" "$d" p99) $(bget "$bj" "$d" p999)"
		fi
		# One row: the numbers, in order, "-" for none.
		echo "$d $mode $(jg "$WORK/meas.$mode.$d.gen.json" packets_sent) $(jg "$m" matched) $(jg "$m" lost)" \
			"${cap:--} ${que:--} ${imp:--} $base50 $(jg "$b" latency_p99_ns) $(jg "$b" lost)" \
			"$(jg "$m" latency_p50_ns) $(jg "$m" latency_p99_ns) $(jg "$m" latency_p999_ns)" \
			"$(jg "$m" latency_stddev_ns) $(jg "$m" latency_min_ns) $(jg "$m" latency_max_ns)" \
			"$(jg "$m" latency_mean_ns) ${cfg:--} $(jg "$m" duplicated) $(jg "$m" kernel_drops)" \
			"$(jg "$m" latency_count) $late $(jg "$b" latency_stddev_ns)" \
			"$(jg "$WORK/meas.$mode.$d.gen.json" pps) $(jg "$WORK/meas.$mode.$d.gen.json" late_stalls)" >>"$ROWS"
	done
done

# The table, and the JSON, from the rows (fields as echoed above; ns in, ms out).
bridge_name=$([ -n "$BRIDGE_CMD" ] && echo "tcpbridge" || echo "replay bridge")
awk -v pps="$PPS" -v secs="$SECS" -v frames="$NFRAMES" -v br="$bridge_name" -v imp="${IMPAIR[*]:-}" -v \
	bargs="$BRIDGE_ARGS" -v json="$WORK/out.json" -v anchor="$BRIDGE_CMD" -v bcpu="$BRIDGE_CPU" -v gtimer="$GEN_TIMER" -v glate="$GEN_LATE" '
function ms(v) { return v == "-" || v == "" ? "-" : sprintf("%.3f", v / 1e6) }
function num(v) { return v == "-" || v == "" ? "null" : v }
function jstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
BEGIN {
	printf "%s, %d frames per direction at %d pps (%d s); impairment: %s\n", br, frames, pps, secs, \
		anchor != "" ? "none (anchor)" : (imp == "" ? "none" : imp)
	printf "%-4s %-5s %9s %9s %7s | %7s %7s %7s %7s | %8s %8s | %8s %8s %8s %8s %8s %8s | %6s | %8s\n", "dir", "mode", "sent", \
		"received", "lost", "capture", "queue", "impair", "other", "base p50", "base std", "p50", "p99", "p99.9", \
		"std", "min", "max", "config", "gen pps"
	printf "%-4s %-5s %9s %9s %7s | %31s | %17s | %53s | %6s | %8s\n", "", "", "", "", "", "loss (the bridge counts)", \
		"ms", "applied delay, ms (arrival - send - base p50)", "ms", "sent at"
	printf "{\"bridge\":%s,\"anchor\":%s,\"impairment\":%s,\"bridge_args\":%s,\"bridge_cpu\":%s,\"generator_timer\":%s,\"generator_late\":%s,\"pps\":%d,\"seconds\":%d,\"frames\":%d,\"directions\":[", \
		jstr(br), anchor == "" ? "null" : jstr(anchor), jstr(imp), jstr(bargs), bcpu == "none" ? "null" : bcpu, jstr(gtimer), jstr(glate), pps, secs, frames >json
}
{
	d = $1; mode = $2; sent = $3; recv = $4; lost = $5; cap = $6; que = $7; imp_ = $8; b50 = $9; b99 = $10
	blost = $11; p50 = $12; p99 = $13; p999 = $14; sd = $15; mn = $16; mx = $17; mean = $18; cfg = $19
	dup = $20; kd = $21; nlat = $22; l50 = $23; l99 = $24; l999 = $25; bsd = $26; gpps = $27; gstalls = $28
	known = (cap == "-" ? 0 : cap) + (que == "-" ? 0 : que) + (imp_ == "-" ? 0 : imp_)
	other = (lost == "-" ? 0 : lost) - known
	base = b50
	if (p50 == "-" || b50 == "-" || nlat == "-" || nlat == 0) { p50 = p99 = p999 = mn = mx = mean = b50 = 0; na = 1 } else na = 0
	printf "%-4s %-5s %9s %9s %7s | %7s %7s %7s %7s | %8s %8s | %8s %8s %8s %8s %8s %8s | %6s | %8s\n", d, mode, sent, recv, \
		lost, cap, que, imp_, other, ms(base), ms(bsd), ms(na ? "-" : p50 - b50), ms(na ? "-" : p99 - b50), \
		ms(na ? "-" : p999 - b50), ms(na ? "-" : sd), ms(na ? "-" : mn - b50), ms(na ? "-" : mx - b50), ms(cfg), \
		gpps == "-" ? "-" : sprintf("%.0f", gpps)
	printf "%s{\"direction\":%s,\"mode\":%s,\"sent\":%s,\"received\":%s,\"lost\":%s,\"duplicated\":%s,\"receiver_kernel_drops\":%s,", \
		(NR > 1 ? "," : ""), jstr(d), jstr(mode), num(sent), num(recv), num(lost), num(dup), num(kd) >json
	printf "\"generator\":{\"pps\":%s,\"late_stalls\":%s},", num(gpps), num(gstalls) >json
	printf "\"loss\":{\"capture\":%s,\"queue\":%s,\"impairment\":%s,\"other\":%d},", num(cap), num(que), num(imp_), other >json
	printf "\"baseline\":{\"latency_p50_ns\":%s,\"latency_p99_ns\":%s,\"latency_stddev_ns\":%s,\"lost\":%s},", \
		num(base), num(b99), num(bsd), num(blost) >json
	printf "\"bridge_late_ns\":" >json
	if (l99 == "-" || l99 == "") printf "null," >json
	else printf "{\"p50\":%s,\"p99\":%s,\"p999\":%s},", l50, l99, l999 >json
	printf "\"configured_delay_ns\":%s,\"applied_delay_ns\":", num(cfg) >json
	if (na) printf "null}" >json
	else printf "{\"p50\":%d,\"p99\":%d,\"p999\":%d,\"stddev\":%s,\"min\":%d,\"max\":%d,\"mean\":%.1f}}", \
		p50 - b50, p99 - b50, p999 - b50, num(sd), mn - b50, mx - b50, mean - b50 >json
}
END { printf "]}\n" >json }
' "$ROWS"
if [ -n "$JSON_OUT" ]; then
	# Written whole beside its place, then renamed: never half a file, never through a link.
	tmp=$(mktemp "$(dirname -- "$JSON_OUT")/.bridge-check.XXXXXX")
	cat "$WORK/out.json" >"$tmp" && mv -f -- "$tmp" "$JSON_OUT" || { rm -f "$tmp"; die "--json $JSON_OUT: cannot write it"; }
fi
lost_total=$(awk '{ s += ($5 == "-" ? 0 : $5) + ($3 != $4) } END { print s + 0 }' "$ROWS")
[ "$lost_total" = 0 ] || { say "FAIL: $lost_total frames lost"; exit 1; }
say "every frame arrived"
