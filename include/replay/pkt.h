/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * struct pkt: the packet view every module passes along.  A view never owns
 * its bytes: they belong to the trace reader (its mapping or buffer) or to an
 * edit chain's scratch buffer, and stay valid until the owner's next call
 * (see trace_next() and edit_chain_apply()).
 */
#ifndef REPLAY_PKT_H
#define REPLAY_PKT_H

#include <stddef.h>
#include <stdint.h>

/* Link-layer header types, as registered at tcpdump.org (LINKTYPE_*). */
enum {
	LINKTYPE_NULL = 0,          /* BSD loopback, host-order AF_ value */
	LINKTYPE_ETHERNET = 1,      /* IEEE 802.3 Ethernet */
	LINKTYPE_RAW = 101,         /* raw IPv4 or IPv6, version nibble decides */
	LINKTYPE_C_HDLC = 104,      /* Cisco HDLC: address, control, 16-bit EtherType */
	LINKTYPE_IEEE802_11 = 105,  /* 802.11 wireless */
	LINKTYPE_LOOP = 108,        /* OpenBSD loopback, network-order AF_ value */
	LINKTYPE_LINUX_SLL = 113,   /* Linux cooked capture v1 */
	LINKTYPE_IEEE802_11_RADIOTAP = 127, /* 802.11 with a radiotap header */
	LINKTYPE_ERF = 197,         /* an ERF record, header included */
	LINKTYPE_IPV4 = 228,        /* raw IPv4 */
	LINKTYPE_IPV6 = 229,        /* raw IPv6 */
	LINKTYPE_LINUX_SLL2 = 276,  /* Linux cooked capture v2 */
};

#define ETH_HDR_BYTES 14u /* destination, source, EtherType */

/*
 * PKT_FRAME_MAX_BYTES - the largest frame anywhere in the pipeline, defined
 * here once: libpcap's maximum snapshot length (262144).  The readers refuse
 * a longer record (TRACE_RECORD_MAX_BYTES), link-type conversion refuses a
 * packet whose Ethernet form would be longer, the edit chain builds nothing
 * longer (EDIT_FRAME_MAX, VLAN tags and padding included) and the pcap
 * writer declares it as its snaplen.
 */
#define PKT_FRAME_MAX_BYTES (256u * 1024u)

struct pkt {
	const uint8_t *data; /* first captured byte; not owned */
	uint32_t caplen;     /* bytes at data */
	uint32_t wirelen;    /* length of the packet on the wire, bytes (>= caplen normally) */
	uint64_t ts_ns;      /* trace timestamp, ns since the epoch; tsresol/tsoffset applied */
	uint64_t sched_ns;   /* scheduled send time on the run clock, ns; set by the scheduler */
	uint32_t ifidx;      /* interface within the trace (pcapng IDB, ERF port); 0 for pcap */
	uint16_t linktype;   /* LINKTYPE_* of data */
	uint16_t flags;      /* PKT_F_* */
	uint64_t recno;      /* record number in its file, from 1 */
	uint64_t off;        /* byte offset of the record in its file */
};

enum {
	PKT_F_TRUNCATED = 1u << 0, /* caplen < wirelen: the capture cut the packet short */
};

/*
 * pkt_bytes() - pointer to @len bytes at offset @off of the view, or NULL if
 * they are not all captured.  Every header walk goes through this, so a
 * malformed or truncated packet can never be over-read.
 */
static inline const uint8_t *pkt_bytes(const struct pkt *p, size_t off, size_t len)
{
	if (off > p->caplen || len > p->caplen - off)
		return NULL;
	return p->data + off;
}

/*
 * get_be16() / get_be32() - the big-endian (network order) 16- or 32-bit
 * field at @b; the caller has checked the bytes are there.  The one reader of
 * header fields: the dissector, the trace readers and the edits use it.
 */
static inline uint16_t get_be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t get_be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* put_be16() / put_be32() - @v's low 16 or 32 bits at @b in network order. */
static inline void put_be16(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static inline void put_be32(uint8_t *b, uint32_t v)
{
	put_be16(b, v >> 16);
	put_be16(b + 2, v);
}

/* pkt_get_be16() - big-endian 16-bit field at @off into *@v; 0, or -1 if not captured. */
static inline int pkt_get_be16(const struct pkt *p, size_t off, uint16_t *v)
{
	const uint8_t *b = pkt_bytes(p, off, 2);

	if (!b)
		return -1;
	*v = get_be16(b);
	return 0;
}

/* linktype_name() - short name of a LINKTYPE_* value, or NULL if unknown. */
const char *linktype_name(unsigned linktype);

#endif
