// SPDX-License-Identifier: BSD-2-Clause
/*
 * `replay prep`'s side of the sidecar (replay/edit.h): the writer the
 * command feeds, packet by packet, with what its edit chain did
 * (edit_chain_last()), into the format prep.c reads.  It sits above the
 * chain, which reads sidecars through prep.c and never writes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edit_int.h"
#include "replay/outfile.h"

struct edit_prep_writer {
	FILE *f;
	struct outfile of; /* unnamed until commit (replay/outfile.h) */
	char *out;
	uint8_t hdr[PREP_HDR_BYTES];
	uint64_t nrec;
	struct edit_chain *chain;
	int side;          /* the next record's --split side (edit_prep_add_side()) */
	bool split_err;    /* rewriting the header for edit_prep_set_split() failed */
};

int edit_prep_create(struct edit_prep_writer **wp, const char *out_path, const char *trace_path,
		     struct edit_chain *c, const struct edit_cfg *cfg, char *err, size_t errlen)
{
	struct edit_prep_writer *w;
	uint64_t size, hash;
	int rc;

	*wp = NULL;
	/* The fuzzer draws its changes at random: no sidecar can hold their checksums or
	 * layers (the command line refuses it too; this keeps every caller to the rule). */
	if (cfg->fuzz_seed != EDIT_UNSET) {
		snprintf(err, errlen, "--fuzz-seed changes bytes and lengths a prep sidecar cannot hold");
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	*wp = w;
	if (w)
		w->of.fd = w->of.dirfd = -1;
	if (!w || !(w->out = strdup(out_path))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = prep_trace_identity(trace_path, &size, &hash, err, errlen);
	if (rc < 0)
		return rc;
	w->f = outfile_fopen(&w->of, out_path, err, errlen);
	if (!w->f)
		return -EIO;
	/* The record count is filled in by commit. */
	prep_header(w->hdr, size, hash, cfg);
	if (fwrite(w->hdr, 1, PREP_HDR_BYTES, w->f) != PREP_HDR_BYTES) {
		snprintf(err, errlen, "%s: cannot write: %s", out_path, strerror(errno));
		return -EIO;
	}
	w->chain = c;
	edit_chain_record(c);
	return 0;
}

int edit_prep_add(struct edit_prep_writer *w, const struct edit_chain *c, uint64_t recno,
		  char *err, size_t errlen)
{
	uint8_t b[PREP_REC_BYTES];
	struct prep_rec r;

	if (recno != w->nrec + 1) {
		snprintf(err, errlen, "record %llu out of order (expected %llu)",
			 (unsigned long long)recno, (unsigned long long)w->nrec + 1);
		return -EINVAL;
	}
	edit_chain_last(c, &r);
	r.side = (uint8_t)w->side;
	prep_encode(b, &r);
	if (fwrite(b, 1, sizeof(b), w->f) != sizeof(b)) {
		snprintf(err, errlen, "%s: cannot write: %s", w->out, strerror(errno));
		return -EIO;
	}
	w->nrec++;
	return 0;
}

/* The header as it stands now, over the one written; the file position goes back to the end. */
static bool rewrite_header(struct edit_prep_writer *w)
{
	return fseek(w->f, 0, SEEK_SET) == 0 && fwrite(w->hdr, 1, PREP_HDR_BYTES, w->f) == PREP_HDR_BYTES &&
	       fseek(w->f, 0, SEEK_END) == 0;
}

void edit_prep_set_split(struct edit_prep_writer *w, const char *mode)
{
	prep_header_split(w->hdr, mode);
	if (!rewrite_header(w))
		w->split_err = true;
}

int edit_prep_add_side(struct edit_prep_writer *w, const struct edit_chain *c, uint64_t recno,
		       int side, char *err, size_t errlen)
{
	int rc;

	w->side = side;
	rc = edit_prep_add(w, c, recno, err, errlen);
	w->side = 0;
	return rc;
}

int edit_prep_commit(struct edit_prep_writer *w, char *err, size_t errlen)
{
	int rc = 0;

	prep_header_count(w->hdr, w->nrec);
	if (w->split_err) {
		errno = EIO;
		rc = -EIO;
		snprintf(err, errlen, "%s: cannot write: %s", w->out, strerror(errno));
	} else if (!rewrite_header(w) || fflush(w->f) || fsync(fileno(w->f)) < 0) {
		rc = -errno ? -errno : -EIO;
		snprintf(err, errlen, "%s: cannot write: %s", w->out, strerror(errno));
	}
	if (!rc)
		rc = outfile_fcommit(&w->of, w->f, err, errlen);
	edit_prep_abort(w); /* closes; an output not committed is discarded */
	return rc;
}

void edit_prep_abort(struct edit_prep_writer *w)
{
	if (!w)
		return;
	outfile_fclose(&w->of, w->f);
	free(w->out);
	free(w);
}
