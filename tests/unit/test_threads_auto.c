// SPDX-License-Identifier: BSD-2-Clause
/*
 * threads_auto(): the sender threads --threads auto takes (and only it:
 * threads_auto_apply() leaves a run without it at one thread),
 * as a function of the options, the TX queues, the CPUs and the memory --
 * each condition that keeps one thread on its own -- and what
 * threads_auto_probe() reads of this machine.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/opts.h"
#include "replay/threads_auto.h"
#include "replay/tx.h"

static char err[512];
static char why[192];
static char *argv_store[40];
static char trace_path[64];

static int parse_list(struct opts *o, char *const *args, int n)
{
	argv_store[0] = "replay";
	for (int i = 0; i < n && i < 36; i++)
		argv_store[i + 1] = args[i];
	argv_store[n + 1] = NULL;
	return opts_parse(o, n + 1, argv_store, err, sizeof(err));
}

#define PARSE(o, ...)                                                               \
	parse_list((o), (char *const[]){ __VA_ARGS__ },                             \
		   (int)(sizeof((char *const[]){ __VA_ARGS__ }) / sizeof(char *)))

/* Two queues, two CPUs, regular inputs, plenty of memory, no lock limit: two threads, unless an option says no. */
static const struct threads_auto_env two = { .queues = 2, .cpus = 2, .inputs_regular = true, .input_bytes = 1 << 20,
					     .mem_avail = 1ull << 32, .memlock = UINT64_MAX };

/* @o parsed from its options on @env: @n threads, and @want in the reason. */
static void expect(const struct opts *o, const struct threads_auto_env *env, unsigned n, const char *want)
{
	unsigned got = threads_auto(o, env, why, sizeof(why));

	if (got != n || !strstr(why, want))
		fail_msg("threads_auto: %u (%s), expected %u (%s)", got, why, n, want);
}

static void test_picks_queues_and_cpus(void **state)
{
	struct threads_auto_env env = two;
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", trace_path), 0);
	assert_false(o.threads_given);
	assert_int_equal(o.threads, 1);
	expect(&o, &env, 2, "2 sender threads on 2 TX queues and 2 CPUs (top speed; each flow's order kept, "
			    "not the order across flows)");
	/* The fewer of queues and CPUs. */
	env.queues = 8;
	env.cpus = 3;
	expect(&o, &env, 3, "3 sender threads on 8 TX queues and 3 CPUs");
	env.queues = 4;
	env.cpus = 16;
	expect(&o, &env, 4, "4 sender threads on 4 TX queues and 16 CPUs");
	/* Never more than --threads takes. */
	env.queues = 1000;
	env.cpus = 1000;
	expect(&o, &env, OPTS_THREADS_MAX, "64 sender threads");
	/* Every method that sends on an interface, -I (both interfaces), --loop, --duration, -K: as --threads N does. */
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "--method", "ring", trace_path), 0);
	expect(&o, &two, 2, "2 sender threads");
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "--method", "xdp", trace_path), 0);
	expect(&o, &two, 2, "2 sender threads");
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "-I", "veth1", "--split", "first", trace_path), 0);
	expect(&o, &two, 2, "2 sender threads");
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "--loop", "3", "--duration", "5", "-K", trace_path), 0);
	expect(&o, &two, 2, "2 sender threads");
}

/* Each condition on the options, alone, keeps one thread. */
static void test_options_keep_one(void **state)
{
	struct opts o;

	(void)state;
	/* --threads given, even --threads 1: the old behaviour exactly. */
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "--threads", "1", trace_path), 0);
	assert_true(o.threads_given);
	expect(&o, &two, 1, "--threads given");
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "--threads", "2", trace_path), 0);
	expect(&o, &two, 1, "--threads given");
	/* Paced: the schedule (one thread's) keeps the interleaving of flows. */
	assert_int_equal(PARSE(&o, "-i", "veth0", trace_path), 0);
	expect(&o, &two, 1, "not at top speed");
	assert_int_equal(PARSE(&o, "-i", "veth0", "--pps", "1000", trace_path), 0);
	expect(&o, &two, 1, "not at top speed");
	assert_int_equal(PARSE(&o, "-i", "veth0", "--mbps", "100", trace_path), 0);
	expect(&o, &two, 1, "not at top speed");
	assert_int_equal(PARSE(&o, "-i", "veth0", "-x", "2", trace_path), 0);
	expect(&o, &two, 1, "not at top speed");
	/* A dry run and the forwarder. */
	assert_int_equal(PARSE(&o, "-t", "-w", "out.pcap", trace_path), 0);
	expect(&o, &two, 1, "-w writes one file");
	assert_int_equal(PARSE(&o, "-i", "veth0", "--source-interface", "veth1"), 0);
	expect(&o, &two, 1, "--source-interface");
	/* What several threads cannot do (the rows that exclude --threads), and what is given for one. */
	static const struct {
		const char *opt, *arg, *name;
	} one[] = {
		{ "--loss", "1%", "--loss is for one thread" },
		{ "--limit", "5", "--limit is for one thread" },
		{ "--send-log", "x.log", "--send-log is for one thread" },
		{ "--stats", "1", "--stats is for one thread" },
		{ "-v", NULL, "-v is for one thread" },
		{ "--xdp-queue", "1", "--xdp-queue is for one thread" },
		{ "--rt-priority", "10", "--rt-priority is for one thread" },
		{ "--cpu", "1", "one CPU given (--cpu)" },
	};
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		struct threads_auto_env env = two;

		if (one[i].arg)
			assert_int_equal(PARSE(&o, "-t", "-i", "veth0", (char *)one[i].opt, (char *)one[i].arg, trace_path), 0);
		else
			assert_int_equal(PARSE(&o, "-t", "-i", "veth0", (char *)one[i].opt, trace_path), 0);
		if (o.cpus.n)
			env.cpus = o.cpus.n; /* as threads_auto_probe() counts them */
		expect(&o, &env, 1, one[i].name);
	}
	/* --loop with --stats-json: its "passes" are one thread's; either alone takes threads. */
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "--loop", "2", "--stats-json", "x.json", trace_path), 0);
	expect(&o, &two, 1, "--loop with --stats-json (its \"passes\") is for one thread");
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "--loop", "0", "--stats-json", "x.json", trace_path), 0);
	expect(&o, &two, 1, "--loop with --stats-json");
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "--stats-json", "x.json", trace_path), 0);
	expect(&o, &two, 2, "2 sender threads");
	/* --oneatatime sends at top speed once asked (it takes no -t: opts.c refuses the pair). */
	assert_int_equal(PARSE(&o, "--oneatatime", "-i", "veth0", trace_path), 0);
	assert_int_equal(o.sched.mode, SCHED_MODE_TOPSPEED);
	expect(&o, &two, 1, "--oneatatime is for one thread");
}

/* Each condition on the machine and the inputs, alone, keeps one thread. */
static void test_environment_keeps_one(void **state)
{
	struct threads_auto_env env;
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", trace_path), 0);
	env = two;
	env.queues = 1;
	expect(&o, &env, 1, "veth0 has 1 TX queue");
	env.queues = 0; /* unknown (another namespace's /sys) */
	expect(&o, &env, 1, "veth0 has 0 TX queues");
	env = two;
	env.cpus = 1;
	expect(&o, &env, 1, "the process may run on one CPU");
	env = two;
	env.inputs_regular = false;
	expect(&o, &env, 1, "an input is not a regular file (each thread would read it; -K reads it once)");
	/* -K: a pipe is read once into memory for all threads. */
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "-K", trace_path), 0);
	expect(&o, &env, 2, "2 sender threads");
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", trace_path), 0);
	/* --preload: one copy, which every thread reads, must fit in half what is available. */
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "-K", trace_path), 0);
	env = two;
	env.mem_avail = 2 * env.input_bytes;
	expect(&o, &env, 2, "2 sender threads");
	env.mem_avail = 2 * env.input_bytes - 1;
	expect(&o, &env, 1, "--preload: the copy would not fit in half the memory available");
	/* Without --preload the inputs are mapped: the memory does not matter. */
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", trace_path), 0);
	expect(&o, &env, 2, "2 sender threads");
	/* RLIMIT_MEMLOCK without cap_ipc_lock: room for every thread's AF_XDP memory where xdp may be used. */
	env = two;
	env.memlock = 2ull * TX_XDP_UMEM_BYTES;
	expect(&o, &env, 2, "2 sender threads");
	env.memlock = 2ull * TX_XDP_UMEM_BYTES - 1;
	expect(&o, &env, 1, "RLIMIT_MEMLOCK");
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "-I", "veth1", trace_path), 0);
	env.memlock = 3ull * TX_XDP_UMEM_BYTES; /* two threads, two sockets each */
	expect(&o, &env, 1, "RLIMIT_MEMLOCK");
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "-I", "veth1", trace_path), 0);
	expect(&o, &env, 1, "RLIMIT_MEMLOCK");
	env.memlock = 4ull * TX_XDP_UMEM_BYTES;
	expect(&o, &env, 2, "2 sender threads");
	/* A method that locks nothing: the limit does not matter. */
	assert_int_equal(PARSE(&o, "-t", "-i", "veth0", "--method", "mmsg", trace_path), 0);
	env.memlock = 0;
	expect(&o, &env, 2, "2 sender threads");
}

/*
 * Whatever threads_auto() picks, --threads N on the same command line takes:
 * it never turns a valid command line into one that several threads refuse.
 */
static void test_never_what_threads_refuse(void **state)
{
	static const char *const extra[][2] = {
		{ "--loop", "2" }, { "--duration", "1" }, { "-K", NULL }, { "--method", "packet" },
		{ "--unique-ip", NULL }, { "--stats-json", "x.json" }, { "--no-flow-stats", NULL },
		{ "--cpu", "0" }, { "--xdp-queue", "0" }, { "--limit", "3" }, { "--send-log", "x" },
		{ "--delay", "1ms" }, { "--stats", "2" }, { "--rt-priority", "5" }, { "-v", NULL }, { "--debug", NULL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
		struct threads_auto_env env = two;
		char nbuf[16];
		struct opts o;
		unsigned n;
		int rc;

		if (extra[i][1])
			rc = PARSE(&o, "-t", "-i", "veth0", "--loop", "2", (char *)extra[i][0], (char *)extra[i][1],
				   trace_path);
		else
			rc = PARSE(&o, "-t", "-i", "veth0", "--loop", "2", (char *)extra[i][0], trace_path);
		if (rc < 0)
			fail_msg("%s: %s", extra[i][0], err);
		if (o.cpus.n)
			env.cpus = o.cpus.n;
		n = threads_auto(&o, &env, why, sizeof(why));
		if (n < 2)
			continue;
		snprintf(nbuf, sizeof(nbuf), "%u", n);
		if (extra[i][1])
			rc = PARSE(&o, "-t", "-i", "veth0", "--loop", "2", (char *)extra[i][0], (char *)extra[i][1],
				   "--threads", nbuf, trace_path);
		else
			rc = PARSE(&o, "-t", "-i", "veth0", "--loop", "2", (char *)extra[i][0], "--threads", nbuf,
				   trace_path);
		if (rc < 0)
			fail_msg("%s: auto chose %u threads, --threads %u refuses: %s", extra[i][0], n, n, err);
	}
}

/* What the probe reads: lo's one TX queue, this process's CPUs, the inputs' sizes. */
static void test_probe(void **state)
{
	struct threads_auto_env env;
	cpu_set_t set;
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-t", "-i", "lo", trace_path), 0);
	threads_auto_probe(&o, &env);
	assert_int_equal(env.queues, 1); /* loopback: one TX queue (sysfs queues/tx-0) */
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(env.cpus, (unsigned)CPU_COUNT(&set));
	assert_true(env.inputs_regular);
	assert_int_equal(env.input_bytes, 24); /* the file made below: a pcap header */
	/* lo has one queue: one thread, whatever the CPUs. */
	assert_int_equal(threads_auto(&o, &env, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "lo has 1 TX queue"));
	/* --cpu given: its count, not the mask's. */
	assert_int_equal(PARSE(&o, "-t", "-i", "lo", "--cpu", "0", trace_path), 0);
	threads_auto_probe(&o, &env);
	assert_int_equal(env.cpus, 1);
	/* No such interface (or another namespace's /sys): unknown, 0 queues. */
	assert_int_equal(PARSE(&o, "-t", "-i", "no-such-if0", trace_path), 0);
	threads_auto_probe(&o, &env);
	assert_int_equal(env.queues, 0);
	/* Standard input, a directory or a missing file: not regular. */
	assert_int_equal(PARSE(&o, "-t", "-i", "lo", "/dev/null"), 0);
	threads_auto_probe(&o, &env);
	assert_false(env.inputs_regular);
}

static int setup(void **state)
{
	static const unsigned char hdr[24] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0,
					       0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0 };
	FILE *f;
	int fd;

	(void)state;
	snprintf(trace_path, sizeof(trace_path), "/tmp/test_threads_auto.XXXXXX");
	fd = mkstemp(trace_path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f || fwrite(hdr, 1, sizeof(hdr), f) != sizeof(hdr))
		return -1;
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(trace_path);
	return 0;
}

/*
 * Only --threads auto asks: without it a top-speed run keeps one thread
 * and threads_auto_apply() decides nothing (the order across flows is the
 * trace's); with it, the decision and its reason are the summary's.
 */
static void test_apply_only_when_asked(void **state)
{
	struct opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "-t", "-i", "lo", trace_path), 0);
	assert_false(o.threads_ask_auto);
	threads_auto_apply(&o);
	assert_int_equal(o.threads, 1);
	assert_false(o.threads_auto);
	assert_string_equal(o.threads_why, "");
	assert_int_equal(PARSE(&o, "-t", "-i", "lo", "--threads", "auto", trace_path), 0);
	assert_true(o.threads_ask_auto);
	assert_false(o.threads_given);
	assert_int_equal(o.threads, 1);
	threads_auto_apply(&o);
	/* lo has one TX queue: one thread, and why. */
	assert_int_equal(o.threads, 1);
	assert_false(o.threads_auto);
	assert_string_equal(o.threads_why, "one sender thread: lo has 1 TX queue");
	assert_int_equal(PARSE(&o, "-t", "-i", "lo", "--threads", "autox", trace_path), -EINVAL);
	assert_int_equal(PARSE(&o, "-t", "-i", "lo", "--threads", "0", trace_path), -EINVAL);
	assert_int_equal(PARSE(&o, "-t", "-i", "lo", "--threads", "65", trace_path), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_picks_queues_and_cpus),
		cmocka_unit_test(test_apply_only_when_asked),
		cmocka_unit_test(test_options_keep_one),
		cmocka_unit_test(test_environment_keeps_one),
		cmocka_unit_test(test_never_what_threads_refuse),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
