// SPDX-License-Identifier: BSD-2-Clause
/*
 * --threads N: N sender threads under one clock, each running the same
 * loop over a whole run of its own (opened by replay_open_worker(): its
 * own readers, edit chain, flow table, classifier and socket on each
 * interface) and keeping only its shard of the flows (in_shard() in
 * src/run/loop.c): a flow, both directions, goes by one thread, in order.
 * Every thread schedules every packet, so all work to one schedule from
 * one origin, set here once all are ready.  Signals reach thread 0 only,
 * which wakes the others (THREAD_WAKE_SIGNAL) until each has been joined;
 * then the accounts are merged by their modules (stats_add(),
 * sched_report_add()): every identity holds per thread, so for the sums.
 * Called by src/run/run.c; runs src/run/loop.c.  HACKING.md says why each
 * thread reads the traces itself.
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
	rt_setup(&w->rt, &w->th.rt_cfg);
	for (int i = 0; i < w->rt.nwarn; i++)
		if (strstr(w->rt.warn[i], "--cpu"))
			log_warn("thread %u: %s", w->th.idx, w->rt.warn[i]);
	pthread_mutex_lock(&k->gate->mu);
	k->gate->ready++;
	pthread_cond_broadcast(&k->gate->cv);
	while (!k->gate->go)
		pthread_cond_wait(&k->gate->cv, &k->gate->mu);
	pthread_mutex_unlock(&k->gate->mu);
	w->th.status = replay_run(w);
	return NULL;
}

/* A worker publishes its counts this often at most, with a progress hook: thread 0's sum is this fresh. */
#define THREADS_PUBLISH_NS (10 * 1000 * NSEC_PER_USEC)

/* A worker's hook: its counts where thread 0 reads them; a plain store each, no read-modify-write. */
static void progress_publish(void *ctx, const struct progress_in *in)
{
	struct progress_in *pub = &((struct replay *)ctx)->th.pub;

	__atomic_store_n(&pub->read, in->read, __ATOMIC_RELAXED);
	__atomic_store_n(&pub->bytes, in->bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&pub->failed, in->failed, __ATOMIC_RELAXED);
	__atomic_store_n(&pub->filtered, in->filtered, __ATOMIC_RELAXED);
	/* Last, with release: a reader that sees it sees a read count at least as new (read >= sent). */
	__atomic_store_n(&pub->sent, in->sent, __ATOMIC_RELEASE);
}

/* Thread 0's hook: its own counts and each worker's last published ones, to the caller's. */
static void progress_sum(void *ctx, const struct progress_in *in)
{
	struct replay *r = ctx;
	struct progress_in sum = *in;

	for (unsigned i = 1; i < r->th.n; i++) {
		struct progress_in *pub = &r->th.workers[i].th.pub;

		sum.sent += __atomic_load_n(&pub->sent, __ATOMIC_ACQUIRE);
		sum.read += __atomic_load_n(&pub->read, __ATOMIC_RELAXED);
		sum.bytes += __atomic_load_n(&pub->bytes, __ATOMIC_RELAXED);
		sum.failed += __atomic_load_n(&pub->failed, __ATOMIC_RELAXED);
		sum.filtered += __atomic_load_n(&pub->filtered, __ATOMIC_RELAXED);
	}
	r->th.user_hook(r->th.user_ctx, &sum);
}

/*
 * Thread 0 has sent its share and waits for the others: the caller's calls
 * go on from here, on their cadence (a slot missed is skipped), with thread
 * 0's final counts.
 */
static void progress_waiting(struct replay *r)
{
	struct progress *p = &r->pass.progress;
	struct progress_in in;
	uint64_t now;

	if (!r->th.user_hook || !p->hook || p->hook_next_ns == UINT64_MAX)
		return;
	now = sched_now(&r->sched);
	if (now < p->hook_next_ns)
		return;
	p->hook_next_ns = now - (now - p->hook_next_ns) % p->hook_ns + p->hook_ns;
	in = (struct progress_in){ .read = r->st.read, .sent = r->st.sent, .bytes = r->st.bytes_sent,
				   .failed = r->st.failed, .filtered = r->st.filtered,
				   .elapsed_ns = now > r->st.start_ns ? now - r->st.start_ns : 0 };
	progress_sum(r, &in);
}

void threads_progress_hook(struct replay *r, struct replay *w, unsigned n)
{
	if (!r->pass.hook)
		return;
	r->th.user_hook = r->pass.hook;
	r->th.user_ctx = r->pass.hook_ctx;
	r->pass.hook = progress_sum;
	r->pass.hook_ctx = r;
	for (unsigned i = 1; i < n; i++) {
		w[i].pass.hook = progress_publish;
		w[i].pass.hook_ctx = &w[i];
		w[i].pass.hook_ns = MIN(r->pass.hook_ns, THREADS_PUBLISH_NS);
	}
}

/* Every thread's schedule starts at one origin, on the run clock. */
static void start_all(struct replay *r, struct replay *w, unsigned n)
{
	uint64_t now = sched_now(&r->sched);
	uint64_t origin = r->st.start.set ? r->st.start.origin_ns : now + (r->plan.timed ? THREADS_LEAD_NS : 0);

	for (unsigned i = 0; i < n; i++) {
		struct replay *x = i ? &w[i] : r;

		if (i)
			x->st.start = r->st.start; /* --start-at: each measures its own first send */
		sched_start_from(&x->sched, origin, now);
		x->st.start_ns = origin;
		x->th.origin_given = true;
	}
}

/* Thread @x's line of the summary: its totals, and with two interfaces its account on each. */
static void thread_line(struct stats_thread *t, const struct replay *x)
{
	const struct stats *s = &x->st;

	*t = (struct stats_thread){ .cpu = x->o->cpus.n ? (int)x->o->cpus.v[x->th.idx % x->o->cpus.n] : -1,
				    .method_mode = x->out.lane[0].mode, .read = s->read, .sent = s->sent,
				    .failed = s->failed, .retried = s->retried, .filtered = s->filtered,
				    .bytes_sent = s->bytes_sent, .late_packets = s->sched.late_packets,
				    .nlanes = x->out.n };
	for (unsigned i = 0; i < x->out.n; i++)
		t->lane[i] = s->lane[i];
}

/* Thread 0's account (r->st) becomes the run's: the other threads' added in (every identity holds per thread). */
static int merge(struct replay *r, struct replay *w, unsigned n)
{
	struct stats *st = &r->st;

	r->th.thread_st = calloc(n, sizeof(*r->th.thread_st));
	if (!r->th.thread_st) {
		log_err("out of memory");
		return -1;
	}
	thread_line(&r->th.thread_st[0], r);
	for (unsigned i = 1; i < n; i++) {
		thread_line(&r->th.thread_st[i], &w[i]);
		stats_add(st, &w[i].st);
		if (st->sched.timer)
			sched_report_add(&st->sched, &w[i].st.sched);
	}
	st->nthreads = n;
	st->thread = r->th.thread_st;
	return 0;
}

/*
 * --loop 0: a thread whose share of a pass was all filtered out or failed
 * stops alone, quietly (the others may send theirs).  When every thread
 * did, nothing of the run can ever be sent: said once, for all of them.
 */
static int futile(const struct replay *r, const struct replay *w, unsigned n)
{
	uint64_t read = 0, filtered = 0, failed = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct passes *ps = i ? &w[i].pass : &r->pass;

		if (!ps->futile)
			return 0;
		read += ps->futile_read;
		filtered += ps->futile_filtered;
		failed += ps->futile_failed;
	}
	pass_log_futile(read, filtered, failed);
	return -1;
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
	/*
	 * The sender threads inherit a mask without SIGINT, SIGTERM and SIGUSR1: they come to
	 * thread 0; the others see the flags after their current wait (suspend.c).
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGUSR1);
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

			progress_waiting(r);
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
		if (w[i].th.status != EXIT_DONE)
			status = EXIT_FAIL;
	}
	sigaction(THREAD_WAKE_SIGNAL, &old, NULL);
	free(k);
	if (merge(r, w, n) < 0 || (!*r->stop && futile(r, w, n) < 0))
		status = EXIT_FAIL;
	return status;
}
