// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay prep TRACE -o TRACE.prep [edit options]: NetVCR's preparation step.
 * Walk the trace once through the edit chain the replay will build from the
 * same options, and write the sidecar replay --prep reads (see
 * replay/edit.h).  Like replay.c, this top-level file is allowed to know
 * both the trace and the edit modules.
 */
#include <stdio.h>

#include "replay.h"
#include "replay/edit.h"
#include "replay/log.h"
#include "replay/outfile.h"
#include "replay/trace.h"

int prep_main(const struct opts *o)
{
	const char *path = o->files[0];
	struct edit_prep_writer *w = NULL;
	struct edit_chain *c = NULL;
	struct trace *t = NULL;
	struct pkt p;
	char err[512];
	int rc, status = EXIT_FAIL;
	const struct outfile_use use[] = {
		{ path, "input", false },
		{ o->prep_out, "-o", true },
	};

	/* Before anything is opened: the sidecar must not replace its own trace. */
	if (outfile_check(use, 2, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return EXIT_FAIL;
	}
	rc = trace_open(&t, path, NULL);
	if (rc < 0) {
		log_err("%s", t ? trace_strerror(t) : "out of memory");
		goto out;
	}
	rc = edit_chain_new(&c, &o->edit);
	if (rc < 0) {
		log_err("%s", edit_chain_strerror(c));
		goto out;
	}
	rc = edit_prep_create(&w, o->prep_out, path, c, &o->edit, err, sizeof(err));
	if (rc < 0) {
		log_err("%s", err);
		goto out;
	}
	while ((rc = trace_next(t, &p)) == 1) {
		/* A packet the reader could not make Ethernet of fails the replay too: say so now. */
		if (p.linktype != LINKTYPE_ETHERNET) {
			log_err("%s", trace_strerror(t));
			goto out;
		}
		rc = edit_chain_apply(c, &p);
		if (rc < 0) {
			/* A packet the chain cannot edit fails the same way at replay: say so now. */
			log_err("%s: record %llu at offset 0x%llx: %s", path,
				(unsigned long long)p.recno, (unsigned long long)p.off,
				edit_chain_strerror(c));
			goto out;
		}
		if (edit_prep_add(w, c, p.recno, err, sizeof(err)) < 0) {
			log_err("%s", err);
			goto out;
		}
	}
	if (rc < 0) {
		log_err("%s", trace_strerror(t));
		goto out;
	}
	rc = edit_prep_commit(w, err, sizeof(err));
	w = NULL;
	if (rc < 0) {
		log_err("%s", err);
		goto out;
	}
	if (!o->quiet)
		printf("%s: prepared %s\n", o->prep_out, path);
	status = EXIT_DONE;
out:
	edit_prep_abort(w);
	edit_chain_free(c);
	trace_close(t);
	return status;
}
