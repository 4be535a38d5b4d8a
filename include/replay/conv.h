/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Conversations reassembled from a capture (src/conv/): every TCP
 * connection and every UDP flow of the traces, as the two byte streams its
 * ends exchanged and the order and timing in which they did, for the live
 * engines of replay live and replay serve (replay/play.h).
 *
 * A conversation has a client and a server.  TCP: the sender of the SYN is
 * the client (the sender of the SYN/ACK the server).  A connection whose
 * handshake the capture lacks (it began before the capture) gets the lower
 * port as its server, the first sender on a tie, and CONV_F_MIDSTREAM.  UDP:
 * the sender of the first datagram is the client.
 *
 * Reassembly (TCP).  Each direction's bytes are placed by sequence number
 * from its SYN (or, mid-stream, from the lowest sequence number seen).
 * Overlap policy: the first copy captured of a byte wins -- a later
 * retransmission or overlapping segment adds only bytes not captured yet,
 * and a copy that disagrees is counted (conv_dir.conflicts), not used.  A
 * direction's stream is its in-order prefix: a hole the capture never
 * filled ends it (conv_dir.gap_off), and so does a segment cut by the snap
 * length (conv_dir.trunc_recno): what follows could not be sent as it was.
 *
 * Timing.  The streams are cut into chunks at the moments the recording
 * delivered them in order: a segment that fills a hole delivers what it
 * freed at its own time, a retransmission of bytes already delivered
 * delivers nothing.  Each chunk notes how many bytes of the other direction
 * had been delivered before it (need_peer): the live engines wait for as
 * many before sending it, which is what "the client waited for a reply"
 * means.  UDP: one chunk per datagram.
 *
 * Frames are parsed here (Ethernet, stacked 802.1Q/802.1ad tags, IPv4,
 * IPv6 with extension headers, TCP, UDP); fragments and everything else are
 * counted and left out.  Nothing here prints.
 */
#ifndef REPLAY_CONV_H
#define REPLAY_CONV_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

enum conv_side {
	CONV_CLIENT = 0,
	CONV_SERVER = 1,
	CONV_SIDE_MAX
};

enum conv_close {
	CONV_CLOSE_NONE, /* the capture ended first */
	CONV_CLOSE_FIN,
	CONV_CLOSE_RST,
	CONV_CLOSE_MAX
};

enum {
	CONV_F_HANDSHAKE = 1u << 0, /* SYN from the client and SYN/ACK from the server captured */
	CONV_F_MIDSTREAM = 1u << 1, /* TCP without a SYN: roles by port */
	CONV_F_NO_SYNACK = 1u << 2, /* a SYN the recorded server never accepted */
};

/* An endpoint: family AF_INET (address in the first 4 bytes) or AF_INET6, port in host order. */
struct conv_addr {
	uint8_t family;
	uint8_t addr[16];
	uint16_t port;
};

/* A piece of one side's stream, delivered at one moment of the recording. */
struct conv_chunk {
	uint64_t ts_ns;     /* when the recording delivered it, ns since the epoch */
	uint64_t off;       /* offset in its side's stream, bytes */
	uint64_t need_peer; /* bytes of the other side delivered before it */
	uint32_t len;       /* bytes */
	uint8_t side;       /* enum conv_side */
};

/* One side of a conversation. */
struct conv_dir {
	uint8_t *data;          /* the stream (owned by the set) */
	uint64_t len;           /* bytes */
	uint32_t nchunks;       /* of the conversation's chunks, this side's */
	enum conv_close close;  /* how this side ended */
	uint64_t close_ns;      /* when, ns since the epoch (0: did not) */
	uint64_t close_need_peer; /* bytes of the other side delivered before the close */
	uint64_t trunc_recno;   /* record whose payload the snap length cut: the stream ends there; 0 = none */
	uint64_t trunc_off;     /* stream offset of that payload */
	uint64_t gap_off;       /* bytes missing from the capture here: the stream ends; UINT64_MAX = none */
	uint64_t segments;      /* payload-carrying packets */
	uint64_t retrans;       /* of those, adding nothing new (retransmissions) */
	uint64_t ooo;           /* arriving ahead of a hole (out of order) */
	uint64_t overlaps;      /* adding some new bytes and repeating others */
	uint64_t conflicts;     /* repeated bytes that differ from the first copy (first copy kept) */
};

struct conv {
	uint32_t id;             /* from 1, in order of first packet over all files */
	uint8_t proto;           /* 6 TCP, 17 UDP */
	unsigned flags;          /* CONV_F_* */
	struct conv_addr ep[CONV_SIDE_MAX]; /* client, server */
	uint64_t start_ns;       /* first packet, ns since the epoch */
	uint64_t end_ns;         /* last packet */
	uint64_t first_recno;    /* record of the first packet in its file */
	const char *file;        /* the trace it came from (the caller's string) */
	struct conv_dir dir[CONV_SIDE_MAX];
	struct conv_chunk *chunks; /* both sides, in the recording's order */
	uint32_t nchunks;
};

/* What the reader saw besides conversations. */
struct conv_stats {
	uint64_t packets;      /* frames read */
	uint64_t tcp, udp;     /* frames that went into conversations */
	uint64_t other;        /* not TCP or UDP over IP (ARP, ICMP, ...) */
	uint64_t fragments;    /* IP fragments: not reassembled, left out */
	uint64_t malformed;    /* headers cut short or inconsistent */
};

struct conv_set {
	struct conv **v;       /* in order of first packet */
	uint32_t n;
	struct conv_stats st;
};

/* One frame's transport layer (conv_dissect()). */
struct conv_l4 {
	uint8_t proto;           /* 6 or 17 */
	uint8_t tcp_flags;       /* FIN 0x01, SYN 0x02, RST 0x04, ACK 0x10 */
	struct conv_addr src, dst;
	uint32_t seq, ack;       /* TCP */
	uint32_t l3_off;         /* the IP header's offset in the frame */
	uint32_t l4_off;         /* the TCP or UDP header's */
	uint32_t l4_hlen;        /* its length */
	const uint8_t *payload;
	uint32_t plen;           /* payload bytes captured */
	uint32_t wire_plen;      /* payload bytes the headers declare */
};

/*
 * conv_dissect() - walk frame @p (Ethernet, stacked VLAN tags, IPv4 or IPv6
 * with extension headers) down to TCP or UDP into @out: 0, -ENOENT (not TCP
 * or UDP over IP, or a fragment) or -EINVAL (headers cut short or
 * inconsistent).  The walk the reassembly uses.
 */
int conv_dissect(const struct pkt *p, struct conv_l4 *out);

struct conv_build;

/* conv_build_new() - an empty builder.  0, or -ENOMEM. */
int conv_build_new(struct conv_build **bp);

/*
 * conv_build_add() - one frame @p (Ethernet, as the trace reader hands it
 * out) of trace @file (kept by pointer: it must outlive the set).  0, or
 * -ENOMEM.  A frame that is not TCP or UDP is counted and left out.
 */
int conv_build_add(struct conv_build *b, const struct pkt *p, const char *file);

/*
 * conv_build_read() - every frame of the trace at @path (any format the
 * reader takes) through conv_build_add().  0, or -errno with the reader's
 * one-line reason (file, record, offset) in @err.
 */
int conv_build_read(struct conv_build *b, const char *path, char *err, size_t errlen);

/*
 * conv_build_finish() - reassemble everything added into *@out (freed with
 * conv_set_free()) and free @b.  0, or -ENOMEM (then @b is freed too and
 * *@out is NULL).
 */
int conv_build_finish(struct conv_build *b, struct conv_set **out);

/* conv_build_free() - drop a builder without finishing; accepts NULL. */
void conv_build_free(struct conv_build *b);

/* conv_set_free() - accepts NULL. */
void conv_set_free(struct conv_set *s);

/*
 * conv_refusal() - why side @side of @c cannot be played as recorded (its
 * stream cut by the snap length, or by bytes the capture lost), as one line
 * "FILE: conversation N (A -> B): record R: ..." in @buf; false (and @buf
 * empty) when it can.
 */
bool conv_refusal(const struct conv *c, enum conv_side side, char *buf, size_t len);

/* conv_name() - "192.0.2.10:35892 -> 192.0.2.11:8000" (or "[v6]:port") into @buf; returns @buf. */
char *conv_name(const struct conv *c, char *buf, size_t len);

/* conv_addr_str() - "192.0.2.10:80" or "[2001:db8::1]:80" into @buf; returns @buf. */
char *conv_addr_str(const struct conv_addr *a, char *buf, size_t len);

/*
 * Comparison of a live reply with the recorded one (replay live --compare),
 * after masking the parts that change from run to run: the values of the
 * HTTP headers named (in every header block: a line "HTTP/1.x ..." or a
 * request line up to the empty line; the body is skipped by its
 * Content-Length) and every match of the POSIX extended regular
 * expressions given, in both streams.  A masked part compares equal to any
 * other, whatever its length.
 */
#define CONV_MASK_MAX 16

enum conv_cmp {
	CONV_CMP_EXACT,  /* every byte, after masking */
	CONV_CMP_LENGTH, /* the byte counts only */
	CONV_CMP_NONE,   /* nothing */
	CONV_CMP_MAX
};

struct conv_mask {
	const char *header[CONV_MASK_MAX]; /* HTTP header names (case-insensitive), not copied */
	unsigned nheader;
	regex_t re[CONV_MASK_MAX];
	unsigned nre;
};

/*
 * conv_mask_init() - @m with @nh header names and @nr regular expressions
 * (compiled REG_EXTENDED).  0, or -EINVAL with the expression and regerror()'s
 * reason in @err (nothing to free then).  Free with conv_mask_free().
 */
int conv_mask_init(struct conv_mask *m, const char *const *headers, unsigned nh,
		   const char *const *regexes, unsigned nr, char *err, size_t errlen);
/* conv_mask_free() - the compiled expressions; accepts NULL and a mask freed already. */
void conv_mask_free(struct conv_mask *m);

/* Where two streams first differ, in bytes of each as given (before masking). */
struct conv_diff {
	bool equal;
	uint64_t rec_off, live_off;
};

/*
 * conv_compare() - compare @live with @rec by @mode through @m (may be NULL:
 * no masks).  Fills @d; 0, or -ENOMEM.  Under CONV_CMP_LENGTH the offset is
 * the shorter length; under CONV_CMP_NONE everything is equal.
 */
int conv_compare(const struct conv_mask *m, enum conv_cmp mode, const uint8_t *rec, size_t rlen,
		 const uint8_t *live, size_t llen, struct conv_diff *d);

/*
 * conv_escape() - @n bytes at @b, printable: \r \n \t \\ \" and \xHH for
 * the rest, NUL-terminated in @out (cut to fit).  Returns @out.
 */
char *conv_escape(char *out, size_t outlen, const uint8_t *b, size_t n);

/*
 * Matching (replay serve): which recorded conversation a live client's
 * first bytes @got (@len of them) are.  Candidates are compared on their
 * client stream from byte @skip on (UDP: the bytes a reply echoes, a DNS
 * ID): a candidate whose first client chunk equals what came is best; then
 * the longest common prefix; then the most bytes equal at equal offsets;
 * then the one used least (@uses, may be NULL); then the earliest.
 * Returns the index into @cand, or -ENOENT when @n is 0.  *@kind (may be
 * NULL) gets CONV_MATCH_*.
 */
enum conv_match_kind {
	CONV_MATCH_EXACT,
	CONV_MATCH_PREFIX,
	CONV_MATCH_ORDER,
	CONV_MATCH_MAX
};

struct conv_cand {
	const uint8_t *data; /* the recorded client bytes to compare */
	size_t len;
	size_t first_len;    /* the first chunk's length: "exact" means equal to it */
};

int conv_match(const struct conv_cand *cand, unsigned n, const unsigned *uses, const uint8_t *got,
	       size_t len, size_t skip, enum conv_match_kind *kind);

/* conv_echo_len() - how many leading bytes a recorded reply @rsp repeats of its request @req (at most 8). */
size_t conv_echo_len(const uint8_t *req, size_t rlen, const uint8_t *rsp, size_t slen);

#endif
