// SPDX-License-Identifier: BSD-2-Clause
/*
 * The send loop with a mock method (cmocka will_return) and a fake clock:
 * the accounting invariant read = sent + filtered + failed, retries on
 * back-pressure, failures, fatal errors, limits, loops and signals.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fakeclock.h"
#include "replay/run.h"
#include "tracebuf.h"

#define T0 5000000000ull
#define NPKT 5
#define GAP_NS 1000000ull

static char dir[] = "/tmp/test_replay.XXXXXX";
static char trace_path[256], json_path[256], ng_path[256], wifi_path[256], big_path[256];
/* The trace run_k() replays: trace_path unless a test names another. */
static const char *trace_arg;
static volatile sig_atomic_t stop;
static struct fakeclock fc;

/* flush() result: hand over everything staged. */
#define ALL 100000
#define QMAX 1024

/* What the mock saw. */
static struct {
	unsigned batch;      /* tx->batch the mock offers (set before the run) */
	unsigned sent;       /* packets handed over */
	unsigned staged;     /* packets staged now */
	unsigned waits;
	unsigned flushes;    /* flush() calls that handed something over */
	unsigned sizes[64];  /* packets handed over by each of those */
	unsigned discarded;  /* packets given up through discard() */
	uint64_t sched[64];  /* sched_ns of each packet handed over */
	uint64_t sent_at[64];
	uint32_t len[64];    /* caplen of each packet handed over: their order */
	uint64_t q_sched[QMAX];
	uint32_t q_len[QMAX];
	unsigned q_head;
	unsigned stop_after; /* raise the stop flag after this many sent (0 = never) */
	unsigned stop_in_send; /* raise it as the send() staging this many in all takes the last (0 = never) */
	bool stop_in_wait;   /* raise the stop flag when the loop waits */
	uint64_t wait_ns;    /* a back-pressure wait takes this long on the fake clock */
	int pending;         /* the script's answer about the view a send() stopped at */
	unsigned sends;      /* send() calls */
	unsigned most_views; /* the most views one send() was offered */
} m;

/* m.sent, published for a test's other thread (the loop runs on the test's). */
static unsigned sent_now;

static int mock_open(struct tx *tx, const struct tx_cfg *cfg)
{
	(void)cfg;
	snprintf(tx->dev, sizeof(tx->dev), "mock0");
	tx->batch = m.batch;
	return 0;
}

static bool transient(int rc)
{
	return rc == -EAGAIN || rc == -ENOBUFS || rc == -EINTR;
}

/*
 * Stage: the script says 1 (take it) or an error for each view, in turn.
 * An error about a view after the first ends the call with the views
 * before it taken, and is the answer about that view when it is offered
 * again (the contract reports an error about the first view only).
 */
static int mock_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	unsigned i;

	assert_true(n >= 1);
	m.sends++;
	if (n > m.most_views)
		m.most_views = n;
	for (i = 0; i < n; i++) {
		int rc = m.pending ? m.pending : mock_type(int);

		m.pending = 0;
		if (rc < 0 && i) {
			m.pending = rc;
			break;
		}
		if (rc < 0) {
			snprintf(tx->err, sizeof(tx->err), "mock send error %d", rc);
			return rc;
		}
		/* The loop never stages more than the batch it was offered. */
		assert_true(m.staged < m.batch);
		m.q_sched[(m.q_head + m.staged) % QMAX] = v[i].sched_ns;
		m.q_len[(m.q_head + m.staged) % QMAX] = v[i].caplen;
		m.staged++;
		if (m.stop_in_send && m.sent + m.staged == m.stop_in_send)
			stop = 2; /* SIGINT, among the views of one send() */
	}
	return (int)i;
}

/* Kick: the script says how many to hand over (ALL = every one) or an error about the oldest. */
static int mock_flush(struct tx *tx)
{
	int rc = mock_type(int);
	unsigned k;

	assert_true(m.staged > 0); /* the loop kicks only with something staged */
	if (rc < 0) {
		snprintf(tx->err, sizeof(tx->err), "mock flush error %d", rc);
		if (!transient(rc) && rc != -ENETDOWN) { /* that one failed: off the stage */
			m.q_head = (m.q_head + 1) % QMAX;
			m.staged--;
		}
		return rc;
	}
	k = (unsigned)rc < m.staged ? (unsigned)rc : m.staged;
	for (unsigned i = 0; i < k; i++) {
		uint64_t sched = m.q_sched[m.q_head];

		/* Only packets already due may share a kick: none leaves before its deadline. */
		if (sched)
			assert_true(sched <= fc.now);
		if (m.sent < 64) {
			m.sched[m.sent] = sched;
			m.sent_at[m.sent] = fc.now;
			m.len[m.sent] = m.q_len[m.q_head];
		}
		m.q_head = (m.q_head + 1) % QMAX;
		m.staged--;
		m.sent++;
		__atomic_store_n(&sent_now, m.sent, __ATOMIC_RELEASE);
		if (m.stop_after && m.sent == m.stop_after)
			stop = 2; /* SIGINT */
	}
	if (m.flushes < 64)
		m.sizes[m.flushes] = k;
	m.flushes++;
	return (int)k;
}

static void mock_discard(struct tx *tx)
{
	(void)tx;
	m.discarded += m.staged;
	m.q_head = (m.q_head + m.staged) % QMAX;
	m.staged = 0;
}

static int mock_wait(struct tx *tx, int err)
{
	(void)tx;
	assert_true(err == -EAGAIN || err == -ENOBUFS);
	m.waits++;
	fc.now += m.wait_ns;
	if (m.stop_in_wait)
		stop = 15; /* SIGTERM */
	return 0;
}

static int mock_drain(struct tx *tx)
{
	(void)tx;
	assert_int_equal(m.staged, 0); /* nothing may be left staged at the end */
	return 0;
}

static void mock_close(struct tx *tx)
{
	(void)tx;
}

static const struct tx_ops mock_ops = {
	.name = "mock",
	.flags = TX_F_GSO, /* it takes a frame of any length, as a socket with PACKET_VNET_HDR a GSO one */
	.open = mock_open,
	.send = mock_send,
	.flush = mock_flush,
	.discard = mock_discard,
	.wait = mock_wait,
	.drain = mock_drain,
	.close = mock_close,
};

/* 10.0.0.1 -> 10.0.0.2, a bare 20-byte IPv4 header: a raw-IP packet. */
static const uint8_t ipv4_hdr[20] = { 0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0,
				      10, 0, 0, 1, 10, 0, 0, 2 };

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

	/* A pcapng whose second interface, declared after the first packet, is 802.11. */
	snprintf(ng_path, sizeof(ng_path), "%s/t.pcapng", dir);
	tb_ng_shb(&b);
	tb_ng_idb(&b, LINKTYPE_RAW, 0, 9, NULL, -1);
	tb_ng_epb(&b, 0, 100000000000ull, 20, 20, ipv4_hdr, NULL);
	tb_ng_idb(&b, LINKTYPE_IEEE802_11, 0, 9, NULL, -1);
	tb_ng_epb(&b, 1, 100000000001ull, 30, 30, NULL, NULL);
	tb_ng_epb(&b, 0, 100000000002ull, 20, 20, ipv4_hdr, NULL);
	f = fopen(ng_path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fclose(f);
	tb_free(&b);

	/* Two frames of a capture taken before GSO: a 3008-byte UDP datagram, then a 60-byte frame. */
	snprintf(big_path, sizeof(big_path), "%s/big.pcap", dir);
	{
		static uint8_t big[14 + 20 + 3008];

		memset(big, 0xab, sizeof(big));
		memcpy(big + 12, "\x08\x00\x45\x00\x0b\xd4\x00\x01\x00\x00\x40\x11\x00\x00"
				 "\x0a\x00\x00\x01\x0a\x00\x00\x02\x9c\x40\x9c\x41\x0b\xc0\x00\x00", 30);
		tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
		tb_pcap_record(&b, 100, 0, sizeof(big), sizeof(big), big);
		tb_pcap_record(&b, 100, (uint32_t)GAP_NS, 60, 60, NULL);
		f = fopen(big_path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
		fclose(f);
		tb_free(&b);
	}

	/* A pcap of a link type no reader can turn into Ethernet. */
	snprintf(wifi_path, sizeof(wifi_path), "%s/wifi.pcap", dir);
	tb_pcap_header(&b, PCAP_NSEC, 65535, LINKTYPE_IEEE802_11);
	tb_pcap_record(&b, 100, 0, 30, 30, NULL);
	f = fopen(wifi_path, "wb");
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
	unlink(ng_path);
	unlink(wifi_path);
	unlink(big_path);
	rmdir(dir);
	return 0;
}

struct knobs {
	uint64_t oversleep_ns; /* the fake clock wakes this late */
	unsigned stop_after;   /* a "signal" arrives after this many sends */
	unsigned stop_in_send; /* ...or as this many in all are staged */
	unsigned batch;        /* the mock's batch; 0 = 64 */
	bool stop_in_wait;     /* a "signal" arrives while waiting out back-pressure */
	uint64_t wait_ns;      /* each back-pressure wait takes this long */
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
	argv[argc++] = (char *)(trace_arg ? trace_arg : trace_path);
	memset(&m, 0, sizeof(m));
	m.stop_after = k.stop_after;
	m.stop_in_send = k.stop_in_send;
	m.batch = k.batch ? k.batch : 64;
	m.stop_in_wait = k.stop_in_wait;
	m.wait_ns = k.wait_ns;
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
	will_return_always(mock_flush, ALL);
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
	will_return_always(mock_flush, ALL);
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
	will_return_always(mock_send, 1);
	will_return(mock_flush, ALL);
	will_return(mock_flush, -EAGAIN);
	will_return(mock_flush, -ENOBUFS);
	will_return(mock_flush, -ENOBUFS);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run(json, sizeof(json), NULL), 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), NPKT);
	assert_int_equal(jget(json, "packets_retried"), 3);
	assert_int_equal(jget(json, "packets_failed"), 0);
	assert_int_equal(m.waits, 3);
}

/*
 * A packet made late by back-pressure is counted as such, not as the
 * loop's: the third packet's kick meets a full queue whose wait takes
 * 3.5 gaps, so the fourth and fifth are found late (by 2.5 and 1.5 ms,
 * past the 1 ms threshold) when their waits begin.
 */
static void test_backpressure_late_cause(void **state)
{
	char json[4096];

	(void)state;
	will_return_always(mock_send, 1);
	will_return(mock_flush, ALL);
	will_return(mock_flush, ALL);
	will_return(mock_flush, -EAGAIN);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .wait_ns = 3 * GAP_NS + GAP_NS / 2 }, NULL), 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), NPKT);
	assert_int_equal(m.waits, 1);
	assert_int_equal(jget(json, "late_packets"), 2);
	assert_int_equal(jget(json, "backpressure"), 2);
	assert_int_equal(jget(json, "loop"), 0);
	assert_int_equal(jget(json, "read"), 0);
}

static void test_failed_packet_counted(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return(mock_flush, ALL);
	will_return(mock_flush, -EMSGSIZE);
	will_return_always(mock_flush, ALL);
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
	will_return_always(mock_flush, ALL);
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
	will_return_always(mock_send, 1);
	will_return(mock_flush, ALL);
	will_return(mock_flush, ALL);
	will_return(mock_flush, -ENETDOWN);
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
	will_return_always(mock_flush, ALL);
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
	will_return_always(mock_flush, ALL);
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
	will_return_always(mock_flush, ALL);
	assert_int_equal(run(json, sizeof(json), "--loop", "0", "-L", "23", NULL), 0);
	assert_int_equal(jget(json, "packets_sent"), 23);
	check_invariant(json);
}

static void test_signal_stops_after_current(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .stop_after = 2 }, NULL), 130);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 2);
	assert_int_equal(jget(json, "packets_read"), 2);
}


/*
 * --segment: a frame longer than the MTU (--mtu, the mock has none) leaves
 * as fragments, all at its deadline, back to back, batches of them kicked
 * only once due (the mock asserts it), each counted sent; without it, the
 * frame goes whole (the mock takes any length).
 */
static void test_segment_fragments(void **state)
{
	char json[4096];

	(void)state;
	trace_arg = big_path;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	/* 3008 bytes of UDP at 552 a fragment (576 - 20, in 8-byte units): 6, in batches of 4. */
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 4 }, "--segment", "--mtu", "576",
			       NULL),
			 0);
	assert_int_equal(jget(json, "packets_read"), 2);
	assert_int_equal(jget(json, "packets_segmented"), 1);
	assert_int_equal(jget(json, "segments"), 6);
	assert_int_equal(jget(json, "packets_sent"), 7);
	assert_int_equal(m.sent, 7);
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(m.len[i], 14 + 20 + (i < 5 ? 552 : 3008 - 5 * 552));
		assert_int_equal(m.sched[i], m.sched[0]);
	}
	assert_int_equal(m.len[6], 60);
	assert_true(m.sched[6] > m.sched[0]);
	assert_int_equal(jget(json, "bytes_sent"), 6 * 34 + 3008 + 60);

	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 4 }, NULL), 0);
	assert_int_equal(jget(json, "packets_sent"), 2);
	assert_int_equal(m.len[0], 14 + 20 + 3008);
	assert_null(strstr(json, "segments"));
	trace_arg = NULL;
}

/*
 * --gso: a TCP frame longer than the MTU goes to the method whole, for the
 * kernel to cut, counted one packet sent and its segments in gso_segments;
 * a UDP datagram is still fragmented here.  Without --gso both are cut.
 */
static void test_gso_whole(void **state)
{
	static uint8_t tcp[14 + 20 + 20 + 3000], udp[14 + 20 + 3008];
	char json[4096], path[300];
	struct tracebuf b = { 0 };
	FILE *f;

	(void)state;
	memset(tcp, 0xab, sizeof(tcp));
	/* IPv4 (3040 bytes, TCP), a 20-byte TCP header with ACK. */
	memcpy(tcp + 12, "\x08\x00\x45\x00\x0b\xe0\x00\x01\x00\x00\x40\x06\x00\x00"
			 "\x0a\x00\x00\x01\x0a\x00\x00\x02\x9c\x40\x00\x50\x00\x00\x00\x01"
			 "\x00\x00\x00\x00\x50\x10\x02\x00\x00\x00\x00\x00", 42);
	memset(udp, 0xab, sizeof(udp));
	memcpy(udp + 12, "\x08\x00\x45\x00\x0b\xd4\x00\x01\x00\x00\x40\x11\x00\x00"
			 "\x0a\x00\x00\x01\x0a\x00\x00\x02\x9c\x40\x9c\x41\x0b\xc0\x00\x00", 30);
	snprintf(path, sizeof(path), "%s/gso.pcap", dir);
	tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
	tb_pcap_record(&b, 100, 0, sizeof(tcp), sizeof(tcp), tcp);
	tb_pcap_record(&b, 100, (uint32_t)GAP_NS, sizeof(udp), sizeof(udp), udp);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fclose(f);
	tb_free(&b);
	trace_arg = path;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run(json, sizeof(json), "--segment", "--gso", "--mtu", "1500", NULL), 0);
	/* TCP: 3000 bytes at an MSS of 1460, 3 segments, cut by the kernel; UDP: 3008 at 1480, 3 fragments. */
	assert_int_equal(jget(json, "packets_read"), 2);
	assert_int_equal(jget(json, "packets_gso"), 1);
	assert_int_equal(jget(json, "gso_segments"), 3);
	assert_int_equal(jget(json, "packets_segmented"), 1);
	assert_int_equal(jget(json, "segments"), 3);
	assert_int_equal(jget(json, "packets_sent"), 4);
	assert_int_equal(m.len[0], sizeof(tcp));
	for (unsigned i = 1; i < 4; i++)
		assert_int_equal(m.len[i], 14 + 20 + (i < 3 ? 1480 : 3008 - 2 * 1480));

	assert_int_equal(run(json, sizeof(json), "--segment", "--mtu", "1500", NULL), 0);
	assert_int_equal(jget(json, "packets_gso"), 0);
	assert_int_equal(jget(json, "packets_segmented"), 2);
	assert_int_equal(jget(json, "packets_sent"), 6);
	assert_int_equal(m.len[0], 14 + 20 + 20 + 1460);
	trace_arg = NULL;
	unlink(path);
}

static void test_topspeed_batches(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop",
			       "10", NULL),
			 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 10 * NPKT);
	/* Full batches, one kick each, and the remainder at the end. */
	assert_int_equal(m.flushes, (10 * NPKT + 7) / 8);
	for (unsigned i = 0; i + 1 < m.flushes; i++)
		assert_int_equal(m.sizes[i], 8);
	assert_int_equal(m.sizes[m.flushes - 1], 10 * NPKT % 8);
	assert_int_equal(jget(json, "packets_retried"), 0);
	/* Staged in bursts, not a send() a packet: a pass's packets together (a burst ends with its file). */
	assert_int_equal(m.most_views, NPKT);
	assert_true(m.sends < 10 * NPKT / 2);
}

/*
 * At top speed, a method full at the 3rd packet kicks the two staged: the
 * FIFO's head moves off its start, and the next run's entries wrap round
 * its end.  Then a kick takes 3 of the 8 and fails the next (the 6th, the
 * second pass's 60 bytes): every packet is still counted once, with its
 * own bytes.
 */
static void test_topspeed_fifo_wraps(void **state)
{
	char json[2048];

	(void)state;
	will_return(mock_send, 1);
	will_return(mock_send, 1);
	will_return(mock_send, -ENOBUFS);
	will_return_always(mock_send, 1);
	will_return(mock_flush, ALL);
	will_return(mock_flush, 3);
	will_return(mock_flush, -EMSGSIZE);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop", "4", NULL), 1);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 4 * NPKT);
	assert_int_equal(jget(json, "packets_sent"), 4 * NPKT - 1);
	assert_int_equal(jget(json, "packets_failed"), 1);
	assert_int_equal(jget(json, "bytes_sent"), 4 * (60 + 61 + 62 + 63 + 64) - 60);
	assert_int_equal(m.flushes, 5);
}

/* At top speed too, --limit and a signal end the run where they did a packet at a time. */
static void test_topspeed_burst_ends(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop", "3",
			       "-L", "7", NULL),
			 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 7);
	assert_int_equal(jget(json, "packets_sent"), 7);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 1, .stop_after = 2 }, "-t",
			       NULL),
			 130);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 2);
	assert_int_equal(jget(json, "packets_sent"), 2);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8, .stop_after = 2 }, "-t",
			       "--loop", "2", NULL),
			 130);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 8);
}

/*
 * The burst path's edges: --limit is never passed, also where it falls on
 * a full batch or a file's end; a signal among a run of views ends the run
 * after that run is staged and kicked, every packet read accounted.
 */
static void test_topspeed_burst_edges(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	/* A full batch of 8 over two files of 5: one kick of exactly 8. */
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop", "3", "-L",
			       "8", NULL),
			 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 8);
	assert_int_equal(jget(json, "packets_sent"), 8);
	assert_int_equal(m.flushes, 1);
	assert_int_equal(m.sizes[0], 8);
	/* A file's end. */
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop", "3", "-L",
			       "5", NULL),
			 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 5);
	assert_int_equal(jget(json, "packets_sent"), 5);
	/* A limit past the packets there are. */
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop", "3", "-L",
			       "16", NULL),
			 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 3 * NPKT);
	/* A signal as the 2nd of a file's 5 is staged: those 5 go, nothing after. */
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8, .stop_in_send = 2 }, "-t",
			       "--loop", "3", NULL),
			 130);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), NPKT);
	assert_int_equal(jget(json, "packets_sent"), NPKT);
	assert_int_equal(m.sends, 1);
	/* In the second run of views (a batch's room of 3 after a file of 5): that run goes, then the end. */
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8, .stop_in_send = 7 }, "-t",
			       "--loop", "3", NULL),
			 130);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 8);
	assert_int_equal(jget(json, "packets_sent"), 8);
	/*
	 * A pcapng (read a record at a time: gathered one by one) with a
	 * packet that fails among them, then the pcap (in runs): every pass
	 * whole, and --limit counts the failed one, across the files.
	 */
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop", "2", ng_path,
			       NULL),
			 1);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 2 * (3 + NPKT));
	assert_int_equal(jget(json, "packets_sent"), 2 * (2 + NPKT));
	assert_int_equal(jget(json, "packets_failed"), 2);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop", "2", "-L", "6",
			       ng_path, NULL),
			 1);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 6);
	assert_int_equal(jget(json, "packets_sent"), 5);
	assert_int_equal(jget(json, "packets_failed"), 1);
	assert_int_equal(jget(json, "bytes_sent"), 2 * 34 + 60 + 61 + 62);
}

/*
 * --stats-json's passes: a batch spans passes (no kick for a pass's sake),
 * what is staged at a pass's end is in flight, carried to the next, and
 * every pass's identity holds; they sum to the totals.
 */
static void test_passes_span_batches(void **state)
{
	static char json[32768];
	const char *p = json;
	uint64_t read = 0, sent = 0, carried = 0;
	unsigned n = 0;

	(void)state;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop", "10", NULL), 0);
	/* The same kicks as without passes (test_topspeed_batches). */
	assert_int_equal(m.flushes, (10 * NPKT + 7) / 8);
	while ((p = strstr(p, "{\"pass\":"))) {
		uint64_t r = jget(p, "packets_read"), sn = jget(p, "packets_sent");
		uint64_t before = jget(p, "in_flight_before"), after = jget(p, "in_flight_after");

		n++;
		assert_int_equal(jget(p, "pass"), n);
		assert_int_equal(r, NPKT);
		assert_int_equal(before, carried);
		assert_int_equal(r + before, sn + jget(p, "packets_filtered") + jget(p, "packets_failed") + after);
		/* Kicked only when 8 are staged: 5n mod 8 are left after pass n (the last kicks the rest). */
		assert_int_equal(after, n < 10 ? (n * NPKT) % 8 : 0);
		carried = after;
		read += r;
		sent += sn;
		p++;
	}
	assert_int_equal(n, 10);
	assert_int_equal(read, jget(json, "packets_read"));
	assert_int_equal(sent, jget(json, "packets_sent"));
	assert_int_equal(sent, 10 * NPKT);
}

/* A kick that takes part of the batch is progress, not back-pressure: the rest follow in order. */
static void test_partial_flush_keeps_order(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, 3);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop",
			       "4", NULL),
			 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 4 * NPKT);
	assert_int_equal(jget(json, "packets_retried"), 0);
	assert_int_equal(m.waits, 0);
	for (unsigned i = 0; i < 4 * NPKT; i++)
		assert_int_equal(m.len[i], 60 + i % NPKT);
}

/* One packet failing in the middle of a batch: it alone is failed, the others go, in order. */
static void test_failure_mid_batch(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return(mock_flush, 2);
	will_return(mock_flush, -EMSGSIZE);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop",
			       "2", NULL),
			 1);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 2 * NPKT);
	assert_int_equal(jget(json, "packets_sent"), 2 * NPKT - 1);
	assert_int_equal(jget(json, "packets_failed"), 1);
	assert_int_equal(jget(json, "bytes_sent"), 2 * (60 + 61 + 62 + 63 + 64) - 62);
	assert_int_equal(m.len[1], 61);
	assert_int_equal(m.len[2], 63); /* 62 failed: the next one follows it */
}

/* Back-pressure in the middle of a batch: waited out, counted, nothing lost or reordered. */
static void test_backpressure_mid_batch(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return(mock_flush, 3);
	will_return(mock_flush, -ENOBUFS);
	will_return(mock_flush, -EAGAIN);
	will_return(mock_flush, 1);
	will_return(mock_flush, -ENOBUFS);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop",
			       "3", NULL),
			 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 3 * NPKT);
	assert_int_equal(jget(json, "packets_retried"), 3);
	assert_int_equal(m.waits, 3);
	for (unsigned i = 0; i < 3 * NPKT; i++)
		assert_int_equal(m.len[i], 60 + i % NPKT);
}

/* A full stage: the loop kicks what is staged and offers the packet again; no retry if that made room. */
static void test_stage_full_kicks(void **state)
{
	char json[2048];

	(void)state;
	will_return(mock_send, 1);
	will_return(mock_send, 1);
	will_return(mock_send, -EAGAIN); /* room after a kick */
	will_return(mock_send, 1);
	will_return(mock_send, -ENOBUFS); /* nothing staged, still no room: wait */
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", NULL), 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), NPKT);
	assert_int_equal(m.sizes[0], 2);
	assert_int_equal(jget(json, "packets_retried"), 0);
}

/* A stage still full after its packets were kicked: the method's memory is busy; wait, count a retry. */
static void test_stage_full_waits(void **state)
{
	char json[2048];

	(void)state;
	will_return(mock_send, 1);
	will_return(mock_send, -EAGAIN);
	will_return(mock_send, -ENOBUFS);
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, 1);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 1 }, "-t", NULL), 0);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), NPKT);
	assert_int_equal(jget(json, "packets_retried"), 2);
	assert_int_equal(m.waits, 2);
}

/* A packet the method cannot stage (too large) fails alone; the staged ones are not disturbed. */
static void test_stage_failure_counted(void **state)
{
	char json[2048];

	(void)state;
	will_return(mock_send, 1);
	will_return(mock_send, -EMSGSIZE);
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", NULL), 1);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), NPKT - 1);
	assert_int_equal(jget(json, "packets_failed"), 1);
	assert_int_equal(m.len[0], 60);
	assert_int_equal(m.len[1], 62);
}

/* Timed: late packets (already due) share a kick; one not yet due is kicked alone at its deadline. */
static void test_only_due_packets_batch(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	/* Every wake-up is 2.5 ms late, the gaps are 1 ms. */
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .oversleep_ns = 2500000 }, NULL),
			 0);
	check_invariant(json);
	/* p1 (due at start) alone before waiting for p2; p2 alone; p3+p4 were due on waking; p5. */
	assert_int_equal(m.flushes, 4);
	assert_int_equal(m.sizes[0], 1);
	assert_int_equal(m.sizes[1], 1);
	assert_int_equal(m.sizes[2], 2);
	assert_int_equal(m.sizes[3], 1);
	assert_int_equal(m.sent_at[2], T0 + GAP_NS + 2500000);
	assert_int_equal(m.sent_at[3], T0 + GAP_NS + 2500000);
	assert_int_equal(jget(json, "count"), NPKT);
}

/* The interface going away fails what is still staged, and tells the method to forget it. */
static void test_fatal_fails_staged(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return(mock_flush, 2);
	will_return(mock_flush, -ENETDOWN);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .batch = 8 }, "-t", "--loop",
			       "4", NULL),
			 1);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 8);
	assert_int_equal(jget(json, "packets_sent"), 2);
	assert_int_equal(jget(json, "packets_failed"), 6);
	/* The five never kicked and the one the error was about: all forgotten, none sent later. */
	assert_int_equal(m.discarded, 6);
}

/* A signal while waiting out back-pressure: what is staged fails, is forgotten, and the run stops. */
static void test_signal_during_backpressure(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return(mock_flush, 1);
	will_return_always(mock_flush, -EAGAIN);
	assert_int_equal(run_k(json, sizeof(json),
			       (struct knobs){ .batch = 4, .stop_in_wait = true }, "-t", NULL),
			 143);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 1);
	assert_int_equal(jget(json, "packets_failed"), 3);
	assert_int_equal(jget(json, "packets_retried"), 1);
	assert_int_equal(m.discarded, 3);
}

/* The rate modes reach the method: every packet stamped with its deadline, and sent at it. */
static void test_rate_modes(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run(json, sizeof(json), "--speed", "4", NULL), 0);
	for (unsigned i = 0; i < NPKT; i++) {
		assert_int_equal(m.sched[i], T0 + i * GAP_NS / 4);
		assert_int_equal(m.sent_at[i], m.sched[i]);
	}
	assert_int_equal(run(json, sizeof(json), "--pps", "3", "--loop", "2", NULL), 0);
	for (unsigned i = 0; i < 2 * NPKT; i++)
		assert_int_equal(m.sched[i], T0 + i * 1000000000ull / 3); /* across the loop pass too */
	/* 60..64-byte frames at 0.48 Mbit/s: 1 ms per 60 bytes. */
	assert_int_equal(run(json, sizeof(json), "-M", "0.48", NULL), 0);
	assert_int_equal(m.sched[1], T0 + 1000000);
	assert_int_equal(m.sched[2], T0 + 1000000 + 61 * 1000000 / 60);
	assert_int_equal(m.sent_at[4], m.sched[4]);
	assert_non_null(strstr(json, "\"timer\":\"hybrid\""));
	assert_int_equal(run(json, sizeof(json), "-t", NULL), 0);
	assert_non_null(strstr(json, "\"timer\":\"none\""));
}

/* A stall: the late packets are counted in the JSON, and shift keeps the gaps after it. */
static void test_late_reported(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	/* Every sleep wakes 2.5 ms late: each packet is a new stall beyond a 1 ms threshold. */
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .oversleep_ns = 2500000 }, NULL), 0);
	assert_int_equal(jget(json, "late_threshold"), 1000000);
	/* 1 woke 2.5 ms late, 2 was then 1.5 ms late, 3 only 0.5 ms (caught up), 4 woke late again. */
	assert_int_equal(jget(json, "late_packets"), 3);
	assert_int_equal(jget(json, "late_stalls"), 2);
	assert_int_equal(jget(json, "late_shifted"), 0);
	assert_int_equal(run_k(json, sizeof(json), (struct knobs){ .oversleep_ns = 2500000 }, "--late",
			       "shift", NULL), 0);
	assert_int_equal(jget(json, "late_stalls"), 4);
	assert_int_equal(jget(json, "late_packets"), 4);
	assert_int_equal(jget(json, "late_shifted"), 4 * 2500000);
	/* Each packet keeps its recorded gap to the late one before it. */
	for (unsigned i = 1; i < NPKT; i++)
		assert_int_equal(m.sched[i], T0 + i * GAP_NS + (i - 1) * 2500000);
	check_invariant(json);
}

/* A packet the reader cannot make an Ethernet frame of is counted failed; the rest go out. */
static void test_unconvertible_packet_failed(void **state)
{
	char json[2048];

	(void)state;
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	assert_int_equal(run(json, sizeof(json), ng_path, NULL), 1);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_read"), 3 + NPKT);
	assert_int_equal(jget(json, "packets_sent"), 2 + NPKT);
	assert_int_equal(jget(json, "packets_failed"), 1);
	/* the raw-IP packets went out as Ethernet frames: 14 bytes more each */
	assert_int_equal(jget(json, "bytes_sent"), 2 * 34 + 60 + 61 + 62 + 63 + 64);
}

/* A file whose link type cannot be replayed is refused before anything is sent. */
static void test_unreplayable_linktype_refused(void **state)
{
	char *argv[] = { "replay", "-i", "mock0", "-q", trace_path, wifi_path };
	struct replay_hooks hooks = { .tx_ops = &mock_ops, .clock = &fc.clk };
	struct opts o;
	char err[256];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.batch = 64;
	stop = 0;
	fakeclock_init(&fc, T0);
	assert_int_equal(opts_parse(&o, 6, argv, err, sizeof(err)), 0);
	assert_int_equal(replay_main_hooked(&o, &stop, &hooks), 1);
	assert_int_equal(m.staged, 0);
}

/*
 * Two lanes (-i and -I): a second mock whose state lives in each tx, so
 * the two interfaces stage and kick apart; every packet handed over is
 * recorded with its interface, in the order it left.
 */
struct lane_mock {
	char dev[16];
	unsigned staged;
	uint64_t q_sched[64];
	uint32_t q_len[64];
};

static struct {
	unsigned sent;
	char dev[64][16];
	uint32_t len[64];
	uint64_t sched[64], at[64];
} m2;

static int mock2_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct lane_mock *lm = calloc(1, sizeof(*lm));

	if (!lm)
		return -ENOMEM;
	snprintf(lm->dev, sizeof(lm->dev), "%s", cfg->ifname);
	snprintf(tx->dev, sizeof(tx->dev), "%s", cfg->ifname);
	tx->priv = lm;
	tx->batch = 4;
	return 0;
}

static int mock2_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct lane_mock *lm = tx->priv;

	assert_int_equal(n, 1);
	assert_true(lm->staged < 4);
	lm->q_sched[lm->staged] = v->sched_ns;
	lm->q_len[lm->staged] = v->caplen;
	lm->staged++;
	return 1;
}

static int mock2_flush(struct tx *tx)
{
	struct lane_mock *lm = tx->priv;
	unsigned k = lm->staged;

	assert_true(k > 0);
	for (unsigned i = 0; i < k; i++) {
		/* One clock for both lanes: nothing leaves either before its deadline. */
		assert_true(lm->q_sched[i] <= fc.now);
		if (m2.sent < 64) {
			snprintf(m2.dev[m2.sent], sizeof(m2.dev[0]), "%s", lm->dev);
			m2.len[m2.sent] = lm->q_len[i];
			m2.sched[m2.sent] = lm->q_sched[i];
			m2.at[m2.sent] = fc.now;
		}
		m2.sent++;
	}
	lm->staged = 0;
	return (int)k;
}

static void mock2_discard(struct tx *tx)
{
	((struct lane_mock *)tx->priv)->staged = 0;
}

static int mock2_wait(struct tx *tx, int err)
{
	(void)tx;
	(void)err;
	return 0;
}

static int mock2_drain(struct tx *tx)
{
	assert_int_equal(((struct lane_mock *)tx->priv)->staged, 0);
	return 0;
}

static void mock2_close(struct tx *tx)
{
	free(tx->priv);
}

static const struct tx_ops mock2_ops = {
	.name = "mock2",
	.open = mock2_open,
	.send = mock2_send,
	.flush = mock2_flush,
	.discard = mock2_discard,
	.wait = mock2_wait,
	.drain = mock2_drain,
	.close = mock2_close,
};

/*
 * -I with --split mac:: packets from 02:00:00:00:00:01 (records 1, 3, 5,
 * 7) leave by -i, the others by -I; all on one schedule, in trace order
 * across the two lanes, each counted on its side.
 */
static void test_two_lanes(void **state)
{
	char path[300], json[4096];
	char *argv[] = { "replay", "-i", "lane1", "-I", "lane2", "--split", "mac:02:00:00:00:00:01",
			 "--stats-json", json_path, "-q", path };
	struct replay_hooks hooks = { .tx_ops = &mock2_ops, .clock = &fc.clk };
	struct tracebuf b = { 0 };
	uint8_t frame[80];
	struct opts o;
	char err[256];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/two.pcap", dir);
	tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
	for (unsigned i = 0; i < 8; i++) {
		memset(frame, 0, sizeof(frame));
		frame[0] = 2, frame[5] = 0xee;
		frame[6] = 2, frame[11] = (uint8_t)(i % 2 ? 2 : 1); /* source MAC ...:01 or ...:02 */
		frame[12] = 0x08, frame[13] = 0x06;                 /* ARP: the mode looks at MACs only */
		tb_pcap_record(&b, 100, (uint32_t)(i * GAP_NS), 60 + i, 60 + i, frame);
	}
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fclose(f);
	tb_free(&b);

	memset(&m2, 0, sizeof(m2));
	stop = 0;
	fakeclock_init(&fc, T0);
	assert_int_equal(opts_parse(&o, (int)(sizeof(argv) / sizeof(argv[0])), argv, err, sizeof(err)), 0);
	assert_int_equal(replay_main_hooked(&o, &stop, &hooks), 0);
	f = fopen(json_path, "r");
	assert_non_null(f);
	json[fread(json, 1, sizeof(json) - 1, f)] = '\0';
	fclose(f);
	unlink(path);

	assert_int_equal(m2.sent, 8);
	for (unsigned i = 0; i < 8; i++) {
		/* Trace order across both lanes, each on its side, each at its deadline. */
		assert_int_equal(m2.len[i], 60 + i);
		assert_string_equal(m2.dev[i], i % 2 ? "lane2" : "lane1");
		if (i)
			assert_true(m2.sched[i] - m2.sched[i - 1] == GAP_NS);
		assert_true(m2.at[i] >= m2.sched[i]);
	}
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 8);
	{
		const char *l1 = strstr(json, "\"intf1\":{"), *l2 = strstr(json, "\"intf2\":{");

		assert_non_null(l1);
		assert_non_null(l2);
		assert_non_null(strstr(l1, "\"interface\":\"lane1\",\"packets_read\":4,\"packets_sent\":4,"
					   "\"packets_failed\":0,\"packets_retried\":0,\"packets_filtered\":0,"
					   "\"bytes_sent\":252}"));
		assert_non_null(strstr(l2, "\"interface\":\"lane2\",\"packets_read\":4,\"packets_sent\":4,"
					   "\"packets_failed\":0,\"packets_retried\":0,\"packets_filtered\":0,"
					   "\"bytes_sent\":256}"));
	}
}

/* A pcap at @path of @n Ethernet frames: record i is @len[i] bytes, stamped 100 s + @ms[i] ms. */
static void write_pcap_ms(const char *path, unsigned n, const uint32_t *len, const uint32_t *ms)
{
	struct tracebuf b = { 0 };
	uint8_t frame[128];
	FILE *f;

	tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
	for (unsigned i = 0; i < n; i++) {
		tb_frame(frame, len[i], len[i]);
		tb_pcap_record(&b, 100, ms[i] * 1000000u, len[i], len[i], frame);
	}
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fclose(f);
	tb_free(&b);
}

/*
 * --dualfile (tcpreplay's -2): files in pairs, the first of each by -i,
 * the second by -I, merged by timestamp into one schedule; a tie goes to
 * the pair's first file.  The second pair gives the files the other way
 * round: their lanes swap, and so does the tie.  Each packet is told
 * apart by its length (A: 60-63, B: 70-72).
 */
static void test_dualfile(void **state)
{
	static const uint32_t alen[] = { 60, 61, 62, 63 }, ams[] = { 0, 2, 4, 9 };
	static const uint32_t blen[] = { 70, 71, 72 }, bms[] = { 1, 2, 5 };
	/* The merged order of each pair and its gaps from the packet before, ms. */
	static const uint32_t want1[] = { 60, 70, 61, 71, 62, 72, 63 }, gap1[] = { 0, 1, 1, 0, 2, 1, 4 };
	static const uint32_t want2[] = { 60, 70, 71, 61, 62, 72, 63 };
	char a[300], b[300], json[4096];
	char *argv[] = { "replay", "-i", "lane1", "-I", "lane2", "--dualfile", "--stats-json", json_path,
			 "-q", a, b, b, a };
	struct replay_hooks hooks = { .tx_ops = &mock2_ops, .clock = &fc.clk };
	struct opts o;
	char err[256];
	FILE *f;

	(void)state;
	snprintf(a, sizeof(a), "%s/a.pcap", dir);
	snprintf(b, sizeof(b), "%s/b.pcap", dir);
	write_pcap_ms(a, 4, alen, ams);
	write_pcap_ms(b, 3, blen, bms);

	memset(&m2, 0, sizeof(m2));
	stop = 0;
	fakeclock_init(&fc, T0);
	assert_int_equal(opts_parse(&o, (int)(sizeof(argv) / sizeof(argv[0])), argv, err, sizeof(err)), 0);
	assert_int_equal(replay_main_hooked(&o, &stop, &hooks), 0);
	f = fopen(json_path, "r");
	assert_non_null(f);
	json[fread(json, 1, sizeof(json) - 1, f)] = '\0';
	fclose(f);
	unlink(a);
	unlink(b);

	assert_int_equal(m2.sent, 14);
	for (unsigned i = 0; i < 14; i++) {
		bool second = i >= 7;
		uint32_t len = second ? want2[i - 7] : want1[i];
		/* Pair 1: A's frames by -i; pair 2 (b a): A's by -I. */
		bool on_lane1 = (len < 70) != second;

		assert_int_equal(m2.len[i], len);
		assert_string_equal(m2.dev[i], on_lane1 ? "lane1" : "lane2");
		if (i && i != 7)
			assert_int_equal(m2.sched[i] - m2.sched[i - 1],
					 (second ? gap1[i - 7] : gap1[i]) * 1000000ull);
		assert_true(m2.at[i] >= m2.sched[i]);
	}
	/* The second pair starts after the first, as the next file would. */
	assert_true(m2.sched[7] >= m2.sched[6]);
	check_invariant(json);
	{
		const char *l1 = strstr(json, "\"intf1\":{"), *l2 = strstr(json, "\"intf2\":{");

		assert_non_null(l1);
		assert_non_null(l2);
		/* Each side: A's 4 and B's 3, one pair each. */
		assert_non_null(strstr(l1, "\"packets_read\":7,\"packets_sent\":7,\"packets_failed\":0,"));
		assert_non_null(strstr(l2, "\"packets_read\":7,\"packets_sent\":7,\"packets_failed\":0,"));
	}
}

/*
 * --dualfile with a pair whose first file holds no packet, then a pair
 * whose second file ends first: the other file goes on alone, on its own
 * lane, at its own gaps.
 */
static void test_dualfile_uneven(void **state)
{
	static const uint32_t alen[] = { 60, 61, 62 }, ams[] = { 0, 3, 7 };
	static const uint32_t blen[] = { 70 }, bms[] = { 1 };
	/* Pair 1 (empty, a): a's three on lane2.  Pair 2 (a, b): 60, 70, 61, 62 (b ends first). */
	static const uint32_t want[] = { 60, 61, 62, 60, 70, 61, 62 };
	static const char *const dev[] = { "lane2", "lane2", "lane2", "lane1", "lane2", "lane1", "lane1" };
	char a[300], b[300], e[300], json[4096];
	char *argv[] = { "replay", "-i", "lane1", "-I", "lane2", "-2", "--stats-json", json_path, "-q",
			 e, a, a, b };
	struct replay_hooks hooks = { .tx_ops = &mock2_ops, .clock = &fc.clk };
	struct opts o;
	char err[256];
	FILE *f;

	(void)state;
	snprintf(a, sizeof(a), "%s/ua.pcap", dir);
	snprintf(b, sizeof(b), "%s/ub.pcap", dir);
	snprintf(e, sizeof(e), "%s/ue.pcap", dir);
	write_pcap_ms(a, 3, alen, ams);
	write_pcap_ms(b, 1, blen, bms);
	write_pcap_ms(e, 0, NULL, NULL);

	memset(&m2, 0, sizeof(m2));
	stop = 0;
	fakeclock_init(&fc, T0);
	assert_int_equal(opts_parse(&o, (int)(sizeof(argv) / sizeof(argv[0])), argv, err, sizeof(err)), 0);
	assert_int_equal(replay_main_hooked(&o, &stop, &hooks), 0);
	f = fopen(json_path, "r");
	assert_non_null(f);
	json[fread(json, 1, sizeof(json) - 1, f)] = '\0';
	fclose(f);
	unlink(a);
	unlink(b);
	unlink(e);

	assert_int_equal(m2.sent, 7);
	for (unsigned i = 0; i < 7; i++) {
		assert_int_equal(m2.len[i], want[i]);
		assert_string_equal(m2.dev[i], dev[i]);
	}
	assert_int_equal(m2.sched[1] - m2.sched[0], 3 * 1000000ull);
	assert_int_equal(m2.sched[2] - m2.sched[1], 4 * 1000000ull);
	assert_int_equal(m2.sched[5] - m2.sched[4], 2 * 1000000ull);
	assert_int_equal(m2.sched[6] - m2.sched[5], 4 * 1000000ull);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 7);
}

/* The writer of test_held_while_input_silent()'s pipe. */
static struct {
	const char *path;
	const struct tracebuf *b;
	size_t first;  /* bytes written at once: the header and two records */
	bool saw_both; /* both of those frames were sent before the third record was written */
} silent;

static void *silent_writer(void *arg)
{
	int fd = open(silent.path, O_WRONLY);

	(void)arg;
	if (fd < 0)
		return NULL;
	if (write(fd, silent.b->data, silent.first) == (ssize_t)silent.first) {
		for (int i = 0; i < 5000 && __atomic_load_n(&sent_now, __ATOMIC_ACQUIRE) < 2; i++)
			usleep(1000);
		silent.saw_both = __atomic_load_n(&sent_now, __ATOMIC_ACQUIRE) >= 2;
		(void)!write(fd, silent.b->data + silent.first, silent.b->len - silent.first);
	}
	close(fd);
	return NULL;
}

/*
 * A pipe falls silent while a frame is held (--impair: the first packet
 * delayed 20 ms): the loop waits for the input and for the held frame's
 * deadline at once, so the held frame leaves at its deadline while the
 * input says nothing, and the packet that arrives after that goes too.
 * The writer writes the third record only once both frames have left (or
 * after 5 s, when the held one waited for the input instead).
 */
static void test_held_while_input_silent(void **state)
{
	char fifo[300], imp[300], json[4096];
	char *argv[] = { "replay", "-i", "mock0", "--stats-json", json_path, "-q", "--impair", imp, fifo };
	struct replay_hooks hooks = { .tx_ops = &mock_ops, .clock = &fc.clk };
	struct tracebuf b = { 0 };
	struct opts o;
	char err[256];
	pthread_t th;
	FILE *f;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/in.fifo", dir);
	snprintf(imp, sizeof(imp), "%s/imp.txt", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	f = fopen(imp, "w");
	assert_non_null(f);
	fputs("delay 20ms\n", f);
	fclose(f);
	tb_pcap_header(&b, PCAP_NSEC, 65535, 1);
	tb_pcap_record(&b, 100, 0, 60, 60, NULL);
	tb_pcap_record(&b, 100, GAP_NS, 61, 61, NULL);
	silent = (typeof(silent)){ .path = fifo, .b = &b, .first = b.len };
	tb_pcap_record(&b, 100, 2 * GAP_NS, 62, 62, NULL);

	memset(&m, 0, sizeof(m));
	m.batch = 64;
	sent_now = 0;
	stop = 0;
	fakeclock_init(&fc, T0);
	will_return_always(mock_send, 1);
	will_return_always(mock_flush, ALL);
	assert_int_equal(opts_parse(&o, (int)(sizeof(argv) / sizeof(argv[0])), argv, err, sizeof(err)), 0);
	assert_int_equal(pthread_create(&th, NULL, silent_writer, NULL), 0);
	assert_int_equal(replay_main_hooked(&o, &stop, &hooks), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	f = fopen(json_path, "r");
	assert_non_null(f);
	json[fread(json, 1, sizeof(json) - 1, f)] = '\0';
	fclose(f);
	unlink(fifo);
	unlink(imp);
	tb_free(&b);

	assert_true(silent.saw_both);
	assert_int_equal(m.sent, 3);
	/* The second packet at once, the first at its impaired deadline, then the late third. */
	assert_int_equal(m.len[0], 61);
	assert_int_equal(m.len[1], 60);
	assert_int_equal(m.len[2], 62);
	assert_int_equal(m.sched[1], T0 + 20 * GAP_NS);
	assert_int_equal(m.sent_at[1], T0 + 20 * GAP_NS);
	check_invariant(json);
	assert_int_equal(jget(json, "packets_sent"), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_sent_on_schedule),
		cmocka_unit_test(test_two_lanes),
		cmocka_unit_test(test_dualfile),
		cmocka_unit_test(test_dualfile_uneven),
		cmocka_unit_test(test_late_wakeups_measured),
		cmocka_unit_test(test_backpressure_retried),
		cmocka_unit_test(test_backpressure_late_cause),
		cmocka_unit_test(test_failed_packet_counted),
		cmocka_unit_test(test_interface_gone_stops),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_loops_continue_schedule),
		cmocka_unit_test(test_loop_limit_forever),
		cmocka_unit_test(test_signal_stops_after_current),
		cmocka_unit_test(test_rate_modes),
		cmocka_unit_test(test_late_reported),
		cmocka_unit_test(test_edits_filtered),
		cmocka_unit_test(test_bad_prep_sends_nothing),
		cmocka_unit_test(test_topspeed_batches),
		cmocka_unit_test(test_topspeed_burst_ends),
		cmocka_unit_test(test_topspeed_fifo_wraps),
		cmocka_unit_test(test_topspeed_burst_edges),
		cmocka_unit_test(test_passes_span_batches),
		cmocka_unit_test(test_partial_flush_keeps_order),
		cmocka_unit_test(test_failure_mid_batch),
		cmocka_unit_test(test_backpressure_mid_batch),
		cmocka_unit_test(test_stage_full_kicks),
		cmocka_unit_test(test_stage_full_waits),
		cmocka_unit_test(test_stage_failure_counted),
		cmocka_unit_test(test_only_due_packets_batch),
		cmocka_unit_test(test_fatal_fails_staged),
		cmocka_unit_test(test_signal_during_backpressure),
		cmocka_unit_test(test_unconvertible_packet_failed),
		cmocka_unit_test(test_unreplayable_linktype_refused),
		cmocka_unit_test(test_held_while_input_silent),
		cmocka_unit_test(test_segment_fragments),
		cmocka_unit_test(test_gso_whole),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
