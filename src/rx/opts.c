// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay-rx's option table, parsed, checked and shown by the project's
 * option machinery (replay/optparse.h), as replay's is.  To add an option:
 * a field in struct rx_opts, a row here in its group with its rules, a line
 * in man/replay-rx.1's OPTIONS and in README.md (a unit test checks all
 * three).  Names follow tcpdump where tcpdump has the same thing (-i, -r,
 * -w, -s, -c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay/compiler.h"
#include "replay/pkt_id.h"
#include "rx.h"

/* Rows binding fields of struct rx_opts (see replay/optparse.h). */
#define FLAG(f, ...)   OPT_FLAG(struct rx_opts, f, __VA_ARGS__)
#define COUNT(f, ...)  OPT_COUNT(struct rx_opts, f, __VA_ARGS__)
#define STR(f, ...)    OPT_STR(struct rx_opts, f, __VA_ARGS__)
#define UINT(f, ...)   OPT_UINT(struct rx_opts, f, __VA_ARGS__)
#define DOUBLE(f, ...) OPT_DOUBLE(struct rx_opts, f, __VA_ARGS__)
#define RULES OPT_RULES
#define NEEDS OPT_NEEDS
#define EXCLUDES OPT_EXCLUDES
#define LIVE_ONLY EXCLUDES("read", "it applies to live capture, and -r reads a file")
#define FROM_REFERENCE(why) NEEDS("reference", why)

/* --timeout and --idle: at most a year, so SECONDS * 1e9 fits a uint64_t of nanoseconds. */
#define RX_SECONDS_MAX (365.0 * 86400)

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
	STR(intf, .name = "interface", .key = 'i', .metavar = "IF", .group = RX_GRP_CAPTURE,
	    .help = "capture on interface IF (TPACKET_V3 ring; needs CAP_NET_RAW)",
	    .rules = RULES(EXCLUDES("read", "capture live or read a file"))),
	STR(intf, .name = "intf1", .metavar = "IF", .group = RX_GRP_CAPTURE,
	    .help = "the same as --interface (replay's name)",
	    .rules = RULES(EXCLUDES("read", "capture live or read a file"))),
	STR(read_path, .name = "read", .key = 'r', .metavar = "FILE", .group = RX_GRP_CAPTURE,
	    .help = "analyse capture FILE (pcap, any format replay reads) instead"),
	STR(filter, .name = "filter", .key = 'f', .metavar = "EXPR", .group = RX_GRP_CAPTURE,
	    .help = "keep only frames matching libpcap EXPR, filtered in the kernel"),
	UINT(snaplen, .name = "snaplen", .key = 's', .min = RX_SNAPLEN_MIN, .max = RX_SNAPLEN_MAX,
	     .metavar = "BYTES", .group = RX_GRP_CAPTURE, .show_dflt = true,
	     .help = "keep the first BYTES of each frame"),
	UINT(block_bytes, .name = "block-size", .min = 4096, .max = 1u << 30, .metavar = "BYTES",
	     .group = RX_GRP_CAPTURE, .show_dflt = true, .dflt = RX_BLOCK_BYTES_DEFAULT,
	     .help = "ring block size, a power of two", .rules = RULES(LIVE_ONLY)),
	UINT(blocks, .name = "blocks", .min = 1, .max = RX_BLOCKS_MAX, .metavar = "N", .group = RX_GRP_CAPTURE,
	     .show_dflt = true, .dflt = RX_BLOCKS_DEFAULT, .help = "ring blocks", .rules = RULES(LIVE_ONLY)),
	UINT(ring_kib, .name = "buffer-size", .key = 'B', .min = 4, .max = 1u << 24, .metavar = "KIB",
	     .group = RX_GRP_CAPTURE, .show_dflt = true,
	     .dflt = (uint64_t)RX_BLOCKS_DEFAULT * RX_BLOCK_BYTES_DEFAULT >> 10,
	     .help = "ring of KIB KiB (tcpdump's -B), cut into at least 8 blocks of at most 1 MiB",
	     .rules = RULES(LIVE_ONLY, EXCLUDES("block-size blocks", "-B sets the ring's size and its blocks "
						"follow from it; --blocks and --block-size set them instead"))),
	UINT(block_ms, .name = "block-timeout", .min = 1, .max = 60000, .metavar = "MS",
	     .group = RX_GRP_CAPTURE, .show_dflt = true, .dflt = RX_BLOCK_MS_DEFAULT,
	     .help = "hand a partly filled block over after MS milliseconds", .rules = RULES(LIVE_ONLY)),
	FLAG(hw_ts, .name = "hw-timestamps", .group = RX_GRP_CAPTURE,
	     .help = "use the NIC's receive timestamps (SO_TIMESTAMPING); fail if it has none",
	     .rules = RULES(LIVE_ONLY)),
	UINT(fanout, .name = "fanout", .min = 1, .max = RX_FANOUT_MAX, .metavar = "N",
	     .group = RX_GRP_CAPTURE,
	     .help = "N rings, one thread each, flows spread by PACKET_FANOUT hash (N <= CPUs)",
	     .rules = RULES(NEEDS("interface", "it spreads a live capture over rings"),
			    EXCLUDES("write count", "it hands frames over from several rings, not in one order "
						   "as they come; use one ring"))),

	/* stopping */
	UINT(count, .name = "count", .key = 'c', .min = 1, .max = UINT64_MAX, .metavar = "N",
	     .group = RX_GRP_STOP, .help = "stop after N frames"),
	DOUBLE(timeout_s, .name = "timeout", .dmax = RX_SECONDS_MAX, .metavar = "SECONDS",
	       .group = RX_GRP_STOP, .help = "stop SECONDS after starting", .rules = RULES(LIVE_ONLY)),
	DOUBLE(idle_s, .name = "idle", .dmax = RX_SECONDS_MAX, .metavar = "SECONDS", .group = RX_GRP_STOP,
	       .help = "stop when no frame has come for SECONDS since the last one", .rules = RULES(LIVE_ONLY)),

	/* matching */
	STR(reference, .name = "reference", .key = 'R', .metavar = "FILE", .group = RX_GRP_MATCH,
	    .help = "match frames against trace FILE: loss, duplicates, order, timing"),
	STR(send_log, .name = "send-log", .metavar = "FILE", .group = RX_GRP_MATCH,
	    .help = "replay --send-log FILE of the same run: one-way latency (same host)"),

	FLAG(sequence, .name = "sequence", .group = RX_GRP_MATCH,
	     .help = "no reference: match by the sequence number in the UDP payload (Linux pktgen's, or gentrace's 64-bit one; IPv4 or IPv6)",
	     .rules = RULES(EXCLUDES("reference send-log", "--sequence matches by number instead of a reference"))),
	FLAG(per_flow, .name = "per-flow", .group = RX_GRP_MATCH,
	     .help = "results per flow (5-tuple, or MAC pair and EtherType)",
	     .rules = RULES(FROM_REFERENCE("it finds each frame's flow through the reference"))),
	UINT(worst, .name = "worst", .min = 0, .max = UINT32_MAX, .metavar = "N", .group = RX_GRP_MATCH,
	     .show_dflt = true, .help = "list the N worst flows (JSON has all)",
	     .rules = RULES(NEEDS("per-flow", "it says how many flows --per-flow lists"))),

	FLAG(no_ref_filter, .name = "no-ref-filter", .group = RX_GRP_MATCH,
	     .help = "capture every frame, not only the reference's flows",
	     .rules = RULES(FROM_REFERENCE("it turns off the kernel filter made from the reference"),
			    NEEDS("interface", "it turns off a live capture's kernel filter"))),

	/* output */
	STR(write_path, .name = "write", .key = 'w', .metavar = "FILE", .group = RX_GRP_OUTPUT,
	    .help = "also write the frames received to nanosecond pcap FILE ('-' = stdout)"),
	STR(json, .name = "json", .metavar = "FILE", .group = RX_GRP_OUTPUT,
	    .help = "write the report as JSON to FILE ('-' = stdout)"),
	STR(json, .name = "stats-json", .metavar = "FILE", .group = RX_GRP_OUTPUT,
	    .help = "the same as --json (replay's name)"),
	STR(plot_dir, .name = "plot", .metavar = "DIR", .group = RX_GRP_OUTPUT,
	    .help = "draw SVG figures of the timing into directory DIR (with --send-log, also the per-packet send series as numbers)",
	    .rules = RULES(FROM_REFERENCE("it draws timing against the reference"))),
	STR(write_impairment, .name = "write-impairment", .metavar = "FILE", .group = RX_GRP_OUTPUT,
	    .help = "write the impairment trace (replay-impair(5)) that reproduces the losses, copies, delays and order seen",
	    .rules = RULES(FROM_REFERENCE("it writes one action per reference packet"))),
	FLAG(quiet, .name = "quiet", .key = 'q', .group = RX_GRP_OUTPUT,
	     .help = "print no report and no warnings"),
	COUNT(verbose, .name = "verbose", .key = 'v', .group = RX_GRP_OUTPUT,
	      .help = "say more (repeat for debug output)"),

	/* misc */
	FLAG(help, .name = "help", .key = 'h', .group = RX_GRP_MISC, .help = "show this help and exit"),
	FLAG(version, .name = "version", .key = 'V', .group = RX_GRP_MISC,
	     .help = "show the version and exit"),
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
	.worst = RX_WORST_DEFAULT,
};

static const struct opt_set rx_set = {
	.table = table,
	.n = ARRAY_SIZE(table),
	.group_title = group_title,
	.ngroups = RX_GRP_MAX,
	.defaults = &defaults,
	.size = sizeof(struct rx_opts),
	.given_off = offsetof(struct rx_opts, given),
	.synopsis = "[options] -i IF | -r FILE",
	.about = "Receive a replay and prove it: loss, duplicates, order, timing, jitter, latency.",
	.epilog = "Exit status: 0 done (with --reference or --sequence: every packet arrived once, in order, and the\n"
		  "kernel dropped none), 1 runtime error, 2 usage error, 3 loss, duplicates, reordering,\n"
		  "foreign frames or kernel drops.  See replay-rx(1).",
};

const struct opt_set *rx_opts_set(void)
{
	return &rx_set;
}

/* What the rows' rules cannot say: values, the machine. */
static int check(const struct rx_opts *o, char *err, size_t len)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (o->help || o->version)
		return 0;
	if (opts_set_check(&rx_set, o, err, len) < 0)
		return -EINVAL;
	if (!o->intf && !o->read_path)
		return opts_fail(err, len, "nothing to receive: give an interface (-i IF) or a file (-r FILE)");
	if (o->fanout && cpus > 0 && o->fanout > (uint64_t)cpus)
		return opts_fail(err, len, "--fanout: %llu rings, but only %ld CPUs are online",
				 (unsigned long long)o->fanout, cpus);
	if (o->block_bytes & (o->block_bytes - 1))
		return opts_fail(err, len, "--block-size: %llu is not a power of two",
				 (unsigned long long)o->block_bytes);
	if (o->block_bytes && o->block_bytes < o->snaplen + 128)
		return opts_fail(err, len, "--block-size: %llu bytes cannot hold a %llu-byte frame",
				 (unsigned long long)o->block_bytes, (unsigned long long)o->snaplen);
	if (o->send_log && o->snaplen < PKT_ID_BYTES)
		return opts_fail(err, len, "--send-log identifies packets by their first %u bytes: --snaplen must be at least that",
				 PKT_ID_BYTES);
	if (o->write_impairment && !strcmp(o->write_impairment, "-"))
		return opts_fail(err, len, "--write-impairment writes a binary trace: give a file, not '-'");
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
