// SPDX-License-Identifier: BSD-2-Clause
/* Option parsing, and that every option is documented. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "optcheck.h"
#include "replay/opts.h"
#include "replay/tx.h"

static char err[512];

/* argv lives here, not in the caller's scope: struct opts keeps pointers into it. */
static char *argv_store[32];

static int parse_list(struct opts *o, char *const *args, int n)
{
	argv_store[0] = "replay";
	for (int i = 0; i < n && i < 30; i++)
		argv_store[i + 1] = args[i];
	argv_store[n + 1] = NULL;
	return opts_parse(o, n + 1, argv_store, err, sizeof(err));
}

#define PARSE(o, ...)                                                               \
	parse_list((o), (char *const[]){ __VA_ARGS__ },                             \
		   (int)(sizeof((char *const[]){ __VA_ARGS__ }) / sizeof(char *)))

static void test_defaults_and_basics(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-i", "veth0", "a.pcap", "b.pcap"), 0);
	assert_string_equal(o.tx.ifname, "veth0");
	assert_null(o.tx.path);
	assert_int_equal(o.nfiles, 2);
	assert_string_equal(o.files[0], "a.pcap");
	assert_string_equal(o.files[1], "b.pcap");
	assert_int_equal(o.sched.mode, SCHED_MODE_TRACE);
	assert_int_equal(o.run.loop, 1);
	assert_int_equal(o.run.limit, 0);
	assert_false(o.quiet);

	assert_int_equal(PARSE(&o, "a.pcap", "--intf1=eth1", "-t", "--loop", "0", "-L", "5",
			       "--stats-json", "-", "-q", "--debug", "--debug"), 0);
	assert_string_equal(o.tx.ifname, "eth1");
	assert_int_equal(o.sched.mode, SCHED_MODE_TOPSPEED);
	assert_int_equal(o.run.loop, 0);
	assert_int_equal(o.run.limit, 5);
	assert_string_equal(o.stats_json, "-");
	assert_true(o.quiet);
	assert_int_equal(o.debug, 2);
	assert_false(o.decode);

	assert_int_equal(PARSE(&o, "-w", "out.pcap", "--topspeed", "a.pcap"), 0);
	assert_string_equal(o.tx.path, "out.pcap");
}

static void expect_usage_error(int rc, const char *msg)
{
	assert_int_equal(rc, -EINVAL);
	assert_string_equal(err, msg);
}

/*
 * -v/--verbose and -A/--decode are tcpreplay's: each packet sent,
 * decoded by tcpdump with ARGS; the old "say more" is --debug, counted.
 */
static void test_decode_opts(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-i", "x", "a"), 0);
	assert_false(o.decode);
	assert_null(o.decode_args);
	assert_int_equal(o.debug, 0);
	assert_int_equal(PARSE(&o, "-v", "-i", "x", "a"), 0);
	assert_true(o.decode);
	assert_int_equal(o.debug, 0);
	assert_int_equal(PARSE(&o, "--verbose", "--decode", "-e -x", "-w", "o", "a"), 0);
	assert_true(o.decode);
	assert_string_equal(o.decode_args, "-e -x");
	assert_int_equal(PARSE(&o, "-v", "-A", "-e", "-w", "o", "a"), 0);
	assert_string_equal(o.decode_args, "-e");
	assert_int_equal(PARSE(&o, "-v", "--decode=-vvv -X", "-w", "o", "a"), 0);
	assert_string_equal(o.decode_args, "-vvv -X");
	assert_int_equal(PARSE(&o, "--debug", "-i", "x", "a"), 0);
	assert_int_equal(o.debug, 1);
	assert_false(o.decode);
	assert_int_equal(PARSE(&o, "--debug", "--debug", "-i", "x", "a"), 0);
	assert_int_equal(o.debug, 2);
	/* As tcprewrite 4.6: "decode option requires the verbose option". */
	expect_usage_error(PARSE(&o, "-A", "-e", "-w", "o", "a"),
			   "-A needs --verbose: it passes arguments to tcpdump for -v");
	/* tcpdump's lines go to stdout: nothing else may write there. */
	expect_usage_error(PARSE(&o, "-v", "-w", "-", "a"),
			   "-v prints tcpdump's lines on stdout, where -w - writes: give it a file");
	expect_usage_error(PARSE(&o, "-v", "-i", "x", "--stats-json", "-", "a"),
			   "-v prints tcpdump's lines on stdout, where --stats-json - writes: give it a file");
	expect_usage_error(PARSE(&o, "-v", "-i", "x", "--send-log", "-", "a"),
			   "-v prints tcpdump's lines on stdout, where --send-log - writes: give it a file");
	expect_usage_error(PARSE(&o, "-v", "--info", "a"),
			   "--info excludes -v: -v decodes the packets sent, and --info sends none (replay -v -w "
			   "/dev/null FILE decodes them)");
	expect_usage_error(PARSE(&o, "-v", "-i", "x", "--threads", "2", "a"),
			   "-v excludes --threads 2: one tcpdump decodes the packets in the order they are sent; "
			   "use one thread");
	/* --pktlen beside --pad-payload would change nothing: refused, one line. */
	expect_usage_error(PARSE(&o, "--pktlen", "--pad-payload", "-w", "o", "a"),
			   "--pad-payload already sends each frame at its wire length (zeros past the headers); "
			   "--pktlen would change nothing: give one");
	assert_int_equal(PARSE(&o, "--pktlen", "-w", "o", "a"), 0);
	assert_int_equal(PARSE(&o, "--pad-payload", "-w", "o", "a"), 0);
	/* The abbreviation --debu is no spelling of --debug. */
	assert_int_equal(PARSE(&o, "--debu", "-i", "x", "a"), -EINVAL);
}

static void test_errors(void **state)
{
	struct opts o;

	(void)state;
	expect_usage_error(PARSE(&o, "a.pcap"),
			   "no output: give an interface (-i IF) or an output file (-w FILE)");
	expect_usage_error(PARSE(&o, "-i", "x", "-w", "y", "a.pcap"),
			   "-i excludes -w: send on an interface or write a file");
	expect_usage_error(PARSE(&o, "-i", "x"), "no trace file given");
	expect_usage_error(PARSE(&o, "-i", "x", "--loop", "ten", "a"),
			   "--loop: 'ten' is not a non-negative integer");
	expect_usage_error(PARSE(&o, "-i", "x", "--loop", "-1", "a"),
			   "--loop: '-1' is not a non-negative integer");
	expect_usage_error(PARSE(&o, "-i", "x", "--loop", "99999999999999999999", "a"),
			   "--loop: 99999999999999999999 is out of range (0..18446744073709551615)");
	expect_usage_error(PARSE(&o, "-i", "x", "--limit", "0", "a"),
			   "--limit: 0 is out of range (1..18446744073709551615)");
	expect_usage_error(PARSE(&o, "-i", "x", "--frobnicate", "a"),
			   "unknown option '--frobnicate' (try --help)");
	expect_usage_error(PARSE(&o, "-i", "x", "-Z", "a"), "unknown option '-Z' (try --help)");
	expect_usage_error(PARSE(&o, "a", "-i"), "option '-i' needs an argument");
	expect_usage_error(PARSE(&o, "a", "--intf1"), "option '--intf1' needs an argument");
	expect_usage_error(PARSE(&o, "-i", "", "a"), "--intf1: empty argument");
}

/* The input group: --info needs no output, -K and --window-size feed the readers. */
static void test_input_options(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "--info", "a.pcap", "b.pcapng"), 0);
	assert_true(o.info);
	assert_int_equal(o.nfiles, 2);
	assert_false(o.trace.preload);
	assert_int_equal(o.trace.window_bytes, 0);
	expect_usage_error(PARSE(&o, "--info", "-w", "x", "a.pcap"), "--info excludes -w: --info only reads the files");
	expect_usage_error(PARSE(&o, "--info"), "no trace file given");

	assert_int_equal(PARSE(&o, "-K", "-i", "x", "--window-size", "64M", "a"), 0);
	assert_true(o.trace.preload);
	assert_int_equal(o.trace.window_bytes, 64ull << 20);
	assert_int_equal(PARSE(&o, "-i", "x", "--window-size=1g", "a"), 0);
	assert_int_equal(o.trace.window_bytes, 1ull << 30);
	assert_int_equal(PARSE(&o, "-i", "x", "--window-size", "262144", "a"), 0);
	assert_int_equal(o.trace.window_bytes, 262144);
	assert_int_equal(PARSE(&o, "-i", "x", "--window-size", "512K", "a"), 0);
	assert_int_equal(o.trace.window_bytes, 512 << 10);
	expect_usage_error(PARSE(&o, "-i", "x", "--window-size", "100K", "a"),
			   "--window-size: 100K is out of range (256K..1024G)");
	expect_usage_error(PARSE(&o, "-i", "x", "--window-size", "32MB", "a"),
			   "--window-size: '32MB' is not a size (bytes, or a number with K, M or G)");
	expect_usage_error(PARSE(&o, "-i", "x", "--window-size", "-1", "a"),
			   "--window-size: '-1' is not a size (bytes, or a number with K, M or G)");
	expect_usage_error(PARSE(&o, "-i", "x", "--window-size", "99999999999G", "a"),
			   "--window-size: 99999999999G is out of range (256K..1024G)");
	expect_usage_error(PARSE(&o, "-i", "x", "--window-size", "20000000000000000000G", "a"),
			   "--window-size: 20000000000000000000G is out of range (256K..1024G)");
}

/* opts_xdp_inplace(): only one preloaded file, on interfaces one of which AF_XDP may send by. */
static void test_xdp_inplace(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-K", "-i", "x", "a"), 0);
	assert_true(opts_xdp_inplace(&o));
	assert_int_equal(PARSE(&o, "-K", "--method", "xdp", "-i", "x", "a"), 0);
	assert_true(opts_xdp_inplace(&o));
	assert_int_equal(PARSE(&o, "--method", "xdp", "-i", "x", "a"), 0);
	assert_false(opts_xdp_inplace(&o)); /* streamed */
	assert_int_equal(PARSE(&o, "-K", "--method", "mmsg", "-i", "x", "a"), 0);
	assert_false(opts_xdp_inplace(&o));
	assert_int_equal(PARSE(&o, "-K", "--method", "xdp", "-i", "x", "a", "b"), 0);
	assert_false(opts_xdp_inplace(&o)); /* two files: one UMEM cannot hold both copies */
	/* -I: each lane's socket registers the copy; in place if either may send by AF_XDP. */
	assert_int_equal(PARSE(&o, "-K", "--method", "xdp", "-i", "x", "-I", "y", "a"), 0);
	assert_true(opts_xdp_inplace(&o));
	assert_true(opts_lane_xdp(&o, 0) && opts_lane_xdp(&o, 1));
	assert_int_equal(PARSE(&o, "-K", "--method", "mmsg", "--method2", "xdp", "-i", "x", "-I", "y", "a"), 0);
	assert_true(opts_xdp_inplace(&o));
	assert_false(opts_lane_xdp(&o, 0));
	assert_true(opts_lane_xdp(&o, 1));
	assert_int_equal(PARSE(&o, "-K", "--method", "mmsg", "-i", "x", "-I", "y", "a"), 0);
	assert_false(opts_xdp_inplace(&o)); /* -I takes --method's: mmsg on both */
	assert_int_equal(PARSE(&o, "-K", "--method", "xdp", "-i", "x", "a"), 0);
	assert_false(opts_lane_xdp(&o, 1)); /* no -I: no second lane */
	assert_int_equal(PARSE(&o, "-K", "-w", "out.pcap", "a"), 0);
	assert_false(opts_xdp_inplace(&o));
}

static void test_help_skips_checks(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "--help"), 0);
	assert_true(o.help);
	assert_int_equal(PARSE(&o, "-V"), 0);
	assert_true(o.version);
}

/* Numbers as tcpreplay's AutoOpts take them: 0x hexadecimal too; a leading 0 (octal there) is refused. */
static void test_numbers_hex(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "--loop", "0x10", "--limit", "0X1f", "--flow-expiry", "0xA", "-w", "o", "a"), 0);
	assert_int_equal(o.run.loop, 16);
	assert_int_equal(o.run.limit, 31);
	assert_int_equal(o.run.flow_expiry_s, 10);
	assert_int_equal(PARSE(&o, "--loop", "0", "-w", "o", "a"), 0);
	assert_int_equal(o.run.loop, 0);
	assert_int_equal(PARSE(&o, "--loop", "010", "-w", "o", "a"), -EINVAL);
	assert_non_null(strstr(err, "--loop: '010' has a leading 0, which tcpreplay reads as octal"));
	assert_int_equal(PARSE(&o, "--loop", "0009", "-w", "o", "a"), -EINVAL);
	assert_int_equal(PARSE(&o, "--loop", "00", "-w", "o", "a"), 0); /* 0 either way */
	assert_int_equal(PARSE(&o, "--loop", "05", "-w", "o", "a"), 0);
	assert_int_equal(o.run.loop, 5);
	assert_int_equal(PARSE(&o, "--loop", "0x", "-w", "o", "a"), -EINVAL);
	assert_non_null(strstr(err, "'0x' is not a non-negative integer"));
	assert_int_equal(PARSE(&o, "--loop", "0x1g", "-w", "o", "a"), -EINVAL);
	assert_int_equal(PARSE(&o, "--loop", "0x-1", "-w", "o", "a"), -EINVAL);
	assert_int_equal(PARSE(&o, "--limit", "0x0", "-w", "o", "a"), -EINVAL); /* its range still holds */
	assert_non_null(strstr(err, "out of range"));
	/* --pps and --mbps as tcpreplay 4.6 reads them (strtod): hex integers, fractions, exponents. */
	assert_int_equal(PARSE(&o, "--pps", "0x10", "-w", "o", "a"), 0);
	assert_int_equal(o.sched.rate.num, 16);
	assert_int_equal(o.sched.rate.den, 1);
	assert_int_equal(PARSE(&o, "--mbps", "0x1.8", "-w", "o", "a"), 0);
	assert_int_equal(o.sched.rate.num, 3);
	assert_int_equal(o.sched.rate.den, 2);
	assert_int_equal(PARSE(&o, "--mbps", "0X1p-3", "-w", "o", "a"), 0);
	assert_int_equal(o.sched.rate.num, 1);
	assert_int_equal(o.sched.rate.den, 8);
	assert_int_equal(PARSE(&o, "--pps", "0xAp1", "-w", "o", "a"), 0);
	assert_int_equal(o.sched.rate.num, 20);
	assert_int_equal(PARSE(&o, "--pps", "0x0", "-w", "o", "a"), -EINVAL);
	assert_int_equal(PARSE(&o, "--pps", "0x1q", "-w", "o", "a"), -EINVAL);
	assert_int_equal(PARSE(&o, "--pps", "0x1p", "-w", "o", "a"), -EINVAL);
	/* tcprewrite 4.6 reads --ttl with atoi (0x20 is 0 there): refused, not misread. */
	assert_int_equal(PARSE(&o, "--ttl", "0x20", "-w", "o", "a"), -EINVAL);
	assert_non_null(strstr(err, "reads --ttl in decimal"));
	assert_int_equal(PARSE(&o, "--ttl", "+0x2", "-w", "o", "a"), -EINVAL);
}

static void test_timing(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-i", "x", "a"), 0);
	assert_int_equal(o.sched.mode, SCHED_MODE_TRACE);
	assert_int_equal(o.sched.speed.num, 0);
	assert_int_equal(o.sched.timer, SCHED_TIMER_HYBRID);
	assert_false(o.sched.spin_fixed); /* calibrated at start-up */
	assert_int_equal(o.sched.late, SCHED_LATE_CATCHUP);
	assert_int_equal(o.sched.late_threshold_ns, 1000000);
	assert_int_equal(o.rt.priority, 0);
	assert_int_equal(o.rt.cpu, -1);

	assert_int_equal(PARSE(&o, "-i", "x", "-x", "2.5", "a"), 0);
	assert_int_equal(o.sched.mode, SCHED_MODE_TRACE);
	assert_int_equal(o.sched.speed.num, 5);
	assert_int_equal(o.sched.speed.den, 2);
	assert_int_equal(PARSE(&o, "-i", "x", "--multiplier=0.25", "a"), 0);
	assert_int_equal(o.sched.speed.num, 1);
	assert_int_equal(o.sched.speed.den, 4);
	assert_int_equal(PARSE(&o, "-i", "x", "-p", "100000", "a"), 0);
	assert_int_equal(o.sched.mode, SCHED_MODE_PPS);
	assert_int_equal(o.sched.rate.num, 100000);
	assert_int_equal(PARSE(&o, "-i", "x", "--mbps", "940", "--wire-overhead", "a"), 0);
	assert_int_equal(o.sched.mode, SCHED_MODE_MBPS);
	assert_int_equal(o.sched.rate.num, 940);
	assert_true(o.sched.wire_overhead);

	assert_int_equal(PARSE(&o, "-i", "x", "--timer", "spin", "--late", "shift",
			       "--late-threshold", "250", "--rt-priority", "50", "--cpu", "1", "a"), 0);
	assert_int_equal(o.sched.timer, SCHED_TIMER_SPIN);
	assert_int_equal(o.sched.late, SCHED_LATE_SHIFT);
	assert_int_equal(o.sched.late_threshold_ns, 250000);
	assert_int_equal(o.rt.priority, 50);
	assert_int_equal(o.rt.cpu, 1);
	/* tcpreplay's timer names. */
	assert_int_equal(PARSE(&o, "-i", "x", "-T", "nano", "a"), 0);
	assert_int_equal(o.sched.timer, SCHED_TIMER_SLEEP);
	assert_int_equal(PARSE(&o, "-i", "x", "--timer=gtod", "a"), 0);
	assert_int_equal(o.sched.timer, SCHED_TIMER_SPIN);
	assert_int_equal(PARSE(&o, "-i", "x", "--spin-us", "0", "a"), 0);
	assert_true(o.sched.spin_fixed);
	assert_int_equal(o.sched.spin_ns, 0);

	expect_usage_error(PARSE(&o, "-i", "x", "-t", "-p", "10", "a"),
			   "-t excludes -p 10: one timing at a time (--topspeed, --speed, --pps or --mbps)");
	expect_usage_error(PARSE(&o, "-i", "x", "-x", "2", "-M", "10", "a"),
			   "-x excludes -M 10: one timing at a time (--topspeed, --speed, --pps or --mbps)");
	expect_usage_error(PARSE(&o, "-i", "x", "-x", "0", "a"),
			   "--speed: '0' is not a positive decimal number (at most 9 digits after the point)");
	expect_usage_error(PARSE(&o, "-i", "x", "--pps", "-5", "a"),
			   "--pps: '-5' is not a positive decimal number (at most 9 digits after the point)");
	expect_usage_error(PARSE(&o, "-i", "x", "--mbps", "1e3", "a"),
			   "--mbps: '1e3' is not a positive decimal number (at most 9 digits after the point)");
	expect_usage_error(PARSE(&o, "-i", "x", "--timer", "ioport", "a"),
			   "--timer: 'ioport' is not one of hybrid, sleep, spin, nano, select or gtod");
	expect_usage_error(PARSE(&o, "-i", "x", "--late", "skip", "a"),
			   "--late: 'skip' is not one of catchup or shift");
	expect_usage_error(PARSE(&o, "-i", "x", "--wire-overhead", "a"),
			   "--wire-overhead needs --mbps: it only applies to the rate of --mbps");
	expect_usage_error(PARSE(&o, "-i", "x", "--spin-us", "20", "--timer", "sleep", "a"),
			   "--spin-us excludes --timer sleep: --spin-us sets the hybrid timer's margin, which the other "
			   "timers have none of");
	expect_usage_error(PARSE(&o, "-i", "x", "--rt-priority", "0", "a"),
			   "--rt-priority: 0 is out of range (1..99)");
	expect_usage_error(PARSE(&o, "-i", "x", "--rt-priority", "100", "a"),
			   "--rt-priority: 100 is out of range (1..99)");
	expect_usage_error(PARSE(&o, "-i", "x", "--cpu", "1024", "a"),
			   "--cpu: 1024 is out of range (0..1023)");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* --help text comes from the table; the man page and README must keep up with it. */
static void test_every_option_documented(void **state)
{
	const char *man_path = getenv("MAN_PAGE"), *readme_path = getenv("README");
	const struct opt_def *t;
	char *man, *readme, *help = NULL;
	size_t n, hlen = 0;
	FILE *hf;

	(void)state;
	if (!man_path || !readme_path)
		fail_msg("MAN_PAGE and README must be set (meson test does)");
	man = slurp(man_path);
	readme = slurp(readme_path);
	hf = open_memstream(&help, &hlen);
	opts_usage(hf, "replay");
	fclose(hf);
	t = opts_table(&n);
	assert_true(n > 5);
	for (size_t i = 0; i < n; i++) {
		char plain[128], esc[128] = "Fl \\-";
		size_t k = 5;

		snprintf(plain, sizeof(plain), "--%s", t[i].name);
		/* mdoc: .Fl adds the first dash; every other dash is written \- */
		for (const char *c = t[i].name; *c && k + 3 < sizeof(esc); c++) {
			if (*c == '-')
				esc[k++] = '\\';
			esc[k++] = *c;
		}
		esc[k] = '\0';
		if (!strstr(man, esc))
			fail_msg("option --%s is missing from man/replay.1 (as %s)", t[i].name, esc);
		if (!strstr(readme, plain))
			fail_msg("option --%s is missing from README.md", t[i].name);
		if (!strstr(help, plain))
			fail_msg("option --%s is missing from --help", t[i].name);
	}
	optcheck_docs(opts_replay_set(), man, readme);
	free(man);
	free(readme);
	free(help);
}

/* Every row against its field: sizes, ranges, enum tables (tests/unit/optcheck.h). */
static void test_rows_match_fields(void **state)
{
	const struct opt_set *set = opts_replay_set();
	size_t n;

	(void)state;
	assert_ptr_equal(opts_table(&n), set->table);
	assert_int_equal(n, set->n);
	optcheck_set(set);
}

/* Rows bind the modules' own configs; aliases bind the same field. */
static void test_binds_module_configs(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "--interface", "eth2", "--json", "s.json", "-K", "--batch", "32",
			       "--qdisc-bypass", "--xdp-queue", "3", "--xdp-mode", "zerocopy",
			       "--uring-sqpoll", "--method", "mmsg", "--late-threshold", "7",
			       "--spin-us", "9", "a"), 0);
	assert_string_equal(o.tx.ifname, "eth2");
	assert_string_equal(o.stats_json, "s.json");
	assert_true(o.trace.preload);
	assert_int_equal(o.tx.batch, 32);
	assert_true(o.tx.qdisc_bypass && o.tx.uring_sqpoll);
	assert_int_equal(o.tx.xdp_queue, 3);
	assert_int_equal(o.tx.xdp_mode, TX_XDP_ZEROCOPY);
	assert_int_equal(o.method, TX_METHOD_MMSG);
	assert_int_equal(o.sched.late_threshold_ns, 7000);
	assert_true(o.sched.spin_fixed);
	assert_int_equal(o.sched.spin_ns, 9000);
	assert_int_equal(PARSE(&o, "-i", "x", "-p", "250", "--rt-priority", "5", "--cpu", "0", "a"), 0);
	assert_int_equal(o.sched.mode, SCHED_MODE_PPS);
	assert_int_equal(o.sched.rate.num, 250);
	assert_int_equal(o.rt.priority, 5);
	assert_int_equal(o.rt.cpu, 0);
	assert_true(o.rt.timer_slack);
	assert_int_equal(o.nwarn, 0);
	assert_int_equal(PARSE(&o, "-i", "x", "-t", "a"), 0);
	assert_false(o.rt.timer_slack);
	assert_false(o.sched.spin_fixed);
	assert_int_equal(PARSE(&o, "-w", "o", "--enet-vlan", "add", "--enet-vlan-tag", "5",
			       "--enet-vlan-proto", "802.1ad", "--fixlen", "trunc", "a"), 0);
	assert_int_equal(o.edit.vlan, EDIT_VLAN_ADD);
	assert_int_equal(o.edit.vlan_proto, 0x88a8);
	assert_int_equal(o.edit.fixlen, EDIT_FIXLEN_TRUNC);
	expect_usage_error(PARSE(&o, "-w", "o", "--fixlen", "cut", "a"),
			   "--fixlen: 'cut' is not one of pad, trunc or del");
	expect_usage_error(PARSE(&o, "-i", "x", "--xdp-mode", "fast", "a"),
			   "--xdp-mode: 'fast' is not one of auto, copy or zerocopy");
	expect_usage_error(PARSE(&o, "-w", "o", "--method", "mmsg", "a"),
			   "-w writes a file: --method mmsg needs an interface (-i)");
	expect_usage_error(PARSE(&o, "-i", "x", "--method", "file", "a"),
			   "--method file needs an output file (-w FILE), not -i");
}

/* An unknown method is a parse error listing what this build has, from the tx module's table. */
static void test_method_from_table(void **state)
{
	char want[256] = "--method: 'pigeon' is not one of ", *help = NULL, *list;
	size_t hlen = 0;
	struct opts o;
	FILE *hf;
	int v;

	(void)state;
	expect_usage_error(PARSE(&o, "-i", "x", "--method", "pigeon", "a"), err);
	assert_memory_equal(err, want, strlen(want));
	hf = open_memstream(&help, &hlen);
	opts_usage(hf, "replay");
	fclose(hf);
	for (const struct opt_enum *e = tx_method_choices; e->name; e++) {
		/* Each name parses, is listed in the error and in --help, and is a method built in. */
		assert_int_equal(opt_enum_find(tx_method_choices, e->name, &v), 0);
		assert_true(tx_method_known(e->name));
		if (!strstr(err, e->name) || !strstr(help, e->name))
			fail_msg("method %s missing from the error or --help", e->name);
		assert_int_equal(PARSE(&o, "-i", "x", "--method", (char *)e->name, "a"),
				 strcmp(e->name, "file") ? 0 : -EINVAL);
	}
	/* ...and every method built in is a choice. */
	list = strdup(tx_methods());
	assert_non_null(list);
	for (char *tok = strtok(list, " "); tok; tok = strtok(NULL, " "))
		assert_int_equal(opt_enum_find(tx_method_choices, tok, &v), 0);
	free(list);
	free(help);
}

/* Values must start with a digit: strtoull would read "\t-1" as 2^64 - 1. */
static void test_values_start_with_a_digit(void **state)
{
	struct opts o;

	(void)state;
	expect_usage_error(PARSE(&o, "-i", "x", "--loop", "\t-1", "a"),
			   "--loop: '\t-1' is not a non-negative integer");
	expect_usage_error(PARSE(&o, "-i", "x", "--loop", " -1", "a"),
			   "--loop: ' -1' is not a non-negative integer");
	expect_usage_error(PARSE(&o, "-i", "x", "--limit", "\n5", "a"),
			   "--limit: '\n5' is not a non-negative integer");
	expect_usage_error(PARSE(&o, "-i", "x", "--loop", "+3", "a"),
			   "--loop: '+3' is not a non-negative integer");
	expect_usage_error(PARSE(&o, "-i", "x", "--window-size", "\t1M", "a"),
			   "--window-size: '\t1M' is not a size (bytes, or a number with K, M or G)");
	assert_int_equal(PARSE(&o, "-i", "x", "--loop", "007", "a"), 0);
	assert_int_equal(o.run.loop, 7);
}

/* --cpu and --rt-priority do nothing on a dry run: said, not silently ignored. */
static void test_dry_run_warns_rt(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-w", "o", "--cpu", "1", "--rt-priority", "9", "a"), 0);
	assert_int_equal(o.nwarn, 2);
	assert_string_equal(o.warn[0], "--rt-priority does nothing with -w: a dry run waits for no deadline");
	assert_string_equal(o.warn[1], "--cpu does nothing with -w: a dry run waits for no deadline");
	assert_int_equal(PARSE(&o, "-w", "o", "--cpu", "1", "a"), 0);
	assert_int_equal(o.nwarn, 1);
	assert_string_equal(o.warn[0], "--cpu does nothing with -w: a dry run waits for no deadline");
	assert_int_equal(PARSE(&o, "-i", "x", "--cpu", "1", "--rt-priority", "9", "a"), 0);
	assert_int_equal(o.nwarn, 0);
}

/* --cpu LIST and --xdp-queue LIST (opts_list_parse()), and what --threads takes and refuses. */
static void test_cpu_list_and_threads(void **state)
{
	struct opts_list l;
	struct opts o;

	(void)state;
	assert_int_equal(opts_list_parse(&l, "3", 1023, err, sizeof(err)), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0], 3);
	assert_int_equal(opts_list_parse(&l, "0,2", 1023, err, sizeof(err)), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.v[0], 0);
	assert_int_equal(l.v[1], 2);
	assert_int_equal(opts_list_parse(&l, "0-3", 1023, err, sizeof(err)), 0);
	assert_int_equal(l.n, 4);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(l.v[i], i);
	assert_int_equal(opts_list_parse(&l, "5,1-2,7-7", 1023, err, sizeof(err)), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.v[0], 5);
	assert_int_equal(l.v[1], 1);
	assert_int_equal(l.v[2], 2);
	assert_int_equal(l.v[3], 7);
	assert_int_equal(opts_list_parse(&l, "1023", 1023, err, sizeof(err)), 0);
	assert_int_equal(opts_list_parse(&l, "0-255", 1023, err, sizeof(err)), 0);
	assert_int_equal(l.n, OPTS_LIST_MAX);
	expect_usage_error(opts_list_parse(&l, "0-256", 1023, err, sizeof(err)),
			   "'0-256' has more than 256 numbers");
	expect_usage_error(opts_list_parse(&l, "1024", 1023, err, sizeof(err)), "1024 is out of range (0..1023)");
	expect_usage_error(opts_list_parse(&l, "3-1", 1023, err, sizeof(err)),
			   "'3-1': the range 3-1 runs backwards (give 1-3)");
	static const char *const bad[] = { "", ",", "1,", ",1", "1-", "-1", "a", "1,,2", "1 2", "0x1", "1-2-3", "+1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];

		snprintf(want, sizeof(want), "'%s' is not a list of numbers (like 0,2 or 0-3)", bad[i]);
		expect_usage_error(opts_list_parse(&l, bad[i], 1023, err, sizeof(err)), want);
	}

	/* A single CPU still works as before: rt.cpu is the first of the list. */
	assert_int_equal(PARSE(&o, "-i", "x", "--cpu", "1", "a"), 0);
	assert_int_equal(o.rt.cpu, 1);
	assert_int_equal(o.threads, 1);
	assert_int_equal(PARSE(&o, "-i", "x", "a"), 0);
	assert_int_equal(o.rt.cpu, -1);
	assert_int_equal(o.cpus.n, 0);
	expect_usage_error(PARSE(&o, "-i", "x", "--cpu", "0,1", "a"),
			   "--cpu: 2 CPUs given for one thread: give one CPU, or --threads N");
	expect_usage_error(PARSE(&o, "-i", "x", "--cpu", "0-2x", "a"),
			   "--cpu: '0-2x' is not a list of numbers (like 0,2 or 0-3)");
	assert_int_equal(PARSE(&o, "-i", "x", "--threads", "4", "--cpu", "0-1", "--xdp-queue", "4-7", "a"), 0);
	assert_int_equal(o.threads, 4);
	assert_int_equal(o.cpus.n, 2);
	assert_int_equal(o.rt.cpu, 0);
	assert_int_equal(o.xdp_queues.n, 4);
	assert_int_equal(o.tx.xdp_queue, 4);
	assert_int_equal(PARSE(&o, "-i", "x", "--xdp-queue", "3", "a"), 0);
	assert_int_equal(o.tx.xdp_queue, 3);
	expect_usage_error(PARSE(&o, "-i", "x", "--threads", "2", "--xdp-queue", "1", "a"),
			   "--xdp-queue: 1 queues given for --threads 2: give one queue per thread");
	expect_usage_error(PARSE(&o, "-i", "x", "--threads", "0", "a"),
			   "--threads: 0 is out of range (1..64)");
	/* What several threads cannot do, named. */
	expect_usage_error(PARSE(&o, "-i", "x", "--threads", "2", "-L", "5", "a"),
			   "-L excludes --threads 2: --limit counts the packets of one sender thread; use one thread");
	expect_usage_error(PARSE(&o, "-w", "o", "--threads", "2", "a"),
			   "-w excludes --threads 2: a dry run writes one file; use one thread");
	expect_usage_error(PARSE(&o, "-i", "x", "--threads", "2", "--oneatatime", "a"),
			   "--oneatatime excludes --threads 2: it sends each packet when asked; use one thread");
	expect_usage_error(PARSE(&o, "-i", "x", "--threads", "2", "--send-log", "s", "a"),
			   "--send-log excludes --threads 2: --send-log records the packets in the order one thread "
			   "sends them; use one thread");
	expect_usage_error(PARSE(&o, "-i", "x", "--threads", "2", "--stats", "1", "a"),
			   "--stats excludes --threads 2: --stats counts the packets of one sender thread; use one thread");
	expect_usage_error(PARSE(&o, "-i", "x", "--threads", "2", "--delay", "1ms", "a"),
			   "--delay excludes --threads 2: impairment holds packets back on one schedule; use one thread");
	expect_usage_error(PARSE(&o, "-i", "x", "--threads", "2", "--mbps", "10", "--ttl", "5", "a"),
			   "--threads 2 excludes --mbps with edits: each thread counts the bytes of every frame as read; "
			   "use one thread");
	expect_usage_error(PARSE(&o, "-i", "x", "--threads", "3", "a", "-"),
			   "--threads 3: every thread reads the traces itself; standard input can be read once: give a file, "
			   "or add --preload (-K) to read it into memory once for all threads");
	/* -K: read once into memory, every thread reads the copy. */
	assert_int_equal(PARSE(&o, "-i", "x", "--threads", "3", "-K", "a", "-"), 0);
	/* With --loop, a timed run, edits: taken. */
	assert_int_equal(PARSE(&o, "-i", "x", "--threads", "2", "--loop", "3", "--ttl", "5", "-x", "2", "a"), 0);
	/*
	 * Two interfaces, the split, the cache and the edits by direction:
	 * taken (each thread has a socket on each interface and places every
	 * packet itself).
	 */
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--threads", "2", "a"), 0);
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--threads", "2", "--split", "first", "a"), 0);
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--threads", "2", "--dualfile", "a", "b"), 0);
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--threads", "2", "-c", "c", "a"), 0);
	assert_int_equal(PARSE(&o, "-i", "x", "--threads", "2", "--split", "client", "-e", "10.0.0.1:10.0.0.2", "a"), 0);
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--threads", "4", "--enet-dmac", "00:00:00:00:00:01,00:00:00:00:00:02",
			       "--pnat", "10.0.0.0/8:11.0.0.0/8", "--pnat", "10.0.0.0/8:12.0.0.0/8", "a"), 0);
	/* A live capture is read once: still refused. */
	expect_usage_error(PARSE(&o, "-i", "x", "--source-interface", "y", "--threads", "2"),
			   "--source-interface excludes --threads 2: it forwards one interface to one, each frame as it "
			   "arrives");
}

/* Long options by their exact names only: getopt_long's prefix abbreviations are refused. */
static void test_no_abbreviations(void **state)
{
	struct opts o;

	(void)state;
	expect_usage_error(PARSE(&o, "-i", "x", "--stats-j", "s.json", "a"),
			   "unknown option '--stats-j' (long options are spelled in full, not abbreviated: --stats-json?)");
	expect_usage_error(PARSE(&o, "-i", "x", "--tops", "a"),
			   "unknown option '--tops' (long options are spelled in full, not abbreviated: --topspeed?)");
	expect_usage_error(PARSE(&o, "-i", "x", "--loop=3", "--lim=2", "a"),
			   "unknown option '--lim' (long options are spelled in full, not abbreviated: --limit?)");
	/* tcpreplay's --stats N is its own option, never --stats-json. */
	assert_int_equal(PARSE(&o, "-i", "x", "--stats", "1", "a"), 0);
	assert_int_equal(o.run.stats_s, 1);
	assert_null(o.stats_json);
	/* Full names still work, in both forms. */
	assert_int_equal(PARSE(&o, "-i", "x", "--stats-json=s.json", "--limit", "2", "a"), 0);
	assert_string_equal(o.stats_json, "s.json");
}

/* "-w -q": the next word was taken as the argument though it is an option. */
static void test_option_like_arguments(void **state)
{
	struct opts o;

	(void)state;
	expect_usage_error(PARSE(&o, "-w", "-q", "a"),
			   "-w takes FILE, but '-q' looks like an option (if meant, write --write=-q); "
			   "tcprewrite's and tcpprep's -w (suppress warnings) is -W here");
	expect_usage_error(PARSE(&o, "--write", "--quiet", "a"),
			   "--write takes FILE, but '--quiet' looks like an option (if meant, write --write=--quiet)");
	expect_usage_error(PARSE(&o, "-i", "-t", "a"),
			   "-i takes IF, but '-t' looks like an option (if meant, write --intf1=-t); "
			   "tcprewrite's -i IN is the trace operand here: replay -w OUT IN");
	/* Attached, it is meant; "-" and negative numbers are arguments. */
	assert_int_equal(PARSE(&o, "-w-q", "a"), 0);
	assert_string_equal(o.tx.path, "-q");
	assert_int_equal(PARSE(&o, "--write=-q", "a"), 0);
	assert_string_equal(o.tx.path, "-q");
	assert_int_equal(PARSE(&o, "-w", "-", "a"), 0);
	assert_string_equal(o.tx.path, "-");
	assert_int_equal(PARSE(&o, "-w", "o", "--ttl", "-5", "a"), 0);
	assert_int_equal(PARSE(&o, "-W", "-w", "o", "a"), 0);
	assert_true(o.no_warnings);
}

/*
 * -I/--intf2 (tcpreplay's): the second interface, with -i only; --split and
 * -c need it (or --info).
 */
/* --source-interface IF: the live forwarder's input, in place of the files; what it refuses. */
static void test_source_interface(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "--source-interface", "in0", "-i", "out0"), 0);
	assert_string_equal(o.source_if, "in0");
	assert_int_equal(o.nfiles, 1);
	assert_string_equal(o.files[0], "in0");
	assert_int_equal(o.live_buffer_kib, 0); /* the default: include/replay/live.h */
	/* -B/--buffer-size: the capture ring, in KiB as tcpdump's -B and replay-rx's. */
	assert_int_equal(PARSE(&o, "--source-interface", "in0", "-i", "out0", "-B", "131072"), 0);
	assert_int_equal(o.live_buffer_kib, 131072);
	assert_int_equal(PARSE(&o, "--source-interface", "in0", "-i", "out0", "--buffer-size", "1024"), 0);
	assert_int_equal(o.live_buffer_kib, 1024);
	expect_usage_error(PARSE(&o, "-i", "out0", "-B", "1024", "a.pcap"),
			   "-B needs --source-interface: it is the capture ring of --source-interface");
	assert_int_not_equal(PARSE(&o, "--source-interface", "in0", "-i", "out0", "-B", "16"), 0);
	assert_int_equal(PARSE(&o, "--source-interface", "in0", "-i", "out0", "--impair", "t.txt",
			       "--impair-repeat", "0", "--loss", "1%", "--limit", "5", "--duration", "3"),
			 0);
	expect_usage_error(PARSE(&o, "--source-interface", "in0", "-i", "out0", "a.pcap"),
			   "--source-interface in0 is the input: give no trace file (a.pcap)");
	expect_usage_error(PARSE(&o, "--source-interface", "in0", "-w", "o.pcap"),
			   "--source-interface needs --intf1: it forwards out of an interface");
	expect_usage_error(PARSE(&o, "--source-interface", "x", "-i", "x"),
			   "--source-interface and -i both name x: the frames sent would arrive again");
	expect_usage_error(PARSE(&o, "--source-interface", "in0", "-i", "out0", "-I", "out1"),
			   "--source-interface excludes -I: it forwards one interface to one, each frame as it arrives");
	expect_usage_error(PARSE(&o, "--source-interface", "in0", "-i", "out0", "--loop", "0"),
			   "--source-interface excludes --loop 0: it forwards one interface to one, each frame as it "
			   "arrives");
	expect_usage_error(PARSE(&o, "--source-interface", "in0", "-i", "out0", "--threads", "2"),
			   "--source-interface excludes --threads 2: it forwards one interface to one, each frame as it "
			   "arrives");
	expect_usage_error(PARSE(&o, "--source-interface", "in0", "-i", "out0", "--speed", "2"),
			   "--source-interface excludes --speed: it sends each frame when it arrives (plus its "
			   "impairment delay)");
	expect_usage_error(PARSE(&o, "--source-interface", "in0", "-i", "out0", "--pps", "10"),
			   "--source-interface excludes --pps 10: it sends each frame when it arrives (plus its "
			   "impairment delay)");
}

static void test_intf2(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "a"), 0);
	assert_string_equal(o.tx.ifname, "x");
	assert_string_equal(o.intf2, "y");
	assert_null(o.split_mode);
	assert_int_equal(PARSE(&o, "-i", "x", "--intf2=y", "--split", "cidr:10.0.0.0/8", "a"), 0);
	assert_string_equal(o.intf2, "y");
	assert_string_equal(o.split_mode, "cidr:10.0.0.0/8");
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "-c", "a.cache", "a"), 0);
	assert_string_equal(o.cachefile, "a.cache");
	expect_usage_error(PARSE(&o, "-i", "x", "-I", "x", "a"),
			   "-i and -I both name x: two-interface replay needs two interfaces");
	expect_usage_error(PARSE(&o, "-w", "o", "-I", "y", "a"),
			   "-I excludes -w: -I sends on a second interface and -w writes one file; give -i IF -I IF2, "
			   "or -w alone");
	expect_usage_error(PARSE(&o, "-I", "y", "a"),
			   "-I needs --intf1: -I is the second interface (give the first with -i IF)");
	expect_usage_error(PARSE(&o, "--info", "-I", "y", "a"), "--info excludes -I: --info only reads the files");
	expect_usage_error(PARSE(&o, "-i", "x", "--split", "client", "a"),
			   "--split chooses between two interfaces: give the second with -I IF (or use --info to see the split); "
			   "with one output it only steers -e/--endpoints and the pair forms (--enet-dmac C2S,S2C, --pnat twice)");
	expect_usage_error(PARSE(&o, "-w", "o", "-c", "a.cache", "a"),
			   "--cachefile chooses between two interfaces: give the second with -I IF (or use --info to see the split); "
			   "with one output it only steers -e/--endpoints and the pair forms (--enet-dmac C2S,S2C, --pnat twice)");
	expect_usage_error(PARSE(&o, "-i", "x", "-I", "y", "-c", "a.cache", "a", "b"),
			   "--cachefile describes one trace: give exactly one file");
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--split", "nonsense", "a"), -EINVAL);
	assert_int_equal(PARSE(&o, "--info", "--split", "client", "a"), 0);
}

/*
 * -2/--dualfile (tcpreplay's): files in pairs, with -I, and
 * nothing else choosing the interface.
 */
static void test_dualfile(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "-2", "a", "b"), 0);
	assert_true(o.run.dualfile);
	assert_int_equal(o.nfiles, 2);
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--dualfile", "a", "b", "c", "d"), 0);
	assert_true(o.run.dualfile);
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "a", "b"), 0);
	assert_false(o.run.dualfile);
	expect_usage_error(PARSE(&o, "-i", "x", "-I", "y", "-2", "a", "b", "c"),
			   "--dualfile takes the files in pairs (one for -i, one for -I): 3 given");
	expect_usage_error(PARSE(&o, "-i", "x", "-I", "y", "-2", "a"),
			   "--dualfile takes the files in pairs (one for -i, one for -I): 1 given");
	expect_usage_error(PARSE(&o, "-i", "x", "-2", "a", "b"),
			   "-2 needs --intf2 or --info: it sends the first file of each pair by -i and the second by -I");
	expect_usage_error(PARSE(&o, "-w", "o", "-2", "a", "b"),
			   "-2 needs --intf2 or --info: it sends the first file of each pair by -i and the second by -I");
	expect_usage_error(PARSE(&o, "-i", "x", "-I", "y", "-2", "--split", "client", "a", "b"),
			   "-2 excludes --split: with --dualfile a packet's interface is its file's place in its pair");
	expect_usage_error(PARSE(&o, "-i", "x", "-I", "y", "-2", "-c", "a.cache", "a"),
			   "-2 excludes -c: with --dualfile a packet's interface is its file's place in its pair");
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "-2", "-", "b"), 0);
	expect_usage_error(PARSE(&o, "-i", "x", "-I", "y", "-2", "-", "b", "c", "-"),
			   "--dualfile: standard input ('-') can be given once, as one file of one pair");
	expect_usage_error(PARSE(&o, "-i", "x", "-I", "y", "-2", "--prep", "a.prep", "a"),
			   "-2 excludes --prep: a sidecar belongs to one trace");
}

/* --method2: -I's own method; without it -I takes --method's. */
static void test_method2(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--method", "packet", "--method2", "mmsg", "a"), 0);
	assert_int_equal(o.method, TX_METHOD_PACKET);
	assert_int_equal(o.method2, TX_METHOD_MMSG);
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--method", "ring", "a"), 0);
	assert_int_equal(o.method2, TX_METHOD_RING);
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--method", "ring", "--method2", "auto", "a"), 0);
	assert_int_equal(o.method2, TX_METHOD_AUTO);
	expect_usage_error(PARSE(&o, "-i", "x", "--method2", "mmsg", "a"),
			   "--method2 needs --intf2: it is the method of the second interface");
	expect_usage_error(PARSE(&o, "-i", "x", "-I", "y", "--method2", "file", "a"),
			   "--method2 file: -I is an interface; -w writes a file, and excludes -I");
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--method2", "nonsense", "a"), -EINVAL);
}

/* --gso: the kernel cuts what --segment would, on an interface only. */
static void test_gso(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-i", "x", "--segment", "--gso", "a"), 0);
	assert_true(o.tx.gso && o.run.segment);
	assert_int_equal(PARSE(&o, "-i", "x", "--segment", "a"), 0);
	assert_false(o.tx.gso);
	expect_usage_error(PARSE(&o, "-i", "x", "--gso", "a"),
			   "--gso needs --segment: it has the kernel cut the TCP frames --segment would");
	expect_usage_error(PARSE(&o, "-w", "x", "--segment", "--gso", "a"),
			   "--gso excludes -w: the kernel cuts only frames sent on an interface");
	/* --xdp-in-place: only with the preloaded copy it sends from. */
	assert_int_equal(PARSE(&o, "-i", "x", "-K", "--xdp-in-place", "a"), 0);
	assert_true(o.tx.xdp_inplace);
	expect_usage_error(PARSE(&o, "-i", "x", "--xdp-in-place", "a"),
			   "--xdp-in-place needs --preload: the frames go from the preloaded copy");
}

/* tcpreplay's and tcprewrite's letters and names replay gives no meaning: refused with a hint. */
static void test_tool_hints(void **state)
{
	struct opts o;

	(void)state;
	expect_usage_error(PARSE(&o, "-i", "x", "--netmap", "a"),
			   "--netmap is not supported: tcpreplay's netmap injector; replay has no netmap: --xdp "
			   "(AF_XDP, --method xdp) is its kernel-bypass path");
	/* --dlt enet, raw, user and hdlc as tcprewrite's; all but enet write a file only. */
	assert_int_equal(PARSE(&o, "-w", "o", "--dlt", "enet", "a"), 0);
	assert_int_equal(o.edit.dlt, EDIT_DLT_ENET);
	assert_int_equal(PARSE(&o, "-w", "o", "--dlt", "hdlc", "--hdlc-address", "0x8f", "a"), 0);
	assert_int_equal(o.edit.dlt, EDIT_DLT_HDLC);
	assert_int_equal(o.edit.hdlc_address, 0x8f);
	assert_int_equal(PARSE(&o, "-w", "o", "--dlt", "user", "--user-dlink", "1,2", "--user-dlink", "3,4",
			       "--user-dlt", "147", "a"), 0);
	assert_int_equal(o.edit.user_dlink.n, 2);
	assert_int_equal(o.edit.user_dlt, 147);
	assert_int_equal(PARSE(&o, "-i", "lo", "--dlt", "raw", "a"), -EINVAL);
	assert_non_null(strstr(err, "--dlt raw writes frames without an Ethernet header"));
	assert_int_equal(PARSE(&o, "-w", "o", "--dlt", "raw", "--segment", "a"), -EINVAL);
	assert_int_equal(PARSE(&o, "-w", "o", "--hdlc-control", "1", "a"), -EINVAL);
	assert_non_null(strstr(err, "need --dlt hdlc"));
	assert_int_equal(PARSE(&o, "-w", "o", "--dlt", "jnpr_eth", "a"), -EINVAL);
	/* -E is tcprewrite's --efcs; so is -e its --endpoints, steered by -c or --split
	 * even with one output (the old refusal is gone), and refused beside the address maps. */
	assert_int_equal(PARSE(&o, "-w", "o", "-E", "a"), 0);
	assert_true(o.edit.efcs);
	assert_int_equal(PARSE(&o, "-w", "o", "-e", "1.2.3.4:5.6.7.8", "a"), 0);
	assert_int_equal(o.edit.endpoints.family, 4);
	assert_int_equal(PARSE(&o, "-w", "o", "--endpoints", "[2001:db8::1]:[::2]", "-c", "x.cache", "a"), 0);
	assert_int_equal(o.edit.endpoints.family, 6);
	assert_string_equal(o.cachefile, "x.cache");
	assert_int_equal(PARSE(&o, "-w", "o", "-e", "1.2.3.4:5.6.7.8", "--split", "client", "a"), 0);
	assert_int_equal(PARSE(&o, "-w", "o", "-e", "1.2.3.0/24:5.6.7.8", "a"), -EINVAL);
	assert_non_null(strstr(err, "--endpoints: '1.2.3.0/24:5.6.7.8': '1.2.3.0/24' is not an IPv4 address"));
	assert_int_equal(PARSE(&o, "-w", "o", "-e", "1.2.3.4:5.6.7.8", "--pnat", "1.0.0.0/8:2.0.0.0/8", "a"), -EINVAL);
	assert_non_null(strstr(err, "-e/--endpoints excludes --pnat"));
	/* -A is tcpreplay's --decode: tcpdump's arguments, which start with '-'. */
	assert_int_equal(PARSE(&o, "-w", "o", "-vtA", "-n", "a"), 0);
	assert_string_equal(o.decode_args, "-n");
	assert_int_equal(PARSE(&o, "-w", "o", "--outfile=b", "a"), -EINVAL);
	assert_non_null(strstr(err, "--outfile is not supported: tcprewrite's -o/--outfile is -w/--write here"));
	expect_usage_error(PARSE(&o, "-i", "in.pcap", "-o", "out.pcap", "a"),
			   "-o needs replay prep: -o names the sidecar of 'replay prep TRACE -o FILE'; to write frames "
			   "use -w (tcprewrite's -i IN -o OUT is replay -w OUT IN; tcpreplay's -o is --oneatatime here)");
	/* Every hint is one line, and every letter a hint refuses is a letter no row means here. */
	for (const struct opt_hint *const *h = opts_replay_set()->hints; *h; h++)
		for (const struct opt_hint *e = *h; e->key || e->name; e++) {
			size_t n;
			const struct opt_def *t = opts_table(&n);

			assert_non_null(e->hint);
			assert_null(strchr(e->hint, '\n'));
			for (size_t i = 0; i < n; i++) {
				if (e->refuse && e->key && t[i].key == e->key)
					fail_msg("-%c is both refused and --%s", e->key, t[i].name);
				if (e->name && !strcmp(e->name, t[i].name))
					fail_msg("--%s is both a hint and an option", e->name);
			}
		}
}

/* In 'replay prep', tcpprep's letters are refused: -M 24 is tcpprep's maximum mask, never --mbps. */
static void test_prep_refuses_tcpprep_letters(void **state)
{
	struct opts o;

	(void)state;
	expect_usage_error(PARSE(&o, "prep", "a", "-o", "a.prep", "-M", "24"),
			   "-M is not supported: tcpprep's -M/--maxmask; replay prep makes an edit sidecar, not a "
			   "tcpprep cache: it splits no traffic");
	assert_int_equal(PARSE(&o, "prep", "-a", "client", "-i", "a", "-o", "a.prep"), -EINVAL);
	assert_non_null(strstr(err, "-a is not supported: tcpprep's -a/--auto"));
	assert_int_equal(PARSE(&o, "prep", "a", "-o", "a.prep", "-m", "1400"), -EINVAL);
	assert_non_null(strstr(err, "(--mtu is replay's -m)"));
	assert_int_equal(PARSE(&o, "prep", "a", "-o", "a.prep", "-N", "10.0.0.0/8:11.0.0.0/8"), -EINVAL);
	assert_int_equal(PARSE(&o, "prep", "a", "-o", "a.prep", "--maxmask=24"), -EINVAL);
	assert_non_null(strstr(err, "--maxmask is not supported"));
	/* Spelled in full, replay's edit options work in prep; outside prep the letters are replay's. */
	assert_int_equal(PARSE(&o, "prep", "a", "-o", "a.prep", "--mtu", "1400", "--mtu-trunc",
			       "--pnat", "10.0.0.0/8:11.0.0.0/8", "-F", "pad", "-C"), -EINVAL);
	assert_non_null(strstr(err, "-C is not supported: tcpprep's -C/--comment"));
	assert_int_equal(PARSE(&o, "prep", "a", "-o", "a.prep", "--mtu", "1400", "--mtu-trunc",
			       "--pnat", "10.0.0.0/8:11.0.0.0/8", "-F", "pad", "--fixcsum", "-b"), 0);
	assert_true(o.prep_cmd);
	assert_int_equal(o.edit.mtu, 1400);
	assert_int_equal(PARSE(&o, "-w", "o", "-m", "1400", "-M", "24", "a"), 0);
	assert_int_equal(o.edit.mtu, 1400);
	assert_int_equal(o.sched.rate.num, 24);
	/* tcpprep's -v/-A decode the packets it reads; replay prep sends none: refused, --debug says more. */
	assert_int_equal(PARSE(&o, "prep", "a", "-o", "a.prep", "-v"), -EINVAL);
	assert_non_null(strstr(err, "-v is not supported: tcpprep's -v/--verbose prints each packet decoded by tcpdump"));
	assert_int_equal(PARSE(&o, "prep", "a", "-o", "a.prep", "--verbose"), -EINVAL);
	assert_non_null(strstr(err, "--verbose is not supported: tcpprep's -v/--verbose"));
	assert_int_equal(PARSE(&o, "prep", "a", "-o", "a.prep", "-A", "-e"), -EINVAL);
	assert_non_null(strstr(err, "-A is not supported: tcpprep's -A/--decode"));
	assert_int_equal(PARSE(&o, "prep", "a", "-o", "a.prep", "--debug"), 0);
	assert_int_equal(o.debug, 1);
}

/* The refusal of @opt (--xdp, --io-uring) by a build without its method: it lists the methods built. */
static const char *not_built(const char *opt)
{
	static char want[512];
	size_t k = (size_t)snprintf(want, sizeof(want), "%s: not in this build of replay (built: ", opt);

	for (const struct opt_enum *e = tx_method_choices; e->name; e++)
		k += (size_t)snprintf(want + k, sizeof(want) - k, "%s%s", e == tx_method_choices ? "" : e[1].name ? ", " : " and ",
				      e->name);
	snprintf(want + k, sizeof(want) - k, ")");
	return want;
}

/* tcpreplay's aliases and simple options. */
static void test_tcpreplay_options(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-i", "x", "--preload-pcap", "-P", "-W", "a"), 0);
	assert_true(o.trace.preload && o.pid && o.no_warnings);
	assert_int_equal(PARSE(&o, "--listnics"), 0);
	assert_true(o.listnics);
	assert_int_equal(PARSE(&o, "-H"), 0);
	assert_true(o.help);
	assert_int_equal(PARSE(&o, "-i", "x", "--duration", "5", "--loop", "3", "--loopdelay-ms", "250", "a"), 0);
	assert_int_equal(o.run.duration_ns, 5000000000ull);
	assert_int_equal(o.run.loopdelay_ns, 250000000ull);
	assert_int_equal(PARSE(&o, "-i", "x", "--loopdelay-ns", "7", "a"), 0);
	assert_int_equal(o.run.loopdelay_ns, 7);
	expect_usage_error(PARSE(&o, "-i", "x", "--loopdelay-ns", "7", "--loopdelay-ms", "1", "a"),
			   "--loopdelay-ms excludes --loopdelay-ns 7: both set the delay between loop passes; give one");
	expect_usage_error(PARSE(&o, "-i", "x", "--duration", "0", "a"),
			   "--duration: 0 is out of range (1..9223372036)");
	assert_int_equal(PARSE(&o, "-i", "x", "--maxsleep", "10", "a"), 0);
	assert_int_equal(o.sched.max_gap_ns, 10000000ull);
	expect_usage_error(PARSE(&o, "-i", "x", "--maxsleep", "10", "-t", "a"),
			   "--maxsleep excludes -t: --maxsleep cuts the trace's recorded gaps, which this timing does not "
			   "follow");
	expect_usage_error(PARSE(&o, "-i", "x", "--xdp-batch-size", "32", "a"),
			   "--xdp-batch-size needs --xdp: it is the batch of --xdp (or use --batch)");
	if (tx_method_known("xdp")) {
		assert_int_equal(PARSE(&o, "-i", "x", "--xdp", "--xdp-batch-size", "32", "a"), 0);
		assert_int_equal(o.method, TX_METHOD_XDP);
		assert_int_equal(o.tx.batch, 32);
		assert_int_equal(PARSE(&o, "-i", "x", "--method", "xdp", "--xdp-batch-size", "8", "a"), 0);
		assert_int_equal(o.tx.batch, 8);
		expect_usage_error(PARSE(&o, "-i", "x", "--xdp", "--method", "mmsg", "a"),
				   "--method mmsg excludes --xdp: --xdp, --io-uring and --raw are --method xdp, uring and raw; "
				   "give one");
		expect_usage_error(PARSE(&o, "-i", "x", "--xdp", "--batch", "4", "--xdp-batch-size", "8", "a"),
				   "--xdp-batch-size 8 excludes --batch 4: --xdp-batch-size is --batch for --xdp; give one");
	} else {
		expect_usage_error(PARSE(&o, "-i", "x", "--xdp", "a"), not_built("--xdp"));
	}
	if (tx_method_known("uring")) {
		assert_int_equal(PARSE(&o, "-i", "x", "--io-uring", "a"), 0);
		assert_int_equal(o.method, TX_METHOD_URING);
	} else {
		expect_usage_error(PARSE(&o, "-i", "x", "--io-uring", "a"), not_built("--io-uring"));
	}
	/* --pps-multi groups --pps's packets; alone it means nothing and is refused. */
	assert_int_equal(PARSE(&o, "-i", "x", "--pps", "100", "--pps-multi", "4", "a"), 0);
	assert_int_equal(o.sched.pps_multi, 4);
	expect_usage_error(PARSE(&o, "-i", "x", "--pps-multi", "4", "a"),
			   "--pps-multi needs --pps: it groups the packets of --pps");
	expect_usage_error(PARSE(&o, "-i", "x", "--mbps", "10", "--pps-multi", "4", "a"),
			   "--pps-multi needs --pps: it groups the packets of --pps");
	/* tcpreplay's --raw: the raw IP socket method, built everywhere. */
	assert_int_equal(PARSE(&o, "-i", "x", "--raw", "a"), 0);
	assert_int_equal(o.method, TX_METHOD_RAW);
	expect_usage_error(PARSE(&o, "-i", "x", "--raw", "--method", "packet", "a"),
			   "--method packet excludes --raw: --xdp, --io-uring and --raw are --method xdp, uring and raw; "
			   "give one");
	expect_usage_error(PARSE(&o, "-w", "x.pcap", "--raw", "a"),
			   "-w writes a file: --method raw needs an interface (-i)");
}

/* Write @text to a new temporary config file; its name in @path. */
static void config_file(char *path, size_t len, const char *text, size_t n)
{
	FILE *f;

	snprintf(path, len, "/tmp/test_opts.cfg.XXXXXX");
	assert_true(mkstemp(path) >= 0);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
}

/* tcpreplay's --load-opts/--save-opts: every form it writes reads back; bad lines name the line. */
static void test_config_files(void **state)
{
	static const char conf[] = "# a lab's settings\n\n  intf1 =             veth0\n"
				   "LOOP: 3\nfilter tcp port 80  \npnat = 1.2.3.0/24:10.0.0.0/8\n"
				   "topspeed\ndebug\ndebug\nverbose\ndecode -e -x\nstats-json '\"odd\".json'\n";
	char path[64], saved[64], *text = NULL;
	size_t tlen = 0;
	struct opts o;
	FILE *f;

	(void)state;
	config_file(path, sizeof(path), conf, sizeof(conf) - 1);
	assert_int_equal(PARSE(&o, "--load-opts", path, "a.pcap"), 0);
	assert_string_equal(o.tx.ifname, "veth0");
	assert_int_equal(o.run.loop, 3);
	assert_string_equal(o.edit.filter, "tcp port 80");
	assert_int_equal(o.sched.mode, SCHED_MODE_TOPSPEED);
	assert_int_equal(o.debug, 2);
	assert_true(o.decode);
	assert_string_equal(o.decode_args, "-e -x");
	assert_string_equal(o.stats_json, "\"odd\".json");
	assert_int_equal(o.nfiles, 1);
	assert_string_equal(o.files[0], "a.pcap");
	/* In place: what follows overrides it, what precedes is overridden. */
	assert_int_equal(PARSE(&o, "--load-opts", path, "--loop", "5", "a.pcap"), 0);
	assert_int_equal(o.run.loop, 5);
	assert_int_equal(PARSE(&o, "--loop", "5", "--load-opts=/dev/null", "-i", "x", "a.pcap"), 0);
	assert_int_equal(o.run.loop, 5);
	assert_int_equal(PARSE(&o, "--loop", "5", "--load-opts", path, "a.pcap"), 0);
	assert_int_equal(o.run.loop, 3);

	/* --save-opts writes what --load-opts reads back into the same options. */
	assert_int_equal(PARSE(&o, "--load-opts", path, "--save-opts", "x.cfg", "a.pcap"), 0);
	assert_string_equal(o.save_opts, "x.cfg");
	f = open_memstream(&text, &tlen);
	assert_int_equal(opts_save(f, err, sizeof(err)), 10);
	fclose(f);
	assert_non_null(strstr(text, "intf1 =             veth0\n"));
	assert_non_null(strstr(text, "filter =            tcp port 80\n"));
	assert_null(strstr(text, "save-opts"));
	assert_null(strstr(text, "a.pcap"));
	config_file(saved, sizeof(saved), text, tlen);
	free(text);
	assert_int_equal(PARSE(&o, "--load-opts", saved, "b.pcap"), 0);
	assert_string_equal(o.tx.ifname, "veth0");
	assert_int_equal(o.run.loop, 3);
	assert_string_equal(o.edit.filter, "tcp port 80");
	assert_int_equal(o.debug, 2);
	assert_true(o.decode);
	assert_string_equal(o.decode_args, "-e -x");
	assert_string_equal(o.stats_json, "\"odd\".json");
	unlink(saved);
	unlink(path);

	/* A value that cannot be written back is refused, not mangled. */
	assert_int_equal(PARSE(&o, "--filter", "tcp ", "--save-opts", "x.cfg"), 0);
	f = open_memstream(&text, &tlen);
	assert_true(opts_save(f, err, sizeof(err)) < 0);
	fclose(f);
	free(text);
	assert_non_null(strstr(err, "--filter"));

	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "intf1 lo\nnosuchopt 3\n", ":2: 'nosuchopt' is not an option" },
		{ "-l 2\n", ":1: '-l 2': write the option's name without dashes" },
		{ "[tcpreplay]\n", ":1: '[tcpreplay]': a section's name is upper case" },
		{ "[TCPREWRITE\n", ":1: '[TCPREWRITE': a section header is one name in brackets" },
		{ "[]\n", ":1: '[]': a section header is one name in brackets" },
		{ "<?program tcprewrite>\n", ":1: directives ('<?program tcprewrite') are not supported" },
		{ "[TCPREWRITE]\ninfile a.pcap\n", ":2: infile is not supported: tcprewrite's -i/--infile" },
		{ "[TCPEDIT]\n\nloop abc\n", ":3: --loop: 'abc' is not" },
		{ "topspeed 3\n", ":1: topspeed takes no value" },
		{ "\n\nloop\n", ":3: loop needs a value" },
		{ "loop abc\n", ":1: --loop: 'abc' is not" },
		{ "netmap\n", ":1: netmap is not supported: tcpreplay's netmap" },
		{ "load-opts other.cfg\n", ":1: load-opts inside a config file" },
		{ "intf1 \"x y\n", ":1: intf1: the quote" },
		{ "intf1 a\0b\n", ":1: a NUL byte" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = strlen(bad[i].text);

		if (strstr(bad[i].want, "NUL"))
			n = 10;
		config_file(path, sizeof(path), bad[i].text, n);
		assert_int_equal(PARSE(&o, "--load-opts", path, "-w", "o.pcap", "a.pcap"), -EINVAL);
		if (!strstr(err, bad[i].want) || strncmp(err, path, strlen(path)))
			fail_msg("%s: '%s' lacks '%s'", bad[i].text, err, bad[i].want);
		unlink(path);
	}
	assert_true(PARSE(&o, "--load-opts", "/nonexistent/x.cfg", "a.pcap") < 0);
	assert_non_null(strstr(err, "--load-opts /nonexistent/x.cfg: No such file"));
	assert_true(PARSE(&o, "--load-opts") < 0);
	/* After "--" it is an operand, not an option. */
	assert_int_equal(PARSE(&o, "-w", "o.pcap", "--", "--load-opts"), 0);
	assert_string_equal(o.files[0], "--load-opts");
}

/*
 * AutoOpts sections: the lines before any section and the sections of the
 * command's role apply (replay: TCPREPLAY and TCPEDIT; -w: TCPREWRITE and
 * TCPEDIT; replay prep: TCPPREP), in their places; the others are skipped
 * unread, another program's options and all.
 */
static void test_config_sections(void **state)
{
	static const char conf[] = "limit = 3\n"
				   "[TCPREPLAY]\nintf1 = lo\nmtu = 700\n"
				   "[TCPREWRITE]\nttl = -1\n"
				   "[TCPEDIT]\nmtu-trunc\n"
				   "[TCPPREP]\nauto = client\n"
				   "[TCPBRIDGE]\nnosuchopt\n"
				   "[TCPREWRITE]\n# a second section of the same name\nfixcsum\n";
	static const char by_file[] = "# -w given by the file chooses the rewrite sections\nwrite = o.pcap\n"
				      "[TCPREPLAY]\nintf1 = lo\n[TCPREWRITE]\nttl = 9\n";
	static const char prep[] = "[TCPREPLAY]\nnosuchopt 1\n[TCPPREP]\n\nnosuchopt 2\n";
	char path[64];
	struct opts o;

	(void)state;
	config_file(path, sizeof(path), conf, sizeof(conf) - 1);
	assert_int_equal(PARSE(&o, "--load-opts", path, "a.pcap"), 0);
	assert_int_equal(o.run.limit, 3);
	assert_string_equal(o.tx.ifname, "lo");
	assert_int_equal(o.edit.mtu, 700);
	assert_true(o.edit.mtu_trunc);
	assert_int_equal(o.edit.ttl.mode, EDIT_TTL_NONE);
	assert_false(o.edit.fixcsum);

	assert_int_equal(PARSE(&o, "--load-opts", path, "-w", "o.pcap", "a.pcap"), 0);
	assert_int_equal(o.run.limit, 3);
	assert_null(o.tx.ifname);
	assert_int_equal(o.edit.mtu, 1500);
	assert_true(o.edit.mtu_trunc);
	assert_int_equal(o.edit.ttl.mode, EDIT_TTL_SUB);
	assert_int_equal(o.edit.ttl.val, 1);
	assert_true(o.edit.fixcsum);
	/* In place: what follows the file overrides a section's line too. */
	assert_int_equal(PARSE(&o, "-w", "o.pcap", "--load-opts", path, "--ttl", "7", "a.pcap"), 0);
	assert_int_equal(o.edit.ttl.mode, EDIT_TTL_SET);
	assert_int_equal(o.edit.ttl.val, 7);
	unlink(path);

	config_file(path, sizeof(path), by_file, sizeof(by_file) - 1);
	assert_int_equal(PARSE(&o, "--load-opts", path, "a.pcap"), 0);
	assert_string_equal(o.tx.path, "o.pcap");
	assert_null(o.tx.ifname);
	assert_int_equal(o.edit.ttl.mode, EDIT_TTL_SET);
	unlink(path);

	/* replay prep reads [TCPPREP] (where a bad line is named) and skips [TCPREPLAY]. */
	config_file(path, sizeof(path), prep, sizeof(prep) - 1);
	assert_int_equal(PARSE(&o, "prep", "a.pcap", "-o", "a.side", "--load-opts", path), -EINVAL);
	if (!strstr(err, ":5: 'nosuchopt' is not an option") || strncmp(err, path, strlen(path)))
		fail_msg("'%s'", err);
	assert_int_equal(PARSE(&o, "--load-opts", path, "-w", "o.pcap", "a.pcap"), 0);
	unlink(path);
}

/* Save the options of the last parse into a new temporary config file; its name in @path. */
static void save_to(char *path, size_t len)
{
	char *text = NULL;
	size_t tlen = 0;
	FILE *f = open_memstream(&text, &tlen);

	assert_non_null(f);
	assert_true(opts_save(f, err, sizeof(err)) > 0);
	fclose(f);
	config_file(path, len, text, tlen);
	free(text);
}

/*
 * Order-dependent options round-trip: --impair-repeat after the first
 * --impair is that trace's, and stays its after --save-opts/--load-opts
 * (written in table order, it became the second trace's).
 */
static void test_config_order_kept(void **state)
{
	char saved[64];
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-w", "o.pcap", "--impair", "A.txt", "--impair-repeat", "0", "--impair", "B.txt",
			       "--impair-flow", "arp", "a.pcap"), 0);
	assert_int_equal(o.impair.n, 2);
	assert_int_equal(o.impair.src[0].repeat, 0);
	assert_int_equal(o.impair.src[1].repeat, 1);
	assert_null(o.impair.src[0].filter);
	assert_int_equal(PARSE(&o, "-w", "o.pcap", "--impair", "A.txt", "--impair-repeat", "0", "--impair", "B.txt",
			       "--impair-flow", "arp", "--save-opts", "x.cfg", "a.pcap"), 0);
	save_to(saved, sizeof(saved));
	assert_int_equal(PARSE(&o, "--load-opts", saved, "a.pcap"), 0);
	unlink(saved);
	assert_string_equal(o.tx.path, "o.pcap");
	assert_int_equal(o.impair.n, 2);
	assert_string_equal(o.impair.src[0].path, "A.txt");
	assert_int_equal(o.impair.src[0].repeat, 0);
	assert_null(o.impair.src[0].filter);
	assert_string_equal(o.impair.src[1].path, "B.txt");
	assert_int_equal(o.impair.src[1].repeat, 1);
	assert_string_equal(o.impair.src[1].filter, "arp");
}

/*
 * A config file is read as part of one command line: a line may depend on
 * the one before it (impair-flow on its impair), and the checks apply to
 * the whole, a bad value still named by its file and line.
 */
static void test_config_one_command_line(void **state)
{
	static const char conf[] = "impair x.txt\nimpair-flow arp\n";
	static const char half[] = "impair-flow arp\n";
	static const char pps[] = "# rate\npps 10\n";
	char path[64], path2[64], want[256];
	struct opts o;

	(void)state;
	config_file(path, sizeof(path), conf, sizeof(conf) - 1);
	assert_int_equal(PARSE(&o, "-w", "o.pcap", "--load-opts", path, "a.pcap"), 0);
	assert_int_equal(o.impair.n, 1);
	assert_string_equal(o.impair.src[0].path, "x.txt");
	assert_string_equal(o.impair.src[0].filter, "arp");
	unlink(path);
	/* Two files, the flow in the second: as if written on one line. */
	config_file(path, sizeof(path), conf, strlen("impair x.txt\n"));
	config_file(path2, sizeof(path2), half, sizeof(half) - 1);
	assert_int_equal(PARSE(&o, "-w", "o.pcap", "--load-opts", path, "--load-opts", path2, "a.pcap"), 0);
	assert_string_equal(o.impair.src[0].filter, "arp");
	/* Alone, the flow has no --impair before it: refused, naming the file and line. */
	snprintf(want, sizeof(want), "%s:1: --impair-flow: 'arp': --impair-flow binds to the --impair FILE before "
		 "it; give that first", path2);
	expect_usage_error(PARSE(&o, "-w", "o.pcap", "--load-opts", path2, "a.pcap"), want);
	unlink(path);
	unlink(path2);
	/* The rules see the file's options with the command line's. */
	config_file(path, sizeof(path), pps, sizeof(pps) - 1);
	expect_usage_error(PARSE(&o, "-t", "--load-opts", path, "-w", "o.pcap", "a.pcap"),
			   "-t excludes --pps 10: one timing at a time (--topspeed, --speed, --pps or --mbps)");
	assert_int_equal(PARSE(&o, "--load-opts", path, "--pps-multi", "2", "-w", "o.pcap", "a.pcap"), 0);
	assert_int_equal(o.sched.pps_multi, 2);
	unlink(path);
}

/*
 * One reader for every whole number: exactly the documented forms -- no
 * blank before or after, no sign, 0x where hexadecimal is documented, no
 * leading 0 that octal would read otherwise -- and each width's overflow.
 */
static void test_number_forms(void **state)
{
	static const struct {
		const char *arg;
		unsigned forms;
		int rc;
		uint64_t v;
	} u[] = {
		{ "1", OPT_NUM_HEX, 0, 1 },
		{ "1 ", OPT_NUM_HEX, -EINVAL, 0 },
		{ " 1", OPT_NUM_HEX, -EINVAL, 0 },
		{ "", OPT_NUM_HEX, -EINVAL, 0 },
		{ "+1", OPT_NUM_HEX, -EINVAL, 0 },
		{ "010", OPT_NUM_HEX, -EINVAL, 0 },
		{ "010", OPT_NUM_DEC, -EINVAL, 0 },
		{ "08", OPT_NUM_HEX, -EINVAL, 0 },
		{ "007", OPT_NUM_HEX, 0, 7 },
		{ "00", OPT_NUM_DEC, 0, 0 },
		{ "0x10", OPT_NUM_HEX, 0, 16 },
		{ "0X1f", OPT_NUM_HEX, 0, 31 },
		{ "0x10", OPT_NUM_DEC, -EINVAL, 0 },
		{ "0x", OPT_NUM_HEX, -EINVAL, 0 },
		{ "0x 1", OPT_NUM_HEX, -EINVAL, 0 },
		{ "1k", OPT_NUM_HEX, -EINVAL, 0 },
		{ "18446744073709551615", OPT_NUM_DEC, 0, UINT64_MAX },
		{ "18446744073709551616", OPT_NUM_DEC, -EINVAL, 0 },
		{ "0xffffffffffffffff", OPT_NUM_HEX, 0, UINT64_MAX },
		{ "0x10000000000000000", OPT_NUM_HEX, -EINVAL, 0 },
	};
	static const struct {
		const char *arg;
		int rc;
		uint64_t v;
	} z[] = {
		{ "1", 0, 1 },           { "1k", 0, 1024 },       { "1K", 0, 1024 },    { "1KiB", -EINVAL, 0 },
		{ "1KB", -EINVAL, 0 },   { "1 ", -EINVAL, 0 },    { " 1", -EINVAL, 0 }, { "1 K", -EINVAL, 0 },
		{ "K", -EINVAL, 0 },     { "2m", 0, 2u << 20 },   { "3G", 0, 3ull << 30 }, { "0x10K", 0, 16 << 10 },
		{ "010K", -EINVAL, 0 },  { "1T", -EINVAL, 0 },    { "17179869183G", 0, 17179869183ull << 30 },
		{ "17179869184G", -EINVAL, 0 },
	};
	struct opts o;
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		v = 0;
		if (opt_parse_u64(u[i].arg, u[i].forms, 0, UINT64_MAX, &v, err, sizeof(err)) != u[i].rc ||
		    (u[i].rc == 0 && v != u[i].v))
			fail_msg("'%s' (forms %u): %s", u[i].arg, u[i].forms, err);
	}
	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		v = 0;
		if (opt_parse_size(z[i].arg, 0, UINT64_MAX, &v, err, sizeof(err)) != z[i].rc ||
		    (z[i].rc == 0 && v != z[i].v))
			fail_msg("size '%s': %s", z[i].arg, err);
	}
	/* Each width's largest value, and one more. */
	assert_int_equal(opt_parse_u64("65535", OPT_NUM_DEC, 0, UINT16_MAX, &v, err, sizeof(err)), 0);
	expect_usage_error(opt_parse_u64("65536", OPT_NUM_DEC, 0, UINT16_MAX, &v, err, sizeof(err)),
			   "65536 is out of range (0..65535)");
	assert_int_equal(opt_parse_u64("0xffffffff", OPT_NUM_HEX, 0, UINT32_MAX, &v, err, sizeof(err)), 0);
	expect_usage_error(opt_parse_u64("4294967296", OPT_NUM_DEC, 0, UINT32_MAX, &v, err, sizeof(err)),
			   "4294967296 is out of range (0..4294967295)");
	expect_usage_error(opt_parse_u64("99999999999999999999999", OPT_NUM_DEC, 0, UINT64_MAX, &v, err, sizeof(err)),
			   "99999999999999999999999 is out of range (0..18446744073709551615)");
	expect_usage_error(opt_parse_u64("010", OPT_NUM_DEC, 0, 99, &v, err, sizeof(err)),
			   "'010' has a leading 0, which tcpreplay reads as octal: write it in decimal without the 0");
	/* Through the rows: 2-, 4- and 8-byte fields, and the table's own parsers. */
	expect_usage_error(PARSE(&o, "-w", "o", "--enet-vlan", "add", "--enet-vlan-tag", "65536", "a"),
			   "--enet-vlan-tag: 65536 is out of range (0..4095)");
	expect_usage_error(PARSE(&o, "-i", "x", "--rt-priority", "4294967297", "a"),
			   "--rt-priority: 4294967297 is out of range (1..99)");
	expect_usage_error(PARSE(&o, "-w", "o", "--loss", "1%", "--impair-limit", "4294967296", "a"),
			   "--impair-limit: 4294967296 is out of range (1..1048576)");
	expect_usage_error(PARSE(&o, "-w", "o", "--loop", "18446744073709551616", "a"),
			   "--loop: 18446744073709551616 is out of range (0..18446744073709551615)");
	expect_usage_error(PARSE(&o, "-w", "o", "--loop", "1 ", "a"), "--loop: '1 ' is not a non-negative integer");
	expect_usage_error(PARSE(&o, "-w", "o", "--window-size", "1 ", "a"),
			   "--window-size: '1 ' is not a size (bytes, or a number with K, M or G)");
	expect_usage_error(PARSE(&o, "-w", "o", "--window-size", "1KiB", "a"),
			   "--window-size: '1KiB' is not a size (bytes, or a number with K, M or G)");
	assert_int_equal(PARSE(&o, "-w", "o", "--window-size", "0x100000", "a"), 0);
	assert_int_equal(o.trace.window_bytes, 1u << 20);
	static const char *const leading0[][2] = {
		{ "--threads", "010" }, { "--cpu", "010" }, { "--xdp-queue", "010" }, { "--impair-repeat", "010" },
		{ "--loop", "010" },    { "--mtu", "010" }, { "--spin-us", "010" },
	};
	for (size_t i = 0; i < sizeof(leading0) / sizeof(leading0[0]); i++) {
		assert_int_equal(PARSE(&o, "-i", "x", "--impair", "i.txt", (char *)leading0[i][0],
				       (char *)leading0[i][1], "a"), -EINVAL);
		if (!strstr(err, "'010' has a leading 0, which tcpreplay reads as octal"))
			fail_msg("%s 010: %s", leading0[i][0], err);
	}
	assert_int_equal(PARSE(&o, "-i", "x", "--threads", "0x2", "a"), 0);
	assert_int_equal(o.threads, 2);
	assert_int_equal(PARSE(&o, "-i", "x", "--impair", "i.txt", "--impair-repeat", "007", "a"), 0);
	assert_int_equal(o.impair.src[0].repeat, 7);
	expect_usage_error(PARSE(&o, "-w", "o", "--loss", "1% ", "a"), "--loss: '1% ': blanks before or after the value");
}

/* An impairment model that impairs nothing is named by the option that made it. */
static void test_impair_nothing_named(void **state)
{
	struct opts o;

	(void)state;
	expect_usage_error(PARSE(&o, "-w", "o", "--corrupt", "0%", "a"),
			   "--corrupt impairs nothing: give --loss, --delay, --duplicate, --corrupt, --reorder or --rate "
			   "above 0");
	expect_usage_error(PARSE(&o, "-w", "o", "--delay-distribution", "normal", "a"),
			   "--delay-distribution impairs nothing: give --loss, --delay, --duplicate, --corrupt, --reorder "
			   "or --rate above 0");
	assert_int_equal(PARSE(&o, "-w", "o", "--corrupt", "1%", "a"), 0);
	assert_int_equal(o.impair.limit, IMPAIR_LIMIT_DEFAULT);
	assert_int_equal(PARSE(&o, "-w", "o", "--impair-stat", "delay 1ms limit 50", "a"), 0);
	assert_int_equal(o.impair.limit, 50);
	assert_int_equal(PARSE(&o, "-w", "o", "--impair-stat", "delay 1ms limit 50", "--impair-limit", "7", "a"), 0);
	assert_int_equal(o.impair.limit, 7);
}

/* The rules as --help shows them, and the defaults it shows from the modules' constants. */
static void test_help_shows_rules(void **state)
{
	static const char *const want[] = {
		"--pps-multi M          send M packets together each interval (same average rate) (needs --pps)\n",
		"(default 64)\n",
		"(default 1000; needs --impair, --loss, --delay, --duplicate, --corrupt, --reorder, --rate or --impair-stat)\n",
		"(default 32M)\n",
		"(not with --write, replay prep)\n",
		"(needs --intf2 or --info; not with --split, --cachefile, --prep, replay prep)\n",
	};
	char *help = NULL, d[64];
	size_t hlen = 0;
	FILE *hf = open_memstream(&help, &hlen);

	(void)state;
	opts_usage(hf, "replay");
	fclose(hf);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(help, want[i]))
			fail_msg("--help lacks '%s'", want[i]);
	free(help);
	assert_true(opt_def_dflt(opts_replay_set(), &opts_replay_set()->table[0], d, sizeof(d)) == false);
}

/* What was given, and what rows that share a field agree on. */
static void test_given_and_agreement(void **state)
{
	const struct opt_set *set = opts_replay_set();
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-i", "x", "--loop", "1", "--threads", "1", "a"), 0);
	assert_true(opt_given(set, &o, "loop") && !opt_in_effect(set, &o, "loop"));
	assert_true(opt_given(set, &o, "threads") && !opt_in_effect(set, &o, "threads"));
	assert_true(o.threads_given);
	assert_true(opt_given(set, &o, "interface")); /* -i: an alias of --interface */
	assert_false(opt_given(set, &o, "write"));
	assert_int_equal(PARSE(&o, "-i", "x", "--threads", "auto", "-L", "5", "a"), 0);
	assert_true(o.threads_ask_auto);
	assert_false(o.threads_given);
	assert_int_equal(o.threads, 1);
	assert_string_equal(opts_one_thread_only(&o), "-L");
	/* --method2 not given: --method's; given: its own. */
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--method", "mmsg", "a"), 0);
	assert_int_equal(o.method2, TX_METHOD_MMSG);
	assert_int_equal(PARSE(&o, "-i", "x", "-I", "y", "--method", "mmsg", "--method2", "packet", "a"), 0);
	assert_int_equal(o.method2, TX_METHOD_PACKET);
	/* Rows of one field that must agree: the same value is no conflict. */
	assert_int_equal(PARSE(&o, "-i", "x", "--method", "raw", "--raw", "a"), 0);
	assert_int_equal(PARSE(&o, "-i", "x", "--raw", "--batch", "8", "--raw", "a"), 0);
	assert_int_equal(o.tx.batch, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_basics),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_input_options),
		cmocka_unit_test(test_xdp_inplace),
		cmocka_unit_test(test_help_skips_checks),
		cmocka_unit_test(test_numbers_hex),
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_every_option_documented),
		cmocka_unit_test(test_rows_match_fields),
		cmocka_unit_test(test_binds_module_configs),
		cmocka_unit_test(test_method_from_table),
		cmocka_unit_test(test_values_start_with_a_digit),
		cmocka_unit_test(test_dry_run_warns_rt),
		cmocka_unit_test(test_cpu_list_and_threads),
		cmocka_unit_test(test_no_abbreviations),
		cmocka_unit_test(test_option_like_arguments),
		cmocka_unit_test(test_intf2),
		cmocka_unit_test(test_source_interface),
		cmocka_unit_test(test_dualfile),
		cmocka_unit_test(test_method2),
		cmocka_unit_test(test_gso),
		cmocka_unit_test(test_tool_hints),
		cmocka_unit_test(test_decode_opts),
		cmocka_unit_test(test_prep_refuses_tcpprep_letters),
		cmocka_unit_test(test_tcpreplay_options),
		cmocka_unit_test(test_config_files),
		cmocka_unit_test(test_config_sections),
		cmocka_unit_test(test_config_order_kept),
		cmocka_unit_test(test_config_one_command_line),
		cmocka_unit_test(test_number_forms),
		cmocka_unit_test(test_impair_nothing_named),
		cmocka_unit_test(test_help_shows_rules),
		cmocka_unit_test(test_given_and_agreement),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
