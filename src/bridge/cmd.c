// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay bridge IF1 IF2: the options, the bridge, a summary per
 * direction, the JSON and the exit status.  The only code of src/bridge/
 * that prints, but for the first line of each kind of failure
 * (src/bridge/bridge.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "replay/bridge.h"
#include "replay/json.h"
#include "replay/log.h"
#include "replay/outfile.h"
#include "replay/prologue.h"
#include "replay/run.h"

#define ULL(x) ((unsigned long long)(x))

static volatile sig_atomic_t stop_signal;

/* The directions forwarded: ab alone with --unidir. */
static int dirs(const struct bridge_cfg *cfg)
{
	return cfg->unidir ? 1 : BRIDGE_DIRS;
}

static void print_summary(const struct bridge *b, int ndirs, FILE *f)
{
	for (int d = 0; d < ndirs; d++) {
		const struct bridge_dir_stats *st = bridge_stats(b, (enum bridge_dir)d);
		const struct impair_stats *im = bridge_impair_stats(b, (enum bridge_dir)d);

		fprintf(
		    f,
		    "%s: %llu received, %llu forwarded (%llu bytes), %llu dropped by impairment, "
		    "%llu dropped by the limit, %llu failed\n",
		    bridge_name(b, (enum bridge_dir)d), ULL(st->received), ULL(st->forwarded),
		    ULL(st->bytes), ULL(st->dropped_impair), ULL(st->dropped_limit),
		    ULL(st->failed));
		fprintf(f,
			"%s: %llu copies made, %llu too long for a port, %llu held at the stop, "
			"%llu late, "
			"at most %u held; %llu dropped by the kernel before capture\n",
			bridge_name(b, (enum bridge_dir)d), ULL(st->copies), ULL(st->too_long),
			ULL(st->held_at_stop), ULL(st->late), st->held_peak,
			ULL(st->kernel_dropped));
		if (st->send_error.count)
			fprintf(f,
				"%s: held frames sent after their deadline by p50 %.1f us, p99 %.1f us, "
				"p99.9 %.1f us, max %.1f us\n",
				bridge_name(b, (enum bridge_dir)d),
				(double)hist_pct(&st->send_error, 0.5) / 1e3,
				(double)hist_pct(&st->send_error, 0.99) / 1e3,
				(double)hist_pct(&st->send_error, 0.999) / 1e3,
				(double)st->send_error.max / 1e3);
		if (st->dropped_own_mac + st->dropped_learned + st->dropped_martian)
			fprintf(f,
				"%s: %llu from the ports' own MACs, %llu from a MAC of the other "
				"side, %llu martians, not forwarded\n",
				bridge_name(b, (enum bridge_dir)d), ULL(st->dropped_own_mac),
				ULL(st->dropped_learned), ULL(st->dropped_martian));
		if (bridge_edits(b, (enum bridge_dir)d))
			fprintf(f, "%s: %llu edited, %llu dropped by the edits, %llu failed in an edit\n",
				bridge_name(b, (enum bridge_dir)d), ULL(st->edited),
				ULL(st->dropped_edit), ULL(st->edit_failed));
		if (im)
			impair_stats_print(im, f);
	}
}

static void dir_json(struct json *w, const struct bridge *b, const char *const ifs[2], int d)
{
	const struct bridge_dir_stats *st = bridge_stats(b, (enum bridge_dir)d);
	const struct impair_stats *im = bridge_impair_stats(b, (enum bridge_dir)d);

	json_object(w, NULL);
	json_str(w, "direction", d == BRIDGE_AB ? "ab" : "ba");
	json_str(w, "from", ifs[d]);
	json_str(w, "to", ifs[!d]);
	json_uint(w, "received", st->received);
	json_uint(w, "copies", st->copies);
	json_uint(w, "forwarded", st->forwarded);
	json_uint(w, "bytes", st->bytes);
	json_uint(w, "dropped_impair", st->dropped_impair);
	json_uint(w, "dropped_limit", st->dropped_limit);
	json_uint(w, "failed", st->failed);
	json_uint(w, "too_long", st->too_long);
	json_uint(w, "held_at_stop", st->held_at_stop);
	json_uint(w, "late", st->late);
	json_uint(w, "held_peak", st->held_peak);
	json_uint(w, "kernel_captured", st->kernel_captured);
	json_uint(w, "kernel_dropped", st->kernel_dropped);
	json_uint(w, "edited", st->edited);
	json_uint(w, "dropped_edit", st->dropped_edit);
	json_uint(w, "edit_failed", st->edit_failed);
	json_uint(w, "dropped_own_mac", st->dropped_own_mac);
	json_uint(w, "dropped_learned", st->dropped_learned);
	json_uint(w, "dropped_martian", st->dropped_martian);
	json_object(w, "send_error_ns");
	json_uint(w, "count", st->send_error.count);
	json_uint(w, "p50", hist_pct(&st->send_error, 0.5));
	json_uint(w, "p90", hist_pct(&st->send_error, 0.9));
	json_uint(w, "p99", hist_pct(&st->send_error, 0.99));
	json_uint(w, "p999", hist_pct(&st->send_error, 0.999));
	json_uint(w, "max", st->send_error.max);
	json_double(w, "mean", hist_mean(&st->send_error), 1);
	json_end(w);
	if (im)
		impair_stats_json(w, "impairment", im);
	json_end(w);
}

static int write_json(const char *path, const struct bridge *b, const char *const ifs[2], int ndirs,
		      int sig)
{
	struct outfile of = OUTFILE_INIT;
	char err[512];
	FILE *f = outfile_fopen(&of, path, err, sizeof(err));
	struct json w;
	uint64_t margin;
	int rc, poll;

	if (!f) {
		log_err("--stats-json: %s", err);
		return -1;
	}
	json_init(&w, f);
	json_object(&w, NULL);
	json_array(&w, "interfaces");
	json_str(&w, NULL, ifs[0]);
	json_str(&w, NULL, ifs[1]);
	json_end(&w);
	json_str(&w, "stopped_by", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : NULL);
	json_bool(&w, "unidir", ndirs == 1);
	poll = bridge_poll_mode(b, &margin);
	json_str(&w, "poll", opt_enum_name(bridge_poll_choices, poll));
	json_uint(&w, "spin_margin_ns", margin);
	json_array(&w, "directions");
	for (int d = 0; d < ndirs; d++)
		dir_json(&w, b, ifs, d);
	json_end(&w);
	json_end(&w);
	fputc('\n', f);
	rc = json_finish(&w);
	if (rc < 0 || outfile_fcommit(&of, f, err, sizeof(err)) < 0) {
		log_err("--stats-json %s: %s", path, rc < 0 ? strerror(-rc) : err);
		outfile_fclose(&of, f);
		return -1;
	}
	outfile_fclose(&of, f);
	return 0;
}

/* The held frames a stop failed, in one line. */
static void say_held(const struct bridge *b, int sig)
{
	const struct bridge_dir_stats *ab = bridge_stats(b, BRIDGE_AB),
				      *ba = bridge_stats(b, BRIDGE_BA);

	if (ab->held_at_stop + ba->held_at_stop)
		log_warn("stopped by %s: %llu frames held back by impairment not sent (%s: %llu, "
			 "%s: %llu), counted failed",
			 sig == SIGTERM ? "SIGTERM" : "SIGINT",
			 ULL(ab->held_at_stop + ba->held_at_stop), bridge_name(b, BRIDGE_AB),
			 ULL(ab->held_at_stop), bridge_name(b, BRIDGE_BA), ULL(ba->held_at_stop));
}

/* --stats-json must not overwrite an impairment trace (outfile_check()). */
static int check_paths(const struct bridge_cfg *cfg, char *err, size_t errlen)
{
	struct outfile_use u[OPTS_IMPAIR_MAX + 1];
	size_t n = 0;

	for (unsigned i = 0; i < cfg->traces.m.n; i++)
		u[n++] = (struct outfile_use){cfg->traces.m.src[i].path, cfg->traces.opt[i], false};
	u[n++] = (struct outfile_use){cfg->stats_json, "--stats-json", true};
	return outfile_check(u, n, err, errlen);
}

int bridge_main(int argc, char **argv)
{
	struct bridge_cfg cfg;
	struct bridge *b = NULL;
	const char *ifs[2];
	char err[1024];
	int first, rc, status = EXIT_FAIL;
	enum log_level level;

	if (bridge_opts_parse(&cfg, argc, argv, &first, err, sizeof(err)) < 0) {
		log_err("%s: %s", argv[0], err);
		return EXIT_USAGE;
	}
	if (cfg.help) {
		opts_set_usage(bridge_opts_set(), stdout, "replay");
		return EXIT_DONE;
	}
	if (cfg.version) {
		printf("replay %s\n", REPLAY_VERSION);
		return EXIT_DONE;
	}
	level = cfg.verbose >= 2 ? LOG_LVL_DEBUG : cfg.verbose ? LOG_LVL_INFO : LOG_LVL_WARN;
	log_init("replay", cfg.quiet ? LOG_LVL_ERR : level);
	ifs[0] = argv[first];
	ifs[1] = argv[first + 1];
	if (check_paths(&cfg, err, sizeof(err)) < 0) {
		log_err("%s: %s", argv[0], err);
		return EXIT_USAGE;
	}
	if (bridge_open(&b, &cfg, ifs[0], ifs[1], err, sizeof(err)) < 0) {
		log_err("bridge: %s", err);
		goto out;
	}
	if (bridge_port_mtu(b, 0) != bridge_port_mtu(b, 1))
		log_warn("%s's MTU is %u, %s's %u: a frame one carries and the other cannot is "
			 "counted failed",
			 ifs[0], bridge_port_mtu(b, 0), ifs[1], bridge_port_mtu(b, 1));
	for (int d = 0; d < dirs(&cfg); d++) {
		struct impair_stat_cfg st;
		unsigned nt = bridge_dir_ntraces(&cfg, (enum bridge_dir)d);
		char spec[512];

		(void)bridge_dir_stat(&cfg.impair, (enum bridge_dir)d, &st, err, sizeof(err));
		if (impair_stat_active(&st))
			impair_stat_format(&st, spec, sizeof(spec));
		else
			snprintf(spec, sizeof(spec), "%s", nt ? "no model" : "not impaired");
		if (nt)
			log_info("%s: %u impairment traces, then %s", bridge_name(b, (enum bridge_dir)d),
				 nt, spec);
		else
			log_info("%s: %s", bridge_name(b, (enum bridge_dir)d), spec);
	}
	prologue_catch_signals(&stop_signal);
	if (cfg.unidir)
		fprintf(stderr, "replay: listening on %s, forwarding to %s only\n", ifs[0], ifs[1]);
	else
		fprintf(stderr, "replay: listening on %s and %s, bridging them\n", ifs[0], ifs[1]);
	rc = bridge_run(b, &stop_signal, err, sizeof(err));
	if (rc < 0)
		log_err("bridge: %s", err);
	say_held(b, stop_signal);
	/* With --stats-json -, standard output is the JSON's: the summary goes to standard error.
	 */
	if (!cfg.quiet)
		print_summary(b, dirs(&cfg),
			      cfg.stats_json && !strcmp(cfg.stats_json, "-") ? stderr : stdout);
	fflush(stdout);
	if (cfg.stats_json && write_json(cfg.stats_json, b, ifs, dirs(&cfg), stop_signal) < 0)
		goto out;
	if (rc < 0)
		goto out;
	status = EXIT_DONE;
	for (int d = 0; d < BRIDGE_DIRS; d++)
		if (bridge_stats(b, (enum bridge_dir)d)->failed >
		    bridge_stats(b, (enum bridge_dir)d)->held_at_stop)
			status = EXIT_FAIL;
	if (status == EXIT_DONE && stop_signal)
		status = 128 + stop_signal;
out:
	bridge_close(b);
	return status;
}
