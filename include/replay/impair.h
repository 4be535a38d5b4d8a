/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Trace-driven impairment: one action per packet -- pass, drop, delay,
 * duplicate, corrupt, or a combination -- read from an impairment trace, as
 * in the netem trace extension (A. Keller, "Trace Control for Netem", ETH
 * Zurich semester thesis SA-2006-15, 2006): a measured or computed trace of
 * arbitrary length drives the emulator, with a repeat count, a default
 * action once the trace is exhausted, and statistics that keep "no more
 * data" (the default was used) apart from the actions applied.
 *
 * Two forms of a trace, told apart by the first bytes (man replay-impair(5)):
 *
 * Binary ("RPIM").  A 16-byte header, then a stream of 32-bit little-endian
 * words.  Header: magic "RPIM", u16 version (1), u16 word size (4), u32
 * flags (0), u32 reserved (0).  Each action is one base word, optionally
 * followed by extension words:
 *
 *   base word   bits  0..25  delay value
 *               bits 26..27  delay unit: 0 ns, 1 us, 2 ms, 3 wide (the
 *                            value is 0 and two words follow: u64 ns, low first)
 *               bit  28      DROP (nothing else may be set)
 *               bit  29      EXT: an extension header word follows
 *               bits 30..31  0 (reserved)
 *   ext header  bits  0..7   N duplicates, bits 8..15 K corruptions,
 *               bits 16..31  0.  Then N delay words (bits 0..27 as in the
 *               base word, 28..31 zero; wide ones followed by their two
 *               words), then K corruption words: bits 30..31 kind (0 bit,
 *               1 byte, 2 random), bits 0..29 the bit number, byte number
 *               or count of random bits.
 *
 * A pass or a plain delay of up to 2^26-1 ns/us/ms -- nearly every action
 * of a measured trace -- is one 32-bit word, as in the thesis' format; only
 * the actions that need positions or copies are wider.  Delays are at most
 * IMPAIR_DELAY_MAX.  Bits are numbered from the most significant bit of
 * byte 0 (network order, as in RFC diagrams); a byte corruption inverts all
 * eight bits of that byte.
 *
 * Text.  One action per line, '#' starts a comment, blank lines are
 * skipped.  A line is "pass", "drop", or any combination of
 *   delay D[ns|us|ms|s]               (no unit: ns)
 *   dup N [D...]                      (N copies; a copy without a delay
 *                                      gets the packet's own delay)
 *   corrupt {bit[s] L | byte[s] L | random K}...   (L = P[,P...])
 * with at most one delay and one dup per line.  Errors name the line and
 * column.  impair_write() writes the canonical text: "pass", "drop", or
 * "delay", "dup" with every copy's delay, "corrupt" in that order, a delay
 * in the largest unit that keeps it exact.
 *
 * Readers stream: a buffered read() of a fixed-size window (bounded memory
 * for any length) and, for --impair-repeat, a seek back to the first action.
 * Nothing on the per-packet path allocates.
 */
#ifndef REPLAY_IMPAIR_H
#define REPLAY_IMPAIR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/pkt.h"
#include "replay/stats.h"

#define IMPAIR_MAGIC "RPIM"
#define IMPAIR_VERSION 1
#define IMPAIR_HDR_LEN 16
#define IMPAIR_MAX_DUP 255
#define IMPAIR_MAX_CORRUPT 255
#define IMPAIR_DELAY_MAX (3600ULL * 1000000000ULL) /* one hour, in ns */
#define IMPAIR_POS_MAX ((1U << 30) - 1)             /* bit/byte number, random count */
#define IMPAIR_LINE_MAX 4096                        /* text form: longest line */

enum impair_fmt { IMPAIR_FMT_BIN, IMPAIR_FMT_TEXT };

enum impair_corrupt_kind { IMPAIR_CORRUPT_BIT, IMPAIR_CORRUPT_BYTE, IMPAIR_CORRUPT_RANDOM };

struct impair_corrupt {
	enum impair_corrupt_kind kind;
	uint32_t pos; /* bit number, byte number, or number of random bits */
};

/*
 * Where the action came from: the trace, the default once it ran out, or a
 * statistical model (struct impair_stat_cfg).
 */
enum impair_src { IMPAIR_SRC_TRACE, IMPAIR_SRC_DEFAULT, IMPAIR_SRC_MODEL };

/*
 * One packet's action.  delay_ns is added to the packet's deadline; each of
 * the ndup copies is sent dup_delay_ns[i] after the packet's undelayed
 * deadline (a copy is an exact copy of the frame before corruption); the
 * corruptions apply to the original only.  drop excludes everything else.
 */
struct impair_action {
	bool drop;
	uint8_t ndup, ncorrupt;
	enum impair_src src;
	uint64_t delay_ns;
	uint64_t dup_delay_ns[IMPAIR_MAX_DUP];
	struct impair_corrupt corrupt[IMPAIR_MAX_CORRUPT];
};

/* impair_action_pass() - set @a to "pass" (no drop, delay, copies or corruption). */
void impair_action_pass(struct impair_action *a);

/*
 * impair_action_parse() - parse one line of the text form (no newline) into
 * @a.  0, or -EINVAL with "column C: reason" in @err.  Used for
 * --impair-default ACTION, too.
 */
int impair_action_parse(const char *line, struct impair_action *a, char *err, size_t errlen);

/* ---- the stream reader ---------------------------------------------------- */

struct impair_reader;

/*
 * impair_reader_open() - open @path (binary or text, by its first bytes) for
 * streaming.  Only a regular file: anything else (a FIFO without a writer,
 * a device) is refused with -EINVAL at once, never waited for.  Sets *@rp
 * even on failure (unless memory ran out) so that impair_reader_strerror()
 * says why.  0 or -errno.
 */
int impair_reader_open(struct impair_reader **rp, const char *path);

/*
 * impair_reader_next() - the next action: 1, 0 at the end, or -errno with
 * impair_reader_strerror() naming the file and the line and column (text)
 * or the word's offset (binary).
 */
int impair_reader_next(struct impair_reader *r, struct impair_action *a);

/*
 * impair_reader_set_stop() - from now on, impair_reader_next() fails with
 * -EINTR (naming the offset) once *@stop is set, checked before each read
 * of the file past its first 64 KiB; @stop NULL: never.
 */
void impair_reader_set_stop(struct impair_reader *r, const volatile sig_atomic_t *stop);

/* impair_reader_rewind() - back to the first action; 0 or -errno. */
int impair_reader_rewind(struct impair_reader *r);

enum impair_fmt impair_reader_fmt(const struct impair_reader *r);
const char *impair_reader_strerror(const struct impair_reader *r);
void impair_reader_close(struct impair_reader *r);

/* ---- writers --------------------------------------------------------------- */

/* impair_write_header() - the binary header (nothing for text).  0 or -errno. */
int impair_write_header(FILE *f, enum impair_fmt fmt);

/*
 * impair_write() - one action, binary or canonical text (with newline).
 * -EINVAL for an action no trace can hold (a delay above IMPAIR_DELAY_MAX, a
 * drop with anything else, a position above IMPAIR_POS_MAX); -EIO on a write error.
 */
int impair_write(FILE *f, enum impair_fmt fmt, const struct impair_action *a);

/*
 * impair_convert() - read @in whole and write it to @out in the other form,
 * through outfile (checked against the input, committed only when every
 * action was read and written).  0 or -errno with a one-line reason in @err
 * naming the file and line.  *@nactions gets the count converted.
 */
int impair_convert(const char *in, const char *out, uint64_t *nactions, char *err,
		   size_t errlen);

/* ---- statistical impairment (netem's models) ------------------------------ */

/*
 * The models of Linux netem (tc-netem(8)), with its names and meanings,
 * drawn from our own seeded generator (xoshiro256**, seeded through
 * splitmix64) so that the same seed repeats a run exactly.  Probabilities
 * are fractions 0..1 here; the parser takes them as percentages.  See
 * replay-impair(5), STATISTICAL IMPAIRMENT, for each model's exact rule.
 */
enum impair_loss_model {
	IMPAIR_LOSS_NONE,
	IMPAIR_LOSS_RANDOM,  /* loss [random] P [CORR] */
	IMPAIR_LOSS_GEMODEL, /* loss gemodel p [r [1-h [1-k]]]: Gilbert-Elliott */
	IMPAIR_LOSS_STATE,   /* loss state p13 [p31 [p32 [p23 [p14]]]]: 4-state Markov */
};

enum impair_dist { IMPAIR_DIST_UNIFORM, IMPAIR_DIST_NORMAL, IMPAIR_DIST_PARETO,
		   IMPAIR_DIST_PARETONORMAL };

struct impair_stat_cfg {
	uint64_t delay_ns, jitter_ns; /* delay TIME [JITTER [CORR]] */
	double delay_corr;
	enum impair_dist dist;        /* distribution NAME (default uniform, as netem) */
	enum impair_loss_model loss;
	double loss_p[5];             /* random: P; gemodel: p r 1-h 1-k; state: p13 p31 p32 p23 p14 */
	double loss_corr;             /* random only */
	double dup, dup_corr;         /* duplicate P [CORR] */
	double corrupt, corrupt_corr; /* corrupt P [CORR] */
	double reorder, reorder_corr; /* reorder P [CORR] [gap N] */
	uint32_t gap;                 /* gap N (1 when reorder is given without it) */
	uint64_t rate_bps;            /* rate RATE [OVERHEAD [CELLSIZE [CELLOVERHEAD]]], bit/s */
	int32_t overhead, cell_overhead;
	uint32_t cell_size;
	uint32_t limit;               /* limit N: the queue limit for the send loop (IMPAIR_LIMIT_DEFAULT) */
};

/* netem's queue limit: frames held back at once when no "limit N" (or --impair-limit) says. */
#define IMPAIR_LIMIT_DEFAULT 1000u

/* impair_stat_init() - @c with nothing impaired and netem's defaults (limit IMPAIR_LIMIT_DEFAULT). */
void impair_stat_init(struct impair_stat_cfg *c);

/*
 * impair_stat_parse() - add the netem-like clauses of @spec to @c, e.g.
 * "delay 10ms 2ms 25% distribution normal loss 1% 25% reorder 5% gap 3".
 * A later clause replaces an earlier one of the same kind, so options can
 * be parsed one by one into the same @c.  0, or -EINVAL with "word N
 * 'WORD': reason" in @err (words counted from 1 in @spec).
 */
int impair_stat_parse(const char *spec, struct impair_stat_cfg *c, char *err, size_t errlen);

/* impair_stat_active() - does @c impair anything at all? */
bool impair_stat_active(const struct impair_stat_cfg *c);

/*
 * impair_stat_format() - @c as the canonical clause string (what the parser
 * reads back to the same @c, up to the rounding of %g).  Returns the length
 * snprintf() would have written.
 */
int impair_stat_format(const struct impair_stat_cfg *c, char *buf, size_t len);

/* ---- the engine ------------------------------------------------------------ */

/*
 * One source of actions: an impairment trace (@path) or a statistical model
 * (@stat, when @path is NULL), optionally for one flow only (@filter).
 */
struct impair_cfg {
	const char *path;     /* the trace, binary or text */
	const struct impair_stat_cfg *stat; /* or the model (path NULL); copied at open */
	const char *filter;   /* --impair-flow: a libpcap filter; NULL = every packet */
	uint64_t repeat;      /* passes over the trace; 0 = forever */
	struct impair_action dflt; /* once exhausted: "pass", "drop" or any action */
	uint64_t seed;        /* "corrupt random K" and the model's draws */
	/*
	 * The caller's stop flag (its SIGINT/SIGTERM handler sets it), read
	 * while impair_open() checks the trace: within a read of it (64 KiB)
	 * after it is set, the check of a trace longer than that is left
	 * unfinished, and impair_open() returns 1 for a run that is to stop.
	 * NULL: never.
	 */
	const volatile sig_atomic_t *stop;
};

/*
 * Statistics.  from_default counts the seed thesis' "no valid data" (the
 * trace ran out and the default was used), kept apart from the actions
 * taken from the trace.  queue_dropped and late are the send loop's counts,
 * handed in through impair_count_queue_drop() and impair_count_late(),
 * and the queue's occupancy (limit, peak, times full) through
 * impair_note_held().
 */
struct impair_stats {
	uint64_t packets;      /* packets impair_next() saw */
	uint64_t unmatched;    /* of those, in no impaired flow (sent untouched) */
	uint64_t actions;      /* actions handed out = from_trace + from_default + from_model */
	uint64_t from_trace, from_default, from_model;
	uint64_t passes;       /* complete passes over the traces */
	uint64_t passed;       /* actions that were plain "pass" */
	uint64_t dropped;      /* drop actions */
	uint64_t delayed;      /* actions with delay_ns > 0 */
	uint64_t duplicated;   /* actions with at least one copy */
	uint64_t copies;       /* copies asked for in all */
	uint64_t reordered;    /* model: packets sent ahead of the queue (reorder) */
	uint64_t corrupted;    /* frames impair_corrupt_apply() changed */
	uint64_t bits_flipped; /* bits it inverted in all */
	uint64_t corrupt_outside; /* corruptions beyond the frame's end, skipped */
	uint64_t queue_dropped;   /* send loop: dropped because its queue was full */
	uint64_t queue_limit;     /* send loop: the queue's room (--impair-limit), 0 if it never held a frame */
	uint64_t queue_peak;      /* send loop: the most frames it held at once */
	uint64_t queue_full;      /* send loop: times a frame filled it to the limit */
	uint64_t queue_offered;   /* send loop: frames it was asked to hold (taken or dropped) */
	uint64_t queue_first_ns, queue_last_ns; /* the first and last such frame's undelayed deadline */
	uint64_t late;            /* send loop: sent after the impaired deadline */
	struct hist delay;     /* delays handed out (delayed actions and their copies), ns */
};

struct impair;

/*
 * impair_open() - hold @n sources (traces or models), each with its
 * filter.  Each packet consumes an action from the first source whose
 * filter matches it (a source without filter matches every packet); the
 * filters are compiled for Ethernet frames (pcap_compile() on a dead
 * DLT_EN10MB handle), and a frame of another link type matches only
 * sources without a filter.  Opens and reads each trace whole now, so a bad
 * trace or filter fails before the run.  A trace that is not a regular file
 * (a named pipe, a device) is refused without waiting for it: it could not
 * be read again for a repeat.  0; 1 when a cfg->stop was set while a long
 * trace was checked (the check is left unfinished: the run is to stop
 * without sending); or -errno with a one-line reason in @err naming the
 * source.
 */
int impair_open(struct impair **ip, const struct impair_cfg *cfg, size_t n, char *err,
		size_t errlen);

/*
 * impair_next() - the action for packet @p (its frame for the filters, its
 * wire length for "rate"), due at @deadline_ns on the undelayed schedule
 * (only "rate" uses it; deadlines must not go backwards).  @p may be NULL
 * when no source has a filter or a rate.  1 with @a filled (a->src tells
 * trace, default and model apart), 0 when the packet belongs to no
 * impaired flow (send it untouched), or -errno when a trace could not be
 * read (impair_strerror() says where).
 */
int impair_next(struct impair *im, const struct pkt *p, uint64_t deadline_ns,
		struct impair_action *a);

/*
 * impair_corrupt_apply() - apply @a's corruptions to @buf[0..@len): bits and
 * bytes beyond the end are skipped (and counted), "random K" makes K
 * independent draws of a bit, uniform over the frame, and inverts each (at
 * most as many draws as the frame has bits, so the cost per packet is
 * bounded by its size).  Returns the number of bits inverted.
 */
uint64_t impair_corrupt_apply(struct impair *im, const struct impair_action *a, uint8_t *buf,
			      size_t len);

/* The send loop's own counts: a packet its queue had no room for; one sent late. */
void impair_count_queue_drop(struct impair *im);
/*
 * impair_note_held() - the send loop was asked to hold a frame due at
 * @at_ns before its delay, and holds @held frames of @limit now (@took:
 * this one among them; if not, it was dropped for want of room).
 */
void impair_note_held(struct impair *im, uint64_t held, uint64_t limit, uint64_t at_ns, bool took);
void impair_count_late(struct impair *im);

const struct impair_stats *impair_stats(const struct impair *im);
const char *impair_strerror(const struct impair *im);
void impair_close(struct impair *im);

struct json;

/*
 * impair_stats_print() - the summary lines ("Impairment: ...") for @st.
 * impair_stats_json() - @st as one JSON object, the value of @key (NULL
 * where the writer takes no key), as "impairment" in --stats-json.
 */
void impair_stats_print(const struct impair_stats *st, FILE *f);
void impair_stats_json(struct json *w, const char *key, const struct impair_stats *st);

#endif
