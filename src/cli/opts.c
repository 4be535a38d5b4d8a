// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay's option table: the parser, --help, the completions and the man
 * page's OPTION RULES come from it through the option machinery
 * (replay/optparse.h).  Each row binds its module's config field and
 * carries its rules with other options; what is left as code is what needs
 * the operands or a value (check(), with src/cli/opts_check.c), and the few
 * settings derived from several options (resolve()).  Options that tcpreplay also has keep
 * tcpreplay's names and meanings, so that users' command lines carry over.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/live.h"
#include "replay/opts.h"
#include "replay/trace.h"
#include "opts_int.h"

#define NS_PER_MS (1000 * NSEC_PER_USEC)

/* Rows binding fields of struct opts (see replay/optparse.h). */
#define FLAG(f, ...)      OPT_FLAG(struct opts, f, __VA_ARGS__)
#define COUNT(f, ...)     OPT_COUNT(struct opts, f, __VA_ARGS__)
#define STR(f, ...)       OPT_STR(struct opts, f, __VA_ARGS__)
#define UINT(f, ...)      OPT_UINT(struct opts, f, __VA_ARGS__)
#define SIZE(f, ...)      OPT_SIZE(struct opts, f, __VA_ARGS__)
#define SET(f, ...)       OPT_SET(struct opts, f, __VA_ARGS__)
#define ENUM(f, e, ...)   OPT_ENUM(struct opts, f, e, __VA_ARGS__)
#define FUNC(f, T, p, ...) OPT_FUNC(struct opts, f, T, p, __VA_ARGS__)
#define FUNC2(f, T, f2, T2, p, ...) OPT_FUNC2(struct opts, f, T, f2, T2, p, __VA_ARGS__)
#define RULES OPT_RULES
#define NEEDS OPT_NEEDS
#define EXCLUDES OPT_EXCLUDES

/* Rules several rows share, each with its reason. */
#define ONE_TIMING(others)                                                                         \
	EXCLUDES(others, "one timing at a time (--topspeed, --speed, --pps or --mbps)")
#define NOT_IN_PREP                                                                                \
	EXCLUDES("@prep", "replay prep writes an edit sidecar and sends nothing")
#define ONE_THREAD(what)                                                                           \
	EXCLUDES("threads", what "; use one thread")
#define IMPAIRMENT "impair loss delay duplicate corrupt reorder rate impair-stat"
#define IMPAIR_RULES                                                                               \
	RULES(EXCLUDES("@prep info", "impairment applies to packets sent, and this sends none"),    \
	      EXCLUDES("oneatatime", "--oneatatime sends each packet when asked; impairment holds "  \
				     "packets back on a schedule"),                                  \
	      ONE_THREAD("impairment holds packets back on one schedule"))

/* --fragdir: tcprewrite's words for a tcpprep cache's sides. */
static const struct opt_enum fragdir_choices[] = {
	{ "c2s", FRAGDIR_C2S },
	{ "s2c", FRAGDIR_S2C },
	{ "both", FRAGDIR_BOTH },
	{ NULL, 0 },
};

/* --pps N and --mbps N: the schedule's rate and mode. */
static int parse_pps(void *rate, void *mode, const char *arg, char *err, size_t len)
{
	*(enum sched_mode *)mode = SCHED_MODE_PPS;
	return sched_parse_ratio(rate, arg, err, len);
}

static int parse_mbps(void *rate, void *mode, const char *arg, char *err, size_t len)
{
	*(enum sched_mode *)mode = SCHED_MODE_MBPS;
	return sched_parse_ratio(rate, arg, err, len);
}

/* --spin-us US: the hybrid timer's margin, fixed (not calibrated). */
static int parse_spin_us(void *spin_ns, void *fixed, const char *arg, char *err, size_t len)
{
	uint64_t us;

	if (opt_parse_u64(arg, OPT_NUM_HEX, 0, 1000000, &us, err, len) < 0)
		return -EINVAL;
	*(uint64_t *)spin_ns = us * NSEC_PER_USEC;
	*(bool *)fixed = true;
	return 0;
}

/* --threads N (1..OPTS_THREADS_MAX), or "auto": one thread, which threads_auto_apply() may raise. */
static int parse_threads(void *threads, void *ask_auto, const char *arg, char *err, size_t len)
{
	uint64_t v;

	*(bool *)ask_auto = !strcmp(arg, "auto");
	if (*(bool *)ask_auto) {
		*(unsigned *)threads = 1;
		return 0;
	}
	if (!*arg || arg[strspn(arg, "0123456789abcdefABCDEFxX")])
		return opts_fail(err, len, "'%s' is not a thread count (1..%u) or auto", arg, OPTS_THREADS_MAX);
	if (opt_parse_u64(arg, OPT_NUM_HEX, 1, OPTS_THREADS_MAX, &v, err, len) < 0)
		return -EINVAL;
	*(unsigned *)threads = (unsigned)v;
	return 0;
}

/* Is this 'replay prep' (struct opt_cond)? */
static bool is_prep(const void *cfg)
{
	return ((const struct opts *)cfg)->prep_cmd;
}

static const struct opt_cond conds[] = {
	{ "prep", "replay prep", is_prep },
	{ NULL, NULL, NULL },
};

static const struct opt_def table[] = {
	/* input */
	FLAG(info, .name = "info", .group = OPT_GRP_INPUT,
	     .help = "describe each FILE (format, interfaces, packets, times, lengths) and exit; sends nothing",
	     .rules = RULES(EXCLUDES("intf1 intf2 write", "--info only reads the files"),
			    EXCLUDES("verbose", "-v decodes the packets sent, and --info sends none (replay -v -w "
					       "/dev/null FILE decodes them)"))),
	STR(split_mode, .name = "split", .metavar = "MODE", .group = OPT_GRP_INPUT,
	    .help = "with -I (or --info): which interface each packet leaves by: first (default), client, server, bridge, router, cidr:NET,..., port, mac:MAC,...; with one output, the direction of -e and the pair forms",
	    .rules = RULES(EXCLUDES("cachefile", "the cache holds the split"))),
	STR(cachefile, .name = "cachefile", .key = 'c', .metavar = "FILE", .group = OPT_GRP_INPUT,
	    .help = "with -I (or --info): take each packet's interface from a tcpprep cache file (format 04); with one output, the direction of -e and the pair forms (tcprewrite -c)"),
	FLAG(run.dualfile, .name = "dualfile", .key = '2', .group = OPT_GRP_INPUT,
	     .help = "files in pairs, the first of each out -i, the second out -I, merged by timestamp",
	     .rules = RULES(NEEDS("intf2 info", "it sends the first file of each pair by -i and the second by -I"),
			    EXCLUDES("split cachefile", "with --dualfile a packet's interface is its file's place "
						       "in its pair"),
			    EXCLUDES("prep", "a sidecar belongs to one trace"), NOT_IN_PREP)),
	FLAG(run.merge, .name = "merge", .group = OPT_GRP_INPUT,
	     .help = "play the files as one capture, merged by timestamp (a tie to the file given last, as mergecap)",
	     .rules = RULES(EXCLUDES("dualfile", "--dualfile merges the files in pairs, one per interface"),
			    EXCLUDES("prep", "a sidecar belongs to one trace"),
			    EXCLUDES("info", "--info describes each file on its own"), NOT_IN_PREP)),
	FLAG(recursive, .name = "recursive", .group = OPT_GRP_INPUT,
	     .help = "a directory given plays the captures in its subdirectories too (in name order)"),
	ENUM(method2, tx_method_choices, .name = "method2", .metavar = "NAME", .group = OPT_GRP_TX,
	     .help = "transmit on the second interface with method NAME (default: --method's)",
	     .same_as = "method", .rules = RULES(NEEDS("intf2", "it is the method of the second interface"))),
	STR(source_if, .name = "source-interface", .metavar = "IF", .group = OPT_GRP_INPUT,
	    .help = "forward the frames arriving on IF (instead of trace files) out -i, impaired as asked",
	    .rules = RULES(NEEDS("intf1", "it forwards out of an interface"),
			   EXCLUDES("write intf2 split cachefile dualfile prep oneatatime preload loop threads info",
				    "it forwards one interface to one, each frame as it arrives"),
			   EXCLUDES("topspeed speed pps mbps maxsleep start-at",
				    "it sends each frame when it arrives (plus its impairment delay)"))),
	UINT(live_buffer_kib, .name = "buffer-size", .key = 'B', .min = 64, .max = 1u << 20, .metavar = "KIB",
	     .group = OPT_GRP_INPUT, .show_dflt = true, .dflt = LIVE_BUFFER_KIB_DEFAULT,
	     .help = "a capture ring of KIB KiB (tcpdump's -B, replay-rx's)",
	     .rules = RULES(NEEDS("source-interface", "it is the capture ring of --source-interface"))),
	FLAG(trace.preload, .name = "preload", .key = 'K', .group = OPT_GRP_INPUT,
	     .help = "read each trace into memory before sending (for loops); refused if it will not fit"),
	FLAG(trace.preload, .name = "preload-pcap", .group = OPT_GRP_INPUT,
	     .help = "the same as --preload (tcpreplay's name)"),
	SIZE(trace.window_bytes, .name = "window-size", .min = TRACE_WINDOW_MIN_BYTES, .max = 1ull << 40,
	     .metavar = "BYTES", .group = OPT_GRP_INPUT, .show_dflt = true, .dflt = TRACE_WINDOW_DEFAULT_BYTES,
	     .help = "read-ahead window for traces on disk (K, M, G suffixes)"),

	/* timing */
	SET(sched.mode, .name = "topspeed", .key = 't', .val = SCHED_MODE_TOPSPEED, .group = OPT_GRP_TIMING,
	    .help = "send as fast as the interface takes packets, ignoring timestamps",
	    .rules = RULES(ONE_TIMING("speed pps mbps"))),
	FUNC(sched.speed, struct sched_ratio, sched_parse_ratio, .name = "speed", .key = 'x',
	     .metavar = "X", .group = OPT_GRP_TIMING,
	     .help = "play the recorded timing X times as fast (0.5 = half speed)",
	     .rules = RULES(ONE_TIMING("topspeed pps mbps"))),
	FUNC(sched.speed, struct sched_ratio, sched_parse_ratio, .name = "multiplier", .metavar = "X",
	     .group = OPT_GRP_TIMING, .help = "the same as --speed (tcpreplay's name)",
	     .rules = RULES(ONE_TIMING("topspeed pps mbps"))),
	FUNC2(sched.rate, struct sched_ratio, sched.mode, enum sched_mode, parse_pps, .name = "pps", .key = 'p',
	      .metavar = "N", .group = OPT_GRP_TIMING,
	      .help = "send N packets per second, evenly spaced, ignoring timestamps",
	      .rules = RULES(ONE_TIMING("topspeed speed mbps"))),
	UINT(sched.pps_multi, .name = "pps-multi", .min = 1, .max = UINT32_MAX, .metavar = "M",
	     .group = OPT_GRP_TIMING, .help = "send M packets together each interval (same average rate)",
	     .rules = RULES(NEEDS("pps", "it groups the packets of --pps"))),
	FUNC2(sched.rate, struct sched_ratio, sched.mode, enum sched_mode, parse_mbps, .name = "mbps", .key = 'M',
	      .metavar = "N", .group = OPT_GRP_TIMING,
	      .help = "send at N megabits per second of frame bytes, ignoring timestamps",
	      .rules = RULES(ONE_TIMING("topspeed speed pps"))),
	FLAG(sched.wire_overhead, .name = "wire-overhead", .group = OPT_GRP_TIMING,
	     .help = "--mbps counts Ethernet padding, FCS, preamble and gap (24+ bytes a frame)",
	     .rules = RULES(NEEDS("mbps", "it only applies to the rate of --mbps"))),
	ENUM(sched.timer, sched_timer_choices, .name = "timer", .key = 'T', .metavar = "KIND",
	     .group = OPT_GRP_TIMING, .show_dflt = true,
	     .help = "how to wait (hybrid: sleep, then spin the last stretch)"),
	FUNC2(sched.spin_ns, uint64_t, sched.spin_fixed, bool, parse_spin_us, .name = "spin-us", .metavar = "US",
	      .group = OPT_GRP_TIMING, .help = "hybrid: spin the last US microseconds (default: measured at start-up)",
	      .rules = RULES(EXCLUDES("timer", "--spin-us sets the hybrid timer's margin, which the other "
					       "timers have none of"))),
	ENUM(sched.late, sched_late_choices, .name = "late", .metavar = "POLICY", .group = OPT_GRP_TIMING,
	     .show_dflt = true, .help = "after a stall: send late packets at once or shift the rest"),
	UINT(sched.late_threshold_ns, .name = "late-threshold", .min = 0, .max = 3600000000ull,
	     .scale = NSEC_PER_USEC, .metavar = "US", .group = OPT_GRP_TIMING, .show_dflt = true,
	     .help = "a packet later than US microseconds is a stall"),
	UINT(rt.priority, .name = "rt-priority", .min = 1, .max = 99, .metavar = "N", .group = OPT_GRP_TIMING,
	     .help = "run under SCHED_FIFO priority N, memory locked (needs CAP_SYS_NICE)"),
	FUNC2(cpus, struct opts_list, rt.cpu, int, opts_parse_cpus, .name = "cpu", .metavar = "LIST",
	      .group = OPT_GRP_TIMING,
	      .help = "run on these CPUs only (0,2 or 0-3); with --threads, thread i on the i-th (round-robin)"),
	UINT(sched.max_gap_ns, .name = "maxsleep", .min = 0, .max = 1000000000, .scale = NS_PER_MS,
	     .metavar = "MS", .group = OPT_GRP_TIMING,
	     .help = "wait at most MS milliseconds between two packets (cuts longer recorded gaps)",
	     .rules = RULES(EXCLUDES("topspeed pps mbps", "--maxsleep cuts the trace's recorded gaps, "
							 "which this timing does not follow"))),
	FUNC(sched.start_at, struct sched_instant, sched_parse_instant, .name = "start-at", .metavar = "TIME",
	     .group = OPT_GRP_TIMING,
	     .help = "wait until TIME (RFC 3339, 2026-11-25T23:10:00.5Z, or @SECONDS.NANOS) on --clock, then start"),
	ENUM(sched.start_clock, sched_clock_choices, .name = "clock", .metavar = "CLOCK", .group = OPT_GRP_TIMING,
	     .show_dflt = true, .help = "the clock --start-at is read on",
	     .rules = RULES(NEEDS("start-at", "it is the clock --start-at is read on"))),

	/* transmission */
	STR(tx.ifname, .name = "intf1", .key = 'i', .metavar = "IF", .group = OPT_GRP_TX,
	    .help = "send on interface IF (AF_PACKET; needs CAP_NET_RAW)",
	    .rules = RULES(EXCLUDES("write", "send on an interface or write a file"), NOT_IN_PREP)),
	STR(tx.ifname, .name = "interface", .metavar = "IF", .group = OPT_GRP_TX,
	    .help = "the same as --intf1 (replay-rx's name)",
	    .rules = RULES(EXCLUDES("write", "send on an interface or write a file"), NOT_IN_PREP)),
	STR(intf2, .name = "intf2", .key = 'I', .metavar = "IF", .group = OPT_GRP_TX,
	    .help = "also send on interface IF: each packet leaves by -i or -I as --split or -c decides",
	    .rules = RULES(EXCLUDES("write", "-I sends on a second interface and -w writes one file; give -i IF "
					    "-I IF2, or -w alone"),
			   NEEDS("intf1", "-I is the second interface (give the first with -i IF)"), NOT_IN_PREP)),
	STR(tx.path, .name = "write", .key = 'w', .metavar = "FILE", .group = OPT_GRP_TX,
	    .help = "dry run: write the frames to a nanosecond pcap FILE ('-' = stdout) instead",
	    .rules = RULES(ONE_THREAD("a dry run writes one file"), NOT_IN_PREP)),
	ENUM(method, tx_method_choices, .name = "method", .metavar = "NAME", .group = OPT_GRP_TX,
	     .show_dflt = true, .help = "transmit with method NAME (auto: the fastest that works here)"),
	UINT(tx.batch, .name = "batch", .min = 1, .max = TX_BATCH_MAX, .metavar = "N", .group = OPT_GRP_TX,
	     .show_dflt = true, .dflt = TX_BATCH_DEFAULT,
	     .help = "hand at most N due packets to the kernel per kick"),
	FLAG(run.segment, .name = "segment", .group = OPT_GRP_TX,
	     .help = "cut a frame longer than the MTU: TCP into segments, other IP into fragments"),
	FLAG(tx.gso, .name = "gso", .group = OPT_GRP_TX,
	     .help = "with --segment: hand a TCP frame longer than the MTU to the kernel whole, for it to cut (packet, mmsg, uring)",
	     .rules = RULES(NEEDS("segment", "it has the kernel cut the TCP frames --segment would"),
			    EXCLUDES("write", "the kernel cuts only frames sent on an interface"))),
	FLAG(tx.qdisc_bypass, .name = "qdisc-bypass", .group = OPT_GRP_TX,
	     .help = "skip the interface's qdisc (no tc shaping); auto then tries xdp even past a shaping qdisc or a capture"),
	FUNC2(xdp_queues, struct opts_list, tx.xdp_queue, unsigned, opts_parse_queues, .name = "xdp-queue",
	      .metavar = "LIST", .group = OPT_GRP_TX,
	      .help = "xdp: bind the AF_XDP socket to device queue N (default 0); with --threads one per thread (default 0..N-1)"),
	FUNC2(threads, unsigned, threads_ask_auto, bool, parse_threads, .name = "threads", .metavar = "N|auto",
	      .group = OPT_GRP_TX,
	      .help = "send with N threads, each with its own socket and its share of the flows (default 1); auto: one per TX queue and CPU at top speed, where nothing else needs one (see replay(1))"),
	ENUM(tx.xdp_mode, tx_xdp_mode_choices, .name = "xdp-mode", .metavar = "MODE", .group = OPT_GRP_TX,
	     .help = "xdp: auto uses zero-copy where the driver can, else copy"),
	FLAG(tx.xdp_inplace, .name = "xdp-in-place", .group = OPT_GRP_TX,
	     .help = "xdp with -K: send frames from the preloaded copy itself in copy mode too (always so in zero-copy mode)",
	     .rules = RULES(NEEDS("preload", "the frames go from the preloaded copy"))),
	FLAG(tx.uring_sqpoll, .name = "uring-sqpoll", .group = OPT_GRP_TX,
	     .help = "uring: let a kernel thread poll the submission queue (no submit syscalls)"),
	SET(method, .name = "xdp", .val = TX_METHOD_XDP, .choices = tx_method_choices, .group = OPT_GRP_TX,
	    .agree = "--xdp, --io-uring and --raw are --method xdp, uring and raw; give one",
	    .help = "the same as --method xdp (tcpreplay's name)"),
	UINT(tx.batch, .name = "xdp-batch-size", .min = 1, .max = TX_BATCH_MAX, .metavar = "N", .group = OPT_GRP_TX,
	     .agree = "--xdp-batch-size is --batch for --xdp; give one",
	     .help = "the same as --batch N (tcpreplay's name)",
	     .rules = RULES(NEEDS("xdp", "it is the batch of --xdp (or use --batch)"))),
	SET(method, .name = "io-uring", .val = TX_METHOD_URING, .choices = tx_method_choices, .group = OPT_GRP_TX,
	    .agree = "--xdp, --io-uring and --raw are --method xdp, uring and raw; give one",
	    .help = "the same as --method uring (tcpreplay's name)"),
	SET(method, .name = "raw", .val = TX_METHOD_RAW, .choices = tx_method_choices, .group = OPT_GRP_TX,
	    .agree = "--xdp, --io-uring and --raw are --method xdp, uring and raw; give one",
	    .help = "the same as --method raw: IP packets through a raw IP socket (tcpreplay's name)"),
	FLAG(listnics, .name = "listnics", .group = OPT_GRP_TX,
	     .help = "list the network interfaces and exit"),
	/* editing: tcprewrite's names and meanings, so pasted command lines work */
	STR(edit.filter, .name = "filter", .metavar = "EXPR", .group = OPT_GRP_EDIT,
	    .help = "send only packets matching the libpcap filter EXPR"),
	FUNC(edit.include, struct edit_pktlist, edit_parse_pktlist, .name = "include", .metavar = "P:LIST",
	     .group = OPT_GRP_EDIT, .help = "send only packets numbered in LIST (P:1-5,9,72-)"),
	FUNC(edit.exclude, struct edit_pktlist, edit_parse_pktlist, .name = "exclude", .metavar = "P:LIST",
	     .group = OPT_GRP_EDIT, .help = "do not send packets numbered in LIST"),
	ENUM(edit.dlt, edit_dlt_choices, .name = "dlt", .metavar = "TYPE", .group = OPT_GRP_EDIT,
	     .help = "output link type: enet (Ethernet, as read), raw (IP), user (--user-dlink's header) or "
		     "hdlc (Cisco HDLC); all but enet with -w only",
	     .rules = RULES(EXCLUDES("@prep", "a sidecar holds the Ethernet frames; give --dlt to the run that "
					      "reads it"))),
	FUNC(edit.user_dlink, struct edit_dlink, edit_parse_dlink, .name = "user-dlink", .metavar = "HEX,...",
	     .group = OPT_GRP_EDIT,
	     .help = "--dlt user: the link-layer header, bytes in hex (0f,00,08,00); twice: server->client, "
		     "then client->server"),
	UINT(edit.user_dlt, .name = "user-dlt", .min = 0, .max = 289, .metavar = "N", .group = OPT_GRP_EDIT,
	     .help = "--dlt user: the output file's DLT (default: Ethernet's)"),
	UINT(edit.hdlc_address, .name = "hdlc-address", .min = 0, .max = 255, .metavar = "N", .group = OPT_GRP_EDIT,
	     .help = "--dlt hdlc: the address byte (default: Cisco HDLC's unicast address)"),
	UINT(edit.hdlc_control, .name = "hdlc-control", .min = 0, .max = 255, .metavar = "N", .group = OPT_GRP_EDIT,
	     .help = "--dlt hdlc: the control byte (default 0)"),
	FLAG(edit.efcs, .name = "efcs", .key = 'E', .group = OPT_GRP_EDIT,
	     .help = "remove the 4-byte FCS from the end of every Ethernet frame"),
	FUNC(edit.dmac, struct edit_macs, edit_parse_macs, .name = "enet-dmac", .metavar = "MAC[,MAC]",
	     .group = OPT_GRP_EDIT, .help = "rewrite destination MACs (client->server,server->client)"),
	FUNC(edit.dmac, struct edit_macs, edit_parse_macs, .name = "dmac", .metavar = "MAC[,MAC]",
	     .group = OPT_GRP_EDIT, .help = "same as --enet-dmac"),
	FUNC(edit.smac, struct edit_macs, edit_parse_macs, .name = "enet-smac", .metavar = "MAC[,MAC]",
	     .group = OPT_GRP_EDIT, .help = "rewrite source MACs (client->server,server->client)"),
	FUNC(edit.smac, struct edit_macs, edit_parse_macs, .name = "smac", .metavar = "MAC[,MAC]",
	     .group = OPT_GRP_EDIT, .help = "same as --enet-smac"),
	FUNC(edit.subsmac, struct edit_subsmac, edit_parse_subsmac, .name = "enet-subsmac",
	     .metavar = "OLD,NEW[,...]", .group = OPT_GRP_EDIT,
	     .help = "replace MAC address OLD by NEW, source and destination (repeatable)"),
	ENUM(edit.vlan, edit_vlan_choices, .name = "enet-vlan", .metavar = "MODE", .group = OPT_GRP_EDIT,
	     .help = "push an 802.1Q tag, or pop the outermost one"),
	UINT(edit.vlan_tag, .name = "enet-vlan-tag", .min = 0, .max = 4095, .metavar = "N",
	     .group = OPT_GRP_EDIT, .help = "VLAN ID of the pushed tag (0-4095)"),
	UINT(edit.vlan_pri, .name = "enet-vlan-pri", .min = 0, .max = 7, .metavar = "N",
	     .group = OPT_GRP_EDIT, .help = "priority (PCP) of the pushed tag (0-7)"),
	UINT(edit.vlan_cfi, .name = "enet-vlan-cfi", .min = 0, .max = 1, .metavar = "N",
	     .group = OPT_GRP_EDIT, .help = "CFI/DEI bit of the pushed tag (0-1)"),
	ENUM(edit.vlan_proto, edit_vlan_proto_choices, .name = "enet-vlan-proto",
	     .metavar = "TPID", .group = OPT_GRP_EDIT, .show_dflt = true,
	     .help = "TPID of the pushed tag"),
	FUNC(edit.pnat, struct edit_pnat, edit_parse_pnat, .name = "pnat", .key = 'N',
	     .metavar = "FROM:TO,...", .group = OPT_GRP_EDIT,
	     .help = "map addresses between CIDR blocks, [2001:db8::/32] (twice: clients, then servers)"),
	FUNC(edit.srcipmap, struct edit_cidrmap, edit_parse_cidrmap, .name = "srcipmap", .key = 'S',
	     .metavar = "FROM:TO,...", .group = OPT_GRP_EDIT,
	     .help = "map source addresses between CIDR blocks"),
	FUNC(edit.dstipmap, struct edit_cidrmap, edit_parse_cidrmap, .name = "dstipmap", .key = 'D',
	     .metavar = "FROM:TO,...", .group = OPT_GRP_EDIT,
	     .help = "map destination addresses between CIDR blocks"),
	FUNC(edit.endpoints, struct edit_endpoints, edit_parse_endpoints, .name = "endpoints", .key = 'e',
	     .metavar = "CLIENT:SERVER", .group = OPT_GRP_EDIT,
	     .help = "rewrite IPs to CLIENT and SERVER by direction (-c/--split); IPv6: [A]:[B]"),
	FUNC(edit.portmap, struct edit_portmap, edit_parse_portmap, .name = "portmap", .key = 'r',
	     .metavar = "P[-Q]:NEW,...", .group = OPT_GRP_EDIT, .help = "rewrite TCP/UDP ports (repeatable)"),
	UINT(edit.tcp_seq, .name = "tcp-sequence", .min = 1, .max = UINT32_MAX, .metavar = "SEED",
	     .group = OPT_GRP_EDIT,
	     .help = "add a value drawn from SEED to TCP sequence and ack numbers, as tcprewrite does"),
	UINT(edit.seed, .name = "seed", .key = 's', .min = 0, .max = UINT32_MAX, .metavar = "N",
	     .group = OPT_GRP_EDIT, .help = "scramble IP addresses with seed N, as tcprewrite does"),
	FLAG(edit.skipbroadcast, .name = "skipbroadcast", .key = 'b', .group = OPT_GRP_EDIT,
	     .help = "leave broadcast and multicast addresses alone in --seed/--pnat"),
	FUNC(edit.ttl, struct edit_ttl, edit_parse_ttl, .name = "ttl", .metavar = "[+-]N",
	     .group = OPT_GRP_EDIT, .help = "set, raise or lower the IPv4 TTL / IPv6 hop limit"),
	UINT(edit.tos, .name = "tos", .min = 0, .max = 255, .metavar = "N", .group = OPT_GRP_EDIT,
	     .help = "set the IPv4 TOS/DiffServ byte"),
	UINT(edit.tclass, .name = "tclass", .min = 0, .max = 255, .metavar = "N", .group = OPT_GRP_EDIT,
	     .help = "set the IPv6 Traffic Class byte"),
	UINT(edit.flowlabel, .name = "flowlabel", .min = 0, .max = 0xfffff, .metavar = "N",
	     .group = OPT_GRP_EDIT, .help = "set the IPv6 Flow Label (0-1048575)"),
	UINT(edit.mtu, .name = "mtu", .key = 'm', .min = 1, .max = 262144, .metavar = "N", .group = OPT_GRP_EDIT,
	     .show_dflt = true, .help = "layer-3 size limit for --mtu-trunc"),
	FLAG(edit.mtu_trunc, .name = "mtu-trunc", .group = OPT_GRP_EDIT,
	     .help = "truncate packets larger than --mtu"),
	ENUM(edit.fixlen, edit_fixlen_choices, .name = "fixlen", .key = 'F', .metavar = "HOW", .group = OPT_GRP_EDIT,
	     .help = "for packets the capture cut short: pad, fix IP length, or drop"),
	FLAG(edit.fixhdrlen, .name = "fixhdrlen", .group = OPT_GRP_EDIT,
	     .help = "make IP length fields cover the whole frame after L2 (tcprewrite's meaning)"),
	FLAG(edit.fixcsum, .name = "fixcsum", .key = 'C', .group = OPT_GRP_EDIT,
	     .help = "recompute IPv4, TCP, UDP, ICMP and ICMPv6 checksums"),
	FLAG(edit.pad_payload, .name = "pad-payload", .group = OPT_GRP_EDIT,
	     .help = "send each packet at its wire length: headers, then zeros"),
	FLAG(edit.pktlen, .name = "pktlen", .group = OPT_GRP_EDIT,
	     .help = "send each frame at its wire length, zeros past the captured bytes (tcpreplay's)"),
	STR(prep_path, .name = "prep", .metavar = "FILE", .group = OPT_GRP_EDIT,
	    .help = "take offsets and checksums from FILE, made by 'replay prep'",
	    .rules = RULES(EXCLUDES("fuzz-seed", "--fuzz-seed changes bytes and lengths a prep sidecar cannot know"),
			   NOT_IN_PREP)),
	STR(prep_out, .name = "output", .key = 'o', .metavar = "FILE", .group = OPT_GRP_EDIT,
	    .help = "with 'replay prep TRACE': write the sidecar to FILE",
	    .rules = RULES(NEEDS("@prep", "-o names the sidecar of 'replay prep TRACE -o FILE'; to write frames "
				 "use -w (tcprewrite's -i IN -o OUT is replay -w OUT IN; tcpreplay's -o is "
				 "--oneatatime here)"))),

	/* impairment (src/cli/impair_opts.c; replay-impair(5)): one contiguous block */
#define IMP(name_, fn, mv, help_, ...)                                                             \
	FUNC(impair, struct opts_impair, fn, .name = name_, .metavar = mv, .group = OPT_GRP_IMPAIR, \
	     .help = help_, .rules = IMPAIR_RULES, __VA_ARGS__)
	IMP("impair", opts_impair_add, "FILE",
	    "apply the impairment trace FILE (binary or text): the n-th packet gets its n-th action (repeatable)"),
	IMP("impair-flow", opts_impair_flow, "FILTER",
	    "only packets matching the libpcap FILTER consume the preceding --impair's actions"),
	FUNC(impair, struct opts_impair, opts_impair_repeat, .name = "impair-repeat", .metavar = "N",
	     .group = OPT_GRP_IMPAIR,
	     .help = "play the preceding --impair's trace N times (0 = forever; default 1; before any --impair: every trace's)",
	     .rules = RULES(NEEDS("impair", "it repeats an impairment trace"))),
	FUNC(impair, struct opts_impair, opts_impair_default, .name = "impair-default", .metavar = "ACTION",
	     .group = OPT_GRP_IMPAIR,
	     .help = "the action once the preceding --impair's trace is exhausted: pass (default), drop, or any action "
		     "line (before any --impair: every trace's)",
	     .rules = RULES(NEEDS("impair", "it is the action once an impairment trace runs out"))),
	IMP("loss", opts_impair_loss, "P[%] [CORR]",
	    "netem's loss: random P, or 'gemodel p r 1-h 1-k', or 'state p13 p31 p32 p23 p14'"),
	IMP("delay", opts_impair_delay, "D [JITTER [CORR]]", "netem's delay: D plus or minus JITTER"),
	IMP("delay-distribution", opts_impair_dist, "NAME",
	    "jitter's distribution: uniform (default), normal, pareto, paretonormal"),
	IMP("duplicate", opts_impair_duplicate, "P[%] [CORR]", "netem's duplicate: send a copy of P of packets"),
	IMP("corrupt", opts_impair_corrupt, "P[%] [CORR]", "netem's corrupt: flip one random bit in P of packets"),
	IMP("reorder", opts_impair_reorder, "P[%] [CORR] [gap N]",
	    "netem's reorder: with --delay, send P of packets (every N-th) at once, ahead of the delayed"),
	IMP("rate", opts_impair_rate, "RATE [OVERHEAD [CELL [CELLOVH]]]",
	    "netem's rate: hold packets back to RATE (bit, kbit, mbit, gbit ...)"),
	IMP("impair-stat", opts_impair_stat, "SPEC",
	    "netem's clauses in one string: 'delay 10ms 2ms loss 1% ...'"),
#undef IMP
	UINT(impair.seed, .name = "impair-seed", .min = 0, .max = UINT64_MAX, .metavar = "N",
	     .group = OPT_GRP_IMPAIR, .help = "seed of the impairment's random draws (same seed, same run)",
	     .rules = RULES(NEEDS(IMPAIRMENT, "it seeds the impairment's random draws"))),
	UINT(impair.limit, .name = "impair-limit", .min = 1, .max = 1u << 20, .metavar = "N",
	     .group = OPT_GRP_IMPAIR, .show_dflt = true, .dflt = IMPAIR_LIMIT_DEFAULT,
	     .help = "frames held back by delays at once; more are dropped and counted",
	     .rules = RULES(NEEDS(IMPAIRMENT, "it limits the frames an impairment holds back"))),

	/* loops and limits */
	UINT(run.loop, .name = "loop", .key = 'l', .min = 0, .max = UINT64_MAX, .metavar = "N",
	     .group = OPT_GRP_LOOP, .show_dflt = true, .help = "play the file list N times (0 = forever)"),
	UINT(run.limit, .name = "limit", .key = 'L', .min = 1, .max = UINT64_MAX, .metavar = "N",
	     .group = OPT_GRP_LOOP, .help = "stop after sending N packets",
	     .rules = RULES(ONE_THREAD("--limit counts the packets of one sender thread"))),
	UINT(run.duration_ns, .name = "duration", .min = 1, .max = SCHED_NS_MAX / NSEC_PER_SEC, .scale = NSEC_PER_SEC,
	     .metavar = "SECONDS", .group = OPT_GRP_LOOP,
	     .help = "stop before the first packet due SECONDS after the start"),
	UINT(run.loopdelay_ns, .name = "loopdelay-ms", .min = 0, .max = SCHED_NS_MAX / NS_PER_MS,
	     .scale = NS_PER_MS, .metavar = "MS", .group = OPT_GRP_LOOP,
	     .help = "wait MS milliseconds before each loop pass after the first",
	     .rules = RULES(EXCLUDES("loopdelay-ns", "both set the delay between loop passes; give one"))),
	UINT(run.loopdelay_ns, .name = "loopdelay-ns", .min = 0, .max = SCHED_NS_MAX, .metavar = "NS",
	     .group = OPT_GRP_LOOP, .help = "wait NS nanoseconds before each loop pass after the first"),
	FLAG(edit.unique_ip, .name = "unique-ip", .group = OPT_GRP_LOOP,
	     .help = "other IP addresses in every loop pass (tcpreplay's; checksums stay valid)",
	     .rules = RULES(EXCLUDES("@prep", "--unique-ip is applied per loop pass when replaying; give it to "
					      "replay --prep, not to prep"),
			    NEEDS("loop", "it changes the addresses between loop passes (give --loop N, more "
					  "than 1, or 0 = forever)"))),
	UINT(edit.unique_ip_loops, .name = "unique-ip-loops", .min = 1, .max = UINT32_MAX, .metavar = "N",
	     .group = OPT_GRP_LOOP, .help = "new addresses every N passes (default 1)",
	     .rules = RULES(NEEDS("unique-ip", "it counts passes for --unique-ip"))),

	/* statistics and output */
	UINT(run.stats_s, .name = "stats", .min = 0, .max = 31536000, .metavar = "N", .group = OPT_GRP_STATS,
	     .help = "tcpreplay's Actual/Rated lines every N seconds while sending (0: after each loop pass)",
	     .rules = RULES(ONE_THREAD("--stats counts the packets of one sender thread"))),
	FLAG(run.no_progress, .name = "no-progress", .group = OPT_GRP_STATS,
	     .help = "no status line on a terminal while sending"),
	FLAG(run.no_flow_stats, .name = "no-flow-stats", .group = OPT_GRP_STATS,
	     .help = "count no flows (no \"Flows:\" line, no \"flows\" in the JSON)"),
	UINT(run.flow_expiry_s, .name = "flow-expiry", .min = 0, .max = 315360000, .metavar = "SECONDS",
	     .group = OPT_GRP_STATS, .show_dflt = true,
	     .help = "count a flow again after SECONDS idle in trace time (tcpreplay's; 0 = never)"),
	FLAG(run.oneatatime, .name = "oneatatime", .group = OPT_GRP_TIMING,
	     .help = "ask on standard input how many packets to send next (tcpreplay's; Enter: one)",
	     .rules = RULES(EXCLUDES("topspeed speed pps mbps maxsleep", "--oneatatime sends each packet when asked"),
			    ONE_THREAD("it sends each packet when asked"))),
	FLAG(edit.skipl2broadcast, .name = "skipl2broadcast", .group = OPT_GRP_EDIT,
	     .help = "--enet-dmac/--enet-smac leave broadcast and IPv4/IPv6 multicast MACs as they are"),
	UINT(edit.mac_seed, .name = "enet-mac-seed", .min = 0, .max = UINT32_MAX, .metavar = "N",
	     .group = OPT_GRP_EDIT, .help = "scramble unicast MAC addresses with seed N, as tcprewrite does"),
	UINT(edit.mac_seed_keep, .name = "enet-mac-seed-keep-bytes", .min = 1, .max = 6, .metavar = "K",
	     .group = OPT_GRP_EDIT, .help = "with --enet-mac-seed: keep the first K bytes of each MAC (1-6)"),
	UINT(edit.fuzz_seed, .name = "fuzz-seed", .min = 0, .max = UINT32_MAX, .metavar = "N",
	     .group = OPT_GRP_EDIT,
	     .help = "fuzz 1 packet in 8 with seed N (bytes, length or a drop), as tcprewrite does",
	     .rules = RULES(EXCLUDES("@prep", "--fuzz-seed changes bytes and lengths a sidecar cannot hold"))),
	UINT(edit.fuzz_factor, .name = "fuzz-factor", .min = 1, .max = UINT32_MAX, .metavar = "F",
	     .group = OPT_GRP_EDIT, .help = "with --fuzz-seed: fuzz 1 packet in F instead of 8"),
	STR(run.fragroute, .name = "fragroute", .metavar = "FILE", .group = OPT_GRP_EDIT,
	    .help = "put each frame through fragroute's rules in FILE (ip_frag, tcp_seg, order, dup, drop, ...), as tcprewrite does",
	    .rules = RULES(ONE_THREAD("the rules' random choices are one sequence"), NOT_IN_PREP,
			   EXCLUDES("segment", "both cut frames: the rules' ip_frag and tcp_seg cut them as fragroute does"))),
	ENUM(run.fragdir, fragdir_choices, .name = "fragdir", .metavar = "DIR", .group = OPT_GRP_EDIT,
	     .help = "with -c: only c2s (client to server), s2c or both sides' frames go through --fragroute's rules",
	     .rules = RULES(NEEDS("fragroute", "it picks the frames the rules take"),
			    NEEDS("cachefile", "the tcpprep cache names each frame's side"))),
	UINT(run.fragroute_seed, .name = "fragroute-seed", .min = 0, .max = UINT32_MAX, .metavar = "N",
	     .group = OPT_GRP_EDIT, .help = "seed of --fragroute's random choices (default: --fuzz-seed's, else 1)",
	     .rules = RULES(NEEDS("fragroute", "it seeds the rules' random choices"))),
	FLAG(edit.skip_soft, .name = "skip-soft-errors", .group = OPT_GRP_EDIT,
	     .help = "drop the frames tcprewrite cannot edit (cut short, 802.3) instead of sending them"),
	STR(stats_json, .name = "stats-json", .metavar = "FILE", .group = OPT_GRP_STATS,
	    .help = "write the run's statistics as JSON to FILE ('-' = stdout)"),
	STR(stats_json, .name = "json", .metavar = "FILE", .group = OPT_GRP_STATS,
	    .help = "the same as --stats-json (replay-rx's name)"),
	STR(send_log, .name = "send-log", .metavar = "FILE", .group = OPT_GRP_STATS,
	    .help = "record each packet's send time and identity in FILE (for replay-rx --send-log)",
	    .rules = RULES(ONE_THREAD("--send-log records the packets in the order one thread sends them"))),
	FLAG(quiet, .name = "quiet", .key = 'q', .group = OPT_GRP_STATS,
	     .help = "print no summary and no warnings"),
	FLAG(no_warnings, .name = "suppress-warnings", .key = 'W', .group = OPT_GRP_STATS,
	     .help = "print no warnings (errors and the summary still)"),
	FLAG(pid, .name = "pid", .key = 'P', .group = OPT_GRP_STATS,
	     .help = "print replay's process ID at start-up"),
	FLAG(decode, .name = "verbose", .key = 'v', .group = OPT_GRP_STATS,
	     .help = "print each packet as it is sent, decoded by tcpdump (tcpdump -n -l -r -), on stdout",
	     .rules = RULES(ONE_THREAD("one tcpdump decodes the packets in the order they are sent"))),
	STR(decode_args, .name = "decode", .key = 'A', .metavar = "ARGS", .group = OPT_GRP_STATS, .dash_arg = true,
	    .help = "add ARGS (split at blanks) to tcpdump's command line, e.g. -A \"-e -x\"",
	    .rules = RULES(NEEDS("verbose", "it passes arguments to tcpdump for -v"))),
	COUNT(debug, .name = "debug", .group = OPT_GRP_STATS,
	      .help = "say more on stderr: once what is set up, twice debug output (replay's old -v)"),

	/* misc */
	FLAG(help, .name = "help", .key = 'h', .group = OPT_GRP_MISC, .help = "show this help and exit"),
	FLAG(help, .name = "less-help", .key = 'H', .group = OPT_GRP_MISC,
	     .help = "the same as --help (tcpreplay's -h and -H)"),
	FLAG(version, .name = "version", .key = 'V', .group = OPT_GRP_MISC,
	     .help = "show the version and exit"),
	STR(load_opts, .name = "load-opts", .metavar = "FILE", .group = OPT_GRP_MISC,
	    .help = "read options from FILE here, one 'name value' a line (tcpreplay's config "
		    "files, [TCPREPLAY]/[TCPREWRITE]/[TCPEDIT] sections by role)"),
	STR(save_opts, .name = "save-opts", .metavar = "FILE", .group = OPT_GRP_MISC,
	    .help = "write the options given to FILE in that form and exit; sends nothing"),
};

_Static_assert(ARRAY_SIZE(table) <= OPT_ROWS_MAX, "more rows than struct opt_given records");

static const char *const group_title[OPT_GRP_MAX] = {
	[OPT_GRP_INPUT] = "Input",
	[OPT_GRP_TIMING] = "Timing",
	[OPT_GRP_TX] = "Transmission",
	[OPT_GRP_EDIT] = "Editing",
	[OPT_GRP_IMPAIR] = "Impairment",
	[OPT_GRP_LOOP] = "Loops and limits",
	[OPT_GRP_STATS] = "Statistics and output",
	[OPT_GRP_MISC] = "Miscellaneous",
};

static const struct opts defaults = {
	.sched = {
		.mode = SCHED_MODE_TRACE,
		.timer = SCHED_TIMER_HYBRID,
		.late = SCHED_LATE_CATCHUP,
		.late_threshold_ns = 1000 * NSEC_PER_USEC,
		.start_clock = SCHED_CLOCK_REALTIME,
	},
	.rt = { .cpu = -1 },
	.tx = { .xdp_mode = TX_XDP_AUTO },
	.method = TX_METHOD_AUTO,
	.method2 = TX_METHOD_AUTO,
	.threads = 1,
	.edit = EDIT_CFG_DEFAULTS,
	.run = { .loop = 1, .stats_s = OPT_AUTO, .fragroute_seed = OPT_AUTO },
	.impair = { .repeat = 1 },
};

const struct opt_def *opts_table(size_t *n)
{
	*n = ARRAY_SIZE(table);
	return table;
}

/* The number at @s (@n bytes) of list @arg: decimal digits only, as opt_parse_u64() reads them. */
static int list_number(const char *arg, const char *s, size_t n, uint32_t max, uint64_t *v, char *err,
		       size_t len)
{
	char num[32];

	if (n == 0 || n >= sizeof(num) || strspn(s, "0123456789") < n)
		return opts_fail(err, len, "'%s' is not a list of numbers (like 0,2 or 0-3)", arg);
	memcpy(num, s, n);
	num[n] = '\0';
	return opt_parse_u64(num, OPT_NUM_DEC, 0, max, v, err, len);
}

int opts_list_parse(struct opts_list *l, const char *arg, uint32_t max, char *err, size_t len)
{
	const char *s = arg;

	l->n = 0;
	for (;;) {
		size_t n = strcspn(s, ","), na = strcspn(s, "-,");
		uint64_t a, b;

		if (list_number(arg, s, na, max, &a, err, len) < 0)
			return -EINVAL;
		b = a;
		if (na < n && list_number(arg, s + na + 1, n - na - 1, max, &b, err, len) < 0)
			return -EINVAL;
		if (a > b)
			return opts_fail(err, len, "'%s': the range %llu-%llu runs backwards (give %llu-%llu)", arg,
					 (unsigned long long)a, (unsigned long long)b, (unsigned long long)b,
					 (unsigned long long)a);
		for (uint64_t i = a; i <= b; i++) {
			if (l->n == OPTS_LIST_MAX)
				return opts_fail(err, len, "'%s' has more than %u numbers", arg, OPTS_LIST_MAX);
			l->v[l->n++] = (uint32_t)i;
		}
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

int opts_parse_cpus(void *list, void *cpu, const char *arg, char *err, size_t len)
{
	struct opts_list *l = list;

	if (opts_list_parse(l, arg, 1023, err, len) < 0)
		return -EINVAL;
	*(int *)cpu = (int)l->v[0];
	return 0;
}

int opts_parse_queues(void *list, void *queue, const char *arg, char *err, size_t len)
{
	struct opts_list *l = list;

	if (opts_list_parse(l, arg, 65535, err, len) < 0)
		return -EINVAL;
	*(unsigned *)queue = l->v[0];
	return 0;
}

#define REPLAY_SET(HINTS)                                                                         \
	{                                                                                          \
		.table = table,                                                                    \
		.n = ARRAY_SIZE(table),                                                            \
		.group_title = group_title,                                                        \
		.ngroups = OPT_GRP_MAX,                                                            \
		.defaults = &defaults,                                                             \
		.size = sizeof(struct opts),                                                       \
		.given_off = offsetof(struct opts, given),                                         \
		.synopsis = "[options] FILE...\nprep TRACE -o TRACE.prep [edit options]\n--info FILE...", \
		.about = "Replay packet traces onto a network interface, at their recorded timing or a chosen rate.", \
		.epilog = "Exit status: 0 done, 1 runtime or input error or any packet failed, 2 usage error,\n" \
			  "130/143 stopped by SIGINT/SIGTERM.  See replay(1).",                    \
		.hints = (HINTS),                                                                  \
		.conds = conds,                                                                    \
	}

static const struct opt_set replay_set = REPLAY_SET(opts_main_hints);
/* 'replay prep': the same options, with tcpprep's letters refused (prep_hints). */
static const struct opt_set prep_set = REPLAY_SET(opts_prep_hints);

const char *opts_one_thread_only(const struct opts *o)
{
	static char name[96];

	return opts_set_excluder(&replay_set, o, "threads", name, sizeof(name));
}

/* What the rows' rules cannot say: the operands, values, the modules' own checks. */
static int check(const struct opt_set *set, struct opts *o, struct opt_argv *store, char *err,
		 size_t len)
{
	if (o->help || o->version || o->listnics)
		return 0;
	if (!o->source_if && inputs_expand(o, store, err, len) < 0)
		return -EINVAL;
	if (opts_set_check(set, o, err, len) < 0 || edit_cfg_check(&o->edit, err, len) < 0 ||
	    opts_impair_check(&o->impair, err, len) < 0)
		return -EINVAL;
	return opts_check_combined(o, err, len);
}

/* The settings that follow from several options at once. */
static void resolve(const struct opt_set *set, struct opts *o)
{
	/* --oneatatime: each packet goes when the user says, then at once. */
	if (o->run.oneatatime)
		o->sched.mode = SCHED_MODE_TOPSPEED;
	o->rt.timer_slack = o->sched.mode != SCHED_MODE_TOPSPEED;
	o->rt.dma_latency = o->sched.mode != SCHED_MODE_TOPSPEED;
	o->rt.timer = o->sched.timer;
	/* A number given is kept; "auto" lets threads_auto_apply() decide. */
	o->threads_given = opt_given(set, o, "threads") && !o->threads_ask_auto;
}

/*
 * The sections of a config file that apply here, as tcpreplay's tools read
 * theirs (AutoOpts: the section named after the program): replay plays
 * tcpreplay, with -w tcprewrite, and "replay prep" tcpprep; [TCPEDIT], the
 * edits both tools share, applies to both.  -w decides when the command
 * line, or the files' lines before any section, give it: the lines a
 * section holds cannot choose which sections are read.  0, or -ENOMEM.
 */
static int role_sections(const struct opt_set *set, bool prep, const struct opt_argv *a,
			 const char *const **sections, char *err, size_t errlen)
{
	static const char *const replay[] = { "TCPREPLAY", "TCPEDIT", NULL };
	static const char *const rewrite[] = { "TCPREWRITE", "TCPEDIT", NULL };
	static const char *const tcpprep[] = { "TCPPREP", NULL };
	char **v = NULL, why[256];
	void *scratch = NULL;
	int n = 0, first;

	*sections = prep ? tcpprep : replay;
	if (prep || !a->pending)
		return 0;
	v = calloc((size_t)a->argc + 1, sizeof(*v));
	scratch = malloc(set->size);
	if (!v || !scratch) {
		free(v);
		free(scratch);
		return opts_fail(err, errlen, "out of memory"), -ENOMEM;
	}
	for (int i = 0; i < a->argc; i++)
		if (!a->sect[i])
			v[n++] = a->argv[i];
	/* A line that does not parse is named by the whole parse, after the selection. */
	if (opts_set_parse(set, scratch, n, v, &first, why, sizeof(why)) == 0 &&
	    opt_given(set, scratch, "write"))
		*sections = rewrite;
	free(v);
	free(scratch);
	return 0;
}

/*
 * The arguments after --load-opts expansion: option fields and o->files
 * point into them, so they live as long as the options (until the next
 * opts_parse()).
 */
static struct opt_argv loaded;
static const struct opt_set *parsed_set;

int opts_parse_into(struct opts *o, struct opt_argv *store, int argc, char **argv, char *err,
		    size_t errlen)
{
	bool prep = argc > 1 && !strcmp(argv[1], "prep");
	const struct opt_set *set = prep ? &prep_set : &replay_set;
	const char *const *sections;
	int first, rc;

	if (prep) {
		argc--;
		argv++;
	}
	opt_argv_free(store);
	rc = opts_set_load(set, argc, argv, store, err, errlen);
	if (rc == 0)
		rc = role_sections(set, prep, store, &sections, err, errlen);
	if (rc == 0)
		rc = opts_set_select(set, store, sections, err, errlen);
	if (rc < 0)
		return rc;
	if (store == &loaded)
		parsed_set = set;
	rc = opts_set_parse_argv(set, o, store, &first, err, errlen);
	if (rc < 0)
		return rc;
	o->load_opts = NULL; /* expanded: the file's options are in place of it */
	o->loaded = loaded.files;
	o->nloaded = loaded.nfiles;
	o->prep_cmd = prep;
	o->files = store->argv + first;
	o->nfiles = store->argc - first;
	/* Like tcpreplay, --save-opts saves the options given and checks no combination. */
	rc = o->save_opts ? 0 : check(set, o, store, err, errlen);
	resolve(set, o);
	return rc;
}

int opts_parse(struct opts *o, int argc, char **argv, char *err, size_t errlen)
{
	return opts_parse_into(o, &loaded, argc, argv, err, errlen);
}

int opts_save(FILE *f, char *err, size_t errlen)
{
	static const char *const skip[] = { "save-opts", "load-opts", NULL };

	if (!parsed_set)
		return opts_fail(err, errlen, "no options parsed");
	return opts_set_save(parsed_set, loaded.argc, loaded.argv, skip, f, err, errlen);
}

const struct opt_set *opts_replay_set(void)
{
	return &replay_set;
}

void opts_usage(FILE *f, const char *prog)
{
	opts_set_usage(&replay_set, f, prog);
}
