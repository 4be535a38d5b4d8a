// SPDX-License-Identifier: BSD-2-Clause
/*
 * fragroute's rule language (include/replay/frag.h): one rule a line, its
 * words split at blanks, the first naming a module, the others its
 * arguments.  The arguments each module takes, and the values it refuses,
 * are fragroute's (the usage lines in modules[]); numbers are read whole
 * where fragroute's atoi() stopped at the first stray character, so "8x"
 * or "-8" is refused rather than read as 8 or as a negative size.  Pure:
 * the text in, the rules or one line of error out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "replay/frag.h"

#define ARGS_MAX 128u /* fragroute's words in one rule */

struct words {
	unsigned n;
	const char *w[ARGS_MAX];
	char buf[FRAG_LINE_MAX + 1];
};

typedef const char *(*open_fn)(const struct words *a, struct frag_rule *r);

/* A whole number in [@lo, @hi] in @base (0: C's prefixes), nothing after it. */
static bool num(const char *s, int base, long lo, long hi, long *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtol(s, &end, base);
	return !errno && !*end && *v >= lo && *v <= hi;
}

static int which(const char *s)
{
	if (!strcasecmp(s, "first"))
		return FRAG_FIRST;
	if (!strcasecmp(s, "last"))
		return FRAG_LAST;
	if (!strcasecmp(s, "random"))
		return FRAG_RANDOM;
	return -1;
}

/* delay first|last|random <ms> */
static const char *open_delay(const struct words *a, struct frag_rule *r)
{
	long v;
	int w;

	if (a->n != 3)
		return "takes first, last or random and a delay in milliseconds";
	if ((w = which(a->w[1])) < 0)
		return "the frame is first, last or random";
	if (!num(a->w[2], 10, 1, 1000000, &v))
		return "the delay is a whole number of milliseconds from 1 to 1000000";
	r->kind = (uint8_t)w;
	r->n = (uint32_t)v;
	return NULL;
}

/* drop and dup: first|last|random <prob-%> */
static const char *open_prob(const struct words *a, struct frag_rule *r)
{
	long v;
	int w;

	if (a->n != 3)
		return "takes first, last or random and a probability in percent";
	if ((w = which(a->w[1])) < 0)
		return "the frame is first, last or random";
	if (!num(a->w[2], 10, 1, 100, &v))
		return "the probability is a whole percentage from 1 to 100";
	r->kind = (uint8_t)w;
	r->n = (uint32_t)v;
	return NULL;
}

/* echo <string> ... */
static const char *open_echo(const struct words *a, struct frag_rule *r)
{
	size_t at = 0;

	if (a->n < 2)
		return "takes the text to print";
	for (unsigned i = 1; i < a->n; i++) {
		int k = snprintf(r->text + at, sizeof(r->text) - at, "%s%s", i > 1 ? " " : "",
				 a->w[i]);

		if (k < 0 || (size_t)k >= sizeof(r->text) - at)
			return "its text is longer than 255 bytes";
		at += (size_t)k;
	}
	return NULL;
}

/* ip_chaff dup|opt|<ttl> */
static const char *open_ip_chaff(const struct words *a, struct frag_rule *r)
{
	long v;

	if (a->n != 2)
		return "takes dup, opt or a TTL";
	if (!strcasecmp(a->w[1], "dup"))
		r->kind = FRAG_CHAFF_DUP;
	else if (!strcasecmp(a->w[1], "opt"))
		r->kind = FRAG_CHAFF_OPT;
	else if (num(a->w[1], 10, 0, 255, &v))
		r->kind = FRAG_CHAFF_TTL, r->n = (uint32_t)v;
	else
		return "the chaff is dup, opt or a TTL from 0 to 255";
	return NULL;
}

/* tcp_chaff cksum|null|paws|rexmit|seq|syn|<ttl> */
static const char *open_tcp_chaff(const struct words *a, struct frag_rule *r)
{
	static const char *const kinds[] = { "cksum", "null", "paws", "rexmit", "seq", "syn" };
	long v;

	if (a->n != 2)
		return "takes cksum, null, paws, rexmit, seq, syn or a TTL";
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcasecmp(a->w[1], kinds[i])) {
			r->kind = (uint8_t)(FRAG_CHAFF_CKSUM + i);
			return NULL;
		}
	if (!num(a->w[1], 10, 1, 255, &v))
		return "the chaff is cksum, null, paws, rexmit, seq, syn or a TTL from 1 to 255";
	r->kind = FRAG_CHAFF_TTL;
	r->n = (uint32_t)v;
	return NULL;
}

static int overlap(const char *s)
{
	if (!strcmp(s, "old") || !strcmp(s, "win32"))
		return FRAG_OVERLAP_OLD;
	if (!strcmp(s, "new") || !strcmp(s, "unix"))
		return FRAG_OVERLAP_NEW;
	return -1;
}

/* ip_frag <size> [old|new]: the size a multiple of 8, as fragment offsets are. */
static const char *open_ip_frag(const struct words *a, struct frag_rule *r)
{
	long v;
	int o = FRAG_OVERLAP_NONE;

	if (a->n < 2 || a->n > 3)
		return "takes a fragment size in bytes and optionally old or new";
	if (!num(a->w[1], 10, 8, 65528, &v) || v % 8)
		return "the fragment size is a multiple of 8 bytes from 8 to 65528";
	if (a->n == 3 && (o = overlap(a->w[2])) < 0)
		return "the overlap is old (win32) or new (unix)";
	r->n = (uint32_t)v;
	r->kind = (uint8_t)o;
	return NULL;
}

/* tcp_seg <size> [old|new] */
static const char *open_tcp_seg(const struct words *a, struct frag_rule *r)
{
	long v;
	int o = FRAG_OVERLAP_NONE;

	if (a->n < 2 || a->n > 3)
		return "takes a segment size in bytes and optionally old or new";
	if (!num(a->w[1], 10, 1, 65535, &v))
		return "the segment size is a whole number of bytes from 1 to 65535";
	if (a->n == 3 && (o = overlap(a->w[2])) < 0)
		return "the overlap is old (win32) or new (unix)";
	r->n = (uint32_t)v;
	r->kind = (uint8_t)o;
	return NULL;
}

/*
 * raw <type> <len> <byte>...: an IPv4 or TCP option in hexadecimal, its
 * length counting the type and length bytes (RFC 791, RFC 9293 section 3.1).
 */
static const char *raw_opt(const struct words *a, unsigned from, struct frag_rule *r)
{
	long v;

	if (a->n - from < 2)
		return "raw takes the option's type, length and bytes in hexadecimal";
	for (unsigned i = from; i < a->n; i++) {
		if (!num(a->w[i], 16, 0, 255, &v))
			return "raw's type, length and bytes are hexadecimal bytes (00 to ff)";
		if (r->len >= 40)
			return "an option is at most 40 bytes";
		r->data[r->len++] = (uint8_t)v;
	}
	if (r->data[0] <= 1)
		return "raw's type is not 0 (end of list) or 1 (no-operation): they are one byte, without a length";
	if (r->data[1] != r->len)
		return "raw's length (its second byte) is not the number of its bytes";
	r->kind = FRAG_OPT_RAW;
	return NULL;
}

/* ip_opt lsrr|ssrr <ptr> <ip-addr>... | raw <type> <len> <byte>... */
static const char *open_ip_opt(const struct words *a, struct frag_rule *r)
{
	long v;

	if (a->n < 4)
		return "takes lsrr or ssrr, a pointer and addresses, or raw and the option's bytes";
	if (!strcasecmp(a->w[1], "raw"))
		return raw_opt(a, 2, r);
	if (!strcasecmp(a->w[1], "lsrr"))
		r->kind = FRAG_OPT_LSRR;
	else if (!strcasecmp(a->w[1], "ssrr"))
		r->kind = FRAG_OPT_SSRR;
	else
		return "the option is lsrr, ssrr or raw";
	if (!num(a->w[2], 10, 4, 255, &v))
		return "the pointer is from 4 to 255 (a multiple of 4 from 4 points at an address)";
	r->n = (uint32_t)v;
	if (a->n - 3 > 9)
		return "a source route holds at most 9 addresses";
	for (unsigned i = 3; i < a->n; i++) {
		if (inet_pton(AF_INET, a->w[i], r->data + r->len) != 1)
			return "a route's addresses are IPv4 addresses";
		r->len += 4;
	}
	return NULL;
}

/* tcp_opt mss|wscale <size> | raw <type> <len> <byte>... */
static const char *open_tcp_opt(const struct words *a, struct frag_rule *r)
{
	long v;

	if (a->n < 3)
		return "takes mss or wscale and a value, or raw and the option's bytes";
	if (!strcasecmp(a->w[1], "raw"))
		return raw_opt(a, 2, r);
	if (a->n != 3)
		return "mss and wscale take one value";
	if (!strcasecmp(a->w[1], "mss")) {
		if (!num(a->w[2], 10, 1, 65535, &v))
			return "the MSS is from 1 to 65535";
		r->kind = FRAG_OPT_MSS;
	} else if (!strcasecmp(a->w[1], "wscale")) {
		if (!num(a->w[2], 10, 1, 255, &v))
			return "the window scale is from 1 to 255";
		r->kind = FRAG_OPT_WSCALE;
	} else {
		return "the option is mss, wscale or raw";
	}
	r->n = (uint32_t)v;
	return NULL;
}

/*
 * ip6_opt route <segments> <ip6-addr>... | raw <next-header> <byte>...: a
 * Routing header of type 0 with its addresses, or an extension header whose
 * first two bytes (next header, length) are made, so its bytes + 2 fill
 * whole 8-byte units (RFC 8200 section 4).
 */
static const char *open_ip6_opt(const struct words *a, struct frag_rule *r)
{
	long v;

	if (a->n < 4)
		return "takes route, a segment count and IPv6 addresses, or raw, a protocol and "
		       "bytes";
	if (!strcasecmp(a->w[1], "raw")) {
		if (!num(a->w[2], 16, 0, 255, &v))
			return "raw's protocol is a hexadecimal byte";
		r->n = (uint32_t)v;
		for (unsigned i = 3; i < a->n; i++) {
			if (!num(a->w[i], 16, 0, 255, &v))
				return "raw's bytes are hexadecimal bytes (00 to ff)";
			if (r->len >= FRAG_DATA_MAX - 2)
				return "raw's header is longer than 512 bytes";
			r->data[r->len++] = (uint8_t)v;
		}
		if ((r->len + 2) % 8)
			return "raw's bytes and its 2-byte head must fill whole 8-byte units";
		r->kind = FRAG_OPT_RAW;
		return NULL;
	}
	if (strcasecmp(a->w[1], "route"))
		return "the header is route or raw";
	if (!num(a->w[2], 10, 1, 32, &v))
		return "the segment count is from 1 to 32";
	if ((long)a->n - 3 != v)
		return "route takes as many addresses as its segment count says";
	for (unsigned i = 3; i < a->n; i++) {
		if (inet_pton(AF_INET6, a->w[i], r->data + r->len) != 1)
			return "a route's addresses are IPv6 addresses";
		r->len += 16;
	}
	r->n = (uint32_t)v;
	r->kind = FRAG_OPT_ROUTE;
	return NULL;
}

/* ip_ttl <ttl> */
static const char *open_ip_ttl(const struct words *a, struct frag_rule *r)
{
	long v;

	if (a->n != 2 || !num(a->w[1], 10, 1, 255, &v))
		return "takes a TTL from 1 to 255";
	r->n = (uint32_t)v;
	return NULL;
}

/* ip_tos <tos>: decimal, 0x hexadecimal or 0 octal, as fragroute's %i reads it. */
static const char *open_ip_tos(const struct words *a, struct frag_rule *r)
{
	long v;

	if (a->n != 2 || !num(a->w[1], 0, 0, 255, &v))
		return "takes a TOS byte from 0 to 255";
	r->n = (uint32_t)v;
	return NULL;
}

/* ip6_qos <tc> <fl>, both hexadecimal */
static const char *open_ip6_qos(const struct words *a, struct frag_rule *r)
{
	long tc, fl;

	if (a->n != 3)
		return "takes a traffic class and a flow label, in hexadecimal";
	if (!num(a->w[1], 16, 0, 0xff, &tc))
		return "the traffic class is a hexadecimal byte (0 to ff)";
	if (!num(a->w[2], 16, 0, 0xfffff, &fl))
		return "the flow label is hexadecimal, 0 to fffff";
	r->n = (uint32_t)tc;
	r->n2 = (uint32_t)fl;
	return NULL;
}

/* order random|reverse */
static const char *open_order(const struct words *a, struct frag_rule *r)
{
	if (a->n != 2)
		return "takes random or reverse";
	if (!strcasecmp(a->w[1], "random"))
		r->kind = FRAG_ORDER_RANDOM;
	else if (!strcasecmp(a->w[1], "reverse"))
		r->kind = FRAG_ORDER_REVERSE;
	else
		return "the order is random or reverse";
	return NULL;
}

/* print */
static const char *open_print(const struct words *a, struct frag_rule *r)
{
	(void)r;
	return a->n == 1 ? NULL : "takes no arguments";
}

static const struct {
	const char *name;
	open_fn open;
} modules[FRAG_MODS] = {
	[FRAG_DELAY] = { "delay", open_delay },
	[FRAG_DROP] = { "drop", open_prob },
	[FRAG_DUP] = { "dup", open_prob },
	[FRAG_ECHO] = { "echo", open_echo },
	[FRAG_IP_CHAFF] = { "ip_chaff", open_ip_chaff },
	[FRAG_IP_FRAG] = { "ip_frag", open_ip_frag },
	[FRAG_IP_OPT] = { "ip_opt", open_ip_opt },
	[FRAG_IP_TTL] = { "ip_ttl", open_ip_ttl },
	[FRAG_IP_TOS] = { "ip_tos", open_ip_tos },
	[FRAG_ORDER] = { "order", open_order },
	[FRAG_PRINT] = { "print", open_print },
	[FRAG_TCP_CHAFF] = { "tcp_chaff", open_tcp_chaff },
	[FRAG_TCP_OPT] = { "tcp_opt", open_tcp_opt },
	[FRAG_TCP_SEG] = { "tcp_seg", open_tcp_seg },
	[FRAG_IP6_OPT] = { "ip6_opt", open_ip6_opt },
	[FRAG_IP6_QOS] = { "ip6_qos", open_ip6_qos },
};

const char *frag_mod_name(enum frag_mod m)
{
	return (unsigned)m < FRAG_MODS ? modules[m].name : "?";
}

/* Split @line (@n bytes, no newline) into @a's words; false when there are too many. */
static bool split(const char *line, size_t n, struct words *a)
{
	char *p = a->buf;

	memcpy(a->buf, line, n);
	a->buf[n] = '\0';
	a->n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f')
			*p++ = '\0';
		if (!*p)
			return true;
		if (a->n == ARGS_MAX)
			return false;
		a->w[a->n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\v' && *p != '\f')
			p++;
	}
}

/* The rule as written, for a message: its words, at most @max bytes shown. */
static void shown(const char *line, size_t n, char *buf, size_t cap)
{
	size_t k = 0;

	while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	for (size_t i = 0; i < n && k + 4 < cap; i++)
		buf[k++] = line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '?';
	if (k + 4 >= cap && k < n)
		buf[k++] = '.', buf[k++] = '.', buf[k++] = '.';
	buf[k] = '\0';
}

/* One line @lineno of @n bytes into @out's next rule; NULL, or why not. */
static const char *parse_line(const char *line, size_t n, unsigned lineno, struct words *a,
			      struct frag_rules *out)
{
	struct frag_rule *r;
	const char *why;
	unsigned m;

	if (n > FRAG_LINE_MAX)
		return "the line is longer than 4096 bytes";
	if (memchr(line, '\0', n))
		return "the line holds a NUL byte";
	if (!split(line, n, a))
		return "a rule has at most 128 words";
	if (!a->n || a->w[0][0] == '#')
		return NULL;
	for (m = 0; m < FRAG_MODS; m++)
		if (!strcasecmp(a->w[0], modules[m].name))
			break;
	if (m == FRAG_MODS)
		return "unknown module (delay, drop, dup, echo, ip_chaff, ip_frag, ip_opt, ip_ttl, "
		       "ip_tos, "
		       "order, print, tcp_chaff, tcp_opt, tcp_seg, ip6_opt, ip6_qos)";
	if (out->n == FRAG_RULES_MAX)
		return "a file holds at most 64 rules";
	r = &out->r[out->n];
	memset(r, 0, sizeof(*r));
	r->mod = (enum frag_mod)m;
	r->line = lineno;
	why = modules[m].open(a, r);
	if (!why)
		out->n++;
	return why;
}

int frag_parse(const char *text, size_t len, const char *name, struct frag_rules *out, char *err,
	       size_t errlen)
{
	struct words *a = malloc(sizeof(*a));
	unsigned lineno = 0;
	size_t at = 0;
	int rc = 0;

	out->n = 0;
	if (!a) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	while (at < len) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		size_t n = nl ? (size_t)(nl - line) : len - at;
		const char *why;

		lineno++;
		at += n + (nl ? 1 : 0);
		why = parse_line(line, n, lineno, a, out);
		if (why) {
			char rule[96];

			shown(line, n, rule, sizeof(rule));
			snprintf(err, errlen, "%s: line %u: '%s': %s", name, lineno, rule, why);
			rc = -EINVAL;
			goto out;
		}
	}
	rc = (int)out->n;
out:
	free(a);
	return rc;
}

int frag_load(const char *path, struct frag_rules *out, char *err, size_t errlen)
{
	/* A rules file is small: 64 rules of at most 4096 bytes, with comments between. */
	size_t cap = 1u << 20, n = 0;
	char *text = malloc(cap);
	int fd = -1, rc;

	if (!text) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto out;
	}
	for (;;) {
		ssize_t k = read(fd, text + n, cap - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
			goto out;
		}
		if (!k)
			break;
		n += (size_t)k;
		if (n == cap) {
			snprintf(err, errlen, "%s: longer than 1 MiB: not a rules file", path);
			rc = -EFBIG;
			goto out;
		}
	}
	rc = frag_parse(text, n, path, out, err, errlen);
out:
	if (fd >= 0)
		close(fd);
	free(text);
	return rc;
}
