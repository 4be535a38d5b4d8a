#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tcpreplay's, tcprewrite's, tcpedit's and tcpprep's command lines in replay:
# every option of theirs (anchor-options.txt, extracted from the 4.6 tools'
# --help) has a row in options.tsv, and each row is run -- the same meaning,
# a documented different one, or refused with its one-line hint and nothing
# written.  With the 4.6 binaries at hand, anchor-options.txt is checked
# against what they print now.  They are found through $ANCHOR_BIN only (the
# directory holding tcpreplay, tcprewrite, tcpreplay-edit and tcpprep 4.6);
# unset, that check is skipped with a note.
set -euo pipefail
: "${REPLAY:?}" "${TRACES:?}"
here=$(cd "$(dirname "$0")" && pwd)
table=$here/options.tsv list=$here/anchor-options.txt
ANCHOR_BIN=${ANCHOR_BIN:-}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

# The spellings one tool's --help lists: "-x" and "--name", one a line.
spellings() {
	"$1" --help 2>&1 | sed -nE 's/^ +(-(.), )?--([a-z0-9-]+).*/\2 \3/p' |
		while read -r a b; do
			if [ -n "$b" ]; then printf -- '-%s\n--%s\n' "$a" "$b"; else printf -- '--%s\n' "$a"; fi
		done
}

if [ -n "$ANCHOR_BIN" ] && [ -x "$ANCHOR_BIN/tcpreplay" ] && "$ANCHOR_BIN/tcpreplay" --version >/dev/null 2>&1; then
	for tool in tcpreplay tcprewrite tcpreplay-edit tcpprep; do
		spellings "$ANCHOR_BIN/$tool" | sed "s/^/$tool\t/"
	done | sort -u >"$WORK/live"
	sort -u "$list" | diff -u - "$WORK/live" >&2 ||
		die "anchor-options.txt differs from the 4.6 tools' --help (regenerate it)"
	echo "anchor-options.txt matches the 4.6 tools' --help"
else
	echo "note: no tcpreplay 4.6 in \$ANCHOR_BIN ('$ANCHOR_BIN'): anchor-options.txt not checked against its --help"
fi

# Every option of every tool has a row naming that tool.
n=0
while IFS=$'\t' read -r tool sp; do
	awk -F'\t' -v t="$tool" -v s="$sp" '!/^#/ && $2 == s && index("," $1 ",", "," t ",") { f = 1 } END { exit !f }' \
		"$table" || die "$tool $sp has no row in options.tsv"
	n=$((n + 1))
done <"$list"
[ "$n" -gt 150 ] || die "only $n options listed"

# Each row, run.
rows=0
while IFS=$'\t' read -r tools sp fate args want rx; do
	case "$tools" in '#'*|'') continue ;; esac
	case "$fate" in same|differs|hint) ;; *) die "$sp: unknown fate '$fate'" ;; esac
	[ "$fate" != hint ] || [ "$want" = 2 ] || die "$sp: a refusal exits 2"
	out=$WORK/out.$rows
	args=${args//@T@/$TRACES/dns.pcap}
	args=${args//@O@/$out}
	# @C@: a tcpprep 4.6 cache (-a server) of dns.pcap, checked in with its golden row.
	args=${args//@C@/$here/../golden/expected/dns-endpoints-server.cache}
	# @F@: the --fragroute rules files of t_fragroute.sh.
	args=${args//@F@/$here/frag}
	rc=0
	# shellcheck disable=SC2086 # the row's arguments are words
	(cd "$WORK" && "$REPLAY" $args) >"$WORK/stdout" 2>"$WORK/stderr" || rc=$?
	[ "$rc" = "$want" ] || die "$tools $sp: 'replay $args' exited $rc, not $want: $(head -c 300 "$WORK/stderr")"
	if [ -n "$rx" ]; then
		grep -qE -- "$rx" "$WORK/stderr" || die "$tools $sp: 'replay $args': stderr lacks /$rx/: $(cat "$WORK/stderr")"
		[ "$(grep -c '^replay: ' "$WORK/stderr")" -le 1 ] || die "$sp: more than one line: $(cat "$WORK/stderr")"
	fi
	if [ "$want" != 0 ]; then
		# Refused: nothing written, neither the output nor a file named after an argument.
		[ ! -e "$out" ] || die "$sp: refused, but $out was written"
		[ -z "$(ls -A "$WORK" | grep -v '^std\(out\|err\)$\|^live$')" ] ||
			die "$sp: refused, but wrote $(ls -A "$WORK")"
	fi
	rm -f "$out"
	rows=$((rows + 1))
done <"$table"
echo "PASS: $n options covered, $rows rows run"
