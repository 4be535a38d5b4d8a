#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Compressed traces end to end.  The same bundled trace plain and compressed
# with gzip, zstd, xz, lz4 and bzip2 -- read from a file and from a pipe --
# arrives byte-exact on the far side of a veth pair, every frame counted;
# a compressed file loops (with and without -K), a compressed pipe loops
# only with -K; --info names the codec and the ratio; a truncated or corrupt
# stream is one line naming the file, the record and the compressed offset,
# exit 1, with the records before it sent and nothing after.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}"

CODECS="gz zst xz lz4 bz2"

# pack EXT IN OUT: IN compressed by the codec of EXT, by its own command-line tool.
pack() {
	case $1 in
	gz) gzip -c "$2" >"$3" ;;
	zst) zstd -q -c "$2" >"$3" ;;
	xz) xz -c "$2" >"$3" ;;
	lz4) lz4 -q -c "$2" >"$3" ;;
	bz2) bzip2 -c "$2" >"$3" ;;
	esac || die "cannot compress with $1 (scripts/deps.sh installs the tools)"
}

setup_files() {
	local c
	SRC="$TRACES/icmp-flood.pcap"
	"$REPLAY" -q -w "$WORK/plain.exp" "$SRC" || die "dry run of the plain trace failed"
	for c in $CODECS; do
		# stored under a name that says nothing: the codec is told by magic
		pack "$c" "$SRC" "$WORK/trace-$c.bin"
	done
}

# across NAME CMD...: CMD (a replay onto A's end) sends plain.exp's frames, exactly, counted on B's side.
across() {
	local name=$1 js="$WORK/$1.json" tx0 n
	shift
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	capture_start "$WORK/$name.got" "$WORK/plain.exp"
	in_a "$@" --stats-json "$js" || die "$name: replay exited $?"
	capture_stop
	check_invariant "$js"
	n=$(json_get "$js" packets_sent)
	[ "$(json_get "$js" packets_failed)" = 0 ] || die "$name: packets failed"
	[ $(($(ifstat "$NS_A" "$IF_A" tx_packets) - tx0)) -eq "$n" ] ||
		die "$name: the interface's count differs from packets_sent"
	rx_exact "$n"
	"$PCAPDIFF" "$WORK/plain.exp" "$WORK/$name.got" >"$WORK/d" ||
		die "$name: far side differs: $(cat "$WORK/d")"
	info "$name across veth: $(cat "$WORK/d")"
}

test_across_veth() {
	local c
	across plain "$REPLAY" -q -i "$IF_A" "$SRC"
	for c in $CODECS; do
		across "$c-file" "$REPLAY" -q -i "$IF_A" "$WORK/trace-$c.bin"
		across "$c-pipe" bash -c 'cat "$1" | "$2" -q -i "$3" - "${@:4}"' _ \
			"$WORK/trace-$c.bin" "$REPLAY" "$IF_A"
	done
}

test_loops() {
	local c
	"$REPLAY" -q -w "$WORK/loop.exp" --loop 3 "$SRC" || die "--loop 3 of the plain trace failed"
	for c in $CODECS; do
		"$REPLAY" -q -w "$WORK/loop.$c" --loop 3 "$WORK/trace-$c.bin" || die "$c: --loop 3 failed"
		"$PCAPDIFF" --ts-rel "$WORK/loop.exp" "$WORK/loop.$c" >"$WORK/d" || die "$c: --loop 3 differs: $(cat "$WORK/d")"
		grep -q "^3006 frames identical" "$WORK/d" || die "$c: not three passes: $(cat "$WORK/d")"
		"$REPLAY" -q -w "$WORK/loopk.$c" -K --loop 3 "$WORK/trace-$c.bin" || die "$c: -K --loop 3 failed"
		"$PCAPDIFF" --ts-rel "$WORK/loop.exp" "$WORK/loopk.$c" >/dev/null || die "$c: -K --loop 3 differs"
		cat "$WORK/trace-$c.bin" | "$REPLAY" -q -w "$WORK/loopp.$c" -K --loop 3 - || die "$c: -K --loop 3 of a pipe failed"
		"$PCAPDIFF" --ts-rel "$WORK/loop.exp" "$WORK/loopp.$c" >/dev/null || die "$c: a preloaded pipe looped differently"
		expect_fail 1 "cannot loop over a pipe" bash -c 'cat "$1" | "$2" -q -w /dev/null --loop 2 -' _ \
			"$WORK/trace-$c.bin" "$REPLAY"
	done
}

test_info() {
	local i="$WORK/info" c name
	for c in $CODECS; do
		case $c in gz) name=gzip ;; zst) name=zstd ;; bz2) name=bzip2 ;; *) name=$c ;; esac
		"$REPLAY" --info "$WORK/trace-$c.bin" >"$i" || die "$c: --info failed"
		grep -qE "^compressed: +$name, $(stat -c %s "$WORK/trace-$c.bin") bytes -> $(stat -c %s "$SRC") bytes \(ratio [0-9.]+\)$" "$i" ||
			die "$c: --info does not say the compression: $(cat "$i")"
		grep -qE "^packets: +1002$" "$i" || die "$c: --info counts other packets: $(cat "$i")"
		"$REPLAY" --info - <"$WORK/trace-$c.bin" | grep -qE "^compressed: +$name, " || die "$c: --info from a pipe"
	done
	"$REPLAY" --info "$SRC" >"$i"
	! grep -q "^compressed:" "$i" || die "--info calls a plain trace compressed"
}

# A stream cut short or damaged, from a file and from a pipe: the records
# before the break go out (counted and compared on the far side), then one
# line naming the file, the record and the compressed offset, exit 1.
test_broken() {
	local c size rec got how pat
	for c in $CODECS; do
		size=$(stat -c %s "$WORK/trace-$c.bin")
		head -c $((size * 2 / 3)) "$WORK/trace-$c.bin" >"$WORK/cut-$c.bin"
		cp "$WORK/trace-$c.bin" "$WORK/bad-$c.bin"
		# inside the integrity check at the end: every record was made, the check fails
		printf '\x5a' | dd of="$WORK/bad-$c.bin" bs=1 seek=$((size - 3)) conv=notrunc status=none
		for how in cut-file cut-pipe bad-file; do
			local f="$WORK/${how%-*}-$c.bin" name=${how%-*}-$c.bin
			capture_start "$WORK/$how-$c.got"
			if [ "${how#*-}" = file ]; then
				expect_fail 1 "^replay: .*$name: " in_a "$REPLAY" -q -i "$IF_A" "$f"
			else
				name=-
				expect_fail 1 "^replay: -: " in_a bash -c 'cat "$1" | "$2" -q -i "$3" -' _ "$f" "$REPLAY" "$IF_A"
			fi
			capture_stop
			pat="[a-z0-9]+ (stream ends early \(truncated\)|stream corrupt \(.*\)) at compressed offset 0x[0-9a-f]+"
			[ "$(wc -l <"$WORK/err")" = 1 ] || die "$c $how: not one line: $(cat "$WORK/err")"
			grep -qE "^replay: (.*/)?$name: (record [0-9]+ at offset 0x[0-9a-f]+: )?$pat" "$WORK/err" ||
				die "$c $how: $(cat "$WORK/err")"
			got=$(json_get "$RX_JSON" received)
			if grep -q "record [0-9]* at offset" "$WORK/err"; then
				rec=$(sed -n 's/.*record \([0-9]*\) at offset.*/\1/p' "$WORK/err")
				[ "$got" -eq $((rec - 1)) ] || die "$c $how: $got frames arrived, the error names record $rec"
			else
				# broken before the first record (one zstd frame, one bzip2 block): nothing went
				[ "$got" -eq 0 ] || die "$c $how: $got frames arrived before an error at the start"
			fi
			[ "$how" != bad-file ] || [ "$got" -ge 1000 ] || [ "$c" = zst ] || [ "$c" = lz4 ] || [ "$c" = bz2 ] ||
				die "$c: a damaged check lost records before it: $got of 1002"
			if [ "$got" -gt 0 ]; then
				"$REPLAY" -q -w "$WORK/part.exp" -L "$got" "$SRC" || die "dry run of $got records failed"
				"$PCAPDIFF" "$WORK/part.exp" "$WORK/$how-$c.got" >"$WORK/d" ||
					die "$c $how: the frames that arrived are not the trace's first: $(cat "$WORK/d")"
			fi
			info "$c $how: $got frames, then: $(cat "$WORK/err")"
		done
	done
}

require_root
init_ns
setup_files
run_tests test_across_veth test_loops test_info test_broken
