// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay-rx: argv -> the prologue (--help, --version, a bad option, the log
 * level) -> a capture through libreplay's interface (include/libreplay.h),
 * its lines printed as they come; the only caller of exit codes.  What is
 * the process's stays here: the signals, the capabilities.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "libreplay.h"
#include "replay/caps.h"
#include "replay/log.h"
#include "replay/prologue.h"
#include "rx.h"

static volatile sig_atomic_t stop_signal; /* a signal before the capture had a handle */
static struct replay_rx *the_rx;

static enum log_level level_of(const struct rx_opts *o)
{
	return o->quiet ? LOG_LVL_ERR
	       : o->verbose >= 2 ? LOG_LVL_DEBUG
	       : o->verbose ? LOG_LVL_INFO
			    : LOG_LVL_WARN;
}

static int parse(void *opts, struct prologue_flags *fl, int argc, char **argv, char *err,
		 size_t errlen)
{
	struct rx_opts *o = opts;
	int rc = rx_opts_parse(o, argc, argv, err, errlen);

	if (rc < 0)
		return rc;
	fl->help = o->help;
	fl->version = o->version;
	fl->level = level_of(o);
	return 0;
}

/* The program's own lines, where it prints them. */
static void print_line(void *user, enum replay_stream stream, const char *line)
{
	FILE *f = stream == REPLAY_STREAM_STDERR ? stderr : stdout;

	(void)user;
	fprintf(f, "%s\n", line);
	fflush(f);
}

static pthread_t main_thread;

/*
 * SIGINT, SIGTERM: the capture's interrupt.  The capture runs on the
 * receiver's thread, where a blocking call of its set-up (an open() of a
 * FIFO reference) is what the signal must cut short: the first time on this
 * thread, the signals stay blocked here from the handler's return on (its
 * saved mask) and the signal is sent again, to the one thread left taking
 * it.  Each step is async-signal-safe.
 */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;

	(void)si;
	replay_rx_interrupt(the_rx, sig);
	if (pthread_equal(pthread_self(), main_thread)) {
		sigaddset(&u->uc_sigmask, SIGINT);
		sigaddset(&u->uc_sigmask, SIGTERM);
		kill(getpid(), sig);
	}
}

/*
 * Capturing on an interface needs cap_net_raw (the packet socket) and, with
 * --hw-timestamps, cap_net_admin (SIOCSHWTSTAMP, set at start and restored
 * at close): refused before anything is opened without them, naming them.
 */
static int require_caps(const struct rx_opts *o)
{
	uint64_t need = o->intf ? CAPS_NET_RAW | (o->hw_ts ? CAPS_NET_ADMIN : 0) : 0;
	char why[128], err[1024];

	snprintf(why, sizeof(why), "capturing on %s%s", o->intf ? o->intf : "",
		 o->hw_ts ? " with --hw-timestamps" : "");
	if (caps_require(need, "replay-rx", why, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return -1;
	}
	return 0;
}

/*
 * The capture open, before its first frame: all but what closing needs
 * dropped (the output files are put in place after the capture: root may
 * need CAPS_FILES for it).  Capabilities are per thread: called on the
 * receiver's thread (its ready callback), then on this one.
 */
static int drop_caps(void *user)
{
	const struct rx_opts *o = user;
	bool outputs = o->json || o->write_path || o->plot_dir;
	int rc = caps_drop((o->hw_ts ? CAPS_NET_ADMIN : 0) | (outputs ? CAPS_FILES : 0));

	if (rc < 0)
		fprintf(stderr, "replay-rx: cannot drop capabilities: %s\n", strerror(-rc));
	return rc < 0;
}

int main(int argc, char **argv)
{
	static const struct prologue p = {
		.prog = "replay-rx",
		.usage_status = RX_EXIT_USAGE,
		.parse = parse,
		.usage = rx_opts_usage,
	};
	struct sigaction sa;
	struct rx_opts o;
	char *err = NULL;
	int rc = prologue(&p, &o, argc, argv, &stop_signal), status;

	if (rc >= 0)
		return rc;
	if (require_caps(&o) < 0)
		return RX_EXIT_FAIL;
	if (replay_rx_new_argv(&the_rx, argc, (const char *const *)argv, &err) < 0) {
		fprintf(stderr, "replay-rx: %s\n", err ? err : "out of memory");
		return RX_EXIT_USAGE;
	}
	replay_set_log(log_print_line, "replay-rx", (int)level_of(&o));
	replay_rx_set_lines(the_rx, print_line, NULL);
	replay_rx_set_ready(the_rx, drop_caps, &o);
	/* From here a signal ends the capture, not the report (prologue() set the rest). */
	main_thread = pthread_self();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (stop_signal)
		replay_rx_interrupt(the_rx, stop_signal);
	rc = replay_rx_start(the_rx);
	if (rc == 0 && drop_caps(&o))
		replay_rx_interrupt(the_rx, SIGTERM);
	if (rc == 0)
		replay_rx_wait(the_rx);
	status = replay_rx_exit_status(the_rx);
	if (status < 0) { /* no capture was made: the thread could not start */
		fprintf(stderr, "replay-rx: %s\n", replay_rx_error(the_rx));
		status = RX_EXIT_FAIL;
	}
	/* The report is written: a signal now changes nothing, as before. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	replay_rx_free(the_rx);
	return status;
}
