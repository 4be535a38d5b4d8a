// SPDX-License-Identifier: BSD-2-Clause
/* replay-rx's options: parsing, combinations refused, and that every option is documented. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "optcheck.h"
#include "rx.h"

static char err[512];
static char *argv_store[48];

static int parse_list(struct rx_opts *o, char *const *args, int n)
{
	argv_store[0] = "replay-rx";
	for (int i = 0; i < n && i < 46; i++)
		argv_store[i + 1] = args[i];
	argv_store[n + 1] = NULL;
	return rx_opts_parse(o, n + 1, argv_store, err, sizeof(err));
}

#define PARSE(o, ...)                                                               \
	parse_list((o), (char *const[]){ __VA_ARGS__ },                             \
		   (int)(sizeof((char *const[]){ __VA_ARGS__ }) / sizeof(char *)))

static void test_defaults_and_basics(void **state)
{
	struct rx_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-i", "veth1"), 0);
	assert_string_equal(o.intf, "veth1");
	assert_int_equal(o.snaplen, 128);
	assert_int_equal(o.block_bytes, 0);
	assert_int_equal(o.blocks, 0);
	assert_int_equal(o.block_ms, 0);
	assert_int_equal(o.count, 0);
	assert_true(o.timeout_s == 0 && o.idle_s == 0);
	assert_null(o.reference);
	assert_false(o.hw_ts);

	assert_int_equal(PARSE(&o, "--interface=eth1", "-f", "udp port 9", "-s", "9216", "-c", "10",
			       "--timeout", "2.5", "--idle", "0.5", "-R", "ref.pcap", "--send-log",
			       "s.log", "-w", "got.pcap", "--json", "-", "--plot", "figs",
			       "--write-impairment", "path.rpim", "--block-size", "65536", "--blocks", "8", "--block-timeout", "1000",
			       "--hw-timestamps", "-q", "-vv"),
			 0);
	assert_string_equal(o.intf, "eth1");
	assert_string_equal(o.filter, "udp port 9");
	assert_int_equal(o.snaplen, 9216);
	assert_int_equal(o.count, 10);
	assert_true(o.timeout_s == 2.5 && o.idle_s == 0.5);
	assert_string_equal(o.reference, "ref.pcap");
	assert_string_equal(o.send_log, "s.log");
	assert_string_equal(o.write_path, "got.pcap");
	assert_string_equal(o.json, "-");
	assert_string_equal(o.plot_dir, "figs");
	assert_string_equal(o.write_impairment, "path.rpim");
	assert_int_equal(o.block_bytes, 65536);
	assert_int_equal(o.blocks, 8);
	assert_int_equal(o.block_ms, 1000);
	assert_true(o.hw_ts && o.quiet);
	assert_int_equal(o.verbose, 2);

	assert_int_equal(PARSE(&o, "-r", "cap.pcap", "--reference", "ref.pcap", "-c", "5"), 0);
	assert_string_equal(o.read_path, "cap.pcap");
}

static void expect_usage_error(int rc, const char *msg)
{
	assert_int_equal(rc, -EINVAL);
	assert_string_equal(err, msg);
}

static void test_errors(void **state)
{
	struct rx_opts o;

	(void)state;
	expect_usage_error(PARSE(&o, "-q"),
			   "nothing to receive: give an interface (-i IF) or a file (-r FILE)");
	expect_usage_error(PARSE(&o, "-i", "a", "-r", "b"), "-i excludes -r: capture live or read a file");
	expect_usage_error(PARSE(&o, "-r", "b", "--idle", "1"),
			   "--idle excludes -r: it applies to live capture, and -r reads a file");
	expect_usage_error(PARSE(&o, "-r", "b", "--block-timeout", "5"),
			   "--block-timeout excludes -r: it applies to live capture, and -r reads a file");
	expect_usage_error(PARSE(&o, "-i", "a", "--block-timeout", "0"),
			   "--block-timeout: 0 is out of range (1..60000)");
	expect_usage_error(PARSE(&o, "-i", "a", "udp"),
			   "unexpected argument 'udp' (a filter goes in --filter)");
	expect_usage_error(PARSE(&o, "-i", "a", "-s", "8"), "--snaplen: 8 is out of range (16..262144)");
	expect_usage_error(PARSE(&o, "-i", "a", "-s", "300000"),
			   "--snaplen: 300000 is out of range (16..262144)");
	expect_usage_error(PARSE(&o, "-i", "a", "--block-size", "100000"),
			   "--block-size: 100000 is not a power of two");
	expect_usage_error(PARSE(&o, "-i", "a", "--block-size", "8192", "-s", "9216"),
			   "--block-size: 8192 bytes cannot hold a 9216-byte frame");
	expect_usage_error(PARSE(&o, "-i", "a", "-B", "2048", "--blocks", "8"),
			   "-B excludes --blocks 8: -B sets the ring's size and its blocks follow from it; --blocks and "
			   "--block-size set them instead");
	expect_usage_error(PARSE(&o, "-i", "a", "--buffer-size", "2048", "--block-size", "65536"),
			   "--buffer-size excludes --block-size 65536: -B sets the ring's size and its blocks follow from "
			   "it; --blocks and --block-size set them instead");
	expect_usage_error(PARSE(&o, "-r", "f.pcap", "-B", "2048"),
			   "-B excludes -r: it applies to live capture, and -r reads a file");
	expect_usage_error(PARSE(&o, "-i", "a", "-B", "3"), "--buffer-size: 3 is out of range (4..16777216)");
	assert_int_equal(PARSE(&o, "-i", "a", "-B", "2048"), 0);
	assert_int_equal(o.ring_kib, 2048);
	expect_usage_error(PARSE(&o, "-i", "a", "--blocks", "0"),
			   "--blocks: 0 is out of range (1..65536)");
	expect_usage_error(PARSE(&o, "-i", "a", "--timeout", "-1"),
			   "--timeout: '-1' is not a positive number");
	expect_usage_error(PARSE(&o, "-i", "a", "--idle", "soon"),
			   "--idle: 'soon' is not a positive number");
	expect_usage_error(PARSE(&o, "-i", "a", "-c", "0"), "--count: 0 is out of range (1..18446744073709551615)");
	expect_usage_error(PARSE(&o, "-i", "a", "--send-log", "s.log", "-s", "64"),
			   "--send-log identifies packets by their first 128 bytes: --snaplen must be at least that");
	expect_usage_error(PARSE(&o, "-i", "a", "--plot", "d"),
			   "--plot needs --reference: it draws timing against the reference");
	expect_usage_error(PARSE(&o, "-i", "a", "--write-impairment", "t.rpim"),
			   "--write-impairment needs --reference: it writes one action per reference packet");
	expect_usage_error(PARSE(&o, "-i", "a", "-R", "r.pcap", "--write-impairment", "-"),
			   "--write-impairment writes a binary trace: give a file, not '-'");
	expect_usage_error(PARSE(&o, "-i", "a", "-w", "-", "--json", "-"),
			   "-w - and --json - cannot both write to standard output");
	expect_usage_error(PARSE(&o, "-i", "a", "--frobnicate"),
			   "unknown option '--frobnicate' (try --help)");
	expect_usage_error(PARSE(&o, "-i"), "option '-i' needs an argument");
	expect_usage_error(PARSE(&o, "-i", "a", "--filter", ""), "--filter: empty argument");
}

static void test_help_skips_checks(void **state)
{
	struct rx_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "--help"), 0);
	assert_true(o.help);
	assert_int_equal(PARSE(&o, "-V"), 0);
	assert_true(o.version);
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

/* --help comes from the table; man/replay-rx.1 and README.md must keep up with it. */
static void test_every_option_documented(void **state)
{
	const char *man_path = getenv("RX_MAN_PAGE"), *readme_path = getenv("README");
	const struct opt_set *set = rx_opts_set();
	char *man, *readme, *help = NULL;
	size_t hlen = 0;
	FILE *hf;

	(void)state;
	if (!man_path || !readme_path)
		fail_msg("RX_MAN_PAGE and README must be set (meson test does)");
	man = slurp(man_path);
	readme = slurp(readme_path);
	hf = open_memstream(&help, &hlen);
	rx_opts_usage(hf);
	fclose(hf);
	assert_true(set->n > 10);
	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *d = &set->table[i];
		char plain[128], esc[128] = "Fl \\-", row[160];
		size_t k = 5;

		snprintf(plain, sizeof(plain), "--%s", d->name);
		for (const char *c = d->name; *c && k + 3 < sizeof(esc); c++) {
			if (*c == '-')
				esc[k++] = '\\';
			esc[k++] = *c;
		}
		esc[k] = '\0';
		if (!strstr(man, esc))
			fail_msg("option --%s is missing from man/replay-rx.1 (as %s)", d->name, esc);
		/* In replay-rx's own table in the README, not just anywhere (replay has --write too). */
		snprintf(row, sizeof(row), "`%s%c%s", d->key ? "-" : "--", d->key ? d->key : d->name[0],
			 d->key ? "`, `--" : d->name + 1);
		if (d->key)
			snprintf(row + strlen(row), sizeof(row) - strlen(row), "%s", d->name);
		if (!strstr(readme, row))
			fail_msg("option --%s is missing from README.md's replay-rx table (as %s)",
				 d->name, row);
		if (!strstr(help, plain))
			fail_msg("option --%s is missing from --help", d->name);
	}
	optcheck_docs(rx_opts_set(), man, readme);
	free(man);
	free(readme);
	free(help);
}

/* Every row against its field (tests/unit/optcheck.h). */
static void test_rows_match_fields(void **state)
{
	(void)state;
	optcheck_set(rx_opts_set());
}

/* replay's names for -i and the JSON file work here too. */
static void test_aliases(void **state)
{
	struct rx_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "--intf1", "veth1", "--stats-json", "r.json"), 0);
	assert_string_equal(o.intf, "veth1");
	assert_string_equal(o.json, "r.json");
}

/* Values must start with a digit; seconds are bounded (no out-of-range conversion later). */
static void test_values_bounded(void **state)
{
	struct rx_opts o;

	(void)state;
	expect_usage_error(PARSE(&o, "-i", "a", "--count", "\t-1"),
			   "--count: '\t-1' is not a non-negative integer");
	expect_usage_error(PARSE(&o, "-i", "a", "-c", " 5"), "--count: ' 5' is not a non-negative integer");
	expect_usage_error(PARSE(&o, "-i", "a", "--timeout", "1e300"),
			   "--timeout: 1e300 is out of range (at most 31536000)");
	expect_usage_error(PARSE(&o, "-i", "a", "--idle", "31536001"),
			   "--idle: 31536001 is out of range (at most 31536000)");
	expect_usage_error(PARSE(&o, "-i", "a", "--timeout", "1e999"),
			   "--timeout: '1e999' is not a positive number");
	expect_usage_error(PARSE(&o, "-i", "a", "--timeout", "inf"), "--timeout: 'inf' is not a positive number");
	expect_usage_error(PARSE(&o, "-i", "a", "--timeout", "nan"), "--timeout: 'nan' is not a positive number");
	expect_usage_error(PARSE(&o, "-i", "a", "--idle", " 1"), "--idle: ' 1' is not a positive number");
	expect_usage_error(PARSE(&o, "-i", "a", "--idle", "0x10"), "--idle: '0x10' is not a positive number");
	assert_int_equal(PARSE(&o, "-i", "a", "--timeout", "31536000", "--idle", ".25"), 0);
	assert_true(o.timeout_s == 31536000.0 && o.idle_s == 0.25);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_basics),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help_skips_checks),
		cmocka_unit_test(test_every_option_documented),
		cmocka_unit_test(test_rows_match_fields),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_values_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
