// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay live and replay serve: options, the traces into conversations,
 * a line for each conversation that cannot be played, the engine, the
 * summary and the JSON, the exit status.  The top level of the two
 * subcommands: the only code of src/play/ that prints.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "replay/log.h"
#include "replay/outfile.h"
#include "replay/prologue.h"
#include "replay/run.h"
#include "play_int.h"

static volatile sig_atomic_t stop_signal;

/* Every trace into one set of conversations; -1 after saying why. */
static int read_traces(int argc, char **argv, int first, struct conv_set **set)
{
	struct conv_build *b;
	char err[512];

	if (conv_build_new(&b) < 0) {
		log_err("out of memory");
		return -1;
	}
	for (int i = first; i < argc; i++)
		if (conv_build_read(b, argv[i], err, sizeof(err)) < 0) {
			log_err("%s", err);
			conv_build_free(b);
			return -1;
		}
	if (conv_build_finish(b, set) < 0) {
		log_err("out of memory");
		return -1;
	}
	return 0;
}

static int write_json(const char *path, const struct play_report *rep, const struct conv_set *set)
{
	struct outfile of = OUTFILE_INIT;
	char err[512];
	FILE *f = outfile_fopen(&of, path, err, sizeof(err));
	int rc;

	if (!f) {
		log_err("--stats-json: %s", err);
		return -1;
	}
	rc = play_report_json(rep, set, f);
	if (rc < 0 || outfile_fcommit(&of, f, err, sizeof(err)) < 0) {
		log_err("--stats-json %s: %s", path, rc < 0 ? strerror(-rc) : err);
		outfile_fclose(&of, f);
		return -1;
	}
	outfile_fclose(&of, f);
	return 0;
}

enum role {
	ROLE_LIVE,
	ROLE_SERVE,
};

static int run(enum role role, int argc, char **argv)
{
	const struct opt_set *set = role == ROLE_LIVE ? play_live_set() : play_serve_set();
	struct play_cfg cfg;
	struct conv_set *cs = NULL;
	struct conv_mask mask;
	struct play_report rep = { 0 };
	char err[1024];
	int first, rc, status = EXIT_FAIL;
	uint64_t skipped = 0;

	memset(&mask, 0, sizeof(mask));
	if (play_opts_parse(set, &cfg, argc, argv, &first, err, sizeof(err)) < 0) {
		log_err("%s %s", argv[0], err);
		return EXIT_USAGE;
	}
	if (cfg.help) {
		opts_set_usage(set, stdout, "replay");
		return EXIT_DONE;
	}
	if (cfg.version) {
		printf("replay %s\n", REPLAY_VERSION);
		return EXIT_DONE;
	}
	log_init("replay", cfg.quiet ? LOG_LVL_ERR : cfg.verbose >= 2 ? LOG_LVL_DEBUG
					       : cfg.verbose ? LOG_LVL_INFO : LOG_LVL_WARN);
	if (conv_mask_init(&mask, cfg.mask_header.v, cfg.mask_header.n, cfg.mask.v, cfg.mask.n, err,
			   sizeof(err)) < 0) {
		log_err("%s --mask: %s", argv[0], err);
		return EXIT_USAGE;
	}
	if (cfg.stats_json) {
		struct outfile_use u[64];
		size_t n = 0;

		for (int i = first; i < argc && n + 1 < ARRAY_SIZE(u); i++)
			u[n++] = (struct outfile_use){ argv[i], "input", false };
		u[n++] = (struct outfile_use){ cfg.stats_json, "--stats-json", true };
		if (outfile_check(u, n, err, sizeof(err)) < 0) {
			log_err("%s", err);
			status = EXIT_USAGE;
			goto out;
		}
	}
	if (read_traces(argc, argv, first, &cs) < 0)
		goto out;
	/* One line for every conversation that cannot be played, counted as not played. */
	for (uint32_t i = 0; i < cs->n; i++) {
		char why[512];
		const struct conv *c = cs->v[i];
		bool ok = role == ROLE_LIVE ? play_playable(&cfg, c, why, sizeof(why))
					    : !conv_refusal(c, CONV_SERVER, why, sizeof(why));

		if (!ok) {
			skipped++;
			log_warn("%s", why);
		} else if (role == ROLE_LIVE && conv_refusal(c, CONV_SERVER, why, sizeof(why))) {
			log_warn("%s (its reply is not compared)", why);
		}
	}
	log_info("%u conversations in %d file%s (%llu TCP and %llu UDP frames, %llu other, %llu fragments, %llu malformed)",
		 cs->n, argc - first, argc - first == 1 ? "" : "s", (unsigned long long)cs->st.tcp,
		 (unsigned long long)cs->st.udp, (unsigned long long)cs->st.other,
		 (unsigned long long)cs->st.fragments, (unsigned long long)cs->st.malformed);
	if (!cs->n) {
		log_err("no TCP or UDP conversation in the input");
		goto out;
	}
	prologue_catch_signals(&stop_signal);
	if (role == ROLE_SERVE)
		rc = play_serve(&cfg, cs, &stop_signal, &rep, err, sizeof(err));
	else if (cfg.exact)
		rc = play_exact(&cfg, cs, &mask, &stop_signal, &rep, err, sizeof(err));
	else
		rc = play_client(&cfg, cs, &mask, &stop_signal, &rep, err, sizeof(err));
	if (rc < 0) {
		log_err("%s: %s", argv[0], err);
		goto out;
	}
	/* With --stats-json -, standard output is the JSON's: the summary goes to standard error. */
	if (!cfg.quiet)
		play_report_print(&rep, cs, cfg.mismatch_max,
				  cfg.stats_json && !strcmp(cfg.stats_json, "-") ? stderr : stdout);
	fflush(stdout);
	if (cfg.stats_json && write_json(cfg.stats_json, &rep, cs) < 0)
		goto out;
	status = EXIT_DONE;
	for (int v = 0; v < PLAY_VERDICT_MAX; v++)
		if (v != PLAY_OK && rep.verdicts[v])
			status = EXIT_FAIL;
	if (role == ROLE_SERVE && rep.unmatched)
		status = EXIT_FAIL;
	if (role == ROLE_LIVE && skipped)
		status = EXIT_FAIL;
out:
	conv_mask_free(&mask);
	play_report_free(&rep);
	conv_set_free(cs);
	return status;
}

int live_main(int argc, char **argv)
{
	return run(ROLE_LIVE, argc, argv);
}

int serve_main(int argc, char **argv)
{
	return run(ROLE_SERVE, argc, argv);
}
