// SPDX-License-Identifier: BSD-2-Clause
/*
 * The spellings other tools give a meaning replay does not (opts_int.h):
 * each refused with a one-line hint naming the other tool's meaning and
 * replay's spelling, so that a pasted command line never runs with an
 * option dropped or misread.  tests/compat/options.tsv runs every one.
 */
#include <stddef.h>

#include "opts_int.h"

/*
 * Spellings tcpreplay 4.6, tcprewrite and tcpedit give a meaning replay
 * does not have (tests/compat/options.tsv runs every one, and every option
 * of theirs replay accepts).  Each hint names the other tool's meaning and
 * what to write here instead.  Refused spellings are refused whole: a
 * pasted command line never runs with one of its options dropped.
 */
#define NOT_YET "not in replay yet (see replay(1), DIFFERENCES)"
static const struct opt_hint tool_hints[] = {
	/* short letters */
	{ '!', "more-help", "tcpreplay's -!/--more-help pages the help: replay --help | less", true },
	/* long names only (the letters are replay's, or the tools have none) */
	{ 0, "netmap", "tcpreplay's netmap injector; replay has no netmap: --xdp (AF_XDP, --method xdp) is its "
		       "kernel-bypass path", true },
	{ 0, "no-load-opts", "tcpreplay's --no-load-opts: replay reads no config file", true },
	{ 0, "infile", "tcprewrite's -i/--infile: name the trace as an operand (replay -w OUT IN)", true },
	{ 0, "outfile", "tcprewrite's -o/--outfile is -w/--write here (replay -w OUT IN)", true },
	/* letters replay keeps with its own meaning: said when their argument looks wrong */
	{ 'w', NULL, "tcprewrite's and tcpprep's -w (suppress warnings) is -W here", false },
	{ 'i', NULL, "tcprewrite's -i IN is the trace operand here: replay -w OUT IN", false },
	{ 'o', NULL, "-o names replay prep's output; tcprewrite's -o OUT is -w OUT, tcpreplay's -o "
		     "is --oneatatime", false },
	{ 0, NULL, NULL, false },
};

/*
 * In 'replay prep': tcpprep's letters.  replay prep writes an edit sidecar,
 * not a tcpprep client/server cache, so tcpprep's split modes have no
 * meaning; the letters replay's edit options share with them are refused
 * there (spell the edit option in full), so that a pasted tcpprep command
 * line ("-a client -M 24") is never taken as replay's (--mbps 24).
 */
#define PREP_SPLIT "replay prep makes an edit sidecar, not a tcpprep cache: it splits no traffic"
static const struct opt_hint prep_hints[] = {
	{ 'a', "auto", "tcpprep's -a/--auto; " PREP_SPLIT, true },
	{ 'c', "cidr", "tcpprep's -c/--cidr; " PREP_SPLIT, true },
	{ 'r', "regex", "tcpprep's -r/--regex; " PREP_SPLIT " (--portmap is replay's -r)", true },
	{ 'p', "port", "tcpprep's -p/--port; " PREP_SPLIT, true },
	{ 'e', "mac", "tcpprep's -e/--mac; " PREP_SPLIT, true },
	{ 0, "reverse", "tcpprep's --reverse; " PREP_SPLIT, true },
	{ 'C', "comment", "tcpprep's -C/--comment; replay prep embeds no comment (--fixcsum is replay's -C)",
	  true },
	{ 0, "no-arg-comment", "tcpprep's --no-arg-comment; replay prep embeds no comment", true },
	{ 'x', NULL, "tcpprep's -x/--include (a split rule); " PREP_SPLIT " (--include P:LIST selects packets)",
	  true },
	{ 'X', NULL, "tcpprep's -X/--exclude (a split rule); " PREP_SPLIT " (--exclude P:LIST drops packets)",
	  true },
	{ 0, "cachefile", "tcpprep's -o/--cachefile is -o/--output here (an edit sidecar, not a cache)", true },
	{ 'i', "pcap", "tcpprep's -i/--pcap: name the trace as an operand (replay prep TRACE -o OUT)", true },
	{ 'P', "print-comment", "tcpprep's -P/--print-comment; replay prep embeds no comment", true },
	{ 'I', "print-info", "tcpprep's -I/--print-info; " PREP_SPLIT, true },
	{ 'S', "print-stats", "tcpprep's -S/--print-stats; " PREP_SPLIT " (--srcipmap is replay's -S)", true },
	{ 's', "services", "tcpprep's -s/--services; " PREP_SPLIT " (--seed is replay's -s)", true },
	{ 'N', "nonip", "tcpprep's -N/--nonip; " PREP_SPLIT " (--pnat is replay's -N)", true },
	{ 'R', "ratio", "tcpprep's -R/--ratio; " PREP_SPLIT, true },
	{ 'm', "minmask", "tcpprep's -m/--minmask; " PREP_SPLIT " (--mtu is replay's -m)", true },
	{ 'M', "maxmask", "tcpprep's -M/--maxmask; " PREP_SPLIT, true },
	{ 'w', NULL, "tcpprep's -w (suppress warnings) is -W here", true },
	{ 'v', "verbose", "tcpprep's -v/--verbose prints each packet decoded by tcpdump; replay prep sends nothing: "
			  "replay -v -w /dev/null TRACE decodes it (--debug says more)", true },
	{ 'A', "decode", "tcpprep's -A/--decode passes arguments to tcpdump for -v; replay prep decodes nothing: "
			 "replay -v -A ARGS -w /dev/null TRACE", true },
	{ 0, NULL, NULL, false },
};

const struct opt_hint *const opts_main_hints[] = { tool_hints, NULL };
const struct opt_hint *const opts_prep_hints[] = { prep_hints, tool_hints, NULL };
