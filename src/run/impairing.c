// SPDX-License-Identifier: BSD-2-Clause
/*
 * The impairment stage (--impair, --loss, ...): each packet from the
 * source takes its action from the engine (src/impair/) -- dropped, sent
 * at once, or held until its impaired deadline, corrupted on a private
 * copy, with copies each at its own deadline.  A held frame is copied into
 * a slot made resident before the run (replay/slots.h) and queued by
 * deadline (replay/dqueue.h); the loop sends whichever producer is due
 * first, the source or this queue.  Every end is counted: a dropped packet
 * as FATE_IMPAIRED, a copy when it is made, so that read + copies = sent +
 * filtered + failed + impaired-dropped.  Opened by src/run/setup.c, run by
 * src/run/loop.c; sends through src/run/lane.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lane.h"
#include "replay/log.h"

/* The engine's sources: each --impair trace, then the model (a packet in no trace's flow takes its action). */
static int open_engine(struct replay *r)
{
	const struct opts_impair *m = &r->o->impair;
	struct impair_cfg *cfg = calloc(m->n + 1, sizeof(*cfg));
	size_t n = 0;
	char err[1024];
	int rc;

	if (!cfg) {
		log_err("impairment: out of memory");
		return -1;
	}
	for (unsigned i = 0; i < m->n; i++, n++) {
		cfg[n].path = m->src[i].path;
		cfg[n].filter = m->src[i].filter;
		cfg[n].repeat = m->src[i].repeat; /* its own, or the global (opts_impair_check()) */
		cfg[n].dflt = m->src[i].dflt;
		cfg[n].seed = m->seed;
		cfg[n].stop = r->stop;
	}
	if (m->stat_given && impair_stat_active(&m->stat)) {
		cfg[n].stat = &m->stat;
		cfg[n].repeat = 1;
		impair_action_pass(&cfg[n].dflt);
		cfg[n].seed = m->seed;
		n++;
	}
	rc = impair_open(&r->imp.im, cfg, n, err, sizeof(err));
	free(cfg);
	if (rc < 0)
		log_err("%s", err);
	if (rc > 0)
		r->stopped = true; /* a signal while a long trace was checked: stopped before the first packet */
	return rc < 0 ? -1 : 0;
}

int impair_stage_open(struct replay *r)
{
	const struct opts_impair *m = &r->o->impair;
	struct impairing *ip = &r->imp;
	uint32_t slot = 0;

	if (!m->n && !m->stat_given)
		return 0;
	if (open_engine(r) < 0)
		return -1;
	/*
	 * A slot holds the largest frame the traces declare (their snaplen),
	 * with room for the edits to grow it (VLAN tags); a longer one fails,
	 * named.  Frames up to 2 KiB take slots made resident here, before the
	 * clock starts: a page fault per held frame made the first 10 ms of a
	 * delayed run 15 ms late (include/replay/slots.h).
	 */
	for (int i = 0; i < r->src.nfiles && r->src.traces; i++)
		for (unsigned k = 0; r->src.traces[i] && k < trace_ninterfaces(r->src.traces[i]); k++) {
			uint32_t sl = trace_interface(r->src.traces[i], k)->snaplen;

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
	log_err("impairment: out of memory (--impair-limit %u frames of %u bytes)", m->limit, slot);
	return -1;
}

void impair_stage_close(struct replay *r)
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

/* Hold a copy of @p (corrupted by @a's corruptions if @a) on lane @l until @key. */
static void hold(struct replay *r, const struct trace *t, const struct pkt *p, struct lane *l,
		 uint64_t key, const struct impair_action *a)
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
		return;
	}
	slot = slots_get(&ip->slots, p->caplen, &buf);
	if (unlikely(slot < 0)) {
		lane_fail(r, l, FATE_FAILED, t, p, "longer than the snapshot length the traces declare: no impairment slot holds it");
		return;
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
}

/*
 * @step from sending one of an action's frames: --limit (a STEP_STOP
 * without a signal) only ends the reading, so the action's other frames
 * still go, and the stop is said once they have (*@limited).
 */
static enum step soft(struct replay *r, enum step step, bool *limited)
{
	if (step == STEP_STOP && !*r->stop) {
		*limited = true;
		return STEP_NEXT;
	}
	return step;
}

/* The packet itself as the action has it: delayed (held), corrupted on a copy, or as it is. */
static enum step act_on(struct replay *r, struct item *it, const struct impair_action *a,
			uint64_t base)
{
	struct impairing *ip = &r->imp;
	struct pkt q;

	if (a->delay_ns) {
		hold(r, it->t, it->p, it->l, base + a->delay_ns, a->ncorrupt ? a : NULL);
		return STEP_NEXT;
	}
	if (!a->ncorrupt)
		return lane_send_or_fail(r, it->l, it->t, it->p, it->deadline);
	q = *it->p;
	memcpy(ip->scratch, it->p->data, it->p->caplen);
	impair_corrupt_apply(ip->im, a, ip->scratch, it->p->caplen);
	q.data = ip->scratch;
	return lane_send_or_fail(r, it->l, it->t, &q, it->deadline);
}

/*
 * Every held frame is due after @it (the loop sends the earlier producer
 * first), so a frame without delay goes straight to its lane.
 */
enum step impair_stage(struct replay *r, struct item *it)
{
	struct impairing *ip = &r->imp;
	struct impair_action *a = ip->act;
	uint64_t base = it->p->sched_ns;
	bool limited = false;
	enum step step;
	int rc;

	rc = impair_next(ip->im, it->p, base, a);
	if (unlikely(rc < 0)) {
		lane_fail(r, it->l, FATE_FAILED, it->t, it->p, impair_strerror(ip->im));
		return STEP_ERROR;
	}
	if (rc == 0)
		return lane_send_or_fail(r, it->l, it->t, it->p, it->deadline);
	if (a->drop) {
		account(r, it->l, FATE_IMPAIRED, NULL, NULL);
		return *r->stop || limit_reached(r) ? STEP_STOP : STEP_NEXT;
	}
	step = soft(r, act_on(r, it, a, base), &limited);
	/* The copies: exact copies of the frame before corruption, each at its own deadline. */
	for (unsigned i = 0; i < a->ndup && step == STEP_NEXT; i++) {
		it->l->st.impair_copies++;
		if (a->dup_delay_ns[i])
			hold(r, it->t, it->p, it->l, base + a->dup_delay_ns[i], NULL);
		else
			step = soft(r, lane_send_or_fail(r, it->l, it->t, it->p, it->deadline), &limited);
	}
	/*
	 * A signal ends the run here too, held frames or not (they fail in
	 * impair_fail_held()); and --limit counts a held frame now, as it will
	 * end sent or failed: the reading stops at the limit even when every
	 * packet is held.
	 */
	if (step == STEP_NEXT && (limited || *r->stop || limit_reached(r)))
		return STEP_STOP;
	return step;
}

enum step impair_send_held(struct replay *r, uint64_t *mark)
{
	struct impairing *ip = &r->imp;
	const struct dq_entry *top = dq_peek(&ip->dq);
	uint64_t deadline, now;
	bool left = false, due;
	struct dq_entry e;
	struct held *h;
	enum step step;

	if (unlikely(!top))
		return STEP_NEXT; /* the loop looks first: nothing held, nothing to send */
	deadline = top->deadline_ns;
	h = top->data;
	now = sched_now(&r->sched);
	due = deadline <= now;

	/* Late if it went more than the threshold after its deadline: found so, or when its kick returned. */
	if (r->plan.timed && due && now > deadline + r->plan.late_threshold_ns)
		impair_count_late(ip->im);
	step = lane_send(r, h->l, h->t, &h->p, deadline, true, &left);
	if (left)
		return step; /* still held: it fails with the others (impair_fail_held()) */
	if (r->plan.timed && !due && step == STEP_NEXT &&
	    h->l->settle_ns > deadline + r->plan.late_threshold_ns)
		impair_count_late(ip->im);
	(void)dq_pop(&ip->dq, &e);
	slots_put(&ip->slots, h->slot);
	ip->nheld--;
	*mark = deadline;
	return step;
}

void impair_fail_held(struct replay *r)
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
