#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The edit chain on a real wire: edited traces replayed across a veth pair
# arrive on the far side exactly as -w writes them for the same options, every
# packet accounted for (read = sent + filtered + failed); padded frames arrive
# at full length (--pad-payload, --pktlen); the prep sidecar changes nothing on the wire; bad edit input
# gets one clear line and the right exit status.
. "$(dirname "$0")/lib.sh"
: "${PCAPDIFF:?}"

# edit_and_compare NAME TRACE [OPTIONS...]: dry run, real run, far side == dry run.
edit_and_compare() {
	local name=$1 trace=$2
	shift 2
	local exp="$WORK/$name.expected.pcap" got="$WORK/$name.got.pcap" js="$WORK/$name.json"
	local tx0 sent

	"$REPLAY" -q -w "$exp" "$@" "$trace" || die "$name: dry run failed"
	tx0=$(ifstat "$NS_A" "$IF_A" tx_packets)
	capture_start "$got" "$exp"
	in_a "$REPLAY" -q -i "$IF_A" --topspeed --stats-json "$js" "$@" "$trace" ||
		die "$name: replay exited $?"
	capture_stop
	check_invariant "$js"
	sent=$(json_get "$js" packets_sent)
	rx_exact "$sent"
	[ "$(json_get "$js" packets_failed)" = 0 ] || die "$name: packets failed"
	[ $(($(ifstat "$NS_A" "$IF_A" tx_packets) - tx0)) -eq "$sent" ] || die "$name: TX counter disagrees"
	"$PCAPDIFF" "$exp" "$got" >"$WORK/diff" || die "$name: far side differs: $(cat "$WORK/diff")"
	info "$name: $(cat "$WORK/diff"), $sent sent, $(json_get "$js" packets_filtered) filtered"
}

test_rewrites_on_the_wire() {
	edit_and_compare rewrite "$TRACES/http.pcap" --dmac 02:00:00:00:99:01 --smac 02:00:00:00:99:02 \
		--pnat 192.0.2.0/24:10.9.0.0/16 --portmap 8000:80 --ttl -3
	edit_and_compare vlan-add "$TRACES/mixed.pcap" --enet-vlan add --enet-vlan-tag 42 --enet-vlan-pri 5
	edit_and_compare vlan-del "$TRACES/vlan.pcap" --enet-vlan del --seed 9
}

test_selection_counts() {
	local n
	edit_and_compare filter "$TRACES/mixed.pcap" --filter 'tcp or icmp6'
	n=$(tcpdump -r "$TRACES/mixed.pcap" 'tcp or icmp6' 2>/dev/null | wc -l)
	[ "$(json_get "$WORK/filter.json" packets_sent)" = "$n" ] || die "filter: sent != tcpdump's $n"
	[ "$(json_get "$WORK/filter.json" packets_filtered)" = $((40 - n)) ] || die "filter: filtered count"
	edit_and_compare include "$TRACES/icmp-flood.pcap" --include P:1-100,900- --exclude P:50-59
	[ "$(json_get "$WORK/include.json" packets_sent)" = $((100 - 10 + 103)) ] || die "include: count"
}

test_padding_full_size() {
	# A 96-byte snap length capture of full-size frames goes out at full size.
	editcap -F pcap -s 96 "$TRACES/http.pcap" "$WORK/snap96.pcap"
	edit_and_compare pad "$WORK/snap96.pcap" --pad-payload
	"$REPLAY" prep -q "$WORK/snap96.pcap" -o "$WORK/snap96.prep" --pad-payload || die "prep failed"
	edit_and_compare pad-prep "$WORK/snap96.pcap" --pad-payload --prep "$WORK/snap96.prep"
	"$PCAPDIFF" "$WORK/pad.got.pcap" "$WORK/pad-prep.got.pcap" >/dev/null ||
		die "the sidecar changed what went on the wire"
	[ "$(tcpdump -r "$WORK/pad.got.pcap" 'len = 1514' 2>/dev/null | wc -l)" -gt 10 ] ||
		die "padded frames did not arrive at full size"
	# tcpreplay's --pktlen: the same frames at full size, the captured 96 bytes then zeros (as -w writes them).
	edit_and_compare pktlen "$WORK/snap96.pcap" --pktlen
	[ "$(tcpdump -r "$WORK/pktlen.got.pcap" 'len = 1514' 2>/dev/null | wc -l)" -gt 10 ] ||
		die "--pktlen frames did not arrive at full size"
	"$PCAPDIFF" --wirelen "$WORK/pktlen.expected.pcap" "$WORK/pktlen.got.pcap" >/dev/null ||
		die "--pktlen: the far side got other lengths than -w wrote"
}

test_edit_errors() {
	local o="$WORK/o.pcap" bad="$WORK/huge-wirelen.pcap"
	expect_fail 2 "^replay: --filter 'tcp prt 80': " "$REPLAY" -w "$o" --filter 'tcp prt 80' "$TRACES/dns.pcap"
	expect_fail 2 "^replay: --pnat: '10.0.0.0/8' is not a list of FROM:TO" \
		"$REPLAY" -w "$o" --pnat 10.0.0.0/8 "$TRACES/dns.pcap"
	expect_fail 2 "^replay: --enet-vlan add needs --enet-vlan-tag" \
		"$REPLAY" -w "$o" --enet-vlan add "$TRACES/dns.pcap"
	expect_fail 2 "^replay: --prep: a sidecar belongs to one trace" \
		"$REPLAY" -w "$o" --prep x "$TRACES/dns.pcap" "$TRACES/http.pcap"
	# A stale sidecar (its trace changed) and a foreign one are refused before sending.
	# Only touching the trace changes nothing: the sidecar is bound to its content, not its modification time.
	cp "$TRACES/dns.pcap" "$WORK/d.pcap"
	"$REPLAY" prep -q "$WORK/d.pcap" -o "$WORK/d.prep" --pad-payload
	touch -d '2001-01-01' "$WORK/d.pcap"
	"$REPLAY" -q -w "$o" --pad-payload --prep "$WORK/d.prep" "$WORK/d.pcap" ||
		die "a touched but unchanged trace lost its sidecar"
	rm -f "$o"
	printf '\x01' | dd of="$WORK/d.pcap" bs=1 seek=700 conv=notrunc status=none
	touch -d '2001-01-01' "$WORK/d.pcap"
	expect_fail 1 "^replay: $WORK/d.prep: stale or foreign sidecar" \
		"$REPLAY" -w "$o" --pad-payload --prep "$WORK/d.prep" "$WORK/d.pcap"
	[ ! -e "$o" ] || die "a refused run left output behind"
	expect_fail 1 "not a replay prep sidecar" \
		"$REPLAY" -w "$o" --pad-payload --prep "$TRACES/dns.pcap" "$WORK/d.pcap"
	# A packet an edit cannot handle is counted failed, named by record, and the rest go out.
	{
		printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\0\0\0\0\0\0\0\0\xff\xff\x00\x00\x01\x00\x00\x00'
		printf '\0\0\0\0\0\0\0\0\x3c\x00\x00\x00\xe0\x93\x04\x00' # caplen 60, wirelen 300000
		head -c 60 /dev/zero
		printf '\0\0\0\0\0\0\0\0\x3c\x00\x00\x00\x3c\x00\x00\x00' # a normal 60-byte record
		head -c 60 /dev/zero
	} >"$bad"
	expect_fail 1 "huge-wirelen.pcap: record 1 at offset 0x18: edit: wire length 300000 is too large to pad" \
		"$REPLAY" -w "$o" --pad-payload --stats-json "$WORK/bad.json" "$bad"
	[ "$(json_get "$WORK/bad.json" packets_failed)" = 1 ] || die "the failed packet was not counted"
	[ "$(json_get "$WORK/bad.json" packets_sent)" = 1 ] || die "the good packet was not sent"
	check_invariant "$WORK/bad.json"
}

require_root
init_ns
run_tests test_rewrites_on_the_wire test_selection_counts test_padding_full_size test_edit_errors
