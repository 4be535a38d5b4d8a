// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay prep TRACE -o TRACE.prep [edit options]: NetVCR's preparation step.
 * Walk the trace once through the edit chain the replay will build from the
 * same options, and write the sidecar replay --prep reads (see
 * replay/edit.h).  Like replay.c, this top-level file is allowed to know
 * both the trace and the edit modules.  With --split MODE, each record's
 * side for two-interface replay goes into the sidecar too, classified on
 * the packet as read (the learning pass of client/server/bridge/router
 * runs here, once, instead of at every replay's start).
 */
#include <stdio.h>

#include "replay/run.h"
#include "replay/edit.h"
#include "replay/log.h"
#include "replay/outfile.h"
#include "replay/split.h"
#include "replay/trace.h"

int prep_main(const struct opts *o)
{
	const char *path = o->files[0];
	struct edit_prep_writer *w = NULL;
	struct edit_chain *c = NULL;
	struct split *sp = NULL;
	struct trace *t = NULL;
	struct pkt p;
	char err[512];
	int rc, side, status = EXIT_FAIL;
	const struct outfile_use use[] = {
		{ path, "input", false },
		{ o->prep_out, "-o", true },
	};

	/* Before anything is opened: the sidecar must not replace its own trace. */
	if (outfile_check(use, 2, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return EXIT_USAGE;
	}
	if (o->split_mode) {
		if (split_open(&sp, o->split_mode, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return EXIT_USAGE;
		}
		uint64_t n = 0;

		if (split_needs_pass(sp) && split_learn_trace(path, sp, &n) < 0)
			goto out;
		if (split_needs_pass(sp) && split_learn_done(sp) < 0) {
			log_err("%s: --split %s: %s", path, split_mode_name(split_mode(sp)), split_strerror(sp));
			goto out;
		}
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
	if (sp)
		edit_prep_set_split(w, o->split_mode);
	while ((rc = trace_next(t, &p)) == 1) {
		/* A packet the reader could not make Ethernet of fails the replay too: say so now. */
		if (p.linktype != LINKTYPE_ETHERNET) {
			log_err("%s", trace_strerror(t));
			goto out;
		}
		/* The side of the packet as read, before any edit, as a replay classifies it. */
		side = sp ? split_classify(sp, &p) : 0;
		edit_chain_set_side(c, side); /* -e and the pair forms follow it, as in the run */
		rc = edit_chain_apply(c, &p);
		if (rc < 0) {
			/* A packet the chain cannot edit fails the same way at replay: say so now. */
			log_err("%s: record %llu at offset 0x%llx: %s", path,
				(unsigned long long)p.recno, (unsigned long long)p.off,
				edit_chain_strerror(c));
			goto out;
		}
		if (edit_prep_add_side(w, c, p.recno, side, err, sizeof(err)) < 0) {
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
		printf("%s: prepared %s%s%s\n", o->prep_out, path, sp ? " with the sides of --split " : "",
		       sp ? o->split_mode : "");
	status = EXIT_DONE;
out:
	edit_prep_abort(w);
	edit_chain_free(c);
	trace_close(t);
	split_close(sp);
	return status;
}
