// SPDX-License-Identifier: BSD-2-Clause
/*
 * The option table and the parser and --help generated from it.  To add an
 * option: add a field to struct opts, a row here in its group, a line to the
 * man page's OPTIONS and to README.md.  Options that tcpreplay also has keep
 * tcpreplay's names and meanings, so that users' command lines carry over.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/opts.h"
#include "replay/trace.h"

#define F(field) offsetof(struct opts, field)

static const struct opt_def table[] = {
	/* input */
	{ "info", 0, OPT_T_FLAG, F(info), 0, 0, 0, NULL, OPT_GRP_INPUT,
	  "describe each FILE (format, interfaces, packets, times, lengths) and exit; sends nothing" },
	{ "preload", 'K', OPT_T_FLAG, F(preload), 0, 0, 0, NULL, OPT_GRP_INPUT,
	  "read each trace into memory before sending (for loops); refused if it will not fit" },
	{ "window-size", 0, OPT_T_SIZE, F(window_bytes), 0, TRACE_WINDOW_MIN_BYTES, 1ull << 40,
	  "BYTES", OPT_GRP_INPUT, "read-ahead window for traces on disk (default 32M; K, M, G suffixes)" },

	/* timing */
	{ "topspeed", 't', OPT_T_SET, F(mode), SCHED_MODE_TOPSPEED, 0, 0, NULL, OPT_GRP_TIMING,
	  "send as fast as the interface takes packets, ignoring timestamps" },
	{ "speed", 'x', OPT_T_FUNC, F(speed), 0, 0, 0, "X", OPT_GRP_TIMING,
	  "play the recorded timing X times as fast (0.5 = half speed)", sched_parse_ratio },
	{ "multiplier", 0, OPT_T_FUNC, F(speed), 0, 0, 0, "X", OPT_GRP_TIMING,
	  "the same as --speed (tcpreplay's name)", sched_parse_ratio },
	{ "pps", 'p', OPT_T_FUNC, F(pps), 0, 0, 0, "N", OPT_GRP_TIMING,
	  "send N packets per second, evenly spaced, ignoring timestamps", sched_parse_ratio },
	{ "mbps", 'M', OPT_T_FUNC, F(mbps), 0, 0, 0, "N", OPT_GRP_TIMING,
	  "send at N megabits per second of frame bytes, ignoring timestamps", sched_parse_ratio },
	{ "wire-overhead", 0, OPT_T_FLAG, F(wire_overhead), 0, 0, 0, NULL, OPT_GRP_TIMING,
	  "--mbps counts Ethernet padding, FCS, preamble and gap (24+ bytes a frame)" },
	{ "timer", 'T', OPT_T_FUNC, F(timer), 0, 0, 0, "KIND", OPT_GRP_TIMING,
	  "wait by hybrid (sleep, then spin; default), sleep or spin", sched_parse_timer },
	{ "spin-us", 0, OPT_T_U64, F(spin_us), 0, 0, 1000000, "US", OPT_GRP_TIMING,
	  "hybrid: spin the last US microseconds (default: measured at start-up)" },
	{ "late", 0, OPT_T_FUNC, F(late), 0, 0, 0, "POLICY", OPT_GRP_TIMING,
	  "after a stall: catchup (send late packets at once; default) or shift", sched_parse_late },
	{ "late-threshold", 0, OPT_T_U64, F(late_threshold_us), 0, 0, 3600000000ull, "US",
	  OPT_GRP_TIMING, "a packet later than US microseconds is a stall (default 1000)" },
	{ "rt-priority", 0, OPT_T_U64, F(rt_priority), 0, 1, 99, "N", OPT_GRP_TIMING,
	  "run under SCHED_FIFO priority N, memory locked (needs CAP_SYS_NICE)" },
	{ "cpu", 0, OPT_T_U64, F(cpu), 0, 0, 1023, "N", OPT_GRP_TIMING,
	  "run on CPU N only" },

	/* transmission */
	{ "intf1", 'i', OPT_T_STR, F(intf1), 0, 0, 0, "IF", OPT_GRP_TX,
	  "send on interface IF (AF_PACKET; needs CAP_NET_RAW)" },
	{ "write", 'w', OPT_T_STR, F(write_path), 0, 0, 0, "FILE", OPT_GRP_TX,
	  "dry run: write the frames to a nanosecond pcap FILE ('-' = stdout) instead" },
	{ "method", 0, OPT_T_STR, F(method), 0, 0, 0, "NAME", OPT_GRP_TX,
	  "transmit with NAME: auto (default), packet, mmsg, ring, uring, xdp, raw, file" },
	{ "batch", 0, OPT_T_U64, F(batch), 0, 1, 1024, "N", OPT_GRP_TX,
	  "hand at most N due packets to the kernel per kick (default 64)" },
	{ "qdisc-bypass", 0, OPT_T_FLAG, F(qdisc_bypass), 0, 0, 0, NULL, OPT_GRP_TX,
	  "skip the interface's qdisc (no tc shaping); lets auto choose xdp" },
	{ "xdp-queue", 0, OPT_T_U64, F(xdp_queue), 0, 0, 65535, "N", OPT_GRP_TX,
	  "xdp: bind the AF_XDP socket to device queue N (default 0)" },
	{ "xdp-mode", 0, OPT_T_STR, F(xdp_mode), 0, 0, 0, "MODE", OPT_GRP_TX,
	  "xdp: auto (zero-copy if the driver can, else copy), copy or zerocopy" },
	{ "uring-sqpoll", 0, OPT_T_FLAG, F(uring_sqpoll), 0, 0, 0, NULL, OPT_GRP_TX,
	  "uring: let a kernel thread poll the submission queue (no submit syscalls)" },

	/* editing: tcprewrite's names and meanings, so pasted command lines work */
	{ "filter", 0, OPT_T_STR, F(edit.filter), 0, 0, 0, "EXPR", OPT_GRP_EDIT,
	  "send only packets matching the libpcap filter EXPR" },
	{ "include", 0, OPT_T_FUNC, F(edit.include), 0, 0, 0, "P:LIST", OPT_GRP_EDIT,
	  "send only packets numbered in LIST (P:1-5,9,72-)", edit_parse_pktlist },
	{ "exclude", 0, OPT_T_FUNC, F(edit.exclude), 0, 0, 0, "P:LIST", OPT_GRP_EDIT,
	  "do not send packets numbered in LIST", edit_parse_pktlist },
	{ "enet-dmac", 0, OPT_T_FUNC, F(edit.dmac), 0, 0, 0, "MAC[,MAC]", OPT_GRP_EDIT,
	  "rewrite destination MACs (client->server,server->client)", edit_parse_macs },
	{ "dmac", 0, OPT_T_FUNC, F(edit.dmac), 0, 0, 0, "MAC[,MAC]", OPT_GRP_EDIT,
	  "same as --enet-dmac", edit_parse_macs },
	{ "enet-smac", 0, OPT_T_FUNC, F(edit.smac), 0, 0, 0, "MAC[,MAC]", OPT_GRP_EDIT,
	  "rewrite source MACs (client->server,server->client)", edit_parse_macs },
	{ "smac", 0, OPT_T_FUNC, F(edit.smac), 0, 0, 0, "MAC[,MAC]", OPT_GRP_EDIT,
	  "same as --enet-smac", edit_parse_macs },
	{ "enet-vlan", 0, OPT_T_FUNC, F(edit.vlan), 0, 0, 0, "add|del", OPT_GRP_EDIT,
	  "push an 802.1Q tag, or pop the outermost one", edit_parse_vlan },
	{ "enet-vlan-tag", 0, OPT_T_U64, F(edit.vlan_tag), 0, 0, 4095, "N", OPT_GRP_EDIT,
	  "VLAN ID of the pushed tag (0-4095)" },
	{ "enet-vlan-pri", 0, OPT_T_U64, F(edit.vlan_pri), 0, 0, 7, "N", OPT_GRP_EDIT,
	  "priority (PCP) of the pushed tag (0-7)" },
	{ "enet-vlan-cfi", 0, OPT_T_U64, F(edit.vlan_cfi), 0, 0, 1, "N", OPT_GRP_EDIT,
	  "CFI/DEI bit of the pushed tag (0-1)" },
	{ "enet-vlan-proto", 0, OPT_T_FUNC, F(edit.vlan_proto), 0, 0, 0, "802.1q|802.1ad",
	  OPT_GRP_EDIT, "TPID of the pushed tag (default 802.1q)", edit_parse_vlan_proto },
	{ "pnat", 'N', OPT_T_FUNC, F(edit.pnat), 0, 0, 0, "FROM:TO,...", OPT_GRP_EDIT,
	  "map addresses between CIDR blocks (twice: clients, then servers)", edit_parse_pnat },
	{ "srcipmap", 'S', OPT_T_FUNC, F(edit.srcipmap), 0, 0, 0, "FROM:TO,...", OPT_GRP_EDIT,
	  "map source addresses between CIDR blocks", edit_parse_cidrmap },
	{ "dstipmap", 'D', OPT_T_FUNC, F(edit.dstipmap), 0, 0, 0, "FROM:TO,...", OPT_GRP_EDIT,
	  "map destination addresses between CIDR blocks", edit_parse_cidrmap },
	{ "portmap", 'r', OPT_T_FUNC, F(edit.portmap), 0, 0, 0, "P[-Q]:NEW,...", OPT_GRP_EDIT,
	  "rewrite TCP/UDP ports (repeatable)", edit_parse_portmap },
	{ "seed", 's', OPT_T_U64, F(edit.seed), 0, 0, UINT32_MAX, "N", OPT_GRP_EDIT,
	  "scramble IP addresses with seed N, as tcprewrite does" },
	{ "skipbroadcast", 'b', OPT_T_FLAG, F(edit.skipbroadcast), 0, 0, 0, NULL, OPT_GRP_EDIT,
	  "leave broadcast and multicast addresses alone in --seed/--pnat" },
	{ "ttl", 0, OPT_T_FUNC, F(edit.ttl), 0, 0, 0, "[+-]N", OPT_GRP_EDIT,
	  "set, raise or lower the IPv4 TTL / IPv6 hop limit", edit_parse_ttl },
	{ "tos", 0, OPT_T_U64, F(edit.tos), 0, 0, 255, "N", OPT_GRP_EDIT,
	  "set the IPv4 TOS/DiffServ byte" },
	{ "mtu", 0, OPT_T_U64, F(edit.mtu), 0, 1, 262144, "N", OPT_GRP_EDIT,
	  "layer-3 size limit for --mtu-trunc (default 1500)" },
	{ "mtu-trunc", 0, OPT_T_FLAG, F(edit.mtu_trunc), 0, 0, 0, NULL, OPT_GRP_EDIT,
	  "truncate packets larger than --mtu" },
	{ "fixlen", 'F', OPT_T_FUNC, F(edit.fixlen), 0, 0, 0, "pad|trunc|del", OPT_GRP_EDIT,
	  "for packets the capture cut short: pad, fix IP length, or drop", edit_parse_fixlen },
	{ "fixcsum", 'C', OPT_T_FLAG, F(edit.fixcsum), 0, 0, 0, NULL, OPT_GRP_EDIT,
	  "recompute IPv4, TCP, UDP, ICMP and ICMPv6 checksums" },
	{ "pad-payload", 0, OPT_T_FLAG, F(edit.pad_payload), 0, 0, 0, NULL, OPT_GRP_EDIT,
	  "send each packet at its wire length: headers, then zeros" },
	{ "prep", 0, OPT_T_STR, F(prep_path), 0, 0, 0, "FILE", OPT_GRP_EDIT,
	  "take offsets and checksums from FILE, made by 'replay prep'" },
	{ "output", 'o', OPT_T_STR, F(prep_out), 0, 0, 0, "FILE", OPT_GRP_EDIT,
	  "with 'replay prep TRACE': write the sidecar to FILE" },

	/* loops and limits */
	{ "loop", 'l', OPT_T_U64, F(loop), 0, 0, UINT64_MAX, "N", OPT_GRP_LOOP,
	  "play the file list N times (0 = forever; default 1)" },
	{ "limit", 'L', OPT_T_U64, F(limit), 0, 1, UINT64_MAX, "N", OPT_GRP_LOOP,
	  "stop after sending N packets" },

	/* statistics and output */
	{ "stats-json", 0, OPT_T_STR, F(stats_json), 0, 0, 0, "FILE", OPT_GRP_STATS,
	  "write the run's statistics as JSON to FILE ('-' = stdout)" },
	{ "send-log", 0, OPT_T_STR, F(send_log), 0, 0, 0, "FILE", OPT_GRP_STATS,
	  "record each packet's send time and identity in FILE (for replay-rx --send-log)" },
	{ "quiet", 'q', OPT_T_FLAG, F(quiet), 0, 0, 0, NULL, OPT_GRP_STATS,
	  "print no summary and no warnings" },
	{ "verbose", 'v', OPT_T_COUNT, F(verbose), 0, 0, 0, NULL, OPT_GRP_STATS,
	  "say more (repeat for debug output)" },

	/* misc */
	{ "help", 'h', OPT_T_FLAG, F(help), 0, 0, 0, NULL, OPT_GRP_MISC, "show this help and exit" },
	{ "version", 'V', OPT_T_FLAG, F(version), 0, 0, 0, NULL, OPT_GRP_MISC,
	  "show the version and exit" },
};

static const char *const group_title[OPT_GRP_MAX] = {
	[OPT_GRP_INPUT] = "Input",
	[OPT_GRP_TIMING] = "Timing",
	[OPT_GRP_TX] = "Transmission",
	[OPT_GRP_EDIT] = "Editing",
	[OPT_GRP_LOOP] = "Loops and limits",
	[OPT_GRP_STATS] = "Statistics and output",
	[OPT_GRP_MISC] = "Miscellaneous",
};

static const struct opts defaults = {
	.mode = SCHED_MODE_TRACE,
	.edit = EDIT_CFG_DEFAULTS,
	.timer = SCHED_TIMER_HYBRID,
	.spin_us = OPT_AUTO,
	.late = SCHED_LATE_CATCHUP,
	.late_threshold_us = 1000,
	.cpu = OPT_AUTO,
	.loop = 1,
};

const struct opt_def *opts_table(size_t *n)
{
	*n = ARRAY_SIZE(table);
	return table;
}

int opts_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_u64(const struct opt_def *d, const char *arg, uint64_t *v, char *err, size_t len)
{
	char *end;

	errno = 0;
	/* strtoull accepts "-1" as a huge number: refuse any sign up front. */
	if (!*arg || *arg == '-' || *arg == '+' || *arg == ' ')
		return opts_fail(err, len, "--%s: '%s' is not a non-negative integer", d->name, arg);
	*v = strtoull(arg, &end, 10);
	if (*end)
		return opts_fail(err, len, "--%s: '%s' is not a non-negative integer", d->name, arg);
	if (errno == ERANGE || *v < d->min || *v > d->max)
		return opts_fail(err, len, "--%s: %s is out of range (%" PRIu64 "..%" PRIu64 ")", d->name,
			    arg, d->min, d->max);
	return 0;
}

/* A byte count: decimal, then optionally K, M or G (KiB, MiB, GiB). */
static int parse_size(const struct opt_def *d, const char *arg, uint64_t *v, char *err, size_t len)
{
	static const char units[] = "KMG";
	const char *u;
	char *end;

	errno = 0;
	if (!*arg || *arg < '0' || *arg > '9')
		return opts_fail(err, len, "--%s: '%s' is not a size (bytes, or a number with K, M or G)",
			    d->name, arg);
	*v = strtoull(arg, &end, 10);
	if (*end && (end[1] || !(u = strchr(units, *end & ~0x20))))
		return opts_fail(err, len, "--%s: '%s' is not a size (bytes, or a number with K, M or G)",
			    d->name, arg);
	if (*end) {
		unsigned shift = 10 * (unsigned)(u - units + 1);

		if (*v > UINT64_MAX >> shift)
			errno = ERANGE;
		*v <<= shift;
	}
	if (errno == ERANGE || *v < d->min || *v > d->max)
		return opts_fail(err, len, "--%s: %s is out of range (%" PRIu64 "K..%" PRIu64 "G)", d->name,
			    arg, d->min >> 10, d->max >> 30);
	return 0;
}

static int apply(void *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	char *field = (char *)o + d->off;

	switch (d->type) {
	case OPT_T_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_T_SET:
		*(int *)field = (int)d->val;
		return 0;
	case OPT_T_COUNT:
		(*(int *)field)++;
		return 0;
	case OPT_T_STR:
		if (!*arg)
			return opts_fail(err, len, "--%s: empty argument", d->name);
		*(const char **)field = arg;
		return 0;
	case OPT_T_U64:
		return parse_u64(d, arg, (uint64_t *)field, err, len);
	case OPT_T_DOUBLE: {
		char *end;
		double v;

		errno = 0;
		v = strtod(arg, &end);
		if (!*arg || *end || errno == ERANGE || !isfinite(v) || v <= 0)
			return opts_fail(err, len, "--%s: '%s' is not a positive number", d->name, arg);
		*(double *)field = v;
		return 0;
	}
	case OPT_T_FUNC: {
		char why[256];

		if (d->parse(field, arg, why, sizeof(why)) < 0)
			return opts_fail(err, len, "--%s: %s", d->name, why);
		return 0;
	}
	case OPT_T_SIZE:
		return parse_size(d, arg, (uint64_t *)field, err, len);
	case OPT_T_MAX:
		break;
	}
	return opts_fail(err, len, "--%s: internal error: bad option type", d->name);
}

/* The timing mode from the options that choose one; at most one may be given. */
static int timing(struct opts *o, char *err, size_t len)
{
	int n = (o->mode == SCHED_MODE_TOPSPEED) + !!o->speed.num + !!o->pps.num + !!o->mbps.num;

	if (n > 1)
		return opts_fail(err, len, "--topspeed, --speed, --pps and --mbps exclude each other: give one");
	if (o->pps.num)
		o->mode = SCHED_MODE_PPS;
	else if (o->mbps.num)
		o->mode = SCHED_MODE_MBPS;
	if (o->wire_overhead && o->mode != SCHED_MODE_MBPS)
		return opts_fail(err, len, "--wire-overhead only applies to --mbps");
	if (o->spin_us != OPT_AUTO && o->timer != SCHED_TIMER_HYBRID)
		return opts_fail(err, len, "--spin-us sets the hybrid timer's margin; --timer=%s has none",
			    sched_timer_name(o->timer));
	return 0;
}

/* Checks that need every option at once. */
static int check(const struct opts *o, char *err, size_t len)
{
	if (o->help || o->version)
		return 0;
	if (edit_cfg_check(&o->edit, err, len) < 0)
		return -EINVAL;
	if (o->prep_cmd) {
		if (o->intf1 || o->write_path || o->prep_path)
			return opts_fail(err, len, "replay prep writes a sidecar: no -i, -w or --prep");
		if (!o->prep_out)
			return opts_fail(err, len, "replay prep: give the sidecar's name with -o FILE");
		if (o->nfiles != 1)
			return opts_fail(err, len, "replay prep: give exactly one trace file");
		return 0;
	}
	if (o->prep_out)
		return opts_fail(err, len, "-o is for 'replay prep TRACE -o FILE'; to write frames use -w");
	if (o->prep_path && o->nfiles != 1)
		return opts_fail(err, len, "--prep: a sidecar belongs to one trace; give exactly one file");
	if (o->info) {
		if (o->intf1 || o->write_path)
			return opts_fail(err, len, "--info only reads the files: it takes no -i or -w");
		if (o->nfiles == 0)
			return opts_fail(err, len, "no trace file given");
		return 0;
	}
	if (o->intf1 && o->write_path)
		return opts_fail(err, len, "-i and -w exclude each other: send on an interface or write a file");
	if (!o->intf1 && !o->write_path)
		return opts_fail(err, len, "no output: give an interface (-i IF) or an output file (-w FILE)");
	if (o->nfiles == 0)
		return opts_fail(err, len, "no trace file given");
	if (o->write_path && o->method && strcmp(o->method, "auto") && strcmp(o->method, "file"))
		return opts_fail(err, len, "-w writes a file: --method %s needs an interface (-i)", o->method);
	if (o->intf1 && o->method && !strcmp(o->method, "file"))
		return opts_fail(err, len, "--method file needs an output file (-w FILE), not -i");
	if (o->xdp_mode && strcmp(o->xdp_mode, "auto") && strcmp(o->xdp_mode, "copy") &&
	    strcmp(o->xdp_mode, "zerocopy"))
		return opts_fail(err, len, "--xdp-mode: '%s' is not auto, copy or zerocopy", o->xdp_mode);
	return 0;
}

static const struct opt_set replay_set = {
	.table = table,
	.n = ARRAY_SIZE(table),
	.group_title = group_title,
	.ngroups = OPT_GRP_MAX,
	.defaults = &defaults,
	.size = sizeof(struct opts),
	.synopsis = "[options] FILE...\nprep TRACE -o TRACE.prep [edit options]\n--info FILE...",
	.about = "Replay packet traces onto a network interface, at their recorded timing or a chosen rate.",
	.epilog = "Exit status: 0 done, 1 runtime or input error or any packet failed, 2 usage error,\n"
		  "130/143 stopped by SIGINT/SIGTERM.  See replay(1).",
};

int opts_set_parse(const struct opt_set *set, void *cfg, int argc, char **argv, int *first_arg,
		   char *err, size_t errlen)
{
	const struct opt_def *table = set->table;
	struct option *lopts;
	char *sopts;
	size_t ns = 0;
	int c, idx, rc = 0;

	memcpy(cfg, set->defaults, set->size);
	lopts = calloc(set->n + 1, sizeof(*lopts));
	sopts = calloc(2 + 2 * set->n + 1, 1);
	if (!lopts || !sopts) {
		opts_fail(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	sopts[ns++] = ':'; /* report a missing argument as ':' */
	for (size_t i = 0; i < set->n; i++) {
		lopts[i] = (struct option){
			.name = table[i].name,
			.has_arg = table[i].metavar ? required_argument : no_argument,
			.flag = NULL,
			.val = 256 + (int)i,
		};
		if (table[i].key) {
			sopts[ns++] = (char)table[i].key;
			if (table[i].metavar)
				sopts[ns++] = ':';
		}
	}
	sopts[ns] = '\0';

	optind = 0; /* full reset of getopt's state: parsing may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, &idx)) != -1) {
		const struct opt_def *d = NULL;

		if (c == '?') {
			if (optopt)
				rc = opts_fail(err, errlen, "unknown option '-%c' (try --help)", optopt);
			else
				rc = opts_fail(err, errlen, "unknown option '%s' (try --help)", argv[optind - 1]);
			goto out;
		}
		if (c == ':') {
			rc = opts_fail(err, errlen, "option '%s' needs an argument", argv[optind - 1]);
			goto out;
		}
		if (c >= 256) {
			d = &table[c - 256];
		} else {
			for (size_t i = 0; i < set->n; i++)
				if (table[i].key == c)
					d = &table[i];
		}
		if (!d) {
			rc = opts_fail(err, errlen, "internal error: option %d not in the table", c);
			goto out;
		}
		rc = apply(cfg, d, optarg, err, errlen);
		if (rc < 0)
			goto out;
	}
	*first_arg = optind;
out:
	free(lopts);
	free(sopts);
	return rc;
}

int opts_parse(struct opts *o, int argc, char **argv, char *err, size_t errlen)
{
	bool prep = argc > 1 && !strcmp(argv[1], "prep");
	int first, rc;

	if (prep) {
		argc--;
		argv++;
	}
	rc = opts_set_parse(&replay_set, o, argc, argv, &first, err, errlen);
	if (rc < 0)
		return rc;
	o->prep_cmd = prep;
	o->files = argv + first;
	o->nfiles = argc - first;
	if (!o->help && !o->version && timing(o, err, errlen) < 0)
		return -EINVAL;
	return check(o, err, errlen);
}

void opts_set_usage(const struct opt_set *set, FILE *f, const char *prog)
{
	const char *line = set->synopsis;

	/* One usage line per line of the synopsis, each after the program's name. */
	fprintf(f, "Usage: ");
	for (;;) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);

		fprintf(f, "%s %.*s\n", prog, len, line);
		if (!nl)
			break;
		line = nl + 1;
		fprintf(f, "       ");
	}
	fprintf(f, "%s\n", set->about);
	for (unsigned g = 0; g < set->ngroups; g++) {
		bool header = false;

		for (size_t i = 0; i < set->n; i++) {
			const struct opt_def *d = &set->table[i];
			char left[64];
			int n;

			if (d->group != g)
				continue;
			if (!header) {
				fprintf(f, "\n%s:\n", set->group_title[g]);
				header = true;
			}
			if (d->key)
				n = snprintf(left, sizeof(left), "-%c, --%s", d->key, d->name);
			else
				n = snprintf(left, sizeof(left), "    --%s", d->name);
			if (d->metavar && n > 0 && (size_t)n < sizeof(left))
				snprintf(left + n, sizeof(left) - (size_t)n, " %s", d->metavar);
			fprintf(f, "  %-26s %s\n", left, d->help);
		}
	}
	if (set->epilog)
		fprintf(f, "\n%s\n", set->epilog);
}

void opts_usage(FILE *f, const char *prog)
{
	opts_set_usage(&replay_set, f, prog);
}
