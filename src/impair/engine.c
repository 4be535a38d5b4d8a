// SPDX-License-Identifier: BSD-2-Clause
/*
 * The per-packet action engine (replay/impair.h): hands out the trace's
 * actions in order, repeats the trace, falls back to the default once it is
 * exhausted, applies corruptions, and counts -- keeping "no more data"
 * apart from actions applied, as the netem trace extension does (A. Keller,
 * "Trace Control for Netem", ETH Zurich SA-2006-15, 2006).  No allocation
 * after impair_open().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <pcap/pcap.h>
#include <string.h>

#include "impair_int.h"

struct source {
	struct impair_reader *rd;     /* a trace, or */
	struct impair_stat *stat;     /* a model */
	uint64_t repeat, trace_len, passes;
	uint64_t pass_actions;        /* actions read in the pass under way */
	bool exhausted;
	bool filtered;
	struct bpf_program prog;
	struct impair_action dflt;
	char what[300];               /* "trace FILE" or "model" and the filter, for errors */
};

struct impair {
	size_t n;
	struct source *src;
	struct impair_rng rng;        /* "corrupt random K" */
	struct impair_stats st;
	char err[600];
};

static int im_fail(char *err, size_t errlen, int rc, const char *fmt, ...) PRINTF_LIKE(4, 5);

static int im_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static void copy_action(struct impair_action *d, const struct impair_action *s)
{
	d->drop = s->drop;
	d->delay_ns = s->delay_ns;
	d->ndup = s->ndup;
	d->ncorrupt = s->ncorrupt;
	d->src = s->src;
	memcpy(d->dup_delay_ns, s->dup_delay_ns, s->ndup * sizeof(s->dup_delay_ns[0]));
	memcpy(d->corrupt, s->corrupt, s->ncorrupt * sizeof(s->corrupt[0]));
}

static int compile_filter(struct source *s, const char *expr, char *err, size_t errlen)
{
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, (int)PKT_FRAME_MAX_BYTES);

	if (!dead)
		return im_fail(err, errlen, -ENOMEM, "%s: out of memory", s->what);
	if (pcap_compile(dead, &s->prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		im_fail(err, errlen, -EINVAL, "%s: filter '%s': %s", s->what, expr, pcap_geterr(dead));
		pcap_close(dead);
		return -EINVAL;
	}
	pcap_close(dead);
	s->filtered = true;
	return 0;
}

static int open_source(struct impair *im, size_t i, const struct impair_cfg *cfg, char *err,
		       size_t errlen)
{
	struct source *s = &im->src[i];
	struct impair_action a;
	bool unfinished;
	int rc;

	if (cfg->path)
		snprintf(s->what, sizeof(s->what), "impairment trace %s", cfg->path);
	else
		snprintf(s->what, sizeof(s->what), "impairment model %zu", i + 1);
	if (!cfg->path && !cfg->stat)
		return im_fail(err, errlen, -EINVAL, "%s: neither a trace nor a model", s->what);
	if (cfg->path && cfg->stat)
		return im_fail(err, errlen, -EINVAL, "%s: both a trace and a model", s->what);
	if (impair_action_check(&cfg->dflt, err, errlen) < 0)
		return -EINVAL;
	copy_action(&s->dflt, &cfg->dflt);
	s->dflt.src = IMPAIR_SRC_DEFAULT;
	s->repeat = cfg->repeat;
	if (cfg->filter && (rc = compile_filter(s, cfg->filter, err, errlen)) < 0)
		return rc;
	if (cfg->stat) {
		/* Each model its own stream: the seed and the source's number, through splitmix64. */
		uint64_t x = cfg->seed ^ (0x632be59bd9b4e019ULL * (i + 1));

		return impair_stat_open(&s->stat, cfg->stat, impair_splitmix64(&x), err, errlen);
	}
	rc = impair_reader_open(&s->rd, cfg->path);
	/*
	 * Read the whole trace once now: a bad action fails before the run,
	 * not in it.  A long trace takes seconds (~10 ns an action): once the
	 * caller's stop flag is set, the check is left unfinished (1) for a
	 * run that stops before it sends (trace_next() would find an empty
	 * trace itself).
	 */
	if (rc >= 0)
		impair_reader_set_stop(s->rd, cfg->stop);
	while (rc >= 0 && (rc = impair_reader_next(s->rd, &a)) == 1)
		s->trace_len++;
	if (s->rd)
		impair_reader_set_stop(s->rd, NULL);
	unfinished = rc == -EINTR && cfg->stop && *cfg->stop;
	if (rc == 0 || unfinished)
		rc = impair_reader_rewind(s->rd);
	if (rc < 0) {
		snprintf(err, errlen, "%s", s->rd ? impair_reader_strerror(s->rd) : "out of memory");
		return rc;
	}
	s->exhausted = s->trace_len == 0 && !unfinished;
	return unfinished;
}

int impair_open(struct impair **ip, const struct impair_cfg *cfg, size_t n, char *err,
		size_t errlen)
{
	struct impair *im;
	bool unfinished = false;
	int rc;

	*ip = NULL;
	if (!n)
		return im_fail(err, errlen, -EINVAL, "no impairment trace or model given");
	im = calloc(1, sizeof(*im));
	if (im)
		im->src = calloc(n, sizeof(*im->src));
	if (!im || !im->src) {
		free(im);
		return im_fail(err, errlen, -ENOMEM, "out of memory");
	}
	hist_init(&im->st.delay);
	impair_rng_seed(&im->rng, cfg[0].seed);
	for (size_t i = 0; i < n; i++) {
		im->n = i + 1;
		if ((rc = open_source(im, i, &cfg[i], err, errlen)) < 0) {
			impair_close(im);
			return rc;
		}
		unfinished = unfinished || rc;
	}
	*ip = im;
	return unfinished;
}

static void count(struct impair_stats *st, const struct impair_action *a)
{
	st->actions++;
	if (a->src == IMPAIR_SRC_TRACE)
		st->from_trace++;
	else if (a->src == IMPAIR_SRC_MODEL)
		st->from_model++;
	else
		st->from_default++;
	if (a->drop) {
		st->dropped++;
		return;
	}
	if (!a->delay_ns && !a->ndup && !a->ncorrupt)
		st->passed++;
	if (a->delay_ns) {
		st->delayed++;
		hist_add(&st->delay, a->delay_ns);
	}
	if (a->ndup) {
		st->duplicated++;
		st->copies += a->ndup;
		for (unsigned i = 0; i < a->ndup; i++)
			if (a->dup_delay_ns[i])
				hist_add(&st->delay, a->dup_delay_ns[i]);
	}
}

static bool matches(const struct source *s, const struct pkt *p)
{
	struct pcap_pkthdr h;

	if (!s->filtered)
		return true;
	if (!p || p->linktype != LINKTYPE_ETHERNET)
		return false;
	h.caplen = p->caplen;
	h.len = p->wirelen;
	h.ts.tv_sec = 0;
	h.ts.tv_usec = 0;
	return pcap_offline_filter(&s->prog, &h, p->data) != 0;
}

static int trace_next(struct impair *im, struct source *s, struct impair_action *a)
{
	int rc;

	while (!s->exhausted) {
		rc = impair_reader_next(s->rd, a);
		if (rc == 1) {
			s->pass_actions++;
			a->src = IMPAIR_SRC_TRACE;
			return 1;
		}
		if (rc < 0) {
			snprintf(im->err, sizeof(im->err), "%s", impair_reader_strerror(s->rd));
			return rc;
		}
		/* A pass without an action: the trace is empty (its check at open may not have ended). */
		if (!s->pass_actions) {
			s->exhausted = true;
			break;
		}
		s->pass_actions = 0;
		s->passes++;
		im->st.passes++;
		if (s->repeat && s->passes >= s->repeat) {
			s->exhausted = true;
			break;
		}
		rc = impair_reader_rewind(s->rd);
		if (rc < 0) {
			snprintf(im->err, sizeof(im->err), "%s", impair_reader_strerror(s->rd));
			return rc;
		}
	}
	copy_action(a, &s->dflt);
	return 1;
}

int impair_next(struct impair *im, const struct pkt *p, uint64_t deadline_ns,
		struct impair_action *a)
{
	size_t i;
	int rc;

	im->st.packets++;
	for (i = 0; i < im->n && !matches(&im->src[i], p); i++)
		;
	if (i == im->n) {
		im->st.unmatched++;
		return 0;
	}
	if (im->src[i].stat) {
		bool reordered;

		impair_stat_next(im->src[i].stat, deadline_ns, p ? p->wirelen : 0, a, &reordered);
		im->st.reordered += reordered;
	} else if ((rc = trace_next(im, &im->src[i], a)) < 0) {
		return rc;
	}
	count(&im->st, a);
	return 1;
}

uint64_t impair_corrupt_apply(struct impair *im, const struct impair_action *a, uint8_t *buf,
			      size_t len)
{
	uint64_t nbits = (uint64_t)len * 8;
	uint64_t flipped = 0;

	for (unsigned i = 0; i < a->ncorrupt; i++) {
		const struct impair_corrupt *c = &a->corrupt[i];

		switch (c->kind) {
		case IMPAIR_CORRUPT_BIT:
			if (c->pos >= nbits) {
				im->st.corrupt_outside++;
				break;
			}
			buf[c->pos / 8] ^= (uint8_t)(0x80u >> (c->pos % 8));
			flipped++;
			break;
		case IMPAIR_CORRUPT_BYTE:
			if (c->pos >= len) {
				im->st.corrupt_outside++;
				break;
			}
			buf[c->pos] ^= 0xff;
			flipped += 8;
			break;
		case IMPAIR_CORRUPT_RANDOM:
			if (!nbits) {
				im->st.corrupt_outside++;
				break;
			}
			/*
			 * K independent single-bit errors, uniform over the frame; at
			 * most one draw per bit of the frame, so that a huge K costs
			 * no more per packet than the frame's size.
			 */
			for (uint64_t k = 0; k < c->pos && k < nbits; k++) {
				uint64_t b = impair_rng_below(&im->rng, nbits);

				buf[b / 8] ^= (uint8_t)(0x80u >> (b % 8));
				flipped++;
			}
			break;
		}
	}
	if (flipped) {
		im->st.corrupted++;
		im->st.bits_flipped += flipped;
	}
	return flipped;
}

void impair_count_queue_drop(struct impair *im)
{
	im->st.queue_dropped++;
}

void impair_note_held(struct impair *im, uint64_t held, uint64_t limit, uint64_t at_ns, bool took)
{
	struct impair_stats *st = &im->st;

	if (!st->queue_offered++)
		st->queue_first_ns = at_ns;
	if (at_ns > st->queue_last_ns)
		st->queue_last_ns = at_ns;
	st->queue_limit = limit;
	if (held > st->queue_peak)
		st->queue_peak = held;
	if (took && held >= limit)
		st->queue_full++;
}

void impair_count_late(struct impair *im)
{
	im->st.late++;
}

const struct impair_stats *impair_stats(const struct impair *im)
{
	return &im->st;
}

const char *impair_strerror(const struct impair *im)
{
	return im->err[0] ? im->err : "no error";
}

void impair_close(struct impair *im)
{
	if (!im)
		return;
	for (size_t i = 0; i < im->n; i++) {
		impair_reader_close(im->src[i].rd);
		impair_stat_close(im->src[i].stat);
		if (im->src[i].filtered)
			pcap_freecode(&im->src[i].prog);
	}
	free(im->src);
	free(im);
}
