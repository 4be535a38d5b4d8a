/* SPDX-License-Identifier: BSD-2-Clause */
/* Inside replay's option table (src/cli/opts.c): what its other files give it. */
#ifndef REPLAY_OPTS_INT_H
#define REPLAY_OPTS_INT_H

#include "replay/optparse.h"

/*
 * The hint tables of 'replay' and of 'replay prep' (src/cli/hints.c), for
 * opt_set.hints: tcpreplay's, tcprewrite's and tcpedit's spellings, and in
 * 'replay prep' tcpprep's letters first.
 */
extern const struct opt_hint *const opts_main_hints[];
extern const struct opt_hint *const opts_prep_hints[];

struct opts;
struct opt_argv;

/*
 * inputs_expand() - the directories among o->files replaced by the
 * captures in them (src/cli/inputs.c says which, in what order), the new
 * list and its paths owned by @store (o's strings live as long as it); a
 * warning in o->warn[] for what was skipped.  0, or -errno with @err.
 */
int inputs_expand(struct opts *o, struct opt_argv *store, char *err, size_t len);

/*
 * opts_check_combined() - what the rows' rules cannot say, once every row
 * and module check has passed (src/cli/opts_check.c): operands, values and
 * combinations; for --source-interface it names the interface as the one
 * input.  A warning in o->warn[] for an option that does nothing here.
 * 0, or -EINVAL with @err.
 */
int opts_check_combined(struct opts *o, char *err, size_t len);

#endif
