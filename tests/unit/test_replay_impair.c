// SPDX-License-Identifier: BSD-2-Clause
/*
 * The send loop with impairment (src/run/impairing.c, the stage the loop runs), through
 * the -w path: the written pcap carries each frame's impaired deadline as
 * its timestamp, so drops, delays that reorder, copies, corruption, queue
 * overflow, the default action, repeats, flow filters and the statistical
 * models are checked frame by frame and byte by byte, and the accounting
 * identity read + copies = sent + filtered + failed + impaired-dropped in
 * the JSON.  "Late" needs a clock that oversleeps: the fake clock.
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
#include <unistd.h>

#include <cmocka.h>

#include "fakeclock.h"
#include "replay/run.h"
#include "replay/trace.h"
#include "tracebuf.h"

#define NPKT 10
#define GAP_NS 1000000ull
#define LEN(i) (61u + (i)) /* packet i (from 0) has a length of its own: it names the frame */

static char dir[] = "/tmp/test_replay_impair.XXXXXX";
static char trace_path[256], out_path[256], json_path[256], imp_path[256], imp2_path[256];
static uint8_t frames[NPKT][128];
static volatile sig_atomic_t stop;

/* What was written: each frame's bytes and timestamp, in order. */
static struct {
	unsigned n;
	uint32_t len[64];
	uint64_t ts[64];
	uint8_t data[64][128];
} out;
static char json[8192];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	struct tracebuf b = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(trace_path, sizeof(trace_path), "%s/t.pcap", dir);
	snprintf(out_path, sizeof(out_path), "%s/o.pcap", dir);
	snprintf(json_path, sizeof(json_path), "%s/s.json", dir);
	snprintf(imp_path, sizeof(imp_path), "%s/i.txt", dir);
	snprintf(imp2_path, sizeof(imp2_path), "%s/j.txt", dir);
	tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
	for (unsigned i = 0; i < NPKT; i++) {
		tb_frame(frames[i], LEN(i), i + 1);
		tb_pcap_record(&b, 100, (uint32_t)(i * GAP_NS), LEN(i), LEN(i), frames[i]);
	}
	f = fopen(trace_path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fclose(f);
	tb_free(&b);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(trace_path);
	unlink(out_path);
	unlink(json_path);
	unlink(imp_path);
	unlink(imp2_path);
	rmdir(dir);
	return 0;
}

/* Read the written pcap into out. */
static void read_out(void)
{
	struct trace *t;
	struct pkt p;
	int rc;

	memset(&out, 0, sizeof(out));
	assert_int_equal(trace_open(&t, out_path, NULL), 0);
	while ((rc = trace_next(t, &p)) == 1) {
		assert_true(out.n < 64);
		assert_true(p.caplen <= 128);
		out.len[out.n] = p.caplen;
		out.ts[out.n] = p.ts_ns;
		memcpy(out.data[out.n], p.data, p.caplen);
		out.n++;
	}
	assert_int_equal(rc, 0);
	trace_close(t);
}

/*
 * Run "replay -w OUT --stats-json JSON -q ARGS... TRACE" (ARGS ends at
 * NULL), on the virtual clock or on @fc; read the output and the JSON.
 */
static int run_c(struct fakeclock *fc, ...)
{
	char *argv[32] = { "replay", "-w", out_path, "--stats-json", json_path, "-q" };
	struct replay_hooks hooks = { .clock = fc ? &fc->clk : NULL };
	int argc = 6, status;
	struct opts o;
	char err[256];
	const char *a;
	va_list ap;
	FILE *f;

	va_start(ap, fc);
	while ((a = va_arg(ap, const char *)) && argc < 30)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc++] = trace_path;
	stop = 0;
	unlink(out_path);
	if (opts_parse(&o, argc, argv, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	status = fc ? replay_main_hooked(&o, &stop, &hooks) : replay_main(&o, &stop);
	f = fopen(json_path, "r");
	assert_non_null(f);
	json[fread(json, 1, sizeof(json) - 1, f)] = '\0';
	fclose(f);
	if (status == 0)
		read_out();
	return status;
}

#define run(...) run_c(NULL, __VA_ARGS__, NULL)

static uint64_t jget(const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	if (!p)
		fail_msg("no %s in %s", key, json);
	return strtoull(p + strlen(pat), NULL, 10);
}

/* The impairment object's "key". */
static uint64_t iget(const char *key)
{
	char pat[64];
	const char *p = strstr(json, "\"impairment\":{"), *q;

	if (!p)
		fail_msg("no impairment object in %s", json);
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	q = strstr(p, pat);
	if (!q)
		fail_msg("no impairment %s in %s", key, json);
	return strtoull(q + strlen(pat), NULL, 10);
}

static void check_identity(void)
{
	assert_int_equal(jget("packets_read") + jget("impair_copies"),
			 jget("packets_sent") + jget("packets_filtered") + jget("packets_failed") +
				 jget("packets_impair_dropped"));
	assert_int_equal(jget("packets_sent"), out.n);
}

/* Output frame @k is input packet @i, byte for byte, at @at_ns after the first input packet's slot. */
static void check_frame(unsigned k, unsigned i, uint64_t at_ns, uint64_t ts0)
{
	assert_true(k < out.n);
	assert_int_equal(out.len[k], LEN(i));
	assert_memory_equal(out.data[k], frames[i], LEN(i));
	assert_int_equal(out.ts[k] - ts0, at_ns);
}

/*
 * The run's origin: output frame @k is packet @i, not impaired, written at
 * its recorded offset; the others are checked against it (the written
 * clock starts where the run does).
 */
static uint64_t origin(unsigned k, unsigned i)
{
	assert_true(k < out.n);
	assert_int_equal(out.len[k], LEN(i));
	return out.ts[k] - i * GAP_NS;
}

static void test_drop_and_dup(void **state)
{
	static const unsigned order[] = { 0, 1, 3, 4, 4, 5, 7, 8, 9 };
	uint64_t ts0;

	(void)state;
	/* Packets 3 and 7 (from 1) dropped, 5 duplicated: N - 2 + 1 frames. */
	write_file(imp_path, "pass\npass\ndrop\npass\ndup 1\npass\ndrop\n");
	assert_int_equal(run("--impair", imp_path), 0);
	ts0 = out.ts[0];
	assert_int_equal(out.n, NPKT - 2 + 1);
	for (unsigned k = 0; k < out.n; k++)
		check_frame(k, order[k], order[k] * GAP_NS, ts0);
	check_identity();
	assert_int_equal(jget("packets_impair_dropped"), 2);
	assert_int_equal(jget("impair_copies"), 1);
	assert_int_equal(iget("dropped"), 2);
	assert_int_equal(iget("duplicated"), 1);
	assert_int_equal(iget("from_trace"), 7);
	assert_int_equal(iget("from_default"), 3);
	/* Flow statistics count every packet read, as edited, before the impairment acts. */
	assert_int_equal(jget("flow_packets") + jget("non_flow_packets") + jget("invalid_packets"),
			 jget("packets_read"));
}

static void test_delay_reorders(void **state)
{
	struct fakeclock fc;
	uint64_t ts0;

	(void)state;
	/*
	 * Packet 1 by 2.5 ms: packets 2 and 3 overtake it; it is written at 2.5 ms.
	 * On the fake clock, which moves only when replay waits: nothing is late
	 * (the virtual clock of a dry run also moves with the machine's time, and
	 * a loaded machine made the held frame late).
	 */
	fakeclock_init(&fc, 1000000000ull);
	write_file(imp_path, "delay 2500us\n");
	assert_int_equal(run_c(&fc, "--impair", imp_path, NULL), 0);
	ts0 = origin(NPKT - 1, NPKT - 1);
	assert_int_equal(out.n, NPKT);
	check_frame(0, 1, 1 * GAP_NS, ts0);
	check_frame(1, 2, 2 * GAP_NS, ts0);
	check_frame(2, 0, 2500000, ts0);
	for (unsigned k = 3; k < NPKT; k++)
		check_frame(k, k, k * GAP_NS, ts0);
	check_identity();
	assert_int_equal(iget("delayed"), 1);
	assert_int_equal(iget("late"), 0);
}

static void test_delay_tie_keeps_order(void **state)
{
	uint64_t ts0;

	(void)state;
	/* Packet 1 by exactly 2 ms is due with packet 3: the held one goes first. */
	write_file(imp_path, "delay 2ms\n");
	assert_int_equal(run("--impair", imp_path), 0);
	ts0 = origin(NPKT - 1, NPKT - 1);
	check_frame(0, 1, 1 * GAP_NS, ts0);
	check_frame(1, 0, 2 * GAP_NS, ts0);
	check_frame(2, 2, 2 * GAP_NS, ts0);
}

/*
 * The loop's two producers, merged: the source's next packet and the held
 * frame due first, whichever is earlier, the held frame on a tie (it was
 * there first).  Packet 1 held 1 us less than 2 ms, 2 ms, 1 us more: it
 * goes before packet 3 (at 2 ms), before it, after it.
 */
static void test_merge_order(void **state)
{
	static const char *const delay[] = { "delay 1999us\n", "delay 2ms\n", "delay 2001us\n" };
	static const uint64_t at_ns[] = { 1999000, 2000000, 2001000 };
	static const unsigned place[] = { 1, 1, 2 }; /* its place among the frames written */

	(void)state;
	for (unsigned c = 0; c < 3; c++) {
		uint64_t ts0;

		write_file(imp_path, delay[c]);
		assert_int_equal(run("--impair", imp_path), 0);
		assert_int_equal(out.n, NPKT);
		ts0 = origin(NPKT - 1, NPKT - 1);
		for (unsigned k = 0, i = 1; k < NPKT; k++) {
			if (k == place[c]) {
				check_frame(k, 0, at_ns[c], ts0);
				continue;
			}
			check_frame(k, i, i * GAP_NS, ts0);
			i++;
		}
		check_identity();
	}
}

static void test_dup_delays(void **state)
{
	uint64_t ts0;

	(void)state;
	/* Packet 1 with two copies, 1.5 ms and 20 ms later: the last comes after the end of the input. */
	write_file(imp_path, "dup 2 1500us 20ms\n");
	assert_int_equal(run("--impair", imp_path), 0);
	ts0 = origin(0, 0);
	assert_int_equal(out.n, NPKT + 2);
	check_frame(0, 0, 0, ts0);
	check_frame(1, 1, GAP_NS, ts0);
	check_frame(2, 0, 1500000, ts0);
	check_frame(3, 2, 2 * GAP_NS, ts0);
	check_frame(NPKT + 1, 0, 20 * GAP_NS, ts0);
	check_identity();
	assert_int_equal(iget("copies"), 2);
}

static void test_corrupt_private_copy(void **state)
{
	uint8_t want[128];

	(void)state;
	/* Packet 1: byte 20 inverted and its copy exact; packet 2 delayed and bit 0 flipped. */
	write_file(imp_path, "corrupt byte 20 dup 1\ndelay 1500us corrupt bit 0\n");
	assert_int_equal(run("--impair", imp_path), 0);
	assert_int_equal(out.n, NPKT + 1);
	memcpy(want, frames[0], LEN(0));
	want[20] ^= 0xff;
	assert_int_equal(out.len[0], LEN(0));
	assert_memory_equal(out.data[0], want, LEN(0));
	assert_memory_equal(out.data[1], frames[0], LEN(0)); /* the copy: before corruption */
	memcpy(want, frames[1], LEN(1));
	want[0] ^= 0x80;
	assert_int_equal(out.len[2], LEN(2)); /* packet 3 (2 ms) overtakes packet 2 (held to 2.5 ms) */
	assert_int_equal(out.len[3], LEN(1));
	assert_memory_equal(out.data[3], want, LEN(1));
	/* The trace's own bytes are untouched: the last frames are exact. */
	assert_memory_equal(out.data[out.n - 1], frames[NPKT - 1], LEN(NPKT - 1));
	check_identity();
	assert_int_equal(iget("corrupted"), 2);
	assert_int_equal(iget("bits_flipped"), 9);
}

static void test_queue_overflow(void **state)
{
	static const unsigned order[] = { 5, 6, 7, 8, 9, 0, 1 };
	uint64_t ts0;

	(void)state;
	/* Five packets held 10 ms with room for two: three are dropped, counted apart. */
	write_file(imp_path, "delay 10ms\ndelay 10ms\ndelay 10ms\ndelay 10ms\ndelay 10ms\n");
	assert_int_equal(run("--impair", imp_path, "--impair-limit", "2"), 0);
	ts0 = origin(0, 5);
	assert_int_equal(out.n, 7);
	for (unsigned k = 0; k < 7; k++)
		check_frame(k, order[k], order[k] * GAP_NS + (order[k] < 5 ? 10 * GAP_NS : 0), ts0);
	check_identity();
	assert_int_equal(iget("queue_dropped"), 3);
	assert_int_equal(jget("packets_impair_queue_dropped"), 3);
	assert_int_equal(jget("packets_impair_dropped"), 3);
	assert_int_equal(iget("dropped"), 0);
}

static void test_default_and_repeat(void **state)
{
	(void)state;
	write_file(imp_path, "drop\npass\n");
	/* Once: packet 1 dropped, then the default (pass). */
	assert_int_equal(run("--impair", imp_path), 0);
	assert_int_equal(out.n, NPKT - 1);
	assert_int_equal(out.len[0], LEN(1));
	assert_int_equal(iget("from_default"), NPKT - 2);
	/* Three passes: packets 1, 3, 5 dropped. */
	assert_int_equal(run("--impair", imp_path, "--impair-repeat", "3"), 0);
	assert_int_equal(out.n, NPKT - 3);
	assert_int_equal(out.len[2], LEN(5));
	assert_int_equal(out.len[3], LEN(6));
	/* Forever: every other one. */
	assert_int_equal(run("--impair", imp_path, "--impair-repeat", "0"), 0);
	assert_int_equal(out.n, NPKT / 2);
	for (unsigned k = 0; k < out.n; k++)
		assert_int_equal(out.len[k], LEN(2 * k + 1));
	assert_int_equal(iget("from_default"), 0);
	/* Default drop: everything after the trace. */
	assert_int_equal(run("--impair", imp_path, "--impair-default", "drop"), 0);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.len[0], LEN(1));
	check_identity();
	/* Default an action line: a copy of each packet after the trace. */
	assert_int_equal(run("--impair", imp_path, "--impair-default", "dup 1"), 0);
	assert_int_equal(out.n, NPKT - 1 + NPKT - 2);
	check_identity();
}

static void test_flow_filter(void **state)
{
	(void)state;
	/* Only packets of 66 bytes or more (packets 6..10) take the trace's actions: 6 and 7 dropped. */
	write_file(imp_path, "drop\ndrop\n");
	assert_int_equal(run("--impair", imp_path, "--impair-flow", "greater 66"), 0);
	assert_int_equal(out.n, NPKT - 2);
	for (unsigned k = 0; k < 5; k++)
		assert_int_equal(out.len[k], LEN(k));
	assert_int_equal(out.len[5], LEN(7));
	assert_int_equal(iget("unmatched"), 5);
	/* Two traces, each with its flow: the first drops the small ones' first, the second delays. */
	write_file(imp2_path, "delay 20ms\n");
	assert_int_equal(run("--impair", imp_path, "--impair-flow", "less 61", "--impair", imp2_path,
			     "--impair-flow", "greater 66"), 0);
	assert_int_equal(out.n, NPKT - 1);
	assert_int_equal(out.len[0], LEN(1));
	assert_int_equal(out.len[out.n - 1], LEN(5)); /* held 20 ms: last */
	check_identity();
}

/*
 * --impair-repeat and --impair-default after an --impair are that trace's own;
 * before any --impair they are every trace's that has none of its own.
 * Packets 1..5 (lengths 61..65) are flow "less 65", 6..10 flow "greater 66".
 */
static void test_per_trace_repeat_default(void **state)
{
	(void)state;
	write_file(imp_path, "drop\npass\n");
	write_file(imp2_path, "drop\n");
	/* The first trace twice (packets 1, 3 dropped), the second once then default drop (all 5). */
	assert_int_equal(run("--impair", imp_path, "--impair-flow", "less 65", "--impair-repeat", "2",
			     "--impair", imp2_path, "--impair-flow", "greater 66", "--impair-default", "drop"),
			 0);
	assert_int_equal(out.n, 3);
	assert_int_equal(out.len[0], LEN(1));
	assert_int_equal(out.len[1], LEN(3));
	assert_int_equal(out.len[2], LEN(4));
	check_identity();
	/* Swapped: the first once then pass (1 dropped), the second forever (all 5 dropped). */
	assert_int_equal(run("--impair", imp_path, "--impair-flow", "less 65", "--impair", imp2_path,
			     "--impair-flow", "greater 66", "--impair-repeat", "0"),
			 0);
	assert_int_equal(out.n, 4);
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(out.len[k], LEN(k + 1));
	assert_int_equal(iget("from_default"), 3);
	/* Global (before any --impair) applies to both; a trace's own overrides it. */
	assert_int_equal(run("--impair-default", "drop", "--impair-repeat", "2", "--impair", imp_path,
			     "--impair-flow", "less 65", "--impair", imp2_path, "--impair-flow", "greater 66",
			     "--impair-default", "pass"),
			 0);
	/* First: drop pass drop pass, then default drop (5); second: drop drop (2 passes), then pass. */
	assert_int_equal(out.n, 5);
	assert_int_equal(out.len[0], LEN(1));
	assert_int_equal(out.len[1], LEN(3));
	for (unsigned k = 2; k < 5; k++)
		assert_int_equal(out.len[k], LEN(k + 5));
	check_identity();
}

static void test_statistical_seeded(void **state)
{
	uint32_t first[64];
	unsigned n;

	(void)state;
	assert_int_equal(run("--loss", "40%", "--impair-seed", "7"), 0);
	n = out.n;
	memcpy(first, out.len, sizeof(first));
	assert_true(n > 0 && n < NPKT);
	assert_int_equal(iget("from_model"), NPKT);
	check_identity();
	assert_int_equal(run("--loss", "40%", "--impair-seed", "7"), 0);
	assert_int_equal(out.n, n);
	assert_memory_equal(out.len, first, n * sizeof(first[0]));
	/* A model and a delay: every frame 5 ms later. */
	assert_int_equal(run("--impair-stat", "delay 5ms", "--speed", "1"), 0);
	assert_int_equal(out.n, NPKT);
	assert_int_equal(iget("delayed"), NPKT);
}

static void test_limit_drains_held(void **state)
{
	(void)state;
	/* --limit 3 with packet 1 held: 2, 3, then 1 at its deadline. */
	write_file(imp_path, "delay 5ms\n");
	assert_int_equal(run("--impair", imp_path, "--limit", "3"), 0);
	assert_int_equal(out.n, 3);
	assert_int_equal(out.len[0], LEN(1));
	assert_int_equal(out.len[1], LEN(2));
	assert_int_equal(out.len[2], LEN(0));
	check_identity();
}

/*
 * --loop 0 stops a run in which nothing can ever be sent -- every packet
 * of a whole pass filtered out or failed -- and no other.  An impairment
 * that drops a whole pass (an outage: 10 passed, 10 dropped, 10 passed)
 * sends again in the next: the run goes on to --limit.
 */
static void test_loop0_outage(void **state)
{
	char outage[512] = "";

	(void)state;
	for (int i = 0; i < 30; i++)
		strcat(outage, i >= 10 && i < 20 ? "drop\n" : "pass\n");
	write_file(imp_path, outage);
	assert_int_equal(run("--impair", imp_path, "--loop", "0", "--limit", "30"), 0);
	assert_int_equal(out.n, 2 * NPKT);
	assert_int_equal(jget("packets_impair_dropped"), NPKT);
	assert_int_equal(jget("packets_failed"), 0);
	check_identity();
}

/*
 * --loop 0 with every frame held 1 s and room for 20: the third pass finds
 * the queue full, but what is held goes at its deadline, and the run goes
 * on to --limit (a held frame counts for it as it is held); the 20 are
 * sent a second later, none failed.
 */
static void test_loop0_held_queue_full(void **state)
{
	(void)state;
	assert_int_equal(run("--impair-stat", "delay 1s", "--impair-limit", "20", "--loop", "0", "--limit", "50"), 0);
	assert_int_equal(out.n, 20);
	assert_int_equal(jget("packets_failed"), 0);
	assert_int_equal(iget("queue_dropped"), 30);
	assert_int_equal(jget("packets_impair_dropped"), 30);
	check_identity();
}

/*
 * --limit counts a frame as it is held (it will end sent or failed): the
 * reading stops at the limit even when every packet is held, and what is
 * held still goes at its deadline.  It used to read on until the first
 * held frame was sent, and send them all.
 */
static void test_limit_counts_held(void **state)
{
	(void)state;
	assert_int_equal(run("--impair-stat", "delay 5ms", "--limit", "4"), 0);
	assert_int_equal(jget("packets_read"), 4);
	assert_int_equal(out.n, 4);
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(out.len[k], LEN(k));
	check_identity();
}

static void test_late_counted(void **state)
{
	struct fakeclock fc;

	(void)state;
	/* Every wait wakes 5 ms late: packet 1, held to 1.5 ms, is popped at 6 ms, late. */
	fakeclock_init(&fc, 1000000000ull);
	fc.oversleep_ns = 5 * GAP_NS;
	write_file(imp_path, "delay 1500us\n");
	assert_int_equal(run_c(&fc, "--impair", imp_path, NULL), 0);
	assert_int_equal(out.n, NPKT);
	assert_true(iget("late") >= 1);
	check_identity();
	/* Without oversleeping nothing is late. */
	fakeclock_init(&fc, 1000000000ull);
	assert_int_equal(run_c(&fc, "--impair", imp_path, NULL), 0);
	assert_int_equal(iget("late"), 0);
}

static void test_topspeed_keeps_delay(void **state)
{
	struct fakeclock fc;
	uint64_t t0 = 1000000000ull;

	(void)state;
	/*
	 * At top speed the trace's gaps go but the delay stays, on the run
	 * clock: packet 0 held 50 ms is the last sent, and the run does not
	 * end before its deadline (it used to be sent at once when the input
	 * ended, 50 ms early).  The fake clock moves only when replay waits.
	 */
	fakeclock_init(&fc, t0);
	write_file(imp_path, "delay 50ms\n");
	assert_int_equal(run_c(&fc, "-t", "--impair", imp_path, "--impair-default", "pass", NULL), 0);
	assert_int_equal(out.n, NPKT);
	assert_int_equal(out.len[NPKT - 1], LEN(0));
	assert_memory_equal(out.data[NPKT - 1], frames[0], LEN(0));
	assert_true(fc.now >= t0 + 50000000ull);
	assert_true(fc.now < t0 + 60000000ull);
	assert_int_equal(iget("delayed"), 1);
	check_identity();
}

static void test_signal_fails_held(void **state)
{
	struct fakeclock fc;

	(void)state;
	/* A signal while waiting: what is held is not sent, counted failed, the identity holds. */
	fakeclock_init(&fc, 1000000000ull);
	write_file(imp_path, "delay 50ms\ndelay 50ms\n");
	stop = 0;
	{
		char *argv[] = { "replay", "-w", out_path, "--stats-json", json_path, "-q", "--impair",
				 imp_path, trace_path, NULL };
		struct replay_hooks hooks = { .clock = &fc.clk };
		struct opts o;
		char err[256];
		FILE *f;
		int status;

		assert_int_equal(opts_parse(&o, 9, argv, err, sizeof(err)), 0);
		fc.eintr_next = 0;
		stop = 2; /* a SIGINT before the first packet is sent */
		status = replay_main_hooked(&o, &stop, &hooks);
		assert_int_equal(status, 130);
		f = fopen(json_path, "r");
		assert_non_null(f);
		json[fread(json, 1, sizeof(json) - 1, f)] = '\0';
		fclose(f);
	}
	assert_int_equal(jget("packets_read") + jget("impair_copies"),
			 jget("packets_sent") + jget("packets_filtered") + jget("packets_failed") +
				 jget("packets_impair_dropped"));
	assert_true(jget("packets_failed") >= 1); /* the held frame */
}

static void test_bad_values_refused(void **state)
{
	static const char *const bad[][3] = {
		{ "--loss", "200%", "--loss" },
		{ "--delay", "fast", "--delay" },
		{ "--impair-default", "explode", "--impair-default" },
		{ "--impair-limit", "0", "--impair-limit" },
		{ "--impair-flow", "tcp", "--impair-flow" },
		{ "--delay-distribution", "cauchy", "--delay-distribution" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "replay", "-w", out_path, (char *)bad[i][0], (char *)bad[i][1], trace_path, NULL };
		struct opts o;
		char err[256];

		assert_int_equal(opts_parse(&o, 6, argv, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, bad[i][2]));
		assert_null(strchr(err, '\n'));
	}
	{
		/* --oneatatime sends when asked; impairment holds packets back on a schedule. */
		char *argv[] = { "replay", "-w", out_path, "--oneatatime", "--loss", "10%", trace_path, NULL };
		struct opts o;
		char err[256];

		assert_int_equal(opts_parse(&o, 7, argv, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "--oneatatime"));
		assert_null(strchr(err, '\n'));
	}
	{
		char *argv[] = { "replay", "-w", out_path, "--impair-repeat", "2", trace_path, NULL };
		struct opts o;
		char err[256];

		assert_int_equal(opts_parse(&o, 6, argv, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "--impair-repeat"));
	}
	{
		/* Twice for one trace: refused, naming the trace. */
		char *argv[] = { "replay", "-w", out_path, "--impair", imp_path, "--impair-repeat", "2",
				 "--impair-repeat", "3", trace_path, NULL };
		struct opts o;
		char err[256];

		assert_int_equal(opts_parse(&o, 10, argv, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "--impair-repeat"));
		assert_non_null(strstr(err, "repeat count already"));
	}
	{
		char *argv[] = { "replay", "-w", out_path, "--impair", imp_path, "--impair-default", "drop",
				 "--impair-default", "pass", trace_path, NULL };
		struct opts o;
		char err[256];

		assert_int_equal(opts_parse(&o, 10, argv, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "--impair-default"));
		assert_non_null(strstr(err, "default action already"));
	}
	/* A bad trace is refused before anything is written. */
	write_file(imp_path, "pass\nfrobnicate\n");
	{
		char *argv[] = { "replay", "-w", out_path, "-q", "--impair", imp_path, trace_path, NULL };
		struct opts o;
		char err[256];

		unlink(out_path);
		assert_int_equal(opts_parse(&o, 7, argv, err, sizeof(err)), 0);
		assert_int_equal(replay_main(&o, &stop), 1);
		assert_int_equal(access(out_path, F_OK), -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_and_dup),
		cmocka_unit_test(test_delay_reorders),
		cmocka_unit_test(test_delay_tie_keeps_order),
		cmocka_unit_test(test_merge_order),
		cmocka_unit_test(test_dup_delays),
		cmocka_unit_test(test_corrupt_private_copy),
		cmocka_unit_test(test_queue_overflow),
		cmocka_unit_test(test_default_and_repeat),
		cmocka_unit_test(test_flow_filter),
		cmocka_unit_test(test_per_trace_repeat_default),
		cmocka_unit_test(test_statistical_seeded),
		cmocka_unit_test(test_limit_drains_held),
		cmocka_unit_test(test_limit_counts_held),
		cmocka_unit_test(test_loop0_outage),
		cmocka_unit_test(test_loop0_held_queue_full),
		cmocka_unit_test(test_late_counted),
		cmocka_unit_test(test_topspeed_keeps_delay),
		cmocka_unit_test(test_signal_fails_held),
		cmocka_unit_test(test_bad_values_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
