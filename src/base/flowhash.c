// SPDX-License-Identifier: BSD-2-Clause
/* The symmetric flow hash of a frame (replay/flowhash.h). */
#include <endian.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/flowhash.h"
#include "replay/layers.h"

#define ETH_HLEN 14u

/* The hash's starting value: 2^64 / golden ratio. */
#define HASH_SEED 0x9e3779b97f4a7c15ull

/* A flow key: the protocol (or EtherType), two endpoints of up to 16 + 2 bytes, ordered. */
struct key {
	uint32_t kind;        /* 4 or 6 (IP version) << 8 | protocol; or 0x10000 | EtherType for MACs */
	uint32_t alen;        /* bytes of address: 4, 16 or 6 */
	uint8_t a[16], b[16]; /* the endpoints' addresses */
	uint16_t pa, pb;      /* their ports (0 without) */
};

/* Ports of protocols whose first 4 bytes after the IP header are source and destination port. */
static inline int has_ports(uint8_t proto)
{
	/* TCP 6, UDP 17, DCCP 33 as bits of one word; SCTP 132, UDP-Lite 136 */
	if (proto < 64)
		return (int)(((1ull << 6 | 1ull << 17 | 1ull << 33) >> proto) & 1);
	return proto == 132 || proto == 136;
}

/* 64-bit mix (the finaliser of Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014). */
static inline uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * The hash of a key: its serialised bytes (kind, the two endpoints'
 * addresses, their ports) mixed in 8 at a time, each 8 as a little-endian
 * word, so a host of either byte order hashes a flow alike.
 */
static uint32_t key_hash(struct key *k)
{
	uint8_t buf[4 + 2 * 16 + 4];
	uint64_t h = HASH_SEED, w;
	size_t n = 0;
	int c = memcmp(k->a, k->b, k->alen);

	/* Symmetric: the smaller endpoint (address, then port) first. */
	if (c > 0 || (c == 0 && k->pa > k->pb)) {
		uint8_t t[16];
		uint16_t p = k->pa;

		memcpy(t, k->a, k->alen);
		memcpy(k->a, k->b, k->alen);
		memcpy(k->b, t, k->alen);
		k->pa = k->pb;
		k->pb = p;
	}
	for (n = 0; n < 4; n++)
		buf[n] = (uint8_t)(k->kind >> 8 * n);
	memcpy(buf + n, k->a, k->alen);
	n += k->alen;
	memcpy(buf + n, k->b, k->alen);
	n += k->alen;
	buf[n++] = (uint8_t)(k->pa >> 8);
	buf[n++] = (uint8_t)k->pa;
	buf[n++] = (uint8_t)(k->pb >> 8);
	buf[n++] = (uint8_t)k->pb;
	for (size_t i = 0; i < n; i += 8) {
		w = 0;
		memcpy(&w, buf + i, n - i < 8 ? n - i : 8);
		h = mix(h ^ le64toh(w));
	}
	return (uint32_t)(h >> 32);
}

/*
 * The IPv4 frame @f whose layers are @l: key_hash()'s hash of the key,
 * without building one: its 16 serialised bytes -- kind, address a, address
 * b, port a, port b, the fields as in the header -- are two little-endian
 * words made straight from the header, and the endpoints are ordered by one
 * comparison of (address, port) as 48-bit numbers, which is memcmp()'s order
 * of the addresses, then the ports'.  The same hash at a third of the
 * instructions: --threads hashes every packet in every thread, most of them
 * to skip.
 */
static inline uint32_t ipv4(const uint8_t *f, uint32_t len, const struct pkt_layers *l)
{
	const uint8_t *p = f + l->l3off;
	uint32_t a, b, kind;
	uint16_t pa = 0, pb = 0; /* network order, as the addresses */
	uint64_t w0, w1;

	kind = 4u << 8 | l->l4proto;
	memcpy(&a, p + 12, 4);
	memcpy(&b, p + 16, 4);
	/* More fragments, or an offset: a fragment, hashed by addresses. */
	if (!(l->flags & PKT_L_FRAG) && has_ports(l->l4proto) && l->l4off && len - l->l4off >= 4) {
		memcpy(&pa, f + l->l4off, 2);
		memcpy(&pb, f + l->l4off + 2, 2);
	}
	/* Symmetric: the smaller endpoint (address, then port) first. */
	if (((uint64_t)be32toh(a) << 16 | be16toh(pa)) > ((uint64_t)be32toh(b) << 16 | be16toh(pb))) {
		uint32_t t = a;
		uint16_t tp = pa;

		a = b;
		b = t;
		pa = pb;
		pb = tp;
	}
	w0 = kind | (uint64_t)le32toh(a) << 32;
	w1 = le32toh(b) | (uint64_t)le16toh(pa) << 32 | (uint64_t)le16toh(pb) << 48;
	return (uint32_t)(mix(mix(HASH_SEED ^ w0) ^ w1) >> 32);
}

/*
 * The IPv6 frame @f whose layers are @l: the key of its addresses, the
 * protocol after its extension headers (AH, RFC 4302, stops the walk: the
 * key's protocol is 51), and its ports unless it is a fragment.
 */
static void ipv6(struct key *k, const uint8_t *f, uint32_t len, const struct pkt_layers *l)
{
	const uint8_t *p = f + l->l3off;
	uint8_t nh = l->flags & PKT_L_AH ? 51 : l->l4proto;

	k->alen = 16;
	memcpy(k->a, p + 8, 16);
	memcpy(k->b, p + 24, 16);
	k->kind = 6u << 8 | nh;
	if (!(l->flags & PKT_L_FRAG) && has_ports(nh) && l->l4off && len - l->l4off >= 4) {
		k->pa = get_be16(f + l->l4off);
		k->pb = get_be16(f + l->l4off + 2);
	}
}

/* The MAC pair and EtherType @type of the frame @f: the key of anything but IP. */
static uint32_t hash_mac(const uint8_t *f, uint16_t type)
{
	struct key k;

	memset(&k, 0, sizeof(k));
	k.kind = 0x10000u | type;
	k.alen = 6;
	memcpy(k.a, f, 6);
	memcpy(k.b, f + 6, 6);
	return key_hash(&k);
}

/*
 * Every frame but untagged IPv4 (runts, tags, IPv6, the MAC pair): out of
 * line, so that the IPv4 path neither pays for a key on its stack nor has
 * its layers' address taken (which would make it store every field).
 */
static __attribute__((noinline)) uint32_t hash_other(const uint8_t *f, uint32_t len)
{
	struct pkt_layers l;
	struct key k;
	uint16_t type;

	if (len < ETH_HLEN) {
		/* Not even a header: whatever is there, as one endpoint. */
		memset(&k, 0, sizeof(k));
		k.kind = 0x20000;
		k.alen = len < 16 ? len : 16;
		memcpy(k.a, f, k.alen);
		memcpy(k.b, f, k.alen);
		return key_hash(&k);
	}
	pkt_layers(f, len, &l);
	/* Up to two tags are looked through: the EtherType after them (or the third's TPID). */
	type = get_be16(f + 12 + 4 * MIN(l.outer, 2u));
	if (type == 0x0800 && l.ipver == 4)
		return ipv4(f, len, &l);
	if (type == 0x86dd && l.ipver == 6) {
		memset(&k, 0, sizeof(k));
		ipv6(&k, f, len, &l);
		return key_hash(&k);
	}
	return hash_mac(f, type);
}

uint32_t flowhash(const uint8_t *f, uint32_t len)
{
	struct pkt_layers l;

	if (likely(len >= ETH_HLEN && get_be16(f + 12) == 0x0800)) {
		pkt_layers(f, len, &l);
		return l.ipver == 4 ? ipv4(f, len, &l) : hash_mac(f, 0x0800);
	}
	return hash_other(f, len);
}
