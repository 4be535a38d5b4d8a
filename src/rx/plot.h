/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay-rx's --plot: the figures (plot.c) and the directory they are
 * written into (plot_dir.c).
 */
#ifndef RX_PLOT_H
#define RX_PLOT_H

#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "rx.h"

/*
 * rx_plot_dir_open() - the --plot directory @path, created if missing (not
 * writable by others), opened once: an O_PATH descriptor for
 * rx_plot_write_at(), or -errno with @err.  Nothing is written through a
 * path another user controls: refused (-EPERM) are a @path whose last
 * component is a symbolic link, one through a symbolic link owned by
 * anyone but the caller or root, and a directory rx_plot_dir_check() refuses.
 */
int rx_plot_dir_open(const char *path, char *err, size_t errlen);

/*
 * rx_plot_dir_check() - may user @uid write figures in the directory @st?
 * 0; -ENOTDIR if it is not one; -EPERM if another user owns it, or anyone
 * may write in it without the sticky bit (they could replace the figures).
 * @err says why, naming @path.
 */
int rx_plot_dir_check(const struct stat *st, uid_t uid, const char *path, char *err,
		      size_t errlen);

/*
 * rx_plot_write_at() - the figures into the directory @dirfd (named @dir in
 * messages), all or none: interval.svg (received against intended gaps,
 * log-log, with the diagonal), interval-linear.svg (the same on linear
 * axes), error-cdf.svg (distribution of the inter-arrival error),
 * interval-hist.svg (the gaps' distribution, intended against received)
 * and timeline.svg (arrival, and send, time minus schedule over the run,
 * with losses marked); with a send log also send-series.tsv and
 * send-series.svg (rx_send_series()).  Each is written unnamed, and only
 * when all are written do they take their names (replacing older ones):
 * on an error none has, and nothing of the run is left behind.  Without a
 * reference only what can be drawn is.  0 or -errno with @err.
 */
int rx_plot_write_at(int dirfd, const char *dir, const struct rx_result *res,
		     const struct rx_recs *recs, const struct rx_ref *ref, char *err, size_t errlen);

/* rx_plot_write() - rx_plot_dir_open() and rx_plot_write_at(): the figures into directory @dir. */
int rx_plot_write(const char *dir, const struct rx_result *res, const struct rx_recs *recs,
		  const struct rx_ref *ref, char *err, size_t errlen);

/* The figures one at a time, to a stream: for tests.  Each returns 0 or -errno. */
int rx_plot_interval(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
		     const struct rx_ref *ref);
int rx_plot_interval_linear(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
			    const struct rx_ref *ref);
int rx_plot_error_cdf(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
		      const struct rx_ref *ref);
int rx_plot_interval_hist(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
			  const struct rx_ref *ref);
int rx_plot_timeline(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
		     const struct rx_ref *ref);
int rx_plot_send_series(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
			const struct rx_ref *ref);

#endif
