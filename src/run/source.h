/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The trace source, the per-packet half (inline); the rest is
 * src/run/source.c.
 *
 * Contract.  source_read() yields every record of passes x files once, in
 * order: a file's records in its own order, files in the order given, or,
 * with --dualfile, each pair's two files merged by timestamp (a tie to the
 * pair's first file), with --merge all the files so (a tie to the file
 * given last, as mergecap).  A file is open from its segment to its end only.  Between passes each file is rewound and the
 * schedule starts a segment.  STEP_AGAIN when an input (a pipe) has no
 * whole record yet: nothing was consumed, source_fd() is what to wait on.
 * STEP_STOP at the end of the last pass (or a signal during a read),
 * STEP_ERROR on a read error (logged); STEP_EDGE, with src.hold_end, at
 * a file's end, not taken yet (loop.c's burst).  With src.batch (the burst path,
 * source_views()) a file is read ahead up to SOURCE_AHEAD records at a
 * time (trace_next_batch()), handed out in place; source_unread() puts
 * back what was not taken.  Callers: src/run/loop.c.
 */
#ifndef REPLAY_RUN_SOURCE_H
#define REPLAY_RUN_SOURCE_H

#include "run_int.h"
#include "replay/compiler.h"

/* A forward step between two records longer than this is worth a warning before it is waited out. */
#define TS_JUMP_NS (60 * NSEC_PER_SEC)

/* source_segment() - the start of the next file (or group of files), or of the next pass. */
enum step source_segment(struct replay *r);

/* source_file_end() - trace_next() on @t, the one file being read, gave @rc (not a packet). */
enum step source_file_end(struct replay *r, struct trace *t, int rc);

/* source_read_merge() - source_read() of files read side by side (--dualfile, --merge). */
enum step source_read_merge(struct replay *r, const struct trace **tp, struct pkt *p);

/* source_ts_step() - @p's timestamp jumped far ahead of, or stepped back from, the one before. */
void source_ts_step(struct replay *r, const struct trace *t, const struct pkt *p);

/*
 * source_unread() - the packets read ahead and not taken go back to their
 * file (trace_unread()): at the run's end its cursor is where the run
 * stopped taking them.
 */
void source_unread(struct replay *r);

/* source_fd() - after STEP_AGAIN: the descriptor to wait on for the rest of the record. */
int source_fd(const struct replay *r);

/* source_stop() - no more is read (--limit): a live capture ends too. */
void source_stop(struct replay *r);

/* source_report_open_warnings() - stopped inside a file of the first pass: its warnings are still said. */
void source_report_open_warnings(struct replay *r);

/* source_start_live() - --source-interface: the capture starts; 0 or -1 logged. */
int source_start_live(struct replay *r);

/* A timestamp jump a replay at recorded timing would wait out, or a step back: say so, once each. */
static inline void note_ts(struct replay *r, const struct trace *t, const struct pkt *p)
{
	struct source *s = &r->src;

	if (unlikely(p->ts_ns > s->prev_ts + TS_JUMP_NS || p->ts_ns < s->prev_ts))
		source_ts_step(r, t, p);
	s->prev_ts = p->ts_ns;
}

/* source_read() - the next record into @p, from *@tp (see the top). */
static inline __attribute__((always_inline)) enum step source_read(struct replay *r,
								  const struct trace **tp,
								  struct pkt *p)
{
	struct source *s = &r->src;

	if (unlikely(s->width > 1))
		return source_read_merge(r, tp, p);
	for (;;) {
		struct trace *t;
		enum step step;
		int rc;

		if (unlikely(!s->in_file)) {
			step = source_segment(r);
			if (step != STEP_NEXT)
				return step;
		}
		t = s->traces[s->f];
		rc = trace_next(t, p);
		if (likely(rc == 1)) {
			*tp = t;
			s->files[s->f].records++;
			s->files[s->f].bytes += p->caplen;
			note_ts(r, t, p);
			return STEP_NEXT;
		}
		/*
		 * A burst's views into this file are not staged yet: its end (which
		 * lets the file go, and may end a pass) is found again after them.
		 */
		if (unlikely(s->hold_end) && rc == 0)
			return STEP_EDGE;
		step = source_file_end(r, t, rc);
		if (step != STEP_NEXT)
			return step;
	}
}

/*
 * source_views() - the burst path's read (src.batch, one file at a time):
 * the next views of the file being read, in place in its read-ahead, at
 * most @max of them: *@vp, *@np (at least 1) and their file *@tp, taken
 * (src.ahead_i is past them; put one back by lowering it).  The views
 * live as trace_next()'s, their struct pkt until the next call.  With
 * @hold (views taken before still wait to be staged) a file's end is
 * STEP_EDGE, not taken.  The other steps as source_read()'s; the caller
 * counts the records per file.
 */
static inline __attribute__((always_inline)) enum step
source_views(struct replay *r, struct pkt **vp, unsigned *np, struct trace **tp, unsigned max, bool hold)
{
	struct source *s = &r->src;

	for (;;) {
		struct trace *t;
		enum step step;
		int rc;

		if (unlikely(!s->in_file)) {
			step = source_segment(r);
			if (step != STEP_NEXT)
				return step;
		}
		t = s->traces[s->f];
		if (likely(s->ahead_i < s->ahead_n)) {
			unsigned k = MIN(max, s->ahead_n - s->ahead_i);

			*vp = &s->ahead[s->ahead_i];
			*np = k;
			*tp = t;
			s->ahead_i += k;
			return STEP_NEXT;
		}
		rc = trace_next_batch(t, s->ahead, SOURCE_AHEAD);
		if (likely(rc > 0)) {
			s->ahead_i = 0;
			s->ahead_n = (unsigned)rc;
			continue;
		}
		s->ahead_i = s->ahead_n = 0;
		/* Views taken from this file wait to be staged: its end is found again after them. */
		if (hold && rc == 0)
			return STEP_EDGE;
		step = source_file_end(r, t, rc);
		if (step != STEP_NEXT)
			return step;
	}
}

#endif
