// SPDX-License-Identifier: BSD-2-Clause
/*
 * Flow statistics (replay/flows.h): a frame's flow key -- its headers found
 * by pkt_layers(), read the way tcpreplay 4.6 reads them, so that the counts
 * agree with its "Flows:" line (the rules are above flow_key(); each is
 * checked against the anchor binary by tests/compat/t_flows.sh) -- and a
 * fixed open-addressing table of the keys seen.  The send loop calls
 * flow_classify() once for every packet it sends, or flow_classify_pkts()
 * once a burst (flow statistics are on unless --no-flow-stats): nothing on
 * that path allocates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "replay/compiler.h"
#include "replay/flows.h"
#include "replay/layers.h"

/*
 * A key as five 64-bit words, so that comparing it is word compares that
 * stop at the first difference, and hashing it reads it as it is:
 *   w[0], w[1]  the source address's 16 bytes, copied in order (IPv4 in the
 *               first 4, the rest zero)
 *   w[2], w[3]  the destination address's, likewise
 *   w[4]        the ports' 4 bytes as they are in the frame (ICMP's type
 *               and code: 2 bytes, the other 2 zero; 0 for other
 *               protocols) | IP protocol << 32
 * The addresses are bytes copied in, so IPv4 a.b.c.d and IPv6 ab:cd:: are
 * the same words, as they are one key in tcpreplay.  Nothing reads a
 * port's value back: the words only need to be equal exactly when the
 * keys are, so the ports go in as one load, unswapped.
 */
struct flow_key {
	uint64_t w[5];
};

struct flow_slot {
	struct flow_key key;
	int64_t last_s;           /* trace time of the key's last packet, whole seconds (with an expiry) */
	uint32_t hash;            /* of key */
	uint8_t used;
};

struct flow_table {
	struct flow_slot *slot;
	size_t mask;              /* slots - 1 (a power of two) */
	size_t used, max_used;    /* keys held; at most 7/8 of the slots */
	size_t map_bytes;         /* the slots' mapping */
	uint64_t expiry_s;
	struct flow_slot *last;   /* the slot the previous packet's key was found in or put in, or &none */
	struct flow_slot none;    /* a key no frame has (w[4] above the protocol's bits): last before any */
};

/* 4 bytes at @p as the first 4 bytes of a word, the other 4 zero: an IPv4 address in a key. */
static inline uint64_t addr4_word(const uint8_t *p)
{
	uint64_t w = 0;

	memcpy(&w, p, 4);
	return w;
}

/* 8 bytes at @p as a word, in order: half an IPv6 address in a key. */
static inline uint64_t addr8_word(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

/*
 * The last word of a key: protocol @proto, and the ports of its header at
 * @o in frame @d (@len bytes); -1, or FLOW_INVALID when the header is cut
 * short.
 */
static inline int l4_word(const uint8_t *d, uint32_t o, uint32_t len, uint8_t proto, uint64_t *w4)
{
	uint32_t need, pw;
	uint8_t ports[4];

	switch (proto) {
	case 6:
		need = 20;
		break;
	case 17:
		need = 8;
		break;
	case 1:
	case 58:
		need = 28;
		break;
	default:
		*w4 = (uint64_t)proto << 32;
		return -1;
	}
	if (o > len || need > len - o)
		return FLOW_INVALID;
	/* The first 4 bytes of every header with ports (need >= 4); ICMP keeps its type and code. */
	memcpy(ports, d + o, 4);
	if (need == 28)
		ports[2] = ports[3] = 0;
	memcpy(&pw, ports, 4);
	*w4 = (uint64_t)proto << 32 | pw;
	return -1;
}

/* What flow_key() returns for a key: IPv4's and IPv6's are looked up apart (see flow_classify()). */
enum { KEY_IP4 = -1, KEY_IP6 = -2 };

/*
 * The key of frame @d (@len bytes) into @k; KEY_IP4 or KEY_IP6, or the
 * kind that is not a flow.  Where it follows tcpreplay 4.6 rather than the
 * protocols:
 *  - Ethernet: a frame of 18 bytes or fewer is invalid.  VLAN tags (any
 *    number) are skipped and their IDs are not part of the key.  MPLS:
 *    labels up to the bottom of the stack, a bottom label 13 (GAL, RFC
 *    5586) is invalid; then the first nibble says IPv4 (4), IPv6 (6) or
 *    Ethernet under a 4-byte control word (0, RFC 4448), anything else is
 *    invalid.  An EtherType below 0x0600 (an 802.3 length) is invalid; any
 *    other but IPv4/IPv6 is a non-flow packet.  The frame must hold at
 *    least one byte past the L2 headers.
 *  - IPv4: 20 bytes captured; a version other than 4 is non-flow; the
 *    transport header is IHL * 4 bytes in, whatever IHL says.  IPv6: 40
 *    bytes; version 6; one hop-by-hop options header (next header 0) is
 *    skipped, no other extension header.  Later fragments (IPv4 offset > 0)
 *    are read as if they began with ports, as tcpreplay does.
 *  - Ports: TCP needs 20 bytes, UDP 8, ICMP and ICMPv6 28 (the size of
 *    tcpreplay's ICMP header struct) for their type and code; short is
 *    invalid.  Other protocols have ports 0.
 *  - The addresses are kept in 16 bytes, an IPv4 address in the first 4
 *    with the rest zero, and the key holds no IP version: as in tcpreplay,
 *    IPv4 a.b.c.d and IPv6 ab:cd:: with the same ports and protocol are one
 *    key (only such all-zero-tail IPv6 addresses can meet an IPv4 one).
 * Where tcpreplay reads past the captured bytes (a hop-by-hop header
 * announced but not captured), the frame is invalid here.  Each word of the
 * key is written once, not a memset of the whole key and then copies into it.
 */
static inline __attribute__((always_inline)) bool key_fast(const uint8_t *d, uint32_t len, struct flow_key *k)
{
	uint32_t pw;

	if (unlikely(len < ETH_HDR_BYTES + 20 + 8))
		return false;
	/* The EtherType (IPv4) and the version and header length (4, 5 words) in one compare. */
	if (get_be32(d + 12) >> 8 != 0x080045 || !(d[23] == 17 || (d[23] == 6 && len >= ETH_HDR_BYTES + 20 + 20)))
		return false;
	k->w[0] = addr4_word(d + 26);
	k->w[1] = 0;
	k->w[2] = addr4_word(d + 30);
	k->w[3] = 0;
	memcpy(&pw, d + 34, 4);
	k->w[4] = (uint64_t)d[23] << 32 | pw;
	return true;
}

/* flow_key()'s header walk, for every frame: key_fast()'s too. */
static inline __attribute__((always_inline)) int key_walk(const uint8_t *d, uint32_t len, struct flow_key *k)
{
	struct pkt_layers l;
	uint32_t o;
	uint8_t proto;

	if (len <= 18)
		return FLOW_INVALID;
	pkt_layers(d, len, &l);
	/* A tag, label stack or pseudowire cut short or not followed; nothing after layer 2. */
	if (unlikely(l.l2 != PKT_L2_DONE || len <= l.l3off || l.ethertype < 0x0600))
		return FLOW_INVALID;
	o = l.l3off;
	if (l.ethertype == 0x0800) {
		if (l.ipver != 4)
			return o + 20 > len ? FLOW_INVALID : FLOW_NON_IP;
		proto = d[o + 9];
		k->w[0] = addr4_word(d + o + 12);
		k->w[1] = 0;
		k->w[2] = addr4_word(d + o + 16);
		k->w[3] = 0;
		/* the transport header is IHL * 4 bytes in, whatever IHL says */
		if (l4_word(d, o + (uint32_t)(d[o] & 0x0f) * 4, len, proto, &k->w[4]) >= 0)
			return FLOW_INVALID;
		return KEY_IP4;
	}
	if (l.ethertype == 0x86dd) {
		uint32_t ip_len = 40;

		if (l.ipver != 6)
			return o + 40 > len ? FLOW_INVALID : FLOW_NON_IP;
		proto = d[o + 6];
		if (proto == 0) { /* one hop-by-hop options header (RFC 8200, 4.3) */
			if (o + 42 > len)
				return FLOW_INVALID;
			proto = d[o + 40];
			ip_len += ((uint32_t)d[o + 41] + 1) * 8;
		}
		k->w[0] = addr8_word(d + o + 8);
		k->w[1] = addr8_word(d + o + 16);
		k->w[2] = addr8_word(d + o + 24);
		k->w[3] = addr8_word(d + o + 32);
		if (l4_word(d, o + ip_len, len, proto, &k->w[4]) >= 0)
			return FLOW_INVALID;
		return KEY_IP6;
	}
	return FLOW_NON_IP;
}

/*
 * The common frame first (key_fast(): untagged IPv4 without options
 * carrying UDP, or TCP with its 20 bytes, captured): the key the walk
 * finds, without it.
 */
static inline __attribute__((always_inline)) int flow_key(const uint8_t *d, uint32_t len, struct flow_key *k)
{
	if (key_fast(d, len, k))
		return KEY_IP4;
	return key_walk(d, len, k);
}

bool flow_key_paths_agree(const uint8_t *data, uint32_t caplen)
{
	struct flow_key fast, walk;

	if (!key_fast(data, caplen, &fast))
		return true;
	return key_walk(data, caplen, &walk) == KEY_IP4 && memcmp(&fast, &walk, sizeof(fast)) == 0;
}

/*
 * A 32-bit hash of the key: each of its five words times its own odd
 * constant, the products xored, then folded and mixed once more, the high
 * half of a last multiply kept (a product's high bits depend on all of
 * its input's).  The five multiplies are independent of each other, about
 * 20 instructions.  It was FNV-1a over the 40 bytes, a multiply per byte
 * (363 instructions per packet in flow_classify()), then a chain of five
 * multiply and xor-shift rounds (about 30, each waiting for the last).
 * Probes stay about as short as a random hash's: inserting 57344 keys
 * into 65536 slots (7/8) took 4.4 to 4.8 slots per insert for sequential
 * IPv4 sources and ports and for random keys (1.4 for sequential IPv6
 * sources), against 4.2 to 4.6 with the chained rounds.
 */
static inline uint32_t key_hash(const struct flow_key *k)
{
	uint64_t h = k->w[0] * 0x9e3779b97f4a7c15ull ^ k->w[1] * 0xbf58476d1ce4e5b9ull ^
		     k->w[2] * 0x94d049bb133111ebull ^ k->w[3] * 0xff51afd7ed558ccdull ^
		     k->w[4] * 0xc4ceb9fe1a85ec53ull;

	_Static_assert(ARRAY_SIZE(k->w) == 5, "hash each of the key's words");
	h ^= h >> 32;
	h *= 0x87c37b91114253d5ull;
	return (uint32_t)(h >> 32);
}

struct flow_table *flow_table_new(uint64_t max_flows, uint64_t expiry_s)
{
	struct flow_table *ft = calloc(1, sizeof(*ft));
	size_t slots = FLOW_TABLE_MIN_SLOTS;

	if (!ft)
		return NULL;
	/* Keys fill at most 7/8 of the slots: linear probes stay short. */
	while (slots < FLOW_TABLE_MAX_SLOTS && slots / 8 * 7 < max_flows)
		slots *= 2;
	/*
	 * Sized for the most flows the traces could hold (up to 64 MiB of
	 * slots), so that the table never grows -- a rehash in the send loop
	 * would stall it -- but mapped, not allocated: only the pages flows
	 * land in become memory, whatever malloc's settings (calloc touches
	 * every page under MALLOC_PERTURB_).
	 */
	ft->map_bytes = slots * sizeof(*ft->slot);
	ft->slot = mmap(NULL, ft->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			-1, 0);
	if (ft->slot == MAP_FAILED) {
		free(ft);
		return NULL;
	}
	ft->mask = slots - 1;
	/* Instead of a test for NULL on every packet. */
	ft->none.key.w[4] = UINT64_MAX;
	ft->last = &ft->none;
	ft->max_used = slots / 8 * 7;
	ft->expiry_s = expiry_s;
	return ft;
}

void flow_table_free(struct flow_table *ft)
{
	if (!ft)
		return;
	munmap(ft->slot, ft->map_bytes);
	free(ft);
}

size_t flow_table_slots(const struct flow_table *ft)
{
	return ft->mask + 1;
}

/*
 * Word by word, stopping at the first that differs: a packet of another
 * flow than the last slot's usually differs in the first (its source
 * address), so that miss costs a load and a compare.
 */
static inline bool key_eq(const struct flow_key *a, const struct flow_key *b)
{
	return a->w[0] == b->w[0] && a->w[1] == b->w[1] && a->w[2] == b->w[2] && a->w[3] == b->w[3] &&
	       a->w[4] == b->w[4];
}

/* Trace time @ts_ns in whole seconds, as the expiry counts it. */
static inline int64_t whole_s(uint64_t ts_ns)
{
	return (int64_t)(ts_ns / NSEC_PER_SEC);
}

/*
 * A packet of the key in @s, seen at @ts_ns: an existing flow, or one that
 * expired and starts again.  The seconds are worked out only with an
 * expiry: without one the key's last time is never read.
 */
static inline enum flow_kind found(const struct flow_table *ft, struct flow_slot *s, uint64_t ts_ns)
{
	enum flow_kind kind = FLOW_EXISTING;

	if (ft->expiry_s) {
		int64_t now_s = whole_s(ts_ns);

		if (now_s > s->last_s + (int64_t)ft->expiry_s)
			kind = FLOW_EXPIRED;
		s->last_s = now_s;
	}
	return kind;
}

/*
 * Look @k up, inserting it when new (and there is room); its kind.  The
 * previous packet's slot is tried first: packets come in trains of one
 * flow (a TCP window, a burst of datagrams), and a hit there costs one
 * compare of the key instead of its hash and a probe.  Slots never move
 * (nothing is removed), so the remembered one stays valid.
 */
static inline __attribute__((always_inline)) enum flow_kind lookup(struct flow_table *ft, const struct flow_key *k,
								   uint64_t ts_ns)
{
	uint32_t h;
	size_t i;

	if (key_eq(&ft->last->key, k))
		return found(ft, ft->last, ts_ns);
	h = key_hash(k);
	for (i = h & ft->mask;; i = (i + 1) & ft->mask) {
		struct flow_slot *s = &ft->slot[i];

		if (!s->used)
			break;
		if (s->hash != h || !key_eq(&s->key, k))
			continue;
		ft->last = s;
		return found(ft, s, ts_ns);
	}
	if (ft->used >= ft->max_used)
		return FLOW_UNTRACKED;
	ft->slot[i] = (struct flow_slot){ .key = *k, .last_s = whole_s(ts_ns), .hash = h, .used = 1 };
	ft->used++;
	ft->last = &ft->slot[i];
	return FLOW_NEW;
}

static inline __attribute__((always_inline)) enum flow_kind
classify(struct flow_table *ft, const uint8_t *data, uint32_t caplen, uint64_t ts_ns, struct flow_counts *c)
{
	struct flow_key k;
	int kind = flow_key(data, caplen, &k);

	/*
	 * Two calls of the inlined lookup: in IPv4's the key's zero words are
	 * known, so the hash skips their multiplies and the key stays in
	 * general registers.
	 */
	if (kind == KEY_IP4)
		kind = lookup(ft, &k, ts_ns);
	else if (kind == KEY_IP6)
		kind = lookup(ft, &k, ts_ns);
	switch (kind) {
	case FLOW_NEW:
		c->flows++;
		c->unique++;
		c->flow_packets++;
		break;
	case FLOW_EXPIRED:
		c->flows++;
		c->expired++;
		c->flow_packets++;
		break;
	case FLOW_EXISTING:
		c->flow_packets++;
		break;
	case FLOW_UNTRACKED:
		c->flow_packets++;
		c->untracked++;
		break;
	case FLOW_NON_IP:
		c->non_flow++;
		break;
	default:
		c->invalid++;
		break;
	}
	return (enum flow_kind)kind;
}

enum flow_kind flow_classify(struct flow_table *ft, const uint8_t *data, uint32_t caplen, uint64_t ts_ns,
			     struct flow_counts *c)
{
	return classify(ft, data, caplen, ts_ns, c);
}

void flow_classify_pkts(struct flow_table *ft, const struct pkt *v, unsigned n, struct flow_counts *c)
{
	/* Counted here, in registers, and added once: not a store to @c per packet. */
	struct flow_counts k = { 0 };

	for (unsigned i = 0; i < n; i++)
		(void)classify(ft, v[i].data, v[i].caplen, v[i].ts_ns, &k);
	flow_counts_add(c, &k);
}

void flow_counts_add(struct flow_counts *into, const struct flow_counts *c)
{
	into->flows += c->flows;
	into->unique += c->unique;
	into->expired += c->expired;
	into->flow_packets += c->flow_packets;
	into->non_flow += c->non_flow;
	into->invalid += c->invalid;
	into->untracked += c->untracked;
}

uint64_t flow_fps_x100(uint64_t flows, uint64_t elapsed_ns)
{
	uint64_t us = elapsed_ns / 1000;

	return us ? flows * 100 * 1000000 / us : 0;
}
