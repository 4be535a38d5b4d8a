// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay: argv -> the prologue (--help, --version, a bad option, the
 * commands that are not runs, the log level) -> a run through libreplay's
 * interface (include/libreplay.h), its lines printed as they come; the
 * only caller of exit codes.  --oneatatime, whose prompt stays on its
 * line, runs directly (replay_main_suspendable()).
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "libreplay.h"
#include "replay/run.h"
#include "replay/log.h"
#include "replay/outfile.h"
#include "replay/bridge.h"
#include "replay/play.h"
#include "replay/prologue.h"
#include "replay/threads_auto.h"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t suspend_signal; /* SIGUSR1s caught: odd, the run is suspended */
static struct replay_run *the_run;

/* --listnics: the interfaces replay could send on, one a line (index and name). */
static int list_nics(void)
{
	struct if_nameindex *ifs = if_nameindex();

	if (!ifs) {
		log_err("cannot list the network interfaces: %s", strerror(errno));
		return EXIT_FAIL;
	}
	for (struct if_nameindex *i = ifs; i->if_index; i++)
		printf("%u\t%s\n", i->if_index, i->if_name);
	if_freenameindex(ifs);
	return EXIT_DONE;
}

/* --save-opts FILE: the options given, as a config file; nothing else happens. */
static int save_opts(const char *path)
{
	struct outfile of = OUTFILE_INIT;
	char err[512];
	FILE *f = outfile_fopen(&of, path, err, sizeof(err));
	int n;

	if (!f) {
		log_err("%s", err);
		return EXIT_FAIL;
	}
	fprintf(f, "# replay %s: options saved by --save-opts (read them back with --load-opts)\n#\n",
		REPLAY_VERSION);
	n = opts_save(f, err, sizeof(err));
	if (n < 0 || outfile_fcommit(&of, f, err, sizeof(err)) < 0) {
		log_err("--save-opts %s: %s", path, err);
		outfile_fclose(&of, f);
		return n < 0 ? EXIT_USAGE : EXIT_FAIL;
	}
	outfile_fclose(&of, f);
	log_info("saved %d option%s to %s", n, n == 1 ? "" : "s", path);
	return EXIT_DONE;
}

/*
 * Commands with their own arguments: "replay impair" (src/cli/cmd_impair.c),
 * "replay live" and "replay serve" (src/play/), "replay bridge" (src/bridge/).
 */
static int subcommand(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "impair"))
		return impair_main(argc - 1, argv + 1);
	/* Recorded conversations against a live server, or served to a live client (src/play/). */
	if (argc > 1 && !strcmp(argv[1], "live"))
		return live_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "serve"))
		return serve_main(argc - 1, argv + 1);
	/* Two ports joined, each direction impaired (src/bridge/). */
	if (argc > 1 && !strcmp(argv[1], "bridge"))
		return bridge_main(argc - 1, argv + 1);
	return -1;
}

static enum log_level level_of(const struct opts *o)
{
	return o->quiet || (o->no_warnings && !o->debug) ? LOG_LVL_ERR
	       : o->debug >= 2 ? LOG_LVL_DEBUG
	       : o->debug ? LOG_LVL_INFO
			  : LOG_LVL_WARN;
}

static int parse(void *opts, struct prologue_flags *fl, int argc, char **argv, char *err,
		 size_t errlen)
{
	struct opts *o = opts;
	int rc = opts_parse(o, argc, argv, err, errlen);

	if (rc < 0)
		return rc;
	fl->help = o->help;
	fl->version = o->version;
	fl->level = level_of(o);
	return 0;
}

static void usage(FILE *f)
{
	opts_usage(f, "replay");
}

/* What ends the program before a run: the commands of their own, then the option warnings. */
static int commands(void *opts)
{
	struct opts *o = opts;
	char err[1024];

	if (o->listnics)
		return list_nics();
	/* Before --save-opts writes: an output onto an input is a bad option, nothing is written. */
	if (replay_check_paths(o, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return EXIT_USAGE;
	}
	if (o->save_opts)
		return save_opts(o->save_opts);
	if (o->pid) {
		/* tcpreplay's -P line, before anything is sent, so a script can signal the run. */
		printf("PID: %d\n", (int)getpid());
		fflush(stdout);
	}
	if (o->info)
		return replay_info(o);
	/* A run's are logged by replay_run_exec(). */
	if (o->prep_cmd || o->run.oneatatime)
		for (unsigned i = 0; i < o->nwarn && !o->no_warnings; i++)
			log_warn("%s", o->warn[i]);
	if (o->prep_cmd)
		return prep_main(o);
	return -1;
}

/* Where the summary goes: stderr when stdout carries data (setup.c's plan()). */
static FILE *summary_stream(const struct opts *o)
{
	bool data = (o->stats_json && !strcmp(o->stats_json, "-")) ||
		    (o->tx.path && !strcmp(o->tx.path, "-")) || (o->send_log && !strcmp(o->send_log, "-"));

	return data ? stderr : stdout;
}

struct printer {
	FILE *status;  /* where the status line is drawn (a terminal), or NULL */
	size_t width;  /* characters of the status line shown */
};

/* The program's own lines, where it prints them; the status line redrawn in place on a terminal. */
static void print_line(void *user, enum replay_stream stream, const char *line)
{
	struct printer *p = user;
	size_t n = strlen(line);
	FILE *f = stream == REPLAY_STREAM_STDERR ? stderr : stdout;

	if (stream == REPLAY_STREAM_STATUS) {
		if (!p->status)
			return;
		/* As progress.c draws it: blank out what a longer line left; "" erases it. */
		if (!*line)
			fprintf(p->status, "\r%*s\r", (int)p->width, "");
		else
			fprintf(p->status, "\r%s%*s", line, p->width > n ? (int)(p->width - n) : 0, "");
		p->width = *line ? n : 0;
		fflush(p->status);
		return;
	}
	fprintf(f, "%s\n", line);
	fflush(f);
}

static void on_stop(int sig)
{
	replay_run_interrupt(the_run, sig);
}

static void on_suspend(int sig)
{
	(void)sig;
	replay_run_pause_toggle(the_run);
}

/* The run through the interface: 0.. its exit status. */
static int run(const struct opts *o, int argc, char **argv)
{
	struct printer pr = { 0 };
	struct sigaction sa;
	char *err = NULL;
	int status;

	if (replay_run_new_argv(&the_run, argc, (const char *const *)argv, &err) < 0) {
		fprintf(stderr, "replay: %s\n", err ? err : "out of memory");
		return EXIT_USAGE;
	}
	replay_set_log(log_print_line, "replay", (int)level_of(o));
	pr.status = isatty(fileno(summary_stream(o))) ? summary_stream(o) : NULL;
	/* No terminal, no status line: the run then keeps none (its ticks cost a timed run). */
	if (!pr.status && replay_run_set_option(the_run, "no-progress", NULL) < 0) {
		fprintf(stderr, "replay: %s\n", replay_run_error(the_run));
		replay_run_free(the_run);
		return EXIT_FAIL;
	}
	replay_run_set_lines(the_run, print_line, &pr);
	replay_run_set_caps(the_run, 1);
	/* From here a signal goes to the run (prologue() set the rest). */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_suspend;
	sigaction(SIGUSR1, &sa, NULL);
	if (stop_signal)
		replay_run_interrupt(the_run, stop_signal);
	replay_run_exec(the_run);
	status = replay_run_exit_status(the_run);
	if (status < 0) {
		fprintf(stderr, "replay: %s\n", replay_run_error(the_run));
		status = EXIT_FAIL;
	}
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	replay_run_free(the_run);
	return status;
}

int main(int argc, char **argv)
{
	static const struct prologue p = {
		.prog = "replay",
		.usage_status = EXIT_USAGE,
		.subcommand = subcommand,
		.parse = parse,
		.usage = usage,
		.commands = commands,
	};
	struct opts o;
	int rc = prologue(&p, &o, argc, argv, &stop_signal);

	if (rc >= 0)
		return rc;
	if (!o.run.oneatatime)
		return run(&o, argc, argv);
	/* No --threads given: at top speed one per TX queue and CPU, where nothing is lost by it. */
	threads_auto_apply(&o);
	prologue_catch_suspend(&suspend_signal);
	return replay_main_suspendable(&o, &stop_signal, &suspend_signal);
}
