// SPDX-License-Identifier: BSD-2-Clause
/* libreplay's line streams (lib_int.h): what a program would print, handed over a line at a time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreplay.h"
#include "lib_int.h"

struct lines {
	replay_line_fn fn;
	void *user;
	enum replay_stream stream;
	FILE *tee;   /* also written here (the handle's copy), or NULL */
	char *buf;   /* the line begun, not yet ended */
	size_t len, cap;
};

static ssize_t lines_write(void *cookie, const char *data, size_t n)
{
	struct lines *l = cookie;

	if (l->tee && fwrite(data, 1, n, l->tee) != n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n') {
			l->buf[l->len] = '\0';
			l->fn(l->user, l->stream, l->buf);
			l->len = 0;
			continue;
		}
		if (l->len + 1 >= l->cap) {
			size_t ncap = l->cap * 2;
			char *nb = realloc(l->buf, ncap);

			if (!nb) {
				errno = ENOMEM;
				return -1;
			}
			l->buf = nb;
			l->cap = ncap;
		}
		l->buf[l->len++] = data[i];
	}
	return (ssize_t)n;
}

/* A last line without its newline is handed over as a line. */
static int lines_close(void *cookie)
{
	struct lines *l = cookie;

	if (l->len) {
		l->buf[l->len] = '\0';
		l->fn(l->user, l->stream, l->buf);
	}
	free(l->buf);
	free(l);
	return 0;
}

FILE *lib_lines_open(replay_line_fn fn, void *user, enum replay_stream stream, FILE *tee)
{
	static const cookie_io_functions_t io = { .write = lines_write, .close = lines_close };
	struct lines *l = calloc(1, sizeof(*l));
	FILE *f;

	if (!l || !(l->buf = malloc(256))) {
		free(l);
		return NULL;
	}
	*l = (struct lines){ .fn = fn, .user = user, .stream = stream, .tee = tee, .buf = l->buf,
			     .cap = 256 };
	f = fopencookie(l, "w", io);
	if (!f) {
		free(l->buf);
		free(l);
		return NULL;
	}
	/* Each line goes over as soon as it is ended, as a terminal's would. */
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}
