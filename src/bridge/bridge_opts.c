// SPDX-License-Identifier: BSD-2-Clause
/*
 * The option table of replay bridge, on the project's option machinery
 * (replay/optparse.h).  Each of netem's options comes in three forms, as
 * tc-netem(8)'s words: --loss applies to both directions, --loss-ab to
 * IF1 -> IF2 only, --loss-ba to IF2 -> IF1 only.  They are kept as given
 * (struct bridge_clauses) and a direction's model is built from them by
 * bridge_dir_stat(): the clauses for both first, then its own, so that
 * "--delay 10ms --delay-ba 30ms" delays IF2 -> IF1 by 30 ms.  The
 * impairment traces (--impair, --impair-ab, --impair-ba) go on replay's
 * own list with replay's parsers, so that --impair-flow, --impair-repeat
 * and --impair-default bind as replay's do; bridge_dir_impair() makes a
 * direction's engine sources from them and its model.  The edit
 * options come in the same three forms, made when the table is first
 * asked for from replay's own rows (src/cli/opts.c): the same parsers,
 * ranges and help, bound to the bridge's three edit configs.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "replay/bridge_opts.h"
#include "replay/compiler.h"
#include "replay/opts.h"
#include "replay/tx.h"

#define UINT(f, ...)	   OPT_UINT(struct bridge_cfg, f, __VA_ARGS__)
#define STR(f, ...)	   OPT_STR(struct bridge_cfg, f, __VA_ARGS__)
#define FLAG(f, ...)	   OPT_FLAG(struct bridge_cfg, f, __VA_ARGS__)
#define COUNT(f, ...)	   OPT_COUNT(struct bridge_cfg, f, __VA_ARGS__)
#define DOUBLE(f, ...)	   OPT_DOUBLE(struct bridge_cfg, f, __VA_ARGS__)
#define ENUM(f, c, ...)	   OPT_ENUM(struct bridge_cfg, f, c, __VA_ARGS__)
#define SET(f, ...)	   OPT_SET(struct bridge_cfg, f, __VA_ARGS__)
#define FUNC(f, T, p, ...) OPT_FUNC(struct bridge_cfg, f, T, p, __VA_ARGS__)
#define RULES		   OPT_RULES
#define NEEDS		   OPT_NEEDS

/* Seconds: at most a year, so that SECONDS * 1e9 fits 64 bits of nanoseconds. */
#define BRIDGE_SECONDS_MAX (365.0 * 86400)

/* One netem clause into @st, from the option that gave it; 0 or -EINVAL with "OPTION 'VALUE': why".
 */
static int apply(struct impair_stat_cfg *st, const char *opt, const char *word, const char *arg,
		 char *err, size_t len)
{
	char spec[1024], why[256];

	if (snprintf(spec, sizeof(spec), "%s%s%s", word, *word ? " " : "", arg) >=
	    (int)sizeof(spec))
		return opts_fail(err, len, "%s '%.40s...': too long", opt, arg);
	if (impair_stat_parse(spec, st, why, sizeof(why)) < 0)
		return opts_fail(err, len, "%s '%s': %s", opt, arg, why);
	return 0;
}

/* Keep the clause, checked now so that a bad value is refused as the option it came with. */
static int clause(void *f, enum bridge_target t, const char *opt, const char *word, const char *arg,
		  char *err, size_t len)
{
	struct bridge_clauses *cl = f;
	struct impair_stat_cfg st;
	char why[512];
	size_t n = strlen(arg);

	if (!n)
		return opts_fail(err, len, "an empty value");
	/* Blanks separate the clause's words; around them they are no documented form. */
	if (strchr(" \t", arg[0]) || strchr(" \t", arg[n - 1]))
		return opts_fail(err, len, "'%s': blanks before or after the value", arg);
	if (cl->n >= BRIDGE_CLAUSES_MAX)
		return opts_fail(err, len, "'%s': at most %d impairment options", arg,
				 BRIDGE_CLAUSES_MAX);
	impair_stat_init(&st);
	if (apply(&st, opt, word, arg, why, sizeof(why)) < 0)
		return opts_fail(err, len, "'%s': %s", arg,
				 strchr(why, ':') ? strchr(why, ':') + 2 : why);
	cl->c[cl->n].target = (uint8_t)t;
	cl->c[cl->n].word = word;
	cl->c[cl->n].arg = arg;
	cl->c[cl->n].opt = opt;
	cl->n++;
	return 0;
}

#define CLAUSE3(fn, opt, word)                                                                     \
	static int fn(void *f, const char *arg, char *err, size_t len)                             \
	{                                                                                          \
		return clause(f, BRIDGE_BOTH, "--" opt, word, arg, err, len);                      \
	}                                                                                          \
	static int fn##_ab(void *f, const char *arg, char *err, size_t len)                        \
	{                                                                                          \
		return clause(f, BRIDGE_ONLY_AB, "--" opt "-ab", word, arg, err, len);             \
	}                                                                                          \
	static int fn##_ba(void *f, const char *arg, char *err, size_t len)                        \
	{                                                                                          \
		return clause(f, BRIDGE_ONLY_BA, "--" opt "-ba", word, arg, err, len);             \
	}
CLAUSE3(c_stat, "impair-stat", "")
CLAUSE3(c_loss, "loss", "loss")
CLAUSE3(c_delay, "delay", "delay")
CLAUSE3(c_dup, "duplicate", "duplicate")
CLAUSE3(c_corrupt, "corrupt", "corrupt")
CLAUSE3(c_reorder, "reorder", "reorder")
CLAUSE3(c_rate, "rate", "rate")

int bridge_dir_stat(const struct bridge_clauses *cl, enum bridge_dir d, struct impair_stat_cfg *st,
		    char *err, size_t errlen)
{
	enum bridge_target own = d == BRIDGE_AB ? BRIDGE_ONLY_AB : BRIDGE_ONLY_BA;

	impair_stat_init(st);
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < cl->n; i++)
			if (cl->c[i].target == (pass ? own : BRIDGE_BOTH) &&
			    apply(st, cl->c[i].opt, cl->c[i].word, cl->c[i].arg, err, errlen) < 0)
				return -EINVAL;
	return 0;
}

/* --impair FILE and its -ab/-ba forms: a trace on replay's list, and where it applies. */
static int trace(void *f, enum bridge_target t, const char *opt, const char *arg, char *err,
		 size_t len)
{
	struct bridge_traces *tr = f;

	if (opts_impair_add(&tr->m, arg, err, len) < 0)
		return -EINVAL;
	tr->target[tr->m.n - 1] = (uint8_t)t;
	tr->opt[tr->m.n - 1] = opt;
	return 0;
}

static int t_both(void *f, const char *arg, char *err, size_t len)
{
	return trace(f, BRIDGE_BOTH, "--impair", arg, err, len);
}

static int t_ab(void *f, const char *arg, char *err, size_t len)
{
	return trace(f, BRIDGE_ONLY_AB, "--impair-ab", arg, err, len);
}

static int t_ba(void *f, const char *arg, char *err, size_t len)
{
	return trace(f, BRIDGE_ONLY_BA, "--impair-ba", arg, err, len);
}

/* Does trace @i apply to direction @d? */
static bool trace_in(const struct bridge_traces *tr, unsigned i, enum bridge_dir d)
{
	return tr->target[i] == BRIDGE_BOTH || tr->target[i] == (d == BRIDGE_AB ? BRIDGE_ONLY_AB
										   : BRIDGE_ONLY_BA);
}

unsigned bridge_dir_ntraces(const struct bridge_cfg *cfg, enum bridge_dir d)
{
	unsigned n = 0;

	for (unsigned i = 0; i < cfg->traces.m.n; i++)
		n += trace_in(&cfg->traces, i, d);
	return n;
}

int bridge_dir_impair(const struct bridge_cfg *cfg, enum bridge_dir d, struct impair_stat_cfg *st,
		      struct impair_cfg *out, size_t *n, char *err, size_t errlen)
{
	const struct opts_impair *m = &cfg->traces.m;
	size_t k = 0;

	*n = 0;
	if (bridge_dir_stat(&cfg->impair, d, st, err, errlen) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < m->n; i++) {
		if (!trace_in(&cfg->traces, i, d))
			continue;
		memset(&out[k], 0, sizeof(out[k]));
		out[k].path = m->src[i].path;
		out[k].filter = m->src[i].filter;
		out[k].repeat = m->src[i].repeat; /* its own, or the global (opts_impair_check()) */
		out[k].dflt = m->src[i].dflt;
		out[k].seed = cfg->seed + (uint64_t)d;
		k++;
	}
	if (impair_stat_active(st)) {
		memset(&out[k], 0, sizeof(out[k]));
		out[k].stat = st;
		out[k].repeat = 1;
		impair_action_pass(&out[k].dflt);
		out[k].seed = cfg->seed + (uint64_t)d;
		k++;
	}
	*n = k;
	return 0;
}

/* Does @msg name @path as the engine does: at its start or after a blank, a colon after it? */
static bool names(const char *msg, const char *path)
{
	size_t n = strlen(path);

	for (const char *p = msg; n && (p = strstr(p, path)); p++)
		if ((p == msg || p[-1] == ' ') && p[n] == ':')
			return true;
	return false;
}

const char *bridge_trace_opt(const struct bridge_cfg *cfg, enum bridge_dir d, const char *msg)
{
	const struct bridge_traces *tr = &cfg->traces;

	for (unsigned i = 0; i < tr->m.n; i++)
		if (trace_in(tr, i, d) && names(msg, tr->m.src[i].path))
			return tr->opt[i];
	return NULL;
}

const struct opt_enum bridge_poll_choices[] = {
    {"auto", BRIDGE_POLL_AUTO},	    {"sleep", BRIDGE_POLL_SLEEP},
    {"hybrid", BRIDGE_POLL_HYBRID}, {"busy", BRIDGE_POLL_BUSY},
    {NULL, 0},
};

/* One MAC, six hexadecimal pairs joined by ':'; 0 or -EINVAL. */
static int mac_parse(const char *s, size_t n, uint8_t mac[6])
{
	if (n != 17)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		unsigned v = 0;

		for (int k = 0; k < 2; k++) {
			char c = s[i * 3 + k];
			unsigned x = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
				     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
				     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
							    : 16u;

			if (x > 15)
				return -EINVAL;
			v = v << 4 | x;
		}
		if (i < 5 && s[i * 3 + 2] != ':')
			return -EINVAL;
		mac[i] = (uint8_t)v;
	}
	return 0;
}

/* --mac MAC (twice: IF1's, then IF2's) or --mac MAC,MAC: tcpbridge's -M. */
static int parse_macs(void *f, const char *arg, char *err, size_t len)
{
	struct bridge_macs *m = f;
	const char *comma = strchr(arg, ',');
	size_t n1 = comma ? (size_t)(comma - arg) : strlen(arg);
	unsigned want = comma ? 2 : 1;

	if (m->n + want > 2)
		return opts_fail(err, len, "'%s': two MACs in all, IF1's and IF2's", arg);
	if (mac_parse(arg, n1, m->mac[m->n]) < 0 ||
	    (comma && mac_parse(comma + 1, strlen(comma + 1), m->mac[m->n + 1]) < 0))
		return opts_fail(err, len, "'%s': not a MAC (six hexadecimal pairs, 00:11:22:33:44:55)%s",
				 arg, comma ? " or a pair MAC,MAC" : "");
	m->n += want;
	return 0;
}

enum bridge_group { GRP_IMPAIR, GRP_EDIT, GRP_PORTS, GRP_OUTPUT, GRP_MISC, GRP_MAX };

static const char *const group_title[GRP_MAX] = {
	[GRP_IMPAIR] = ("Impairment (netem's, and traces; NAME for both directions, NAME-ab for IF1 -> IF2, NAME-ba "
			"for IF2 -> IF1)"),
	[GRP_EDIT] = ("Editing (tcprewrite's; NAME for both directions, where a pair MAC,MAC or --pnat "
		      "twice gives IF1 -> IF2 the first and IF2 -> IF1 the second; NAME-ab, NAME-ba for "
		      "one direction, in place of NAME's)"),
	[GRP_PORTS] = "Ports and sending",
	[GRP_OUTPUT] = "Output",
	[GRP_MISC] = "Miscellaneous",
};

/* The rule of every option for IF2 -> IF1 alone. */
static const struct opt_rule not_unidir[] = {
    OPT_EXCLUDES("unidir", "with --unidir nothing goes IF2 -> IF1"),
    {OPT_RULE_END, NULL, NULL},
};

#define IMP3(fn, name_, mv, help_)                                                                 \
	FUNC(impair, struct bridge_clauses, fn, .name = name_, .metavar = mv, .group = GRP_IMPAIR, \
	     .help = help_ " (both directions)"),                                                  \
	    FUNC(impair, struct bridge_clauses, fn##_ab, .name = name_ "-ab", .metavar = mv,       \
		 .group = GRP_IMPAIR, .help = "as --" name_ ", IF1 -> IF2 only"),                  \
	    FUNC(impair, struct bridge_clauses, fn##_ba, .name = name_ "-ba", .metavar = mv,       \
		 .group = GRP_IMPAIR, .help = "as --" name_ ", IF2 -> IF1 only", .rules = not_unidir)

/* "@impairment": any of the impairment options or traces, given (struct opt_cond). */
static bool impaired(const void *cfg)
{
	const struct bridge_cfg *c = cfg;

	return c->impair.n > 0 || c->traces.m.n > 0;
}

static const struct opt_cond conds[] = {
    {"impairment", "an impairment option", impaired},
    {NULL, NULL, NULL},
};

/* The bridge's own rows; the edit rows follow them in table[] (build()). */
static const struct opt_def fixed[] = {
    IMP3(c_loss, "loss", "P[%] [CORR]", "netem's loss: drop P of frames"),
    IMP3(c_delay, "delay", "D [JITTER [CORR]]",
	 "netem's delay: hold each frame D plus or minus JITTER"),
    IMP3(c_dup, "duplicate", "P[%] [CORR]", "netem's duplicate: send a copy of P of frames"),
    IMP3(c_corrupt, "corrupt", "P[%] [CORR]",
	 "netem's corrupt: flip one random bit in P of frames"),
    IMP3(c_reorder, "reorder", "P[%] [CORR] [gap N]",
	 "netem's reorder: send P of frames at once, ahead of the delayed ones"),
    IMP3(c_rate, "rate", "RATE [OVERHEAD [CELL [CELLOVH]]]",
	 "netem's rate: at most RATE (bit/s, kbit, mbit...)"),
    IMP3(c_stat, "impair-stat", "SPEC", "netem's words at once, e.g. \"delay 10ms 2ms loss 1%\""),
    FUNC(traces, struct bridge_traces, t_both, .name = "impair", .metavar = "FILE",
	 .group = GRP_IMPAIR,
	 .help = "apply the impairment trace FILE (binary or text) to each direction, each reading "
		 "it from its start: the n-th frame gets its n-th action (repeatable)"),
    FUNC(traces, struct bridge_traces, t_ab, .name = "impair-ab", .metavar = "FILE",
	 .group = GRP_IMPAIR, .help = "as --impair, IF1 -> IF2 only"),
    FUNC(traces, struct bridge_traces, t_ba, .name = "impair-ba", .metavar = "FILE",
	 .group = GRP_IMPAIR, .help = "as --impair, IF2 -> IF1 only", .rules = not_unidir),
    FUNC(traces.m, struct opts_impair, opts_impair_flow, .name = "impair-flow", .metavar = "FILTER",
	 .group = GRP_IMPAIR,
	 .help = "only frames matching the libpcap FILTER consume the preceding --impair*'s actions; "
		 "a frame matched by no trace or model passes untouched"),
    FUNC(traces.m, struct opts_impair, opts_impair_repeat, .name = "impair-repeat", .metavar = "N",
	 .group = GRP_IMPAIR,
	 .help = "play the preceding --impair*'s trace N times (0 = forever; default 1; before any "
		 "--impair*: every trace's)",
	 .rules = RULES(NEEDS("impair impair-ab impair-ba", "it repeats an impairment trace"))),
    FUNC(traces.m, struct opts_impair, opts_impair_default, .name = "impair-default",
	 .metavar = "ACTION", .group = GRP_IMPAIR,
	 .help = "the action once the preceding --impair*'s trace is exhausted: pass (default), drop, "
		 "or any action line (before any --impair*: every trace's)",
	 .rules = RULES(NEEDS("impair impair-ab impair-ba",
			      "it is the action once an impairment trace runs out"))),
    UINT(seed, .name = "impair-seed", .min = 0, .max = UINT64_MAX, .metavar = "N",
	 .group = GRP_IMPAIR, .help = "seed of the models' random draws (same seed, same draws)",
	 .rules = RULES(NEEDS("@impairment", "it seeds the impairment's random draws"))),
    UINT(limit, .name = "impair-limit", .min = 1, .max = 1u << 20, .metavar = "N",
	 .group = GRP_IMPAIR,
	 .help =
	     "frames each direction holds back at once; more are dropped and counted (default: the "
	     "model's limit, 1000)",
	 .rules = RULES(NEEDS("@impairment", "it limits the frames an impairment holds back"))),
    FLAG(unidir, .name = "unidir", .group = GRP_PORTS,
	 .help = "forward IF1 -> IF2 only; nothing is captured on IF2 (tcpbridge's)"),
    ENUM(method, tx_method_choices, .name = "method", .metavar = "NAME", .group = GRP_PORTS,
	 .help = "send with this transmit method (default mmsg)"),
    ENUM(poll, bridge_poll_choices, .name = "poll", .metavar = "MODE", .group = GRP_PORTS,
	 .help = "wait by sleep, hybrid (sleep, then spin to each deadline) or busy (spin, never "
		 "sleep: a whole core); auto = hybrid"),
    SET(poll, .val = BRIDGE_POLL_BUSY, .name = "busy-poll", .group = GRP_PORTS,
	.agree = "--busy-poll is --poll busy",
	.help = "as --poll busy: spin on the rings and the clock, never sleep (a whole core)"),
    FUNC(macs, struct bridge_macs, parse_macs, .name = "mac", .key = 'M', .metavar = "MAC[,MAC]",
	 .group = GRP_PORTS,
	 .help = "IF1's and IF2's MACs (twice, or a pair): frames from either are not forwarded "
		 "(tcpbridge's)"),
    FLAG(no_martians, .name = "no-martians", .group = GRP_PORTS,
	 .help = "do not forward IPv4 to 0/8, 127/8 or 255/8 (tcpreplay's old check)"),
    UINT(buffer_kib, .name = "buffer-size", .key = 'B', .min = 1, .max = 1u << 21, .metavar = "KIB",
	 .group = GRP_PORTS, .show_dflt = true, .dflt = BRIDGE_BUFFER_KIB_DEFAULT,
	 .help = "each port's capture ring, KiB"),
    DOUBLE(duration_s, .name = "duration", .dmax = BRIDGE_SECONDS_MAX, .metavar = "SECONDS",
	   .group = GRP_PORTS, .help = "stop after SECONDS"),
    STR(stats_json, .name = "stats-json", .metavar = "FILE", .group = GRP_OUTPUT,
	.help = "write each direction's counts as JSON to FILE ('-' = stdout)"),
    FLAG(quiet, .name = "quiet", .key = 'q', .group = GRP_OUTPUT,
	 .help = "print no summary and no warnings"),
    COUNT(verbose, .name = "verbose", .key = 'v', .group = GRP_OUTPUT,
	  .help = "say more (the models, the ports)"),
    FLAG(help, .name = "help", .key = 'h', .group = GRP_MISC, .help = "show this help and exit"),
    FLAG(version, .name = "version", .key = 'V', .group = GRP_MISC,
	 .help = "show the version and exit"),
};

/*
 * replay's edit rows the bridge takes, by long name: the edits of one frame
 * as it passes.  Not taken: what selects among a trace's packets
 * (--filter, --include, --exclude), what mends a capture (--efcs, --fixlen,
 * --fixhdrlen, --pad-payload, --pktlen: a frame from the ring is whole and
 * has no FCS), what changes per loop pass or by chance (--unique-ip,
 * --fuzz-seed), --dlt, and -e, which tcpbridge has not either.
 */
static const char *const edit_rows[] = {
    "enet-dmac",     "enet-smac",	 "enet-subsmac",	     "enet-vlan",
    "enet-vlan-tag", "enet-vlan-pri", "enet-vlan-cfi",	     "enet-vlan-proto",
    "enet-mac-seed", "enet-mac-seed-keep-bytes", "skipl2broadcast", "pnat",
    "srcipmap",	     "dstipmap",      "portmap",		     "tcp-sequence",
    "seed",	     "skipbroadcast", "ttl",		     "tos",
    "tclass",	     "flowlabel",     "mtu",		     "mtu-trunc",
    "fixcsum",	     "skip-soft-errors",
};

#define EDIT_ROWS ARRAY_SIZE(edit_rows)
_Static_assert(ARRAY_SIZE(fixed) + BRIDGE_TARGETS * EDIT_ROWS <= OPT_ROWS_MAX,
	       "more rows than struct opt_given records");

static struct opt_def table[ARRAY_SIZE(fixed) + BRIDGE_TARGETS * EDIT_ROWS];
static char form_name[EDIT_ROWS][2][64], form_help[EDIT_ROWS][2][96];
static pthread_once_t built = PTHREAD_ONCE_INIT;

static const struct bridge_cfg defaults = {
    .method = TX_METHOD_MMSG,
    .buffer_kib = BRIDGE_BUFFER_KIB_DEFAULT,
    .edit = {EDIT_CFG_DEFAULTS, EDIT_CFG_DEFAULTS, EDIT_CFG_DEFAULTS},
    .traces = {.m = {.repeat = 1}},
};

static const char epilog[] =
    "Runs until SIGINT or SIGTERM, or --duration.  What is held back at a stop is not sent early:\n"
    "it is counted failed.  Exit status: 0 done, 1 a frame failed or a set-up error, 2 usage\n"
    "error, 130 and 143 stopped by SIGINT or SIGTERM.  See replay(1), REPLAY BRIDGE.";

static struct opt_set set = {
    .table = table,
    .group_title = group_title,
    .ngroups = GRP_MAX,
    .defaults = &defaults,
    .size = sizeof(struct bridge_cfg),
    .given_off = offsetof(struct bridge_cfg, given),
    .synopsis = "bridge [options] IF1 IF2",
    .about = "Forward every frame arriving on IF1 out of IF2 and back, each direction impaired and "
	     "edited as asked.",
    .epilog = epilog,
    .conds = conds,
};

/* The offset in struct bridge_cfg of the field at @off of struct opts (one of its edit's), in
 * edit[@t]. */
static size_t rebase(size_t off, int t)
{
	assert(off >= offsetof(struct opts, edit) &&
	       off < offsetof(struct opts, edit) + sizeof(struct edit_cfg));
	return off - offsetof(struct opts, edit) + offsetof(struct bridge_cfg, edit) +
	       (size_t)t * sizeof(struct edit_cfg);
}

/* One of replay's edit rows, by name. */
static const struct opt_def *replay_row(const char *name)
{
	size_t n;
	const struct opt_def *t = opts_table(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/*
 * The table: the bridge's rows, then each edit row of replay's in three
 * forms.  Replay's rules name replay's other options; a form's rules are
 * the bridge's (the -ba forms' exclude --unidir).
 */
static void build(void)
{
	size_t k = ARRAY_SIZE(fixed);

	memcpy(table, fixed, sizeof(fixed));
	for (size_t e = 0; e < EDIT_ROWS; e++) {
		const struct opt_def *r = replay_row(edit_rows[e]);

		assert(r); /* a name of edit_rows[] that replay's table lost */
		for (int t = 0; t < BRIDGE_TARGETS; t++) {
			struct opt_def *d = &table[k++];

			*d = *r;
			d->off = rebase(r->off, t);
			if (r->type == OPT_T_FUNC2)
				d->off2 = rebase(r->off2, t);
			d->group = GRP_EDIT;
			d->rules = NULL;
			d->agree = d->same_as = NULL;
			if (t == BRIDGE_BOTH)
				continue;
			snprintf(form_name[e][t - 1], sizeof(form_name[e][t - 1]), "%s-%s", r->name,
				 t == BRIDGE_ONLY_AB ? "ab" : "ba");
			snprintf(form_help[e][t - 1], sizeof(form_help[e][t - 1]), "as --%s, %s only",
				 r->name, t == BRIDGE_ONLY_AB ? "IF1 -> IF2" : "IF2 -> IF1");
			d->name = form_name[e][t - 1];
			d->help = form_help[e][t - 1];
			d->key = 0;
			if (t == BRIDGE_ONLY_BA)
				d->rules = not_unidir;
		}
	}
	set.n = k;
}

const struct opt_set *bridge_opts_set(void)
{
	pthread_once(&built, build);
	return &set;
}

void bridge_dir_edit(const struct bridge_cfg *cfg, enum bridge_dir d, struct edit_cfg *out)
{
	int own = d == BRIDGE_AB ? BRIDGE_ONLY_AB : BRIDGE_ONLY_BA;
	size_t base = offsetof(struct bridge_cfg, edit) + (size_t)own * sizeof(struct edit_cfg);
	const struct opt_set *s = bridge_opts_set();

	*out = cfg->edit[BRIDGE_BOTH];
	for (size_t i = ARRAY_SIZE(fixed); i < s->n; i++) {
		const struct opt_def *r = &s->table[i];

		if (r->off < base || r->off >= base + sizeof(struct edit_cfg) ||
		    !opt_given(s, cfg, r->name))
			continue;
		memcpy((char *)out + (r->off - base), (const char *)cfg + r->off, r->size);
		if (r->type == OPT_T_FUNC2)
			memcpy((char *)out + (r->off2 - base), (const char *)cfg + r->off2, r->size2);
	}
}

/*
 * Each direction's edits, checked as a replay's are.  A pair in a
 * direction's own form would name the other direction's value too.
 */
static int check_edits(const struct bridge_cfg *c, char *err, size_t len)
{
	char why[400];

	for (int t = BRIDGE_ONLY_AB; t < BRIDGE_TARGETS; t++)
		if (edit_cfg_wants_side(&c->edit[t]))
			return opts_fail(err, len,
					 "a pair (--enet-dmac or --enet-smac MAC,MAC, --pnat twice) gives "
					 "IF1 -> IF2 the first and IF2 -> IF1 the second: give it without "
					 "-%s, or one value with -%s",
					 t == BRIDGE_ONLY_AB ? "ab" : "ba", t == BRIDGE_ONLY_AB ? "ab" : "ba");
	/* With --unidir the edits of IF2 -> IF1 are never made. */
	for (int d = 0; d < (c->unidir ? 1 : BRIDGE_DIRS); d++) {
		struct edit_cfg e;

		bridge_dir_edit(c, (enum bridge_dir)d, &e);
		if (edit_cfg_check(&e, why, sizeof(why)) < 0)
			return opts_fail(err, len, "the edits of %s: %s",
					 d == BRIDGE_AB ? "IF1 -> IF2" : "IF2 -> IF1", why);
	}
	return 0;
}

static int check(struct bridge_cfg *c, int argc, char **argv, int first, char *err,
		 size_t len)
{
	if (c->help || c->version)
		return 0;
	if (argc - first != 2)
		return opts_fail(err, len, "give two interfaces, IF1 and IF2 (%d given)",
				 argc - first);
	if (!strcmp(argv[first], argv[first + 1]))
		return opts_fail(err, len, "IF1 and IF2 are both %s: a bridge joins two ports",
				 argv[first]);
	if (c->method == TX_METHOD_FILE || c->method == TX_METHOD_AUTO)
		return opts_fail(
		    err, len,
		    "--method %s: a bridge sends on an interface with a named method (%s)",
		    c->method == TX_METHOD_FILE ? "file" : "auto", tx_methods());
	/* Each trace's repeat count and default action: its own, or those given before any. */
	if (opts_impair_check(&c->traces.m, err, len) < 0)
		return -EINVAL;
	if (c->macs.n == 1)
		return opts_fail(err, len,
				 "--mac: give both ports' MACs, IF1's and IF2's (--mac twice, or "
				 "--mac MAC,MAC)");
	for (int d = 0; d < BRIDGE_DIRS; d++) {
		struct impair_stat_cfg st;
		bool given = false;

		if (bridge_dir_stat(&c->impair, (enum bridge_dir)d, &st, err, len) < 0)
			return -EINVAL;
		for (unsigned i = 0; i < c->impair.n; i++)
			given |=
			    c->impair.c[i].target == BRIDGE_BOTH || c->impair.c[i].target == d + 1;
		/* A model whose clauses impair nothing ("--loss-ab 0%") is a mistake, unless a
		 * trace impairs the direction (as replay's opts_impair_check()). */
		if (given && !impair_stat_active(&st) && !bridge_dir_ntraces(c, (enum bridge_dir)d))
			return opts_fail(
			    err, len,
			    "the impairment of %s impairs nothing: give a loss, delay, "
			    "duplicate, corrupt, reorder or rate above 0",
			    d == BRIDGE_AB ? "IF1 -> IF2" : "IF2 -> IF1");
	}
	return check_edits(c, err, len);
}

int bridge_opts_parse(struct bridge_cfg *cfg, int argc, char **argv, int *first, char *err,
		      size_t errlen)
{
	const struct opt_set *s = bridge_opts_set();
	int rc = opts_set_parse(s, cfg, argc, argv, first, err, errlen);

	if (rc < 0)
		return rc;
	if (opts_set_check(s, cfg, err, errlen) < 0)
		return -EINVAL;
	return check(cfg, argc, argv, *first, err, errlen);
}
