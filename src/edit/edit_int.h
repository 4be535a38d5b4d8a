/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the edit chain: the per-packet context every edit works on, the
 * bounds-checked header walk and the checksum arithmetic (net.c), and the
 * ops table each edit file exports.
 */
#ifndef REPLAY_EDIT_INT_H
#define REPLAY_EDIT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/edit.h"
#include "replay/layers.h"
#include "replay/pkt.h"

/* Room in front of the copied frame for VLAN tags pushed by --enet-vlan add. */
#define EDIT_HEADROOM 64u
/* The largest frame the chain takes or builds (a padded packet goes out at its wire length,
 * a pushed VLAN tag counts): the pipeline's one limit. */
#define EDIT_FRAME_MAX PKT_FRAME_MAX_BYTES
/* Room behind it: a frame pulled forward by --enet-vlan del ends up to 4 bytes later in the
 * buffer; the edits check the room they write to, this is only their margin. */
#define EDIT_TAILROOM 64u
#define EDIT_BUF_BYTES (EDIT_HEADROOM + EDIT_FRAME_MAX + EDIT_TAILROOM)
/* VLAN tags walked before the edits give up on a frame's layer 3 (IPv6 extension headers:
 * PKT_IP6_EXT_MAX). */
#define EDIT_VLAN_MAX 8

enum {
	L_IP = 1u << 0,        /* an IPv4 or IPv6 header is fully captured at l3off */
	L_FRAG = 1u << 1,      /* a fragment (first or not): its L4 checksum covers bytes we lack */
	L_NONFIRST = 1u << 2,  /* a non-first fragment: no L4 header here */
	L_L4 = 1u << 3,        /* the L4 header (up to and including its checksum) is captured */
};

/* Where the headers are, found by layers_parse(); offsets in bytes from the frame start. */
struct layers {
	uint16_t l3off;      /* first byte after Ethernet, VLAN tags and MPLS labels */
	uint16_t ethertype;  /* innermost EtherType (0x0800/0x86dd for IP under MPLS); 0 for 802.3 */
	uint8_t nvlan;       /* VLAN tags walked (a pseudowire's too) */
	uint8_t ipver;       /* 4, 6, or 0 */
	uint8_t l4proto;     /* IPPROTO_* of the L4 header (after IPv6 extensions) */
	uint8_t flags;       /* L_* */
	uint16_t l4off;      /* first byte of the L4 header; valid with L_IP and not L_NONFIRST */
	uint16_t l4hdr;      /* L4 header length in bytes (TCP with options, UDP 8, ICMP 8); 0 = other */
	uint32_t l3len;      /* IP datagram length per its header (IPv4 total length, IPv6 40 + payload) */
};

/* Client/server direction of a packet, for the two-value forms of --enet-*mac and --pnat. */
enum edit_dir { DIR_C2S = 0, DIR_S2C = 1 };

struct edit_chain;

/* What every edit sees: the packet and how to change it. */
struct edit_ctx {
	struct pkt *p;           /* the view being edited */
	struct edit_chain *chain;
	uint8_t *base;           /* chain buffer + EDIT_HEADROOM: where copies start */
	bool writable;           /* p->data points into the chain buffer */
	bool parsed;             /* l is valid */
	bool csum_full;          /* lengths or payload changed: recompute checksums at the end */
	bool from_prep;          /* checksums come from the sidecar: compute none */
	bool zero_payload;       /* --pad-payload zeroed every payload byte */
	uint32_t zero_from;      /* bytes from here to wirelen are known to be zero (padding) */
	struct layers l;
	int dir;                 /* enum edit_dir, or -1 until asked for */
	uint32_t unique_step;    /* --unique-ip: this pass's step (0 = the addresses as they are) */
	int soft;                /* EDIT_SOFT_* of the frame as read (soft.c), 0 = none */
	char err[256];           /* this packet's error, when an edit fails */
};

struct edit;

struct edit_ops {
	const char *name;
	/* wanted() - true if @cfg asks for this edit. */
	bool (*wanted)(const struct edit_cfg *cfg);
	/* init() - build from @cfg; 0 or -errno with the reason in @err. */
	int (*init)(struct edit *e, const struct edit_cfg *cfg, char *err, size_t errlen);
	/* apply() - EDIT_KEEP, EDIT_DROP, or -errno with the reason in c->err. */
	int (*apply)(struct edit *e, struct edit_ctx *c);
	/* free() - release what init() allocated; also after a failed init(). */
	void (*free)(struct edit *e);
};

struct edit {
	const struct edit_ops *ops;
	const struct edit_cfg *cfg; /* the chain's copy of the options */
	void *priv;                 /* the edit's own state */
};

/* The edits, in the order the chain runs them (chain.c lists them). */
extern const struct edit_ops edit_select_ops;
extern const struct edit_ops edit_filter_ops;
extern const struct edit_ops edit_efcs_ops;
extern const struct edit_ops edit_mac_ops;
extern const struct edit_ops edit_vlan_ops;
extern const struct edit_ops edit_seed_ops;
extern const struct edit_ops edit_ipmap_ops;
extern const struct edit_ops edit_endpoints_ops;
extern const struct edit_ops edit_portmap_ops;
extern const struct edit_ops edit_tcpseq_ops;
extern const struct edit_ops edit_ttl_ops;
extern const struct edit_ops edit_tos_ops;
extern const struct edit_ops edit_ip6class_ops;
extern const struct edit_ops edit_unique_ops;

/* edit_unique_move() - --unique-ip's step @k on one packet's two addresses (unique.c). */
void edit_unique_move(uint32_t *src, uint32_t *dst, uint32_t k);
extern const struct edit_ops edit_mtu_ops;
extern const struct edit_ops edit_fixlen_ops;
extern const struct edit_ops edit_fixhdrlen_ops;
extern const struct edit_ops edit_pad_ops;
extern const struct edit_ops edit_pktlen_ops;
extern const struct edit_ops edit_fixcsum_ops;
extern const struct edit_ops edit_soft_ops;
extern const struct edit_ops edit_macseed_ops;
extern const struct edit_ops edit_fuzz_ops;
extern const struct edit_ops edit_ipmap_late_ops;
extern const struct edit_ops edit_group_ops;
extern const struct edit_ops edit_endpoints_late_ops;
/* --dlt raw|user|hdlc: not in chain.c's order; the chain runs it after the checksums. */
extern const struct edit_ops edit_dlt_ops;

/*
 * Internal apply() results besides EDIT_KEEP/EDIT_DROP (never leave the chain):
 * EDIT_AGAIN - the fuzzer ran: run the edits before it once more, as tcpedit 4.6
 * does (fuzz.c); EDIT_STOP - send the packet as it is now, with no further edit
 * and no checksum repair (a tcpedit soft error).
 */
enum { EDIT_AGAIN = 2, EDIT_STOP = 3 };

/* edit_macseed_mask() - --enet-mac-seed's six mask bytes for @seed, and the generator's state after. */
void edit_macseed_mask(uint32_t seed, uint8_t mask[6], uint32_t *state);

/* edit_fuzz_state() - --fuzz-seed's generator state before the first packet. */
uint32_t edit_fuzz_state(uint32_t seed);
/*
 * edit_fuzz_packet() - fuzz the writable frame @d of @p (caplen/wirelen may shrink, to 0 for a
 * drop) with the value @r drawn for it; 1 if tcpedit counts it changed (checksums to redo).
 */
int edit_fuzz_packet(struct pkt *p, uint8_t *d, uint32_t r);

/* --- soft.c: tcpedit 4.6's own walk of a frame --- */

/* edit_soft_error() - 0, or the layer at which tcpedit 4.6 stops editing the frame (soft error). */
enum { EDIT_SOFT_L2 = 1, EDIT_SOFT_L3 = 2 };
int edit_soft_error(const uint8_t *d, uint32_t caplen);
/* edit_te_l2() - tcpedit's end of layer 2 (*@l3) and EtherType there (*@type); -1 on a soft error. */
int edit_te_l2(const uint8_t *d, uint32_t caplen, uint32_t *l3, uint16_t *type);
/* edit_te_l2off() - the same, and where the Ethernet header tcpedit edits starts (*@l2: 0, or
 * the inner header of an Ethernet pseudowire under MPLS). */
int edit_te_l2off(const uint8_t *d, uint32_t caplen, uint32_t *l2, uint32_t *l3, uint16_t *type);
/* edit_te_l2hdr() - where the Ethernet header tcpedit 4.6 rewrites starts: that of an Ethernet
 * pseudowire under MPLS (RFC 4448), else the frame's own (0, also on a soft error). */
uint32_t edit_te_l2hdr(const uint8_t *d, uint32_t caplen);
/* edit_soft_skips() - does the chain skip edit @o on a frame with soft error @soft? */
bool edit_soft_skips(const struct edit_ops *o, int soft);
/* edit_tcpedit_wanted() - does @cfg ask for any edit tcpedit 4.6 makes (tcprewrite's run)? */
bool edit_tcpedit_wanted(const struct edit_cfg *cfg);
/* edit_te_l4() - tcpedit's layer-4 offset behind the IPv4/IPv6 header at @l3 (@type); 0 if none. */
uint32_t edit_te_l4(const uint8_t *d, uint32_t caplen, uint32_t l3, uint16_t type);

/*
 * edit_rand31() - the next value (0..2^31-1) of the linear congruential
 * generator given as the portable rand() example in ISO/IEC 9899:1999,
 * 7.20.2.2, run three times per value for 11+10+10 bits; tcprewrite 4.6
 * draws its --tcp-sequence value (and its MAC and fuzz randomness) from it,
 * so the same seed must give the same bytes here.
 */
static inline uint32_t edit_rand31(uint32_t *seed)
{
	uint32_t n = *seed, r;

	n = n * 1103515245u + 12345u;
	r = (n >> 16) % 2048;
	n = n * 1103515245u + 12345u;
	r = (r << 10) ^ ((n >> 16) % 1024);
	n = n * 1103515245u + 12345u;
	r = (r << 10) ^ ((n >> 16) % 1024);
	*seed = n;
	return r;
}

/* edit_tcp_seq_delta() - what --tcp-sequence SEED adds to sequence and acknowledgment numbers. */
uint32_t edit_tcp_seq_delta(uint64_t seed);

/* --- chain.c: services for edits --- */

/* edit_wr() - make the packet writable (copy it into the chain buffer once) and return its bytes. */
uint8_t *edit_wr(struct edit_ctx *c);

/* edit_room() - bytes the frame may grow to where it is now (the chain buffer's end, and
 * EDIT_FRAME_MAX): what padding may fill. */
uint32_t edit_room(const struct edit_ctx *c);

/* edit_layers() - the packet's layers, parsed on first use. */
const struct layers *edit_layers(struct edit_ctx *c);

/* edit_direction() - DIR_C2S or DIR_S2C for the packet (learned from the addresses seen so far). */
int edit_direction(struct edit_ctx *c);

/* split_first_layers() - split.c's first-mode side (SPLIT_INTF1 client, SPLIT_INTF2 server)
 * of the frame @d whose layers are @l; learns the addresses as it goes. */
struct split;
int split_first_layers(struct split *s, const uint8_t *d, const struct layers *l);

/* edit_fail() - set the packet's error text; returns -EINVAL. */
int edit_fail(struct edit_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * edit_patch() - write @n bytes (@n even, @off even from the start of the
 * checksummed header) at @off and update the checksum at @csum_off (-1: none;
 * @udp: a zero UDP checksum means none and stays zero) per RFC 1624.
 * edit_addr() - the same for an IP address in the IP header: the IPv4 header
 * checksum and the L4 checksum through the pseudo-header.  With a prep
 * sidecar neither computes anything.
 */
void edit_patch(struct edit_ctx *c, uint32_t off, const uint8_t *nw, unsigned n, int csum_off,
		bool udp);
void edit_addr(struct edit_ctx *c, uint32_t off, const uint8_t *nw, unsigned n);

/* edit_ipv4_multicast() etc. - address classes that --skipbroadcast leaves alone. */
static inline bool edit_v4_special(const uint8_t *a)
{
	/* Multicast 224/4, and the limited broadcast (which tcprewrite forgets). */
	return (a[0] & 0xf0) == 0xe0 || (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255);
}
static inline bool edit_v6_multicast(const uint8_t *a)
{
	return a[0] == 0xff;
}

/*
 * edit_push() - open @n bytes at offset @at of the (writable) frame by moving
 * the first @at bytes into the headroom; returns the new start, or NULL if the
 * headroom is used up.  edit_pull() - close @n bytes at @at the same way.
 */
uint8_t *edit_push(struct edit_ctx *c, uint32_t at, uint32_t n);
void edit_pull(struct edit_ctx *c, uint32_t at, uint32_t n);

/* edit_zero_tail() - after the chain buffer holds @len bytes of frame at @start, the bytes
 * from @from to @len must read as zero: clear only what earlier packets left there. */
void edit_zero_tail(struct edit_ctx *c, uint8_t *start, uint32_t from, uint32_t len);

/*
 * edit_pad_to_wire() - the frame grows from its captured length to its wire
 * length, zeros past the captured bytes (--fixlen pad, --pktlen); 0, or
 * edit_fail()'s -EINVAL where the wire length does not fit ("too large
 * @what").
 */
int edit_pad_to_wire(struct edit_ctx *c, const char *what);

/* --- net.c: header walks and checksums --- */

/*
 * layers_parse() - the frame's layers for the edits, from pkt_layers()
 * (replay/layers.h): Ethernet, up to EDIT_VLAN_MAX VLAN tags, MPLS label
 * stacks (and the Ethernet pseudowires under them, as tcpedit 4.6 finds
 * them), IPv4 or IPv6 and the L4 header, never reading past @caplen.
 * Anything it cannot follow is left as "no more layers".
 */
void layers_parse(const uint8_t *d, uint32_t caplen, struct layers *l);

/*
 * layers_valid() - do the layers (from a sidecar: not trusted) describe headers
 * inside @caplen bytes, as layers_parse() would have left them?
 */
bool layers_valid(const struct layers *l, uint32_t caplen);

/* csum_add() - one's-complement sum of @n bytes at @b added to @sum (32-bit accumulator). */
uint32_t csum_add(uint32_t sum, const uint8_t *b, size_t n);

/* csum_fold() - fold a 32-bit accumulator to 16 bits (not complemented). */
uint16_t csum_fold(uint32_t sum);

/*
 * csum_replace() - RFC 1624 eqn. 3: update the checksum at @field (big-endian)
 * for @n bytes (even) changing from @old to @new.
 */
void csum_replace(uint8_t *field, const uint8_t *old, const uint8_t *new, size_t n);

/*
 * csum_l4_update() - after @n bytes of the pseudo-header (an address) changed
 * from @old to @new, update the L4 checksum of the packet at @d if it carries
 * one that covers them (TCP, UDP unless 0, ICMPv6; not non-first fragments).
 */
void csum_l4_update(uint8_t *d, uint32_t caplen, const struct layers *l, const uint8_t *old,
		    const uint8_t *new, size_t n);

/* Where the checksums of a packet are, for the sidecar: offsets from the frame start, 0 = none. */
struct csum_pos {
	uint16_t ip4;        /* IPv4 header checksum */
	uint16_t l4;         /* TCP/UDP/ICMP/ICMPv6 checksum */
};

/*
 * csum_fix_all() - recompute the IPv4 header checksum and the L4 checksum of
 * the packet at @d, if it is complete: captured to its IP length (bytes at
 * and after @zero_from count as zero without being read), and not a
 * fragment -- except the first fragment of a UDP datagram whose every payload
 * byte is zero (@zero_payload: --pad-payload), whose checksum needs only its
 * headers.  Returns how many checksums were written and their offsets in
 * *@pos (may be NULL).
 */
int csum_fix_all(uint8_t *d, uint32_t caplen, uint32_t zero_from, bool zero_payload,
		 const struct layers *l, struct csum_pos *pos);

/*
 * One sidecar record (little-endian, PREP_REC_BYTES on disk): what the chain
 * needs to send record n without parsing it or computing a checksum.
 */
#define PREP_REC_BYTES 40u
enum {
	PREP_R_SEEN = 1u << 0,  /* the record was walked */
	PREP_R_DROP = 1u << 1,  /* the chain dropped it */
	PREP_R_IP4 = 1u << 2,   /* write ip4_csum at ip4_off */
	PREP_R_L4 = 1u << 3,    /* write l4_csum at l4_off */
};
struct prep_rec {
	uint32_t caplen, wirelen; /* of the trace record: a mismatch means a foreign sidecar */
	struct layers l;          /* the record's layers, as read */
	uint8_t flags;            /* PREP_R_* */
	uint8_t side;             /* --split's side, 1 or 2; 0 = none stored (byte 25) */
	uint16_t ip4_off, ip4_csum; /* offsets in the edited frame; checksum big-endian value */
	uint16_t l4_off, l4_csum;
};

/* prep_encode()/prep_decode() - a record to/from its PREP_REC_BYTES on-disk form. */
void prep_encode(uint8_t *b, const struct prep_rec *r);
void prep_decode(const uint8_t *b, struct prep_rec *r);

/*
 * prep_lookup() - record @recno (from 1) of an open sidecar into *@r; 0,
 * -ERANGE, or -EIO when the sidecar was truncated under its mapping (or
 * could not be read): prep_fault_reason() says how, naming the file.
 */
int prep_lookup(const struct edit_prep *prep, uint64_t recno, struct prep_rec *r);
void prep_fault_reason(const struct edit_prep *prep, uint64_t recno, char *buf, size_t len);
/* prep_shrank() - is the sidecar's file now shorter than when it was mapped? */
bool prep_shrank(const struct edit_prep *prep);

/*
 * The sidecar's header (PREP_HDR_BYTES), for the writer (prep_write.c):
 * prep_header() - a new one for a trace of @size bytes and content hash
 * @hash, edited with @cfg, no --split mode, no records; prep_header_split()
 * - the --split @mode stored; prep_header_count() - @nrec records.
 */
#define PREP_HDR_BYTES 64u
void prep_header(uint8_t *hdr, uint64_t size, uint64_t hash, const struct edit_cfg *cfg);
void prep_header_split(uint8_t *hdr, const char *mode);
void prep_header_count(uint8_t *hdr, uint64_t nrec);

/*
 * prep_trace_identity() - the size and content hash a sidecar binds its
 * trace by, read from the regular file @path; 0, or -errno with @err.
 */
int prep_trace_identity(const char *path, uint64_t *size, uint64_t *hash, char *err, size_t errlen);

/* edit_chain_last() - what the last edit_chain_apply() did, as a sidecar record. */
void edit_chain_last(const struct edit_chain *c, struct prep_rec *r);

/* edit_chain_record() - walk every packet's layers even when no edit needs them (prep). */
void edit_chain_record(struct edit_chain *c);

/* csum_l4_offset() - offset of the L4 checksum field within its header, or -1 for none. */
int csum_l4_offset(uint8_t proto);

#endif
