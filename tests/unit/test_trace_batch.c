// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace_next_batch() and trace_unread(): the batched reader gives the
 * frames, errors and warnings trace_next() gives, one call at a time, on
 * plain, odd and broken traces, from memory and from a mapped file.
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

#include "replay/trace.h"
#include "tracebuf.h"

#define SEC0 1700000000u
#define MAXP 3100

struct drained {
	struct pkt p[MAXP];
	uint64_t hash[MAXP]; /* of each frame's bytes: the views end with the trace */
	unsigned n;
	int end;
	char err[400];
	uint64_t nwarn;
	char warn[400];
	unsigned calls; /* batch calls that read a packet */
};

static struct trace *open_src(const struct tracebuf *b, const char *path)
{
	struct trace *t = NULL;
	int rc = path ? trace_open(&t, path, NULL) : trace_open_mem(&t, "mem.pcap", b->data, b->len, NULL);

	assert_int_equal(rc, 0);
	assert_non_null(t);
	return t;
}

/* Every packet of @b (or the file @path), @max at a time (0: trace_next()). */
static void drain(const struct tracebuf *b, const char *path, unsigned max, struct drained *d)
{
	struct trace *t = open_src(b, path);
	const char *first = NULL;
	int rc;

	memset(d, 0, sizeof(*d));
	for (;;) {
		rc = max ? trace_next_batch(t, d->p + d->n, max) : trace_next(t, d->p + d->n);
		if (rc <= 0)
			break;
		assert_true(rc <= (int)(max ? max : 1));
		for (int i = 0; i < rc; i++) {
			const struct pkt *p = &d->p[d->n + (unsigned)i];
			uint64_t h = 0xcbf29ce484222325ull;

			for (uint32_t k = 0; k < p->caplen; k++)
				h = (h ^ p->data[k]) * 0x100000001b3ull;
			d->hash[d->n + (unsigned)i] = h;
		}
		d->n += (unsigned)rc;
		d->calls++;
		assert_true(d->n + (max ? max : 1) <= MAXP);
	}
	d->end = rc;
	snprintf(d->err, sizeof(d->err), "%s", rc ? trace_strerror(t) : "");
	d->nwarn = trace_warnings(t, &first);
	snprintf(d->warn, sizeof(d->warn), "%s", first ? first : "");
	trace_close(t);
}

/* The seam: per packet and in batches of each size, the same frames, end, error and warnings. */
static void same(const struct tracebuf *b, const char *path, unsigned expect_n, int expect_end)
{
	static struct drained one, many;
	static const unsigned sizes[] = { 1, 2, 3, 7, 32, 64 };

	drain(b, path, 0, &one);
	assert_int_equal(one.n, expect_n);
	assert_int_equal(one.end, expect_end);
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		drain(b, path, sizes[s], &many);
		assert_int_equal(many.n, one.n);
		assert_int_equal(many.end, one.end);
		assert_string_equal(many.err, one.err);
		assert_int_equal(many.nwarn, one.nwarn);
		assert_string_equal(many.warn, one.warn);
		for (unsigned i = 0; i < one.n; i++) {
			const struct pkt *x = &one.p[i], *y = &many.p[i];

			assert_int_equal(y->caplen, x->caplen);
			assert_int_equal(y->wirelen, x->wirelen);
			assert_int_equal(y->ts_ns, x->ts_ns);
			assert_int_equal(y->sched_ns, x->sched_ns);
			assert_int_equal(y->ifidx, x->ifidx);
			assert_int_equal(y->linktype, x->linktype);
			assert_int_equal(y->flags, x->flags);
			assert_int_equal(y->recno, x->recno);
			assert_int_equal(y->off, x->off);
			assert_int_equal(many.hash[i], one.hash[i]);
		}
	}
}

static void plain(struct tracebuf *b, uint32_t magic, unsigned n)
{
	static const uint8_t extra[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t f[200];

	tb_pcap_header(b, magic, 65535, 1);
	for (unsigned i = 0; i < n; i++) {
		uint32_t len = 60 + i % 100;

		tb_frame(f, len, i);
		if (magic != PCAP_MOD) {
			tb_pcap_record(b, SEC0 + i, i * 7 % 1000, len, len + i % 3, f);
			continue;
		}
		tb_u32(b, SEC0 + i);
		tb_u32(b, i * 7 % 1000);
		tb_u32(b, len);
		tb_u32(b, len + i % 3);
		tb_bytes(b, extra, sizeof(extra)); /* the modified format's ifindex, protocol, pkt_type, pad */
		tb_bytes(b, f, len);
	}
}

static void test_plain_encodings(void **state)
{
	static const uint32_t magics[] = { PCAP_USEC, PCAP_NSEC, PCAP_MOD };

	(void)state;
	for (unsigned m = 0; m < 3; m++)
		for (int swap = 0; swap < 2; swap++) {
			struct tracebuf b = { .swap = swap };

			plain(&b, magics[m], 100);
			same(&b, NULL, 100, 0);
			tb_free(&b);
		}
}

/* Plain records come many to a call: the batch is one loop, not trace_next() in disguise. */
static void test_batches_are_taken(void **state)
{
	static struct drained d;
	struct tracebuf b = { 0 };

	(void)state;
	plain(&b, PCAP_USEC, 100);
	drain(&b, NULL, 32, &d);
	assert_int_equal(d.n, 100);
	assert_int_equal(d.calls, 4);
	tb_free(&b);
}

/* Records that warn stop a batch and are read one at a time: warned once each, in order. */
static void test_odd_records(void **state)
{
	struct tracebuf b = { 0 };
	uint8_t big[300000];

	(void)state;
	tb_pcap_header(&b, PCAP_USEC, 64, 1);
	tb_pcap_record(&b, SEC0, 0, 60, 60, NULL);
	tb_pcap_record(&b, SEC0, 1, 100, 100, NULL);    /* caplen above snaplen */
	tb_pcap_record(&b, SEC0, 2, 60, 60, NULL);
	tb_pcap_record(&b, SEC0, 3, 60, 50, NULL);      /* caplen above wirelen */
	tb_pcap_record(&b, SEC0, 4, 40, 1000, NULL);    /* truncated capture: fine, flagged */
	tb_pcap_record(&b, SEC0, 2000000, 60, 60, NULL); /* fraction out of range */
	tb_pcap_record(&b, SEC0, 6, 60, 60, NULL);
	same(&b, NULL, 7, 0);
	tb_free(&b);

	/* An absurd length: the same error, after the same packets. */
	b = (struct tracebuf){ 0 };
	memset(big, 0xab, sizeof(big));
	tb_pcap_header(&b, PCAP_USEC, 0, 1);
	tb_pcap_record(&b, SEC0, 0, 60, 60, NULL);
	tb_pcap_record(&b, SEC0, 0, 61, 61, NULL);
	tb_pcap_record(&b, SEC0, 1, 300000, 300000, big);
	same(&b, NULL, 2, -EINVAL);
	tb_free(&b);
}

static void test_truncated_tail(void **state)
{
	struct tracebuf b = { 0 };

	(void)state;
	plain(&b, PCAP_NSEC, 10);
	/* Cut inside the last record's data, then inside its header. */
	same(&(struct tracebuf){ .data = b.data, .len = b.len - 10 }, NULL, 9, 0);
	same(&(struct tracebuf){ .data = b.data, .len = b.len - (60 + 9 + 7) }, NULL, 9, 0);
	tb_free(&b);
}

/* What is not a plain pcap goes one at a time: FCS stripped, a link type converted, pcapng. */
static void test_other_inputs(void **state)
{
	struct tracebuf b = { 0 };
	uint8_t f[100];

	(void)state;
	tb_pcap_header(&b, PCAP_USEC, 65535, 1 | 0x04000000u | 2u << 28);
	for (unsigned i = 0; i < 5; i++)
		tb_pcap_record(&b, SEC0, i, 64, 64, NULL);
	same(&b, NULL, 5, 0);
	tb_free(&b);

	b = (struct tracebuf){ 0 };
	tb_pcap_header(&b, PCAP_USEC, 65535, 101); /* raw IP */
	memset(f, 0, sizeof(f));
	f[0] = 0x45;
	for (unsigned i = 0; i < 5; i++)
		tb_pcap_record(&b, SEC0, i, 40, 40, f);
	same(&b, NULL, 5, 0);
	tb_free(&b);
}

/* A mapped file, larger than the read-ahead window's steps. */
static void test_mapped_file(void **state)
{
	char path[] = "/tmp/test_trace_batch.XXXXXX";
	struct tracebuf b = { 0 };
	int fd;

	(void)state;
	plain(&b, PCAP_USEC, 3000);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
	close(fd);
	same(&b, path, 3000, 0);
	unlink(path);
	tb_free(&b);
}

static void test_unread(void **state)
{
	struct tracebuf b = { 0 };
	struct pkt v[8], p;
	struct trace *t;

	(void)state;
	plain(&b, PCAP_USEC, 20);
	t = open_src(&b, NULL);
	assert_int_equal(trace_next_batch(t, v, 8), 8);
	/* From the fourth on, read again by the next call. */
	assert_int_equal(trace_unread(t, &v[3]), 0);
	assert_int_equal(trace_next_batch(t, v, 2), 2);
	assert_int_equal(v[0].recno, 4);
	assert_int_equal(v[1].recno, 5);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.recno, 6);
	/* After a trace_next() nothing goes back. */
	assert_int_equal(trace_unread(t, &v[1]), -EINVAL);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.recno, 7);
	/* Nor what the last batch did not read, nor after a rewind. */
	assert_int_equal(trace_next_batch(t, v, 4), 4);
	p = v[3];
	p.recno = 12;
	assert_int_equal(trace_unread(t, &p), -EINVAL);
	assert_int_equal(trace_rewind(t), 0);
	assert_int_equal(trace_unread(t, &v[0]), -EINVAL);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.recno, 1);
	trace_close(t);
	tb_free(&b);
}

/*
 * A mapped trace truncated while it is read: with no read-ahead steps (so
 * only the fault handler stops the reader), the batches hand out the
 * records trace_next() hands out, each one the file's bytes where the file
 * still holds it, and fail as it fails.  Cut at a page boundary and within
 * a page, read a record at a time and in batches of 7 and 32.
 */
static void test_truncated_under_mapping(void **state)
{
	static const unsigned maxes[] = { 0, 7, 32 };
	struct trace_cfg cfg = { .readahead = TRACE_RA_NONE };
	char path[] = "/tmp/test_trace_batch.XXXXXX";
	struct tracebuf b = { 0 };
	int fd;

	(void)state;
	tb_pcap_header(&b, 0xa1b2c3d4u, 65535, LINKTYPE_ETHERNET);
	for (unsigned i = 0; i < 4000; i++)
		tb_pcap_record(&b, SEC0 + i, 0, 1000, 1000, NULL); /* 4 MB */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	for (int cut = 0; cut < 2; cut++) {
		off_t to = cut ? (off_t)b.len / 2 + 100 : (off_t)(b.len / 2) & ~(off_t)4095;
		uint64_t n[3] = { 0 };

		for (unsigned m = 0; m < 3; m++) {
			struct pkt v[32];
			struct trace *t;
			int rc;

			assert_int_equal(pwrite(fd, b.data, b.len, 0), (ssize_t)b.len);
			assert_int_equal(trace_open(&t, path, &cfg), 0);
			/* Read a quarter in first: those pages are mapped already. */
			while (n[m] < 1000 && (rc = maxes[m] ? trace_next_batch(t, v, 1) : trace_next(t, v)) == 1)
				n[m]++;
			assert_int_equal(n[m], 1000);
			assert_int_equal(ftruncate(fd, to), 0);
			while ((rc = maxes[m] ? trace_next_batch(t, v, maxes[m]) : trace_next(t, v)) > 0) {
				for (int i = 0; i < rc; i++) {
					/* Beyond the new end only the rest of its page can be read (as zeros). */
					assert_true(v[i].off + 16 + v[i].caplen <= ((uint64_t)to + 4095) / 4096 * 4096);
					if (v[i].off + 16 + v[i].caplen <= (uint64_t)to)
						assert_memory_equal(v[i].data, b.data + v[i].off + 16, v[i].caplen);
					assert_int_equal(v[i].recno, n[m] + 1);
					n[m]++;
				}
			}
			assert_int_equal(rc, -EIO);
			assert_non_null(strstr(trace_strerror(t), "shrank"));
			assert_int_equal(maxes[m] ? trace_next_batch(t, v, maxes[m]) : trace_next(t, v), -EIO);
			trace_close(t);
		}
		/* Every record wholly within the new end was read, and the same ones each way. */
		assert_true(n[0] >= ((uint64_t)to - 24) / 1016);
		assert_int_equal(n[1], n[0]);
		assert_int_equal(n[2], n[0]);
	}
	close(fd);
	unlink(path);
	tb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_encodings),
		cmocka_unit_test(test_batches_are_taken),
		cmocka_unit_test(test_odd_records),
		cmocka_unit_test(test_truncated_tail),
		cmocka_unit_test(test_other_inputs),
		cmocka_unit_test(test_mapped_file),
		cmocka_unit_test(test_unread),
		cmocka_unit_test(test_truncated_under_mapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
