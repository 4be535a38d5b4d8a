// SPDX-License-Identifier: BSD-2-Clause
/*
 * libreplay's receiver (include/libreplay.h): replay-rx's engine
 * (rx_engine_run()) on a thread of its own, started once its capture is
 * open, stopped as a signal would, its report kept in the handle.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreplay.h"
#include "lib_int.h"
#include "rx.h"

struct replay_rx {
	char **argv;                 /* owned copies: the parsed options point into them */
	int argc;
	struct rx_opts o;
	volatile sig_atomic_t stop;  /* the signal ending the capture: replay_rx_interrupt() */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool started, ready, done;   /* a thread runs; its capture is open; it ended */
	int status;                  /* replay-rx's exit status */
	char *json, *report;
	char err[1024];
	/* replay_rx_set_progress() */
	int (*progress_fn)(void *user, const struct replay_rx_progress *p);
	void *progress_user;
	uint64_t progress_ns;
	struct replay_rx_progress last; /* the last call's counts */
	/* replay_rx_set_ready() */
	int (*ready_fn)(void *user);
	void *ready_user;
	/* replay_rx_set_lines() */
	replay_line_fn lines_fn;
	void *lines_user;
};

static void free_argv(struct replay_rx *x)
{
	for (int i = 0; i < x->argc; i++)
		free(x->argv[i]);
	free(x->argv);
	x->argv = NULL;
	x->argc = 0;
}

void replay_rx_free(struct replay_rx *x)
{
	if (!x)
		return;
	if (x->started)
		replay_rx_stop(x);
	free_argv(x);
	free(x->json);
	free(x->report);
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	free(x);
}

int replay_rx_new_argv(struct replay_rx **rx, int argc, const char *const *argv, char **err_out)
{
	struct replay_rx *x;
	const char *cmd;
	int rc;

	*rx = NULL;
	if (err_out)
		*err_out = NULL;
	if (argc < 1 || !argv)
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x || !(x->argv = calloc((size_t)argc + 1, sizeof(*x->argv)))) {
		free(x);
		return -ENOMEM;
	}
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	for (; x->argc < argc; x->argc++)
		if (!(x->argv[x->argc] = strdup(argv[x->argc]))) {
			replay_rx_free(x);
			return -ENOMEM;
		}
	pthread_mutex_lock(&lib_parse_mu);
	rc = rx_opts_parse(&x->o, x->argc, x->argv, x->err, sizeof(x->err));
	pthread_mutex_unlock(&lib_parse_mu);
	cmd = x->o.help ? "--help" : x->o.version ? "--version" : NULL;
	if (rc == 0 && cmd) {
		snprintf(x->err, sizeof(x->err), "%s is replay-rx(1)'s, not a capture's", cmd);
		rc = -EINVAL;
	}
	if (rc < 0) {
		if (err_out)
			*err_out = strdup(x->err);
		replay_rx_free(x);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	*rx = x;
	return 0;
}

static void on_ready(void *ctx)
{
	struct replay_rx *x = ctx;

	/* The capture is open, nothing read yet: the caller may drop its rights here. */
	if (x->ready_fn && x->ready_fn(x->ready_user))
		x->stop = SIGINT;
	pthread_mutex_lock(&x->mu);
	x->ready = true;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

/* hooks.progress: the counts to the caller's function; a non-zero return stops the capture. */
static void on_progress(void *ctx, uint64_t frames, uint64_t bytes, uint64_t elapsed_ns, bool done)
{
	struct replay_rx *x = ctx;
	struct replay_rx_progress p = { .frames = frames, .bytes = bytes, .elapsed_ns = elapsed_ns,
					.done = done };

	x->last = p;
	if (x->progress_fn(x->progress_user, &p) && !done)
		x->stop = SIGINT;
}

static void *rx_thread(void *arg)
{
	struct replay_rx *x = arg;
	char *jbuf = NULL, *rbuf = NULL;
	size_t jlen = 0, rlen = 0;
	FILE *json = open_memstream(&jbuf, &jlen), *report = open_memstream(&rbuf, &rlen);
	FILE *out = NULL, *err = NULL;
	bool lines_ok = true;
	struct rx_hooks hooks = { .report = report, .json = json, .keep_caps = true,
				  .ready = on_ready, .ctx = x,
				  .progress = x->progress_fn ? on_progress : NULL,
				  .progress_ns = x->progress_ns };
	int status = RX_EXIT_FAIL;

	if (x->lines_fn) {
		hooks.out = out = lib_lines_open(x->lines_fn, x->lines_user, REPLAY_STREAM_STDOUT, NULL);
		hooks.err = err = lib_lines_open(x->lines_fn, x->lines_user, REPLAY_STREAM_STDERR, NULL);
		lines_ok = out && err;
	}
	lib_log_begin(x->err, sizeof(x->err), false);
	if (json && report && lines_ok)
		status = rx_engine_run(&x->o, &x->stop, &hooks);
	else
		snprintf(x->err, sizeof(x->err), "out of memory");
	/* A live capture that failed after it began still gets its last call: the counts seen. */
	if (x->progress_fn && x->ready && !x->last.done)
		on_progress(x, x->last.frames, x->last.bytes, x->last.elapsed_ns, true);
	lib_log_end();
	if (out)
		fclose(out);
	if (err)
		fclose(err);
	if (json)
		fclose(json);
	if (report)
		fclose(report);
	pthread_mutex_lock(&x->mu);
	x->json = jbuf && jlen ? jbuf : NULL;
	x->report = rbuf && rlen ? rbuf : NULL; /* NULL, as documented, when there is no report */
	if (!x->json)
		free(jbuf);
	if (!x->report)
		free(rbuf);
	x->status = status;
	x->done = true;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	return NULL;
}

int replay_rx_start(struct replay_rx *x)
{
	int rc;

	if (!x)
		return -EINVAL;
	if (x->started)
		return -EBUSY;
	free(x->json);
	free(x->report);
	x->json = x->report = NULL;
	*x->err = '\0';
	x->ready = x->done = false;
	x->last = (struct replay_rx_progress){ 0 };
	x->started = true; /* before the thread: a setter called from its callbacks sees it */
	rc = pthread_create(&x->th, NULL, rx_thread, x);
	if (rc) {
		x->started = false;
		snprintf(x->err, sizeof(x->err), "cannot start the receiver's thread: %s", strerror(rc));
		return -rc;
	}
	pthread_mutex_lock(&x->mu);
	while (!x->ready && !x->done)
		pthread_cond_wait(&x->cv, &x->mu);
	rc = x->done && x->status != RX_EXIT_OK && x->status != RX_EXIT_MISMATCH ? -EIO : 0;
	pthread_mutex_unlock(&x->mu);
	if (rc < 0) {
		pthread_join(x->th, NULL);
		x->started = false;
		x->stop = 0;
	}
	return rc;
}

/* The thread's end: its status as the interface's return. */
static int join(struct replay_rx *x)
{
	if (!x->started)
		return x->done ? 0 : -EINVAL;
	pthread_join(x->th, NULL);
	x->started = false;
	x->stop = 0; /* an interrupt applies to one capture */
	if (x->status == RX_EXIT_OK || x->status == RX_EXIT_MISMATCH)
		return 0;
	if (!*x->err)
		snprintf(x->err, sizeof(x->err), "the capture failed (exit status %d)", x->status);
	return -EIO;
}

int replay_rx_wait(struct replay_rx *x)
{
	return x ? join(x) : -EINVAL;
}

int replay_rx_stop(struct replay_rx *x)
{
	if (!x)
		return -EINVAL;
	if (x->started)
		replay_rx_interrupt(x, SIGINT);
	return join(x);
}

int replay_rx_interrupt(struct replay_rx *x, int signo)
{
	if (!x || signo < 0 || signo >= 128)
		return -EINVAL;
	x->stop = signo ? signo : SIGINT;
	return 0;
}

int replay_rx_set_lines(struct replay_rx *x, replay_line_fn fn, void *user)
{
	if (!x)
		return -EINVAL;
	if (x->started)
		return -EBUSY;
	x->lines_fn = fn;
	x->lines_user = fn ? user : NULL;
	return 0;
}

int replay_rx_set_progress(struct replay_rx *x, uint64_t interval_ns,
			   int (*fn)(void *user, const struct replay_rx_progress *p), void *user)
{
	if (!x)
		return -EINVAL;
	if (x->started)
		return -EBUSY;
	x->progress_fn = fn;
	x->progress_user = fn ? user : NULL;
	x->progress_ns = fn ? interval_ns : 0;
	return 0;
}

int replay_rx_set_ready(struct replay_rx *x, int (*fn)(void *user), void *user)
{
	if (!x)
		return -EINVAL;
	if (x->started)
		return -EBUSY;
	x->ready_fn = fn;
	x->ready_user = fn ? user : NULL;
	return 0;
}

int replay_rx_exit_status(const struct replay_rx *x)
{
	return x && x->done ? x->status : -1;
}

const char *replay_rx_report_json(const struct replay_rx *x)
{
	return x && x->done ? x->json : NULL;
}

const char *replay_rx_report(const struct replay_rx *x)
{
	return x && x->done ? x->report : NULL;
}

const char *replay_rx_error(const struct replay_rx *x)
{
	return x ? x->err : "no receiver";
}
