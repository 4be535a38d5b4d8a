/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --fragroute: fragroute's rule language (Dug Song's fragroute, as
 * tcprewrite 4.6 runs it) and the modules that apply the rules to one
 * frame, making none, one or several.  Pure: the caller gives the memory
 * and the random state, so a run with the same seed repeats, and both
 * halves are fuzzed alone.
 */
#ifndef REPLAY_FRAG_H
#define REPLAY_FRAG_H

#include <stddef.h>
#include <stdint.h>

#define FRAG_RULES_MAX 64u     /* rules in one file */
#define FRAG_LINE_MAX 4096u    /* bytes in one rule's line */
#define FRAG_DATA_MAX 512u     /* a rule's bytes: raw options, routes (32 IPv6 addresses) */
#define FRAG_TEXT_MAX 256u     /* echo's text */
#define FRAG_FRAMES_MAX 512u   /* frames one frame becomes at most */

/* fragroute's modules, by the name a rule starts with. */
enum frag_mod {
	FRAG_DELAY,
	FRAG_DROP,
	FRAG_DUP,
	FRAG_ECHO,
	FRAG_IP_CHAFF,
	FRAG_IP_FRAG,
	FRAG_IP_OPT,
	FRAG_IP_TTL,
	FRAG_IP_TOS,
	FRAG_ORDER,
	FRAG_PRINT,
	FRAG_TCP_CHAFF,
	FRAG_TCP_OPT,
	FRAG_TCP_SEG,
	FRAG_IP6_OPT,
	FRAG_IP6_QOS,
	FRAG_MODS,
};

/* delay, drop and dup: which frame of the queue. */
enum frag_which { FRAG_FIRST, FRAG_LAST, FRAG_RANDOM };

/* order: the queue shuffled or reversed. */
enum frag_order { FRAG_ORDER_RANDOM, FRAG_ORDER_REVERSE };

/* ip_frag, tcp_seg: no overlap, or overlapping pieces that favour the old or the new bytes. */
enum frag_overlap { FRAG_OVERLAP_NONE, FRAG_OVERLAP_OLD, FRAG_OVERLAP_NEW };

/* ip_chaff's and tcp_chaff's kinds of chaff; TTL carries its value in n. */
enum frag_chaff {
	FRAG_CHAFF_DUP,
	FRAG_CHAFF_OPT,
	FRAG_CHAFF_TTL,
	FRAG_CHAFF_CKSUM,
	FRAG_CHAFF_NULL,
	FRAG_CHAFF_PAWS,
	FRAG_CHAFF_REXMIT,
	FRAG_CHAFF_SEQ,
	FRAG_CHAFF_SYN,
};

/* ip_opt's, tcp_opt's and ip6_opt's kinds. */
enum frag_opt {
	FRAG_OPT_LSRR,
	FRAG_OPT_SSRR,
	FRAG_OPT_RAW,
	FRAG_OPT_MSS,
	FRAG_OPT_WSCALE,
	FRAG_OPT_ROUTE,
};

/* One rule: a module and its arguments, read. */
struct frag_rule {
	enum frag_mod mod;
	unsigned line;     /* its line in the file, from 1 */
	uint8_t kind;      /* which, order, overlap, chaff or opt, by module */
	uint32_t n;        /* size (bytes), percent, ms, ttl, tos, mss, wscale, ptr, class */
	uint32_t n2;       /* ip6_qos: the flow label */
	uint16_t len;      /* bytes in data */
	uint8_t data[FRAG_DATA_MAX]; /* option bytes (raw: type, length, data), addresses */
	char text[FRAG_TEXT_MAX];    /* echo: its words, one blank between */
};

/* A rules file, read: its rules in order. */
struct frag_rules {
	unsigned n;
	struct frag_rule r[FRAG_RULES_MAX];
};

/*
 * frag_parse() - read the rules in the @len bytes at @text (the file
 * @name, for messages) into @out: one rule a line, its words split at
 * blanks, the first the module's name (any case); a line empty, blank or
 * starting with '#' holds none.  Each module's arguments are checked as
 * fragroute's modules check them, whole numbers read whole.
 *
 * Returns the number of rules (0 for a file of none); -EINVAL with one
 * line in @err naming @name, the line number, the rule and why.
 */
int frag_parse(const char *text, size_t len, const char *name, struct frag_rules *out, char *err,
	       size_t errlen);

/*
 * frag_load() - read the file at @path and frag_parse() it.  Returns what
 * frag_parse() does, or -errno when the file cannot be read (@err says so).
 */
int frag_load(const char *path, struct frag_rules *out, char *err, size_t errlen);

/* frag_mod_name() - module @m's name as a rule spells it ("ip_frag"). */
const char *frag_mod_name(enum frag_mod m);

/*
 * frag_rules_applied() - 0 when every rule of @rules is one frag_apply()
 * applies (all but echo and print, which would print for each packet);
 * else the first rule it does not apply (its module's name and why in
 * @err), as -ENOTSUP.
 */
int frag_rules_applied(const struct frag_rules *rules, char *err, size_t errlen);

/* Where frag_apply() works and writes: the frames in @buf, each one's place and length. */
struct frag_out {
	uint8_t *buf;      /* the frames and the steps between (the rules' work) */
	size_t cap;        /* bytes in buf */
	uint32_t off[FRAG_FRAMES_MAX]; /* each frame's start in buf */
	uint32_t len[FRAG_FRAMES_MAX]; /* each frame's length, bytes */
	unsigned n;        /* frames written */
};

/*
 * frag_apply() - apply @rules in order to Ethernet frame @f of @len bytes
 * (an IPv4 or IPv6 packet, up to two VLAN tags), as fragroute applies them
 * to a queue that starts as the one frame; write the frames that result,
 * in order, into @out (frame i at out->buf + out->off[i]).  @rng is the
 * state of the random choices (order random, a probability, an overlap's
 * bytes, IP identifications, the chaff's bytes), advanced; the same state
 * gives the same frames.
 *
 * Returns the number of frames (0 when a rule dropped them all); -EPROTONOSUPPORT
 * for a frame that is not IP (fragroute passes it on untouched: the caller
 * sends it as it is); -EINVAL for a malformed IP header; -ENOSPC when @out
 * cannot hold the frames.
 */
int frag_apply(const struct frag_rules *rules, const uint8_t *f, uint32_t len, uint64_t *rng,
	       struct frag_out *out);

#endif
