/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A small strict JSON checker (RFC 8259 grammar) for the tests of the JSON
 * writer and its users, independent of the writer's code: it accepts one
 * value between optional whitespace, and ASCII only (the writer escapes
 * everything else).  jsoncheck_string() also decodes a string's escapes to
 * UTF-8, so a test can compare what a reader would get back.
 */
#ifndef JSONCHECK_H
#define JSONCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define JSONCHECK_DEPTH 64

struct jsoncheck {
	const char *p, *end;
	int depth;
};

static inline void jsoncheck_ws(struct jsoncheck *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static inline bool jsoncheck_lit(struct jsoncheck *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n))
		return false;
	c->p += n;
	return true;
}

static inline int jsoncheck_hex4(struct jsoncheck *c)
{
	int v = 0;

	if (c->end - c->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char h = *c->p++;

		v <<= 4;
		if (h >= '0' && h <= '9')
			v |= h - '0';
		else if (h >= 'a' && h <= 'f')
			v |= h - 'a' + 10;
		else if (h >= 'A' && h <= 'F')
			v |= h - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static inline size_t jsoncheck_put_utf8(char *out, size_t cap, size_t n, uint32_t cp)
{
	unsigned char b[4];
	size_t k;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		k = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	for (size_t i = 0; i < k; i++)
		if (out && n + i < cap)
			out[n + i] = (char)b[i];
	return n + k;
}

/*
 * A string at c->p, decoded into @out (up to @cap bytes, may be NULL); its
 * decoded length in *@len.  A lone surrogate escape is refused: it has no
 * UTF-8 form.
 */
static inline bool jsoncheck_string(struct jsoncheck *c, char *out, size_t cap, size_t *len)
{
	size_t n = 0;

	if (c->p >= c->end || *c->p++ != '"')
		return false;
	while (c->p < c->end) {
		unsigned char ch = (unsigned char)*c->p++;
		int cp, lo;

		if (ch == '"') {
			if (len)
				*len = n;
			return true;
		}
		if (ch < 0x20 || ch >= 0x80)
			return false;
		if (ch != '\\') {
			n = jsoncheck_put_utf8(out, cap, n, ch);
			continue;
		}
		if (c->p >= c->end)
			return false;
		switch (*c->p++) {
		case '"': n = jsoncheck_put_utf8(out, cap, n, '"'); break;
		case '\\': n = jsoncheck_put_utf8(out, cap, n, '\\'); break;
		case '/': n = jsoncheck_put_utf8(out, cap, n, '/'); break;
		case 'b': n = jsoncheck_put_utf8(out, cap, n, '\b'); break;
		case 'f': n = jsoncheck_put_utf8(out, cap, n, '\f'); break;
		case 'n': n = jsoncheck_put_utf8(out, cap, n, '\n'); break;
		case 'r': n = jsoncheck_put_utf8(out, cap, n, '\r'); break;
		case 't': n = jsoncheck_put_utf8(out, cap, n, '\t'); break;
		case 'u':
			if ((cp = jsoncheck_hex4(c)) < 0 || (cp >= 0xdc00 && cp <= 0xdfff))
				return false;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (!jsoncheck_lit(c, "\\u") || (lo = jsoncheck_hex4(c)) < 0xdc00 ||
				    lo > 0xdfff)
					return false;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			n = jsoncheck_put_utf8(out, cap, n, (uint32_t)cp);
			break;
		default:
			return false;
		}
	}
	return false;
}

static inline bool jsoncheck_digits(struct jsoncheck *c)
{
	const char *s = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	return c->p > s;
}

static inline bool jsoncheck_number(struct jsoncheck *c)
{
	if (c->p < c->end && *c->p == '-')
		c->p++;
	if (c->p < c->end && *c->p == '0')
		c->p++;
	else if (c->p >= c->end || *c->p < '1' || *c->p > '9' || !jsoncheck_digits(c))
		return false;
	if (c->p < c->end && *c->p == '.' && (c->p++, !jsoncheck_digits(c)))
		return false;
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (!jsoncheck_digits(c))
			return false;
	}
	return true;
}

static inline bool jsoncheck_value(struct jsoncheck *c);

/* The members of an object (@obj) or the elements of an array, after its bracket. */
static inline bool jsoncheck_members(struct jsoncheck *c, bool obj)
{
	char close = obj ? '}' : ']';

	if (++c->depth > JSONCHECK_DEPTH)
		return false;
	jsoncheck_ws(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		c->depth--;
		return true;
	}
	for (;;) {
		jsoncheck_ws(c);
		if (obj) {
			if (!jsoncheck_string(c, NULL, 0, NULL))
				return false;
			jsoncheck_ws(c);
			if (c->p >= c->end || *c->p++ != ':')
				return false;
		}
		if (!jsoncheck_value(c))
			return false;
		jsoncheck_ws(c);
		if (c->p >= c->end)
			return false;
		if (*c->p == close) {
			c->p++;
			c->depth--;
			return true;
		}
		if (*c->p++ != ',')
			return false;
	}
}

static inline bool jsoncheck_value(struct jsoncheck *c)
{
	jsoncheck_ws(c);
	if (c->p >= c->end)
		return false;
	switch (*c->p) {
	case '{':
		c->p++;
		return jsoncheck_members(c, true);
	case '[':
		c->p++;
		return jsoncheck_members(c, false);
	case '"':
		return jsoncheck_string(c, NULL, 0, NULL);
	case 't':
		return jsoncheck_lit(c, "true");
	case 'f':
		return jsoncheck_lit(c, "false");
	case 'n':
		return jsoncheck_lit(c, "null");
	default:
		return jsoncheck_number(c);
	}
}

/* jsoncheck() - @s (@n bytes) is exactly one JSON value, with whitespace around it at most. */
static inline bool jsoncheck(const char *s, size_t n)
{
	struct jsoncheck c = { .p = s, .end = s + n };

	if (!jsoncheck_value(&c))
		return false;
	jsoncheck_ws(&c);
	return c.p == c.end;
}

#endif
