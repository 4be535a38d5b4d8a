// SPDX-License-Identifier: BSD-2-Clause
/*
 * The send loop: the only file that knows every module.  Building the
 * pipeline and taking it down is src/run/setup.c (replay_open(),
 * replay_close()); here is what happens to each packet.  The loop is
 * "packets from one or more sources, a deadline-ordered queue, one or
 * more output lanes":
 *
 *   source: source_next()                                  output lane: struct lane
 *     source_read()        passes x files, trace_next()
 *     read counted once    route() picks the lane          send_one(lane, packet, deadline)
 *     edit_chain_apply()   -- DROP, error --+                tx_send() (stage) -> sched_wait()
 *     sched_deadline()                      |                -> tx_flush() (kick)
 *           |                               |                back-pressure: wait_for_room()
 *           +--- (packet, lane, deadline) --|------------->        |
 *                                           v                      |
 *                                       account(lane) <-- sent, failed (settle_sent(), settle_failed())
 *
 * Every packet read is counted once (source_next()), routed to exactly one
 * lane before it is edited, and ends in exactly one fate -- sent, filtered,
 * or failed with a reason logged -- through account(), which counts it in
 * the run's totals and its lane's, and owns the one rate-limited logger of
 * per-packet failures.  Back-pressure is waited out in wait_for_room() and
 * counted as a retry, never a drop.  After the run the scheduler's own
 * account is taken whole (sched_report() into stats.sched).
 *
 * Batching.  The trace's view of a packet is only promised to outlive a
 * bounded amount of later traffic (trace_next(): TRACE_VIEW_KEEP_BYTES for
 * pipes and converted packets; until close for files), so each packet is
 * staged at once: copied into its lane's method's own memory (a ring
 * frame, a UMEM frame, an sendmmsg slot).  Each lane keeps a small FIFO of
 * what is staged (record, deadline, length) until the method reports each
 * one handed to the kernel or failed.  When does a lane kick?
 *   --topspeed            when its batch is full (large batches, few syscalls);
 *   honouring timestamps  a packet whose deadline is still ahead is staged
 *                         first, then waited for, then kicked at once -- the
 *                         kick is all that stands between deadline and wire;
 *                         before waiting, whatever is already staged in any
 *                         lane (due or late) is kicked, so only packets that
 *                         are already due ever share a batch.
 * With two lanes, a packet staged in one kicks what the other holds first,
 * so a batch is always a run of consecutive packets and the order across
 * the two ports is the schedule's, late or at top speed.
 * Two lanes (-i and -I) share one clock and one schedule: each packet has
 * one absolute deadline whichever lane it leaves by.
 *
 * What is built and what is still to come:
 *   sources  source_read() walks passes x files; source_read_dual() walks
 *            passes x pairs of files (--dualfile), merging each pair by
 *            timestamp, its file's place naming the lane; source_next()
 *            yields each packet with its lane and deadline.  More sources
 *            (a live capture) are more producers of such (packet, lane,
 *            deadline) triples.
 *   queue    replay/dqueue.h: a fixed-capacity min-heap keyed by (deadline,
 *            insertion order).  With impairment (--impair, --loss, ...)
 *            run_impaired() puts it between source_next() and send_one():
 *            a delayed frame (or copy) is copied into a slot made resident
 *            before the run (replay/slots.h) and held there, and the loop
 *            sends whichever is due first, the source's next packet or the
 *            queue's head.  With no impairment nothing reorders, so run()
 *            does not use it: a packet goes straight from the source to
 *            its lane.
 *   lanes    struct lane: a method's handle, its staged FIFO and its
 *            counters.  route() picks the lane before the packet is edited
 *            (--split, -c).  With --threads each thread has its own lanes,
 *            one per interface (src/run/threads.c).
 *   fates    a packet dropped by impairment is FATE_IMPAIRED, counted in
 *            account() like every other end; a copy an action adds is
 *            counted when it is made (impair_copies), so that
 *            read + copies = sent + filtered + failed + impaired-dropped.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/live.h"
#include "run_int.h"
#include "replay/compiler.h"
#include "replay/flowhash.h"
#include "replay/log.h"

/* Per-packet failures of each kind (send, edit) logged in full before the rest are only counted. */
#define FAIL_LOG_MAX 10

enum step {
	STEP_NEXT,  /* go on with the next packet */
	STEP_STOP,  /* a signal or the limit ended the run */
	STEP_ERROR, /* the run cannot go on (interface gone) */
};

/* What became of a packet read: each ends in exactly one, counted by account(). */
enum fate {
	FATE_SENT,        /* handed to the kernel (or written) by the method */
	FATE_FILTERED,    /* dropped on purpose by the edit chain */
	FATE_FAILED,      /* could not be converted or sent; the reason is logged */
	FATE_EDIT_FAILED, /* the edit chain failed on it; the reason is logged */
	FATE_IMPAIRED,    /* dropped by an impairment action, or for want of room in its queue */
};

/*
 * The one rate-limited logger of per-packet failures: the first
 * FAIL_LOG_MAX of each kind (edit, send) in full, then one line saying the
 * rest are only counted.  @e names the packet (file, record, offset); NULL
 * when @why names it itself.  @n > 1: one line for the @n staged packets
 * from @e on.
 */
static void log_failure(struct replay *r, enum fate fate, const struct staged *e, unsigned n,
			const char *why)
{
	bool edit = fate == FATE_EDIT_FAILED;
	uint64_t *logged = edit ? &r->edit_fails_logged : &r->fails_logged;

	if (*logged < FAIL_LOG_MAX) {
		if (n > 1)
			log_err("%s: records from %llu: %u staged packets not sent: %s", trace_name(e->t),
				(unsigned long long)e->recno, n, why);
		else if (e)
			log_err("%s: record %llu at offset 0x%llx: %s", trace_name(e->t),
				(unsigned long long)e->recno, (unsigned long long)e->off, why);
		else
			log_err("%s", why);
	} else if (*logged == FAIL_LOG_MAX) {
		log_err("further %s failures are counted but not shown", edit ? "edit" : "send");
	}
	(*logged)++;
}

/* @n packets of @bytes in all were sent by lane @l: the counts account() and settle_sent() keep. */
static inline void count_sent(struct lane *l, uint64_t n, uint64_t bytes)
{
	l->st.sent += n;
	l->st.bytes_sent += bytes;
}

/*
 * account() - the end of one packet read, counted once, in lane @l's
 * counters (the run's totals are their sums).  @e is the packet (NULL when filtered, or when
 * @why names it); @why is a failure's reason, NULL when it was already
 * logged.  A sent packet's send error is measured at l->settle_ns, when
 * its kick returned.
 */
static inline void account(struct replay *r, struct lane *l, enum fate fate,
			   const struct staged *e, const char *why)
{
	switch (fate) {
	case FATE_SENT:
		count_sent(l, 1, e->caplen);
		if (r->slog)
			sendlog_add(r->slog, e->id, e->recno, l->kick_ns);
		if (r->timed) {
			if (l->settle_ns >= e->deadline_ns) {
				stats_add_err(&r->st, l->settle_ns - e->deadline_ns);
			} else {
				r->st.early++;
				stats_add_err(&r->st, 0);
			}
		}
		break;
	case FATE_FILTERED:
		l->st.filtered++;
		break;
	case FATE_IMPAIRED:
		l->st.impair_dropped++;
		break;
	case FATE_FAILED:
	case FATE_EDIT_FAILED:
		l->st.failed++;
		if (why)
			log_failure(r, fate, e, 1, why);
		break;
	}
}

/* The run's totals so far: the sums of the lanes' counters. */
#define LANES_SUM(r, field)                                                                        \
	({                                                                                         \
		uint64_t sum_ = 0;                                                                 \
		for (unsigned i_ = 0; i_ < (r)->nlanes; i_++)                                      \
			sum_ += (r)->lane[i_].st.field;                                             \
		sum_;                                                                              \
	})

void replay_collect(struct replay *r)
{
	struct stats *st = &r->st;

	st->read = LANES_SUM(r, read);
	st->sent = LANES_SUM(r, sent);
	st->failed = LANES_SUM(r, failed);
	st->retried = LANES_SUM(r, retried);
	st->filtered = LANES_SUM(r, filtered);
	st->bytes_sent = LANES_SUM(r, bytes_sent);
	st->impair_dropped = LANES_SUM(r, impair_dropped);
	st->impair_copies = LANES_SUM(r, impair_copies);
	if (r->imp.im)
		st->impair_qdropped = impair_stats(r->imp.im)->queue_dropped;
	st->nlanes = r->nlanes;
	for (unsigned i = 0; i < r->nlanes; i++)
		st->lane[i] = r->lane[i].st;
}

/*
 * --limit counts packets that end sent or failed: every one read and not
 * filtered, including those still staged (they will end one or the other).
 */
static bool limit_counted(const struct replay *r)
{
	return LANES_SUM(r, read) - LANES_SUM(r, filtered) >= r->o->run.limit;
}

static inline bool limit_reached(const struct replay *r)
{
	return unlikely(r->o->run.limit) && limit_counted(r);
}

/* A trace read slower than this (a disk page fault, a pipe's wait; a mapped page costs ~1 us) is noted. */
#define READ_SLOW_NS 10000u
/* A live input's wait for held frames ends this long before the earliest deadline; the timer does the rest. */
#define WAIT_INPUT_MARGIN_NS 500000u

static inline bool backpressure(int rc)
{
	return rc == -EAGAIN || rc == -ENOBUFS || rc == -EINTR;
}

/*
 * wait_for_room() - lane @l's method answered @rc, back-pressure: wait
 * until it may have room, counted as a retry (a signal's -EINTR is not
 * one).  false, without waiting, when a signal asks the run to stop instead.
 */
static bool wait_for_room(struct replay *r, struct lane *l, int rc)
{
	if (*r->stop)
		return false;
	if (rc != -EINTR)
		l->st.retried++;
	tx_wait(l->tx, rc);
	if (r->timed)
		sched_note(&r->sched, WAIT_CAUSE_BACKPRESSURE);
	return true;
}

/* The oldest staged packet leaves the lane's FIFO. */
static inline void unstage(struct lane *l)
{
	/* A compare, not a modulo: qcap is not a constant, and a division costs tens of cycles. */
	if (++l->qhead == l->qcap)
		l->qhead = 0;
	l->qn--;
}

/* The @k oldest staged packets of @l were handed to the kernel: count them, measure their send error. */
static void settle_sent(struct replay *r, struct lane *l, unsigned k)
{
	struct sched_start_report *sr = &r->st.start;

	if (likely(!r->timed && !r->slog && !sr->set)) {
		/* Top speed, nothing measured per packet: account()'s FATE_SENT for @k at once. */
		uint64_t bytes = 0;

		for (unsigned i = 0; i < k; i++) {
			bytes += l->q[l->qhead].caplen;
			unstage(l);
		}
		count_sent(l, k, bytes);
		return;
	}
	if (r->timed || unlikely(sr->set && !sr->sent))
		l->settle_ns = sched_now(&r->sched);
	/* --start-at: the first kick to return is the start error's end. */
	if (unlikely(sr->set && !sr->sent)) {
		sr->sent = true;
		sr->first_send_ns = l->settle_ns;
		sr->error_ns = (int64_t)(l->settle_ns - sr->origin_ns);
	}
	for (unsigned i = 0; i < k; i++) {
		account(r, l, FATE_SENT, &l->q[l->qhead], NULL);
		unstage(l);
	}
}

/* The oldest staged packet of @l failed for @why. */
static void settle_failed(struct replay *r, struct lane *l, const char *why)
{
	account(r, l, FATE_FAILED, &l->q[l->qhead], why);
	unstage(l);
}

/* Every packet staged in @l fails for @why and the method forgets them: nothing of them is sent. */
static void fail_staged(struct replay *r, struct lane *l, const char *why)
{
	if (l->qn > 1) {
		/* One line for all of them; each is then counted without another. */
		log_failure(r, FATE_FAILED, &l->q[l->qhead], l->qn, why);
		why = NULL;
	}
	while (l->qn)
		settle_failed(r, l, why);
	tx_discard(l->tx);
}

/*
 * Kick lane @l until nothing is staged in it: every staged packet ends
 * handed over or failed.  Back-pressure is waited out (counted as retried)
 * unless a signal asks to stop, which fails what is left.
 */
static enum step flush_lane(struct replay *r, struct lane *l)
{
	while (l->qn) {
		int rc;

		if (r->slog)
			l->kick_ns = sched_now(&r->sched);
		rc = tx_flush(l->tx);

		if (rc > 0) {
			settle_sent(r, l, (unsigned)rc < l->qn ? (unsigned)rc : l->qn);
			continue;
		}
		if (rc == 0) {
			/* The method lost count of what it holds: a bug, not the network. */
			fail_staged(r, l, "internal error: the method reported nothing staged");
			return STEP_ERROR;
		}
		if (backpressure(rc)) {
			if (wait_for_room(r, l, rc))
				continue;
			fail_staged(r, l, "stopped by a signal while waiting for room to send");
			return STEP_STOP;
		}
		settle_failed(r, l, tx_strerror(l->tx));
		if (tx_fatal(rc)) {
			fail_staged(r, l, tx_strerror(l->tx));
			return STEP_ERROR;
		}
	}
	return STEP_NEXT;
}

/* Kick every lane (lane 0 first); the worst outcome of them: an error, a stop, or go on. */
static enum step flush_all(struct replay *r)
{
	enum step worst = STEP_NEXT;

	for (unsigned i = 0; i < r->nlanes; i++) {
		enum step step = flush_lane(r, &r->lane[i]);

		if (step == STEP_ERROR || (step == STEP_STOP && worst == STEP_NEXT))
			worst = step;
	}
	return worst;
}

/*
 * Kick every lane but @l.  A lane's batch is thus always a run of packets
 * consecutive in the schedule: a reply staged on -I never waits behind a
 * later request staged on -i, whether the run is late or at top speed.
 */
static enum step flush_others(struct replay *r, const struct lane *l)
{
	enum step worst = STEP_NEXT;

	for (unsigned i = 0; i < r->nlanes; i++) {
		enum step step;

		if (&r->lane[i] == l || !r->lane[i].qn)
			continue;
		step = flush_lane(r, &r->lane[i]);
		if (step == STEP_ERROR || (step == STEP_STOP && worst == STEP_NEXT))
			worst = step;
	}
	return worst;
}

/* @p was taken by lane @l's method: the FIFO remembers it, as @e says. */
static inline void stage_push_entry(struct lane *l, const struct staged *e)
{
	unsigned i = l->qhead + l->qn;

	l->q[i < l->qcap ? i : i - l->qcap] = *e;
	l->qn++;
}

/* stage_one() when the method refused @p with @rc: kick, wait, or count it failed. */
static __attribute__((noinline)) enum step stage_refused(struct replay *r, struct lane *l,
							 const struct trace *t, const struct pkt *p,
							 uint64_t deadline, int rc)
{
	struct staged e = { .t = t, .recno = p->recno, .off = p->off, .deadline_ns = deadline,
			    .caplen = p->caplen, .id = r->slog ? sendlog_id(p) : 0 };

	for (;; rc = tx_send(l->tx, p, 1)) {
		if (rc == 1) {
			stage_push_entry(l, &e);
			if (r->decode)
				decode_pkt(r->decode, p);
			return STEP_NEXT;
		}
		if (backpressure(rc) && l->qn) {
			enum step step = flush_lane(r, l);

			if (step == STEP_NEXT)
				continue;
			account(r, l, FATE_FAILED, &e, "not sent: the run stopped before it");
			return step;
		}
		if (backpressure(rc)) {
			if (wait_for_room(r, l, rc))
				continue;
			account(r, l, FATE_FAILED, &e, "stopped by a signal while waiting for room to send");
			return STEP_STOP;
		}
		account(r, l, FATE_FAILED, &e, tx_strerror(l->tx));
		if (tx_fatal(rc)) {
			fail_staged(r, l, tx_strerror(l->tx));
			return STEP_ERROR;
		}
		return STEP_NEXT;
	}
}

/*
 * Stage @p in lane @l (copy it into the method's memory) until it is taken
 * or cannot be.  A full stage is kicked; a method still full after that is
 * waited for (stage_refused()).  Taken at once is the common case, inline:
 * the FIFO entry is written in place.
 */
static inline enum step stage_one(struct replay *r, struct lane *l, const struct trace *t,
				  const struct pkt *p, uint64_t deadline)
{
	int rc = tx_send(l->tx, p, 1);

	if (likely(rc == 1)) {
		unsigned i = l->qhead + l->qn;
		struct staged *e = &l->q[i < l->qcap ? i : i - l->qcap];

		*e = (struct staged){ .t = t, .recno = p->recno, .off = p->off, .deadline_ns = deadline,
				      .caplen = p->caplen };
		l->qn++;
		/*
		 * --send-log's identity and -v's decoding share one branch, the
		 * one --send-log alone had: -v costs nothing when not given.
		 */
		if (unlikely(r->per_pkt)) {
			if (r->slog)
				e->id = sendlog_id(p);
			if (r->decode)
				decode_pkt(r->decode, p);
		}
		return STEP_NEXT;
	}
	return stage_refused(r, l, t, p, deadline, rc);
}

/*
 * One packet due at @deadline on lane @l: staged, and kicked when its time
 * comes (see the top of this file).  Every packet ends sent or failed.
 * Inline in run()'s loop (send_one() for the other callers): a call's frame
 * was ~20 instructions of every packet.
 */
static inline __attribute__((always_inline)) enum step
send_one_inline(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *p,
		uint64_t deadline)
{
	uint64_t target = 0;
	enum step step;

	if (r->timed) {
		uint64_t now = sched_now(&r->sched);

		target = sched_paced(&r->sched, deadline);
		if (target <= now)
			target = 0;
	}
	if (target) {
		/* Not due yet: what is staged (in any lane) is, so it goes now rather than after this wait. */
		step = flush_all(r);
		if (step != STEP_NEXT) {
			struct staged e = { .t = t, .recno = p->recno, .off = p->off };

			account(r, l, FATE_FAILED, &e, "not sent: the run stopped before it");
			return step;
		}
		step = stage_one(r, l, t, p, deadline);
		if (step != STEP_NEXT)
			return step;
		/* A signal cuts the wait short; the staged packet then goes at once, as the last. */
		while (sched_wait_paced(&r->sched, deadline, target) == -EINTR)
			if (*r->stop)
				break;
		step = flush_lane(r, l);
	} else {
		/* Already due: returns at once, but counts a stall (and shifts) if it is late. */
		if (r->timed)
			sched_wait(&r->sched, deadline);
		/* The other lane's staged packets are earlier ones: they leave first (order across ports). */
		step = r->nlanes > 1 ? flush_others(r, l) : STEP_NEXT;
		if (step != STEP_NEXT) {
			struct staged e = { .t = t, .recno = p->recno, .off = p->off };

			account(r, l, FATE_FAILED, &e, "not sent: the run stopped before it");
			return step;
		}
		step = stage_one(r, l, t, p, deadline);
		if (step == STEP_NEXT && l->qn >= l->qcap)
			step = flush_lane(r, l);
	}
	if (step != STEP_NEXT)
		return step;
	if (*r->stop || limit_reached(r)) {
		step = flush_all(r);
		return step == STEP_NEXT ? STEP_STOP : step;
	}
	return STEP_NEXT;
}

static enum step send_one(struct replay *r, struct lane *l, const struct trace *t,
			  const struct pkt *p, uint64_t deadline)
{
	return send_one_inline(r, l, t, p, deadline);
}

static void report_warnings(const struct trace *t)
{
	const char *first;
	uint64_t n = trace_warnings(t, &first);

	if (n == 1)
		log_warn("%s", first);
	else if (n > 1)
		log_warn("%s (and %llu more warnings)", first, (unsigned long long)(n - 1));
}

/* Packets sent, or staged and going to end sent or failed, in every lane. */
static uint64_t sent_or_staged(const struct replay *r)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < r->nlanes; i++)
		n += r->lane[i].st.sent + r->lane[i].qn;
	return n + dq_len(&r->imp.dq); /* held back by impairment: they will end sent or failed too */
}

/* The status line or --stats lines, at run clock @now. */
static void progress_in_now(struct replay *r, uint64_t now, struct progress_in *in)
{
	*in = (struct progress_in){
		.sent = LANES_SUM(r, sent),
		.bytes = LANES_SUM(r, bytes_sent),
		.failed = LANES_SUM(r, failed),
		.elapsed_ns = now > r->st.start_ns ? now - r->st.start_ns : 0,
		.err_p99_ns = r->st.send_err.count ? hist_pct(&r->st.send_err, 0.99) : UINT64_MAX,
		.stalls = r->sched.late_stalls,
	};
}

/* The run's totals now, with what is in flight (staged, held back): a pass's snapshot (replay/stats.h). */
static void counts_now(const struct replay *r, struct stats_counts *c)
{
	*c = (struct stats_counts){
		.read = LANES_SUM(r, read),
		.sent = LANES_SUM(r, sent),
		.failed = LANES_SUM(r, failed),
		.retried = LANES_SUM(r, retried),
		.filtered = LANES_SUM(r, filtered),
		.bytes_sent = LANES_SUM(r, bytes_sent),
		.impair_dropped = LANES_SUM(r, impair_dropped),
		.impair_copies = LANES_SUM(r, impair_copies),
		.in_flight = dq_len(&r->imp.dq),
	};
	for (unsigned i = 0; i < r->nlanes; i++)
		c->in_flight += r->lane[i].qn;
}

/*
 * The open pass is recorded at run clock @now (--stats-json's "passes"):
 * what happened during it.  Nothing is kicked for it (a batch may span two
 * passes): what is staged or held back then is counted as in flight.
 */
static void pass_record(struct replay *r, uint64_t now)
{
	struct stats_counts c;

	counts_now(r, &c);
	if (stats_pass_end(&r->st, now, &c) < 0)
		log_warn("--stats-json: out of memory for the loop passes; only the totals are written");
}

/* A pass over the file list begins at run clock @now: remember the counters, to tell at its end what it did. */
static void pass_begin(struct replay *r, uint64_t now)
{
	struct source *s = &r->src;

	if (r->st.passes_on) {
		struct stats_counts c;

		counts_now(r, &c);
		stats_pass_begin(&r->st, now, &c);
	}

	s->read_before = LANES_SUM(r, read);
	s->sent_before = sent_or_staged(r);
	s->filtered_before = LANES_SUM(r, filtered);
	s->failed_before = LANES_SUM(r, failed);
	if (r->chain)
		edit_chain_set_pass(r->chain, s->pass); /* --unique-ip's addresses for this pass */
}

/* A pass ended: STEP_NEXT to go on with the next, or why not. */
static enum step pass_end(struct replay *r)
{
	const struct source *s = &r->src;
	uint64_t read = LANES_SUM(r, read);

	if (r->progress_mode == PROGRESS_STATS && !r->o->run.stats_s) {
		struct progress_in in;
		uint64_t now;

		/* --stats 0: the pass's packets are out and counted before its line. */
		if (flush_all(r) == STEP_ERROR)
			return STEP_ERROR;
		now = sched_now(&r->sched);
		progress_in_now(r, now, &in);
		progress_pass_end(&r->progress, now, &in);
	}

	/* Endless loops over traces without packets would spin forever doing nothing. */
	if (read == s->read_before) {
		/* --threads: this thread's shard of a pass was empty, not the traces. */
		if (!*r->stop && !(r->nshards > 1 && r->src.skipped))
			log_warn("the traces hold no packets; nothing to send");
		return STEP_STOP;
	}
	/* ... and so would endless loops in which every packet is filtered out or fails. */
	if (r->o->run.loop == 0 && sent_or_staged(r) == s->sent_before && !*r->stop) {
		log_err("--loop 0: a whole pass over the traces sent nothing (%llu packets read: %llu filtered or excluded, %llu failed); stopping",
			(unsigned long long)(read - s->read_before),
			(unsigned long long)(LANES_SUM(r, filtered) - s->filtered_before),
			(unsigned long long)(LANES_SUM(r, failed) - s->failed_before));
		return STEP_ERROR;
	}
	return STEP_NEXT;
}

/* A forward step between two records longer than this is worth a warning before it is waited out. */
#define TS_JUMP_NS (60 * NSEC_PER_SEC)

static __attribute__((noinline, cold)) void warn_jump(struct replay *r, const struct trace *t,
							 const struct pkt *p)
{
	uint64_t d = p->ts_ns - r->src.prev_ts;
	uint64_t speed_num = r->o->sched.speed.num ? r->o->sched.speed.num : 1;
	uint64_t speed_den = r->o->sched.speed.den ? r->o->sched.speed.den : 1;
	double wait_s = (double)d / 1e9 * (double)speed_den / (double)speed_num;

	r->src.jump_warned = true;
	log_warn("%s: record %llu is stamped %.0f s after the one before: the schedule waits %.0f s for it "
		 "(--maxsleep MS caps a wait; replay --info lists the jumps)",
		 trace_name(t), (unsigned long long)p->recno, (double)d / 1e9, wait_s);
}

static __attribute__((noinline, cold)) void warn_back(struct replay *r, const struct trace *t,
							 const struct pkt *p)
{
	r->src.back_warned = true;
	log_warn("%s: record %llu is stamped %.6f s before the one before: it is sent at once, late "
		 "(replay --info counts such steps)",
		 trace_name(t), (unsigned long long)p->recno, (double)(r->src.prev_ts - p->ts_ns) / 1e9);
}

/* A timestamp jump a replay at recorded timing would wait out, or a step back: say so, once each. */
static inline void note_ts(struct replay *r, const struct trace *t, const struct pkt *p)
{
	const struct opts *o = r->o;
	struct source *s = &r->src;

	if (unlikely(p->ts_ns > s->prev_ts + TS_JUMP_NS) && p->recno > 1 && !s->jump_warned &&
	    o->sched.mode == SCHED_MODE_TRACE && !o->sched.max_gap_ns)
		warn_jump(r, t, p);
	else if (unlikely(p->ts_ns < s->prev_ts) && p->recno > 1 && !s->back_warned &&
		 o->sched.mode == SCHED_MODE_TRACE)
		warn_back(r, t, p);
	s->prev_ts = p->ts_ns;
}

/*
 * The start of the next pair of files (or of the next pass): STEP_NEXT
 * with s->f at the first file to read, or why not.  Shared by both sources;
 * @step is how many files a segment takes (1, or 2 with --dualfile).
 */
static enum step source_segment(struct replay *r, int step)
{
	const struct opts *o = r->o;
	struct source *s = &r->src;

	if (s->f == o->nfiles) {
		enum step st = pass_end(r);

		if (st != STEP_NEXT)
			return st;
		s->pass++;
		s->f = 0;
		/* The last pass is recorded at the run's end, with what is sent after it (replay_main_hooked()). */
		if (o->run.loop && s->pass >= o->run.loop)
			return STEP_STOP;
		if (r->st.passes_on) {
			uint64_t now = sched_now(&r->sched);

			pass_record(r, now);
			pass_begin(r, now);
		} else {
			pass_begin(r, 0);
		}
	}
	if (s->pass || s->f)
		sched_segment(&r->sched, s->pass && !s->f ? o->run.loopdelay_ns : 0);
	for (int k = 0; k < step; k++) {
		struct trace *t = r->traces[s->f + k];

		if (s->pass && trace_rewind(t) < 0) {
			log_err("%s", trace_strerror(t));
			return STEP_ERROR;
		}
	}
	s->in_file = true;
	return STEP_NEXT;
}

static void wait_input(struct replay *r, const struct trace *t);

/*
 * source_read() - the next record of passes x files into @p, from *@tp:
 * STEP_NEXT; or STEP_STOP at the end of the last pass (or a signal while
 * a pipe was awaited), STEP_ERROR on a read error (logged).  Each file's
 * warnings are reported at its end in the first pass.
 */
static inline __attribute__((always_inline)) enum step source_read(struct replay *r,
								  const struct trace **tp,
								  struct pkt *p)
{
	struct source *s = &r->src;

	for (;;) {
		struct trace *t;
		int rc;

		if (unlikely(!s->in_file)) {
			enum step step = source_segment(r, 1);

			if (step != STEP_NEXT)
				return step;
		}
		t = r->traces[s->f];
		rc = trace_next(t, p);
		if (likely(rc == 1)) {
			*tp = t;
			note_ts(r, t, p);
			return STEP_NEXT;
		}
		if (rc == -EAGAIN) {
			wait_input(r, t);
			if (*r->stop || r->imp.limit_hit || r->imp.wait_failed)
				return STEP_STOP;
			continue;
		}
		s->in_file = false;
		if (!s->pass && !r->shard)
			report_warnings(t); /* --threads: thread 0 says it, once */
		if (rc == -EINTR && *r->stop)
			return STEP_STOP; /* a signal while waiting for a pipe: stopped, not failed */
		if (rc < 0) {
			log_err("%s", trace_strerror(t));
			return STEP_ERROR;
		}
		s->f++;
	}
}

/*
 * source_read_dual() - --dualfile (tcpreplay's -2): the files in pairs, the
 * first of each pair for -i, the second for -I, read side by side and
 * merged into one schedule by timestamp: each file's next packet is read
 * ahead and the earlier of the two goes first; a tie goes to the first
 * file, as tcpreplay 4.6 breaks it.  r->src.side is the packet's file in
 * its pair, so its lane.  Each file is read in its own order: a file whose
 * timestamps step back is not sorted, only interleaved.  Returns as
 * source_read().
 */
static enum step source_read_dual(struct replay *r, const struct trace **tp, struct pkt *p)
{
	struct source *s = &r->src;

	for (;;) {
		unsigned k;

		if (unlikely(!s->in_file)) {
			enum step step = source_segment(r, 2);

			if (step != STEP_NEXT)
				return step;
			s->have[0] = s->have[1] = s->done[0] = s->done[1] = false;
		}
		for (k = 0; k < 2; k++) {
			struct trace *t = r->traces[s->f + (int)k];
			int rc;

			if (s->have[k] || s->done[k])
				continue;
			rc = trace_next(t, &s->pend[k]);
			if (rc == 1) {
				s->have[k] = true;
				continue;
			}
			if (rc == -EAGAIN) {
				wait_input(r, t);
				if (*r->stop || r->imp.limit_hit || r->imp.wait_failed)
					return STEP_STOP;
				k--; /* this file again */
				continue;
			}
			s->done[k] = true;
			if (!s->pass && !r->shard)
				report_warnings(t); /* --threads: thread 0 says it, once */
			if (rc == -EINTR && *r->stop)
				return STEP_STOP;
			if (rc < 0) {
				log_err("%s", trace_strerror(t));
				return STEP_ERROR;
			}
		}
		if (!s->have[0] && !s->have[1]) {
			s->in_file = false;
			s->f += 2;
			continue;
		}
		/* The earlier one; a tie keeps file order. */
		k = !s->have[0] || (s->have[1] && s->pend[1].ts_ns < s->pend[0].ts_ns);
		*p = s->pend[k];
		s->have[k] = false;
		s->side = k;
		*tp = r->traces[s->f + (int)k];
		note_ts(r, *tp, p);
		return STEP_NEXT;
	}
}

/* Stopped inside a file (or a --dualfile pair) of the first pass: its warnings are still said. */
static void report_open_warnings(struct replay *r)
{
	if (!r->src.in_file || r->src.pass || r->shard)
		return;
	if (!r->o->run.dualfile)
		report_warnings(r->traces[r->src.f]);
	else
		for (int k = 0; k < 2; k++)
			if (!r->src.done[k])
				report_warnings(r->traces[r->src.f + k]);
}

/*
 * route() - the lane packet @p (as read, before any edit) leaves by: the
 * only one; or, with -I, the one --split's classifier or the -c cache
 * names (replay/split.h).  NULL: the cache says not to send it.
 */
static int side_of(struct replay *r, const struct pkt *p)
{
	if (r->cache)
		return split_cache_side(r->cache, p->recno);
	if (r->prep_sides)
		/* A record outside the sidecar goes to intf1, where the chain fails it, naming why. */
		return edit_prep_side(r->prep, p->recno) == SPLIT_INTF2 ? SPLIT_INTF2 : SPLIT_INTF1;
	if (p->linktype != LINKTYPE_ETHERNET)
		return SPLIT_INTF2; /* not classified (replay/split.h): it fails there, counted on intf2 */
	return split_classify(r->split, p);
}

static struct lane *route2(struct replay *r, const struct pkt *p)
{
	int side = side_of(r, p);

	r->side = side;
	if (side == SPLIT_INTF2)
		return &r->lane[1];
	return side == SPLIT_INTF1 ? &r->lane[0] : NULL;
}

static inline struct lane *route(struct replay *r, const struct pkt *p)
{
	if (likely(r->nlanes == 1)) {
		/*
		 * -w or one -i with -c/--split: the side only steers -e and the pair
		 * forms.  A cache's "don't send": -i skips it (tcpreplay-edit); -w
		 * writes it as read (tcprewrite 4.6: the file keeps the cache's
		 * numbering), the loop leaving it unedited.
		 */
		if (unlikely(r->sides1) && (r->side = side_of(r, p)) == SPLIT_NOSEND && !r->o->tx.path)
			return NULL;
		return &r->lane[0];
	}
	if (r->o->run.dualfile) {
		r->side = r->src.side + 1;
		return &r->lane[r->src.side];
	}
	return route2(r, p);
}

/*
 * --threads: is @p (as read, before any edit) this thread's?  Its flow's
 * symmetric hash picks the thread (replay/flowhash.h), so both directions
 * of a flow go by one thread, in order.  A packet of another thread's
 * still takes its place in the schedule every thread keeps (sched_skip():
 * a PPS count, a segment's first timestamp), so all threads work to one
 * schedule, and has been routed (route(): the --split classifier's
 * state); it is neither read nor counted here.  With -I or --dualfile a
 * thread sends on both interfaces, so a flow's two directions keep their
 * order across the two ports by send_one()'s kick of the other lane, as
 * in one thread.
 */
static bool in_shard(struct replay *r, struct pkt *p)
{
	if (flowhash_shard(flowhash(p->data, p->caplen), r->nshards) == r->shard)
		return true;
	r->src.skipped++;
	if (r->timed)
		sched_skip(&r->sched, p);
	return false;
}

/*
 * source_next() - the next packet to send: read (counted once: the only
 * place), routed to its lane (*@lp), converted, edited, with its deadline
 * (*@deadline).  Packets that end here (filtered, failed) are accounted
 * and the source goes on with the next.  STEP_NEXT with a packet, or
 * STEP_STOP / STEP_ERROR: the run ends (the end of the traces, a signal,
 * the limit, --duration, a read error).
 */
/* Inline in both loops: a call's frame here was ~20 instructions of every packet. */
static inline __attribute__((always_inline)) enum step
source_next(struct replay *r, const struct trace **tp, struct pkt *p, struct lane **lp,
	    uint64_t *deadline)
{
	uint64_t t0 = 0;
	bool skipped = false;

	for (;;) {
		enum step step;
		struct lane *l;

		/*
		 * --threads: after a packet skipped as another thread's (read,
		 * routed and scheduled in in_shard(), but not timed) the clock is
		 * not read again: a skipped packet costs no clock reading, and
		 * the reads of the packets skipped are counted in the read that
		 * holds this thread's next packet up -- they do hold it up.
		 */
		if (r->timed && !skipped)
			t0 = sched_now(&r->sched);
		skipped = false;
		step = likely(!r->o->run.dualfile) ? source_read(r, tp, p) : source_read_dual(r, tp, p);
		if (unlikely(step != STEP_NEXT))
			return step;
		/*
		 * Held frames were sent while the live input was silent
		 * (replay_input_wait()), and that reached --limit or failed: the
		 * frame just read is not one of the run's.
		 */
		if (unlikely(r->imp.limit_hit || r->imp.wait_failed))
			return STEP_STOP;
		/*
		 * Routed first, every packet, in every thread: --split first learns
		 * as it reads (an address first seen as a source is a client), so
		 * each thread feeds its own classifier every packet, in order, and
		 * all place each packet on the side one thread would.
		 */
		l = route(r, p);
		if (unlikely(r->nshards > 1) && !in_shard(r, p)) {
			if (*r->stop)
				return STEP_STOP;
			skipped = true;
			continue;
		}
		/* A read this slow took a page fault from disk or waited for a pipe: a late packet is its. */
		if (r->timed && sched_now(&r->sched) - t0 > READ_SLOW_NS)
			sched_note(&r->sched, WAIT_CAUSE_READ);
		if (unlikely(!l)) {
			/* A tcpprep cache entry without the send bit: tcpreplay skips it, so do we. */
			l = &r->lane[0];
			l->st.read++;
			account(r, l, FATE_FILTERED, NULL, NULL);
			if (*r->stop)
				return STEP_STOP;
			continue;
		}
		l->st.read++;
		/* A packet the reader could not make an Ethernet frame of: its reason names it. */
		if (unlikely(p->linktype != LINKTYPE_ETHERNET)) {
			account(r, l, FATE_FAILED, NULL, trace_strerror(*tp));
			if (*r->stop || limit_reached(r))
				return STEP_STOP;
			continue;
		}
		if (r->chain && likely(!(r->sides1 && r->side == SPLIT_NOSEND))) {
			int er;

			edit_chain_set_side(r->chain, r->side);
			er = edit_chain_apply(r->chain, p);

			if (er == EDIT_DROP) {
				account(r, l, FATE_FILTERED, NULL, NULL);
				if (*r->stop)
					return STEP_STOP;
				continue;
			}
			if (er < 0) {
				struct staged e = { .t = *tp, .recno = p->recno, .off = p->off };

				account(r, l, FATE_EDIT_FAILED, &e, edit_chain_strerror(r->chain));
				if (*r->stop || limit_reached(r))
					return STEP_STOP;
				continue;
			}
		}
		/*
		 * A live frame is due when it arrived (its timestamp is on the run
		 * clock, src/live/live.c); the impairment adds its delay to that.
		 */
		if (unlikely(r->live))
			*deadline = p->sched_ns = p->ts_ns;
		else
			*deadline = sched_deadline(&r->sched, p);
		/* --duration: a packet due after the end is not sent (p->sched_ns: every mode sets it).
		 * The run ends before it, so it is not one of the run's packets read either. */
		if (r->o->run.duration_ns && p->sched_ns >= r->st.start_ns + r->o->run.duration_ns) {
			l->st.read--;
			return STEP_STOP;
		}
		/*
		 * As tcpreplay: flows count the packet as edited, as it goes to be
		 * sent (whether it then is or fails), before any impairment acts.
		 */
		if (r->flows)
			flow_classify(r->flows, p->data, p->caplen, p->ts_ns, &r->st.flows);
		*lp = l;
		return STEP_NEXT;
	}
}

/*
 * --oneatatime, as tcpreplay: before a packet, when the last answer's count
 * is used up, send what is staged, then ask how many to send now; a number
 * (strtoul, base 0: 0x.. too) is that many, anything else (Enter) one.  The
 * end of standard input ends the run as an error: it was cut short.
 */
static __attribute__((noinline)) enum step ask_user(struct replay *r, const struct trace *t,
						    const struct pkt *p)
{
	char line[256];
	unsigned long long n;
	enum step step = flush_all(r);

	if (step != STEP_NEXT)
		return step;
	fprintf(r->summary, "**** Next packet #%llu out %s.  How many packets do you wish to send? ",
		(unsigned long long)p->recno, r->o->tx.ifname ? r->o->tx.ifname : r->o->tx.path);
	fflush(r->summary);
	if (!fgets(line, sizeof(line), stdin)) {
		if (*r->stop)
			return STEP_STOP;
		fputc('\n', r->summary);
		log_err("--oneatatime: standard input ended before %s record %llu", trace_name(t),
			(unsigned long long)p->recno);
		return STEP_ERROR;
	}
	n = strtoull(line, NULL, 0);
	r->ask_left = n ? n : 1;
	return STEP_NEXT;
}

static __attribute__((noinline)) void progress_show(struct replay *r, uint64_t now)
{
	struct progress_in in;

	progress_in_now(r, now, &in);
	progress_print(&r->progress, now, &in);
}

/* Both loops start here: the schedule's origin (--start-at's instant when replay_open() waited for one), progress, the first pass. */
static void run_start(struct replay *r)
{
	/* --threads: replay_threads_run() started every thread's schedule from one origin. */
	if (!r->origin_given)
		r->st.start_ns = r->st.start.set ? r->st.start.origin_ns : sched_start(&r->sched);
	progress_init(&r->progress, r->progress_mode, r->o->run.stats_s, r->summary, r->st.start_ns);
	/* Passes are recorded for --stats-json, which writes them: a snapshot of the counters at each pass's end. */
	r->st.passes_on = r->json != NULL && r->nshards <= 1; /* --threads: passes are per thread, not merged */
	pass_begin(r, r->st.start_ns);
}

/*
 * The loop: the source yields each packet with its lane and deadline, the
 * lane sends it.  Returns 0, or -1 when the run ended on an error (already
 * logged).  What is left staged is sent by the caller.
 */
static int run(struct replay *r)
{
	enum step step;
	const struct trace *t;
	struct lane *l;
	uint64_t deadline;
	struct pkt p;

	run_start(r);
	for (;;) {
		step = source_next(r, &t, &p, &l, &deadline);
		if (step != STEP_NEXT)
			break;
		if (unlikely(r->o->run.oneatatime)) {
			if (!r->ask_left && (step = ask_user(r, t, &p)) != STEP_NEXT) {
				struct staged e = { .t = t, .recno = p.recno, .off = p.off };

				account(r, l, FATE_FAILED, &e, NULL);
				break;
			}
			r->ask_left--;
		}
		step = send_one_inline(r, l, t, &p, deadline);
		if (step != STEP_NEXT)
			break;
		if (unlikely(r->o->run.oneatatime) && (step = flush_all(r)) != STEP_NEXT)
			break; /* asked for, so out now */
		/* p.sched_ns is the run clock at the packet's slot (every mode sets it): no clock read. */
		if (unlikely(progress_due(&r->progress, p.sched_ns)))
			progress_show(r, p.sched_ns);
	}
	progress_finish(&r->progress);
	report_open_warnings(r);
	return step == STEP_ERROR ? -1 : 0;
}

/* ---- impairment: --impair, --loss, ... ------------------------------------ */

int impairing_open(struct replay *r)
{
	const struct opts_impair *m = &r->o->impair;
	struct impairing *ip = &r->imp;
	struct impair_cfg *cfg;
	size_t n = 0;
	uint32_t slot = 0;
	char err[1024];
	int rc;

	if (!m->n && !m->stat_given)
		return 0;
	cfg = calloc(m->n + 1, sizeof(*cfg));
	if (!cfg)
		goto nomem;
	for (unsigned i = 0; i < m->n; i++, n++) {
		cfg[n].path = m->src[i].path;
		cfg[n].filter = m->src[i].filter;
		cfg[n].repeat = m->src[i].repeat; /* its own, or the global (opts_impair_check()) */
		cfg[n].dflt = m->src[i].dflt;
		cfg[n].seed = m->seed;
		cfg[n].stop = r->stop;
	}
	/* The model comes last: a packet in no trace's flow takes its action from it. */
	if (m->stat_given && impair_stat_active(&m->stat)) {
		cfg[n].stat = &m->stat;
		cfg[n].repeat = 1;
		impair_action_pass(&cfg[n].dflt);
		cfg[n].seed = m->seed;
		n++;
	}
	rc = impair_open(&ip->im, cfg, n, err, sizeof(err));
	free(cfg);
	if (rc < 0) {
		log_err("%s", err);
		return -1;
	}
	if (rc > 0)
		r->stopped = true; /* a signal while a long trace was checked: stopped before the first packet */
	/*
	 * A slot holds the largest frame the traces declare (their snaplen),
	 * with room for the edits to grow it (VLAN tags); a longer one fails,
	 * named.  Frames up to 2 KiB take slots made resident here, before the
	 * clock starts: a page fault per held frame made the first 10 ms of a
	 * delayed run 15 ms late (include/replay/slots.h).
	 */
	for (int i = 0; i < r->o->nfiles && r->traces; i++)
		for (unsigned k = 0; r->traces[i] && k < trace_ninterfaces(r->traces[i]); k++) {
			uint32_t sl = trace_interface(r->traces[i], k)->snaplen;

			if (!sl || sl > PKT_FRAME_MAX_BYTES)
				sl = PKT_FRAME_MAX_BYTES;
			slot = MAX(slot, sl);
		}
	slot = slot ? MIN(slot + 64u, PKT_FRAME_MAX_BYTES) : PKT_FRAME_MAX_BYTES;
	ip->limit = m->limit ? m->limit : 1000;
	if (slots_init(&ip->slots, ip->limit, slot) < 0)
		goto nomem;
	/* Written now, so that no page of it is first touched in the loop. */
	ip->held = malloc(slots_ids(&ip->slots) * sizeof(*ip->held));
	ip->scratch = malloc(PKT_FRAME_MAX_BYTES);
	ip->act = malloc(sizeof(*ip->act));
	if (!ip->held || !ip->scratch || !ip->act || dq_init(&ip->dq, ip->limit) < 0)
		goto nomem;
	memset(ip->held, 0, slots_ids(&ip->slots) * sizeof(*ip->held));
	return 0;
nomem:
	log_err("impairment: out of memory (--impair-limit %u frames of %u bytes)", m->limit,
		slot);
	return -1;
}

void impairing_close(struct replay *r)
{
	struct impairing *ip = &r->imp;

	impair_close(ip->im);
	dq_free(&ip->dq);
	free(ip->held);
	slots_free(&ip->slots);
	free(ip->scratch);
	free(ip->act);
	*ip = (struct impairing){ 0 };
}

/*
 * A step of the impaired loop: a signal or an error ends the run; --limit
 * (a STEP_STOP without a signal) only ends the reading, and what is held
 * is still sent on schedule.
 */
static inline enum step soft_stop(struct replay *r, enum step step)
{
	if (step == STEP_STOP && !*r->stop) {
		r->imp.limit_hit = true;
		return STEP_NEXT;
	}
	return step;
}

/* Hold a copy of @p (corrupted by @a's corruptions if @a) until @key. */
static enum step hold(struct replay *r, const struct trace *t, const struct pkt *p,
		      struct lane *l, uint64_t key, const struct impair_action *a)
{
	struct impairing *ip = &r->imp;
	struct held *h;
	uint8_t *buf;
	int slot;

	if (unlikely(ip->nheld >= ip->limit)) {
		/* No room: netem's "limit" -- dropped, counted apart from the actions' drops. */
		impair_count_queue_drop(ip->im);
		impair_note_held(ip->im, ip->limit, ip->limit, p->sched_ns, false);
		account(r, l, FATE_IMPAIRED, NULL, NULL);
		return STEP_NEXT;
	}
	slot = slots_get(&ip->slots, p->caplen, &buf);
	if (unlikely(slot < 0)) {
		struct staged e = { .t = t, .recno = p->recno, .off = p->off };

		account(r, l, FATE_FAILED, &e, "longer than the snapshot length the traces declare: no impairment slot holds it");
		return STEP_NEXT;
	}
	ip->nheld++;
	memcpy(buf, p->data, p->caplen);
	if (a)
		impair_corrupt_apply(ip->im, a, buf, p->caplen);
	h = &ip->held[slot];
	h->p = *p;
	h->p.data = buf;
	h->p.sched_ns = key; /* the written timestamp (-w) and the deadline */
	h->t = t;
	h->l = l;
	h->slot = (unsigned)slot;
	(void)dq_push(&ip->dq, key, h); /* never full: as many entries as slots */
	impair_note_held(ip->im, ip->nheld, ip->limit, p->sched_ns, true);
	return STEP_NEXT;
}

/*
 * Send the earliest held frame, at its deadline; late if that had passed by
 * more than the threshold.  A signal during the wait leaves it held (it
 * fails with the others in fail_held()): sent then, it would leave before
 * its impaired deadline, which the impairment never does.
 */
static enum step send_held(struct replay *r, uint64_t *mark)
{
	struct impairing *ip = &r->imp;
	const struct dq_entry *top = dq_peek(&ip->dq);
	uint64_t deadline;
	struct dq_entry e;
	struct held *h;
	enum step step;

	if (unlikely(!top))
		return STEP_NEXT; /* callers look first: nothing held, nothing to send */
	deadline = top->deadline_ns;

	if (deadline > sched_now(&r->sched)) {
		/*
		 * Not due yet: what is staged (in any lane) is, so it goes now rather than after this wait.
		 * At top speed too: the impairment's delays are on the real clock there (netem's), and
		 * once the input has ended nothing else is due before this frame.
		 */
		step = flush_all(r);
		if (step != STEP_NEXT)
			return step;
		while (sched_hold(&r->sched, deadline) == -EINTR)
			if (*r->stop)
				return STEP_STOP;
		(void)dq_pop(&ip->dq, &e);
		h = e.data;
		if (r->timed && sched_now(&r->sched) > deadline + r->o->sched.late_threshold_ns)
			impair_count_late(ip->im);
		/* Waited for already: staged and sent at once, as send_one() does after its wait. */
		step = stage_one(r, h->l, h->t, &h->p, r->timed ? deadline : 0);
		if (step == STEP_NEXT)
			step = flush_lane(r, h->l);
		if (step == STEP_NEXT && (*r->stop || limit_reached(r))) {
			step = flush_all(r);
			if (step == STEP_NEXT)
				step = STEP_STOP;
		}
	} else {
		(void)dq_pop(&ip->dq, &e);
		h = e.data;
		if (r->timed && sched_now(&r->sched) > deadline + r->o->sched.late_threshold_ns)
			impair_count_late(ip->im);
		step = send_one(r, h->l, h->t, &h->p, r->timed ? deadline : 0);
	}
	slots_put(&ip->slots, h->slot);
	ip->nheld--;
	*mark = deadline;
	return step;
}

/*
 * One packet from the source, due at @dl (p->sched_ns on the run clock):
 * its action from the engine.  Dropped; or sent at once (no delay: every
 * held frame is due later, see run_impaired()); or held in the queue until
 * its impaired deadline; and its copies likewise, each at its own.
 */
static enum step impair_one(struct replay *r, const struct trace *t, struct pkt *p,
			    struct lane *l, uint64_t dl)
{
	struct impairing *ip = &r->imp;
	struct impair_action *a = ip->act;
	uint64_t base = p->sched_ns;
	enum step step;
	int rc;

	rc = impair_next(ip->im, p, base, a);
	if (unlikely(rc < 0)) {
		struct staged e = { .t = t, .recno = p->recno, .off = p->off };

		account(r, l, FATE_FAILED, &e, impair_strerror(ip->im));
		return STEP_ERROR;
	}
	if (rc == 0)
		return soft_stop(r, send_one(r, l, t, p, dl));
	if (a->drop) {
		account(r, l, FATE_IMPAIRED, NULL, NULL);
		if (*r->stop)
			return STEP_STOP;
		if (limit_reached(r))
			ip->limit_hit = true;
		return STEP_NEXT;
	}
	if (a->delay_ns) {
		step = hold(r, t, p, l, base + a->delay_ns, a->ncorrupt ? a : NULL);
	} else if (a->ncorrupt) {
		struct pkt q = *p;

		memcpy(ip->scratch, p->data, p->caplen);
		impair_corrupt_apply(ip->im, a, ip->scratch, p->caplen);
		q.data = ip->scratch;
		step = send_one(r, l, t, &q, dl);
	} else {
		step = send_one(r, l, t, p, dl);
	}
	step = soft_stop(r, step);
	/* The copies: exact copies of the frame before corruption, each at its own deadline. */
	for (unsigned i = 0; i < a->ndup && step == STEP_NEXT; i++) {
		l->st.impair_copies++;
		if (a->dup_delay_ns[i])
			step = hold(r, t, p, l, base + a->dup_delay_ns[i], NULL);
		else
			step = soft_stop(r, send_one(r, l, t, p, dl));
	}
	return step;
}

/* The run ended with frames still held (a signal, an error): each fails, in one line. */
static void fail_held(struct replay *r)
{
	struct impairing *ip = &r->imp;
	unsigned n = dq_len(&ip->dq);
	struct dq_entry e;

	if (n) {
		char why[160];

		snprintf(why, sizeof(why), "%u frames held back by impairment not sent: the run stopped before their deadlines", n);
		log_failure(r, FATE_FAILED, NULL, 1, why);
	}
	while (dq_pop(&ip->dq, &e) == 0) {
		struct held *h = e.data;

		account(r, h->l, FATE_FAILED, NULL, NULL);
		slots_put(&ip->slots, h->slot);
		ip->nheld--;
	}
}

/*
 * The loop with impairment: two producers on one schedule, the source's
 * next packet and the queue of held frames, and always the earlier of the
 * two goes next (a held frame first on a tie: it was there first).  So a
 * packet from the source is impaired only when every held frame is due
 * after it, and a packet without delay goes straight to its lane.  At the
 * end of the input (or --limit) what is held is sent on schedule.
 */
static int run_impaired(struct replay *r)
{
	struct impairing *ip = &r->imp;
	enum step step = STEP_NEXT;
	bool have = false, ended = false;
	const struct trace *t = NULL;
	struct lane *l = NULL;
	uint64_t dl = 0, mark = 0;
	struct pkt p;

	run_start(r);
	for (;;) {
		const struct dq_entry *h;

		if (!have && !ended && !ip->limit_hit) {
			step = source_next(r, &t, &p, &l, &dl);
			if (step == STEP_NEXT) {
				have = true;
			} else {
				ended = true;
				if (ip->wait_failed)
					step = STEP_ERROR;
				if (step == STEP_ERROR || *r->stop)
					break;
				step = STEP_NEXT;
			}
		}
		h = dq_peek(&ip->dq);
		if (have && (!h || p.sched_ns < h->deadline_ns)) {
			have = false;
			step = impair_one(r, t, &p, l, dl);
			mark = p.sched_ns;
		} else if (h) {
			step = soft_stop(r, send_held(r, &mark));
		} else {
			break;
		}
		if (step != STEP_NEXT)
			break;
		if (*r->stop) {
			step = STEP_STOP;
			break;
		}
		if (unlikely(progress_due(&r->progress, mark)))
			progress_show(r, mark);
	}
	if (have) {
		/* Read and counted, but the run ended before it: it fails, named. */
		struct staged e = { .t = t, .recno = p.recno, .off = p.off };

		account(r, l, FATE_FAILED, &e, "not sent: the run stopped before it");
	}
	fail_held(r);
	progress_finish(&r->progress);
	report_open_warnings(r);
	return step == STEP_ERROR ? -1 : 0;
}

/*
 * While the live input (--source-interface) is silent, the held frames
 * still go at their deadlines: wait for the input or the earliest
 * deadline, whichever comes first, and send what falls due.  Signals are
 * blocked from the flag's check until ppoll() unblocks them, as the
 * reader's own wait does (src/trace/source.c).
 */
static void send_held_while_silent(struct replay *r)
{
	struct impairing *ip = &r->imp;
	struct pollfd pfd = { .fd = live_fd(r->live), .events = POLLIN };
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, &old) < 0)
		return;
	while (!*r->stop && !ip->limit_hit && !ip->wait_failed) {
		const struct dq_entry *h = dq_peek(&ip->dq);
		uint64_t now = sched_now(&r->sched), mark;
		enum step step;

		if (!h)
			break;
		if (h->deadline_ns > now + WAIT_INPUT_MARGIN_NS) {
			uint64_t d = h->deadline_ns - now - WAIT_INPUT_MARGIN_NS;
			struct timespec ts = { .tv_sec = (time_t)(d / NSEC_PER_SEC), .tv_nsec = (long)(d % NSEC_PER_SEC) };
			int n = ppoll(&pfd, 1, &ts, &old);

			if (n > 0 || (n < 0 && errno != EINTR))
				break; /* input: the loop takes it, in deadline order */
			continue;  /* the margin reached, or a signal: look again */
		}
		/*
		 * Every frame due within the margin, with signals let through
		 * once for all of them: two sigprocmask() calls a held frame
		 * were the forwarder's most frequent system call at 90 000
		 * frames/s.  The input is looked at again after the run, as
		 * it was after each frame: one already due waits no longer.
		 */
		sigprocmask(SIG_SETMASK, &old, NULL);
		do
			step = soft_stop(r, send_held(r, &mark));
		while (step == STEP_NEXT && !*r->stop && !ip->limit_hit && (h = dq_peek(&ip->dq)) &&
		       h->deadline_ns <= sched_now(&r->sched) + WAIT_INPUT_MARGIN_NS);
		/*
		 * A frame found already due (its deadline passed while the one
		 * before it went) is staged, not kicked (send_one()): the next
		 * wait here, or the reader's for input that may never come, must
		 * not hold it.  Unkicked, the last frames of a burst waited for
		 * the next input frame, or for the end of the run: seconds.
		 */
		if (step == STEP_NEXT)
			step = flush_all(r);
		sigprocmask(SIG_BLOCK, &block, NULL);
		if (step == STEP_ERROR)
			ip->wait_failed = true;
		else if (step != STEP_NEXT)
			break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* --limit reached, or a failure: the input is over (the stream's end tells the reader). */
	if (ip->limit_hit || ip->wait_failed)
		live_stop(r->live);
}

/*
 * A stream's next record has not all arrived: what is staged goes now, not
 * after the input's next record, and held frames go at their deadlines
 * meanwhile; then the input is waited for, or a signal.  Signals are
 * blocked from the flag's check until ppoll() unblocks them.
 */
static void wait_input(struct replay *r, const struct trace *t)
{
	struct pollfd pfd = { .fd = trace_fd(t), .events = POLLIN };
	sigset_t block, old;

	for (unsigned i = 0; i < r->nlanes; i++)
		if (r->lane[i].tx && r->lane[i].qn)
			(void)flush_lane(r, &r->lane[i]); /* a failure is counted; the next send meets it again */
	if (r->live && r->imp.im && dq_len(&r->imp.dq))
		send_held_while_silent(r);
	if (r->imp.limit_hit || r->imp.wait_failed)
		return;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, &old) < 0)
		return;
	while (!*r->stop)
		if (ppoll(&pfd, 1, NULL, &old) >= 0 || errno != EINTR)
			break;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int replay_main(const struct opts *o, volatile sig_atomic_t *stop)
{
	return replay_main_hooked(o, stop, NULL);
}

int replay_run(struct replay *r)
{
	int status = EXIT_DONE;

	if (r->stopped)
		r->st.start_ns = sched_now(&r->sched);
	else if ((r->imp.im ? run_impaired(r) : run(r)) < 0)
		status = EXIT_FAIL;
	/* The end of the traces (or a read error) leaves the last batch staged: it goes too. */
	if (flush_all(r) == STEP_ERROR)
		status = EXIT_FAIL;
	/* Drain even after an error or a signal: what was accepted must leave, and be counted. */
	for (unsigned i = 0; i < r->nlanes; i++)
		if (tx_drain(r->lane[i].tx) < 0) {
			log_err("%s", tx_strerror(r->lane[i].tx));
			status = EXIT_FAIL;
		}
	r->st.end_ns = sched_now(&r->sched);
	/* The pass the run ended in, with everything sent after its last read. */
	pass_record(r, r->st.end_ns);
	replay_collect(r);
	if (r->timed)
		sched_report(&r->sched, &r->st.sched);
	return status;
}

/* Open everything, run the loop, send what is left, drain, then report and close. */
int replay_main_hooked(const struct opts *o, volatile sig_atomic_t *stop,
		       const struct replay_hooks *hooks)
{
	struct replay r;
	int status;

	if (replay_open(&r, o, stop, hooks) < 0)
		return EXIT_FAIL;
	if (r.nshards > 1)
		status = replay_threads_run(&r, r.workers, r.nshards);
	else
		status = replay_run(&r);
	return replay_close(&r, status);
}
