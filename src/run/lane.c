// SPDX-License-Identifier: BSD-2-Clause
/*
 * Output lanes, the per-batch half: kicks and what they settle,
 * back-pressure, refused stages, failures and their one logger, the
 * lanes' sums.  The contract and the per-packet half are src/run/lane.h.
 * Calls nothing else of the run's.
 */
#include <errno.h>

#include "lane.h"
#include "replay/log.h"

/* Per-packet failures of each kind (send, edit) logged in full before the rest are only counted. */
#define FAIL_LOG_MAX 10

void log_failure(struct replay *r, enum fate fate, const struct staged *e, unsigned n,
		 const char *why)
{
	bool edit = fate == FATE_EDIT_FAILED;
	uint64_t *logged = edit ? &r->out.edit_fails_logged : &r->out.fails_logged;

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

void lane_fail(struct replay *r, struct lane *l, enum fate fate, const struct trace *t,
	       const struct pkt *p, const char *why)
{
	struct staged e = { .t = t, .recno = p->recno, .off = p->off };

	account(r, l, fate, &e, why);
}

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
	if (r->plan.timed)
		sched_note(&r->sched, WAIT_CAUSE_BACKPRESSURE);
	return true;
}

/* The @k oldest staged packets of @l were handed to the kernel: count them, measure their send error. */
static void settle_sent(struct replay *r, struct lane *l, unsigned k)
{
	struct sched_start_report *sr = &r->st.start;

	if (likely(!r->plan.timed && !r->out.slog && !sr->set)) {
		/* Top speed, nothing measured per packet: account()'s FATE_SENT for @k at once. */
		uint64_t bytes = 0;
		unsigned h = l->qhead;

		/* Their bytes, in at most two runs of the FIFO (before and after its wrap). */
		for (unsigned left = k; left;) {
			unsigned run = MIN(left, l->qcap - h);

			for (unsigned i = 0; i < run; i++)
				bytes += l->q[h + i].caplen;
			h += run;
			if (h == l->qcap)
				h = 0;
			left -= run;
		}
		l->qhead = h;
		l->qn -= k;
		count_sent(l, k, bytes);
		return;
	}
	if (r->plan.timed || unlikely(sr->set && !sr->sent))
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
 * Every staged packet ends handed over or failed.  Back-pressure is waited
 * out (counted as retried) unless a signal asks to stop, which fails what
 * is left.
 */
enum step flush_lane(struct replay *r, struct lane *l)
{
	while (l->qn) {
		int rc;

		if (r->out.slog)
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

static enum step worse(enum step worst, enum step step)
{
	if (step == STEP_ERROR || (step == STEP_STOP && worst == STEP_NEXT))
		return step;
	return worst;
}

enum step flush_all(struct replay *r)
{
	enum step worst = STEP_NEXT;

	for (unsigned i = 0; i < r->out.n; i++)
		worst = worse(worst, flush_lane(r, &r->out.lane[i]));
	return worst;
}

/*
 * A reply staged on -I never waits behind a later request staged on -i,
 * whether the run is late or at top speed.
 */
enum step flush_others(struct replay *r, const struct lane *l)
{
	enum step worst = STEP_NEXT;

	for (unsigned i = 0; i < r->out.n; i++)
		if (&r->out.lane[i] != l && r->out.lane[i].qn)
			worst = worse(worst, flush_lane(r, &r->out.lane[i]));
	return worst;
}

/* @p was taken by lane @l's method: the FIFO remembers it, as @e says. */
static inline void stage_push_entry(struct lane *l, const struct staged *e)
{
	unsigned i = l->qhead + l->qn;

	l->q[i < l->qcap ? i : i - l->qcap] = *e;
	l->qn++;
}

enum step stage_refused(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *p,
			uint64_t deadline, int rc)
{
	struct staged e = { .t = t, .recno = p->recno, .off = p->off, .deadline_ns = deadline,
			    .caplen = p->caplen, .id = r->out.slog ? sendlog_id(p) : 0 };

	for (;; rc = tx_send(l->tx, p, 1)) {
		if (rc == 1) {
			stage_push_entry(l, &e);
			if (r->out.decode)
				decode_pkt(r->out.decode, p);
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

enum step stage_burst(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *v,
		      unsigned n)
{
	enum step step = STEP_NEXT;
	unsigned i = 0;

	while (i < n) {
		int rc = tx_send(l->tx, v + i, n - i);

		if (likely(rc > 0)) {
			/* The FIFO's entries for the @rc taken (deadline and id stay 0: untimed, no send log). */
			unsigned k = (unsigned)rc, j = l->qhead + l->qn, left = k;

			if (j >= l->qcap)
				j -= l->qcap;
			/* In at most two runs: up to the ring's end, then from its start. */
			while (left) {
				unsigned run = MIN(left, l->qcap - j);
				struct staged *q = &l->q[j];

				for (unsigned e = 0; e < run; e++, q++, i++) {
					q->t = t;
					q->recno = v[i].recno;
					q->off = v[i].off;
					q->caplen = v[i].caplen;
				}
				left -= run;
				j = 0;
			}
			l->qn += k;
			continue;
		}
		step = stage_refused(r, l, t, &v[i], 0, rc);
		i++;
		if (step != STEP_NEXT)
			break;
	}
	if (i < n) {
		struct staged e = { .t = t, .recno = v[i].recno, .off = v[i].off };

		log_failure(r, FATE_FAILED, &e, n - i,
			    n - i > 1 ? "the run stopped before them" : "not sent: the run stopped before it");
		for (; i < n; i++)
			account(r, l, FATE_FAILED, &e, NULL);
	}
	if (step == STEP_NEXT && l->qn >= l->qcap)
		step = flush_lane(r, l);
	return step;
}

/* The reasons a frame is not cut, each said once (bits of lanes.seg_said). */
static unsigned said_bit(int err)
{
	switch (err) {
	case -EMSGSIZE:
		return 1;
	case -ENOTSUP:
		return 2;
	case -E2BIG:
		return 4;
	case -EINVAL:
		return 8;
	default:
		return 16;
	}
}

/*
 * The @n frames made of @p (--segment's or --fragroute's), at @buf + @off[i]
 * (back to back when @off is NULL), @len[i] bytes each: each staged at
 * @deadline and counted on its own.
 */
static enum step stage_pieces(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *p,
			      uint64_t deadline, const uint8_t *buf, const uint32_t *off, const uint32_t *len,
			      int n)
{
	enum step step = STEP_NEXT;
	struct pkt q = *p;
	bool waited = false;
	size_t at = 0;
	int i;

	l->st.segmented++;
	l->st.segments += (uint64_t)n;
	q.flags &= (uint16_t)~PKT_F_TRUNCATED; /* each piece is whole */
	for (i = 0; i < n && step == STEP_NEXT; i++) {
		if (l->qn >= l->qcap) {
			/*
			 * A batch of pieces is full: kicked at the frame's deadline,
			 * waited for here (a signal cuts the wait short, as lane_send()'s).
			 */
			if (r->plan.timed && !waited) {
				(void)lane_wait_due(r, deadline, sched_paced(&r->sched, deadline));
				waited = true;
			}
			step = flush_lane(r, l);
			if (step != STEP_NEXT)
				break;
		}
		q.data = buf + (off ? off[i] : at);
		q.caplen = q.wirelen = len[i];
		at += len[i];
		step = stage_whole(r, l, t, &q, deadline);
	}
	/* The run ended among them: the pieces not staged fail, in one line. */
	if (i < n) {
		struct staged e = { .t = t, .recno = p->recno, .off = p->off };
		char why[160];

		snprintf(why, sizeof(why), "%d frames made of a %u-byte frame not sent: the run stopped before them",
			 n - i, p->caplen);
		log_failure(r, FATE_FAILED, &e, 1, why);
		for (; i < n; i++)
			account(r, l, FATE_FAILED, &e, NULL);
	}
	return step;
}

enum step stage_cut(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *p,
		    uint64_t deadline)
{
	int n;

	if (l->gso) {
		struct virtio_net_hdr h;
		uint32_t wire;

		n = segment_vnet(p->data, p->caplen, l->seg_mtu, &h, &wire);
		if (n > 0) {
			/* The method stages it behind the same header; the kernel cuts it. */
			l->st.gso_frames++;
			l->st.gso_segments += (uint64_t)n;
			return stage_whole(r, l, t, p, deadline);
		}
	}
	n = segment_frame(p->data, p->caplen, l->seg_mtu, &l->seg);
	if (n == 0 || n == -EPROTONOSUPPORT)
		return stage_whole(r, l, t, p, deadline); /* it fits after all, or is not IP: as it is */
	if (n < 0) {
		char why[256];

		if (r->out.seg_said & said_bit(n)) {
			lane_fail(r, l, FATE_FAILED, t, p, NULL);
			return STEP_NEXT;
		}
		r->out.seg_said |= said_bit(n);
		snprintf(why, sizeof(why),
			 "frame of %u bytes longer than %s's MTU %u not cut (--segment): %s; others like it are only counted",
			 p->caplen, l->tx->dev, l->seg_mtu, segment_strerror(n));
		lane_fail(r, l, FATE_FAILED, t, p, why);
		return STEP_NEXT;
	}
	return stage_pieces(r, l, t, p, deadline, l->seg.buf, NULL, l->seg.len, n);
}

enum step stage_frag(struct replay *r, struct lane *l, const struct trace *t, const struct pkt *p,
		     uint64_t deadline)
{
	struct frag_out *o = r->out.frag_out;
	int n = frag_apply(r->out.frag, p->data, p->caplen, &r->out.frag_rng, o);

	if (n == -EPROTONOSUPPORT)
		return p->caplen > l->seg_max ? stage_cut(r, l, t, p, deadline) : stage_whole(r, l, t, p, deadline);
	if (n < 0) {
		char why[200];

		if (r->out.frag_said) {
			lane_fail(r, l, FATE_FAILED, t, p, NULL);
			return STEP_NEXT;
		}
		r->out.frag_said = true;
		snprintf(why, sizeof(why), "frame of %u bytes not taken by the --fragroute rules: %s; others like it are only counted",
			 p->caplen, n == -ENOSPC ? "they make more frames than one frame may become" : "its IP header is malformed");
		lane_fail(r, l, FATE_FAILED, t, p, why);
		return STEP_NEXT;
	}
	return stage_pieces(r, l, t, p, deadline, o->buf, o->off, o->len, n);
}

bool lane_wait_due(struct replay *r, uint64_t deadline, uint64_t target)
{
	for (;;) {
		int rc;

		/* SIGUSR1, before this wait or during it: this deadline moves with the schedule. */
		if (unlikely(run_suspended(r)) && !*r->stop) {
			uint64_t paused = run_suspend(r);

			deadline += paused;
			target += paused;
		}
		rc = r->plan.timed ? sched_wait_paced(&r->sched, deadline, target)
				   : sched_hold(&r->sched, deadline);
		if (rc != -EINTR)
			return true;
		if (*r->stop)
			return false;
	}
}

void lanes_collect(struct replay *r)
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
	st->segmented = LANES_SUM(r, segmented);
	st->segments = LANES_SUM(r, segments);
	st->gso_frames = LANES_SUM(r, gso_frames);
	st->gso_segments = LANES_SUM(r, gso_segments);
	for (unsigned i = 0; i < r->out.n; i++)
		r->out.lane[i].st.not_ip = r->out.lane[i].tx ? r->out.lane[i].tx->not_ip : 0;
	st->not_ip = LANES_SUM(r, not_ip);
	st->nlanes = r->out.n;
	for (unsigned i = 0; i < r->out.n; i++)
		st->lane[i] = r->out.lane[i].st;
}
