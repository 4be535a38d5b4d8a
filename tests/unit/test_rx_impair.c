// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay-rx --write-impairment (src/rx/impair_rec.c) on synthetic matches:
 * lost packets become drops, copies become "dup" with their own delays,
 * delays are one-way delays minus the smallest, reordered arrivals keep
 * their order when replayed, and frames without a send-log entry are placed
 * at the offset of the last one that had one.
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

#include "rx.h"

#define MS 1000000ULL
#define T0 1700000000000000000ULL /* an epoch-like base for the times */

static char err[512];

struct fixture {
	struct rx_ref ref;
	struct rx_recs recs;
	struct rx_result res;
	uint64_t ref_ts[16], recno[16];
	size_t pos[32];
	int64_t send[32];
};

/* Reference packet i at T0 + i ms; frame k is position pos[k], received at rx[k]. */
static void setup(struct fixture *fx, size_t nref, const size_t *pos, const uint64_t *rx,
		  const int64_t *send, size_t nfr)
{
	memset(fx, 0, sizeof(*fx));
	for (size_t i = 0; i < nref; i++) {
		fx->ref_ts[i] = T0 + i * MS;
		fx->recno[i] = i + 1;
	}
	fx->ref.n = nref;
	fx->ref.ts_ns = fx->ref_ts;
	fx->ref.recno = fx->recno;
	assert_int_equal(rx_recs_reserve(&fx->recs, nfr), 0);
	for (size_t k = 0; k < nfr; k++) {
		rx_recs_at(&fx->recs, k)->ts_ns = rx[k];
		fx->pos[k] = pos[k];
		fx->send[k] = send ? send[k] : -1;
	}
	fx->recs.n = nfr;
	fx->res.have_ref = true;
	fx->res.pos = fx->pos;
	fx->res.send_ns = send ? fx->send : NULL;
}

/* Write the trace in text form and read it back action by action. */
static char *run(struct fixture *fx, struct rx_impair_count *cnt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (rx_impair_write(f, IMPAIR_FMT_TEXT, &fx->res, &fx->recs, &fx->ref, cnt, err,
			    sizeof(err)) < 0)
		fail_msg("%s", err);
	fclose(f);
	return buf;
}

static void test_loss_dup_delay(void **state)
{
	struct fixture fx;
	struct rx_impair_count cnt;
	/* 5 packets sent at T0 + i ms + 50 us; 1 lost, 3 arrives twice, 4 is 2 ms later than the rest. */
	const size_t pos[] = { 0, 2, 3, 3, 4 };
	int64_t send[5];
	uint64_t rx[5];
	const uint64_t owd[] = { 10 * MS, 10 * MS + 300, 10 * MS, 10 * MS + 5000, 12 * MS };
	char *out;

	(void)state;
	for (int k = 0; k < 5; k++) {
		send[k] = (int64_t)(T0 + pos[k] * MS + 50000);
		rx[k] = (uint64_t)send[k] + owd[k];
	}
	setup(&fx, 5, pos, rx, send, 5);
	out = run(&fx, &cnt);
	assert_string_equal(out, "pass\n"
				 "drop\n"
				 "delay 300ns\n"
				 "dup 1 5us\n"
				 "delay 2ms\n");
	assert_int_equal(cnt.actions, 5);
	assert_int_equal(cnt.dropped, 1);
	assert_int_equal(cnt.duplicated, 1);
	assert_int_equal(cnt.delayed, 2);
	assert_int_equal(cnt.raised, 0);
	assert_int_equal(cnt.min_owd_ns, 10 * MS);
	free(out);
	rx_recs_free(&fx.recs);
}

static void test_reorder(void **state)
{
	struct fixture fx;
	struct rx_impair_count cnt;
	/*
	 * No send log: times from the reference.  Packet 1 arrives after 2 (it was
	 * held 1.5 ms); packets 3 and 4 arrive at the same instant, and their
	 * measured delays would replay them 0 ns apart in that order: 4's is raised.
	 */
	const size_t pos[] = { 0, 2, 1, 3, 4 };
	const uint64_t rx[] = { T0 + 5 * MS, T0 + 2 * MS + 5 * MS, T0 + 1 * MS + 5 * MS + 1500000,
				T0 + 4 * MS + 5 * MS, T0 + 4 * MS + 5 * MS };
	char *out;

	(void)state;
	setup(&fx, 5, pos, rx, NULL, 5);
	out = run(&fx, &cnt);
	/* Replayed: 0 at 0, 1 at 2.5 ms, 2 at 2 ms, 3 at 3 ms + 1 ms, 4 at 4 ms (+1 ns to stay after 3). */
	assert_string_equal(out, "pass\n"
				 "delay 1500us\n"
				 "pass\n"
				 "delay 1ms\n"
				 "delay 1ns\n");
	assert_int_equal(cnt.raised, 1);
	free(out);
	rx_recs_free(&fx.recs);

	/* A frame without a send-log entry sits at the offset of the last one with one. */
	const size_t pos2[] = { 0, 1, 2 };
	const int64_t send2[] = { (int64_t)(T0 + 7 * MS), -1, (int64_t)(T0 + 2 * MS + 7 * MS) };
	const uint64_t rx2[] = { T0 + 7 * MS + 100, T0 + 1 * MS + 7 * MS + 400, T0 + 2 * MS + 7 * MS + 100 };

	setup(&fx, 3, pos2, rx2, send2, 3);
	out = run(&fx, &cnt);
	assert_string_equal(out, "pass\n"
				 "delay 300ns\n"
				 "pass\n");
	free(out);
	rx_recs_free(&fx.recs);
}

static void test_foreign_and_refusals(void **state)
{
	struct fixture fx;
	struct rx_impair_count cnt;
	const size_t pos[] = { RX_NONE, 1 };
	const uint64_t rx[] = { T0, T0 + MS + 20 };
	char *out;
	FILE *f;

	(void)state;
	/* A foreign frame (corrupted, say) is not a packet: packet 0 reads as lost. */
	setup(&fx, 2, pos, rx, NULL, 2);
	out = run(&fx, &cnt);
	assert_string_equal(out, "drop\npass\n");
	free(out);
	/* Without a match against a reference there is nothing to write. */
	fx.res.have_ref = false;
	f = fopen("/dev/null", "w");
	assert_int_equal(rx_impair_write(f, IMPAIR_FMT_BIN, &fx.res, &fx.recs, &fx.ref, &cnt, err,
					 sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "reference"));
	fclose(f);
	rx_recs_free(&fx.recs);

	/* A delay beyond what a trace holds is refused, naming the packet. */
	const size_t pos3[] = { 0, 1 };
	const uint64_t rx3[] = { T0, T0 + MS + 3601ULL * 1000000000ULL };

	setup(&fx, 2, pos3, rx3, NULL, 2);
	f = fopen("/dev/null", "w");
	assert_int_equal(rx_impair_write(f, IMPAIR_FMT_BIN, &fx.res, &fx.recs, &fx.ref, &cnt, err,
					 sizeof(err)),
			 -ERANGE);
	assert_non_null(strstr(err, "reference packet 2"));
	fclose(f);
	rx_recs_free(&fx.recs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loss_dup_delay),
		cmocka_unit_test(test_reorder),
		cmocka_unit_test(test_foreign_and_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
