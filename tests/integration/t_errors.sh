#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Bad input gets one clear line naming what and where, a non-zero exit, and
# nothing half-done: no output file, no frame on the wire.
. "$(dirname "$0")/lib.sh"
: "${GENTRACE:?}" "${PCAPDIFF:?}" "${REFORMAT:?}"

bad() { "$GENTRACE" malformed "$1" -o "$WORK/$1.pcap" >/dev/null; echo "$WORK/$1.pcap"; }

test_usage() {
	expect_fail 2 "^replay: no output: give an interface" "$REPLAY" "$TRACES/dns.pcap"
	expect_fail 2 "^replay: no trace file given" "$REPLAY" -w "$WORK/o.pcap"
	expect_fail 2 "^replay: unknown option '--bogus'" "$REPLAY" --bogus -w x "$TRACES/dns.pcap"
	expect_fail 2 "^replay: --loop: 'x' is not a non-negative integer" \
		"$REPLAY" --loop x -w "$WORK/o.pcap" "$TRACES/dns.pcap"
	# Through a file: grep -q would close a pipe early, and the rest of --help
	# (over 4 KiB, more than stdio buffers at once) would die of SIGPIPE under pipefail.
	"$REPLAY" --help >"$WORK/help" || die "--help exited $?"
	grep -q -- "--topspeed" "$WORK/help" || die "--help lacks --topspeed"
	"$REPLAY" --version | grep -qE "^replay [0-9]" || die "--version"
	# Numbers start with a digit: white space and a sign never make 2^64 - 1 of "-1".
	expect_fail 2 "^replay: --loop: '.-1' is not a non-negative integer" \
		"$REPLAY" --loop "$(printf '\t-1')" -w "$WORK/o.pcap" "$TRACES/dns.pcap"
	expect_fail 2 "^replay-rx: --count: '.-1' is not a non-negative integer" \
		"$REPLAY_RX" -r "$TRACES/dns.pcap" --count "$(printf '\t-1')"
	expect_fail 2 "^replay-rx: --timeout: 1e300 is out of range \(at most 31536000\)$" \
		"$REPLAY_RX" -i lo --timeout 1e300
	# An unknown method is a usage error naming the choices.
	expect_fail 2 "^replay: --method: 'pigeon' is not one of auto, packet" \
		"$REPLAY" --method pigeon -w "$WORK/o.pcap" "$TRACES/dns.pcap"
	# A dry run waits for no deadline: --cpu and --rt-priority say they do nothing, and it runs.
	"$REPLAY" --cpu 0 --rt-priority 5 -w "$WORK/o.pcap" "$TRACES/dns.pcap" >/dev/null 2>"$WORK/err" ||
		die "-w with --cpu failed: $(cat "$WORK/err")"
	grep -q "^replay: warning: --rt-priority does nothing with -w" "$WORK/err" ||
		die "no warning for --rt-priority with -w: $(cat "$WORK/err")"
	grep -q "^replay: warning: --cpu does nothing with -w" "$WORK/err" ||
		die "no warning for --cpu with -w: $(cat "$WORK/err")"
}

test_input_errors() {
	local o="$WORK/o.pcap"
	expect_fail 1 "^replay: $WORK/none.pcap: cannot open: No such file or directory$" \
		"$REPLAY" -w "$o" "$WORK/none.pcap"
	# A directory plays the captures in it; one with none is refused, named.
	mkdir -p "$WORK/nocaps"
	expect_fail 2 "^replay: $WORK/nocaps: no capture files in the directory" "$REPLAY" -w "$o" "$WORK/nocaps"
	expect_fail 1 "empty.pcap: empty file, not a trace$" "$REPLAY" -w "$o" "$(bad empty)"
	expect_fail 1 "not-trace.pcap: not a trace file \(unknown magic" "$REPLAY" -w "$o" "$(bad not-trace)"
	expect_fail 1 "bad-magic.pcap: not a trace file \(unknown magic" "$REPLAY" -w "$o" "$(bad bad-magic)"
	expect_fail 1 "short-header.pcap: truncated pcap file header \(10 of 24 bytes\)$" \
		"$REPLAY" -w "$o" "$(bad short-header)"
	expect_fail 1 "bad-version.pcap: unsupported pcap version 3\." "$REPLAY" -w "$o" "$(bad bad-version)"
	expect_fail 1 "wifi.pcap: interface 0: link type 105 \(IEEE802_11\) cannot be replayed" \
		"$REPLAY" -w "$o" "$WORK/wifi.pcap"
	expect_fail 1 "^replay: -: cannot loop over a pipe; add --preload" \
		sh -c "cat '$TRACES/dns.pcap' | '$REPLAY' --loop 2 -w '$o' -"
	expect_fail 1 "big.pcap: --preload needs 1048576.0 MiB but only [0-9.]+ MiB of memory is available" \
		"$REPLAY" -K -w "$o" "$WORK/big.pcap"
	expect_fail 1 "bad-trailer.pcapng: offset 0x1c: Interface Description Block: trailing length 24 does not match the leading 20$" \
		"$REPLAY" -w "$o" "$WORK/bad-trailer.pcapng"
	expect_fail 1 "no-if.pcapng: record 1 at offset 0x30: interface 5 does not exist \(the section declares 1\)$" \
		"$REPLAY" -w "$o" "$WORK/no-if.pcapng"
	expect_fail 1 "zero.erf: record 2 at offset $(printf 0x%x "$ERF_REC2"): record length 0 is shorter than the 16-byte header$" \
		"$REPLAY" -w "$o" "$WORK/zero.erf"
	expect_fail 1 "absurd-caplen.pcap: record [0-9]+ at offset 0x[0-9a-f]+: captured length 300000 is absurd" \
		"$REPLAY" -w "$o" "$(bad absurd-caplen)"
	[ "$(wc -l <"$WORK/err")" -eq 1 ] || die "more than one line for one error: $(cat "$WORK/err")"
	# Unreadable: drop root for this one (root reads anything).
	cp "$TRACES/dns.pcap" "$WORK/secret.pcap"
	chmod 000 "$WORK/secret.pcap"
	chmod 755 "$WORK"
	expect_fail 1 "secret.pcap: cannot open: Permission denied$" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$REPLAY" -w /dev/null "$WORK/secret.pcap"
}

# Broken files of the newer formats, made by cutting and patching good ones.
make_bad_inputs() {
	"$REFORMAT" "$TRACES/dns.pcap" "$WORK/good.pcapng" ng-usec
	"$REFORMAT" "$TRACES/dns.pcap" "$WORK/good.erf" erf
	cp "$WORK/good.pcapng" "$WORK/bad-trailer.pcapng"
	printf '\x18' | dd of="$WORK/bad-trailer.pcapng" bs=1 seek=$((28 + 20 - 4)) conv=notrunc status=none
	cp "$WORK/good.pcapng" "$WORK/no-if.pcapng"
	printf '\x05' | dd of="$WORK/no-if.pcapng" bs=1 seek=$((28 + 20 + 8)) conv=notrunc status=none
	# the second record starts at the first one's rlen (big-endian, bytes 10-11)
	ERF_REC2=$(od -An -tu1 -j10 -N2 "$WORK/good.erf" | awk '{ print $1 * 256 + $2 }')
	cp "$WORK/good.erf" "$WORK/zero.erf"
	printf '\0\0' | dd of="$WORK/zero.erf" bs=1 seek=$((ERF_REC2 + 10)) conv=notrunc status=none
	# 802.11: a link type with no Ethernet form
	printf '\xd4\xc3\xb2\xa1\x02\0\x04\0\0\0\0\0\0\0\0\0\xff\xff\0\0\x69\0\0\0' >"$WORK/wifi.pcap"
	# a sparse terabyte with a pcap header: more than any machine has free
	head -c 24 "$TRACES/dns.pcap" >"$WORK/big.pcap"
	truncate -s 1T "$WORK/big.pcap"
}

test_pcapng_replays() {
	local o="$WORK/ng-out.pcap"
	# gentrace's minimal pcapng (SHB, IDB, one EPB) was refused before pcapng was read; now
	# it must replay its one frame: gentrace udp's first 100-byte frame, at the same time.
	"$GENTRACE" udp --count 1 --size 100 -o "$WORK/one.pcap" >/dev/null
	"$REPLAY" -q -w "$o" --stats-json "$WORK/ng.json" "$(bad pcapng)" ||
		die "the minimal pcapng did not replay"
	[ "$(json_get "$WORK/ng.json" packets_sent)" = 1 ] || die "the pcapng's frame was not sent"
	"$PCAPDIFF" --ts "$WORK/one.pcap" "$WORK/pcapng.pcap" >/dev/null ||
		die "the pcapng's frame or timestamp differs from gentrace udp's"
	"$PCAPDIFF" "$WORK/one.pcap" "$o" >/dev/null || die "-w wrote another frame than the pcapng holds"
}

test_warnings_are_not_errors() {
	local o="$WORK/o.pcap"
	"$REPLAY" -w "$o" "$(bad caplen-over-snaplen)" >/dev/null 2>"$WORK/err" ||
		die "caplen over snaplen must only warn: $(cat "$WORK/err")"
	grep -q "^replay: warning: .*record 1 at offset 0x18: captured length 100 exceeds the snap length 64" \
		"$WORK/err" || die "no warning: $(cat "$WORK/err")"
	"$REPLAY" -w "$o" "$(bad caplen-over-wirelen)" >/dev/null 2>"$WORK/err" || die "caplen over wirelen"
	grep -q "^replay: warning: .*exceeds the wire length" "$WORK/err" || die "no warning: $(cat "$WORK/err")"
	for k in truncated-record truncated-rechdr; do
		"$REPLAY" -w "$o" --stats-json "$WORK/s.json" "$(bad $k)" >/dev/null 2>"$WORK/err" ||
			die "$k: a capture cut short must stop cleanly: $(cat "$WORK/err")"
		grep -q "^replay: warning: .*record 2 at offset .*truncated record.*stopping here" "$WORK/err" ||
			die "$k: no warning: $(cat "$WORK/err")"
		[ "$(json_get "$WORK/s.json" packets_sent)" = 1 ] || die "$k: the good record was not sent"
	done
}

test_nothing_half_done() {
	local o="$WORK/half.pcap" tx0
	rm -f "$o"
	# The second file is bad: nothing is written, not even the first file's frames.
	expect_fail 1 "empty.pcap: empty file" "$REPLAY" -w "$o" "$TRACES/dns.pcap" "$(bad empty)"
	[ ! -e "$o" ] || die "a failed dry run left $o behind"
	ls "$WORK" | grep -q "half.pcap.tmp" && die "a failed dry run left a temporary file"
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	expect_fail 1 "empty.pcap: empty file" in_a "$REPLAY" -i "$IF_A" "$TRACES/dns.pcap" "$(bad empty)"
	[ "$(ifstat "$NS_A" "$IF_A" tx_packets)" -eq "$tx0" ] || die "frames left before the bad file was noticed"
	expect_fail 1 "^replay: /nonexistent/s.json: cannot write statistics" \
		in_a "$REPLAY" -i "$IF_A" --stats-json /nonexistent/s.json "$TRACES/dns.pcap"
	[ "$(ifstat "$NS_A" "$IF_A" tx_packets)" -eq "$tx0" ] || die "frames left before the stats file was checked"
}

test_interface_errors() {
	expect_fail 1 "^replay: nosuch0: no such interface$" in_a "$REPLAY" -i nosuch0 "$TRACES/dns.pcap"
	ip -n "$NS_A" link add name down0 type veth peer name down1
	expect_fail 1 "^replay: down0: interface is down \(ip link set down0 up\)$" \
		in_a "$REPLAY" -i down0 "$TRACES/dns.pcap"
	ip -n "$NS_A" link set down0 up
	expect_fail 1 "^replay: down0: interface is up but has no carrier" in_a "$REPLAY" -i down0 "$TRACES/dns.pcap"
	ip -n "$NS_A" link del down0
	# Without the capability: refused before anything is opened, naming it and the setcap command.
	expect_fail 1 "^replay: sending on $IF_A needs cap_net_raw, which this process does not have: run as root, or grant it once \(as root\): setcap cap_net_raw=ep $REPLAY$" \
		in_a setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$REPLAY" -i "$IF_A" "$TRACES/dns.pcap"
}

test_frame_errors_counted() {
	local js="$WORK/j.json" tx0
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	expect_fail 1 "jumbo.pcap: record 1 at offset 0x18: frame of 9000 bytes exceeds $IF_A's MTU 1500" \
		in_a "$REPLAY" -i "$IF_A" --stats-json "$js" "$(bad jumbo)" "$TRACES/dns.pcap"
	check_invariant "$js"
	[ "$(json_get "$js" packets_failed)" = 1 ] || die "the jumbo frame was not counted as failed"
	[ "$(ifstat "$NS_A" "$IF_A" tx_packets)" -eq $((tx0 + $(json_get "$js" packets_sent))) ] ||
		die "TX counter disagrees"
	expect_fail 1 "runt.pcap: record 1 at offset 0x18: frame of 10 bytes is shorter than an Ethernet header" \
		in_a "$REPLAY" -i "$IF_A" --stats-json "$js" "$(bad runt)"
	[ "$(json_get "$js" packets_failed)" = 1 ] || die "the runt was not counted as failed"
	# With a larger MTU the jumbo frame goes out whole.
	ip -n "$NS_A" link set dev "$IF_A" mtu 9000
	ip -n "$NS_B" link set dev "$IF_B" mtu 9000
	in_a "$REPLAY" -q -i "$IF_A" "$(bad jumbo)" || die "jumbo frame with MTU 9000"
	ip -n "$NS_A" link set dev "$IF_A" mtu 1500
	ip -n "$NS_B" link set dev "$IF_B" mtu 1500
}

require_root
init_ns
make_bad_inputs
# tcpreplay's and tcprewrite's command lines: nothing silently misread.
test_tool_command_lines() {
	local d="$WORK/cl" dns="$TRACES/dns.pcap"
	mkdir -p "$d"
	# --stats 1 is tcpreplay's (periodic lines), never an abbreviation of --stats-json: no JSON file named 1.
	(cd "$d" && "$REPLAY" --stats 1 -w o.pcap "$dns" >"$WORK/stats.out") || die "--stats 1 -w failed"
	[ ! -e "$d/1" ] || die "--stats 1 wrote a file named 1"
	grep -q "^Actual: 8 packets" "$WORK/stats.out" || die "--stats 1: no summary: $(cat "$WORK/stats.out")"
	rm -f "$d/o.pcap"
	# Prefix abbreviations are refused.
	(cd "$d" && expect_fail 2 "^replay: unknown option '--stats-js' \(long options are spelled in full, not abbreviated: --stats-json\?\)" \
		"$REPLAY" --stats-js 1 -w o.pcap "$dns")
	# tcprewrite's -w -q: no file named -q.
	(cd "$d" && expect_fail 2 "^replay: -w takes FILE, but '-q' looks like an option .*-W here$" \
		"$REPLAY" -w -q "$dns")
	# tcpprep's -M 24 in replay prep is its maximum mask, never --mbps.
	(cd "$d" && expect_fail 2 "^replay: -M is not supported: tcpprep's -M/--maxmask" \
		"$REPLAY" prep "$dns" -o p.prep -M 24)
	# -I is tcpreplay's second interface: the same one twice is refused before anything opens.
	(cd "$d" && expect_fail 2 "^replay: -i and -I both name lo: two-interface replay needs two interfaces" \
		"$REPLAY" -i lo -I lo "$dns")
	[ -z "$(ls -A "$d")" ] || die "refused command lines wrote $(ls -A "$d")"
	# -P prints tcpreplay's PID line first; --listnics lists lo; -W silences warnings only.
	"$REPLAY" -P -w "$WORK/o.pcap" "$dns" >"$WORK/out" || die "-P failed"
	head -n1 "$WORK/out" | grep -qE '^PID: [0-9]+$' || die "-P: $(head -n1 "$WORK/out")"
	"$REPLAY" --listnics | grep -qE $'^[0-9]+\tlo$' || die "--listnics lacks lo"
	"$REPLAY" -W --cpu 0 -w "$WORK/o.pcap" "$dns" >"$WORK/out" 2>"$WORK/err" || die "-W failed"
	[ ! -s "$WORK/err" ] || die "-W printed: $(cat "$WORK/err")"
	grep -q . "$WORK/out" || die "-W silenced the summary"
}

# --loopdelay-*, --maxsleep, --duration on a dry run: the written timestamps are the schedule.
test_loop_timing_options() {
	local o="$WORK/t.pcap" dns="$TRACES/dns.pcap"
	span() { "$REPLAY" --info "$o" | sed -nE 's/^duration: +([0-9.]+) s$/\1/p'; }
	count() { "$REPLAY" --info "$o" | sed -nE 's/^packets: +([0-9]+)$/\1/p'; }
	# dns.pcap spans 732 us: three passes and two 500 ms delays.
	"$REPLAY" -q -w "$o" --loop 3 --loopdelay-ms 500 "$dns" || die "--loopdelay-ms failed"
	[ "$(span)" = 1.002196000 ] || die "--loopdelay-ms 500: span $(span)"
	"$REPLAY" -q -w "$o" --loop 3 --loopdelay-ns 1000 "$dns" || die "--loopdelay-ns failed"
	[ "$(span)" = 0.002198000 ] || die "--loopdelay-ns 1000: span $(span)"
	# 1000 times slower the gaps reach 0.73 s; --maxsleep 1 cuts each to 1 ms (7 gaps).
	"$REPLAY" -q -w "$o" -x 0.001 "$dns" || die "-x 0.001 failed"
	[ "$(span)" = 0.732000000 ] || die "-x 0.001: span $(span)"
	"$REPLAY" -q -w "$o" -x 0.001 --maxsleep 1 "$dns" || die "--maxsleep failed"
	[ "$(span)" = 0.007000000 ] || die "--maxsleep 1: span $(span)"
	# udp-1ms.pcap: 1000 packets 1 ms apart; looped forever, --duration 1 keeps those due before 1 s.
	"$REPLAY" -q -w "$o" --loop 0 --duration 1 "$TRACES/udp-1ms.pcap" || die "--duration failed"
	[ "$(count)" = 1001 ] && [ "$(span)" = 0.999000000 ] || die "--duration 1: $(count) packets over $(span) s"
}

# --stats-json's "passes": one object per loop pass, on a dry run.
test_loop_passes_json() {
	local o="$WORK/t.pcap" js="$WORK/passes.json" dns="$TRACES/dns.pcap"
	jq1() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$js" "$1"; }
	# dns.pcap: 8 records; 2 of each pass excluded.
	"$REPLAY" -q -w "$o" --loop 3 --exclude P:2-3 --stats-json "$js" "$dns" || die "--loop 3 failed"
	[ "$(check_passes "$js" 3)" = "8 8 8" ] || die "--loop 3: passes read $(check_passes "$js" 3)"
	[ "$(jq1 '[p["packets_filtered"] for p in j["passes"]]')" = "[2, 2, 2]" ] || die "--loop 3: filtered per pass wrong"
	# Sent in a pass, with what it left in flight (staged) and found so: its 6 (when a staged packet is kicked varies).
	[ "$(jq1 '[p["packets_sent"] + p["in_flight_after"] - p["in_flight_before"] for p in j["passes"]]')" = "[6, 6, 6]" ] ||
		die "--loop 3: sent per pass wrong"
	# The flow table lives across passes, as tcpreplay's: the flows are new in the first pass only.
	[ "$(jq1 '[p["flows"]["flows"] for p in j["passes"]]')" = "[$(jq1 'j["flows"]["flows"]'), 0, 0]" ] ||
		die "--loop 3: flows per pass $(jq1 '[p["flows"]["flows"] for p in j["passes"]]')"
	# One pass: one object, the run's.
	"$REPLAY" -q -w "$o" --stats-json "$js" "$dns" || die "one pass failed"
	[ "$(check_passes "$js" 1)" = 8 ] || die "one pass: passes wrong"
	# --loop 0 ended by --duration: the last pass is cut short (udp-1ms.pcap: 1000 records 1 ms apart).
	"$REPLAY" -q -w "$o" --loop 0 --duration 1 --stats-json "$js" "$TRACES/udp-1ms.pcap" || die "--duration failed"
	[ "$(check_passes "$js" 2)" = "1000 1" ] || die "--duration 1: passes read $(check_passes "$js" 2)"
	# Impairment: dns.pcap's last record delayed 5 ms outlasts the next two passes (0.73 ms each):
	# in flight at the end of passes 1 and 2, sent in pass 3.
	printf 'pass\npass\npass\npass\npass\npass\npass\ndelay 5ms\n' >"$WORK/d.txt"
	"$REPLAY" -q -w "$o" --loop 3 --impair "$WORK/d.txt" --stats-json "$js" "$dns" || die "impaired --loop 3 failed"
	[ "$(check_passes "$js" 3)" = "8 8 8" ] || die "impaired --loop 3: passes wrong"
	[ "$(jq1 '[p["in_flight_after"] >= 1 for p in j["passes"]]')" = "[True, True, False]" ] ||
		die "impaired --loop 3: in flight $(jq1 '[p["in_flight_after"] for p in j["passes"]]')"
	[ "$(jq1 '[p["packets_sent"] + p["in_flight_after"] - p["in_flight_before"] for p in j["passes"]]')" = "[8, 8, 8]" ] ||
		die "impaired --loop 3: sent $(jq1 '[p["packets_sent"] for p in j["passes"]]')"
}

run_tests test_usage test_tool_command_lines test_loop_timing_options test_loop_passes_json test_pcapng_replays test_input_errors test_warnings_are_not_errors test_nothing_half_done \
	test_interface_errors test_frame_errors_counted
