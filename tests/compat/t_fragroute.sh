#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --fragroute: the deterministic modules write, frame for frame, what
# tcprewrite 4.6 --fragroute writes for the same rules (frag/NAME.rules over
# a bundled trace or one of frag/craft-opt.py's, with and without --fragdir;
# the expected files frag/NAME.tcprewrite46.pcap were written by tcprewrite
# 4.6.0-beta2); with that binary at hand
# ($ANCHOR_BIN/tcprewrite; unset, skipped with a note) they are written
# again and must match.  Rules files: the valid one taken, a negative size
# and an unknown module refused in one line naming the file and line (and
# by tcprewrite 4.6 too, when at hand).  The chaff modules: as many frames
# as tcprewrite 4.6 writes.  The random modules with a seed: the same seed
# writes the same file, another seed another.
set -euo pipefail
: "${REPLAY:?}" "${PCAPDIFF:?}" "${TRACES:?}"
here=$(cd "$(dirname "$0")" && pwd)/frag
ANCHOR_BIN=${ANCHOR_BIN:-}
anchor=
if [ -n "$ANCHOR_BIN" ] && [ -x "$ANCHOR_BIN/tcprewrite" ] && "$ANCHOR_BIN/tcprewrite" --version >/dev/null 2>&1; then
	anchor=$ANCHOR_BIN/tcprewrite
else
	echo "note: no tcprewrite 4.6 in \$ANCHOR_BIN ('$ANCHOR_BIN'): compared with the recorded files only"
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

check() { # NAME RULES TRACE [ARGS...]: frag/RULES.rules over TRACE (in $TRACES, or frag/) must write frag/NAME.tcprewrite46.pcap
	local name=$1 rules=$here/$2.rules trace=$3 exp=$here/$1.tcprewrite46.pcap
	shift 3
	[ -e "$TRACES/$trace" ] && trace=$TRACES/$trace || trace=$here/$trace
	if [ -n "$anchor" ]; then
		"$anchor" -i "$trace" -o "$WORK/ref.pcap" --fragroute "$rules" "$@" >/dev/null 2>&1 ||
			die "$name: tcprewrite 4.6 failed"
		"$PCAPDIFF" "$exp" "$WORK/ref.pcap" >/dev/null || die "$name: tcprewrite 4.6 writes other bytes than $exp now"
	fi
	"$REPLAY" -q -w "$WORK/ours.pcap" --fragroute "$rules" "$@" "$trace" || die "$name: replay failed"
	"$PCAPDIFF" "$exp" "$WORK/ours.pcap" >/dev/null || die "$name: not tcprewrite 4.6's frames: $("$PCAPDIFF" "$exp" "$WORK/ours.pcap" 2>&1 | head -3)"
	echo "ok: $name"
}

check frag24 frag24 http.pcap
check frag8-reverse frag8-reverse http.pcap
check ttl-tos ttl-tos http.pcap
check dup-drop dup-drop http.pcap
# The option modules, over frames whose Ethernet trailer gives tcprewrite 4.6
# room to add the option (frag/craft-opt.py; with none it adds nothing).
check ipopt-lsrr ipopt-lsrr opt-ip4.pcap
check ipopt-raw ipopt-raw opt-ip4.pcap
check tcpopt-mss tcpopt-mss opt-tcp4.pcap
check tcpopt-raw tcpopt-raw opt-tcp4.pcap
check opt-chain opt-chain opt-tcp4.pcap
# --fragdir: the rules over one side of a tcpprep cache (tcpprep 4.6 -a client of http.pcap).
check frag24-c2s frag24 http.pcap --fragdir c2s -c "$here/http-client.cache"
check frag24-s2c frag24 http.pcap --fragdir s2c -c "$here/http-client.cache"
check frag24 frag24 http.pcap --fragdir both -c "$here/http-client.cache"

# tcpreplay's fragroute_valid, fragroute_negsize and fragroute_badrules.
refused() { # NAME LINE RULE
	local rc=0
	"$REPLAY" -q -w "$WORK/no.pcap" --fragroute "$here/$1.rules" "$TRACES/http.pcap" 2>"$WORK/err" || rc=$?
	[ "$rc" = 2 ] || die "$1: exited $rc, not 2"
	grep -qF -- "replay: --fragroute $here/$1.rules: line $2: '$3': " "$WORK/err" || die "$1: $(cat "$WORK/err")"
	[ "$(wc -l <"$WORK/err")" = 1 ] || die "$1: more than one line: $(cat "$WORK/err")"
	[ ! -e "$WORK/no.pcap" ] || die "$1: refused, but wrote its output"
	if [ -n "$anchor" ]; then
		rc=0
		"$anchor" -i "$TRACES/http.pcap" -o "$WORK/no.pcap" --fragroute "$here/$1.rules" >/dev/null 2>&1 || rc=$?
		[ "$rc" != 0 ] || die "$1: tcprewrite 4.6 takes it now"
		rm -f "$WORK/no.pcap"
	fi
	echo "ok: $1 refused"
}
"$REPLAY" -q -w "$WORK/valid.pcap" --fragroute "$here/valid.rules" "$TRACES/http.pcap" || die "valid: refused"
if [ -n "$anchor" ]; then
	"$anchor" -i "$TRACES/http.pcap" -o "$WORK/ref.pcap" --fragroute "$here/valid.rules" >/dev/null 2>&1 ||
		die "valid: tcprewrite 4.6 refuses it now"
fi
echo "ok: valid"
refused negsize 1 "ip_frag -8"
refused badrules 2 "fragment 8"

# The chaff modules' bytes are random (fragroute's and replay's alike): the
# number of frames is compared, one chaff per TCP segment with ACK and
# payload (tcp_chaff) or per packet with a transport header (ip_chaff).
chaff_count() { # RULE FRAMES
	local n
	printf '%s\n' "$1" >"$WORK/chaff.rules"
	"$REPLAY" -q -w "$WORK/chaff.pcap" --fragroute "$WORK/chaff.rules" "$TRACES/http.pcap" || die "$1: replay failed"
	n=$("$PCAPDIFF" "$WORK/chaff.pcap" "$WORK/chaff.pcap" | awk '{ print $1 }')
	[ "$n" = "$2" ] || die "$1: $n frames, not $2"
	if [ -n "$anchor" ]; then
		"$anchor" -i "$TRACES/http.pcap" -o "$WORK/ref.pcap" --fragroute "$WORK/chaff.rules" >/dev/null 2>&1 ||
			die "$1: tcprewrite 4.6 failed"
		n=$("$PCAPDIFF" "$WORK/ref.pcap" "$WORK/ref.pcap" | awk '{ print $1 }')
		[ "$n" = "$2" ] || die "$1: tcprewrite 4.6 writes $n frames now, not $2"
	fi
	echo "ok: $1"
}
chaff_count "tcp_chaff rexmit" 56
chaff_count "tcp_chaff paws" 56
chaff_count "ip_chaff dup" 78
chaff_count "ip_chaff opt" 78

# The random modules: a seed repeats a run, another seed makes another.
printf 'tcp_chaff syn\nip_chaff 3\nip_frag 16 new\ntcp_seg 8 old\norder random\ndup random 50\ndrop random 30\n' >"$WORK/random.rules"
run_seeded() { # OUT ARGS...
	local out=$1
	shift
	"$REPLAY" -q -w "$WORK/$out" --fragroute "$WORK/random.rules" "$@" "$TRACES/http.pcap" ||
		die "$out: replay failed"
}
run_seeded a.pcap --fragroute-seed 5
run_seeded b.pcap --fragroute-seed 5
run_seeded c.pcap --fragroute-seed 6
"$PCAPDIFF" "$WORK/a.pcap" "$WORK/b.pcap" >/dev/null || die "seed 5 twice: other frames"
if "$PCAPDIFF" "$WORK/a.pcap" "$WORK/c.pcap" >/dev/null 2>&1; then
	die "seeds 5 and 6 made the same frames"
fi
# --fuzz-seed seeds the rules when --fragroute-seed is not given.
run_seeded d.pcap --fuzz-seed 5
run_seeded e.pcap --fuzz-seed 5 --fragroute-seed 5
"$PCAPDIFF" "$WORK/d.pcap" "$WORK/e.pcap" >/dev/null || die "--fuzz-seed 5 did not seed the rules as --fragroute-seed 5"
echo "ok: seeded"
echo "PASS: fragroute"
