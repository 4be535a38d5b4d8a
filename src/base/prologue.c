// SPDX-License-Identifier: BSD-2-Clause
/* The start of both programs' main() (replay/prologue.h). */
#include <string.h>

#include "config.h"
#include "replay/prologue.h"

static volatile sig_atomic_t *stop_flag;
static volatile sig_atomic_t *suspend_toggles;

static void on_signal(int sig)
{
	*stop_flag = sig;
}

/* Only this handler writes the count, and SIGUSR1 is blocked while it runs. */
static void on_suspend(int sig)
{
	(void)sig;
	*suspend_toggles = *suspend_toggles + 1;
}

static void set_handler(void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int prologue(const struct prologue *p, void *opts, int argc, char **argv,
	     volatile sig_atomic_t *stop)
{
	struct prologue_flags fl = { .level = LOG_LVL_WARN };
	char err[512];
	int rc;

	set_handler(SIG_DFL);
	log_init(p->prog, LOG_LVL_WARN);
	if (p->subcommand && (rc = p->subcommand(argc, argv)) >= 0)
		return rc;
	if (p->parse(opts, &fl, argc, argv, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return p->usage_status;
	}
	if (fl.help) {
		p->usage(stdout);
		return 0;
	}
	if (fl.version) {
		printf("%s %s\n", p->prog, REPLAY_VERSION);
		return 0;
	}
	log_init(p->prog, fl.level);
	if (p->commands && (rc = p->commands(opts)) >= 0)
		return rc;
	prologue_catch_signals(stop);
	return -1;
}

void prologue_catch_suspend(volatile sig_atomic_t *toggles)
{
	struct sigaction sa;

	suspend_toggles = toggles;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_suspend;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

void prologue_catch_signals(volatile sig_atomic_t *stop)
{
	stop_flag = stop;
	set_handler(on_signal);
	signal(SIGPIPE, SIG_IGN);
}
