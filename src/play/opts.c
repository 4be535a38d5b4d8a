// SPDX-License-Identifier: BSD-2-Clause
/*
 * The option tables of replay live and replay serve, on the project's
 * option machinery (replay/optparse.h).  To add an option: a field in
 * struct play_cfg, a row here, a line in man/replay.1 under the
 * subcommand's section and in README.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "replay/compiler.h"
#include "play_int.h"

#define FLAG(f, ...)   OPT_FLAG(struct play_cfg, f, __VA_ARGS__)
#define COUNT(f, ...)  OPT_COUNT(struct play_cfg, f, __VA_ARGS__)
#define STR(f, ...)    OPT_STR(struct play_cfg, f, __VA_ARGS__)
#define UINT(f, ...)   OPT_UINT(struct play_cfg, f, __VA_ARGS__)
#define DOUBLE(f, ...) OPT_DOUBLE(struct play_cfg, f, __VA_ARGS__)
#define ENUM(f, c, ...) OPT_ENUM(struct play_cfg, f, c, __VA_ARGS__)
#define FUNC(f, T, p, ...) OPT_FUNC(struct play_cfg, f, T, p, __VA_ARGS__)

/* Seconds: at most a year, so that SECONDS * 1e9 fits 64 bits of nanoseconds. */
#define PLAY_SECONDS_MAX (365.0 * 86400)

static const struct opt_enum compare_choices[] = {
	{ "exact", CONV_CMP_EXACT },
	{ "length", CONV_CMP_LENGTH },
	{ "none", CONV_CMP_NONE },
	{ NULL, 0 },
};

/* An IPv4 or IPv6 address, alone or bracketed ("[::1]"); 0 or -EINVAL. */
static int parse_ip(const char *s, size_t n, struct conv_addr *a)
{
	char buf[64];

	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	memset(a->addr, 0, sizeof(a->addr));
	if (inet_pton(AF_INET, buf, a->addr) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, buf, a->addr) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || !v || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

/* HOST[:PORT], HOST an address: "192.0.2.1", "192.0.2.1:80", "[2001:db8::1]:80", "2001:db8::1". */
static int parse_hostport(void *field, const char *arg, char *err, size_t len)
{
	struct play_addr *t = field;
	const char *colon = strrchr(arg, ':');
	size_t hn = strlen(arg);

	memset(t, 0, sizeof(*t));
	/* A port follows the last colon of an IPv4 address or of a bracketed IPv6 one. */
	if (colon && (arg[0] == '[' ? colon > arg && colon[-1] == ']' : !memchr(arg, ':', (size_t)(colon - arg)))) {
		hn = (size_t)(colon - arg);
		if (parse_port(colon + 1, &t->a.port) < 0)
			return opts_fail(err, len, "'%s': '%s' is not a port (1..65535)", arg, colon + 1);
	}
	if (parse_ip(arg, hn, &t->a) < 0)
		return opts_fail(err, len, "'%s' is not an IPv4 or IPv6 address (with :PORT, [IPv6]:PORT)", arg);
	t->set = true;
	return 0;
}

static int parse_portmap(void *field, const char *arg, char *err, size_t len)
{
	struct play_portmap *m = field;
	const char *p = arg;

	while (*p) {
		char item[32], *colon;
		size_t n = strcspn(p, ",");

		if (!n || n >= sizeof(item))
			return opts_fail(err, len, "'%s': give FROM:TO[,FROM:TO...]", arg);
		memcpy(item, p, n);
		item[n] = '\0';
		colon = strchr(item, ':');
		if (m->n >= PLAY_PORTMAP_MAX)
			return opts_fail(err, len, "'%s': at most %d port mappings", arg, PLAY_PORTMAP_MAX);
		if (!colon)
			return opts_fail(err, len, "'%s': '%s' is not FROM:TO", arg, item);
		*colon = '\0';
		if (parse_port(item, &m->m[m->n].from) < 0 || parse_port(colon + 1, &m->m[m->n].to) < 0)
			return opts_fail(err, len, "'%s': '%s:%s' is not FROM:TO, two ports (1..65535)", arg, item,
					 colon + 1);
		m->n++;
		p += n + (p[n] == ',');
	}
	return 0;
}

static int parse_cidr(void *field, const char *arg, char *err, size_t len)
{
	struct play_cidr *r = field;
	const char *slash = strchr(arg, '/');
	struct conv_addr a;
	char *end;
	unsigned long pl;

	memset(r, 0, sizeof(*r));
	if (!slash || parse_ip(arg, (size_t)(slash - arg), &a) < 0)
		return opts_fail(err, len, "'%s' is not an address range (ADDRESS/PREFIX, e.g. 10.9.0.0/16)", arg);
	errno = 0;
	pl = strtoul(slash + 1, &end, 10);
	if (slash[1] < '0' || slash[1] > '9' || *end || errno ||
	    pl > (a.family == AF_INET ? 32u : 128u))
		return opts_fail(err, len, "'%s': the prefix length must be 0..%u", arg,
				 a.family == AF_INET ? 32u : 128u);
	r->set = true;
	r->family = a.family;
	r->prefix = (unsigned)pl;
	/* The host part cleared: addresses are counted from the range's start. */
	for (unsigned b = (unsigned)pl; b < (a.family == AF_INET ? 32u : 128u); b++)
		a.addr[b / 8] &= (uint8_t)~(0x80u >> (b % 8));
	memcpy(r->addr, a.addr, 16);
	return 0;
}

static int add_str(void *field, const char *arg, char *err, size_t len)
{
	struct play_strs *s = field;

	if (s->n >= CONV_MASK_MAX)
		return opts_fail(err, len, "'%s': at most %d of these", arg, CONV_MASK_MAX);
	if (!*arg)
		return opts_fail(err, len, "an empty value");
	s->v[s->n++] = arg;
	return 0;
}

static int parse_regex(void *field, const char *arg, char *err, size_t len)
{
	regex_t re;
	int rc = regcomp(&re, arg, REG_EXTENDED | REG_NOSUB);

	if (rc) {
		char why[160];

		regerror(rc, &re, why, sizeof(why));
		return opts_fail(err, len, "'%s' is not a regular expression: %s", arg, why);
	}
	regfree(&re);
	return add_str(field, arg, err, len);
}

static int parse_header(void *field, const char *arg, char *err, size_t len)
{
	for (const char *c = arg; *c; c++)
		if (*c <= ' ' || *c == ':' || *c >= 0x7f)
			return opts_fail(err, len, "'%s' is not an HTTP header name", arg);
	return add_str(field, arg, err, len);
}

enum play_group {
	GRP_TARGET,
	GRP_TIMING,
	GRP_COMPARE,
	GRP_OUTPUT,
	GRP_MISC,
	GRP_MAX
};

static const char *const group_title[GRP_MAX] = {
	[GRP_TARGET] = "Where",
	[GRP_TIMING] = "Timing and load",
	[GRP_COMPARE] = "Verdict",
	[GRP_OUTPUT] = "Output",
	[GRP_MISC] = "Miscellaneous",
};

#define COMMON_ROWS                                                                               \
	FUNC(port_map, struct play_portmap, parse_portmap, .name = "port-map", .metavar = "FROM:TO",  \
	     .group = GRP_TARGET, .help = "use port TO where the capture has FROM (repeatable, or a comma list)"), \
	STR(stats_json, .name = "stats-json", .metavar = "FILE", .group = GRP_OUTPUT,               \
	    .help = "write every conversation's verdict and the totals as JSON to FILE ('-' = stdout)"), \
	FLAG(quiet, .name = "quiet", .key = 'q', .group = GRP_OUTPUT,                               \
	     .help = "print no summary and no warnings"),                                          \
	COUNT(verbose, .name = "verbose", .key = 'v', .group = GRP_OUTPUT,                          \
	      .help = "say more (each skipped conversation, the choices made)"),                    \
	FLAG(help, .name = "help", .key = 'h', .group = GRP_MISC, .help = "show this help and exit"), \
	FLAG(version, .name = "version", .key = 'V', .group = GRP_MISC, .help = "show the version and exit")

static const struct opt_def live_table[] = {
	FUNC(target, struct play_addr, parse_hostport, .name = "target", .metavar = "HOST[:PORT]",
	     .group = GRP_TARGET,
	     .help = "send every conversation to HOST (an address), on PORT or the recorded port"),
	FUNC(source_range, struct play_cidr, parse_cidr, .name = "source-range", .metavar = "CIDR",
	     .group = GRP_TARGET,
	     .help = "bind each connection to the next address of CIDR (IP_FREEBIND; the range must be routed to this host)"),
	FLAG(exact, .name = "exact", .group = GRP_TARGET,
	     .help = "send the recorded client packets themselves on -i, sequence numbers rewritten live"),
	STR(intf, .name = "interface", .key = 'i', .metavar = "IF", .group = GRP_TARGET,
	    .help = "with --exact: the interface to send on and receive from"),
	FLAG(midstream, .name = "midstream", .group = GRP_TARGET,
	     .help = "also play TCP conversations whose handshake the capture lacks (the lower port is the server)"),
	DOUBLE(speed, .name = "speed", .key = 'x', .dmax = 1e6, .metavar = "X", .group = GRP_TIMING,
	       .help = "play the recorded think times and start times X times faster"),
	FLAG(topspeed, .name = "topspeed", .key = 't', .group = GRP_TIMING,
	     .help = "no think times: start and send as fast as the caps allow"),
	UINT(cps, .name = "cps", .min = 1, .max = 10000000, .metavar = "N", .group = GRP_TIMING,
	     .help = "start at most N connections a second"),
	UINT(max_concurrent, .name = "max-concurrent", .min = 1, .max = 1000000, .metavar = "N",
	     .group = GRP_TIMING, .help = "keep at most N connections open at once (default 65536)"),
	UINT(loop, .name = "loop", .key = 'l', .min = 1, .max = 1000000000, .metavar = "N", .group = GRP_TIMING,
	     .help = "play the conversations N times, with fresh connections"),
	DOUBLE(timeout_s, .name = "timeout", .dmax = PLAY_SECONDS_MAX, .metavar = "SECONDS", .group = GRP_TIMING,
	       .help = "give up on a connect or a reply after SECONDS of silence (default 5)"),
	ENUM(compare, compare_choices, .name = "compare", .metavar = "MODE", .group = GRP_COMPARE,
	     .help = "compare each reply with the recorded one: every byte, the length, or not at all"),
	FUNC(mask_header, struct play_strs, parse_header, .name = "mask-header", .metavar = "NAME",
	     .group = GRP_COMPARE, .help = "ignore the value of HTTP header NAME (Date, ETag, ...; repeatable)"),
	FUNC(mask, struct play_strs, parse_regex, .name = "mask", .metavar = "REGEX", .group = GRP_COMPARE,
	     .help = "ignore what POSIX extended REGEX matches in the replies (repeatable)"),
	UINT(mismatch_max, .name = "mismatch-max", .min = 0, .max = 1000000, .metavar = "N",
	     .group = GRP_COMPARE, .help = "list at most N mismatches (default 10)"),
	COMMON_ROWS,
};

static const struct opt_def serve_table[] = {
	FUNC(listen, struct play_addr, parse_hostport, .name = "listen", .metavar = "ADDR",
	     .group = GRP_TARGET, .help = "listen on address ADDR (default: every address of the family)"),
	FLAG(topspeed, .name = "topspeed", .key = 't', .group = GRP_TIMING,
	     .help = "answer at once, not at the recorded server's pace"),
	DOUBLE(speed, .name = "speed", .key = 'x', .dmax = 1e6, .metavar = "X", .group = GRP_TIMING,
	       .help = "answer X times faster than the recorded server"),
	UINT(conversations, .name = "conversations", .key = 'c', .min = 1, .max = UINT64_MAX, .metavar = "N",
	     .group = GRP_TIMING, .help = "stop after N conversations (connections and datagrams)"),
	DOUBLE(duration_s, .name = "duration", .dmax = PLAY_SECONDS_MAX, .metavar = "SECONDS", .group = GRP_TIMING,
	       .help = "stop after SECONDS"),
	DOUBLE(timeout_s, .name = "timeout", .dmax = PLAY_SECONDS_MAX, .metavar = "SECONDS", .group = GRP_TIMING,
	       .help = "close a connection silent for SECONDS (default 5)"),
	COMMON_ROWS,
};

static const struct play_cfg defaults = {
	.speed = 1.0,
	.compare = CONV_CMP_EXACT,
	.mismatch_max = PLAY_MISMATCH_MAX_DEFAULT,
};

static const char live_epilog[] =
	"Exit status: 0 every conversation completed and its reply compared equal, 1 one did not\n"
	"(refused, reset, timed out, unreachable, closed early, mismatched, or not playable) or an\n"
	"input or set-up error, 2 usage error.  See replay(1), REPLAY LIVE.";

static const char serve_epilog[] =
	"Runs until SIGINT or SIGTERM, --conversations or --duration.  Exit status: 0 every\n"
	"connection was matched and served, 1 one was not (or an input or set-up error), 2 usage\n"
	"error.  See replay(1), REPLAY SERVE.";

static const struct opt_set live_set = {
	.table = live_table,
	.n = ARRAY_SIZE(live_table),
	.group_title = group_title,
	.ngroups = GRP_MAX,
	.defaults = &defaults,
	.size = sizeof(struct play_cfg),
	.given_off = offsetof(struct play_cfg, given),
	.synopsis = "live [options] FILE...",
	.about = "Play the recorded clients' conversations against a live server, and judge the replies.",
	.epilog = live_epilog,
};

static const struct opt_set serve_set = {
	.table = serve_table,
	.n = ARRAY_SIZE(serve_table),
	.group_title = group_title,
	.ngroups = GRP_MAX,
	.defaults = &defaults,
	.size = sizeof(struct play_cfg),
	.given_off = offsetof(struct play_cfg, given),
	.synopsis = "serve [options] FILE...",
	.about = "Answer live clients as the recorded servers did: a mock server from a capture.",
	.epilog = serve_epilog,
};

const struct opt_set *play_live_set(void)
{
	return &live_set;
}

const struct opt_set *play_serve_set(void)
{
	return &serve_set;
}

static int check(const struct opt_set *set, const struct play_cfg *c, int argc, int first, char *err,
		 size_t len)
{
	if (c->help || c->version)
		return 0;
	if (first >= argc)
		return opts_fail(err, len, "no trace file given");
	if (c->topspeed && c->speed != 1.0)
		return opts_fail(err, len, "--topspeed and --speed exclude each other");
	if (c->listen.set && c->listen.a.port)
		return opts_fail(err, len, "--listen takes an address; --port-map maps the ports");
	if (set == &live_set) {
		if (c->exact && !c->intf)
			return opts_fail(err, len, "--exact sends the recorded packets on an interface: give -i IF");
		if (c->intf && !c->exact)
			return opts_fail(err, len, "-i names the interface of --exact; without it the kernel's sockets choose");
		if (c->exact && (c->target.set || c->port_map.n))
			return opts_fail(err, len, "--exact sends the recorded packets to the recorded servers: --target and --port-map apply to the socket mode");
		if (c->exact && (c->loop > 1 || c->cps))
			return opts_fail(err, len, "--exact plays each conversation once, with its recorded ports and sequence numbers: --loop and --cps apply to the socket mode");
		if (c->exact && c->source_range.set)
			return opts_fail(err, len, "--exact sends the recorded client addresses: --source-range applies to the socket mode");
		if ((c->mask_header.n || c->mask.n) && c->compare != CONV_CMP_EXACT)
			return opts_fail(err, len, "--mask-header and --mask apply to --compare exact");
		if (c->target.set && c->source_range.set && c->target.a.family != c->source_range.family)
			return opts_fail(err, len, "--target and --source-range are of different address families");
	}
	return 0;
}

int play_opts_parse(const struct opt_set *set, struct play_cfg *cfg, int argc, char **argv, int *first,
		    char *err, size_t errlen)
{
	int rc = opts_set_parse(set, cfg, argc, argv, first, err, errlen);

	if (rc < 0)
		return rc;
	return check(set, cfg, argc, *first, err, errlen);
}
