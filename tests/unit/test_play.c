// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay live's and replay serve's options (replay/play.h): every row
 * against its field, the values each parser takes and refuses, the checks
 * across options; where a conversation's server is; what is playable; the
 * report's JSON; and every option documented in man/replay.1, README.md
 * and --help.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "optcheck.h"
#include "replay/play.h"

static int parse(const struct opt_set *set, struct play_cfg *cfg, char *err, size_t len, ...)
{
	char *argv[32] = { "live" };
	int argc = 1, first;
	va_list ap;

	va_start(ap, len);
	for (char *a; (a = va_arg(ap, char *)) && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	err[0] = '\0';
	return play_opts_parse(set, cfg, argc, argv, &first, err, len);
}

#define LIVE(...) parse(play_live_set(), &cfg, err, sizeof(err), __VA_ARGS__, NULL)
#define SERVE(...) parse(play_serve_set(), &cfg, err, sizeof(err), __VA_ARGS__, NULL)

static void test_rows(void **state)
{
	(void)state;
	optcheck_set(play_live_set());
	optcheck_set(play_serve_set());
}

static void test_target(void **state)
{
	struct play_cfg cfg;
	char err[300];

	(void)state;
	assert_int_equal(LIVE("--target", "192.0.2.1", "x.pcap"), 0);
	assert_true(cfg.target.set);
	assert_int_equal(cfg.target.a.family, AF_INET);
	assert_int_equal(cfg.target.a.port, 0);
	assert_int_equal(cfg.target.a.addr[3], 1);
	assert_int_equal(LIVE("--target", "192.0.2.1:8080", "x.pcap"), 0);
	assert_int_equal(cfg.target.a.port, 8080);
	assert_int_equal(LIVE("--target", "[2001:db8::1]:443", "x.pcap"), 0);
	assert_int_equal(cfg.target.a.family, AF_INET6);
	assert_int_equal(cfg.target.a.port, 443);
	assert_int_equal(cfg.target.a.addr[15], 1);
	assert_int_equal(LIVE("--target", "2001:db8::2", "x.pcap"), 0);
	assert_int_equal(cfg.target.a.port, 0);
	assert_int_equal(cfg.target.a.addr[15], 2);
	assert_int_equal(LIVE("--target", "host.example:80", "x.pcap"), -EINVAL);
	assert_non_null(strstr(err, "is not an IPv4 or IPv6 address"));
	assert_int_equal(LIVE("--target", "192.0.2.1:0", "x.pcap"), -EINVAL);
	assert_non_null(strstr(err, "'0' is not a port"));
	assert_int_equal(LIVE("--target", "192.0.2.1:70000", "x.pcap"), -EINVAL);
}

static void test_portmap_range(void **state)
{
	struct play_cfg cfg;
	char err[300];

	(void)state;
	assert_int_equal(LIVE("--port-map", "80:8080,443:8443", "--port-map", "53:5353", "x.pcap"), 0);
	assert_int_equal(cfg.port_map.n, 3);
	assert_int_equal(play_map_port(&cfg.port_map, 443), 8443);
	assert_int_equal(play_map_port(&cfg.port_map, 53), 5353);
	assert_int_equal(play_map_port(&cfg.port_map, 22), 22);
	assert_int_equal(LIVE("--port-map", "80", "x.pcap"), -EINVAL);
	assert_int_equal(LIVE("--port-map", "80:x", "x.pcap"), -EINVAL);
	assert_int_equal(LIVE("--source-range", "10.9.1.7/16", "x.pcap"), 0);
	assert_true(cfg.source_range.set);
	assert_int_equal(cfg.source_range.prefix, 16);
	/* The host part is cleared. */
	assert_int_equal(cfg.source_range.addr[2], 0);
	assert_int_equal(cfg.source_range.addr[3], 0);
	assert_int_equal(LIVE("--source-range", "fd00::/33", "x.pcap"), 0);
	assert_int_equal(cfg.source_range.family, AF_INET6);
	assert_int_equal(LIVE("--source-range", "10.0.0.0/33", "x.pcap"), -EINVAL);
	assert_int_equal(LIVE("--source-range", "10.0.0.0", "x.pcap"), -EINVAL);
}

static void test_checks(void **state)
{
	struct play_cfg cfg;
	char err[300];

	(void)state;
	assert_int_equal(LIVE("--topspeed"), -EINVAL);
	assert_string_equal(err, "no trace file given");
	assert_int_equal(LIVE("--exact", "x.pcap"), -EINVAL);
	assert_non_null(strstr(err, "give -i IF"));
	assert_int_equal(LIVE("-i", "eth0", "x.pcap"), -EINVAL);
	assert_int_equal(LIVE("--exact", "-i", "eth0", "--loop", "2", "x.pcap"), -EINVAL);
	assert_non_null(strstr(err, "--exact plays each conversation once"));
	assert_int_equal(LIVE("--exact", "-i", "eth0", "--target", "192.0.2.1", "x.pcap"), -EINVAL);
	assert_int_equal(LIVE("--exact", "-i", "eth0", "--max-concurrent", "10", "x.pcap"), 0);
	assert_true(cfg.exact);
	assert_int_equal(LIVE("--topspeed", "--speed", "2", "x.pcap"), -EINVAL);
	assert_int_equal(LIVE("--compare", "length", "--mask-header", "Date", "x.pcap"), -EINVAL);
	assert_int_equal(LIVE("--mask", "(", "x.pcap"), -EINVAL);
	assert_non_null(strstr(err, "is not a regular expression"));
	assert_int_equal(LIVE("--mask-header", "Da te", "x.pcap"), -EINVAL);
	assert_int_equal(LIVE("--compare", "none", "--cps", "100", "--max-concurrent", "5", "--loop", "3", "x.pcap"), 0);
	assert_int_equal(cfg.compare, CONV_CMP_NONE);
	assert_int_equal(cfg.cps, 100);
	assert_int_equal(cfg.max_concurrent, 5);
	assert_int_equal(cfg.loop, 3);
	assert_int_equal(cfg.mismatch_max, PLAY_MISMATCH_MAX_DEFAULT);
	/* serve has no --target, live no --listen. */
	assert_int_equal(SERVE("--target", "192.0.2.1", "x.pcap"), -EINVAL);
	assert_int_equal(LIVE("--listen", "192.0.2.1", "x.pcap"), -EINVAL);
	assert_int_equal(SERVE("--listen", "192.0.2.1:80", "x.pcap"), -EINVAL);
	assert_non_null(strstr(err, "--port-map maps the ports"));
	assert_int_equal(SERVE("--listen", "::1", "--conversations", "2", "--duration", "1.5", "x.pcap"), 0);
	assert_int_equal(cfg.conversations, 2);
	assert_true(cfg.duration_s == 1.5);
}

static void test_server_addr(void **state)
{
	struct conv c = { .id = 1, .proto = 6, .file = "f.pcap", .flags = CONV_F_HANDSHAKE };
	struct play_cfg cfg;
	struct conv_addr a;
	char err[300], why[400];

	(void)state;
	c.ep[CONV_SERVER] = (struct conv_addr){ .family = AF_INET, .addr = { 10, 0, 0, 2 }, .port = 80 };
	c.ep[CONV_CLIENT] = (struct conv_addr){ .family = AF_INET, .addr = { 10, 0, 0, 1 }, .port = 4000 };
	c.dir[0].gap_off = c.dir[1].gap_off = UINT64_MAX;
	assert_int_equal(LIVE("--port-map", "80:8080", "x.pcap"), 0);
	play_server_addr(&cfg, &c, &a);
	assert_int_equal(a.port, 8080);
	assert_int_equal(a.addr[3], 2);
	assert_int_equal(LIVE("--target", "192.0.2.9", "--port-map", "80:8080", "x.pcap"), 0);
	play_server_addr(&cfg, &c, &a);
	assert_int_equal(a.port, 8080);
	assert_int_equal(a.addr[0], 192);
	assert_int_equal(LIVE("--target", "192.0.2.9:81", "x.pcap"), 0);
	play_server_addr(&cfg, &c, &a);
	assert_int_equal(a.port, 81);
	assert_true(play_playable(&cfg, &c, why, sizeof(why)));
	c.flags = CONV_F_MIDSTREAM;
	assert_false(play_playable(&cfg, &c, why, sizeof(why)));
	assert_non_null(strstr(why, "f.pcap: conversation 1 (tcp 10.0.0.1:4000 -> 10.0.0.2:80): no handshake"));
	assert_int_equal(LIVE("--midstream", "x.pcap"), 0);
	assert_true(play_playable(&cfg, &c, why, sizeof(why)));
	c.flags = CONV_F_HANDSHAKE;
	assert_int_equal(LIVE("--target", "::1", "x.pcap"), 0);
	assert_false(play_playable(&cfg, &c, why, sizeof(why)));
	assert_non_null(strstr(why, "another address family"));
}

static void test_json(void **state)
{
	struct play_report rep = { .role = "live" };
	struct play_result *r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	r = play_report_add(&rep);
	assert_non_null(r);
	r->conv = 7;
	r->pass = 1;
	r->verdict = PLAY_MISMATCH;
	r->diff = true;
	r->rec_off = 12;
	r->live_off = 13;
	r->connect_ns = UINT64_MAX;
	r->first_ns = 5;
	memcpy(r->live_snip, "a\"\\\n\x01", 5);
	r->live_snip_len = 5;
	rep.verdicts[PLAY_MISMATCH] = 1;
	f = open_memstream(&buf, &len);
	assert_int_equal(play_report_json(&rep, &(struct conv_set){ 0 }, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"verdicts\":{\"ok\":0,\"mismatch\":1,"));
	assert_non_null(strstr(buf, "\"conversation\":7,\"pass\":1"));
	assert_non_null(strstr(buf, "\"connect_ns\":null,\"first_byte_ns\":5"));
	/* The bytes as the summary shows them (conv_escape()), then JSON-escaped. */
	assert_non_null(strstr(buf, "\"mismatch\":{\"offset\":13,\"recorded_offset\":12,\"recorded\":\"\",\"live\":\"a\\\\\\\"\\\\\\\\\\\\n\\\\x01\"}"));
	free(buf);
	play_report_free(&rep);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
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
	const struct opt_set *sets[] = { play_live_set(), play_serve_set() };
	char *man, *readme;

	(void)state;
	if (!man_path || !readme_path)
		fail_msg("MAN_PAGE and README must be set (meson test does)");
	man = slurp(man_path);
	readme = slurp(readme_path);
	assert_non_null(strstr(man, ".Sh REPLAY LIVE"));
	assert_non_null(strstr(man, ".Sh REPLAY SERVE"));
	for (size_t k = 0; k < 2; k++) {
		char *help = NULL;
		size_t hlen = 0;
		FILE *hf = open_memstream(&help, &hlen);

		opts_set_usage(sets[k], hf, "replay");
		fclose(hf);
		for (size_t i = 0; i < sets[k]->n; i++) {
			const char *name = sets[k]->table[i].name;
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
	}
	free(man);
	free(readme);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_portmap_range),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_server_addr),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_documented),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
