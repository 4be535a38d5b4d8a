// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay impair convert IN OUT: an impairment trace from one form to the
 * other (the direction by IN's first bytes), written through outfile so
 * that OUT is never IN, and appears only when every action was converted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "impair_int.h"
#include "replay/outfile.h"

int impair_convert(const char *in, const char *out, uint64_t *nactions, char *err,
		   size_t errlen)
{
	const struct outfile_use use[] = {
		{ in, "input", false },
		{ out, "output", true },
	};
	struct outfile of = OUTFILE_INIT;
	struct impair_reader *r = NULL;
	struct impair_action *a = NULL;
	enum impair_fmt to;
	FILE *f = NULL;
	int rc;

	*nactions = 0;
	rc = outfile_check(use, 2, err, errlen);
	if (rc < 0)
		return rc;
	rc = impair_reader_open(&r, in);
	if (rc < 0) {
		snprintf(err, errlen, "%s", r ? impair_reader_strerror(r) : "out of memory");
		goto out;
	}
	a = malloc(sizeof(*a));
	if (!a) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	to = impair_reader_fmt(r) == IMPAIR_FMT_BIN ? IMPAIR_FMT_TEXT : IMPAIR_FMT_BIN;
	f = outfile_fopen(&of, out, err, errlen);
	if (!f) {
		rc = -errno;
		goto out;
	}
	rc = impair_write_header(f, to);
	while (rc == 0) {
		rc = impair_reader_next(r, a);
		if (rc < 0) {
			snprintf(err, errlen, "%s", impair_reader_strerror(r));
			goto out;
		}
		if (rc == 0)
			break;
		rc = impair_write(f, to, a);
		if (rc == 0)
			++*nactions;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s: write error", out);
		goto out;
	}
	rc = outfile_fcommit(&of, f, err, errlen);
out:
	if (f)
		outfile_fclose(&of, f);
	else
		outfile_close(&of);
	impair_reader_close(r);
	free(a);
	return rc;
}
