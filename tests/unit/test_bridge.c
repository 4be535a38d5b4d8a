// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay bridge's options (replay/bridge.h): every row against its field,
 * the operands and the checks across options; each direction's model,
 * impairment traces and edits built from the options for both and its
 * own; the edit rows made from replay's; --unidir; the MTU rule for a
 * frame leaving by the other port; and every option documented in
 * man/replay.1, README.md and --help.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "optcheck.h"
#include "replay/bridge.h"
#include "replay/opts.h"
#include "replay/tx.h"

static int parse(struct bridge_cfg *cfg, int *first, char *err, size_t len, ...)
{
	static char *argv[40];
	int argc = 1;
	va_list ap;

	argv[0] = "bridge";
	va_start(ap, len);
	for (char *a; (a = va_arg(ap, char *)) && argc < 39;)
		argv[argc++] = a;
	va_end(ap);
	err[0] = '\0';
	return bridge_opts_parse(cfg, argc, argv, first, err, len);
}

#define BRIDGE(...) parse(&cfg, &first, err, sizeof(err), __VA_ARGS__, NULL)

static void test_rows(void **state)
{
	(void)state;
	optcheck_set(bridge_opts_set());
}

static void test_operands(void **state)
{
	struct bridge_cfg cfg;
	char err[400];
	int first;

	(void)state;
	assert_int_equal(BRIDGE("veth0", "veth1"), 0);
	assert_int_equal(first, 1);
	assert_int_equal(cfg.method, TX_METHOD_MMSG);
	assert_int_equal(cfg.impair.n, 0);
	assert_int_equal(BRIDGE("veth0"), -EINVAL);
	assert_non_null(strstr(err, "give two interfaces"));
	assert_int_equal(BRIDGE("a", "b", "c"), -EINVAL);
	assert_non_null(strstr(err, "(3 given)"));
	assert_int_equal(BRIDGE("veth0", "veth0"), -EINVAL);
	assert_non_null(strstr(err, "both veth0"));
	assert_int_equal(BRIDGE("--method", "file", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--method file"));
	assert_int_equal(BRIDGE("--method", "mmsg", "a", "b"), 0);
	assert_int_equal(cfg.method, TX_METHOD_MMSG);
	assert_int_equal(BRIDGE("--help"), 0);
	assert_true(cfg.help);
}

static void test_checks(void **state)
{
	struct bridge_cfg cfg;
	char err[400];
	int first;

	(void)state;
	/* The queue's limit and the seed mean something only with a model. */
	assert_int_equal(BRIDGE("--impair-limit", "5", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--impair-limit needs an impairment option"));
	assert_int_equal(BRIDGE("--impair-seed", "5", "a", "b"), -EINVAL);
	assert_int_equal(BRIDGE("--impair-seed", "5", "--loss-ba", "1%", "a", "b"), 0);
	assert_int_equal(cfg.seed, 5);
	/* A bad value is refused as the option it came with. */
	assert_int_equal(BRIDGE("--loss-ab", "150%", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--loss-ab"));
	assert_int_equal(BRIDGE("--delay", "fast", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--delay"));
	assert_int_equal(BRIDGE("--delay-ba", " 5ms", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "blanks"));
	/* A direction whose model impairs nothing is a mistake; the other's may be empty. */
	assert_int_equal(BRIDGE("--loss-ab", "0%", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "IF1 -> IF2 impairs nothing"));
	assert_int_equal(BRIDGE("--loss", "0%", "--loss-ba", "5%", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "IF1 -> IF2 impairs nothing"));
	assert_int_equal(BRIDGE("--loss-ab", "100%", "a", "b"), 0);
}

/* Each direction: the clauses for both in order, then its own; the other's never. */
static void test_dir_stat(void **state)
{
	struct bridge_cfg cfg;
	struct impair_stat_cfg ab, ba;
	char err[400];
	int first;

	(void)state;
	assert_int_equal(BRIDGE("--delay-ba", "30ms", "--delay", "10ms", "--loss-ab", "100%",
				"--rate", "1mbit", "a", "b"),
			 0);
	assert_int_equal(bridge_dir_stat(&cfg.impair, BRIDGE_AB, &ab, err, sizeof(err)), 0);
	assert_int_equal(bridge_dir_stat(&cfg.impair, BRIDGE_BA, &ba, err, sizeof(err)), 0);
	assert_int_equal(ab.delay_ns, 10000000);
	assert_int_equal(ba.delay_ns, 30000000); /* its own, though given before the one for both */
	assert_int_equal(ab.loss, IMPAIR_LOSS_RANDOM);
	assert_true(ab.loss_p[0] == 1.0);
	assert_int_equal(ba.loss, IMPAIR_LOSS_NONE);
	assert_int_equal(ab.rate_bps, 1000000);
	assert_int_equal(ba.rate_bps, 1000000);
	/* --impair-stat's spec, for one direction only. */
	assert_int_equal(BRIDGE("--impair-stat-ba", "delay 5ms loss 2%", "a", "b"), 0);
	assert_int_equal(bridge_dir_stat(&cfg.impair, BRIDGE_AB, &ab, err, sizeof(err)), 0);
	assert_int_equal(bridge_dir_stat(&cfg.impair, BRIDGE_BA, &ba, err, sizeof(err)), 0);
	assert_false(impair_stat_active(&ab));
	assert_true(impair_stat_active(&ba));
	assert_int_equal(ba.delay_ns, 5000000);
	assert_true(ba.loss_p[0] > 0.0199 && ba.loss_p[0] < 0.0201);
	/* Nothing given: neither direction impaired. */
	assert_int_equal(BRIDGE("a", "b"), 0);
	assert_int_equal(bridge_dir_stat(&cfg.impair, BRIDGE_AB, &ab, err, sizeof(err)), 0);
	assert_false(impair_stat_active(&ab));
}

/* The traces: each --impair* adds one where it applies; what follows it binds to it. */
static void test_traces(void **state)
{
	struct bridge_cfg cfg;
	char err[400];
	int first;

	(void)state;
	assert_int_equal(BRIDGE("--impair", "t0", "--impair-ab", "t1", "--impair-flow", "udp",
				"--impair-ba", "t2", "--impair-repeat", "3", "--impair-default",
				"drop", "a", "b"),
			 0);
	assert_int_equal(cfg.traces.m.n, 3);
	assert_string_equal(cfg.traces.m.src[0].path, "t0");
	assert_int_equal(cfg.traces.target[0], BRIDGE_BOTH);
	assert_string_equal(cfg.traces.opt[0], "--impair");
	assert_null(cfg.traces.m.src[0].filter);
	assert_int_equal(cfg.traces.target[1], BRIDGE_ONLY_AB);
	assert_string_equal(cfg.traces.opt[1], "--impair-ab");
	assert_string_equal(cfg.traces.m.src[1].filter, "udp");
	assert_int_equal(cfg.traces.target[2], BRIDGE_ONLY_BA);
	assert_null(cfg.traces.m.src[2].filter);
	/* The repeat and default bound to the last; the others take replay's defaults. */
	assert_int_equal(cfg.traces.m.src[2].repeat, 3);
	assert_true(cfg.traces.m.src[2].dflt.drop);
	assert_int_equal(cfg.traces.m.src[0].repeat, 1);
	assert_int_equal(cfg.traces.m.src[1].repeat, 1);
	assert_false(cfg.traces.m.src[1].dflt.drop);
	/* Given before any trace: every trace's without its own. */
	assert_int_equal(BRIDGE("--impair-repeat", "0", "--impair-default", "drop", "--impair-ab",
				"t1", "--impair-ba", "t2", "--impair-repeat", "2", "a", "b"),
			 0);
	assert_int_equal(cfg.traces.m.src[0].repeat, 0);
	assert_true(cfg.traces.m.src[0].dflt.drop);
	assert_int_equal(cfg.traces.m.src[1].repeat, 2);
	assert_true(cfg.traces.m.src[1].dflt.drop);
	/* A trace counts as impairment for --impair-limit and --impair-seed. */
	assert_int_equal(BRIDGE("--impair-ab", "t1", "--impair-limit", "5", "--impair-seed", "9",
				"a", "b"),
			 0);
	assert_int_equal(cfg.limit, 5);
	/* A model that impairs nothing is no mistake beside a trace of its direction (replay's rule). */
	assert_int_equal(BRIDGE("--impair-ab", "t1", "--loss-ab", "0%", "a", "b"), 0);
	assert_int_equal(BRIDGE("--impair-ba", "t1", "--loss-ab", "0%", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "IF1 -> IF2 impairs nothing"));
}

static void test_trace_errors(void **state)
{
	struct bridge_cfg cfg;
	char err[400];
	int first;

	(void)state;
	/* --impair-flow binds to the --impair* before it: none is an error, as is a second one. */
	assert_int_equal(BRIDGE("--impair-flow", "udp", "--impair", "t0", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--impair-flow"));
	assert_non_null(strstr(err, "before it"));
	assert_int_equal(BRIDGE("--loss", "1%", "--impair-flow", "udp", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "before it"));
	assert_int_equal(BRIDGE("--impair-ab", "t0", "--impair-flow", "udp", "--impair-flow", "tcp",
				"a", "b"),
			 -EINVAL);
	assert_non_null(strstr(err, "has a filter already"));
	assert_int_equal(BRIDGE("--impair-ab", "t0", "--impair-flow", "", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "empty filter"));
	assert_int_equal(BRIDGE("--impair-ab", "t0", "--impair-repeat", "1", "--impair-repeat", "2",
				"a", "b"),
			 -EINVAL);
	assert_non_null(strstr(err, "repeat count already"));
	assert_int_equal(BRIDGE("--impair", "t0", "--impair-default", "sometimes", "a", "b"),
			 -EINVAL);
	assert_non_null(strstr(err, "--impair-default"));
	/* --impair-repeat and --impair-default need a trace. */
	assert_int_equal(BRIDGE("--impair-repeat", "2", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--impair-repeat needs"));
	assert_int_equal(BRIDGE("--loss", "1%", "--impair-default", "drop", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--impair-default needs"));
	/* IF2 -> IF1 is not forwarded with --unidir. */
	assert_int_equal(BRIDGE("--unidir", "--impair-ba", "t0", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--impair-ba excludes --unidir"));
	assert_int_equal(BRIDGE("--unidir", "--impair", "t0", "a", "b"), 0);
	/* At most OPTS_IMPAIR_MAX traces, as replay. */
	{
		char *argv[2 * OPTS_IMPAIR_MAX + 6];
		int argc = 0;

		argv[argc++] = "bridge";
		for (int i = 0; i <= OPTS_IMPAIR_MAX; i++) {
			argv[argc++] = "--impair-ab";
			argv[argc++] = "t0";
		}
		argv[argc++] = "a";
		argv[argc++] = "b";
		assert_int_equal(bridge_opts_parse(&cfg, argc, argv, &first, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "at most"));
	}
}

/* Each direction's sources: its traces in the order given, then its model; the other's never. */
static void test_dir_impair(void **state)
{
	struct bridge_cfg cfg;
	struct impair_stat_cfg st;
	struct impair_cfg *ic = calloc(OPTS_IMPAIR_MAX + 1, sizeof(*ic));
	char err[400];
	size_t n;
	int first;

	(void)state;
	assert_non_null(ic);
	assert_int_equal(BRIDGE("--impair-ba", "t2", "--impair", "t0", "--impair-flow", "tcp",
				"--impair-ab", "t1", "--impair-default", "drop", "--delay-ab", "5ms",
				"--impair-seed", "7", "a", "b"),
			 0);
	assert_int_equal(bridge_dir_ntraces(&cfg, BRIDGE_AB), 2);
	assert_int_equal(bridge_dir_ntraces(&cfg, BRIDGE_BA), 2);
	assert_int_equal(bridge_dir_impair(&cfg, BRIDGE_AB, &st, ic, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_string_equal(ic[0].path, "t0");
	assert_string_equal(ic[0].filter, "tcp");
	assert_false(ic[0].dflt.drop);
	assert_string_equal(ic[1].path, "t1");
	assert_null(ic[1].filter);
	assert_true(ic[1].dflt.drop);
	assert_int_equal(ic[1].repeat, 1);
	assert_null(ic[2].path);
	assert_ptr_equal(ic[2].stat, &st);
	assert_int_equal(st.delay_ns, 5000000);
	assert_int_equal(ic[2].repeat, 1);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ic[i].seed, 7);
	assert_int_equal(bridge_dir_impair(&cfg, BRIDGE_BA, &st, ic, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2); /* no model: IF2 -> IF1's impairs nothing */
	assert_string_equal(ic[0].path, "t2");
	assert_null(ic[0].filter);
	assert_string_equal(ic[1].path, "t0");
	assert_string_equal(ic[1].filter, "tcp");
	assert_null(ic[1].stat);
	assert_int_equal(ic[0].seed, 8); /* the directions draw apart */
	/* The option behind an engine's message. */
	assert_string_equal(bridge_trace_opt(&cfg, BRIDGE_AB, "t1: line 2, column 7: bad"),
			    "--impair-ab");
	assert_string_equal(bridge_trace_opt(&cfg, BRIDGE_BA, "t2: No such file or directory"),
			    "--impair-ba");
	assert_null(bridge_trace_opt(&cfg, BRIDGE_AB, "impairment model 3: out of memory"));
	assert_string_equal(bridge_trace_opt(&cfg, BRIDGE_AB, "impairment trace t1: filter 'x': bad"),
			    "--impair-ab");
	/* A path that is the start of another's names only itself. */
	assert_int_equal(BRIDGE("--impair", "t", "--impair-ab", "t1", "a", "b"), 0);
	assert_string_equal(bridge_trace_opt(&cfg, BRIDGE_AB, "t1: line 2, column 7: bad"),
			    "--impair-ab");
	assert_string_equal(bridge_trace_opt(&cfg, BRIDGE_AB, "t: No such file or directory"),
			    "--impair");
	assert_null(bridge_trace_opt(&cfg, BRIDGE_BA, "t1: line 2, column 7: bad"));
	/* Nothing given: no source, the direction passes frames untouched. */
	assert_int_equal(BRIDGE("a", "b"), 0);
	assert_int_equal(bridge_dir_impair(&cfg, BRIDGE_AB, &st, ic, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	free(ic);
}

static const uint8_t mac_a[6] = {0x02, 0, 0, 0, 0, 0xaa}, mac_b[6] = {0x02, 0, 0, 0, 0, 0xbb};

/* Each direction's edits: the options for both, a field given in its own form in their place. */
static void test_dir_edit(void **state)
{
	struct bridge_cfg cfg;
	struct edit_cfg ab, ba;
	char err[400];
	int first;

	(void)state;
	assert_int_equal(BRIDGE("--enet-dmac-ab", "02:00:00:00:00:bb", "--ttl-ba", "7", "a", "b"), 0);
	bridge_dir_edit(&cfg, BRIDGE_AB, &ab);
	bridge_dir_edit(&cfg, BRIDGE_BA, &ba);
	assert_int_equal(ab.dmac.n, 1);
	assert_memory_equal(ab.dmac.mac[0], mac_b, 6);
	assert_int_equal(ab.ttl.mode, EDIT_TTL_NONE);
	assert_int_equal(ba.dmac.n, 0);
	assert_int_equal(ba.ttl.mode, EDIT_TTL_SET);
	assert_int_equal(ba.ttl.val, 7);
	assert_true(edit_cfg_any(&ab) && edit_cfg_any(&ba));
	/* Its own form replaces the form for both, given before it or after; the rest stays. */
	assert_int_equal(BRIDGE("--ttl-ab", "9", "--ttl", "5", "--tos", "3", "-C", "a", "b"), 0);
	bridge_dir_edit(&cfg, BRIDGE_AB, &ab);
	bridge_dir_edit(&cfg, BRIDGE_BA, &ba);
	assert_int_equal(ab.ttl.val, 9);
	assert_int_equal(ba.ttl.val, 5);
	assert_int_equal(ab.tos, 3);
	assert_int_equal(ba.tos, 3);
	assert_true(ab.fixcsum && ba.fixcsum);
	assert_int_equal(ab.mtu, 1500); /* the defaults of an edit config */
	/* Nothing given: no edit either way. */
	assert_int_equal(BRIDGE("a", "b"), 0);
	bridge_dir_edit(&cfg, BRIDGE_AB, &ab);
	bridge_dir_edit(&cfg, BRIDGE_BA, &ba);
	assert_false(edit_cfg_any(&ab));
	assert_false(edit_cfg_any(&ba));
}

/* A pair for both: IF1 -> IF2 takes the first as side 1, IF2 -> IF1 the second as side 2. */
static void test_dir_edit_pair(void **state)
{
	struct bridge_cfg cfg;
	struct edit_cfg e;
	char err[400];
	int first;

	(void)state;
	assert_int_equal(BRIDGE("--enet-dmac", "02:00:00:00:00:aa,02:00:00:00:00:bb", "a", "b"), 0);
	for (int d = 0; d < BRIDGE_DIRS; d++) {
		struct edit_chain *c;
		uint8_t f[60] = {0};
		struct pkt p = {.data = f, .caplen = sizeof(f), .wirelen = sizeof(f), .linktype = 1};

		/* IPv4 (46 bytes, TTL 64) carrying 26 bytes of UDP. */
		f[12] = 0x08;
		f[14] = 0x45;
		f[17] = 46;
		f[22] = 64;
		f[23] = 17;
		f[39] = 26;
		bridge_dir_edit(&cfg, (enum bridge_dir)d, &e);
		assert_int_equal(edit_chain_new(&c, &e), 0);
		edit_chain_set_side(c, d == BRIDGE_AB ? 1 : 2);
		assert_int_equal(edit_chain_apply(c, &p), EDIT_KEEP);
		assert_memory_equal(p.data, d == BRIDGE_AB ? mac_a : mac_b, 6);
		edit_chain_free(c);
	}
}

static void test_edit_checks(void **state)
{
	struct bridge_cfg cfg;
	char err[400];
	int first;

	(void)state;
	/* A pair in one direction's form names the other direction's value. */
	assert_int_equal(
	    BRIDGE("--enet-dmac-ab", "02:00:00:00:00:aa,02:00:00:00:00:bb", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "without -ab"));
	assert_int_equal(BRIDGE("--pnat-ba", "10.0.0.0/8:172.16.0.0/12", "--pnat-ba",
				"10.0.0.0/8:192.168.0.0/16", "a", "b"),
			 -EINVAL);
	assert_non_null(strstr(err, "without -ba"));
	/* replay's checks, per direction: --pnat for both and --srcipmap for one clash in that one. */
	assert_int_equal(BRIDGE("--pnat", "10.0.0.0/8:172.16.0.0/12", "--srcipmap-ba",
				"10.0.0.0/8:192.168.0.0/16", "a", "b"),
			 -EINVAL);
	assert_non_null(strstr(err, "the edits of IF2 -> IF1: --pnat excludes"));
	assert_int_equal(BRIDGE("--pnat-ab", "10.0.0.0/8:172.16.0.0/12", "--srcipmap-ba",
				"10.0.0.0/8:192.168.0.0/16", "a", "b"),
			 0);
	assert_int_equal(BRIDGE("--enet-vlan-ab", "add", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "the edits of IF1 -> IF2: --enet-vlan add needs --enet-vlan-tag"));
	assert_int_equal(BRIDGE("--enet-vlan-ab", "add", "--enet-vlan-tag", "42", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "IF2 -> IF1")); /* a tag for both, and no push IF2 -> IF1 */
	assert_int_equal(BRIDGE("--enet-vlan-ab", "add", "--enet-vlan-tag-ab", "42", "a", "b"), 0);
	/* A bad value is refused as the form it came with. */
	assert_int_equal(BRIDGE("--ttl-ba", "300", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--ttl-ba"));
	/* The letters of replay's edit options name the form for both. */
	assert_int_equal(BRIDGE("-C", "-N", "10.0.0.0/8:172.16.0.0/12", "a", "b"), 0);
	assert_true(cfg.edit[BRIDGE_BOTH].fixcsum);
	assert_int_equal(cfg.edit[BRIDGE_BOTH].pnat.n, 1);
}

/* --unidir: IF1 -> IF2 only; an option for IF2 -> IF1 alone is refused. */
static void test_unidir(void **state)
{
	struct bridge_cfg cfg;
	char err[400];
	int first;

	(void)state;
	assert_int_equal(BRIDGE("--unidir", "--ttl", "3", "--loss", "1%", "a", "b"), 0);
	assert_true(cfg.unidir);
	assert_int_equal(BRIDGE("a", "b"), 0);
	assert_false(cfg.unidir);
	assert_int_equal(BRIDGE("--unidir", "--loss-ba", "1%", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--loss-ba excludes --unidir"));
	assert_int_equal(BRIDGE("--unidir", "--tos-ba", "8", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "--tos-ba excludes --unidir"));
	assert_int_equal(BRIDGE("--unidir", "--tos-ab", "8", "a", "b"), 0);
	/* The edits of IF2 -> IF1 are never made, so never checked: a tag for both, a push one way. */
	assert_int_equal(BRIDGE("--unidir", "--enet-vlan-ab", "add", "--enet-vlan-tag", "42", "a", "b"), 0);
	assert_int_equal(BRIDGE("--enet-vlan-ab", "add", "--enet-vlan-tag", "42", "a", "b"), -EINVAL);
}

/* The edit rows are replay's: the same parser, type, range and argument, in three forms. */
static void test_edit_rows_are_replays(void **state)
{
	const struct opt_set *set = bridge_opts_set();
	size_t n, forms = 0;
	const struct opt_def *rt = opts_table(&n);

	(void)state;
	for (size_t i = 0; i < set->n; i++) {
		const struct opt_def *b = &set->table[i];
		char base[64];
		size_t len = strlen(b->name), form = 0; /* its edit config: 0 both, 1 ab, 2 ba */

		snprintf(base, sizeof(base), "%s", b->name);
		if (len > 3 && !strcmp(b->name + len - 3, "-ab"))
			form = 1;
		if (len > 3 && !strcmp(b->name + len - 3, "-ba"))
			form = 2;
		if (form)
			base[len - 3] = '\0';
		for (size_t k = 0; k < n; k++) {
			if (strcmp(rt[k].name, base) || rt[k].off < offsetof(struct opts, edit) ||
			    rt[k].off >= offsetof(struct opts, edit) + sizeof(struct edit_cfg))
				continue;
			forms++;
			assert_int_equal(b->type, rt[k].type);
			assert_true(b->parse == rt[k].parse);
			assert_true(b->choices == rt[k].choices);
			assert_int_equal(b->min, rt[k].min);
			assert_int_equal(b->max, rt[k].max);
			assert_string_equal(b->metavar ? b->metavar : "", rt[k].metavar ? rt[k].metavar : "");
			assert_int_equal(b->off - offsetof(struct bridge_cfg, edit),
					 rt[k].off - offsetof(struct opts, edit) +
					     form * sizeof(struct edit_cfg));
		}
	}
	assert_true(forms >= 3 * 20);
	assert_int_equal(forms % 3, 0);
}

/* --poll and --busy-poll; --mac twice or as a pair, IF1's first; --no-martians. */
static void test_poll_mac(void **state)
{
	static const uint8_t m1[6] = {0x02, 0, 0, 0, 0, 0xa1}, m2[6] = {0x02, 0, 0, 0, 0, 0xb2};
	struct bridge_cfg cfg;
	char err[400];
	int first;

	(void)state;
	assert_int_equal(BRIDGE("a", "b"), 0);
	assert_int_equal(cfg.poll, BRIDGE_POLL_AUTO);
	assert_int_equal(cfg.macs.n, 0);
	assert_false(cfg.no_martians);
	assert_int_equal(BRIDGE("--poll", "sleep", "a", "b"), 0);
	assert_int_equal(cfg.poll, BRIDGE_POLL_SLEEP);
	assert_int_equal(BRIDGE("--poll", "hybrid", "a", "b"), 0);
	assert_int_equal(cfg.poll, BRIDGE_POLL_HYBRID);
	assert_int_equal(BRIDGE("--busy-poll", "a", "b"), 0);
	assert_int_equal(cfg.poll, BRIDGE_POLL_BUSY);
	assert_int_equal(BRIDGE("--busy-poll", "--poll", "busy", "a", "b"), 0);
	assert_int_equal(cfg.poll, BRIDGE_POLL_BUSY);
	assert_int_equal(BRIDGE("--busy-poll", "--poll", "sleep", "a", "b"), -EINVAL);
	assert_int_equal(BRIDGE("--poll", "spin", "a", "b"), -EINVAL);

	assert_int_equal(BRIDGE("--mac", "02:00:00:00:00:a1", "-M", "02:00:00:00:00:B2", "a", "b"), 0);
	assert_int_equal(cfg.macs.n, 2);
	assert_memory_equal(cfg.macs.mac[0], m1, 6);
	assert_memory_equal(cfg.macs.mac[1], m2, 6);
	assert_int_equal(BRIDGE("--mac", "02:00:00:00:00:a1,02:00:00:00:00:b2", "a", "b"), 0);
	assert_int_equal(cfg.macs.n, 2);
	assert_memory_equal(cfg.macs.mac[0], m1, 6);
	assert_memory_equal(cfg.macs.mac[1], m2, 6);
	assert_int_equal(BRIDGE("--mac", "02:00:00:00:00:a1", "a", "b"), -EINVAL);
	assert_non_null(strstr(err, "both ports' MACs"));
	assert_int_equal(BRIDGE("--mac", "02:00:00:00:00:a1,02:00:00:00:00:b2", "--mac",
				"02:00:00:00:00:c3", "a", "b"),
			 -EINVAL);
	assert_non_null(strstr(err, "two MACs in all"));
	assert_int_equal(BRIDGE("--mac", "02:00:00:00:00", "-M", "02:00:00:00:00:b2", "a", "b"),
			 -EINVAL);
	assert_int_equal(BRIDGE("--mac", "02:00:00:00:00:a1x", "-M", "02:00:00:00:00:b2", "a", "b"),
			 -EINVAL);
	assert_int_equal(BRIDGE("--mac", "02-00-00-00-00-a1,02:00:00:00:00:b2", "a", "b"), -EINVAL);
	assert_int_equal(BRIDGE("--mac", "02:00:00:00:00:g1,02:00:00:00:00:b2", "a", "b"), -EINVAL);
	assert_int_equal(BRIDGE("--mac", "02:00:00:00:00:a1,", "a", "b"), -EINVAL);
	assert_int_equal(BRIDGE("--no-martians", "a", "b"), 0);
	assert_true(cfg.no_martians);
}

static void test_frame_fits(void **state)
{
	uint8_t f[1600] = {0};

	(void)state;
	f[12] = 0x08; /* IPv4 */
	assert_true(bridge_frame_fits(f, 1514, 1500));
	assert_false(bridge_frame_fits(f, 1515, 1500));
	assert_true(bridge_frame_fits(f, 1515, 0)); /* MTU not known: not checked */
	/* The tags are not the MTU's: 802.1Q, then QinQ. */
	f[12] = 0x81;
	f[13] = 0x00;
	f[16] = 0x08;
	assert_true(bridge_frame_fits(f, 1518, 1500));
	assert_false(bridge_frame_fits(f, 1519, 1500));
	f[12] = 0x88;
	f[13] = 0xa8;
	f[16] = 0x81;
	f[17] = 0x00;
	f[20] = 0x08;
	assert_true(bridge_frame_fits(f, 1522, 1500));
	assert_false(bridge_frame_fits(f, 1523, 1500));
	assert_true(bridge_frame_fits(f, 10, 1500)); /* shorter than a header: nothing to check */
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void test_documented(void **state)
{
	const char *man_path = getenv("MAN_PAGE"), *readme_path = getenv("README");
	const struct opt_set *set = bridge_opts_set();
	char *man, *readme, *help = NULL;
	size_t hlen = 0;
	FILE *hf;

	(void)state;
	if (!man_path || !readme_path)
		fail_msg("MAN_PAGE and README must be set (meson test does)");
	man = slurp(man_path);
	readme = slurp(readme_path);
	assert_non_null(strstr(man, ".Sh REPLAY BRIDGE"));
	hf = open_memstream(&help, &hlen);
	opts_set_usage(set, hf, "replay");
	fclose(hf);
	for (size_t i = 0; i < set->n; i++) {
		const char *name = set->table[i].name;
		char plain[128], esc[128] = "Fl \\-";
		size_t e = 5;

		snprintf(plain, sizeof(plain), "--%s", name);
		for (const char *c = name; *c && e + 3 < sizeof(esc); c++) {
			if (*c == '-')
				esc[e++] = '\\';
			esc[e++] = *c;
		}
		esc[e] = '\0';
		if (!strstr(man, esc))
			fail_msg("option --%s is missing from man/replay.1 (as %s)", name, esc);
		if (!strstr(readme, plain))
			fail_msg("option --%s is missing from README.md", name);
		if (!strstr(help, plain))
			fail_msg("option --%s is missing from --help", name);
	}
	free(help);
	free(man);
	free(readme);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),       cmocka_unit_test(test_operands),
	    cmocka_unit_test(test_checks),     cmocka_unit_test(test_dir_stat),
	    cmocka_unit_test(test_dir_edit),   cmocka_unit_test(test_dir_edit_pair),
	    cmocka_unit_test(test_edit_checks), cmocka_unit_test(test_unidir),
	    cmocka_unit_test(test_edit_rows_are_replays),
	    cmocka_unit_test(test_frame_fits), cmocka_unit_test(test_documented),
	    cmocka_unit_test(test_poll_mac),   cmocka_unit_test(test_traces),
	    cmocka_unit_test(test_trace_errors), cmocka_unit_test(test_dir_impair),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
