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

#include <cmocka.h>

#include "replay/opts.h"

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
	assert_string_equal(o.intf1, "veth0");
	assert_null(o.write_path);
	assert_int_equal(o.nfiles, 2);
	assert_string_equal(o.files[0], "a.pcap");
	assert_string_equal(o.files[1], "b.pcap");
	assert_int_equal(o.mode, SCHED_MODE_TRACE);
	assert_int_equal(o.loop, 1);
	assert_int_equal(o.limit, 0);
	assert_false(o.quiet);

	assert_int_equal(PARSE(&o, "a.pcap", "--intf1=eth1", "-t", "--loop", "0", "-L", "5",
			       "--stats-json", "-", "-q", "-vv"), 0);
	assert_string_equal(o.intf1, "eth1");
	assert_int_equal(o.mode, SCHED_MODE_TOPSPEED);
	assert_int_equal(o.loop, 0);
	assert_int_equal(o.limit, 5);
	assert_string_equal(o.stats_json, "-");
	assert_true(o.quiet);
	assert_int_equal(o.verbose, 2);

	assert_int_equal(PARSE(&o, "-w", "out.pcap", "--topspeed", "a.pcap"), 0);
	assert_string_equal(o.write_path, "out.pcap");
}

static void expect_usage_error(int rc, const char *msg)
{
	assert_int_equal(rc, -EINVAL);
	assert_string_equal(err, msg);
}

static void test_errors(void **state)
{
	struct opts o;

	(void)state;
	expect_usage_error(PARSE(&o, "a.pcap"),
			   "no output: give an interface (-i IF) or an output file (-w FILE)");
	expect_usage_error(PARSE(&o, "-i", "x", "-w", "y", "a.pcap"),
			   "-i and -w exclude each other: send on an interface or write a file");
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

static void test_help_skips_checks(void **state)
{
	struct opts o;

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
	free(man);
	free(readme);
	free(help);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_basics),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help_skips_checks),
		cmocka_unit_test(test_every_option_documented),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
