// SPDX-License-Identifier: BSD-2-Clause
/*
 * The run from end to end: open every input and output (src/run/setup.c),
 * run the loop -- on this thread, or with --threads on each thread
 * (src/run/threads.c) -- report, and take it all down.  The entry points
 * of include/replay/run.h; nothing in the run calls back up into it.
 */
#include "run_int.h"

static int run_main(const struct opts *o, volatile sig_atomic_t *stop, volatile sig_atomic_t *suspend,
		    const struct replay_hooks *hooks)
{
	struct replay r;
	int status;

	if (replay_open(&r, o, stop, suspend, hooks) < 0)
		return EXIT_FAIL;
	if (r.th.n > 1)
		status = replay_threads_run(&r, r.th.workers, r.th.n);
	else
		status = replay_run(&r);
	status = replay_report(&r, status);
	if (hooks && hooks->done)
		hooks->done(hooks->ctx, &r.st, status);
	replay_teardown(&r);
	return status;
}

int replay_main(const struct opts *o, volatile sig_atomic_t *stop)
{
	return run_main(o, stop, NULL, NULL);
}

int replay_main_suspendable(const struct opts *o, volatile sig_atomic_t *stop,
			    volatile sig_atomic_t *suspend)
{
	return run_main(o, stop, suspend, NULL);
}

int replay_main_hooked(const struct opts *o, volatile sig_atomic_t *stop,
		       const struct replay_hooks *hooks)
{
	return run_main(o, stop, hooks ? hooks->suspend : NULL, hooks);
}
