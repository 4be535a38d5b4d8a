// SPDX-License-Identifier: BSD-2-Clause
/*
 * libreplay's runs (include/libreplay.h): the program's option parser and
 * replay_main_hooked(), with the summary and the log kept in the handle
 * instead of printed, and no capability, signal or exit of the program's
 * main() (src/cli/main.c, src/base/prologue.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "libreplay.h"
#include "lib_int.h"
#include "replay/optparse.h"
#include "replay/progress.h"
#include "replay/run.h"
#include "replay/stats.h"
#include "replay/threads_auto.h"

struct replay_run {
	char **args;                 /* options as given (argv[0] first), then the files */
	size_t nargs, cap;
	char **files;                /* the setters' files, after "--" */
	size_t nfiles, fcap;
	char **argv;                 /* what was parsed: the parsed options point into it */
	struct opt_argv store;
	struct opts o;
	bool parsed;
	volatile sig_atomic_t stop;
	atomic_bool running;
	bool have_stats;
	struct replay_stats st;
	char *json, *summary;
	char err[1024];
	/* replay_run_set_progress() */
	int (*progress_fn)(void *user, const struct replay_stats *st);
	void *progress_user;
	uint64_t progress_ns;
	/* replay_run_set_ready() */
	int (*ready_fn)(void *user);
	void *ready_user;
	/* replay_run_set_lines() */
	replay_line_fn lines_fn;
	void *lines_user;
	volatile sig_atomic_t suspend; /* replay_run_pause_toggle()'s count: odd, suspended */
	bool caps;                     /* replay_run_set_caps() */
	int status;                    /* replay_run_exit_status(): -1 before a run */
};

/* The engine's modules keep some state of the process's (the log, the live source's file name): one run at a time. */
static pthread_mutex_t run_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lib_parse_mu = PTHREAD_MUTEX_INITIALIZER;

const char *replay_version(void)
{
	return REPLAY_VERSION;
}

static int push(char ***v, size_t *n, size_t *cap, const char *s)
{
	char *dup;

	if (*n + 1 >= *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		char **nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	dup = strdup(s);
	if (!dup)
		return -ENOMEM;
	(*v)[(*n)++] = dup;
	(*v)[*n] = NULL;
	return 0;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int replay_run_new(struct replay_run **run)
{
	struct replay_run *r = calloc(1, sizeof(*r));

	*run = NULL;
	if (!r)
		return -ENOMEM;
	r->status = -1;
	if (push(&r->args, &r->nargs, &r->cap, "replay") < 0) {
		free(r);
		return -ENOMEM;
	}
	*run = r;
	return 0;
}

/* The program's commands that end it, which a run has no use for. */
static const char *not_a_run(const struct opts *o)
{
	return o->help ? "--help" : o->version ? "--version" : o->listnics ? "--listnics"
	       : o->info ? "--info" : o->save_opts ? "--save-opts" : o->prep_cmd ? "replay prep" : NULL;
}

/* args (and files) -> r->o; 0 or -EINVAL with the reason in r->err. */
static int parse(struct replay_run *r)
{
	size_t n = 0;
	const char *cmd;
	int rc;

	free(r->argv);
	r->argv = calloc(r->nargs + r->nfiles + 2, sizeof(*r->argv));
	if (!r->argv) {
		snprintf(r->err, sizeof(r->err), "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nargs; i++)
		r->argv[n++] = r->args[i];
	if (r->nfiles)
		r->argv[n++] = "--";
	for (size_t i = 0; i < r->nfiles; i++)
		r->argv[n++] = r->files[i];
	r->parsed = false;
	pthread_mutex_lock(&lib_parse_mu);
	rc = opts_parse_into(&r->o, &r->store, (int)n, r->argv, r->err, sizeof(r->err));
	pthread_mutex_unlock(&lib_parse_mu);
	if (rc < 0)
		return rc == -ENOMEM ? rc : -EINVAL;
	cmd = not_a_run(&r->o);
	if (cmd) {
		snprintf(r->err, sizeof(r->err), "%s is replay(1)'s, not a run's", cmd);
		return -EINVAL;
	}
	r->parsed = true;
	return 0;
}

int replay_run_new_argv(struct replay_run **run, int argc, const char *const *argv, char **err_out)
{
	struct replay_run *r;
	int rc;

	if (err_out)
		*err_out = NULL;
	*run = NULL;
	if (argc < 1 || !argv)
		return -EINVAL;
	rc = replay_run_new(&r);
	if (rc < 0)
		return rc;
	for (int i = 1; i < argc && rc == 0; i++)
		rc = push(&r->args, &r->nargs, &r->cap, argv[i]);
	if (rc == 0)
		rc = parse(r);
	if (rc < 0) {
		if (err_out)
			*err_out = strdup(*r->err ? r->err : strerror(-rc));
		replay_run_free(r);
		return rc;
	}
	*run = r;
	return 0;
}

int replay_run_add_file(struct replay_run *run, const char *path)
{
	if (!run || !path)
		return -EINVAL;
	run->parsed = false;
	return push(&run->files, &run->nfiles, &run->fcap, path);
}

int replay_run_set_option(struct replay_run *run, const char *name, const char *value)
{
	char opt[128];
	int rc;

	if (!run || !name || !*name || name[0] == '-' || strlen(name) + 3 > sizeof(opt))
		return -EINVAL;
	snprintf(opt, sizeof(opt), "--%s", name);
	run->parsed = false;
	rc = push(&run->args, &run->nargs, &run->cap, opt);
	if (rc == 0 && value)
		rc = push(&run->args, &run->nargs, &run->cap, value);
	return rc;
}

static int set_num(struct replay_run *run, const char *name, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.17g", v);
	return replay_run_set_option(run, name, buf);
}

static int set_u64(struct replay_run *run, const char *name, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return replay_run_set_option(run, name, buf);
}

int replay_run_set_interface(struct replay_run *run, const char *ifname)
{
	return replay_run_set_option(run, "intf1", ifname);
}

int replay_run_set_output_file(struct replay_run *run, const char *path)
{
	return replay_run_set_option(run, "write", path);
}

int replay_run_set_pps(struct replay_run *run, double pps)
{
	return set_num(run, "pps", pps);
}

int replay_run_set_mbps(struct replay_run *run, double mbps)
{
	return set_num(run, "mbps", mbps);
}

int replay_run_set_speed(struct replay_run *run, double multiplier)
{
	return set_num(run, "speed", multiplier);
}

int replay_run_set_topspeed(struct replay_run *run)
{
	return replay_run_set_option(run, "topspeed", NULL);
}

int replay_run_set_loop(struct replay_run *run, uint64_t passes)
{
	return set_u64(run, "loop", passes);
}

int replay_run_set_limit(struct replay_run *run, uint64_t packets)
{
	return set_u64(run, "limit", packets);
}

/* hooks.done: the account, copied while the run still holds it. */
static void run_done(void *ctx, const struct stats *st, int status)
{
	struct replay_run *r = ctx;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	r->st = (struct replay_stats){
		.packets_read = st->read,
		.packets_sent = st->sent,
		.packets_failed = st->failed,
		.packets_filtered = st->filtered,
		.bytes_sent = st->bytes_sent,
		.duration_ns = st->end_ns > st->start_ns ? st->end_ns - st->start_ns : 0,
		.exit_status = status,
	};
	r->have_stats = true;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	if (stats_write_json(st, f) < 0) {
		fclose(f);
		free(buf);
		return;
	}
	fclose(f);
	r->json = buf;
}

/* hooks.progress: the counts so far to the caller's function; a non-zero return stops the run. */
static void run_progress(void *ctx, const struct progress_in *in)
{
	struct replay_run *r = ctx;
	struct replay_stats st = {
		.packets_read = in->read,
		.packets_sent = in->sent,
		.packets_failed = in->failed,
		.packets_filtered = in->filtered,
		.bytes_sent = in->bytes,
		.duration_ns = in->elapsed_ns,
		.stopped = r->stop != 0,
		.exit_status = -1, /* not ended */
	};

	if (r->progress_fn(r->progress_user, &st))
		r->stop = SIGINT;
}

/* hooks.ready: set-up is over; the caller's function, whose non-zero return stops the run unsent. */
static int run_ready(void *ctx)
{
	struct replay_run *r = ctx;

	return r->ready_fn(r->ready_user);
}

/* The run's streams, each that was opened (lines streams hand over a last unended line). */
static void close_streams(FILE *out, FILE *err, FILE *status, FILE *summary)
{
	FILE *f[] = { out, err, status, summary };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i])
			fclose(f[i]);
}

/* Under run_mu: the parsed options, run with the summary and the log kept here. */
static int exec_locked(struct replay_run *r)
{
	struct opts o = r->o;
	char *sbuf = NULL;
	size_t slen = 0;
	FILE *summary = open_memstream(&sbuf, &slen);
	struct replay_hooks hooks = { .summary = summary, .done = run_done, .ctx = r,
				      .progress = r->progress_fn ? run_progress : NULL,
				      .progress_ns = r->progress_ns,
				      .ready = r->ready_fn ? run_ready : NULL,
				      .suspend = &r->suspend, .caps = r->caps };
	FILE *out = NULL, *err = NULL, *status_f = NULL;
	int status;

	/* The lines to the caller's function, each also kept for replay_run_summary() (the status line not). */
	if (summary && r->lines_fn) {
		hooks.out = out = lib_lines_open(r->lines_fn, r->lines_user, REPLAY_STREAM_STDOUT, summary);
		hooks.err = err = lib_lines_open(r->lines_fn, r->lines_user, REPLAY_STREAM_STDERR, summary);
		hooks.status = status_f = lib_lines_open(r->lines_fn, r->lines_user, REPLAY_STREAM_STATUS, NULL);
	}
	if (!summary || (r->lines_fn && (!out || !err || !status_f))) {
		close_streams(out, err, status_f, summary);
		free(sbuf);
		snprintf(r->err, sizeof(r->err), "out of memory");
		return -ENOMEM;
	}
	lib_log_begin(r->err, sizeof(r->err), true);
	for (unsigned i = 0; i < o.nwarn && !o.no_warnings; i++)
		log_warn("%s", o.warn[i]);
	/* No --threads given: as the program decides it (one per TX queue at top speed). */
	threads_auto_apply(&o);
	status = replay_main_hooked(&o, &r->stop, &hooks);
	lib_log_end();
	close_streams(out, err, status_f, summary);
	__atomic_store_n(&r->suspend, 0, __ATOMIC_RELAXED); /* the next run starts resumed */
	r->summary = sbuf;
	if (!r->have_stats)
		r->st = (struct replay_stats){ .exit_status = status };
	r->st.stopped = r->stop != 0;
	if (status == EXIT_DONE || r->stop) {
		*r->err = '\0';
		return 0;
	}
	if (!*r->err)
		snprintf(r->err, sizeof(r->err), "the run failed (exit status %d)", status);
	return -EIO;
}

int replay_run_exec(struct replay_run *r)
{
	bool began;
	int rc = 0;

	if (!r)
		return -EINVAL;
	if (atomic_exchange(&r->running, true))
		return -EBUSY;
	pthread_mutex_lock(&run_mu);
	*r->err = '\0';
	free(r->json);
	free(r->summary);
	r->json = r->summary = NULL;
	r->have_stats = false;
	memset(&r->st, 0, sizeof(r->st));
	if (!r->parsed)
		rc = parse(r);
	began = rc == 0;
	if (rc == 0 && r->stop) { /* stopped before it began: nothing is opened or sent */
		r->st.stopped = 1;
		r->st.exit_status = 128 + r->stop;
	} else if (rc == 0) {
		rc = exec_locked(r);
	}
	r->status = rc == -EINVAL && !began ? EXIT_USAGE : r->st.exit_status;
	r->stop = 0;
	pthread_mutex_unlock(&run_mu);
	/* The end's call, with what replay_run_stats() gives; unlocked: it may run another handle. */
	if (began && r->progress_fn)
		r->progress_fn(r->progress_user, &r->st);
	atomic_store(&r->running, false);
	return rc;
}

int replay_run_set_progress(struct replay_run *run, uint64_t interval_ns,
			    int (*fn)(void *user, const struct replay_stats *st), void *user)
{
	if (!run)
		return -EINVAL;
	if (atomic_load(&run->running))
		return -EBUSY;
	run->progress_fn = fn;
	run->progress_user = fn ? user : NULL;
	run->progress_ns = fn ? interval_ns : 0;
	return 0;
}

int replay_run_set_ready(struct replay_run *run, int (*fn)(void *user), void *user)
{
	if (!run)
		return -EINVAL;
	if (atomic_load(&run->running))
		return -EBUSY;
	run->ready_fn = fn;
	run->ready_user = fn ? user : NULL;
	return 0;
}

int replay_run_set_lines(struct replay_run *run, replay_line_fn fn, void *user)
{
	if (!run)
		return -EINVAL;
	if (atomic_load(&run->running))
		return -EBUSY;
	run->lines_fn = fn;
	run->lines_user = fn ? user : NULL;
	return 0;
}

int replay_run_exit_status(const struct replay_run *run)
{
	return run ? run->status : -1;
}

int replay_run_pause_toggle(struct replay_run *run)
{
	if (!run)
		return -EINVAL;
	/* One lock-free add: async-signal-safe, and no toggle lost to another thread's. */
	__atomic_fetch_add(&run->suspend, 1, __ATOMIC_RELAXED);
	return 0;
}

int replay_run_set_caps(struct replay_run *run, int manage)
{
	if (!run)
		return -EINVAL;
	if (atomic_load(&run->running))
		return -EBUSY;
	run->caps = manage != 0;
	return 0;
}

int replay_run_stop(struct replay_run *run)
{
	return replay_run_interrupt(run, SIGINT);
}

int replay_run_interrupt(struct replay_run *run, int signo)
{
	if (!run || signo < 0 || signo >= 128)
		return -EINVAL;
	run->stop = signo ? signo : SIGINT;
	return 0;
}

int replay_run_stats(const struct replay_run *run, struct replay_stats *st, size_t size)
{
	if (!run || !st)
		return -EINVAL;
	if (!run->have_stats && !run->st.stopped)
		return -ENODATA;
	memcpy(st, &run->st, size < sizeof(run->st) ? size : sizeof(run->st));
	return 0;
}

const char *replay_run_stats_json(const struct replay_run *run)
{
	return run ? run->json : NULL;
}

const char *replay_run_summary(const struct replay_run *run)
{
	return run ? run->summary : NULL;
}

const char *replay_run_error(const struct replay_run *run)
{
	return run ? run->err : "no run";
}

void replay_run_free(struct replay_run *run)
{
	if (!run)
		return;
	opt_argv_free(&run->store);
	free(run->argv);
	strv_free(run->args, run->nargs);
	strv_free(run->files, run->nfiles);
	free(run->json);
	free(run->summary);
	free(run);
}
