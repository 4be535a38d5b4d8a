// SPDX-License-Identifier: BSD-2-Clause
/*
 * The trace source: every input checked before sending (trace files, or
 * --source-interface's capture as the one stream), then read in passes x
 * files -- or passes x groups of files read side by side and merged by
 * timestamp (--dualfile's pairs; --merge's one group of them all) -- with
 * rewinds, segments, and each file's warnings.  A file is open only while
 * it is read: checked (its header read) and let go at set-up, opened
 * again at its segment, let go at its end (trace_release()), so ten
 * thousand files take a descriptor or two.  The contract and the
 * per-packet half are src/run/source.h.  Calls src/run/pass.c at each
 * pass's end; set-up calls source_open().
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "replay/log.h"

static void report_warnings(const struct trace *t)
{
	const char *first;
	uint64_t n = trace_warnings(t, &first);

	if (n == 1)
		log_warn("%s", first);
	else if (n > 1)
		log_warn("%s (and %llu more warnings)", first, (unsigned long long)(n - 1));
}

enum step source_segment(struct replay *r)
{
	struct source *s = &r->src;

	if (s->f == s->nfiles) {
		enum step st = pass_end(r);

		if (st != STEP_NEXT)
			return st;
		s->pass++;
		s->f = 0;
		/* The last pass is recorded at the run's end, with what is sent after it (replay_run()). */
		if (r->plan.passes && s->pass >= r->plan.passes)
			return STEP_STOP;
		pass_next(r);
	}
	if (s->pass || s->f)
		sched_segment(&r->sched, s->pass && !s->f ? r->plan.loop_delay_ns : 0);
	for (unsigned k = 0; k < s->width; k++) {
		struct trace *t = s->traces[s->f + (int)k];

		if ((s->pass || trace_released(t)) && trace_rewind(t) < 0) {
			log_err("%s", trace_strerror(t));
			return STEP_ERROR;
		}
		s->have[k] = s->done[k] = false;
	}
	s->in_file = true;
	return STEP_NEXT;
}

/*
 * A file ended (or its read failed, or has to wait): its warnings are
 * reported at its end in the first pass, by thread 0 only.
 */
static enum step file_ended(struct replay *r, struct trace *t, int rc)
{
	if (rc == -EAGAIN) {
		r->src.waiting = t;
		return STEP_AGAIN;
	}
	if (!r->src.pass && !r->th.idx)
		report_warnings(t);
	if (rc == -EINTR && *r->stop)
		return STEP_STOP; /* a signal while a read waited: stopped, not failed */
	if (rc < 0) {
		log_err("%s", trace_strerror(t));
		return STEP_ERROR;
	}
	trace_release(t); /* read to its end: its descriptor goes until the next pass */
	return STEP_NEXT;
}

enum step source_file_end(struct replay *r, struct trace *t, int rc)
{
	enum step step = file_ended(r, t, rc);

	if (step != STEP_AGAIN)
		r->src.in_file = false;
	if (step == STEP_NEXT)
		r->src.f++;
	return step;
}

/*
 * The files of a group, each read in its own order with its next packet
 * read ahead: the earliest goes first; a tie to the pair's first file
 * with --dualfile (as tcpreplay 4.6), to the file given last with --merge
 * (as mergecap: its output and ours are the same frames in the same
 * order).  A linear scan: a group is a pair, or the few taps of a merge.  A file whose timestamps
 * step back is not sorted, only interleaved.  r->src.side is the packet's
 * file in its group: with --dualfile, its lane.
 */
enum step source_read_merge(struct replay *r, const struct trace **tp, struct pkt *p)
{
	struct source *s = &r->src;

	for (;;) {
		unsigned k, best = UINT_MAX;

		if (unlikely(!s->in_file)) {
			enum step step = source_segment(r);

			if (step != STEP_NEXT)
				return step;
		}
		for (k = 0; k < s->width; k++) {
			struct trace *t = s->traces[s->f + (int)k];
			enum step step;
			int rc;

			if (s->have[k] || s->done[k])
				continue;
			rc = trace_next(t, &s->pend[k]);
			if (rc == 1) {
				s->have[k] = true;
				continue;
			}
			step = file_ended(r, t, rc);
			if (step != STEP_NEXT && step != STEP_AGAIN)
				s->done[k] = true;
			if (step != STEP_NEXT)
				return step;
			s->done[k] = true;
		}
		for (k = 0; k < s->width; k++)
			if (s->have[k] && (best == UINT_MAX || s->pend[k].ts_ns < s->pend[best].ts_ns ||
					   (s->tie_last && s->pend[k].ts_ns == s->pend[best].ts_ns)))
				best = k;
		if (best == UINT_MAX) {
			s->in_file = false;
			s->f += (int)s->width;
			continue;
		}
		*p = s->pend[best];
		s->have[best] = false;
		s->side = best;
		*tp = s->traces[s->f + (int)best];
		s->files[s->f + (int)best].records++;
		s->files[s->f + (int)best].bytes += p->caplen;
		note_ts(r, *tp, p);
		return STEP_NEXT;
	}
}

void source_ts_step(struct replay *r, const struct trace *t, const struct pkt *p)
{
	struct source *s = &r->src;

	if (p->recno <= 1)
		return;
	if (p->ts_ns > s->prev_ts + TS_JUMP_NS) {
		uint64_t d = p->ts_ns - s->prev_ts;
		double wait_s = (double)d / 1e9 * (double)r->plan.speed_den / (double)r->plan.speed_num;

		if (s->jump_warned || !r->plan.ts_warn_jump)
			return;
		s->jump_warned = true;
		log_warn("%s: record %llu is stamped %.0f s after the one before: the schedule waits %.0f s for it "
			 "(--maxsleep MS caps a wait; replay --info lists the jumps)",
			 trace_name(t), (unsigned long long)p->recno, (double)d / 1e9, wait_s);
	} else if (!s->back_warned && r->plan.ts_warn_back) {
		s->back_warned = true;
		log_warn("%s: record %llu is stamped %.6f s before the one before: it is sent at once, late "
			 "(replay --info counts such steps)",
			 trace_name(t), (unsigned long long)p->recno, (double)(s->prev_ts - p->ts_ns) / 1e9);
	}
}

void source_unread(struct replay *r)
{
	struct source *s = &r->src;

	if (s->ahead_i < s->ahead_n)
		(void)trace_unread(s->traces[s->f], &s->ahead[s->ahead_i]);
	s->ahead_i = s->ahead_n = 0;
}

int source_fd(const struct replay *r)
{
	return r->src.waiting ? trace_fd(r->src.waiting) : -1;
}

void source_stop(struct replay *r)
{
	if (r->src.live)
		live_stop(r->src.live); /* its stream's end tells the reader */
}

void source_report_open_warnings(struct replay *r)
{
	const struct source *s = &r->src;

	if (!s->in_file || s->pass || r->th.idx)
		return;
	for (unsigned k = 0; k < s->width; k++)
		if (s->width == 1 || !s->done[k])
			report_warnings(s->traces[s->f + (int)k]);
}

/* The checks of input @i (@t, just opened) that need it open: one reader, loops, link types. */
static int check_input(struct replay *r, const struct replay *main, int i, const struct trace *t)
{
	const struct opts *o = r->o;

	/* A named pipe or a device (standard input is refused by the options): one reader only. */
	if (!main && r->th.n > 1 && !trace_can_rewind(t)) {
		log_err("%s: not a regular file (a pipe or a device): --threads %u has every thread read it; add --preload (-K) to read it into memory once for all threads",
			o->files[i], r->th.n);
		return -ESPIPE;
	}
	if (o->run.loop != 1 && !trace_can_rewind(t)) {
		log_err("%s: cannot loop over a pipe; add --preload (-K) to hold it in memory", o->files[i]);
		return -ESPIPE;
	}
	/*
	 * The reader turns other link types into Ethernet frames; refuse the
	 * rest now.  Interfaces a pcapng declares later are checked per
	 * packet (the loop).
	 */
	for (unsigned k = 0; k < trace_ninterfaces(t); k++) {
		unsigned lt = trace_interface(t, k)->linktype;
		const char *n = linktype_name(lt);

		if (trace_linktype_replayable(lt))
			continue;
		log_err("%s: interface %u: link type %u (%s) cannot be replayed; Ethernet can, and LINUX_SLL, LINUX_SLL2, RAW, IPV4, IPV6, NULL and LOOP are turned into Ethernet",
			o->files[i], k, lt, n ? n : "unknown");
		return -ENOTSUP;
	}
	return 0;
}

/*
 * Every trace is checked first -- opened, its header read, let go: a bad
 * file is reported before a single packet leaves.  A --threads worker (@main: thread 0's run; NULL for
 * thread 0 itself) reads a preloaded trace from thread 0's copy: one copy
 * of the trace in memory, read once, whatever the number of threads.
 */
int source_open(struct replay *r, const struct replay *main)
{
	const struct opts *o = r->o;
	struct source *s = &r->src;
	struct trace_cfg tcfg = o->trace;
	char livepath[64], livename[64];

	s->nfiles = o->nfiles;
	s->width = o->run.dualfile ? 2 : o->run.merge ? (unsigned)MAX(o->nfiles, 1) : 1;
	s->tie_last = o->run.merge;
	s->traces = calloc((size_t)o->nfiles, sizeof(*s->traces));
	s->files = calloc((size_t)o->nfiles, sizeof(*s->files));
	s->pend = calloc(s->width, sizeof(*s->pend));
	s->have = calloc(s->width, sizeof(*s->have));
	s->done = calloc(s->width, sizeof(*s->done));
	if (!s->traces || !s->files || !s->pend || !s->have || !s->done) {
		log_err("out of memory");
		return -ENOMEM;
	}
	tcfg.will_rewind = o->run.loop != 1;
	tcfg.lazy = true; /* a regular file read in place: checked now, opened when its turn comes */
	/*
	 * AF_XDP may send a preloaded file's frames in place: room for the
	 * staging frames after them, one socket's for each thread and
	 * interface (open_lane() in src/run/setup.c).
	 */
	if (opts_xdp_inplace(o))
		tcfg.preload_spare_bytes = (size_t)MAX(r->th.n, 1u) * (o->intf2 ? 2 : 1) * TX_XDP_UMEM_BYTES;
	tcfg.stop = r->stop;
	tcfg.nonblock = true; /* a pipe without its next record: the loop waits for it, sending meanwhile */
	if (o->source_if) {
		char err[1024];

		/* The capture, then its stream as the one trace (src/live/live.c). */
		if (live_open(&s->live, o->source_if, o->live_buffer_kib, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return -ENODEV;
		}
		snprintf(livepath, sizeof(livepath), "/proc/self/fd/%d", live_fd(s->live));
		/* A frame's errors name the interface, not the pipe it comes through. */
		snprintf(livename, sizeof(livename), "--source-interface %s", live_name(s->live));
		tcfg.name = livename;
	}
	for (int i = 0; i < o->nfiles; i++) {
		const uint8_t *data;
		size_t len;
		int rc;

		if (main && trace_preloaded(main->src.traces[i], &data, &len)) {
			struct trace_cfg mcfg = tcfg;

			mcfg.preload = false;
			mcfg.preload_spare_bytes = 0;
			rc = trace_open_mem(&s->traces[i], o->files[i], data, len, &mcfg);
		} else {
			rc = trace_open(&s->traces[i], o->source_if ? livepath : o->files[i], &tcfg);
		}
		if (rc == -EINTR && *r->stop)
			return rc; /* stopped, not failed */
		if (rc < 0) {
			log_err("%s", s->traces[i] ? trace_strerror(s->traces[i]) : "out of memory");
			return rc;
		}
		rc = check_input(r, main, i, s->traces[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int source_start_live(struct replay *r)
{
	char err[1024];

	if (!r->src.live)
		return 0;
	if (live_start(r->src.live, r->o->run.duration_ns, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return -1;
	}
	/* As tcpdump and replay-rx say it: from here on, what arrives is forwarded. */
	if (!r->o->quiet && r->rep.err) {
		fprintf(r->rep.err, "replay: listening on %s, forwarding to %s\n", r->o->source_if,
			r->o->tx.ifname);
		fflush(r->rep.err);
	}
	return 0;
}

void source_close(struct replay *r)
{
	struct source *s = &r->src;

	live_close(s->live); /* before its stream: the thread ends, then the pipe is closed */
	s->live = NULL;
	if (s->traces)
		for (int i = 0; i < s->nfiles; i++)
			trace_close(s->traces[i]);
	free(s->traces);
	s->traces = NULL;
	free(s->files);
	free(s->pend);
	free(s->have);
	free(s->done);
	s->files = NULL;
	s->pend = NULL;
	s->have = s->done = NULL;
}
