// SPDX-License-Identifier: BSD-2-Clause
/*
 * Many inputs: a directory's captures in name order, --merge's order and
 * its ties, files held open only while read, the JSON's "files".  Runs
 * write with -w and read the output back: its order is the send order.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "replay/optparse.h"
#include "replay/opts.h"
#include "replay/run.h"
#include "replay/trace.h"
#include "tracebuf.h"

static char dir[] = "/tmp/replay-sources-XXXXXX";
static char out_path[128], json_path[128];
static volatile sig_atomic_t stop;

/* A nanosecond pcap at @path: record i is @len[i] bytes long, stamped @ms[i] ms after 100 s. */
static void write_pcap(const char *path, unsigned n, const uint32_t *len, const uint32_t *ms)
{
	struct tracebuf b = { 0 };
	FILE *f;

	tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
	for (unsigned i = 0; i < n; i++)
		tb_pcap_record(&b, 100, ms[i] * 1000000u, len[i], len[i], NULL);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fclose(f);
	tb_free(&b);
}

/* Run replay with @argv (NULL-ended); its exit status. */
static int run(char **argv)
{
	struct opts o;
	char err[512];
	int argc = 0;

	while (argv[argc])
		argc++;
	stop = 0;
	if (opts_parse(&o, argc, argv, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	return replay_main(&o, &stop);
}

/* The lengths of the records of the -w output, in order, into @len; how many. */
static unsigned out_lengths(uint32_t *len, unsigned max)
{
	struct trace *t;
	struct pkt p;
	unsigned n = 0;

	assert_int_equal(trace_open(&t, out_path, NULL), 0);
	while (trace_next(t, &p) == 1) {
		assert_true(n < max);
		len[n++] = p.caplen;
	}
	trace_close(t);
	return n;
}

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/*
 * --merge: the earliest packet first; a tie to the file given last, as
 * mergecap breaks it -- --dualfile's rule (the first) would put 60 first.
 */
static void test_merge_ties(void **state)
{
	static const uint32_t alen[] = { 60, 61, 62 }, ams[] = { 0, 2, 4 };
	static const uint32_t blen[] = { 70, 71, 72 }, bms[] = { 0, 2, 5 };
	static const uint32_t clen[] = { 80, 81 }, cms[] = { 2, 3 };
	static const uint32_t want[] = { 70, 60, 80, 71, 61, 81, 62, 72 };
	char a[128], b[128], c[128];
	char *argv[] = { "replay", "-q", "-t", "--merge", "-w", out_path, a, b, c, NULL };
	uint32_t got[16];

	(void)state;
	path_in(a, sizeof(a), "a.pcap");
	path_in(b, sizeof(b), "b.pcap");
	path_in(c, sizeof(c), "c.pcap");
	write_pcap(a, 3, alen, ams);
	write_pcap(b, 3, blen, bms);
	write_pcap(c, 2, clen, cms);
	assert_int_equal(run(argv), 0);
	assert_int_equal(out_lengths(got, 16), 8);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(got[i], want[i]);
	unlink(a);
	unlink(b);
	unlink(c);
	unlink(out_path);
}

/* --merge with standard input twice cannot read it side by side. */
static void test_merge_stdin_twice_refused(void **state)
{
	char *argv[] = { "replay", "-q", "--merge", "-w", out_path, "-", "-" };
	struct opts o;
	char err[512];

	(void)state;
	assert_true(opts_parse(&o, 7, argv, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "--merge"));
	assert_non_null(strstr(err, "standard input"));
}

/* A directory: its captures in strverscmp order; dot files skipped; subdirectories with --recursive. */
static void test_directory_order(void **state)
{
	static const uint32_t len[] = { 60 }, ms[] = { 0 };
	static const char *const names[] = { "cap10.pcap", "cap2.pcap", "cap1.pcap", ".hidden.pcap", "sub/cap3.pcap" };
	char d[128], p[512], sub[128], lnk[512];
	char *argv[] = { "replay", "-q", "-w", out_path, d, NULL, NULL };
	struct opts o;
	char err[512];

	(void)state;
	path_in(d, sizeof(d), "caps");
	path_in(sub, sizeof(sub), "caps/sub");
	assert_int_equal(mkdir(d, 0700), 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	for (unsigned i = 0; i < 5; i++) {
		snprintf(p, sizeof(p), "%s/%s", d, names[i]);
		write_pcap(p, 1, len, ms);
	}
	/* A link back up: --recursive must not follow it round. */
	snprintf(lnk, sizeof(lnk), "%s/loop", sub);
	assert_int_equal(symlink("..", lnk), 0);

	assert_int_equal(opts_parse(&o, 5, argv, err, sizeof(err)), 0);
	assert_int_equal(o.nfiles, 3);
	snprintf(p, sizeof(p), "%s/cap1.pcap", d);
	assert_string_equal(o.files[0], p);
	snprintf(p, sizeof(p), "%s/cap2.pcap", d);
	assert_string_equal(o.files[1], p);
	snprintf(p, sizeof(p), "%s/cap10.pcap", d);
	assert_string_equal(o.files[2], p);
	assert_int_equal(o.nwarn, 1);
	assert_non_null(strstr(o.warn[0], "--recursive"));
	{
		/* Parses into stores of their own (the library's runs) keep their expansions apart. */
		struct opt_argv store = { 0 };
		struct opts o2;

		assert_int_equal(opts_parse_into(&o2, &store, 5, argv, err, sizeof(err)), 0);
		assert_int_equal(o2.nfiles, 3);
		snprintf(p, sizeof(p), "%s/cap1.pcap", d);
		assert_string_equal(o2.files[0], p);
		assert_string_equal(o.files[0], p);
		opt_argv_free(&store);
		assert_string_equal(o.files[0], p);
	}

	argv[5] = "--recursive";
	assert_int_equal(opts_parse(&o, 6, argv, err, sizeof(err)), 0);
	assert_int_equal(o.nfiles, 4);
	snprintf(p, sizeof(p), "%s/cap3.pcap", sub);
	assert_string_equal(o.files[3], p);
	assert_int_equal(o.nwarn, 1);
	assert_non_null(strstr(o.warn[0], "symbolic link"));

	unlink(lnk);
	for (unsigned i = 0; i < 5; i++) {
		snprintf(p, sizeof(p), "%s/%s", d, names[i]);
		unlink(p);
	}
	rmdir(sub);
	/* An empty directory is refused, named. */
	assert_true(opts_parse(&o, 5, argv, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "no capture files"));
	rmdir(d);
}

#define MANY 300

/* MANY files under a descriptor limit far below MANY: each open only while it is read, all played in order. */
static void test_many_files_few_descriptors(void **state)
{
	char d[128], p[512];
	char *argv[] = { "replay", "-q", "-t", "-w", out_path, "--stats-json", json_path, d, NULL };
	struct rlimit old, low;
	static uint32_t got[MANY + 1];
	char json[4096];
	FILE *f;
	int rc;

	(void)state;
	path_in(d, sizeof(d), "many");
	assert_int_equal(mkdir(d, 0700), 0);
	for (unsigned i = 0; i < MANY; i++) {
		uint32_t len = 60 + i, ms = 1000 - i; /* stamped backwards: the name order is the order */

		snprintf(p, sizeof(p), "%s/f%u.pcap", d, i);
		write_pcap(p, 1, &len, &ms);
	}
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 48;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	rc = run(argv);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(out_lengths(got, MANY + 1), MANY);
	for (unsigned i = 0; i < MANY; i++)
		assert_int_equal(got[i], 60 + i);
	f = fopen(json_path, "r");
	assert_non_null(f);
	json[fread(json, 1, sizeof(json) - 1, f)] = '\0';
	fclose(f);
	snprintf(p, sizeof(p), "\"files\":[{\"name\":\"%s/f0.pcap\",\"format\":\"pcap\",\"records\":1,\"bytes\":60,", d);
	assert_non_null(strstr(json, p));
	for (unsigned i = 0; i < MANY; i++) {
		snprintf(p, sizeof(p), "%s/f%u.pcap", d, i);
		unlink(p);
	}
	rmdir(d);
	unlink(out_path);
	unlink(json_path);
}

/* A bad last file fails the run before its first packet: the check reads every header first. */
static void test_bad_last_file_refused(void **state)
{
	static const uint32_t len[] = { 60 }, ms[] = { 0 };
	char a[128], bad[128];
	char *argv[] = { "replay", "-q", "-t", "-w", out_path, a, a, bad, NULL };
	FILE *f;

	(void)state;
	path_in(a, sizeof(a), "good.pcap");
	path_in(bad, sizeof(bad), "notes.txt");
	write_pcap(a, 1, len, ms);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("not a capture\n", f);
	fclose(f);
	assert_int_equal(run(argv), 1);
	assert_int_equal(access(out_path, F_OK), -1);
	unlink(a);
	unlink(bad);
}

/* Per file, over every pass: its records and bytes. */
static void test_files_json(void **state)
{
	static const uint32_t alen[] = { 60, 61 }, ams[] = { 0, 1 };
	static const uint32_t blen[] = { 70 }, bms[] = { 0 };
	char a[128], b[128], want[1024], json[4096];
	char *argv[] = { "replay", "-q", "-t", "--loop", "3", "-w", out_path, "--stats-json", json_path, a, b, NULL };
	FILE *f;

	(void)state;
	path_in(a, sizeof(a), "a.pcap");
	path_in(b, sizeof(b), "b.pcap");
	write_pcap(a, 2, alen, ams);
	write_pcap(b, 1, blen, bms);
	assert_int_equal(run(argv), 0);
	f = fopen(json_path, "r");
	assert_non_null(f);
	json[fread(json, 1, sizeof(json) - 1, f)] = '\0';
	fclose(f);
	snprintf(want, sizeof(want),
		 "\"files\":[{\"name\":\"%s\",\"format\":\"pcap\",\"records\":6,\"bytes\":363,\"warnings\":0},"
		 "{\"name\":\"%s\",\"format\":\"pcap\",\"records\":3,\"bytes\":210,\"warnings\":0}]",
		 a, b);
	assert_non_null(strstr(json, want));
	assert_non_null(strstr(json, "\"packets_read\":9,"));
	unlink(a);
	unlink(b);
	unlink(out_path);
	unlink(json_path);
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(out_path, sizeof(out_path), "%s/out.pcap", dir);
	snprintf(json_path, sizeof(json_path), "%s/s.json", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_ties),
		cmocka_unit_test(test_merge_stdin_twice_refused),
		cmocka_unit_test(test_directory_order),
		cmocka_unit_test(test_many_files_few_descriptors),
		cmocka_unit_test(test_bad_last_file_refused),
		cmocka_unit_test(test_files_json),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
