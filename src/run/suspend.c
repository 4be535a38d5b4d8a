// SPDX-License-Identifier: BSD-2-Clause
/*
 * SIGUSR1 suspends the run and the next SIGUSR1 resumes it, as in tcpreplay
 * 4.6.  The handler (replay/prologue.h) only counts; the loop looks at the
 * count where a signal would stop it -- when a wait for a deadline is cut
 * short (lane_wait_due()) and after each packet sent (lane_send()) -- and
 * sleeps here, in ppoll() with the signals unblocked, until the count is
 * even again or a stop comes.  Nothing is kicked meanwhile: a frame staged
 * for its deadline stays staged until the deadline, moved back by the time
 * suspended, as the whole schedule is (sched_suspended()), so the recorded
 * gaps go on from where they were.  Frames an impairment holds keep their
 * deadlines.  Called by src/run/lane.c.
 */
#include <poll.h>
#include <signal.h>
#include <time.h>

#include "run_int.h"

/*
 * --threads: the signals come to thread 0 (threads.c); a sender thread
 * looks at the count this often while suspended, sleeping in between, as
 * every thread does when the count is the library's (no signal comes).
 */
#define SUSPEND_POLL_NS 10000000L

uint64_t run_suspend(struct replay *r)
{
	struct timespec poll_ts = { 0, SUSPEND_POLL_NS };
	sigset_t block, old;
	uint64_t t0, paused;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	/* Blocked from the check on: a signal that comes before ppoll() ends it at once. */
	pthread_sigmask(SIG_BLOCK, &block, &old);
	t0 = sched_now(&r->sched);
	while (run_suspended(r) && !*r->stop)
		(void)ppoll(NULL, 0, r->th.idx || r->poll_flags ? &poll_ts : NULL, &old);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	paused = sched_now(&r->sched) - t0;
	sched_suspended(&r->sched, paused);
	for (unsigned i = 0; i < r->out.n; i++) {
		struct lane *l = &r->out.lane[i];

		/* Staged: its deadline moves as much, so its send error stays its own. */
		for (unsigned k = 0; k < l->qn; k++) {
			struct staged *e = &l->q[(l->qhead + k) % l->qcap];

			if (e->deadline_ns)
				e->deadline_ns += paused;
		}
	}
	return paused;
}
