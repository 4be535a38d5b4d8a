// SPDX-License-Identifier: BSD-2-Clause
/*
 * --dlt raw, user and hdlc through the edit chain: the link-layer header
 * (Ethernet, VLAN tags, MPLS labels) replaced after the other edits and the
 * checksums, lengths moved with it, frames without that form dropped; the
 * option parser and checks; the file's link type (--user-dlt as libpcap
 * writes it).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "replay/edit.h"

/* Ethernet (with @ntags 802.1Q tags) + IPv4 + UDP, 8 payload bytes; valid checksums are not needed
 * here. */
static size_t frame(uint8_t *b, unsigned ntags, uint16_t type)
{
	static const uint8_t ip[] = {
	    0x45, 0, 0,	   36,	 0, 1,	0, 0,  64, 17, 0,   0,	 1,   2,   3,	4,   5,	  6,
	    7,	  8, 0x03, 0xe8, 0, 53, 0, 16, 0,  0,  'p', 'a', 'y', 'l', 'o', 'a', 'd', '!',
	};
	size_t n = 12;

	memcpy(b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	for (unsigned i = 0; i < ntags; i++, n += 4)
		memcpy(b + n, "\x81\x00\x00\x07", 4);
	b[n] = (uint8_t)(type >> 8), b[n + 1] = (uint8_t)type;
	n += 2;
	memcpy(b + n, ip, sizeof(ip));
	return n + sizeof(ip);
}

/* Run a chain of @c over @p once; the frame is copied out of the chain before it is freed. */
static int run1(const struct edit_cfg *c, struct pkt *p)
{
	static uint8_t out[512];
	struct edit_chain *ch;
	int rc;

	assert_int_equal(edit_chain_new(&ch, c), 0);
	rc = edit_chain_apply(ch, p);
	if (rc == EDIT_KEEP) {
		memcpy(out, p->data, p->caplen);
		p->data = out;
	}
	edit_chain_free(ch);
	return rc;
}

static struct edit_cfg dlt_cfg(enum edit_dlt dlt)
{
	struct edit_cfg c = EDIT_CFG_DEFAULTS;

	c.dlt = dlt;
	return c;
}

static void test_raw_strips_ethernet_and_tags(void **state)
{
	struct edit_cfg c = dlt_cfg(EDIT_DLT_RAW);
	uint8_t b[128], in[128];
	struct pkt p = { .data = b, .linktype = LINKTYPE_ETHERNET, .recno = 1 };
	size_t n;

	(void)state;
	for (unsigned tags = 0; tags <= 2; tags++) {
		n = frame(b, tags, 0x0800);
		memcpy(in, b, n);
		p.data = b;
		p.caplen = (uint32_t)n;
		/* A capture cut short keeps its wire length, less the header. */
		p.wirelen = (uint32_t)n + 100;
		p.linktype = LINKTYPE_ETHERNET;
		assert_int_equal(run1(&c, &p), EDIT_KEEP);
		assert_int_equal(p.caplen, 36);
		assert_int_equal(p.wirelen, 136);
		assert_memory_equal(p.data, in + 14 + 4 * tags, 36);
		assert_int_equal(p.linktype, LINKTYPE_RAW);
	}
	/* Not IP (ARP), an 802.3 frame, a frame shorter than Ethernet's header: no DLT_RAW form. */
	n = frame(b, 0, 0x0806);
	p.data = b;
	p.caplen = p.wirelen = (uint32_t)n;
	assert_int_equal(run1(&c, &p), EDIT_DROP);
	n = frame(b, 1, 0x0026);
	p.data = b;
	p.caplen = p.wirelen = (uint32_t)n;
	assert_int_equal(run1(&c, &p), EDIT_DROP);
	p.data = b;
	p.caplen = p.wirelen = 13;
	assert_int_equal(run1(&c, &p), EDIT_DROP);
}

static void test_hdlc_header(void **state)
{
	struct edit_cfg c = dlt_cfg(EDIT_DLT_HDLC);
	uint8_t b[128], in[128];
	struct pkt p = { .data = b, .linktype = LINKTYPE_ETHERNET, .recno = 1 };
	size_t n = frame(b, 1, 0x86dd);

	(void)state;
	memcpy(in, b, n);
	p.caplen = p.wirelen = (uint32_t)n;
	/* Cisco HDLC's unicast address and control 0 by default; the EtherType under the tag. */
	assert_int_equal(run1(&c, &p), EDIT_KEEP);
	assert_int_equal(p.caplen, n - 18 + 4);
	assert_int_equal(p.wirelen, n - 18 + 4);
	assert_memory_equal(p.data, "\x0f\x00\x86\xdd", 4);
	assert_memory_equal(p.data + 4, in + 18, n - 18);
	assert_int_equal(p.linktype, LINKTYPE_C_HDLC);
	/* ARP keeps its EtherType; --hdlc-address and --hdlc-control are written as given. */
	c.hdlc_address = 0x8f;
	c.hdlc_control = 3;
	n = frame(b, 0, 0x0806);
	p.data = b;
	p.caplen = p.wirelen = (uint32_t)n;
	assert_int_equal(run1(&c, &p), EDIT_KEEP);
	assert_memory_equal(p.data, "\x8f\x03\x08\x06", 4);
	assert_int_equal(p.caplen, n - 10);
}

static void test_user_header(void **state)
{
	struct edit_cfg c = dlt_cfg(EDIT_DLT_USER);
	char err[256];
	uint8_t b[128], in[128], want[40];
	struct pkt p = { .data = b, .linktype = LINKTYPE_ETHERNET, .recno = 1 };
	size_t n = frame(b, 0, 0x0800);

	(void)state;
	memcpy(in, b, n);
	/* Longer than the Ethernet header: the frame grows into the headroom. */
	assert_int_equal(edit_parse_dlink(&c.user_dlink,
					  "0,1,2,3,4,5,6,7,8,9,a,b,c,d,e,f,10,11,12,13", err,
					  sizeof(err)),
			 0);
	assert_int_equal(c.user_dlink.len, 20);
	for (int i = 0; i < 20; i++)
		want[i] = (uint8_t)i;
	p.caplen = p.wirelen = (uint32_t)n;
	assert_int_equal(run1(&c, &p), EDIT_KEEP);
	assert_int_equal(p.caplen, n + 6);
	assert_memory_equal(p.data, want, 20);
	assert_memory_equal(p.data + 20, in + 14, n - 14);
	/* Without --user-dlt the file stays Ethernet's, as tcprewrite keeps the input's. */
	assert_int_equal(p.linktype, LINKTYPE_ETHERNET);
	c.user_dlt = 147;
	assert_int_equal(edit_cfg_linktype(&c), 147);
	c.user_dlt = 12;
	assert_int_equal(edit_cfg_linktype(&c), LINKTYPE_RAW);
}

/* The other edits run on Ethernet first: a TTL rewrite lands in the IP header that is kept. */
static void test_after_other_edits(void **state)
{
	struct edit_cfg c = dlt_cfg(EDIT_DLT_RAW);
	char err[256];
	uint8_t b[128];
	struct pkt p = { .data = b, .linktype = LINKTYPE_ETHERNET, .recno = 1 };
	size_t n = frame(b, 1, 0x0800);

	(void)state;
	assert_int_equal(edit_parse_ttl(&c.ttl, "9", err, sizeof(err)), 0);
	c.fixcsum = true;
	p.caplen = p.wirelen = (uint32_t)n;
	assert_int_equal(run1(&c, &p), EDIT_KEEP);
	assert_int_equal(p.data[0], 0x45);
	assert_int_equal(p.data[8], 9);
	/* The IPv4 header checksum was fixed on the Ethernet frame and travels with the packet. */
	{
		uint32_t s = 0;

		for (int i = 0; i < 20; i += 2)
			s += (uint32_t)(p.data[i] << 8 | p.data[i + 1]);
		while (s >> 16)
			s = (s & 0xffff) + (s >> 16);
		assert_int_equal(s, 0xffff);
	}
}

static void test_dlink_parser(void **state)
{
	struct edit_dlink d = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(edit_parse_dlink(&d, "0x0f,0x00,08,0", err, sizeof(err)), 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.len, 4);
	assert_memory_equal(d.b[0], "\x0f\x00\x08\x00", 4);
	assert_memory_equal(d.b[1], "\x0f\x00\x08\x00", 4);
	/* The second header is client->server's and must have as many bytes. */
	assert_int_equal(edit_parse_dlink(&d, "1,2,3", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "as many bytes"));
	assert_int_equal(edit_parse_dlink(&d, "1,2,3,4", err, sizeof(err)), 0);
	assert_int_equal(d.n, 2);
	assert_memory_equal(d.b[1], "\x01\x02\x03\x04", 4);
	assert_int_equal(edit_parse_dlink(&d, "1,2,3,4", err, sizeof(err)), -EINVAL);
	d = (struct edit_dlink){ 0 };
	assert_int_equal(edit_parse_dlink(&d, "aabb", err, sizeof(err)), -EINVAL);
	assert_int_equal(edit_parse_dlink(&d, "1,,2", err, sizeof(err)), -EINVAL);
	assert_int_equal(edit_parse_dlink(&d, "1,", err, sizeof(err)), -EINVAL);
	assert_int_equal(edit_parse_dlink(&d, "", err, sizeof(err)), -EINVAL);
	assert_int_equal(edit_parse_dlink(&d, "g1", err, sizeof(err)), -EINVAL);
	assert_int_equal(d.n, 0);
}

static void test_dlt_checks(void **state)
{
	struct edit_cfg c = dlt_cfg(EDIT_DLT_USER);
	char err[256];

	(void)state;
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--dlt user needs --user-dlink"));
	assert_int_equal(edit_parse_dlink(&c.user_dlink, "aa", err, sizeof(err)), 0);
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), 0);
	c.user_dlt = 13; /* libpcap writes no file of DLT 13 */
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), -EINVAL);
	c.user_dlt = 147;
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), 0);
	c.dlt = EDIT_DLT_HDLC;
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "need --dlt user"));
	c = dlt_cfg(EDIT_DLT_RAW);
	c.hdlc_address = 1;
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), -EINVAL);
	c = dlt_cfg(EDIT_DLT_RAW);
	c.vlan = EDIT_VLAN_DEL;
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "replaces the Ethernet header"));
	c.dlt = EDIT_DLT_ENET;
	assert_int_equal(edit_cfg_check(&c, err, sizeof(err)), 0);
	c = dlt_cfg(EDIT_DLT_RAW);
	assert_true(edit_cfg_any(&c));
	assert_int_equal(edit_dlt_linktype(0), 0);
	assert_int_equal(edit_dlt_linktype(11), 100);
	assert_int_equal(edit_dlt_linktype(289), 289);
	assert_int_equal(edit_dlt_linktype(290), -1);
	assert_int_equal(edit_dlt_linktype(100), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_raw_strips_ethernet_and_tags),
	    cmocka_unit_test(test_hdlc_header),
	    cmocka_unit_test(test_user_header),
	    cmocka_unit_test(test_after_other_edits),
	    cmocka_unit_test(test_dlink_parser),
	    cmocka_unit_test(test_dlt_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
