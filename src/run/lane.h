/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Output lanes, the per-packet half (inline: every packet's path, where a
 * call's frame was ~20 instructions of each); the rest is src/run/lane.c.
 *
 * Contract.  Every packet read ends in exactly one fate -- sent, filtered,
 * failed (with its reason logged, rate-limited) or dropped by impairment
 * -- through account(), in its lane's counters (the run's totals are their
 * sums).  A packet given to a lane is staged at once (copied into its
 * method's memory: the trace's view is only promised to outlive a bounded
 * amount of later traffic) and kicked: at top speed when the batch is
 * full; timed, a packet not due yet is staged, waited for, then kicked at
 * once, and before any wait everything staged in any lane is kicked, so
 * only packets already due share a batch.  A packet staged in one lane
 * kicks what the other holds first: a batch is always a run of packets
 * consecutive in the schedule.  Back-pressure is waited out, counted as a
 * retry, never a drop.  Callers: src/run/loop.c, src/run/impairing.c.
 */
#ifndef REPLAY_RUN_LANE_H
#define REPLAY_RUN_LANE_H

#include "run_int.h"
#include "replay/compiler.h"

/* The run's totals so far: the sums of the lanes' counters. */
#define LANES_SUM(r, field)                                                                        \
	({                                                                                         \
		uint64_t sum_ = 0;                                                                 \
		for (unsigned i_ = 0; i_ < (r)->out.n; i_++)                                       \
			sum_ += (r)->out.lane[i_].st.field;                                        \
		sum_;                                                                              \
	})

/*
 * log_failure() - the one rate-limited logger of per-packet failures: the
 * first few of each kind (edit, send) in full, then one line saying the
 * rest are only counted.  @e names the packet (file, record, offset); NULL
 * when @why names it itself.  @n > 1: one line for the @n staged packets
 * from @e on.
 */
void log_failure(struct replay *r, enum fate fate, const struct staged *e, unsigned n,
		 const char *why);

/*
 * lane_fail() - packet @p of @t, not staged, ends in @fate (FATE_FAILED or
 * FATE_EDIT_FAILED) on lane @l, for @why (NULL: said already).
 */
void lane_fail(struct replay *r, struct lane *l, enum fate fate, const struct trace *t,
	       const struct pkt *p, const char *why);

/* flush_lane() - kick @l until nothing is staged in it; a signal during back-pressure fails the rest. */
enum step flush_lane(struct replay *r, struct lane *l);

/* flush_all() - flush_lane() every lane, lane 0 first; the worst outcome. */
enum step flush_all(struct replay *r);

/* flush_others() - flush_lane() every lane but @l that holds something. */
enum step flush_others(struct replay *r, const struct lane *l);

/* stage_refused() - stage_one() after the method refused @p with @rc: kick, wait, or count it failed. */
enum step stage_refused(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *p,
			uint64_t deadline, int rc);

/*
 * lane_wait_due() - wait for @deadline, at @target (sched_paced()); at top
 * speed (a held frame) with sched_hold().  false when a signal asked the
 * run to stop first.
 */
bool lane_wait_due(struct replay *r, uint64_t deadline, uint64_t target);

/* lanes_collect() - after the loop: each lane's counters into r->st.lane[], their sums into r->st. */
void lanes_collect(struct replay *r);

/* @n packets of @bytes in all were sent by lane @l: the counts account() and the top-speed settle keep. */
static inline void count_sent(struct lane *l, uint64_t n, uint64_t bytes)
{
	l->st.sent += n;
	l->st.bytes_sent += bytes;
}

/*
 * account() - the end of one packet, counted once, in lane @l's counters.
 * @e is the packet (NULL when filtered, or when @why names it); @why is a
 * failure's reason, NULL when it was already logged.  A sent packet's send
 * error is measured at l->settle_ns, when its kick returned.
 */
static inline void account(struct replay *r, struct lane *l, enum fate fate,
			   const struct staged *e, const char *why)
{
	switch (fate) {
	case FATE_SENT:
		count_sent(l, 1, e->caplen);
		if (r->out.slog)
			sendlog_add(r->out.slog, e->id, e->recno, l->kick_ns);
		if (r->plan.timed) {
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

/*
 * --limit counts packets that end sent or failed: every one read and not
 * filtered, including those still staged (they will end one or the other).
 */
static inline bool limit_reached(const struct replay *r)
{
	return unlikely(r->plan.limit) &&
	       LANES_SUM(r, read) - LANES_SUM(r, filtered) >= r->plan.limit;
}

/* The oldest staged packet leaves the lane's FIFO. */
static inline void unstage(struct lane *l)
{
	/* A compare, not a modulo: qcap is not a constant, and a division costs tens of cycles. */
	if (++l->qhead == l->qcap)
		l->qhead = 0;
	l->qn--;
}

/*
 * stage_cut() - --segment: @p, longer than lane @l takes, cut into frames
 * that fit (replay/segment.h), each staged (stage_whole()) at @deadline and
 * counted on its own; a frame that may not be cut fails, its reason said
 * once; one that is not IP is staged whole, for the method to refuse.
 * With --gso a frame the kernel may cut (segment_vnet()) is staged whole,
 * counted one packet, for the method to send behind its virtio_net_hdr.
 */
enum step stage_cut(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *p,
		    uint64_t deadline);

/*
 * stage_frag() - --fragroute: @p through the rules (replay/frag.h), the
 * frames they make each staged (stage_whole()) at @deadline and counted on
 * its own, none when they drop it; a frame that is not IP is staged as it
 * is, as fragroute passes it; one the rules cannot take fails, its reason
 * said once.
 */
enum step stage_frag(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *p,
		     uint64_t deadline);

/*
 * stage_whole() - stage @p in lane @l (copy it into the method's memory)
 * until it is taken or cannot be.  Taken at once is the common case,
 * inline: the FIFO entry is written in place; a full stage is kicked and a
 * method still full waited for (stage_refused()).
 */
static inline enum step stage_whole(struct replay *r, struct lane *l, const struct trace *t,
				    const struct pkt *p, uint64_t deadline)
{
	int rc = tx_send(l->tx, p, 1);

	if (likely(rc == 1)) {
		unsigned i = l->qhead + l->qn;
		struct staged *e = &l->q[i < l->qcap ? i : i - l->qcap];

		*e = (struct staged){ .t = t, .recno = p->recno, .off = p->off, .deadline_ns = deadline,
				      .caplen = p->caplen };
		l->qn++;
		/* --send-log's identity and -v's decoding share one branch: -v costs nothing when not given. */
		if (unlikely(r->out.per_pkt)) {
			if (r->out.slog)
				e->id = sendlog_id(p);
			if (r->out.decode)
				decode_pkt(r->out.decode, p);
		}
		return STEP_NEXT;
	}
	return stage_refused(r, l, t, p, deadline, rc);
}

/*
 * stage_burst() - top speed, one lane, nothing per packet but the counts
 * (loop.c's burst): the @n packets @v, read from trace @t and counted
 * read, staged in lane @l, whose FIFO has room for them all, with one
 * tx_send() for as many as the method takes at once; one it refuses goes
 * through stage_refused(), as stage_whole()'s.  A full batch is kicked.
 * When the run ends among them, those not staged fail, in one line.
 */
enum step stage_burst(struct replay *r, struct lane *l, const struct trace *t,
		      const struct pkt *v, unsigned n);

/*
 * stage_one() - stage_whole(), or with --segment stage_cut() for a frame
 * longer than the lane takes, or with --fragroute stage_frag() (with
 * --fragdir, for a frame of the cache's side it names).
 */
static inline enum step stage_one(struct replay *r, struct lane *l, const struct trace *t,
				  const struct pkt *p, uint64_t deadline)
{
	if (unlikely(r->out.frag != NULL) && (!r->out.frag_side || r->out.frag_side == r->route.side))
		return stage_frag(r, l, t, p, deadline);
	if (unlikely(p->caplen > l->seg_max))
		return stage_cut(r, l, t, p, deadline);
	return stage_whole(r, l, t, p, deadline);
}

/*
 * lane_send() - packet @p (of @t, for messages) due at @deadline on the
 * run clock, out of lane @l: the one send path, for a packet from the
 * source and a frame the impairment held (@held) alike.  Not due yet:
 * what is staged in any lane is kicked, then @p is staged, waited for
 * and kicked at once.  Due: what the other lane holds is kicked, @p is
 * staged, and kicked with a full batch.  A held frame is waited for at top
 * speed too (its delay is on the run clock), and before it is staged: a
 * signal during its wait leaves it held, never sent before its impaired
 * deadline.  Then a signal or --limit ends the run, with what is staged
 * kicked.  STEP_NEXT, or why the run ends; *@left is set when @p was
 * neither staged nor counted: its fate is the caller's.
 */
static inline __attribute__((always_inline)) enum step
lane_send(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *p,
	  uint64_t deadline, bool held, bool *left)
{
	uint64_t target = 0, staged_dl = held && !r->plan.timed ? 0 : deadline;
	enum step step;

	if (r->plan.timed || held) {
		uint64_t now = sched_now(&r->sched);

		target = r->plan.timed ? sched_paced(&r->sched, deadline) : deadline;
		if (target <= now)
			target = 0;
	}
	if (target) {
		step = flush_all(r);
		if (step == STEP_NEXT && held && !lane_wait_due(r, deadline, target))
			step = STEP_STOP;
		if (step != STEP_NEXT) {
			*left = true;
			return step;
		}
		step = stage_one(r, l, t, p, staged_dl);
		if (step != STEP_NEXT)
			return step;
		/* A signal cuts the wait short; the staged packet then goes at once, as the last. */
		if (!held)
			(void)lane_wait_due(r, deadline, target);
		step = flush_lane(r, l);
	} else {
		/* Already due: returns at once, but counts a stall (and shifts) if it is late. */
		if (r->plan.timed)
			sched_wait(&r->sched, deadline);
		step = r->out.n > 1 ? flush_others(r, l) : STEP_NEXT;
		if (step != STEP_NEXT) {
			*left = true;
			return step;
		}
		step = stage_one(r, l, t, p, staged_dl);
		if (step == STEP_NEXT && l->qn >= l->qcap)
			step = flush_lane(r, l);
	}
	if (step != STEP_NEXT)
		return step;
	if (*r->stop || limit_reached(r)) {
		step = flush_all(r);
		return step == STEP_NEXT ? STEP_STOP : step;
	}
	/* SIGUSR1: what is staged goes now, then nothing until the next one (suspend.c). */
	if (unlikely(run_suspended(r))) {
		step = flush_all(r);
		if (step == STEP_NEXT)
			(void)run_suspend(r);
		return step;
	}
	return STEP_NEXT;
}

/* lane_send() of a packet that is not held: one the lane did not take fails, named. */
static inline __attribute__((always_inline)) enum step
lane_send_or_fail(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *p,
		  uint64_t deadline)
{
	bool left = false;
	enum step step = lane_send(r, l, t, p, deadline, false, &left);

	if (unlikely(left))
		lane_fail(r, l, FATE_FAILED, t, p, "not sent: the run stopped before it");
	return step;
}

#endif
