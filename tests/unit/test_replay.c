// SPDX-License-Identifier: BSD-2-Clause
/*
 * The send loop with a mock backend (cmocka will_return) and a fake clock:
 * the accounting invariant read = sent + filtered + failed, retries on
 * back-pressure, failures, fatal errors, limits, loops and signals.
 */
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

#include "fakeclock.h"
#include "replay.h"
#include "tracebuf.h"

#define T0 5000000000ull
#define NPKT 5
#define GAP_NS 1000000ull

static char dir[] = "/tmp/test_replay.XXXXXX";
static char trace_path[256], json_path[256];
static volatile sig_atomic_t stop;
static struct fakeclock fc;

/* What the mock saw. */
static struct {
	unsigned sent;
	unsigned waits;
	uint64_t sched[64];
	uint64_t sent_at[64];
	unsigned stop_after; /* raise the stop flag after this many sends (0 = never) */
} m;

static int mock_open(struct tx *tx, const struct tx_cfg *cfg)
{
	(void)cfg;
	snprintf(tx->dev, sizeof(tx->dev), "mock0");
	return 0;
}

static int mock_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	int rc = mock_type(int);

	assert_int_equal(n, 1);
	if (rc < 0) {
		snprintf(tx->err, sizeof(tx->err), "mock error %d", rc);
		return rc;
	}
	if (m.sent < 64) {
		m.sched[m.sent] = v->sched_ns;
		m.sent_at[m.sent] = fc.now;
	}
	m.sent++;
	if (m.stop_after && m.sent == m.stop_after)
		stop = 2; /* SIGINT */
	return 1;
}

static int mock_wait(struct tx *tx, int err)
{
	(void)tx;
	assert_true(err == -EAGAIN || err == -ENOBUFS);
	m.waits++;
	return 0;
}

static int mock_drain(struct tx *tx)
{
	(void)tx;
	return 0;
}

static void mock_close(struct tx *tx)
{
	(void)tx;
}

static const struct tx_ops mock_ops = {
	.name = "mock",
	.open = mock_open,
	.send = mock_send,
	.wait = mock_wait,
	.drain = mock_drain,
	.close = mock_close,
};

static int setup(void **state)
{
	struct tracebuf b = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(trace_path, sizeof(trace_path), "%s/t.pcap", dir);
	snprintf(json_path, sizeof(json_path), "%s/s.json", dir);
	tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
	for (unsigned i = 0; i < NPKT; i++)
		tb_pcap_record(&b, 100, (uint32_t)(i * GAP_NS), 60 + i, 60 + i, NULL);
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
	unlink(json_path);
	rmdir(dir);
	return 0;
}

struct knobs {
	uint64_t oversleep_ns; /* the fake clock wakes this late */
	unsigned stop_after;   /* a "signal" arrives after this many sends */
};

/*
 * Run "replay -i mock0 --stats-json FILE -q [ARGS...] TRACE" (ARGS ends at
 * NULL) on the mock and the fake clock; the JSON statistics go to @json.
 * Returns the exit status.
 */
static int run_k(char *json, size_t len, struct knobs k, ...)
{
	char *argv[16] = { "replay", "-i", "mock0", "--stats-json", json_path, "-q" };
	struct replay_hooks hooks = { .tx_ops = &mock_ops, .clock = &fc.clk };
	int argc = 6, status;
	struct opts o;
	char err[256];
	const char *a;
	va_list ap;
	FILE *f;

	va_start(ap, k);
	while ((a = va_arg(ap, const char *)) && argc < 14)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc++] = trace_path;
	memset(&m, 0, sizeof(m));
	m.stop_after = k.stop_after;
	stop = 0;
	fakeclock_init(&fc, T0);
	fc.oversleep_ns = k.oversleep_ns;
	assert_int_equal(opts_parse(&o, argc, argv, err, sizeof(err)), 0);
	status = replay_main_hooked(&o, &stop, &hooks);
	f = fopen(json_path, "r");
	assert_non_null(f);
	json[fread(json, 1, len - 1, f)] = '\0';
	fclose(f);
	return status;
}

#define run(json, len, ...) run_k(json, len, (struct knobs){ 0 }, __VA_ARGS__)

/* The value of "key": in @json. */
static uint64_t jget(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	if (!p)
		fail_msg("no %s in %s", key, json);
	return strtoull(p + strlen(pat), NULL, 10);
}

static void check_invariant(const char *json)
{
	assert_int_equal(jget(json, "packets_read"),
			 jget(json, "packets_sent") + jget(json, "packets_filtered") +
				 jget(json, "packets_failed"));
}

static void test_all_sent_on_schedule(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	assert_int_equal(run(json, sizeof(json), NULL), 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), NPKT);
	assert_int_equal(jget(json, "packets_sent"), NPKT);
	assert_int_equal(jget(json, "bytes_sent"), 60 + 61 + 62 + 63 + 64);
	assert_int_equal(jget(json, "packets_retried"), 0);
	for (unsigned i = 0; i < NPKT; i++) {
		assert_int_equal(m.sched[i], T0 + i * GAP_NS);
		assert_int_equal(m.sent_at[i], T0 + i * GAP_NS); /* waited to the deadline */
	}
	assert_int_equal(jget(json, "elapsed_ns"), (NPKT - 1) * GAP_NS);
	assert_int_equal(jget(json, "count"), NPKT); /* one send error per packet */
}

static void test_late_wakeups_measured(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .oversleep_ns = 3000 }, NULL), 0);
	/* Every packet but the first (due at once) woke 3 us late. */
	assert_int_equal(jget(json, "max"), 3000);
	assert_true(jget(json, "p50") > 3000 - 3000 / 32 && jget(json, "p50") <= 3000);
	assert_int_equal(m.sent_at[1], T0 + GAP_NS + 3000);
}

static void test_backpressure_retried(void **state)
{
	char json[2048];

	(void)state;
	will_return(mock_send, 1);
	will_return(mock_send, -EAGAIN);
	will_return(mock_send, -ENOBUFS);
	will_return(mock_send, -ENOBUFS);
	will_return_always(mock_send, 1);
	assert_int_equal(run(json, sizeof(json), NULL), 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), NPKT);
	assert_int_equal(jget(json, "packets_retried"), 3);
	assert_int_equal(jget(json, "packets_failed"), 0);
	assert_int_equal(m.waits, 3);
}

static void test_failed_packet_counted(void **state)
{
	char json[2048];

	(void)state;
	will_return(mock_send, 1);
	will_return(mock_send, -EMSGSIZE);
	will_return_always(mock_send, 1);
	assert_int_equal(run(json, sizeof(json), NULL), 1);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), NPKT);
	assert_int_equal(jget(json, "packets_sent"), NPKT - 1);
	assert_int_equal(jget(json, "packets_failed"), 1);
}

/* The edit chain sits between reader and scheduler: what it drops counts as filtered. */
static void test_edits_filtered(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	assert_int_equal(run(json, sizeof(json), "--exclude", "P:2,4", NULL), 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), NPKT);
	assert_int_equal(jget(json, "packets_sent"), NPKT - 2);
	assert_int_equal(jget(json, "packets_filtered"), 2);
	assert_int_equal(m.sent, NPKT - 2);
	/* The kept packets keep their own schedule: packet 3 is still due at T0 + 2 gaps. */
	assert_int_equal(m.sched[1], T0 + 2 * GAP_NS);
}

/* A sidecar that cannot be used stops the run before a packet leaves. */
static void test_bad_prep_sends_nothing(void **state)
{
	char *argv[] = { "replay", "-i", "mock0", "-q", "--prep", trace_path, trace_path };
	struct replay_hooks hooks = { .tx_ops = &mock_ops, .clock = &fc.clk };
	struct opts o;
	char err[256];

	(void)state;
	memset(&m, 0, sizeof(m));
	stop = 0;
	fakeclock_init(&fc, T0);
	assert_int_equal(opts_parse(&o, 7, argv, err, sizeof(err)), 0);
	assert_int_equal(replay_main_hooked(&o, &stop, &hooks), 1);
	assert_int_equal(m.sent, 0);
}

static void test_interface_gone_stops(void **state)
{
	char json[2048];

	(void)state;
	will_return(mock_send, 1);
	will_return(mock_send, 1);
	will_return(mock_send, -ENETDOWN);
	assert_int_equal(run(json, sizeof(json), NULL), 1);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 3);
	assert_int_equal(jget(json, "packets_sent"), 2);
	assert_int_equal(jget(json, "packets_failed"), 1);
}

static void test_limit(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	assert_int_equal(run(json, sizeof(json), "--limit", "3", NULL), 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 3);
	assert_int_equal(jget(json, "packets_read"), 3);
}

static void test_loops_continue_schedule(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	assert_int_equal(run(json, sizeof(json), "--loop", "3", NULL), 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 3 * NPKT);
	/* Pass 2 starts where pass 1's last packet was due, and keeps the gaps. */
	assert_int_equal(m.sched[NPKT], T0 + (NPKT - 1) * GAP_NS);
	assert_int_equal(m.sched[NPKT + 1], T0 + NPKT * GAP_NS);
	assert_int_equal(m.sched[3 * NPKT - 1], T0 + (3 * NPKT - 3) * GAP_NS);
}

static void test_loop_limit_forever(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	assert_int_equal(run(json, sizeof(json), "--loop", "0", "-L", "23", NULL), 0);
	assert_int_equal(jget(json, "packets_sent"), 23);
	check_invariant(json);
}

static void test_signal_stops_after_current(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .stop_after = 2 }, NULL), 130);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 2);
	assert_int_equal(jget(json, "packets_read"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_sent_on_schedule),
		cmocka_unit_test(test_late_wakeups_measured),
		cmocka_unit_test(test_backpressure_retried),
		cmocka_unit_test(test_failed_packet_counted),
		cmocka_unit_test(test_interface_gone_stops),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_loops_continue_schedule),
		cmocka_unit_test(test_loop_limit_forever),
		cmocka_unit_test(test_signal_stops_after_current),
		cmocka_unit_test(test_edits_filtered),
		cmocka_unit_test(test_bad_prep_sends_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
