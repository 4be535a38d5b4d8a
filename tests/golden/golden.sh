#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# One golden case: replay -w with REPLAY_ARGS must write, frame for frame, what
# the reference tool writes for the same command line, and every checksum in
# our output must verify.  EXCEPT lists the frames the reference gets wrong
# (WHY says how); the cases are tests/meson.build's golden tables.
#
#   golden.sh NAME TRACE REF REF_ARGS REPLAY_ARGS [EXCEPT WHY]
#
# REF: tcprewrite (REF_ARGS its options); tcpdump (a filter); editcap (options
# and ranges); prep (our run editing on the fly against one from a sidecar of
# 'replay prep': not a byte apart); tcprewrite+tcpprep (a tcpprep --auto=first
# cache splits the pair forms); tcprewrite46: tcprewrite 4.6 ($TCPREWRITE46,
# else $ANCHOR_BIN/tcprewrite) where it runs, whose output must equal
# tests/golden/expected/NAME.pcap (GOLDEN_REGEN=1 rewrites it), else that file
# alone, with a note; tcprewrite46+tcpprep: REF_ARGS "TCPPREP_ARGS;;TCPREWRITE_ARGS",
# the cache checked in as expected/NAME.cache, @CACHE@ in REPLAY_ARGS naming it.
set -euo pipefail
: "${REPLAY:?}" "${PCAPDIFF:?}" "${CSUMCHECK:?}" "${EDCHECK:?}" "${TRACES:?}"
name=$1 trace=$TRACES/$2 ref=$3 ref_args=$4 replay_args=$5 except=${6:-} why=${7:-}
# golden/crafted.pcap: frames made by tests/golden/craft.py (padding, trailers, fragments, broadcast).
case $2 in golden/*) trace=$(dirname "$0")/${2#golden/} ;; esac
WORK=$(mktemp -d /tmp/golden.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $name: $*" >&2; exit 1; }

tools="tcprewrite tcpprep tcpdump editcap"
[[ $ref == tcprewrite46* ]] && tools= # the anchor or the checked-in file: no tool needed
for tool in $tools; do
	if ! command -v "$tool" >/dev/null; then
		[ "${CI:-}" = true ] && die "$tool is missing (scripts/deps.sh installs it)"
		echo "SKIP: $tool missing"; exit 77
	fi
done

# shellcheck disable=SC2086 # the argument strings are word lists on purpose
case $ref in
tcprewrite) tcprewrite $ref_args -i "$trace" -o "$WORK/ref.pcap" ;;
tcprewrite46)
	anchor=${TCPREWRITE46:-${ANCHOR_BIN:+$ANCHOR_BIN/tcprewrite}}
	expected=${GOLDEN_EXPECTED:?}/$name.pcap
	if [ -x "$anchor" ] && "$anchor" --version >/dev/null 2>&1; then
		"$anchor" $ref_args -i "$trace" -o "$WORK/ref.pcap" || die "tcprewrite 4.6 failed"
		[ -n "${GOLDEN_REGEN:-}" ] && cp "$WORK/ref.pcap" "$expected"
		[ -f "$expected" ] || die "no checked-in $expected (make it with GOLDEN_REGEN=1)"
		cmp -s "$WORK/ref.pcap" "$expected" ||
			die "tcprewrite 4.6 writes other bytes than the checked-in $expected"
	elif [ -f "$expected" ]; then
		echo "note: no tcprewrite 4.6 (TCPREWRITE46, ANCHOR_BIN): compared with the checked-in output only"
		cp "$expected" "$WORK/ref.pcap"
	else
		die "neither tcprewrite 4.6 ($anchor) nor $expected is here"
	fi ;;
tcprewrite46+tcpprep)
	anchor=${TCPREWRITE46:-${ANCHOR_BIN:+$ANCHOR_BIN/tcprewrite}}
	anchor_prep=${TCPPREP46:-$(dirname "$anchor")/tcpprep}
	expected=${GOLDEN_EXPECTED:?}/$name.pcap
	prep_args=${ref_args%%;;*} ref_args=${ref_args#*;;}
	if [ -x "$anchor" ] && "$anchor" --version >/dev/null 2>&1 && [ -x "$anchor_prep" ]; then
		# The cache keeps tcpprep's command line: relative names make it the same everywhere.
		cp "$trace" "$WORK/t.pcap"
		(cd "$WORK" && "$anchor_prep" $prep_args -i t.pcap -o c.cache >/dev/null) || die "tcpprep 4.6 failed"
		"$anchor" -c "$WORK/c.cache" $ref_args -i "$trace" -o "$WORK/ref.pcap" || die "tcprewrite 4.6 failed"
		if [ -n "${GOLDEN_REGEN:-}" ]; then
			cp "$WORK/ref.pcap" "$expected"
			cp "$WORK/c.cache" "${expected%.pcap}.cache"
		fi
		[ -f "$expected" ] && [ -f "${expected%.pcap}.cache" ] ||
			die "no checked-in $expected or its .cache (make them with GOLDEN_REGEN=1)"
		cmp -s "$WORK/ref.pcap" "$expected" ||
			die "tcprewrite 4.6 writes other bytes than the checked-in $expected"
		cmp -s "$WORK/c.cache" "${expected%.pcap}.cache" ||
			die "tcpprep 4.6 writes another cache than the checked-in ${expected%.pcap}.cache"
	elif [ -f "$expected" ] && [ -f "${expected%.pcap}.cache" ]; then
		echo "note: no tcprewrite/tcpprep 4.6 (TCPREWRITE46, ANCHOR_BIN): compared with the checked-in output only"
		cp "$expected" "$WORK/ref.pcap"
		cp "${expected%.pcap}.cache" "$WORK/c.cache"
	else
		die "neither tcprewrite/tcpprep 4.6 ($anchor) nor $expected and its .cache are here"
	fi
	replay_args=${replay_args//@CACHE@/$WORK/c.cache} ;;
tcprewrite+tcpprep)
	tcpprep --auto=first --pcap="$trace" --cachefile="$WORK/c.cache"
	tcprewrite --cachefile="$WORK/c.cache" $ref_args -i "$trace" -o "$WORK/ref.pcap" ;;
tcpdump) tcpdump -r "$trace" -w "$WORK/ref.pcap" "$ref_args" 2>/dev/null ;;
prep)
	eval "set -- $replay_args"
	"$REPLAY" prep -q "$trace" -o "$WORK/s.prep" "$@" || die "replay prep failed"
	"$REPLAY" -q -w "$WORK/ref.pcap" "$@" "$trace" || die "replay failed"
	replay_args="$replay_args --prep $WORK/s.prep"
	# With --split the one-output run must take the sides from the sidecar, not compute them again.
	if [[ $replay_args == *--split* ]]; then
		"$REPLAY" --debug -w "$WORK/sides.pcap" "$@" --prep "$WORK/s.prep" "$trace" >/dev/null 2>"$WORK/sides.err" ||
			die "replay with the sidecar failed: $(cat "$WORK/sides.err")"
		grep -q "the sides come from $WORK/s.prep" "$WORK/sides.err" ||
			die "the sides were not taken from the sidecar: $(cat "$WORK/sides.err")"
	fi ;;
editcap) # REF_ARGS: [-r] RANGES; -r keeps the ranges, without it they are deleted
	opt=() ranges=$ref_args
	[[ $ranges == "-r "* ]] && opt=(-r) ranges=${ranges#-r }
	editcap -F pcap "${opt[@]}" "$trace" "$WORK/ref.pcap" $ranges ;;
*) die "unknown reference $ref" ;;
esac
# Our replay arguments may hold a quoted filter expression: let the shell split them.
eval "set -- $replay_args"
"$REPLAY" -q -w "$WORK/ours.pcap" "$@" "$trace" || die "replay failed"

diff_args=()
# --dlt raw, user or hdlc: the frames as written, and the file's link type, compared as they are.
dlt=$(sed -n 's/.*--dlt \([a-z]*\).*/\1/p' <<<"$replay_args")
[ -n "$dlt" ] && [ "$dlt" != enet ] && diff_args+=(--linktype)
case $ref in tcprewrite | tcprewrite+tcpprep) diff_args+=(--skip-mac6) ;; esac
diff_args+=(--wirelen) # a short capture keeps its wire length (caplen 96, len 1000), as in the reference
[ -n "$except" ] && diff_args+=(--except "$except")
out=$("$PCAPDIFF" "${diff_args[@]}" "$WORK/ref.pcap" "$WORK/ours.pcap") || die "$out"
echo "$name: $out"
[ -n "$except" ] && echo "$name: frames $except differ on purpose: $why"

# tcprewrite 4.4.3 overwrites the MACs of every IPv6 frame (pcapdiff --skip-mac6 left
# them out): ours must be the input's, or the one address --dmac/--smac gave.
case $ref in tcprewrite | tcprewrite+tcpprep)
	dst=$(sed -n 's/.*--dmac \([0-9a-f:]*\)\( .*\)\?$/\1/p' <<<"$replay_args")
	src=$(sed -n 's/.*--smac \([0-9a-f:]*\)\( .*\)\?$/\1/p' <<<"$replay_args")
	[[ $dst == *,* || $src == *,* ]] && dst=- src=- # pair forms: the IPv4-only cases cover them
	out=$("$EDCHECK" mac6 "$trace" "$WORK/ours.pcap" "${dst:--}" "${src:--}") || die "$out"
	echo "$name: $out"
esac

# Padding: every frame goes out at its recorded wire length.
if [[ $replay_args == *--pad-payload* && $replay_args != *--mtu-trunc* ]]; then
	out=$("$EDCHECK" padlen "$trace" "$WORK/ours.pcap") || die "$out"
	echo "$name: $out"
fi

# Every checksum we wrote must verify (frames the capture cut short are counted, not checked);
# frames under another link layer than Ethernet or IP have no form the checker reads.
if [ "$dlt" = user ] || [ "$dlt" = hdlc ]; then
	echo "$name: checksums not checked: --dlt $dlt frames are compared byte for byte only"
	exit 0
fi
csum_args=()
[[ $replay_args == *--pad-payload* ]] && csum_args+=(--zero-frag-payload)
out=$("$CSUMCHECK" "${csum_args[@]}" "$WORK/ours.pcap") || die "checksum: $out"
echo "$name: $out"
