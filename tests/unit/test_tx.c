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
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/*
 * The checks of test_layer3's child: cmocka's asserts would jump back into
 * the test runner's state, copied into the child, and run the rest of the
 * suite there.
 */
#define CHILD_CHECK(c)                                                                             \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #c);              \
			_exit(1);                                                                  \
		}                                                                                  \
	} while (0)

/* A tun device named @name, up, in this network namespace: its descriptor, or -1. */
static int tun_up(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK), sk;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		close(fd);
		return -1;
	}
	sk = socket(AF_INET, SOCK_DGRAM, 0);
	CHILD_CHECK(sk >= 0);
	ifr.ifr_flags = IFF_UP;
	CHILD_CHECK(ioctl(sk, SIOCSIFFLAGS, &ifr) == 0);
	close(sk);
	return fd;
}

/* The next packet the tun device's far side @tun reads, into @buf: its length, or -1. */
static ssize_t tun_read(int tun, uint8_t *buf, size_t cap, int timeout_ms)
{
	struct pollfd p = { .fd = tun, .events = POLLIN };

	if (poll(&p, 1, timeout_ms) != 1)
		return -1;
	return read(tun, buf, cap);
}

/* One layer-3 method on tun device @name (@tun its far side): every case of stage_l3_frames(). */
static void l3_method(const char *method, const char *name, int tun)
{
	/* IPv4 UDP, 28 bytes, behind an 802.1Q tag and padded to 64; an ARP request; IPv6, 48 bytes. */
	static const uint8_t v4[64] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0x00, 0x0a, 0x08, 0x00,
					0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
					0x04, 0x00, 0x00, 0x09, 0x00, 0x08, 0x00, 0x00 };
	static const uint8_t arp[42] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06,
					 0, 1, 8, 0, 6, 4, 0, 1 };
	uint8_t v6[62] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x86, 0xdd, 0x60, 0, 0, 0, 0, 8, 17, 64 };
	struct pkt v[3] = {
		{ .data = v4, .caplen = sizeof(v4), .wirelen = sizeof(v4) },
		{ .data = arp, .caplen = sizeof(arp), .wirelen = sizeof(arp) },
		{ .data = v6, .caplen = sizeof(v6), .wirelen = sizeof(v6) },
	};
	struct tx_cfg cfg = { .ifname = name };
	uint8_t got[2048];
	struct tx *tx;
	int rc;

	v6[14 + 23] = 1, v6[14 + 39] = 2; /* ::1 -> ::2 */
	rc = tx_open(&tx, method, &cfg);
	if (rc == -EPERM && strstr(tx_strerror(tx), "io_uring_disabled")) {
		tx_close(tx);
		return;
	}
	CHILD_CHECK(rc == 0);
	CHILD_CHECK(!strcmp(tx->l3, "tun"));
	CHILD_CHECK(strstr(tx_mode(tx), "layer 3 (tun): link header dropped"));
	/* The tagged IPv4 frame goes; the ARP frame after it waits its turn to fail. */
	CHILD_CHECK(tx_send(tx, v, 3) == 1);
	CHILD_CHECK(tx->not_ip == 0);
	CHILD_CHECK(tx_send(tx, &v[1], 2) == -EINVAL);
	CHILD_CHECK(tx->not_ip == 1);
	CHILD_CHECK(strstr(tx_strerror(tx), "EtherType 0x0806 is not IP"));
	CHILD_CHECK(tx_send(tx, &v[2], 1) == 1);
	CHILD_CHECK(tx_flush(tx) == 2);
	/* The far side reads the IP packets alone: no tag, no padding, in order. */
	CHILD_CHECK(tun_read(tun, got, sizeof(got), 1000) == 28);
	CHILD_CHECK(!memcmp(got, v4 + 18, 28));
	CHILD_CHECK(tun_read(tun, got, sizeof(got), 1000) == 48);
	CHILD_CHECK(!memcmp(got, v6 + 14, 48));
	CHILD_CHECK(tun_read(tun, got, sizeof(got), 100) == -1);
	CHILD_CHECK(tx_drain(tx) == 0);
	/* An IP packet over the layer-3 MTU fails by its own length, not the frame's. */
	tx->mtu = 27;
	CHILD_CHECK(tx_send(tx, v, 1) == -EMSGSIZE);
	CHILD_CHECK(strstr(tx_strerror(tx), "IP packet of 28 bytes exceeds"));
	tx_close(tx);
}

/* Write @val to the sysctl file @path if it is there (IPv6 may be built out). */
static void sysctl_set(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return;
	CHILD_CHECK(write(fd, val, strlen(val)) == (ssize_t)strlen(val));
	close(fd);
}

/*
 * As root, in a network namespace of its own (a child process): on a tun
 * device packet, mmsg and uring send each frame's IP packet and fail a frame
 * without one, counted; ring and xdp refuse the device with -EPROTONOSUPPORT,
 * and --gso is refused there.
 */
static void test_layer3(void **state)
{
	static const char *const refusing[] = { "ring", "xdp" };
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0 || access("/dev/net/tun", R_OK | W_OK))
		skip();
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct tx_cfg cfg = { .ifname = "rpltun0" };
		struct tx *tx;
		int tun;

		if (unshare(CLONE_NEWNET) < 0)
			_exit(77);
		/* No IPv6 link-local address, so no solicitation of the kernel's own on the device. */
		sysctl_set("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
		sysctl_set("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
		tun = tun_up("rpltun0");
		if (tun < 0)
			_exit(77);
		for (size_t i = 0; i < sizeof(sock_methods) / sizeof(sock_methods[0]); i++)
			if (tx_method_known(sock_methods[i]))
				l3_method(sock_methods[i], "rpltun0", tun);
		for (size_t i = 0; i < 2; i++) {
			if (!tx_method_known(refusing[i]))
				continue;
			CHILD_CHECK(tx_open(&tx, refusing[i], &cfg) == -EPROTONOSUPPORT);
			CHILD_CHECK(strstr(tx_strerror(tx), "rpltun0: a layer-3 interface (tun)"));
			tx_close(tx);
		}
		cfg.gso = true;
		CHILD_CHECK(tx_open(&tx, "mmsg", &cfg) == -ENOTSUP);
		tx_close(tx);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
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
		cmocka_unit_test(test_layer3),
		cmocka_unit_test(test_bypass_facts),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
