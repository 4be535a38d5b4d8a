#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The readers end to end.  The same traffic as classic pcap (four encodings),
# pcapng (byte orders, if_tsresol, if_tsoffset, sections, skipped blocks,
# interfaces of mixed link types), ERF and other link types must give the
# same frames at the same times -- from the reader, in -w output and on the
# far side of a veth pair.  Pipes, --preload and --info work; malformed files
# end in a clean error or stop, never a crash; memory stays bounded by the
# window on a trace many windows long.
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}" "${PCAPDIFF:?}" "${REFORMAT:?}"

# same_traffic NAME FILE EXPECTED EXACT: the reader hands out EXPECTED's frames for FILE,
# and replay -w writes the same frames for both, at the same offsets from the start.
# EXACT=0: FILE holds only microseconds of EXPECTED's nanoseconds.
same_traffic() {
	local name=$1 f=$2 exp=$3 exact=$4
	local ts=--ts rel=--ts-rel
	[ "$exact" = 1 ] || { ts=--ts-us; rel=; }
	"$PCAPDIFF" $ts "$exp" "$f" >"$WORK/d" || die "$name: the reader's frames differ: $(cat "$WORK/d")"
	"$REPLAY" -q -w "$WORK/$name.w.pcap" "$f" || die "$name: replay -w failed"
	"$REPLAY" -q -w "$WORK/$name.e.pcap" "$exp" || die "$name: replay -w of the expectation failed"
	"$PCAPDIFF" $rel "$WORK/$name.e.pcap" "$WORK/$name.w.pcap" >"$WORK/d" ||
		die "$name: -w output differs: $(cat "$WORK/d")"
	info "$name: $(cat "$WORK/d")"
}

# variants SRC EXACT_US: SRC's traffic in every form; EXACT_US=1 if SRC is microseconds.
variants() {
	local src=$1 us=$2 base
	base=$(basename "$src" .pcap)
	for enc in "--usec --le" "--usec --be" "--nsec --le" "--nsec --be"; do
		local v="$WORK/$base.${enc// /}.pcap" exact=1
		"$GENTRACE" convert "$src" "$v" $enc >/dev/null
		[ "$us" = 1 ] || [ "${enc#--usec}" = "$enc" ] || exact=0
		same_traffic "$base-pcap${enc// /}" "$v" "$src" $exact
	done
	for fmt in ng-usec ng-nsec-be ng-bin32 ng-tsoffset ng-multi ng-mixedlink erf erf-fcs-pad erf-ip \
		pcap-sll pcap-sll2 pcap-raw pcap-ipv4 pcap-ipv6 pcap-null pcap-loop; do
		local exact=1
		[ "$us" = 1 ] || [ "$fmt" != ng-usec ] || exact=0
		"$REFORMAT" "$src" "$WORK/$base.$fmt" "$fmt" --expect "$WORK/$base.$fmt.exp" ||
			die "reformat $fmt failed"
		same_traffic "$base-$fmt" "$WORK/$base.$fmt" "$WORK/$base.$fmt.exp" $exact
	done
}

test_formats_identical() {
	variants "$TRACES/mixed.pcap" 1      # untagged mixed traffic, a truncated frame, us
	variants "$TRACES/icmp-flood.pcap" 0 # a real capture, ns
	# the raw-IP form of mixed.pcap holds all but its 4 frames without IP
	"$REPLAY" --info "$WORK/mixed.pcap-raw" | grep -q '^packets: *36$' ||
		die "pcap-raw lost more than mixed.pcap's 4 non-IP frames"
}

# Wireshark's own writers, for a second opinion on pcapng.
test_wireshark_pcapng() {
	local t
	command -v editcap >/dev/null || die "editcap is not installed (scripts/test.sh installs tshark)"
	for t in http icmp-flood vlan mixed; do
		editcap -F pcapng "$TRACES/$t.pcap" "$WORK/$t.ws.pcapng"
		same_traffic "$t-editcap" "$WORK/$t.ws.pcapng" "$TRACES/$t.pcap" 1
	done
	# Two link types in one file: an Ethernet capture merged with a raw-IP one.
	"$REFORMAT" "$TRACES/mixed.pcap" "$WORK/mx.raw" pcap-raw --expect "$WORK/mx.raw.exp"
	mergecap -F pcapng -w "$WORK/merged.pcapng" "$TRACES/dns.pcap" "$WORK/mx.raw"
	mergecap -F pcap -w "$WORK/merged.exp" "$TRACES/dns.pcap" "$WORK/mx.raw.exp"
	"$REPLAY" --info "$WORK/merged.pcapng" >"$WORK/info"
	grep -q "EN10MB (1)" "$WORK/info" && grep -q "RAW (101)" "$WORK/info" ||
		die "mergecap did not make a two-link-type pcapng: $(cat "$WORK/info")"
	# mergecap writes the expectation at microseconds, like dns.pcap
	same_traffic merged-linktypes "$WORK/merged.pcapng" "$WORK/merged.exp" 0
}

# replay_across NAME FILE: replay FILE over the veth; the far side sees exactly what -w writes.
replay_across() {
	local name=$1 f=$2 js="$WORK/$1.json" tx0
	"$REPLAY" -q -w "$WORK/$name.exp" "$f" || die "$name: dry run failed"
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	capture_start "$WORK/$name.got"
	in_a "$REPLAY" -q -i "$IF_A" --stats-json "$js" "$f" || die "$name: replay exited $?"
	capture_stop
	check_invariant "$js"
	[ "$(json_get "$js" packets_failed)" = 0 ] || die "$name: packets failed"
	[ $(($(ifstat "$NS_A" "$IF_A" tx_packets) - tx0)) -eq "$(json_get "$js" packets_sent)" ] ||
		die "$name: the interface's count differs from packets_sent"
	"$PCAPDIFF" "$WORK/$name.exp" "$WORK/$name.got" >"$WORK/d" ||
		die "$name: far side differs: $(cat "$WORK/d")"
	info "$name across veth: $(cat "$WORK/d")"
}

test_across_veth() {
	replay_across ng-multi "$WORK/mixed.ng-multi"
	replay_across ng-mixedlink "$WORK/icmp-flood.ng-mixedlink"
	replay_across erf-fcs-pad "$WORK/mixed.erf-fcs-pad"
	replay_across erf-ip "$WORK/icmp-flood.erf-ip"
}

test_pipes() {
	local f="$WORK/mixed.ng-multi"
	"$REPLAY" -q -w "$WORK/file.pcap" --loop 2 "$f" || die "replay of the file failed"
	# standard input, once; twice with -K
	cat "$f" | "$REPLAY" -q -w "$WORK/pipe1.pcap" - || die "replay from standard input failed"
	"$PCAPDIFF" --ts-rel "$WORK/mixed-ng-multi.w.pcap" "$WORK/pipe1.pcap" >/dev/null ||
		die "standard input gave other frames than the file"
	cat "$f" | "$REPLAY" -q -K --loop 2 -w "$WORK/pipe2.pcap" - || die "-K --loop 2 from a pipe failed"
	"$PCAPDIFF" --ts-rel "$WORK/file.pcap" "$WORK/pipe2.pcap" >/dev/null ||
		die "a preloaded pipe looped differently from the file"
	# a named pipe, written slowly
	mkfifo "$WORK/fifo"
	(for s in 0 1 2 3; do dd if="$f" bs=1000 skip=$((s * 3)) count=3 status=none; sleep 0.05; done
	 dd if="$f" bs=1000 skip=12 status=none) >"$WORK/fifo" &
	"$REPLAY" -q -w "$WORK/fifo.pcap" "$WORK/fifo" || die "replay from a FIFO failed"
	wait
	"$PCAPDIFF" --ts-rel "$WORK/mixed-ng-multi.w.pcap" "$WORK/fifo.pcap" >/dev/null ||
		die "the FIFO gave other frames than the file"
}

test_preload() {
	local f="$WORK/icmp-flood.erf-fcs-pad"
	"$REPLAY" -q -w "$WORK/a.pcap" --loop 3 "$f" || die "--loop 3 failed"
	"$REPLAY" -q -w "$WORK/b.pcap" --loop 3 -K "$f" || die "-K --loop 3 failed"
	"$PCAPDIFF" --ts-rel "$WORK/a.pcap" "$WORK/b.pcap" >"$WORK/d" || die "-K changed the replay: $(cat "$WORK/d")"
	grep -q "^3006 frames identical" "$WORK/d" || die "not three passes: $(cat "$WORK/d")"
}

info_has() {
	grep -qE -- "$2" "$1" || die "--info lacks /$2/: $(cat "$1")"
}

test_info() {
	local i="$WORK/info"
	"$REPLAY" --info "$WORK/mixed.ng-mixedlink" >"$i" || die "--info failed"
	info_has "$i" "^format: +pcapng \(pcapng 1\.0, 1 section\)$"
	info_has "$i" "^byte order: +little-endian$"
	info_has "$i" "^interfaces: +8$"
	for lt in "EN10MB \(1\)" "LINUX_SLL \(113\)" "LINUX_SLL2 \(276\)" "RAW \(101\)" "NULL \(0\)" \
		"LOOP \(108\)" "IPV4 \(228\)" "IPV6 \(229\)"; do
		info_has "$i" "^  [0-7] +$lt, snaplen 262144, timestamps 10\^-9 s \(ns\)"
	done
	info_has "$i" "^packets: +40$"
	info_has "$i" "^first: +2024-01-01 00:00:00\.000000000 UTC \(1704067200\.000000000\)$"
	info_has "$i" "^duration: +2\.954200000 s$"
	info_has "$i" "^truncated: +1 packets"
	info_has "$i" "^warnings: +0$"
	# the same trace as ERF, read from a pipe, and a pcapng in the other byte order
	"$REPLAY" --info - <"$WORK/mixed.erf" >"$i" || die "--info from a pipe failed"
	info_has "$i" "^format: +erf"
	info_has "$i" "^interfaces: +2$"
	info_has "$i" "^packets: +40$"
	info_has "$i" "^duration: +2\.954200000 s$"
	"$REPLAY" --info "$WORK/icmp-flood.ng-nsec-be" "$TRACES/dns.pcap" >"$i" || die "--info of two files failed"
	info_has "$i" "^byte order: +big-endian$"
	info_has "$i" "^packets: +1002$"
	info_has "$i" "^packets: +8$"
	# a broken file: what could be read, then the error, exit 1
	head -c 3000 "$WORK/mixed.ng-usec" >"$WORK/cut.pcapng"
	"$REPLAY" --info "$WORK/cut.pcapng" >"$i" 2>"$WORK/err" || die "--info of a cut file must succeed"
	info_has "$i" "^warnings: +1, the first: .*stopping here$"
	cp "$WORK/mixed.ng-usec" "$WORK/no-if.pcapng"
	printf '\x07' | dd of="$WORK/no-if.pcapng" bs=1 seek=$((28 + 20 + 8)) conv=notrunc status=none
	expect_fail 1 "no-if.pcapng: record 1 at offset 0x30: interface 7 does not exist" \
		"$REPLAY" --info "$WORK/no-if.pcapng"
	info_has "$WORK/out" "^packets: +0$"
	# an 18-hour jump and a step back: named, with the records, never silent
	python3 - "$WORK/jump.pcap" <<'PY'
import struct, sys
def rec(s, us):
    return struct.pack('<IIII', s, us, 60, 60) + bytes(60)
with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    f.write(rec(1000, 0) + rec(1000, 500) + rec(65800, 0) + rec(65799, 250000) + rec(65801, 0))
PY
	"$REPLAY" --info "$WORK/jump.pcap" >"$i" || die "--info of a jumping trace failed"
	info_has "$i" "^longest gap: +64799\.999500000 s, before record 3$"
	info_has "$i" "^time jumps: +1 gaps longer than 60 s, the first before record 3 "
	info_has "$i" "^out of order: +1 packets stamped earlier than the one before, the first record 4 \(0\.750000000 s back"
	# ... and a replay says so before it waits, once each; --maxsleep (which caps the wait) silences the jump.
	"$REPLAY" -w "$WORK/j.pcap" "$WORK/jump.pcap" >/dev/null 2>"$WORK/err" || die "replay of a jumping trace failed"
	grep -q "record 3 is stamped 64800 s after the one before: the schedule waits 64800 s" "$WORK/err" ||
		die "no warning of the jump: $(cat "$WORK/err")"
	grep -q "record 4 is stamped 0.750000 s before the one before" "$WORK/err" ||
		die "no warning of the step back: $(cat "$WORK/err")"
	"$REPLAY" -w "$WORK/j.pcap" --maxsleep 10 "$WORK/jump.pcap" >/dev/null 2>"$WORK/err" || die "--maxsleep run failed"
	! grep -q "after the one before" "$WORK/err" || die "--maxsleep: still warned of the jump: $(cat "$WORK/err")"
	"$REPLAY" --info "$TRACES/dns.pcap" >"$i" || die "--info failed"
	info_has "$i" "^longest gap: +0\.000342000 s, before record 4$"
	! grep -qE "^(time jumps|out of order):" "$i" || die "dns.pcap has neither jumps nor steps back: $(cat "$i")"
}

# A sample of broken files through the real program: cut anywhere, bytes changed anywhere.
test_malformed_files_fail_cleanly() {
	local seeds=("$TRACES/dns.pcap" "$WORK/mixed.ng-multi" "$WORK/mixed.erf-fcs-pad" "$WORK/mixed.ng-mixedlink")
	local s n=0 rc size
	RANDOM=3
	for s in "${seeds[@]}"; do
		size=$(stat -c %s "$s")
		for k in $(seq 0 49); do
			local m="$WORK/m.bin"
			if [ $((k % 2)) = 0 ]; then
				head -c $(((RANDOM * 32768 + RANDOM) % size)) "$s" >"$m"
			else
				cp "$s" "$m"
				for _ in 1 2 3; do
					printf "\\x$(printf %02x $((RANDOM % 256)))" |
						dd of="$m" bs=1 seek=$(((RANDOM * 32768 + RANDOM) % size)) conv=notrunc status=none
				done
			fi
			rc=0
			timeout 30 "$REPLAY" -q -w /dev/null --loop 2 "$m" 2>"$WORK/err" >/dev/null || rc=$?
			[ $rc -le 1 ] || { cp "$m" "$WORK/crash.bin"; die "$(basename "$s") mutation $k: exit $rc: $(cat "$WORK/err")"; }
			# one line per error; packets with no Ethernet form are each reported, up to 10
			[ "$(grep -vc '^replay: ' "$WORK/err")" = 0 ] && [ "$(wc -l <"$WORK/err")" -le 12 ] ||
				die "$(basename "$s") mutation $k: messy errors: $(cat "$WORK/err")"
			[ $rc = 0 ] || [ -s "$WORK/err" ] || die "$(basename "$s") mutation $k: failed silently"
			n=$((n + 1))
		done
	done
	info "$n broken files: clean errors or clean stops"
}

# Peak memory of a dry run over a trace 64 windows long stays near the window.
test_memory_bounded() {
	local big="$WORK/big.pcap" base peak held
	command -v /usr/bin/time >/dev/null || die "/usr/bin/time is not installed (scripts/deps.sh installs it)"
	"$GENTRACE" udp --count 65536 --size 1000 --gap-us 10 -o "$big" >/dev/null
	base=$(/usr/bin/time -f %M "$REPLAY" -q -w /dev/null --topspeed "$TRACES/dns.pcap" 2>&1 >/dev/null | tail -n1)
	peak=$(/usr/bin/time -f %M "$REPLAY" -q -w /dev/null --topspeed --window-size 1M "$big" 2>&1 >/dev/null | tail -n1)
	held=$(/usr/bin/time -f %M "$REPLAY" -q -w /dev/null --topspeed -K "$big" 2>&1 >/dev/null | tail -n1)
	info "peak RSS: $base KiB for an 8-packet trace, $peak KiB streaming a 67 MB trace with a 1 MiB window, $held KiB preloaded"
	[ "$peak" -le $((base + 2 * 1024 + 8192)) ] || die "streaming held $peak KiB (base $base KiB)"
	# the measurement sees a trace held in memory: the bound above is the window's doing
	[ "$held" -ge $((base + 60000)) ] || die "-K held only $held KiB"
}

require_root
init_ns
run_tests test_formats_identical test_wireshark_pcapng test_across_veth test_pipes test_preload \
	test_info test_malformed_files_fail_cleanly test_memory_bounded
