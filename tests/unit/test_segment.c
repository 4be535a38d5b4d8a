// SPDX-License-Identifier: BSD-2-Clause
/*
 * The segmenter (replay/segment.h): a 64 KiB TCP frame over IPv4 and IPv6
 * with the timestamps option cut into MSS-sized segments (lengths, IDs,
 * sequence numbers, flags, options, checksums recomputed here, the payload
 * put back together); big UDP datagrams fragmented over IPv4 and IPv6 (a
 * Hop-by-Hop header kept before the Fragment header) and reassembled with
 * a valid UDP checksum; DF refused; frames that fit or are not IP left
 * alone; the rate's byte count equal to the bytes written.  The kernel's
 * cut (segment_vnet()): the virtio_net_hdr of a TCP frame, its copy made
 * ready (the checksum the kernel completes verifies), and what it leaves
 * to the software cut.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/segment.h"

#define BIG 70000u

static uint8_t frame[BIG];
static uint8_t outbuf[SEGMENT_FRAMES_MAX * 1600u];
static uint32_t lens[SEGMENT_FRAMES_MAX];
static uint8_t whole[BIG];

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t sum(const uint8_t *p, size_t n, uint32_t s)
{
	for (; n > 1; p += 2, n -= 2)
		s += be16(p);
	if (n)
		s += (uint32_t)p[0] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* A checksum over data with its checksum field in place verifies as 0xffff. */
static void assert_l4_ok(const uint8_t *ip, int v6, uint8_t proto, const uint8_t *l4, uint32_t l4len)
{
	uint32_t s = v6 ? sum(ip + 8, 32, 0) : sum(ip + 12, 8, 0);

	s += (l4len >> 16) + (l4len & 0xffff) + proto;
	assert_int_equal(sum(l4, l4len, s), 0xffff);
}

static struct segment_out out(void)
{
	return (struct segment_out){ .buf = outbuf, .cap = sizeof(outbuf), .len = lens,
				     .max = SEGMENT_FRAMES_MAX, .frag_id = 7 };
}

/* Ethernet header with @type; payload bytes 0..n-1 are a counting pattern from @at. */
static void eth(uint16_t type)
{
	memset(frame, 0, sizeof(frame));
	memset(frame, 0x02, 12);
	put16(frame + 12, type);
}

static void pattern(uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + i / 251);
}

/* IPv4 header at 14: @tot (0: as GRO leaves it), @proto, DF if @df. */
static void ip4(uint32_t tot, uint8_t proto, int df)
{
	uint8_t *ip = frame + 14;

	ip[0] = 0x45;
	put16(ip + 2, tot);
	put16(ip + 4, 0xfffe); /* the ID wraps within the segments */
	put16(ip + 6, df ? 0x4000 : 0);
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
}

/* TCP header with the timestamps option (32 bytes) at @th, flags CWR|PSH|FIN|ACK. */
static void tcp(uint8_t *th)
{
	put16(th, 1234);
	put16(th + 2, 80);
	th[4] = 0xff, th[5] = 0xff, th[6] = 0xf0, th[7] = 0x00; /* the sequence wraps too */
	th[12] = 8 << 4;
	th[13] = 0x80 | 0x10 | 0x08 | 0x01;
	put16(th + 14, 512);
	memcpy(th + 20, "\x01\x01\x08\x0a\x00\x00\x00\x01\x00\x00\x00\x02", 12);
	put16(th + 16, 0x1234); /* a partial checksum, as offload leaves it */
}

/* Check the TCP segments of a frame whose IP header is @iphl bytes, payload @pay bytes. */
static void check_tcp(int n, int v6, uint32_t iphl, uint32_t pay, uint32_t mtu)
{
	uint32_t mss = mtu - iphl - 32, got = 0, seq0 = 0xfffff000u;
	const uint8_t *p = outbuf;

	assert_int_equal(n, (pay + mss - 1) / mss);
	for (int i = 0; i < n; p += lens[i], i++) {
		const uint8_t *ip = p + 14, *th = ip + iphl;
		uint32_t seglen = lens[i] - 14 - iphl - 32;

		assert_true(lens[i] - 14 <= mtu);
		assert_int_equal(seglen, i + 1 < n ? mss : pay - mss * (uint32_t)(n - 1));
		assert_memory_equal(p, frame, 14);
		if (v6) {
			assert_int_equal(be16(ip + 4), iphl - 40 + 32 + seglen);
		} else {
			assert_int_equal(be16(ip + 2), iphl + 32 + seglen);
			assert_int_equal(be16(ip + 4), (0xfffe + i) & 0xffff);
			assert_int_equal(sum(ip, iphl, 0), 0xffff);
		}
		assert_int_equal(be32(th + 4), seq0 + got);
		assert_int_equal(th[13] & 0x80, i == 0 ? 0x80 : 0);
		assert_int_equal(th[13] & 0x09, i == n - 1 ? 0x09 : 0);
		assert_int_equal(th[13] & 0x10, 0x10);
		assert_memory_equal(th + 20, "\x01\x01\x08\x0a\x00\x00\x00\x01\x00\x00\x00\x02", 12);
		assert_l4_ok(ip, v6, 6, th, 32 + seglen);
		memcpy(whole + got, th + 32, seglen);
		got += seglen;
	}
	assert_int_equal(got, pay);
}

static void test_tcp4(void **state)
{
	uint32_t pay = 65535 - 20 - 32, len = 14 + 65535;
	struct segment_out o = out();
	int n;

	(void)state;
	eth(0x0800);
	ip4(65535, 6, 1); /* DF: TCP is segmented whatever DF says, as TSO does */
	tcp(frame + 34);
	pattern(frame + 66, pay);
	n = segment_frame(frame, len, 1500, &o);
	check_tcp(n, 0, 20, pay, 1500);
	assert_memory_equal(whole, frame + 66, pay);
	assert_int_equal(segment_wire_bytes(frame, len, 1500), (uint64_t)(len + (uint32_t)(n - 1) * 66));

	/* GRO: a total length of 0 gives way to the frame's; padding after a shorter one is dropped. */
	put16(frame + 16, 0);
	assert_int_equal(segment_frame(frame, len, 1500, &o), n);
	assert_memory_equal(whole, frame + 66, pay);
	put16(frame + 16, 20 + 32 + 3000);
	n = segment_frame(frame, len, 1500, &o);
	check_tcp(n, 0, 20, 3000, 1500);
}

static void test_tcp6(void **state)
{
	uint32_t pay = 60000, len = 14 + 40 + 32 + pay;
	struct segment_out o = out();
	uint8_t *ip = frame + 14;
	int n;

	(void)state;
	eth(0x86dd);
	ip[0] = 0x60;
	put16(ip + 4, 0); /* GRO leaves the payload length 0 past 64 KiB: the frame's counts */
	ip[6] = 6;
	ip[7] = 64;
	ip[8 + 15] = 1, ip[24 + 15] = 2;
	tcp(ip + 40);
	pattern(ip + 72, pay);
	n = segment_frame(frame, len, 1500, &o);
	check_tcp(n, 1, 40, pay, 1500);
	assert_memory_equal(whole, ip + 72, pay);
	assert_int_equal(segment_wire_bytes(frame, len, 1500), (uint64_t)(len + (uint32_t)(n - 1) * 86));
}

static void test_udp4(void **state)
{
	uint32_t pay = 20000, len = 14 + 20 + 8 + pay, got = 0;
	struct segment_out o = out();
	const uint8_t *p = outbuf;
	int n;

	(void)state;
	eth(0x0800);
	ip4(20 + 8 + pay, 17, 0);
	put16(frame + 34, 5000), put16(frame + 36, 6000), put16(frame + 38, 0); /* length left to offload */
	put16(frame + 40, 0xbeef);
	pattern(frame + 42, pay);
	n = segment_frame(frame, len, 1500, &o);
	assert_int_equal(n, (8 + pay + 1479) / 1480);
	for (int i = 0; i < n; p += lens[i], i++) {
		const uint8_t *ip = p + 14;
		uint32_t fo = be16(ip + 6), flen = lens[i] - 34;

		assert_int_equal(sum(ip, 20, 0), 0xffff);
		assert_int_equal(be16(ip + 2), 20 + flen);
		assert_int_equal(be16(ip + 4), 0xfffe);
		assert_int_equal(fo & 0x1fff, got / 8);
		assert_int_equal(!!(fo & 0x2000), i + 1 < n);
		assert_true(i + 1 == n || flen % 8 == 0);
		memcpy(whole + got, ip + 20, flen);
		got += flen;
	}
	assert_int_equal(got, 8 + pay);
	assert_int_equal(be16(whole + 4), 8 + pay);
	assert_l4_ok(frame + 14, 0, 17, whole, got);
	assert_memory_equal(whole + 8, frame + 42, pay);

	/* DF: not fragmented, said as such; the frame is left as it was. */
	frame[14 + 6] |= 0x40;
	assert_int_equal(segment_frame(frame, len, 1500, &o), -EMSGSIZE);
	assert_int_equal(segment_wire_bytes(frame, len, 1500), len);
	assert_non_null(strstr(segment_strerror(-EMSGSIZE), "DF"));
}

static void test_udp6(void **state)
{
	uint32_t pay = 20000, len = 14 + 40 + 8 + 8 + pay, got = 0;
	struct segment_out o = out();
	uint8_t *ip = frame + 14;
	const uint8_t *p = outbuf;
	int n;

	(void)state;
	eth(0x86dd);
	ip[0] = 0x60;
	put16(ip + 4, 8 + 8 + pay);
	ip[6] = 0; /* Hop-by-Hop: part of the unfragmentable part */
	ip[7] = 64;
	ip[8 + 15] = 1, ip[24 + 15] = 2;
	ip[40] = 17, ip[41] = 0, ip[42] = 1, ip[43] = 4; /* PadN of 4 */
	put16(ip + 48, 5000), put16(ip + 50, 6000), put16(ip + 52, 8 + pay);
	pattern(ip + 56, pay);
	n = segment_frame(frame, len, 1500, &o);
	assert_int_equal(n, (8 + pay + 1439) / 1440);
	for (int i = 0; i < n; p += lens[i], i++) {
		const uint8_t *q = p + 14, *fh = q + 48;
		uint32_t flen = lens[i] - 14 - 56;

		assert_true(lens[i] - 14 <= 1500);
		assert_int_equal(q[6], 0);
		assert_int_equal(q[40], 44);
		assert_memory_equal(q + 41, ip + 41, 7);
		assert_int_equal(fh[0], 17);
		assert_int_equal(be16(fh + 2) & ~7u, got);
		assert_int_equal(be16(fh + 2) & 1, i + 1 < n);
		assert_int_equal(be32(fh + 4), 7);
		assert_int_equal(be16(q + 4), 8 + 8 + flen);
		memcpy(whole + got, fh + 8, flen);
		got += flen;
	}
	assert_int_equal(got, 8 + pay);
	assert_int_equal(o.frag_id, 8);
	assert_l4_ok(ip, 1, 17, whole, got);
	assert_memory_equal(whole + 8, ip + 56, pay);
}

static void test_left_alone(void **state)
{
	struct segment_out o = out();

	(void)state;
	eth(0x0800);
	ip4(1500, 17, 0);
	assert_int_equal(segment_frame(frame, 14 + 1500, 1500, &o), 0);
	/* 802.1Q: the tag is not the MTU's. */
	memmove(frame + 18, frame + 14, 1500);
	put16(frame + 12, 0x8100), put16(frame + 16, 0x0800);
	assert_int_equal(segment_frame(frame, 18 + 1500, 1500, &o), 0);
	eth(0x0806);
	assert_int_equal(segment_frame(frame, 3000, 1500, &o), -EPROTONOSUPPORT);
	/* Headers alone longer than the MTU; a truncated TCP header. */
	eth(0x0800);
	ip4(3000, 6, 0);
	frame[34 + 12] = 8 << 4;
	assert_int_equal(segment_frame(frame, 14 + 3000, 48, &o), -E2BIG);
	assert_int_equal(segment_frame(frame, 14 + 40, 30, &o), -E2BIG);
	ip4(3000, 6, 0);
	frame[34 + 12] = 15 << 4;
	assert_int_equal(segment_frame(frame, 14 + 50, 40, &o), -E2BIG);
	assert_int_equal(segment_frame(frame, 14 + 70, 68, &o), -EINVAL);
	/* Too little room for the frames. */
	ip4(3000, 17, 0);
	o.cap = 2000;
	assert_int_equal(segment_frame(frame, 14 + 3000, 1500, &o), -ENOSPC);
}

static struct virtio_net_hdr vh;
static uint8_t copy[BIG];

/* Copy the @wire bytes of frame, fix them as the method does, and finish the checksum as the kernel does. */
static void kernel_finish(uint32_t wire, int v6)
{
	uint8_t *ip = copy + 14, *th = copy + vh.csum_start;
	uint32_t l4len = wire - vh.csum_start;

	memcpy(copy, frame, wire);
	segment_vnet_fix(copy, wire, &vh);
	if (v6) {
		assert_int_equal(be16(ip + 4), wire - 14 - 40);
	} else {
		assert_int_equal(be16(ip + 2), wire - 14);
		assert_int_equal(sum(ip, 20, 0), 0xffff);
	}
	/* NEEDS_CSUM: the sum from csum_start over the field as left, complemented, at csum_offset. */
	put16(th + vh.csum_offset, (uint16_t)~sum(th, l4len, 0));
	assert_l4_ok(ip, v6, 6, th, l4len);
	assert_memory_equal(th + 20, frame + vh.csum_start + 20, l4len - 20);
}

static void test_vnet_tcp4(void **state)
{
	uint32_t pay = 65535 - 20 - 32, len = 14 + 65535, wire = 0;
	struct segment_out o = out();
	int n;

	(void)state;
	eth(0x0800);
	ip4(65535, 6, 1);
	tcp(frame + 34); /* CWR set: the kernel is told ECN, so that it clears CWR after the first */
	pattern(frame + 66, pay);
	n = segment_vnet(frame, len, 1500, &vh, &wire);
	assert_int_equal(n, segment_frame(frame, len, 1500, &o));
	assert_int_equal(vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(vh.gso_type, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN);
	assert_int_equal(vh.gso_size, 1500 - 20 - 32);
	assert_int_equal(vh.hdr_len, 14 + 20 + 32);
	assert_int_equal(vh.csum_start, 34);
	assert_int_equal(vh.csum_offset, 16);
	assert_int_equal(wire, len);
	kernel_finish(wire, 0);

	/* GRO's length of 0 and padding past a shorter length: the IP packet is what is sent. */
	put16(frame + 16, 20 + 32 + 3000);
	frame[34 + 13] &= (uint8_t)~0x80;
	assert_int_equal(segment_vnet(frame, len, 1500, &vh, &wire), 3);
	assert_int_equal(vh.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(wire, 14 + 20 + 32 + 3000);
	kernel_finish(wire, 0);
	put16(frame + 16, 0);
	assert_int_equal(segment_vnet(frame, len, 1500, &vh, &wire), n);
	assert_int_equal(wire, len);
	kernel_finish(wire, 0);
}

static void test_vnet_tcp6(void **state)
{
	uint32_t pay = 60000, len = 14 + 40 + 32 + pay, wire = 0;
	struct segment_out o = out();
	uint8_t *ip = frame + 14;

	(void)state;
	eth(0x86dd);
	ip[0] = 0x60;
	ip[6] = 6;
	ip[7] = 64;
	ip[8 + 15] = 1, ip[24 + 15] = 2;
	tcp(ip + 40);
	ip[40 + 13] &= (uint8_t)~0x80;
	pattern(ip + 72, pay);
	assert_int_equal(segment_vnet(frame, len, 1280, &vh, &wire), segment_frame(frame, len, 1280, &o));
	assert_int_equal(vh.gso_type, VIRTIO_NET_HDR_GSO_TCPV6);
	assert_int_equal(vh.gso_size, 1280 - 40 - 32);
	assert_int_equal(vh.hdr_len, 14 + 40 + 32);
	assert_int_equal(vh.csum_start, 54);
	assert_int_equal(wire, len);
	kernel_finish(wire, 1);

	/* BIG TCP: past what the payload length can name, GRO's 0 stands; cut here, not by the kernel. */
	pattern(ip + 72, 65600);
	assert_true(segment_frame(frame, 14 + 40 + 32 + 65600, 1280, &o) > 0);
	assert_int_equal(segment_vnet(frame, 14 + 40 + 32 + 65600, 1280, &vh, &wire), -ENOPROTOOPT);
}

/* What the kernel is not given: it fits, or it is cut here, or not at all. */
static void test_vnet_not_kernel(void **state)
{
	uint32_t wire = 0;

	(void)state;
	eth(0x0800);
	ip4(1500, 6, 0);
	tcp(frame + 34);
	assert_int_equal(segment_vnet(frame, 14 + 1500, 1500, &vh, &wire), 0);
	assert_int_equal(vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(vh.flags, 0);
	assert_int_equal(wire, 14 + 1500);
	/* UDP: the kernel's UDP GSO makes datagrams, not fragments. */
	ip4(3000, 17, 0);
	assert_int_equal(segment_vnet(frame, 14 + 3000, 1500, &vh, &wire), -ENOPROTOOPT);
	assert_int_equal(vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	/* A VLAN tag: the kernel matches the GSO type against the outer EtherType. */
	ip4(3000, 6, 0);
	tcp(frame + 34);
	memmove(frame + 18, frame + 14, 3000);
	put16(frame + 12, 0x8100), put16(frame + 16, 0x0800);
	assert_int_equal(segment_frame(frame, 18 + 3000, 1500, &(struct segment_out){ .buf = outbuf,
		.cap = sizeof(outbuf), .len = lens, .max = SEGMENT_FRAMES_MAX }), 3);
	assert_int_equal(segment_vnet(frame, 18 + 3000, 1500, &vh, &wire), -ENOPROTOOPT);
	/* Not IP; a TCP header the software cut refuses too. */
	eth(0x0806);
	assert_int_equal(segment_vnet(frame, 3000, 1500, &vh, &wire), -EPROTONOSUPPORT);
	eth(0x0800);
	ip4(3000, 6, 0);
	frame[34 + 12] = 15 << 4;
	assert_int_equal(segment_vnet(frame, 14 + 70, 68, &vh, &wire), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp4),
		cmocka_unit_test(test_tcp6),
		cmocka_unit_test(test_udp4),
		cmocka_unit_test(test_udp6),
		cmocka_unit_test(test_left_alone),
		cmocka_unit_test(test_vnet_tcp4),
		cmocka_unit_test(test_vnet_tcp6),
		cmocka_unit_test(test_vnet_not_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
