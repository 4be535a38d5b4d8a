// SPDX-License-Identifier: BSD-2-Clause
/*
 * Packet identity and the send log: pkt_id()'s rules, the log written and
 * read back (across buffer flushes, unfinished, damaged), the clock mapping,
 * and replay --send-log recording every packet sent with its send time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fakeclock.h"
#include "replay/run.h"
#include "replay/pkt_id.h"
#include "replay/sendlog.h"
#include "tracebuf.h"

#ifndef SENDLOG_BUFS
#define SENDLOG_BUFS 1 /* one buffer, written by sendlog_add() itself (before the writer thread) */
#endif

static char dir[] = "/tmp/test_sendlog.XXXXXX";
static char log_path[256], trace_path[256], out_path[256], fifo_path[256];
static char err[512];

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(log_path, sizeof(log_path), "%s/send.log", dir);
	snprintf(trace_path, sizeof(trace_path), "%s/t.pcap", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.pcap", dir);
	snprintf(fifo_path, sizeof(fifo_path), "%s/fifo", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(log_path);
	unlink(trace_path);
	unlink(out_path);
	unlink(fifo_path);
	rmdir(dir);
	return 0;
}

static void test_pkt_id_rules(void **state)
{
	uint8_t a[256], b[256];

	(void)state;
	tb_frame(a, sizeof(a), 1);
	memcpy(b, a, sizeof(b));
	/* Same bytes, same identity; any difference within the identity bytes shows. */
	assert_true(pkt_id(a, 200, 200, PKT_ID_BYTES) == pkt_id(b, 200, 200, PKT_ID_BYTES));
	b[127] ^= 1;
	assert_true(pkt_id(a, 200, 200, PKT_ID_BYTES) != pkt_id(b, 200, 200, PKT_ID_BYTES));
	b[127] ^= 1;
	b[0] ^= 0x80;
	assert_true(pkt_id(a, 200, 200, PKT_ID_BYTES) != pkt_id(b, 200, 200, PKT_ID_BYTES));
	b[0] ^= 0x80;
	/* Beyond the identity bytes, or beyond what was captured, nothing counts. */
	b[128] ^= 1;
	assert_true(pkt_id(a, 200, 200, PKT_ID_BYTES) == pkt_id(b, 200, 200, PKT_ID_BYTES));
	assert_true(pkt_id(a, 200, 200, 129) != pkt_id(b, 200, 200, 129));
	assert_true(pkt_id(a, 128, 1514, 200) == pkt_id(b, 128, 1514, 200));
	/* A snap length of 128 sees the same as an identity length of 128. */
	assert_true(pkt_id(a, 128, 200, 9216) == pkt_id(a, 200, 200, 128));
	/* Lengths matter: a prefix is another frame. */
	assert_true(pkt_id(a, 100, 100, PKT_ID_BYTES) != pkt_id(a, 101, 101, PKT_ID_BYTES));
	assert_true(pkt_id(a, 0, 0, PKT_ID_BYTES) != pkt_id(a, 1, 1, PKT_ID_BYTES));

	/* A 42-byte frame padded with zeros to 60 on the wire is the same packet... */
	memset(b, 0, sizeof(b));
	memcpy(b, a, 42);
	a[41] = b[41] = 0x11;
	assert_true(pkt_id(a, 42, 42, PKT_ID_BYTES) == pkt_id(b, 60, 60, PKT_ID_BYTES));
	/* ...but past 60 bytes zeros are data. */
	assert_true(pkt_id(b, 61, 61, PKT_ID_BYTES) != pkt_id(b, 60, 60, PKT_ID_BYTES));
	b[59] = 1;
	assert_true(pkt_id(a, 42, 42, PKT_ID_BYTES) != pkt_id(b, 60, 60, PKT_ID_BYTES));
}

/* No two of 100000 frames that differ in a counter share an identity. */
static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static void test_pkt_id_distinct(void **state)
{
	enum { N = 100000 };
	uint64_t *ids = malloc(N * sizeof(*ids));
	uint8_t f[64];

	(void)state;
	assert_non_null(ids);
	tb_frame(f, sizeof(f), 7);
	for (uint32_t i = 0; i < N; i++) {
		memcpy(f + 42, &i, sizeof(i)); /* a sequence number in a UDP payload */
		ids[i] = pkt_id(f, sizeof(f), sizeof(f), PKT_ID_BYTES);
	}
	qsort(ids, N, sizeof(*ids), cmp_u64);
	for (size_t i = 1; i < N; i++)
		assert_true(ids[i] != ids[i - 1]);
	free(ids);
}

static struct pkt frame_pkt(uint8_t *buf, uint32_t len, uint64_t recno)
{
	tb_frame(buf, len, (unsigned)recno);
	return (struct pkt){ .data = buf, .caplen = len, .wirelen = len, .recno = recno };
}

/* Threads of this process now (/proc/self/task). */
static unsigned count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void test_roundtrip_and_clock_mapping(void **state)
{
	struct sendlog_data d;
	struct sendlog *l;
	uint8_t buf[3][100];

	(void)state;
	unsigned threads = count_threads();

	assert_int_equal(sendlog_open(&l, log_path, 1000000, 5000, err, sizeof(err)), 0);
	/* The writer is a thread of its own, and close joins it. */
	assert_int_equal(count_threads(), threads + 1);
	for (unsigned i = 0; i < 3; i++) {
		struct pkt p = frame_pkt(buf[i], 60 + 10 * i, i + 1);

		sendlog_add(l, sendlog_id(&p), p.recno, 6000 + i * 100);
	}
	/* The realtime offset grew by 100 ns over the run (a slewing clock). */
	assert_int_equal(sendlog_close(l, 1000100, 15000, err, sizeof(err)), 0);
	assert_int_equal(count_threads(), threads);

	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), 0);
	assert_int_equal(d.count, 3);
	assert_int_equal(d.hdr.id_bytes, PKT_ID_BYTES);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(d.e[i].run_ns, 6000 + i * 100);
		assert_int_equal(d.e[i].recno, i + 1);
		assert_true(d.e[i].id == pkt_id(buf[i], 60 + 10 * i, 60 + 10 * i, PKT_ID_BYTES));
	}
	assert_int_equal(sendlog_realtime(&d, 5000), 5000 + 1000000);
	assert_int_equal(sendlog_realtime(&d, 15000), 15000 + 1000100);
	assert_int_equal(sendlog_realtime(&d, 10000), 10000 + 1000050);
	sendlog_free(&d);
}

static void test_buffer_flushes(void **state)
{
	/* Every buffer filled twice over, and a partial one at close. */
	const unsigned n = SENDLOG_BUF_ENTRIES * SENDLOG_BUFS * 2 + 5;
	struct sendlog_data d;
	struct sendlog *l;
	uint8_t buf[64];
	struct pkt p = frame_pkt(buf, sizeof(buf), 1);

	(void)state;
	assert_int_equal(sendlog_open(&l, log_path, 0, 0, err, sizeof(err)), 0);
	for (unsigned i = 0; i < n; i++) {
		p.recno = i + 1;
		sendlog_add(l, sendlog_id(&p), p.recno, i);
	}
	assert_int_equal(sendlog_close(l, 0, n, err, sizeof(err)), 0);
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), 0);
	assert_int_equal(d.count, n);
	for (unsigned i = 0; i < n; i++)
		if (d.e[i].recno != i + 1 || d.e[i].run_ns != i)
			fail_msg("entry %u: recno %llu run_ns %llu", i, (unsigned long long)d.e[i].recno,
				 (unsigned long long)d.e[i].run_ns);
	sendlog_free(&d);
}

static void write_file(const void *b, size_t n)
{
	FILE *f = fopen(log_path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

static void test_unfinished_and_damaged(void **state)
{
	struct {
		struct sendlog_hdr h;
		struct sendlog_entry e[2];
		uint8_t partial[10];
	} f;
	struct sendlog_data d;

	(void)state;
	memset(&f, 0, sizeof(f));
	memcpy(f.h.magic, SENDLOG_MAGIC, 8);
	f.h.byte_order = SENDLOG_BYTE_ORDER;
	f.h.entry_bytes = sizeof(struct sendlog_entry);
	f.h.id_bytes = PKT_ID_BYTES;
	f.h.real_minus_run0_ns = 7;
	f.e[0].recno = 1;
	f.e[1].recno = 2;
	/* A writer killed before close: count 0, a torn last entry -- the whole ones are read. */
	write_file(&f, sizeof(f));
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), 0);
	assert_int_equal(d.count, 2);
	assert_int_equal(d.e[1].recno, 2);
	/* No second sample: the first offset is used throughout. */
	assert_int_equal(sendlog_realtime(&d, 100), 107);
	sendlog_free(&d);

	f.h.count = 3; /* more than the file holds */
	write_file(&f, sizeof(f));
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "shorter than its header says"));

	f.h.count = 0;
	f.h.byte_order = 0x04030201;
	write_file(&f, sizeof(f));
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "other byte order"));

	/* Clock samples no run could give: the offset moved by more than the time between them. */
	f.h.byte_order = SENDLOG_BYTE_ORDER;
	f.h.run0_ns = 1000;
	f.h.run1_ns = 2000;
	f.h.real_minus_run1_ns = 7 + 1001;
	write_file(&f, sizeof(f));
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "clock samples are inconsistent"));
	f.h.run1_ns = 500; /* closed before it opened */
	f.h.real_minus_run1_ns = 7;
	write_file(&f, sizeof(f));
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), -EINVAL);
	/* A slewed clock is interpolated between the samples; results stay in range. */
	f.h.run1_ns = 2000;
	f.h.real_minus_run1_ns = 7 + 100;
	f.h.real_minus_run0_ns = 7;
	write_file(&f, sizeof(f));
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), 0);
	assert_int_equal(sendlog_realtime(&d, 1500), 1500 + 7 + 50);
	d.hdr.real_minus_run0_ns = INT64_MIN; /* as a foreign header could say, past the check */
	d.hdr.run1_ns = 0;
	assert_int_equal(sendlog_realtime(&d, 1500), 0);
	d.hdr.real_minus_run0_ns = INT64_MAX;
	assert_int_equal(sendlog_realtime(&d, UINT64_MAX - 1), UINT64_MAX);
	sendlog_free(&d);
	f.h.run0_ns = f.h.run1_ns = 0;
	f.h.real_minus_run1_ns = 0;

	f.h.entry_bytes = 32;
	write_file(&f, sizeof(f));
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unsupported send log version"));

	memset(&f, 0, sizeof(f));
	memcpy(&f, "\xd4\xc3\xb2\xa1 a pcap, not a log", 22);
	write_file(&f, 80);
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a send log"));
	assert_non_null(strstr(err, log_path));

	write_file("RPLY", 4);
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), -EINVAL);

	unlink(log_path);
	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot read the send log"));
}

static void test_open_errors(void **state)
{
	struct sendlog *l;

	(void)state;
	assert_int_equal(sendlog_open(&l, "/nonexistent-dir/x.log", 0, 0, err, sizeof(err)), -ENOENT);
	assert_null(l);
	assert_string_equal(err,
			    "/nonexistent-dir/x.log: cannot write the send log: No such file or directory");
	/* /dev/full takes the open but no write: reported at the latest by close. */
	if (sendlog_open(&l, "/dev/full", 0, 0, err, sizeof(err)) == 0) {
		uint8_t buf[64];
		struct pkt p = frame_pkt(buf, sizeof(buf), 1);

		sendlog_add(l, sendlog_id(&p), p.recno, 1);
		assert_int_equal(sendlog_close(l, 0, 1, err, sizeof(err)), -ENOSPC);
	} else {
		assert_non_null(strstr(err, "/dev/full"));
	}
}

/* A reader of the FIFO: after @delay_ms, everything until end of file, into memory. */
struct fifo_reader {
	int fd;
	unsigned delay_ms;
	uint8_t *data;
	size_t len, cap;
	pthread_t th;
};

static void *fifo_read_main(void *arg)
{
	struct fifo_reader *r = arg;
	struct timespec ts = { .tv_sec = r->delay_ms / 1000, .tv_nsec = (r->delay_ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	for (;;) {
		ssize_t got;

		if (r->len == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 1 << 20;
			r->data = realloc(r->data, r->cap);
			if (!r->data)
				return NULL;
		}
		got = read(r->fd, r->data + r->len, r->cap - r->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		r->len += (size_t)got;
	}
	return NULL;
}

/* A send log into a FIFO whose reader is there but not reading yet. */
static int fifo_open(struct sendlog **l)
{
	int fd;

	unlink(fifo_path);
	assert_int_equal(mkfifo(fifo_path, 0600), 0);
	fd = open(fifo_path, O_RDONLY | O_NONBLOCK); /* so that the writer's open does not block */
	assert_true(fd >= 0);
	assert_int_equal(sendlog_open(l, fifo_path, 0, 0, err, sizeof(err)), 0);
	assert_int_equal(fcntl(fd, F_SETFL, 0), 0);
	return fd;
}

/* What the reader got: the first header (count 0: a pipe is not rewritten) and entries 1..@n in order. */
static void check_fifo_log(const struct fifo_reader *r, unsigned n)
{
	const struct sendlog_hdr *h = (const void *)r->data;
	const struct sendlog_entry *e = (const void *)(r->data + sizeof(*h));

	assert_non_null(r->data);
	assert_int_equal(r->len, sizeof(*h) + (size_t)n * sizeof(*e));
	assert_memory_equal(h->magic, SENDLOG_MAGIC, 8);
	for (unsigned i = 0; i < n; i++)
		if (e[i].recno != i + 1 || e[i].run_ns != 10 * (uint64_t)i || e[i].id != ~(uint64_t)i)
			fail_msg("entry %u: recno %llu run_ns %llu", i, (unsigned long long)e[i].recno,
				 (unsigned long long)e[i].run_ns);
}

/*
 * The send loop never writes: with the writer stuck in write() (a FIFO
 * nobody reads), every buffer can still be filled and handed over, and
 * sendlog_add() returns each time.  When sendlog_add() wrote the buffer
 * itself, the first full buffer blocked it for good (the alarm ends that).
 */
static void test_add_never_writes(void **state)
{
	const unsigned n = SENDLOG_BUF_ENTRIES * (SENDLOG_BUFS > 1 ? SENDLOG_BUFS : 2);
	struct fifo_reader r = { .delay_ms = 0 };
	struct sendlog *l;
	uint64_t ns;

	(void)state;
	r.fd = fifo_open(&l);
	alarm(20);
	for (unsigned i = 0; i < n; i++)
		sendlog_add(l, ~(uint64_t)i, i + 1, 10 * (uint64_t)i);
	alarm(0);
	/* No wait was needed either: there was always a free buffer. */
	assert_int_equal(sendlog_stalls(l, &ns), 0);
	assert_int_equal(ns, 0);
	assert_int_equal(pthread_create(&r.th, NULL, fifo_read_main, &r), 0);
	assert_int_equal(sendlog_close(l, 0, 1, err, sizeof(err)), 0);
	assert_int_equal(pthread_join(r.th, NULL), 0);
	close(r.fd);
	check_fifo_log(&r, n);
	free(r.data);
}

/*
 * A writer that falls behind by every buffer: the loop waits for it (counted,
 * with its time) and loses nothing.
 */
static void test_writer_behind_waits(void **state)
{
	const unsigned n = SENDLOG_BUF_ENTRIES * (SENDLOG_BUFS + 3) + 7;
	struct fifo_reader r = { .delay_ms = 200 };
	struct sendlog *l;
	uint64_t ns;

	(void)state;
	r.fd = fifo_open(&l);
	assert_int_equal(pthread_create(&r.th, NULL, fifo_read_main, &r), 0);
	for (unsigned i = 0; i < n; i++)
		sendlog_add(l, ~(uint64_t)i, i + 1, 10 * (uint64_t)i);
	assert_true(sendlog_stalls(l, &ns) >= 1);
	assert_true(ns > 0);
	assert_int_equal(sendlog_close(l, 0, 1, err, sizeof(err)), 0);
	assert_int_equal(pthread_join(r.th, NULL), 0);
	close(r.fd);
	check_fifo_log(&r, n);
	free(r.data);
}

/*
 * A write that fails in the writer thread (here: the file size limit, EFBIG,
 * after the first megabyte) is reported by close, naming the file, and the
 * log is not committed.  The entries go on past twice the buffers: a writer
 * that stopped taking buffers after its error would hold the loop for good.
 */
static void test_writer_error_at_close(void **state)
{
	const unsigned n = SENDLOG_BUF_ENTRIES * (SENDLOG_BUFS * 2 + 1);
	struct rlimit old, lim;
	struct sendlog *l;
	char want[512];

	(void)state;
	unlink(log_path);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 1 << 20;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(sendlog_open(&l, log_path, 0, 0, err, sizeof(err)), 0);
	for (unsigned i = 0; i < n; i++)
		sendlog_add(l, ~(uint64_t)i, i + 1, i);
	assert_int_equal(sendlog_close(l, 0, 1, err, sizeof(err)), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	snprintf(want, sizeof(want), "%s: cannot write the send log: %s", log_path, strerror(EFBIG));
	assert_string_equal(err, want);
	assert_int_equal(access(log_path, F_OK), -1);
}

/* replay --send-log on a fake clock: every packet, in order, with the time it was handed over. */
static void test_replay_records_every_packet(void **state)
{
	enum { N = 6 };
	const uint64_t t0 = 7000000000ull, gap = 250000, late = 3000;
	char *argv[] = { "replay", "-q", "-w", out_path, "--send-log", log_path, trace_path, NULL };
	struct tracebuf b = { 0 };
	struct fakeclock fc;
	struct replay_hooks hooks = { .clock = &fc.clk };
	volatile sig_atomic_t stop = 0;
	struct sendlog_data d;
	uint8_t frames[N][90];
	struct opts o;
	FILE *f;

	(void)state;
	tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
	for (unsigned i = 0; i < N; i++) {
		tb_frame(frames[i], 60 + 5 * i, i);
		tb_pcap_record(&b, 100, (uint32_t)(i * gap), 60 + 5 * i, 60 + 5 * i, frames[i]);
	}
	f = fopen(trace_path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fclose(f);
	tb_free(&b);

	fakeclock_init(&fc, t0);
	fc.oversleep_ns = late;
	assert_int_equal(opts_parse(&o, 7, argv, err, sizeof(err)), 0);
	assert_string_equal(o.send_log, log_path);
	assert_int_equal(replay_main_hooked(&o, &stop, &hooks), 0);

	assert_int_equal(sendlog_load(&d, log_path, err, sizeof(err)), 0);
	assert_int_equal(d.count, N);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(d.e[i].recno, i + 1);
		assert_true(d.e[i].id == pkt_id(frames[i], 60 + 5 * i, 60 + 5 * i, PKT_ID_BYTES));
		/* The first goes at once; the others wake late on the fake clock, then go. */
		assert_int_equal(d.e[i].run_ns, i ? t0 + i * gap + late : t0);
	}
	sendlog_free(&d);

	/* An unwritable log is refused before anything is sent, and nothing is written. */
	argv[5] = "/nonexistent-dir/x.log";
	unlink(out_path);
	assert_int_equal(opts_parse(&o, 7, argv, err, sizeof(err)), 0);
	assert_int_equal(replay_main_hooked(&o, &stop, &hooks), EXIT_FAIL);
	assert_int_equal(access(out_path, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pkt_id_rules),
		cmocka_unit_test(test_pkt_id_distinct),
		cmocka_unit_test(test_roundtrip_and_clock_mapping),
		cmocka_unit_test(test_buffer_flushes),
		cmocka_unit_test(test_unfinished_and_damaged),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_add_never_writes),
		cmocka_unit_test(test_writer_behind_waits),
		cmocka_unit_test(test_writer_error_at_close),
		cmocka_unit_test(test_replay_records_every_packet),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
