/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A streaming JSON writer (RFC 8259) for every document replay and
 * replay-rx write: objects and arrays nested up to JSON_DEPTH_MAX, the
 * commas between members, escaped strings and numbers in a fixed notation.
 *
 * Every value call takes the member's key: a key inside an object, NULL in
 * an array, at the top or right after json_key().  A misuse (a key where
 * none belongs, a value after the document ended, too deep) or a stream
 * error puts the writer in an error state in which it writes nothing more;
 * json_finish() reports it once, so callers write a whole document and
 * check one return value.
 */
#ifndef REPLAY_JSON_H
#define REPLAY_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 32   /* open objects and arrays at once */
#define JSON_DECIMALS_MAX 17 /* digits after the point json_double() writes at most */

struct json {
	FILE *f;
	int err;             /* 0, or the first error: -EINVAL (misuse), -errno of the stream */
	unsigned depth;      /* objects and arrays open */
	bool done;           /* the top-level value is complete */
	bool keyed;          /* json_key() was called: its value comes next */
	uint32_t in_array;   /* bit d: the container at depth d + 1 is an array */
	uint32_t nonempty;   /* bit d: it holds a member already (a comma before the next) */
};

/* json_init() - a writer of one document to @f. */
void json_init(struct json *w, FILE *f);

/*
 * json_finish() - flush @f and say whether the document is whole: 0, or the
 * first error -- -EINVAL for a misuse or a document left open or empty,
 * -errno (-EIO when unknown) when the stream failed.
 */
int json_finish(struct json *w);

/* json_key() - the key of the next value, for a value another function writes with key NULL. */
void json_key(struct json *w, const char *key);

/* json_object(), json_array() - open an object or an array; json_end() closes the innermost. */
void json_object(struct json *w, const char *key);
void json_array(struct json *w, const char *key);
void json_end(struct json *w);

/*
 * json_str() - @s as a JSON string; NULL writes null.  The output is ASCII:
 * '"' and '\' are escaped, control characters (below 0x20, and 0x7f) and
 * every non-ASCII character of well-formed UTF-8 are written as \uXXXX
 * (a surrogate pair above U+FFFF), and each byte that is not part of
 * well-formed UTF-8 (RFC 3629) as \ufffd, the replacement character.
 */
void json_str(struct json *w, const char *key, const char *s);

void json_uint(struct json *w, const char *key, uint64_t v);
void json_int(struct json *w, const char *key, int64_t v);
void json_bool(struct json *w, const char *key, bool v);
void json_null(struct json *w, const char *key);

/*
 * json_double() - @v in fixed-point notation with exactly @decimals digits
 * after the point (printf's "%.*f" in the C locale, rounded to nearest; no
 * point with 0).  A NaN or an infinity, which JSON cannot hold, is written
 * as null.  @decimals above JSON_DECIMALS_MAX is a misuse.
 */
void json_double(struct json *w, const char *key, double v, unsigned decimals);

/*
 * json_fixed() - the exact decimal @v / 10^@decimals (@decimals <= 19), for a
 * quantity kept as a scaled integer: json_fixed(w, k, 2787878, 2) writes 27878.78.
 */
void json_fixed(struct json *w, const char *key, uint64_t v, unsigned decimals);

#endif
