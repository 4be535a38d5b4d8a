// SPDX-License-Identifier: BSD-2-Clause
/*
 * The text form of an impairment trace (replay/impair.h): one action per
 * line, parsed with the column of every error, and written back in the
 * canonical form.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "impair_int.h"
#include "replay/impair.h"

void impair_action_pass(struct impair_action *a)
{
	a->drop = false;
	a->ndup = 0;
	a->ncorrupt = 0;
	a->src = IMPAIR_SRC_TRACE;
	a->delay_ns = 0;
}

struct tok {
	const char *s;
	size_t len;
	size_t col; /* 1-based */
};

struct lexer {
	const char *line;
	size_t pos;
	char *err;
	size_t errlen;
};

static int fail(struct lexer *lx, size_t col, const char *fmt, ...) PRINTF_LIKE(3, 4);

static int fail(struct lexer *lx, size_t col, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(lx->err, lx->errlen, "column %zu: %s", col, msg);
	return -EINVAL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next token, or a token of length 0 at the end (or at a comment). */
static struct tok next_tok(struct lexer *lx)
{
	struct tok t;

	while (is_space(lx->line[lx->pos]))
		lx->pos++;
	t.s = lx->line + lx->pos;
	t.col = lx->pos + 1;
	t.len = 0;
	if (lx->line[lx->pos] == '#')
		return t;
	while (lx->line[lx->pos] && !is_space(lx->line[lx->pos]) && lx->line[lx->pos] != '#')
		lx->pos++;
	t.len = (size_t)(t.s - lx->line);
	t.len = lx->pos - t.len;
	return t;
}

static struct tok peek_tok(struct lexer *lx)
{
	size_t save = lx->pos;
	struct tok t = next_tok(lx);

	lx->pos = save;
	return t;
}

static bool tok_is(const struct tok *t, const char *w)
{
	return t->len == strlen(w) && !memcmp(t->s, w, t->len);
}

/* Leading decimal digits of @s[0..@len) into *@v; returns digits used, 0 if none or overflow (*@ovf). */
static size_t parse_u64(const char *s, size_t len, uint64_t *v, bool *ovf)
{
	size_t i = 0;

	*v = 0;
	*ovf = false;
	while (i < len && s[i] >= '0' && s[i] <= '9') {
		unsigned d = (unsigned)(s[i] - '0');

		if (*v > (UINT64_MAX - d) / 10) {
			*ovf = true;
			return 0;
		}
		*v = *v * 10 + d;
		i++;
	}
	return i;
}

/* A delay token: digits and an optional unit ns, us, ms or s. */
static int parse_delay(struct lexer *lx, const struct tok *t, uint64_t *ns)
{
	static const struct { const char *u; uint64_t mul; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	uint64_t v;
	bool ovf;
	size_t n;

	if (!t->len)
		return fail(lx, t->col, "expected a delay (e.g. 10ms)");
	n = parse_u64(t->s, t->len, &v, &ovf);
	if (!n)
		return fail(lx, t->col, ovf ? "delay '%.*s' is too large (at most 3600s)"
					    : "expected a delay (e.g. 10ms), not '%.*s'",
			    (int)t->len, t->s);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (t->len - n != strlen(units[i].u) || memcmp(t->s + n, units[i].u, t->len - n))
			continue;
		if (v > IMPAIR_DELAY_MAX / units[i].mul)
			return fail(lx, t->col, "delay '%.*s' is too large (at most 3600s)",
				    (int)t->len, t->s);
		*ns = v * units[i].mul;
		return 0;
	}
	return fail(lx, t->col + n, "unknown unit '%.*s' (ns, us, ms or s)", (int)(t->len - n),
		    t->s + n);
}

static int parse_count(struct lexer *lx, const struct tok *t, uint64_t max, const char *what,
		       uint64_t *out)
{
	bool ovf;
	size_t n = parse_u64(t->s, t->len, out, &ovf);

	if (!t->len)
		return fail(lx, t->col, "expected %s", what);
	if (!n || n != t->len)
		return fail(lx, t->col, "expected %s, not '%.*s'", what, (int)t->len, t->s);
	if (*out > max)
		return fail(lx, t->col, "%s %" PRIu64 " is too large (at most %" PRIu64 ")", what,
			    *out, max);
	return 0;
}

static int add_corrupt(struct lexer *lx, struct impair_action *a, size_t col,
		       enum impair_corrupt_kind k, uint64_t v)
{
	if (a->ncorrupt == IMPAIR_MAX_CORRUPT)
		return fail(lx, col, "more than %d corruptions in one action", IMPAIR_MAX_CORRUPT);
	a->corrupt[a->ncorrupt].kind = k;
	a->corrupt[a->ncorrupt].pos = (uint32_t)v;
	a->ncorrupt++;
	return 0;
}

/* "P[,P...]" for bits or bytes. */
static int parse_list(struct lexer *lx, struct impair_action *a, const struct tok *t,
		      enum impair_corrupt_kind k)
{
	const char *what = k == IMPAIR_CORRUPT_BIT ? "a bit number" : "a byte number";
	size_t i = 0;

	if (!t->len)
		return fail(lx, t->col, "expected %s", what);
	while (i <= t->len) {
		size_t j = i;
		struct tok sub;
		uint64_t v;
		int rc;

		while (j < t->len && t->s[j] != ',')
			j++;
		sub.s = t->s + i;
		sub.len = j - i;
		sub.col = t->col + i;
		rc = parse_count(lx, &sub, IMPAIR_POS_MAX, what, &v);
		if (rc < 0)
			return rc;
		rc = add_corrupt(lx, a, sub.col, k, v);
		if (rc < 0)
			return rc;
		i = j + 1;
	}
	return 0;
}

static int parse_corrupt(struct lexer *lx, struct impair_action *a, const struct tok *kw)
{
	unsigned specs = 0;

	for (;;) {
		struct tok k = peek_tok(lx), arg;
		enum impair_corrupt_kind kind;
		int rc;

		if (tok_is(&k, "bit") || tok_is(&k, "bits"))
			kind = IMPAIR_CORRUPT_BIT;
		else if (tok_is(&k, "byte") || tok_is(&k, "bytes"))
			kind = IMPAIR_CORRUPT_BYTE;
		else if (tok_is(&k, "random"))
			kind = IMPAIR_CORRUPT_RANDOM;
		else if (specs)
			return 0;
		else if (!k.len)
			return fail(lx, k.col, "expected bits, bytes or random after 'corrupt'");
		else
			return fail(lx, k.col, "expected bits, bytes or random after 'corrupt', not '%.*s'",
				    (int)k.len, k.s);
		next_tok(lx);
		arg = next_tok(lx);
		if (kind == IMPAIR_CORRUPT_RANDOM) {
			uint64_t v;

			rc = parse_count(lx, &arg, IMPAIR_POS_MAX, "a number of random bits", &v);
			if (!rc && !v)
				rc = fail(lx, arg.col, "'random 0' corrupts nothing");
			if (!rc)
				rc = add_corrupt(lx, a, arg.col, kind, v);
		} else {
			rc = parse_list(lx, a, &arg, kind);
		}
		if (rc < 0)
			return rc;
		specs++;
	}
	(void)kw;
}

int impair_action_parse(const char *line, struct impair_action *a, char *err, size_t errlen)
{
	struct lexer lx = { .line = line, .err = err, .errlen = errlen };
	bool seen_delay = false, seen_dup = false, seen_any = false;
	uint64_t ndelays = 0;
	struct tok t;
	int rc;

	impair_action_pass(a);
	if (err && errlen)
		err[0] = 0;
	t = next_tok(&lx);
	if (tok_is(&t, "pass") || tok_is(&t, "drop")) {
		struct tok more = next_tok(&lx);

		a->drop = t.s[0] == 'd';
		if (more.len)
			return fail(&lx, more.col, "'%.*s' cannot be combined with anything, found '%.*s'",
				    (int)t.len, t.s, (int)more.len, more.s);
		return 0;
	}
	for (; t.len; t = next_tok(&lx)) {
		seen_any = true;
		if (tok_is(&t, "delay")) {
			struct tok d = next_tok(&lx);

			if (seen_delay)
				return fail(&lx, t.col, "a second 'delay' in one action");
			seen_delay = true;
			rc = parse_delay(&lx, &d, &a->delay_ns);
		} else if (tok_is(&t, "dup")) {
			struct tok n = next_tok(&lx);
			uint64_t v;

			if (seen_dup)
				return fail(&lx, t.col, "a second 'dup' in one action");
			seen_dup = true;
			rc = parse_count(&lx, &n, IMPAIR_MAX_DUP, "a number of copies", &v);
			if (!rc && !v)
				rc = fail(&lx, n.col, "'dup 0' makes no copy");
			if (rc < 0)
				return rc;
			a->ndup = (uint8_t)v;
			/* Delays of the copies: as many leading delay tokens as there are copies. */
			ndelays = 0;
			while (ndelays < v) {
				struct tok d = peek_tok(&lx);

				if (!d.len || d.s[0] < '0' || d.s[0] > '9')
					break;
				next_tok(&lx);
				rc = parse_delay(&lx, &d, &a->dup_delay_ns[ndelays]);
				if (rc < 0)
					return rc;
				ndelays++;
			}
		} else if (tok_is(&t, "corrupt")) {
			rc = parse_corrupt(&lx, a, &t);
		} else if (tok_is(&t, "pass") || tok_is(&t, "drop")) {
			return fail(&lx, t.col, "'%.*s' cannot be combined with anything", (int)t.len,
				    t.s);
		} else {
			return fail(&lx, t.col,
				    "unknown action '%.*s' (pass, drop, delay, dup or corrupt)",
				    (int)t.len, t.s);
		}
		if (rc < 0)
			return rc;
	}
	if (!seen_any)
		return fail(&lx, t.col, "empty action");
	/* A copy without its own delay leaves with the packet. */
	for (uint64_t i = ndelays; i < a->ndup; i++)
		a->dup_delay_ns[i] = a->delay_ns;
	return 0;
}

static void put_delay(char *buf, size_t len, uint64_t ns)
{
	if (ns && ns % 1000000000 == 0)
		snprintf(buf, len, "%" PRIu64 "s", ns / 1000000000);
	else if (ns && ns % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "ms", ns / 1000000);
	else if (ns && ns % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "us", ns / 1000);
	else
		snprintf(buf, len, "%" PRIu64 "ns", ns);
}

int impair_text_write(FILE *f, const struct impair_action *a)
{
	static const char *const kname[] = { "bits", "bytes", "random" };
	char d[32];
	int rc;

	if (a->drop) {
		rc = fputs("drop\n", f);
		return rc < 0 ? -EIO : 0;
	}
	if (!a->delay_ns && !a->ndup && !a->ncorrupt) {
		rc = fputs("pass\n", f);
		return rc < 0 ? -EIO : 0;
	}
	const char *sep = "";

	if (a->delay_ns) {
		put_delay(d, sizeof(d), a->delay_ns);
		if (fprintf(f, "delay %s", d) < 0)
			return -EIO;
		sep = " ";
	}
	if (a->ndup) {
		if (fprintf(f, "%sdup %u", sep, a->ndup) < 0)
			return -EIO;
		for (unsigned i = 0; i < a->ndup; i++) {
			put_delay(d, sizeof(d), a->dup_delay_ns[i]);
			if (fprintf(f, " %s", d) < 0)
				return -EIO;
		}
		sep = " ";
	}
	for (unsigned i = 0; i < a->ncorrupt; i++) {
		const struct impair_corrupt *c = &a->corrupt[i];
		bool same = i && a->corrupt[i - 1].kind == c->kind && c->kind != IMPAIR_CORRUPT_RANDOM;

		if (same)
			rc = fprintf(f, ",%" PRIu32, c->pos);
		else if (i)
			rc = fprintf(f, " %s %" PRIu32, kname[c->kind], c->pos);
		else
			rc = fprintf(f, "%scorrupt %s %" PRIu32, sep, kname[c->kind], c->pos);
		if (rc < 0)
			return -EIO;
		sep = " ";
	}
	return fputc('\n', f) == EOF ? -EIO : 0;
}
