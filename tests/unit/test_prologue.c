// SPDX-License-Identifier: BSD-2-Clause
/*
 * The start of both programs' main() (replay/prologue.h): the order of its
 * steps, seen through the signal dispositions and the callbacks it runs.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/prologue.h"

/* What the fake program's options say, and what its callbacks saw. */
struct fake {
	int parse_rc;
	struct prologue_flags fl;
	int subcommand_rc, commands_rc;
	int parsed, usages, commands;
	void (*sigint_at_commands)(int); /* SIGINT's handler when commands() ran */
};

static struct fake *cur;

static int f_subcommand(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cur->subcommand_rc;
}

static int f_parse(void *opts, struct prologue_flags *fl, int argc, char **argv, char *err,
		   size_t errlen)
{
	struct fake *f = opts;

	(void)argc;
	(void)argv;
	f->parsed++;
	if (f->parse_rc < 0) {
		snprintf(err, errlen, "unknown option '--x'");
		return f->parse_rc;
	}
	*fl = f->fl;
	return 0;
}

static void f_usage(FILE *out)
{
	(void)out;
	cur->usages++;
}

static int f_commands(void *opts)
{
	struct fake *f = opts;
	struct sigaction sa;

	f->commands++;
	sigaction(SIGINT, NULL, &sa);
	f->sigint_at_commands = sa.sa_handler;
	return f->commands_rc;
}

static const struct prologue fake_prog = {
	.prog = "fake",
	.usage_status = 2,
	.subcommand = f_subcommand,
	.parse = f_parse,
	.usage = f_usage,
	.commands = f_commands,
};

static volatile sig_atomic_t stop;

/* As a non-interactive shell starts a background job: SIGINT and SIGTERM ignored, SIGPIPE default. */
static int inherit_ignored(void **state)
{
	(void)state;
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	stop = 0;
	return 0;
}

static void (*handler(int sig))(int)
{
	struct sigaction sa;

	sigaction(sig, NULL, &sa);
	return sa.sa_handler;
}

static int run(struct fake *f)
{
	char *argv[] = { "fake", NULL };

	cur = f;
	f->fl.level = f->fl.level ? f->fl.level : LOG_LVL_WARN;
	return prologue(&fake_prog, f, 1, argv, &stop);
}

static void test_bad_option(void **state)
{
	struct fake f = { .parse_rc = -EINVAL, .subcommand_rc = -1, .commands_rc = -1 };

	(void)state;
	assert_int_equal(run(&f), 2);
	assert_int_equal(f.parsed, 1);
	assert_int_equal(f.commands, 0);
	/* The defaults came back first, and no handler was installed. */
	assert_ptr_equal(handler(SIGINT), SIG_DFL);
	assert_ptr_equal(handler(SIGTERM), SIG_DFL);
	assert_ptr_equal(handler(SIGPIPE), SIG_DFL);
}

static void test_subcommand(void **state)
{
	struct fake f = { .subcommand_rc = 3, .commands_rc = -1 };

	(void)state;
	assert_int_equal(run(&f), 3);
	assert_int_equal(f.parsed, 0);
	assert_ptr_equal(handler(SIGINT), SIG_DFL);
}

static void test_help_version(void **state)
{
	struct fake f = { .subcommand_rc = -1, .commands_rc = -1, .fl = { .help = true } };
	char buf[64] = "";
	FILE *out = tmpfile();
	int saved = dup(STDOUT_FILENO);

	(void)state;
	assert_int_equal(run(&f), 0);
	assert_int_equal(f.usages, 1);
	assert_int_equal(f.commands, 0);

	/* --version: one line on stdout, the program's name and version. */
	assert_non_null(out);
	assert_true(saved >= 0);
	fflush(stdout);
	assert_int_equal(dup2(fileno(out), STDOUT_FILENO), STDOUT_FILENO);
	f = (struct fake){ .subcommand_rc = -1, .commands_rc = -1, .fl = { .version = true } };
	assert_int_equal(run(&f), 0);
	fflush(stdout);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	rewind(out);
	assert_non_null(fgets(buf, sizeof(buf), out));
	fclose(out);
	assert_int_equal(strncmp(buf, "fake ", 5), 0);
	assert_non_null(strchr(buf, '\n'));
	assert_int_equal(f.usages, 0);
	assert_int_equal(f.commands, 0);
	assert_ptr_equal(handler(SIGINT), SIG_DFL);
}

/* A command that ends the program runs while SIGINT still ends the process. */
static void test_commands_before_handlers(void **state)
{
	struct fake f = { .subcommand_rc = -1, .commands_rc = 5 };

	(void)state;
	assert_int_equal(run(&f), 5);
	assert_int_equal(f.commands, 1);
	assert_ptr_equal(f.sigint_at_commands, SIG_DFL);
	assert_ptr_equal(handler(SIGINT), SIG_DFL);
	assert_ptr_equal(handler(SIGPIPE), SIG_DFL);
}

/* A run: SIGINT and SIGTERM set the stop flag, cutting a sleep short; SIGPIPE ignored. */
static void test_run(void **state)
{
	struct fake f = { .subcommand_rc = -1, .commands_rc = -1 };
	struct sigaction sa;

	(void)state;
	assert_int_equal(run(&f), -1);
	assert_int_equal(f.commands, 1);
	assert_ptr_equal(f.sigint_at_commands, SIG_DFL);
	assert_ptr_equal(handler(SIGPIPE), SIG_IGN);
	for (int sig = SIGINT; sig; sig = sig == SIGINT ? SIGTERM : 0) {
		sigaction(sig, NULL, &sa);
		assert_true(sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
		assert_false(sa.sa_flags & SA_RESTART);
		stop = 0;
		raise(sig);
		assert_int_equal(stop, sig);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_bad_option, inherit_ignored),
		cmocka_unit_test_setup(test_subcommand, inherit_ignored),
		cmocka_unit_test_setup(test_help_version, inherit_ignored),
		cmocka_unit_test_setup(test_commands_before_handlers, inherit_ignored),
		cmocka_unit_test_setup(test_run, inherit_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
