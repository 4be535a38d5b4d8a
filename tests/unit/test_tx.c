// SPDX-License-Identifier: BSD-2-Clause
/* Methods through their ops: the file writer round-trips, wire methods refuse cleanly. */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/trace.h"
#include "replay/tx.h"
#include "tracebuf.h"

static char dir[] = "/tmp/test_tx.XXXXXX";
static char out[256];

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.pcap", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(out);
	rmdir(dir);
	return 0;
}

static void test_unknown_method(void **state)
{
	struct tx *tx;
	char want[256];

	(void)state;
	assert_int_equal(tx_open(&tx, "carrier-pigeon", &(struct tx_cfg){ 0 }), -ENOENT);
	snprintf(want, sizeof(want), "no transmit method 'carrier-pigeon' (built in: %s)", tx_methods());
	assert_string_equal(tx_strerror(tx), want);
	/* The ones every build has, whatever libraries were found. */
	for (const char *m = "packet\0mmsg\0ring\0raw\0file\0"; *m; m += strlen(m) + 1)
		assert_non_null(strstr(tx_methods(), m));
	tx_close(tx);
	tx_close(NULL);
}

static void test_file_roundtrip(void **state)
{
	struct tx_cfg cfg = { .path = out, .clock_to_real_ns = 1000 };
	uint8_t f[3][200];
	struct pkt v[3];
	struct trace *t;
	struct tx *tx;
	struct pkt p;

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		tb_frame(f[i], 60 + 70 * i, i);
		v[i] = (struct pkt){ .data = f[i], .caplen = 60 + 70 * i, .wirelen = 1500,
				     .sched_ns = 7000000000ull + i * 123456789ull };
	}
	v[2].wirelen = 10; /* longer than its wire length (padded): as long as its bytes */
	assert_int_equal(tx_open(&tx, "file", &cfg), 0);
	assert_string_equal(tx_name(tx), "file");
	assert_true(tx_virtual_time(tx));
	assert_int_equal(tx_send(tx, v, 2), 2);
	assert_int_equal(tx_send(tx, v + 2, 1), 1);
	/* Nothing under the final name until the run commits (only a run that succeeded does). */
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(tx_drain(tx), 0);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(tx_commit(tx), 0);
	tx_close(tx);

	assert_int_equal(trace_open(&t, out, NULL), 0);
	assert_int_equal(trace_linktype(t), LINKTYPE_ETHERNET);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(trace_next(t, &p), 1);
		assert_int_equal(p.caplen, v[i].caplen);
		/* The wire length is kept, as tcprewrite keeps it (caplen for both would turn a
		 * short capture into a whole frame). */
		assert_int_equal(p.wirelen, i < 2 ? 1500u : v[i].caplen);
		assert_memory_equal(p.data, f[i], p.caplen);
		assert_int_equal(p.ts_ns, v[i].sched_ns + 1000);
	}
	assert_int_equal(trace_next(t, &p), 0);
	trace_close(t);
}

static void test_file_discarded_without_drain(void **state)
{
	struct tx_cfg cfg = { .path = out };
	uint8_t f[60];
	struct pkt v = { .data = f, .caplen = sizeof(f) };
	struct tx *tx;
	struct stat st;

	(void)state;
	unlink(out);
	tb_frame(f, sizeof(f), 1);
	assert_int_equal(tx_open(&tx, "file", &cfg), 0);
	assert_int_equal(tx_send(tx, &v, 1), 1);
	tx_close(tx); /* a failed run: no output, and no temporary file left over */
	assert_int_equal(stat(out, &st), -1);
	assert_int_equal(rmdir(dir), 0);
	assert_non_null(mkdtemp(strcpy(dir, "/tmp/test_tx.XXXXXX")));
	snprintf(out, sizeof(out), "%s/out.pcap", dir);
}

/* A drained run that is not committed (it failed) leaves nothing; records over the snaplen or 2^32 s are refused. */
static void test_file_limits(void **state)
{
	struct tx_cfg cfg = { .path = out };
	uint8_t *big = calloc(1, 262144 + 15);
	struct pkt v = { .data = big, .caplen = 262144 + 14, .wirelen = 262144 + 14 };
	uint32_t hdr[6];
	struct tx *tx;
	FILE *f;

	(void)state;
	assert_non_null(big);
	unlink(out);
	tb_frame(big, 60, 1);
	assert_int_equal(tx_open(&tx, "file", &cfg), 0);
	assert_int_equal(tx_send(tx, &v, 1), -EMSGSIZE);
	assert_non_null(strstr(tx_strerror(tx), "longer than the output's snap length (262144 bytes)"));
	v.caplen = v.wirelen = 262144; /* the largest frame fits */
	assert_int_equal(tx_send(tx, &v, 1), 1);
	v.caplen = v.wirelen = 60;
	v.sched_ns = (UINT32_MAX + 1ull) * 1000000000ull;
	assert_int_equal(tx_send(tx, &v, 1), -ERANGE);
	assert_non_null(strstr(tx_strerror(tx), "beyond what a pcap timestamp holds"));
	assert_int_equal(tx_flush(tx), 1);
	assert_int_equal(tx_drain(tx), 0);
	tx_close(tx); /* not committed */
	assert_int_equal(access(out, F_OK), -1);
	/* Committed, the header's snap length is the pipeline's frame maximum. */
	assert_int_equal(tx_open(&tx, "file", &cfg), 0);
	assert_int_equal(tx_drain(tx), 0);
	assert_int_equal(tx_commit(tx), 0);
	tx_close(tx);
	f = fopen(out, "rb");
	assert_non_null(f);
	assert_int_equal(fread(hdr, 1, sizeof(hdr), f), sizeof(hdr));
	fclose(f);
	assert_int_equal(le32toh(hdr[4]), 262144);
	unlink(out);
	free(big);
}

static void test_file_unwritable(void **state)
{
	struct tx_cfg cfg = { .path = "/nonexistent-dir/out.pcap" };
	struct tx *tx;

	(void)state;
	assert_int_equal(tx_open(&tx, "file", &cfg), -ENOENT);
	assert_string_equal(tx_strerror(tx),
			    "/nonexistent-dir/out.pcap: cannot create: No such file or directory");
	tx_close(tx);
}

/* The socket methods share one skeleton (src/tx/sock.c): the same refusals, the same clean-up. */
static const char *const sock_methods[] = { "packet", "mmsg", "uring" };

static void test_packet_missing_interface(void **state)
{
	struct tx_cfg cfg = { .ifname = "nosuchif0" };
	struct tx *tx;
	int rc;

	(void)state;
	for (size_t i = 0; i < sizeof(sock_methods) / sizeof(sock_methods[0]); i++) {
		if (!tx_method_known(sock_methods[i]))
			continue; /* uring without liburing */
		cfg.ifname = "nosuchif0";
		rc = tx_open(&tx, sock_methods[i], &cfg);
		if (geteuid() == 0) {
			assert_int_equal(rc, -ENODEV);
			assert_string_equal(tx_strerror(tx), "nosuchif0: no such interface");
		} else {
			assert_int_equal(rc, -EPERM);
			assert_string_equal(tx_strerror(tx),
					    "nosuchif0: cannot open a packet socket: permission denied (needs root or CAP_NET_RAW)");
		}
		tx_close(tx);

		cfg.ifname = "this-name-is-far-too-long";
		rc = tx_open(&tx, sock_methods[i], &cfg);
		assert_true(rc == -ENODEV || rc == -EPERM);
		tx_close(tx);
	}
}

/*
 * As root, on loopback, without sending anything: each skeleton method
 * opens with the default batch and says when the qdisc is bypassed, refuses
 * a frame too short for Ethernet, stages, discards, drains and closes.
 */
static void test_sock_skeleton(void **state)
{
	uint8_t frame[60] = { 0 };
	struct pkt v[2] = {
		{ .data = frame, .caplen = 10, .wirelen = 10 },
		{ .data = frame, .caplen = sizeof(frame), .wirelen = sizeof(frame) },
	};
	struct tx_cfg cfg = { .ifname = "lo", .qdisc_bypass = true };
	struct tx *tx;
	int rc;

	(void)state;
	if (geteuid() != 0)
		skip();
	for (size_t i = 0; i < sizeof(sock_methods) / sizeof(sock_methods[0]); i++) {
		if (!tx_method_known(sock_methods[i]))
			continue;
		rc = tx_open(&tx, sock_methods[i], &cfg);
		if (rc == -EPERM && strstr(tx_strerror(tx), "io_uring_disabled")) {
			tx_close(tx);
			continue; /* io_uring switched off on this machine */
		}
		assert_int_equal(rc, 0);
		assert_int_equal(tx->batch, 64);
		assert_string_equal(tx->dev, "lo");
		assert_non_null(strstr(tx_mode(tx), "qdisc bypassed"));
		assert_int_equal(tx_send(tx, &v[0], 1), -EINVAL);
		assert_non_null(strstr(tx_strerror(tx), "shorter than an Ethernet header"));
		assert_int_equal(tx_send(tx, &v[1], 1), 1);
		tx_discard(tx);
		assert_int_equal(tx_flush(tx), 0); /* nothing left to send */
		assert_int_equal(tx_drain(tx), 0);
		tx_close(tx);
	}
}

/* --method auto's AF_XDP check: which qdiscs are the kernel's own, which sockets are taps. */
static void test_bypass_facts(void **state)
{
	/* As /proc/net/packet prints them: sk RefCnt Type Proto Iface R Rmem User Inode. */
	static const char packet[] =
		"sk               RefCnt Type Proto  Iface R Rmem   User   Inode\n"
		"ffff8d4a01a2c000 3      3    0003   7     1 0      0      1001\n"  /* tcpdump -i if7 */
		"ffff8d4a01a2c800 3      3    0003   0     1 0      0      1002\n"  /* tcpdump -i any */
		"ffff8d4a01a2d000 3      3    88cc   7     1 0      0      1003\n"  /* LLDP only: no tap */
		"ffff8d4a01a2d800 3      3    0003   9     1 0      0      1004\n"  /* another interface */
		"ffff8d4a01a2e000 3      3    0003   7     0 0      0      1005\n"  /* not running */
		"ffff8d4a01a2e800 3      3    0000   7     1 0      0      1006\n"; /* a sender's socket */

	(void)state;
	assert_true(tx_qdisc_is_default("noqueue", "pfifo_fast"));
	assert_true(tx_qdisc_is_default("pfifo_fast", "fq_codel"));
	assert_true(tx_qdisc_is_default("mq", ""));
	assert_true(tx_qdisc_is_default("fq_codel", "fq_codel")); /* net.core.default_qdisc */
	assert_false(tx_qdisc_is_default("fq_codel", "pfifo_fast"));
	assert_false(tx_qdisc_is_default("tbf", "pfifo_fast"));
	assert_false(tx_qdisc_is_default("clsact", "pfifo_fast")); /* egress hooks */
	assert_false(tx_qdisc_is_default("htb", NULL));
	assert_int_equal(tx_packet_taps(packet, 7), 2);
	assert_int_equal(tx_packet_taps(packet, 9), 2);
	assert_int_equal(tx_packet_taps(packet, 3), 1); /* only "any" */
	assert_int_equal(tx_packet_taps("sk RefCnt Type Proto Iface R Rmem User Inode\n", 7), 0);
	assert_int_equal(tx_packet_taps("", 7), 0);
	{
		char why[200];

		assert_int_equal(tx_bypass_harmless("nosuchif0", 1, why, sizeof(why)), 0);
		assert_non_null(strstr(why, "nosuchif0: no such interface"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_method),
		cmocka_unit_test(test_file_roundtrip),
		cmocka_unit_test(test_file_discarded_without_drain),
		cmocka_unit_test(test_file_limits),
		cmocka_unit_test(test_file_unwritable),
		cmocka_unit_test(test_packet_missing_interface),
		cmocka_unit_test(test_sock_skeleton),
		cmocka_unit_test(test_bypass_facts),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
