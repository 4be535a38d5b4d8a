// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loop passes and progress.  Each pass over the file list is told apart
 * by snapshots of the totals at its start and end (--stats-json's
 * "passes": what happened during it, with what was in flight); at its end
 * --stats 0 prints its lines and two guards stop endless runs that do
 * nothing: traces without packets, and (--loop 0) a pass in which every
 * packet was filtered out or failed.  The status line, --stats N lines and
 * the caller's progress hook are drawn from the lanes' counters.  Called
 * by src/run/source.c at each pass's end and by src/run/loop.c; calls
 * src/run/lane.c (a kick).
 */
#include "lane.h"
#include "replay/log.h"

/*
 * What a pass did towards sending: sent, still staged, held back, or
 * dropped on purpose by impairment (whose actions may differ next pass).
 * Unchanged over a pass: every packet of it was filtered out or failed.
 */
static uint64_t moved(const struct replay *r)
{
	uint64_t n = dq_len(&r->imp.dq);

	for (unsigned i = 0; i < r->out.n; i++)
		n += r->out.lane[i].st.sent + r->out.lane[i].qn + r->out.lane[i].st.impair_dropped;
	return n;
}

/* The status line or --stats lines, at run clock @now. */
static void progress_in_now(struct replay *r, uint64_t now, struct progress_in *in)
{
	*in = (struct progress_in){
		.sent = LANES_SUM(r, sent),
		.bytes = LANES_SUM(r, bytes_sent),
		.failed = LANES_SUM(r, failed),
		.read = LANES_SUM(r, read),
		.filtered = LANES_SUM(r, filtered),
		.elapsed_ns = now > r->st.start_ns ? now - r->st.start_ns : 0,
		.err_p99_ns = r->st.send_err.count ? hist_pct(&r->st.send_err, 0.99) : UINT64_MAX,
		.stalls = r->sched.late_stalls,
	};
}

void progress_show(struct replay *r, uint64_t now)
{
	struct progress_in in;

	progress_in_now(r, now, &in);
	progress_tick(&r->pass.progress, now, &in);
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
		.segmented = LANES_SUM(r, segmented),
		.segments = LANES_SUM(r, segments),
		.in_flight = dq_len(&r->imp.dq),
	};
	for (unsigned i = 0; i < r->out.n; i++)
		c->in_flight += r->out.lane[i].qn;
}

/*
 * Nothing is kicked for a pass's record (a batch may span two passes):
 * what is staged or held back then is counted as in flight.
 */
void pass_record(struct replay *r, uint64_t now)
{
	struct stats_counts c;

	counts_now(r, &c);
	if (stats_pass_end(&r->st, now, &c) < 0)
		log_warn("--stats-json: out of memory for the loop passes; only the totals are written");
}

/* A pass begins at run clock @now: the counters are remembered, to tell at its end what it did. */
static void pass_begin(struct replay *r, uint64_t now)
{
	struct passes *ps = &r->pass;

	if (r->st.passes_on) {
		struct stats_counts c;

		counts_now(r, &c);
		stats_pass_begin(&r->st, now, &c);
	}
	ps->read_before = LANES_SUM(r, read);
	ps->moved_before = moved(r);
	ps->filtered_before = LANES_SUM(r, filtered);
	ps->failed_before = LANES_SUM(r, failed);
	if (r->chain)
		edit_chain_set_pass(r->chain, r->src.pass); /* --unique-ip's addresses for this pass */
}

void pass_start(struct replay *r)
{
	bool as_lines = r->plan.progress == PROGRESS_LINE && r->rep.status;

	progress_init(&r->pass.progress, r->plan.progress, r->plan.stats_s,
		      as_lines ? r->rep.status : r->rep.summary, r->st.start_ns);
	r->pass.progress.lines = as_lines;
	progress_set_hook(&r->pass.progress, r->pass.hook_ns, r->pass.hook, r->pass.hook_ctx,
			  r->st.start_ns);
	/* A snapshot of the counters at each pass's end, for --stats-json to write. */
	r->st.passes_on = r->plan.passes_json;
	pass_begin(r, r->st.start_ns);
}

void pass_next(struct replay *r)
{
	uint64_t now = 0;

	if (r->st.passes_on) {
		now = sched_now(&r->sched);
		pass_record(r, now);
	}
	pass_begin(r, now);
}

void pass_log_futile(uint64_t read, uint64_t filtered, uint64_t failed)
{
	log_err("--loop 0: a whole pass over the traces sent nothing (%llu packets read: %llu filtered or excluded, %llu failed); stopping",
		(unsigned long long)read, (unsigned long long)filtered, (unsigned long long)failed);
}

enum step pass_end(struct replay *r)
{
	struct passes *ps = &r->pass;
	uint64_t read = LANES_SUM(r, read);

	if (r->plan.progress == PROGRESS_STATS && !r->plan.stats_s) {
		struct progress_in in;
		uint64_t now;

		/* --stats 0: the pass's packets are out and counted before its line. */
		if (flush_all(r) == STEP_ERROR)
			return STEP_ERROR;
		now = sched_now(&r->sched);
		progress_in_now(r, now, &in);
		progress_pass_end(&ps->progress, now, &in);
	}
	/* Endless loops over traces without packets would spin forever doing nothing. */
	if (read == ps->read_before) {
		/* --threads: this thread's shard of a pass was empty, not the traces. */
		if (!*r->stop && !(r->th.n > 1 && r->th.skipped))
			log_warn("the traces hold no packets; nothing to send");
		return STEP_STOP;
	}
	/* ... and so would endless loops in which nothing can ever be sent. */
	if (!r->plan.passes && moved(r) == ps->moved_before && !*r->stop) {
		ps->futile = true;
		ps->futile_read = read - ps->read_before;
		ps->futile_filtered = LANES_SUM(r, filtered) - ps->filtered_before;
		ps->futile_failed = LANES_SUM(r, failed) - ps->failed_before;
		if (r->th.n > 1)
			return STEP_STOP; /* this thread's share: the others may send theirs */
		pass_log_futile(ps->futile_read, ps->futile_filtered, ps->futile_failed);
		return STEP_ERROR;
	}
	return STEP_NEXT;
}
