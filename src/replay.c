// SPDX-License-Identifier: BSD-2-Clause
/*
 * The send loop: the only file that knows every module.  Building the
 * pipeline and taking it down is src/replay_setup.c (replay_open(),
 * replay_close()); here is what happens to each packet.
 *
 *   source               edit                     schedule
 *   trace_next()  --->  edit_chain_apply()  --->  sched_deadline()
 *   one_packet():          | DROP, error               |             output lane
 *   read counted once      |                           v
 *                          |               tx_send() (stage) -> sched_wait() -> tx_flush() (kick)
 *                          |               back-pressure on either: wait_for_room()
 *                          v                           |
 *                      account()  <---- sent, failed --+   (settle_sent(), settle_failed())
 *
 * Every packet read is counted once (one_packet()) and ends in exactly one
 * fate -- sent, filtered, or failed with a reason logged -- through
 * account(), which owns the one rate-limited logger of per-packet failures.
 * Back-pressure is waited out in wait_for_room() and counted as a retry,
 * never a drop.  After the run the scheduler's own account is taken whole
 * (sched_report() into stats.sched).
 *
 * Batching.  The trace's view of a packet is only promised to outlive a
 * bounded amount of later traffic (trace_next(): TRACE_VIEW_KEEP_BYTES for
 * pipes and converted packets; until close for files), so each packet is
 * staged at once: copied into the method's own memory (a ring frame, a
 * UMEM frame, an sendmmsg slot).  The loop keeps
 * a small FIFO of what is staged (record, deadline, length) until the
 * method reports each one handed to the kernel or failed.  When does it
 * kick?
 *   --topspeed            when the batch is full (large batches, few syscalls);
 *   honouring timestamps  a packet whose deadline is still ahead is staged
 *                         first, then waited for, then kicked at once -- the
 *                         kick is all that stands between deadline and wire;
 *                         before waiting, whatever is already staged (due or
 *                         late) is kicked, so only packets that are already
 *                         due ever share a batch.
 *
 * The shape it is to grow into (not built yet; where each piece goes):
 *   sources  run() walks passes x files and hands each (trace, packet) to
 *            one_packet().  More sources (a second trace for a second
 *            interface, a live capture) are more producers of such pairs.
 *   queue    between sched_deadline() and staging, a queue ordered by
 *            deadline: impairment delays and merging two interfaces' traces
 *            make packets due out of read order.  send_one() already takes
 *            the deadline as the packet's key; it would take the earliest
 *            due packet from the queue instead of the one just read.
 *   lanes    r->tx with its staged FIFO (q, qhead, qn, qcap, kick_ns) is one
 *            output lane.  A second interface, queue or sender thread is a
 *            second such set; routing picks the lane before stage_one().
 *   fates    a packet dropped by impairment, or routed to interface 2, is a
 *            new enum fate counted in account(), never a counter bumped
 *            anywhere else.
 */
#include <errno.h>
#include <stdlib.h>

#include "replay_int.h"
#include "replay/compiler.h"
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

/*
 * account() - the end of one packet read, counted once.  @e is the packet
 * (NULL when filtered, or when @why names it); @why is a failure's reason,
 * NULL when it was already logged.  A sent packet's send error is measured
 * at r->settle_ns, when its kick returned.
 */
static inline void account(struct replay *r, enum fate fate, const struct staged *e,
			   const char *why)
{
	switch (fate) {
	case FATE_SENT:
		r->st.sent++;
		r->st.bytes_sent += e->caplen;
		if (r->slog)
			sendlog_add(r->slog, e->id, e->recno, r->kick_ns);
		if (r->timed) {
			if (r->settle_ns >= e->deadline_ns) {
				hist_add(&r->st.send_err, r->settle_ns - e->deadline_ns);
			} else {
				r->st.early++;
				hist_add(&r->st.send_err, 0);
			}
		}
		break;
	case FATE_FILTERED:
		r->st.filtered++;
		break;
	case FATE_FAILED:
	case FATE_EDIT_FAILED:
		r->st.failed++;
		if (why)
			log_failure(r, fate, e, 1, why);
		break;
	}
}

/*
 * --limit counts packets that end sent or failed: every one read and not
 * filtered, including those still staged (they will end one or the other).
 */
static bool limit_reached(const struct replay *r)
{
	return r->o->limit && r->st.read - r->st.filtered >= r->o->limit;
}

static inline bool backpressure(int rc)
{
	return rc == -EAGAIN || rc == -ENOBUFS || rc == -EINTR;
}

/*
 * wait_for_room() - the method answered @rc, back-pressure: wait until it
 * may have room, counted as a retry (a signal's -EINTR is not one).  false,
 * without waiting, when a signal asks the run to stop instead.
 */
static bool wait_for_room(struct replay *r, int rc)
{
	if (*r->stop)
		return false;
	if (rc != -EINTR)
		r->st.retried++;
	tx_wait(r->tx, rc);
	return true;
}

/* The oldest staged packet leaves the FIFO. */
static inline void unstage(struct replay *r)
{
	r->qhead = (r->qhead + 1) % r->qcap;
	r->qn--;
}

/* The @k oldest staged packets were handed to the kernel: count them, measure their send error. */
static void settle_sent(struct replay *r, unsigned k)
{
	if (r->timed)
		r->settle_ns = sched_now(&r->sched);
	for (unsigned i = 0; i < k; i++) {
		account(r, FATE_SENT, &r->q[r->qhead], NULL);
		unstage(r);
	}
}

/* The oldest staged packet failed for @why. */
static void settle_failed(struct replay *r, const char *why)
{
	account(r, FATE_FAILED, &r->q[r->qhead], why);
	unstage(r);
}

/* Every staged packet fails for @why and the method forgets them: nothing of them is sent. */
static void fail_staged(struct replay *r, const char *why)
{
	if (r->qn > 1) {
		/* One line for all of them; each is then counted without another. */
		log_failure(r, FATE_FAILED, &r->q[r->qhead], r->qn, why);
		why = NULL;
	}
	while (r->qn)
		settle_failed(r, why);
	tx_discard(r->tx);
}

/*
 * Kick until nothing is staged: every staged packet ends handed over or
 * failed.  Back-pressure is waited out (counted as retried) unless a signal
 * asks to stop, which fails what is left.
 */
static enum step flush_all(struct replay *r)
{
	while (r->qn) {
		int rc;

		if (r->slog)
			r->kick_ns = sched_now(&r->sched);
		rc = tx_flush(r->tx);

		if (rc > 0) {
			settle_sent(r, (unsigned)rc < r->qn ? (unsigned)rc : r->qn);
			continue;
		}
		if (rc == 0) {
			/* The method lost count of what it holds: a bug, not the network. */
			fail_staged(r, "internal error: the method reported nothing staged");
			return STEP_ERROR;
		}
		if (backpressure(rc)) {
			if (wait_for_room(r, rc))
				continue;
			fail_staged(r, "stopped by a signal while waiting for room to send");
			return STEP_STOP;
		}
		settle_failed(r, tx_strerror(r->tx));
		if (tx_fatal(rc)) {
			fail_staged(r, tx_strerror(r->tx));
			return STEP_ERROR;
		}
	}
	return STEP_NEXT;
}

/*
 * Stage @p (copy it into the method's memory) until it is taken or cannot be.  A
 * full stage is kicked; a method still full after that is waited for.
 */
static enum step stage_one(struct replay *r, const struct trace *t, const struct pkt *p,
			   uint64_t deadline)
{
	struct staged e = { .t = t, .recno = p->recno, .off = p->off, .deadline_ns = deadline,
			    .caplen = p->caplen, .id = r->slog ? sendlog_id(p) : 0 };

	for (;;) {
		int rc = tx_send(r->tx, p, 1);

		if (rc == 1) {
			r->q[(r->qhead + r->qn) % r->qcap] = e;
			r->qn++;
			return STEP_NEXT;
		}
		if (backpressure(rc) && r->qn) {
			enum step step = flush_all(r);

			if (step == STEP_NEXT)
				continue;
			account(r, FATE_FAILED, &e, "not sent: the run stopped before it");
			return step;
		}
		if (backpressure(rc)) {
			if (wait_for_room(r, rc))
				continue;
			account(r, FATE_FAILED, &e, "stopped by a signal while waiting for room to send");
			return STEP_STOP;
		}
		account(r, FATE_FAILED, &e, tx_strerror(r->tx));
		if (tx_fatal(rc)) {
			fail_staged(r, tx_strerror(r->tx));
			return STEP_ERROR;
		}
		return STEP_NEXT;
	}
}

/*
 * One packet from the trace: staged, and kicked when its time comes (see
 * the top of this file).  Every packet ends sent or failed.
 */
static enum step send_one(struct replay *r, const struct trace *t, struct pkt *p)
{
	uint64_t deadline = sched_deadline(&r->sched, p);
	enum step step;

	/* --duration: a packet due after the end is not sent (p->sched_ns: every mode sets it).
	 * The run ends before it, so it is not one of the run's packets read either. */
	if (r->o->duration_ns && p->sched_ns >= r->st.start_ns + r->o->duration_ns) {
		r->st.read--;
		step = flush_all(r);
		return step == STEP_NEXT ? STEP_STOP : step;
	}
	if (r->timed && deadline > sched_now(&r->sched)) {
		/* Not due yet: what is staged is, so it goes now rather than after this wait. */
		step = flush_all(r);
		if (step != STEP_NEXT) {
			struct staged e = { .t = t, .recno = p->recno, .off = p->off };

			account(r, FATE_FAILED, &e, "not sent: the run stopped before it");
			return step;
		}
		step = stage_one(r, t, p, deadline);
		if (step != STEP_NEXT)
			return step;
		/* A signal cuts the wait short; the staged packet then goes at once, as the last. */
		while (sched_wait(&r->sched, deadline) == -EINTR)
			if (*r->stop)
				break;
		step = flush_all(r);
	} else {
		/* Already due: returns at once, but counts a stall (and shifts) if it is late. */
		if (r->timed)
			sched_wait(&r->sched, deadline);
		step = stage_one(r, t, p, deadline);
		if (step == STEP_NEXT && r->qn >= r->qcap)
			step = flush_all(r);
	}
	if (step != STEP_NEXT)
		return step;
	if (*r->stop || limit_reached(r)) {
		step = flush_all(r);
		return step == STEP_NEXT ? STEP_STOP : step;
	}
	return STEP_NEXT;
}

/*
 * One packet read from @t: counted read, converted (or failed), edited
 * (filtered, failed, or changed), then sent.  Every packet ends in one fate.
 */
static enum step one_packet(struct replay *r, const struct trace *t, struct pkt *p)
{
	r->st.read++;
	/* A packet the reader could not make an Ethernet frame of: its reason names it. */
	if (unlikely(p->linktype != LINKTYPE_ETHERNET)) {
		account(r, FATE_FAILED, NULL, trace_strerror(t));
		return *r->stop || limit_reached(r) ? STEP_STOP : STEP_NEXT;
	}
	if (r->chain) {
		int er = edit_chain_apply(r->chain, p);

		if (er == EDIT_DROP) {
			account(r, FATE_FILTERED, NULL, NULL);
			return *r->stop ? STEP_STOP : STEP_NEXT;
		}
		if (er < 0) {
			struct staged e = { .t = t, .recno = p->recno, .off = p->off };

			account(r, FATE_EDIT_FAILED, &e, edit_chain_strerror(r->chain));
			return *r->stop || limit_reached(r) ? STEP_STOP : STEP_NEXT;
		}
	}
	return send_one(r, t, p);
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

/* Returns 0, or -1 when the run ended on an error (already logged). */
static int run(struct replay *r)
{
	const struct opts *o = r->o;
	enum step step = STEP_NEXT;
	struct pkt p;

	r->st.start_ns = sched_start(&r->sched);
	for (uint64_t pass = 0; o->loop == 0 || pass < o->loop; pass++) {
		uint64_t read_before = r->st.read, sent_before = r->st.sent + r->qn;
		uint64_t filtered_before = r->st.filtered, failed_before = r->st.failed;

		if (r->chain)
			edit_chain_set_pass(r->chain, pass); /* --unique-ip's addresses for this pass */
		for (int f = 0; f < o->nfiles; f++) {
			struct trace *t = r->traces[f];
			int rc;

			if (pass || f)
				sched_segment(&r->sched, pass && !f ? o->loopdelay_ns : 0);
			if (pass && (rc = trace_rewind(t)) < 0) {
				log_err("%s", trace_strerror(t));
				return -1;
			}
			while ((rc = trace_next(t, &p)) == 1) {
				step = one_packet(r, t, &p);
				if (step != STEP_NEXT)
					break;
			}
			if (!pass)
				report_warnings(t);
			if (rc == -EINTR && *r->stop)
				return 0; /* a signal while waiting for a pipe: stopped, not failed */
			if (rc < 0) {
				log_err("%s", trace_strerror(t));
				return -1;
			}
			if (step == STEP_ERROR)
				return -1;
			if (step == STEP_STOP)
				return 0;
		}
		/* Endless loops over traces without packets would spin forever doing nothing. */
		if (r->st.read == read_before) {
			if (!*r->stop)
				log_warn("the traces hold no packets; nothing to send");
			return 0;
		}
		/* ... and so would endless loops in which every packet is filtered out or fails. */
		if (o->loop == 0 && r->st.sent + r->qn == sent_before && !*r->stop) {
			log_err("--loop 0: a whole pass over the traces sent nothing (%llu packets read: %llu filtered or excluded, %llu failed); stopping",
				(unsigned long long)(r->st.read - read_before),
				(unsigned long long)(r->st.filtered - filtered_before),
				(unsigned long long)(r->st.failed - failed_before));
			return -1;
		}
	}
	return 0;
}

/* replay_input_wait() - the reader waits for a pipe: what is staged goes now, not after the input's next record. */
void replay_input_wait(void *arg)
{
	struct replay *r = arg;

	if (r->tx && r->qn)
		(void)flush_all(r); /* a failure is counted; the next send meets it again */
}

int replay_main(const struct opts *o, volatile sig_atomic_t *stop)
{
	return replay_main_hooked(o, stop, NULL);
}

/* Open everything, run the loop, send what is left, drain, then report and close. */
int replay_main_hooked(const struct opts *o, volatile sig_atomic_t *stop,
		       const struct replay_hooks *hooks)
{
	struct replay r;
	int status = EXIT_DONE;

	if (replay_open(&r, o, stop, hooks) < 0)
		return EXIT_FAIL;
	if (r.stopped)
		r.st.start_ns = sched_now(&r.sched);
	else if (run(&r) < 0)
		status = EXIT_FAIL;
	/* The end of the traces (or a read error) leaves the last batch staged: it goes too. */
	if (flush_all(&r) == STEP_ERROR)
		status = EXIT_FAIL;
	/* Drain even after an error or a signal: what was accepted must leave, and be counted. */
	if (tx_drain(r.tx) < 0) {
		log_err("%s", tx_strerror(r.tx));
		status = EXIT_FAIL;
	}
	r.st.end_ns = sched_now(&r.sched);
	if (r.timed)
		sched_report(&r.sched, &r.st.sched);
	return replay_close(&r, status);
}
