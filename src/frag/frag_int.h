/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside --fragroute's modules (replay/frag.h): the queue of frames a
 * rule works on, the arena they live in, and the helpers every module
 * shares.  apply.c runs the rules and holds the cutting modules, opt.c the
 * option modules, chaff.c the chaff modules.
 */
#ifndef FRAG_INT_H
#define FRAG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/frag.h"

#define ETH_BYTES 14u
#define IP4_MIN 20u
#define IP4_HL_MAX 60u
#define IP6_BYTES 40u
#define TCP_MIN 20u
#define TCP_HL_MAX 60u
#define FRAG6_BYTES 8u
#define IP4_MF 0x2000u
#define IP4_OFFMASK 0x1fffu
#define TCP_ACK 0x10u
#define TCP_SYN 0x02u

struct frame {
	uint32_t off; /* in the arena */
	uint32_t len; /* bytes */
};

struct queue {
	unsigned n;
	struct frame f[FRAG_FRAMES_MAX];
};

/* The arena (the caller's buffer), its end, the frames' shared layer 2 and the random state. */
struct work {
	uint8_t *buf;
	size_t cap, used;
	uint32_t l3off;   /* the IP header, after Ethernet and its tags */
	uint64_t *rng;
	struct queue a, b; /* the queue, and the next one a rule builds */
};

/* An IP packet in a frame: where its parts are. */
struct ipv {
	bool v6;
	uint32_t hl;    /* IPv4's header with options; IPv6's 40 */
	uint32_t end;   /* the packet's end, from the frame's start */
	uint8_t proto;  /* IPv4's protocol; IPv6's Next Header */
	bool frag;      /* IPv4: a fragment (MF or an offset) */
};

/* frag_rnd() - the next 64 random bits of state @s (splitmix64). */
uint64_t frag_rnd(uint64_t *s);

/* frag_sum16() - @sum plus the big-endian 16-bit words of @n bytes at @p (an odd byte padded). */
uint64_t frag_sum16(const uint8_t *p, size_t n, uint64_t sum);

/* frag_fold() - the Internet checksum (RFC 1071) of a sum of words. */
uint16_t frag_fold(uint64_t sum);

/* frag_at() - frame @f's first byte in @w's arena. */
uint8_t *frag_at(struct work *w, const struct frame *f);

/* frag_ip_view() - the IP packet in frame @f into @v; false when its header is malformed. */
bool frag_ip_view(struct work *w, const struct frame *f, struct ipv *v);

/* frag_ip4_csum() - the header checksum of the IPv4 header at @ip, @hl bytes, made right. */
void frag_ip4_csum(uint8_t *ip, uint32_t hl);

/*
 * frag_csum() - the checksums of the packet @v in @f made right: IPv4's
 * header, and the TCP, UDP or ICMP(v6) checksum of a packet that is not a
 * fragment.
 */
void frag_csum(struct work *w, const struct frame *f, const struct ipv *v);

/* frag_add() - room for a frame of @len bytes at the arena's end, appended to @q; NULL when full. */
struct frame *frag_add(struct work *w, struct queue *q, uint32_t len);

/* frag_keep() - frame @f appended to @q as it is; -ENOSPC when @q is full. */
int frag_keep(struct work *w, struct queue *q, const struct frame *f);

/*
 * frag_opt() - ip_opt, tcp_opt or ip6_opt (@r) over frame @f: the frame,
 * its option or extension header added, appended to the next queue (as it
 * is when the rule does not apply to it).  0 or -ENOSPC.
 */
int frag_opt(struct work *w, const struct frag_rule *r, const struct frame *f);

/*
 * frag_chaff() - ip_chaff or tcp_chaff (@r) over frame @f: the frame and,
 * before or after it, a chaff packet made of it, appended to the next
 * queue.  0 or -ENOSPC.
 */
int frag_chaff(struct work *w, const struct frag_rule *r, const struct frame *f);

#endif
