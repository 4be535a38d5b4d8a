// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay-rx's option table, parsed by the project's opts machinery
 * (src/opts.c).  To add an option: a field in struct rx_opts, a row here in
 * its group, a line in man/replay-rx.1's OPTIONS and in README.md (a unit
 * test checks all three).  Names follow tcpdump where tcpdump has the same
 * thing (-i, -r, -w, -s, -c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/pkt_id.h"
#include "rx.h"

#define F(field) offsetof(struct rx_opts, field)

enum rx_group {
	RX_GRP_CAPTURE,
	RX_GRP_STOP,
	RX_GRP_MATCH,
	RX_GRP_OUTPUT,
	RX_GRP_MISC,
	RX_GRP_MAX
};

static const struct opt_def table[] = {
	/* capture */
	{ "interface", 'i', OPT_T_STR, F(intf), 0, 0, 0, "IF", RX_GRP_CAPTURE,
	  "capture on interface IF (TPACKET_V3 ring; needs CAP_NET_RAW)" },
	{ "read", 'r', OPT_T_STR, F(read_path), 0, 0, 0, "FILE", RX_GRP_CAPTURE,
	  "analyse capture FILE (pcap, any format replay reads) instead" },
	{ "filter", 'f', OPT_T_STR, F(filter), 0, 0, 0, "EXPR", RX_GRP_CAPTURE,
	  "keep only frames matching libpcap EXPR, filtered in the kernel" },
	{ "snaplen", 's', OPT_T_U64, F(snaplen), 0, RX_SNAPLEN_MIN, RX_SNAPLEN_MAX, "BYTES",
	  RX_GRP_CAPTURE, "keep the first BYTES of each frame (default 128)" },
	{ "block-size", 0, OPT_T_U64, F(block_bytes), 0, 4096, 1u << 30, "BYTES", RX_GRP_CAPTURE,
	  "ring block size, a power of two (default 1 MiB)" },
	{ "blocks", 0, OPT_T_U64, F(blocks), 0, 1, 65536, "N", RX_GRP_CAPTURE,
	  "ring blocks (default 64)" },
	{ "block-timeout", 0, OPT_T_U64, F(block_ms), 0, 1, 60000, "MS", RX_GRP_CAPTURE,
	  "hand a partly filled block over after MS milliseconds (default 100)" },
	{ "hw-timestamps", 0, OPT_T_FLAG, F(hw_ts), 0, 0, 0, NULL, RX_GRP_CAPTURE,
	  "use the NIC's receive timestamps (SO_TIMESTAMPING); fail if it has none" },

	/* stopping */
	{ "count", 'c', OPT_T_U64, F(count), 0, 1, UINT64_MAX, "N", RX_GRP_STOP,
	  "stop after N frames" },
	{ "timeout", 0, OPT_T_DOUBLE, F(timeout_s), 0, 0, 0, "SECONDS", RX_GRP_STOP,
	  "stop SECONDS after starting" },
	{ "idle", 0, OPT_T_DOUBLE, F(idle_s), 0, 0, 0, "SECONDS", RX_GRP_STOP,
	  "stop when no frame has come for SECONDS since the last one" },

	/* matching */
	{ "reference", 'R', OPT_T_STR, F(reference), 0, 0, 0, "FILE", RX_GRP_MATCH,
	  "match frames against trace FILE: loss, duplicates, order, timing" },
	{ "send-log", 0, OPT_T_STR, F(send_log), 0, 0, 0, "FILE", RX_GRP_MATCH,
	  "replay --send-log FILE of the same run: one-way latency (same host)" },

	/* output */
	{ "write", 'w', OPT_T_STR, F(write_path), 0, 0, 0, "FILE", RX_GRP_OUTPUT,
	  "also write the frames received to nanosecond pcap FILE ('-' = stdout)" },
	{ "json", 0, OPT_T_STR, F(json), 0, 0, 0, "FILE", RX_GRP_OUTPUT,
	  "write the report as JSON to FILE ('-' = stdout)" },
	{ "plot", 0, OPT_T_STR, F(plot_dir), 0, 0, 0, "DIR", RX_GRP_OUTPUT,
	  "draw SVG figures of the timing into directory DIR" },
	{ "quiet", 'q', OPT_T_FLAG, F(quiet), 0, 0, 0, NULL, RX_GRP_OUTPUT,
	  "print no report and no warnings" },
	{ "verbose", 'v', OPT_T_COUNT, F(verbose), 0, 0, 0, NULL, RX_GRP_OUTPUT,
	  "say more (repeat for debug output)" },

	/* misc */
	{ "help", 'h', OPT_T_FLAG, F(help), 0, 0, 0, NULL, RX_GRP_MISC, "show this help and exit" },
	{ "version", 'V', OPT_T_FLAG, F(version), 0, 0, 0, NULL, RX_GRP_MISC,
	  "show the version and exit" },
};

static const char *const group_title[RX_GRP_MAX] = {
	[RX_GRP_CAPTURE] = "Capture",
	[RX_GRP_STOP] = "Stopping (also on SIGINT/SIGTERM)",
	[RX_GRP_MATCH] = "Matching",
	[RX_GRP_OUTPUT] = "Output",
	[RX_GRP_MISC] = "Miscellaneous",
};

static const struct rx_opts defaults = {
	.snaplen = PKT_ID_BYTES,
};

static const struct opt_set rx_set = {
	.table = table,
	.n = ARRAY_SIZE(table),
	.group_title = group_title,
	.ngroups = RX_GRP_MAX,
	.defaults = &defaults,
	.size = sizeof(struct rx_opts),
	.synopsis = "[options] -i IF | -r FILE",
	.about = "Receive a replay and prove it: loss, duplicates, order, timing, jitter, latency.",
	.epilog = "Exit status: 0 done (with --reference: every packet arrived once, in order, and the\n"
		  "kernel dropped none), 1 runtime error, 2 usage error, 3 loss, duplicates, reordering,\n"
		  "foreign frames or kernel drops.  See replay-rx(1).",
};

const struct opt_set *rx_opts_set(void)
{
	return &rx_set;
}

/* Checks that need every option at once. */
static int check(const struct rx_opts *o, char *err, size_t len)
{
	if (o->help || o->version)
		return 0;
	if (o->intf && o->read_path)
		return opts_fail(err, len, "-i and -r exclude each other: capture live or read a file");
	if (!o->intf && !o->read_path)
		return opts_fail(err, len, "nothing to receive: give an interface (-i IF) or a file (-r FILE)");
	if (o->read_path &&
	    (o->hw_ts || o->block_bytes || o->blocks || o->block_ms || o->timeout_s > 0 ||
	     o->idle_s > 0))
		return opts_fail(err, len,
			    "-r reads a file: --hw-timestamps, the ring's options, --timeout and --idle apply to live capture");
	if (o->block_bytes & (o->block_bytes - 1))
		return opts_fail(err, len, "--block-size: %llu is not a power of two",
			    (unsigned long long)o->block_bytes);
	if (o->block_bytes && o->block_bytes < o->snaplen + 128)
		return opts_fail(err, len, "--block-size: %llu bytes cannot hold a %llu-byte frame",
			    (unsigned long long)o->block_bytes, (unsigned long long)o->snaplen);
	if (o->send_log && o->snaplen < PKT_ID_BYTES)
		return opts_fail(err, len, "--send-log identifies packets by their first %u bytes: --snaplen must be at least that",
			    PKT_ID_BYTES);
	if (o->plot_dir && !o->reference)
		return opts_fail(err, len, "--plot draws timing against the reference: give --reference FILE");
	if (o->write_path && o->json && !strcmp(o->write_path, "-") && !strcmp(o->json, "-"))
		return opts_fail(err, len, "-w - and --json - cannot both write to standard output");
	return 0;
}

int rx_opts_parse(struct rx_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	int first, rc = opts_set_parse(&rx_set, o, argc, argv, &first, err, errlen);

	if (rc < 0)
		return rc;
	if (first < argc)
		return opts_fail(err, errlen, "unexpected argument '%s' (a filter goes in --filter)",
			    argv[first]);
	return check(o, err, errlen);
}

void rx_opts_usage(FILE *f)
{
	opts_set_usage(&rx_set, f, "replay-rx");
}
