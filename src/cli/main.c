// SPDX-License-Identifier: BSD-2-Clause
/* argv -> options -> replay_main(); the only caller of exit codes. */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "replay/run.h"
#include "replay/log.h"
#include "replay/outfile.h"
#include "replay/threads_auto.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

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

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct opts o;
	char err[512];

	/*
	 * SIGINT and SIGTERM back to their defaults, first: a non-interactive
	 * shell starts a background job with SIGINT (and SIGQUIT) ignored, and
	 * that is inherited, so a SIGINT during the set-up -- before on_signal()
	 * is installed below -- was thrown away and the run (a forwarder that
	 * never ends by itself) went on.  Now it ends the process, as it would
	 * have from a terminal; from the handler on, it stops the run.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	log_init("replay", LOG_LVL_WARN);
	/* A tool for impairment traces with its own arguments (src/cli/cmd_impair.c). */
	if (argc > 1 && !strcmp(argv[1], "impair"))
		return impair_main(argc - 1, argv + 1);
	if (opts_parse(&o, argc, argv, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return EXIT_USAGE;
	}
	if (o.help) {
		opts_usage(stdout, "replay");
		return EXIT_DONE;
	}
	if (o.version) {
		printf("replay %s\n", REPLAY_VERSION);
		return EXIT_DONE;
	}
	if (o.listnics)
		return list_nics();
	if (o.save_opts)
		return save_opts(o.save_opts);
	if (o.pid) {
		/* tcpreplay's -P line, before anything is sent, so a script can signal the run. */
		printf("PID: %d\n", (int)getpid());
		fflush(stdout);
	}
	if (o.info)
		return replay_info(&o);
	log_init("replay", o.quiet || (o.no_warnings && !o.debug) ? LOG_LVL_ERR
				   : o.debug >= 2 ? LOG_LVL_DEBUG
				   : o.debug ? LOG_LVL_INFO
					       : LOG_LVL_WARN);
	for (unsigned i = 0; i < o.nwarn && !o.no_warnings; i++)
		log_warn("%s", o.warn[i]);

	if (o.prep_cmd)
		return prep_main(&o);

	/* No SA_RESTART: a signal must cut a sleep short so the run can stop. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A closed output pipe (-w - | head) is a write error we report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);

	/* No --threads given: at top speed one per TX queue and CPU, where nothing is lost by it. */
	threads_auto_apply(&o);
	return replay_main(&o, &stop_signal);
}
