// SPDX-License-Identifier: BSD-2-Clause
/*
 * --threads N: N sender threads under one clock.  Each thread is a whole
 * run of its own (struct replay, opened by replay_open() and
 * replay_open_worker()): its own readers over the same trace files, its
 * own edit chain, flow table and --split classifier, its own socket on
 * each interface (for xdp its own queue of each).
 * Each takes only its shard of the packets -- the flows whose symmetric
 * hash picks it (replay/flowhash.h, src/run/loop.c in_shard()) -- so a flow,
 * both its directions, goes by one thread in its recorded order, and
 * whatever state an edit or the flow statistics keep per flow stays in one
 * thread.  Every thread schedules every packet (its own and the others'),
 * so all work to one absolute schedule from one origin, set here once all
 * are ready: flows interleave on the wire as they were recorded.
 *
 * Why each thread reads the traces itself rather than one reader feeding
 * per-thread rings: a file is mapped, so a second reader costs a walk over
 * pages already in the page cache and one hash per packet, and there is
 * nothing to hand between threads (no ring, no copy, no reader to keep up
 * with N senders).  With --preload thread 0 reads each trace into memory
 * and the others open their readers over that copy (one copy, read once;
 * with AF_XDP every thread's socket sends from it in place).  Standard
 * input, a pipe or a device can be read once: refused without --preload
 * (src/cli/opts.c, and open_inputs() in src/run/setup.c for a named pipe).
 *
 * Two interfaces (-I, --dualfile): every thread has a socket on each and
 * places every packet it reads (its own and the others') on its side, so a
 * stateful classifier (--split first remembers which address was seen
 * first as a source) is fed the whole trace in order in every thread, and
 * all agree; the thread then sends its own packets by the side given.  A
 * flow's two directions hash alike, so they go by one thread, whose two
 * lanes keep their order across the ports (src/run/loop.c, send_one()).
 *
 * Signals: SIGINT and SIGTERM are blocked in the sender threads, so they
 * reach the calling thread (thread 0), whose handler sets the stop flag all
 * threads read; thread 0 then wakes the others out of their sleeps with
 * THREAD_WAKE_SIGNAL until each has stopped and been joined.  Then the
 * accounts are merged: every identity (read = sent + filtered + failed)
 * holds per thread, so it holds for the sums.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run_int.h"
#include "replay/log.h"

/* Wakes a sender thread out of a sleep when the run is stopped (a no-op handler). */
#define THREAD_WAKE_SIGNAL (SIGRTMIN + 1)

/* A timed run's origin is this far after the threads are all ready: none starts late. */
#define THREADS_LEAD_NS (500 * NSEC_PER_USEC)

/* How often thread 0, waiting for the others, looks at the stop flag, ns. */
#define JOIN_POLL_NS (20 * 1000 * NSEC_PER_USEC)

struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned ready;              /* threads set up and waiting for the origin */
	bool go;                     /* the origin is set: start */
};

struct worker {
	struct replay *w;
	struct gate *gate;
	pthread_t tid;
	bool running;                /* created and not yet joined */
};

static void on_wake(int sig)
{
	(void)sig;
}

static void *worker_main(void *arg)
{
	struct worker *k = arg;
	struct replay *w = k->w;

	/* Pinned, and under the real-time policy asked for, on its own thread. */
	rt_setup(&w->rt, &w->rt_cfg);
	for (int i = 0; i < w->rt.nwarn; i++)
		if (strstr(w->rt.warn[i], "--cpu"))
			log_warn("thread %u: %s", w->shard, w->rt.warn[i]);
	pthread_mutex_lock(&k->gate->mu);
	k->gate->ready++;
	pthread_cond_broadcast(&k->gate->cv);
	while (!k->gate->go)
		pthread_cond_wait(&k->gate->cv, &k->gate->mu);
	pthread_mutex_unlock(&k->gate->mu);
	w->status = replay_run(w);
	return NULL;
}

/* Every thread's schedule starts at one origin, on the run clock. */
static void start_all(struct replay *r, struct replay *w, unsigned n)
{
	uint64_t now = sched_now(&r->sched);
	uint64_t origin = r->st.start.set ? r->st.start.origin_ns : now + (r->timed ? THREADS_LEAD_NS : 0);

	for (unsigned i = 0; i < n; i++) {
		struct replay *x = i ? &w[i] : r;

		if (i)
			x->st.start = r->st.start; /* --start-at: each measures its own first send */
		sched_start_from(&x->sched, origin, now);
		x->st.start_ns = origin;
		x->origin_given = true;
	}
}

static void hist_merge(struct hist *into, const struct hist *h)
{
	if (!h->count)
		return;
	if (!into->count || h->min < into->min)
		into->min = h->min;
	if (h->max > into->max)
		into->max = h->max;
	into->count += h->count;
	into->sum += h->sum;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		into->bucket[i] += h->bucket[i];
}

static void sched_merge(struct sched_report *into, const struct sched_report *s)
{
	into->late_stalls += s->late_stalls;
	into->late_packets += s->late_packets;
	into->late_shifted_ns += s->late_shifted_ns;
	into->guard_sleeps += s->guard_sleeps;
	into->plan_chunks += s->plan_chunks;
	into->plan_demotions += s->plan_demotions;
	into->plan_demoted_ns += s->plan_demoted_ns;
	into->plan_costly += s->plan_costly;
	into->plan_contested += s->plan_contested;
	into->late_timer += s->late_timer;
	into->late_plan += s->late_plan;
	into->late_spin += s->late_spin;
	into->late_loop += s->late_loop;
	into->late_read += s->late_read;
	into->late_backpressure += s->late_backpressure;
	into->sleep_overshoots += s->sleep_overshoots;
	into->spin_pauses += s->spin_pauses;
}

static void flows_merge(struct flow_counts *into, const struct flow_counts *c)
{
	into->flows += c->flows;
	into->unique += c->unique;
	into->expired += c->expired;
	into->flow_packets += c->flow_packets;
	into->non_flow += c->non_flow;
	into->invalid += c->invalid;
	into->untracked += c->untracked;
}

/* Thread @x's line of the summary: its totals, and with two interfaces its account on each. */
static void thread_line(struct stats_thread *t, const struct replay *x)
{
	const struct stats *s = &x->st;

	*t = (struct stats_thread){ .cpu = x->o->cpus.n ? (int)x->o->cpus.v[x->shard % x->o->cpus.n] : -1,
				    .method_mode = x->lane[0].mode, .read = s->read, .sent = s->sent,
				    .failed = s->failed, .retried = s->retried, .filtered = s->filtered,
				    .bytes_sent = s->bytes_sent, .late_packets = s->sched.late_packets,
				    .nlanes = x->nlanes };
	for (unsigned i = 0; i < x->nlanes; i++)
		t->lane[i] = s->lane[i];
}

/* Lane @from's counters added into @into (the same side of another thread). */
static void lane_add(struct stats_lane *into, const struct stats_lane *from)
{
	into->read += from->read;
	into->sent += from->sent;
	into->failed += from->failed;
	into->retried += from->retried;
	into->filtered += from->filtered;
	into->bytes_sent += from->bytes_sent;
}

/* Thread 0's account (r->st) becomes the run's: the other threads' added in. */
static int merge(struct replay *r, struct replay *w, unsigned n)
{
	struct stats *st = &r->st;

	r->thread_st = calloc(n, sizeof(*r->thread_st));
	if (!r->thread_st) {
		log_err("out of memory");
		return -1;
	}
	thread_line(&r->thread_st[0], r);
	for (unsigned i = 1; i < n; i++) {
		const struct stats *s = &w[i].st;

		thread_line(&r->thread_st[i], &w[i]);
		st->read += s->read;
		st->sent += s->sent;
		st->failed += s->failed;
		st->retried += s->retried;
		st->filtered += s->filtered;
		st->bytes_sent += s->bytes_sent;
		st->early += s->early;
		/* Each side's account: every thread has the same interfaces, in the same order. */
		for (unsigned l = 0; l < st->nlanes && l < s->nlanes; l++)
			lane_add(&st->lane[l], &s->lane[l]);
		if (s->end_ns > st->end_ns)
			st->end_ns = s->end_ns;
		hist_merge(&st->send_err, &s->send_err);
		if (st->sched.timer)
			sched_merge(&st->sched, &s->sched);
		flows_merge(&st->flows, &s->flows);
		/* --start-at: the run's first packet is the earliest of any thread's. */
		if (s->start.sent && (!st->start.sent || s->start.first_send_ns < st->start.first_send_ns)) {
			st->start.sent = true;
			st->start.first_send_ns = s->start.first_send_ns;
			st->start.error_ns = s->start.error_ns;
		}
	}
	st->nthreads = n;
	st->thread = r->thread_st;
	return 0;
}

int replay_threads_run(struct replay *r, struct replay *w, unsigned n)
{
	struct gate gate = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
	struct worker *k = calloc(n, sizeof(*k));
	struct sigaction sa = { .sa_handler = on_wake }, old;
	sigset_t block, prev;
	unsigned created = 0;
	int status = EXIT_DONE;

	if (!k) {
		log_err("out of memory");
		return EXIT_FAIL;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(THREAD_WAKE_SIGNAL, &sa, &old); /* no SA_RESTART: the sleep ends */
	/* The sender threads inherit a mask without SIGINT and SIGTERM: they come to thread 0. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &prev);
	for (unsigned i = 1; i < n; i++) {
		int rc;

		k[i] = (struct worker){ .w = &w[i], .gate = &gate };
		rc = pthread_create(&k[i].tid, NULL, worker_main, &k[i]);
		if (rc) {
			log_err("--threads %u: cannot start thread %u: %s", n, i, strerror(rc));
			status = EXIT_FAIL;
			*r->stop = SIGTERM; /* the threads that started stop at once; nothing is half-sent */
			break;
		}
		k[i].running = true;
		created++;
	}
	pthread_sigmask(SIG_SETMASK, &prev, NULL);
	pthread_mutex_lock(&gate.mu);
	while (gate.ready < created)
		pthread_cond_wait(&gate.cv, &gate.mu);
	start_all(r, w, n);
	gate.go = true;
	pthread_cond_broadcast(&gate.cv);
	pthread_mutex_unlock(&gate.mu);

	if (replay_run(r) != EXIT_DONE)
		status = EXIT_FAIL;
	for (unsigned i = 1; i < n; i++) {
		if (!k[i].running) {
			/* Never started: its shard was not sent, each packet of it unread; the run failed. */
			w[i].st.start_ns = w[i].st.end_ns = r->st.start_ns;
			continue;
		}
		for (;;) {
			struct timespec ts;
			uint64_t t;

			/* A stop: wake every thread still running out of its sleep, and again until joined. */
			if (*r->stop)
				for (unsigned j = i; j < n; j++)
					if (k[j].running)
						pthread_kill(k[j].tid, THREAD_WAKE_SIGNAL);
			clock_gettime(CLOCK_REALTIME, &ts);
			t = (uint64_t)ts.tv_nsec + JOIN_POLL_NS;
			ts.tv_sec += (time_t)(t / NSEC_PER_SEC);
			ts.tv_nsec = (long)(t % NSEC_PER_SEC);
			if (pthread_timedjoin_np(k[i].tid, NULL, &ts) == 0)
				break;
		}
		k[i].running = false;
		if (w[i].status != EXIT_DONE)
			status = EXIT_FAIL;
	}
	sigaction(THREAD_WAKE_SIGNAL, &old, NULL);
	free(k);
	if (merge(r, w, n) < 0)
		status = EXIT_FAIL;
	return status;
}
