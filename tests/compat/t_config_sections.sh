#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Config files in tcpreplay 4.6's sections, read as its tools read them:
# sections/tools.cfg is what tcpreplay-edit, tcprewrite and tcpprep 4.6
# --save-opts wrote, each under its AutoOpts section header, below a line
# every tool reads.  replay reads [TCPREPLAY] (the options tcpreplay-edit
# took, sections/replay-role.cfg), replay -w reads [TCPREWRITE] (those
# tcprewrite took, sections/rewrite-role.cfg, and the bytes it wrote,
# sections/http-rewrite.pcap, frame for frame), replay prep reads [TCPPREP].  With
# $ANCHOR_BIN naming the 4.6 tools, they are checked to still read it so.
set -euo pipefail
: "${REPLAY:?}" "${TRACES:?}" "${PCAPDIFF:?}"
here=$(cd "$(dirname "$0")" && pwd)/sections
cfg=$here/tools.cfg
ANCHOR_BIN=${ANCHOR_BIN:-}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

# The options a config file sets, one a line, sorted: comments and -w's file left out.
options() { grep -v '^#' "$1" | grep -v '^write ' | sort; }

if [ -n "$ANCHOR_BIN" ] && [ -x "$ANCHOR_BIN/tcprewrite" ] && "$ANCHOR_BIN/tcprewrite" --version >/dev/null 2>&1; then
	"$ANCHOR_BIN/tcpreplay-edit" --load-opts="$cfg" --save-opts="$WORK/a-replay.cfg"
	"$ANCHOR_BIN/tcprewrite" --load-opts="$cfg" --save-opts="$WORK/a-rewrite.cfg"
	"$ANCHOR_BIN/tcprewrite" --load-opts="$cfg" -i "$TRACES/http.pcap" -o "$WORK/a.pcap"
	diff <(options "$WORK/a-replay.cfg") <(options "$here/replay-role.cfg") >&2 ||
		die "tcpreplay-edit 4.6 no longer reads tools.cfg as replay-role.cfg says"
	diff <(options "$WORK/a-rewrite.cfg") <(options "$here/rewrite-role.cfg") >&2 ||
		die "tcprewrite 4.6 no longer reads tools.cfg as rewrite-role.cfg says"
	cmp "$WORK/a.pcap" "$here/http-rewrite.pcap" || die "tcprewrite 4.6 no longer writes http-rewrite.pcap"
	echo "the 4.6 tools still read tools.cfg as checked in"
else
	echo "note: no tcpreplay 4.6 in \$ANCHOR_BIN ('$ANCHOR_BIN'): comparing with the checked-in outputs only"
fi

# replay: [TCPREPLAY] and the common line; [TCPREWRITE] and [TCPPREP] (whose
# lines replay refuses: tcpprep's auto, cachefile, pcap) skipped.
"$REPLAY" --load-opts "$cfg" --save-opts "$WORK/replay.cfg" || die "replay refused tools.cfg"
diff <(options "$WORK/replay.cfg") <(options "$here/replay-role.cfg") >&2 ||
	die "replay read other options from tools.cfg than tcpreplay-edit 4.6"

# replay -w: [TCPREWRITE] and the common line: tcprewrite's output, frame for frame.
"$REPLAY" -w "$WORK/out.pcap" --load-opts "$cfg" --save-opts "$WORK/rewrite.cfg" ||
	die "replay -w refused tools.cfg"
grep -q "^write = *$WORK/out.pcap\$" "$WORK/rewrite.cfg" || die "replay -w lost -w: $(cat "$WORK/rewrite.cfg")"
diff <(options "$WORK/rewrite.cfg") <(options "$here/rewrite-role.cfg") >&2 ||
	die "replay -w read other options from tools.cfg than tcprewrite 4.6"
"$REPLAY" -q -w "$WORK/out.pcap" --load-opts "$cfg" "$TRACES/http.pcap" >/dev/null ||
	die "replay -w --load-opts tools.cfg failed"
"$PCAPDIFF" --wirelen "$here/http-rewrite.pcap" "$WORK/out.pcap" >&2 ||
	die "replay -w wrote other frames than tcprewrite 4.6"

# replay prep: [TCPPREP], whose tcpprep split options replay prep refuses, by file and line.
rc=0
"$REPLAY" prep "$TRACES/http.pcap" -o "$WORK/http.side" --load-opts "$cfg" 2>"$WORK/err" || rc=$?
[ "$rc" = 2 ] || die "replay prep --load-opts tools.cfg exited $rc, not 2"
line=$(grep -n '^auto ' "$cfg" | cut -d: -f1)
grep -q "^replay: $cfg:$line: auto is not supported: tcpprep's -a/--auto" "$WORK/err" ||
	die "replay prep did not read [TCPPREP]: $(cat "$WORK/err")"
[ ! -e "$WORK/http.side" ] || die "replay prep wrote a sidecar after refusing"
echo "PASS: tools.cfg read by section as tcpreplay 4.6's tools read it"
