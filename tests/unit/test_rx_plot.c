// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay-rx's figures, drawn from made-up runs: each is one well-formed SVG
 * document without script or external references, its size bounded however
 * many frames there are, and the edge cases (no pairs, every gap exact,
 * nothing received) still give a figure that says so.  Rendering with
 * rsvg-convert is checked by t_rx_plot_render.sh.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/pkt_id.h"
#include "plot.h"
#include "rx.h"

typedef int (*plot_fn)(FILE *, const struct rx_result *, const struct rx_recs *,
		       const struct rx_ref *);

static const plot_fn plots[] = { rx_plot_interval, rx_plot_interval_linear, rx_plot_error_cdf,
				  rx_plot_interval_hist, rx_plot_timeline };

/* n packets, 1 ms apart; received with a deterministic wobble, every 97th lost; optional send log. */
struct run {
	struct rx_ref ref;
	struct rx_sink sink;
	struct rx_result res;
	struct sendlog_data log;
	struct sendlog_entry *e;
};

static void make_run(struct run *r, size_t n, bool jitter, bool with_log)
{
	uint8_t b[64] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00 };

	memset(r, 0, sizeof(*r));
	r->ref.n = n;
	r->ref.id = calloc(n + 1, sizeof(uint64_t));
	r->ref.ts_ns = calloc(n + 1, sizeof(uint64_t));
	r->ref.recno = calloc(n + 1, sizeof(uint64_t));
	r->ref.len = calloc(n + 1, sizeof(uint32_t));
	r->e = calloc(n + 1, sizeof(*r->e));
	r->sink.id_bytes = PKT_ID_BYTES;
	assert_true(r->ref.id && r->ref.ts_ns && r->ref.recno && r->ref.len && r->e);
	for (size_t i = 0; i < n; i++) {
		uint64_t t = 1700000000000000000ull + i * 1000000;
		uint64_t wobble = jitter ? (i * 7919) % 50000 : 0;

		memcpy(b + 42, &i, sizeof(i));
		r->ref.id[i] = pkt_id(b, sizeof(b), sizeof(b), PKT_ID_BYTES);
		r->ref.ts_ns[i] = t;
		r->ref.recno[i] = i + 1;
		r->ref.len[i] = sizeof(b);
		r->e[i] = (struct sendlog_entry){ .run_ns = t + wobble / 3, .id = r->ref.id[i],
						  .recno = i + 1 };
		if (i % 97 == 50)
			continue;
		assert_true(rx_sink_take(&r->sink, b, sizeof(b), sizeof(b), t + 20000 + wobble, 0) >= 0);
	}
	r->log = (struct sendlog_data){ .e = r->e, .count = n };
	r->log.hdr.id_bytes = PKT_ID_BYTES;
	assert_int_equal(rx_analyse(&r->res, &r->sink.recs, &r->ref, with_log ? &r->log : NULL), 0);
}

static void free_run(struct run *r)
{
	rx_result_free(&r->res);
	rx_recs_free(&r->sink.recs);
	rx_ref_free(&r->ref);
	free(r->e);
}

/* Draw with @fn into memory; basic well-formedness: one root element, tags balanced, no script. */
static char *draw(plot_fn fn, struct run *r, size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);
	long depth = 0;

	assert_non_null(f);
	assert_int_equal(fn(f, &r->res, &r->sink.recs, &r->ref), 0);
	fclose(f);
	assert_non_null(strstr(out, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(out, "</svg>\n"));
	assert_null(strstr(out, "<script"));
	assert_null(strstr(out, "href"));
	assert_null(strstr(out, "nan"));
	assert_null(strstr(out, "inf"));
	for (const char *p = out; (p = strchr(p, '<')); p++) {
		const char *gt = strchr(p, '>');

		assert_non_null(gt);
		if (p[1] == '?')
			continue;
		if (p[1] == '/')
			depth--;
		else if (gt[-1] != '/')
			depth++;
		assert_true(depth >= 0);
	}
	assert_int_equal(depth, 0);
	return out;
}

static void test_figures_well_formed(void **state)
{
	struct run r;
	size_t len;

	(void)state;
	make_run(&r, 2000, true, true);
	assert_int_equal(r.res.lost, 2000 / 97 + 1);
	for (size_t i = 0; i < sizeof(plots) / sizeof(plots[0]); i++)
		free(draw(plots[i], &r, &len));
	free_run(&r);
}

static void test_size_bounded(void **state)
{
	struct run small, big;
	size_t ls, lb;

	(void)state;
	make_run(&small, 2000, true, true);
	make_run(&big, 200000, true, true);
	for (size_t i = 0; i < sizeof(plots) / sizeof(plots[0]); i++) {
		free(draw(plots[i], &small, &ls));
		free(draw(plots[i], &big, &lb));
		/* 100 times the frames, not 100 times the figure. */
		if (lb > 2 * ls + 200000 || lb > 3000000)
			fail_msg("figure %zu: %zu bytes for 2000 frames, %zu for 200000", i, ls, lb);
	}
	free_run(&small);
	free_run(&big);
}

static void test_edge_cases(void **state)
{
	struct run r;
	size_t len;
	char *out;

	(void)state;
	/* Every gap exact: the CDF says so instead of drawing an empty log axis. */
	make_run(&r, 50, false, false);
	out = draw(rx_plot_error_cdf, &r, &len);
	assert_non_null(strstr(out, "every gap exactly as intended"));
	free(out);
	free(draw(rx_plot_interval, &r, &len));
	out = draw(rx_plot_timeline, &r, &len);
	assert_null(strstr(out, "orange"));
	free(out);
	free_run(&r);

	/* Nothing received. */
	make_run(&r, 1, false, false);
	rx_result_free(&r.res);
	rx_recs_free(&r.sink.recs);
	assert_int_equal(rx_analyse(&r.res, &r.sink.recs, &r.ref, NULL), 0);
	out = draw(rx_plot_interval, &r, &len);
	assert_non_null(strstr(out, "no pair of consecutive in-order frames"));
	free(out);
	out = draw(rx_plot_error_cdf, &r, &len);
	assert_non_null(strstr(out, "no pair of consecutive in-order frames"));
	free(out);
	out = draw(rx_plot_timeline, &r, &len);
	assert_non_null(strstr(out, "nothing to draw"));
	free(out);
	free_run(&r);
}

/*
 * The interval histogram (original against replica): a replica with every
 * gap as intended overlaps the original fully; one whose gaps wobble around
 * 1 ms (a bin edge) does not.  The counts in the legend are the pairs.
 */
static void test_interval_hist(void **state)
{
	struct run r;
	size_t len;
	char *out, *o;

	(void)state;
	make_run(&r, 1000, false, false);
	out = draw(rx_plot_interval_hist, &r, &len);
	assert_non_null(strstr(out, "overlap 100.0 %"));
	/* Pairs of consecutive received frames: 1000 - 10 lost, less one. */
	assert_int_equal(r.res.lost, 10);
	assert_non_null(strstr(out, "original: intended gaps (989)"));
	assert_non_null(strstr(out, "replica: received gaps (989)"));
	free(out);
	free_run(&r);

	make_run(&r, 1000, true, false);
	out = draw(rx_plot_interval_hist, &r, &len);
	o = strstr(out, "overlap ");
	assert_non_null(o);
	assert_true(strtod(o + 8, NULL) < 99.0);
	assert_true(strtod(o + 8, NULL) > 0.0);
	free(out);
	free_run(&r);
}

/*
 * A reference of @n packets 1 ms apart; arrival k (of @m) is packet
 * @order[k] (NULL: packet k), the first @lat ns after packet 0 was due and
 * each next one @got[k - 1] ns after the one before.  With @send_late the
 * send log says packet i left at its schedule plus send_late[i] (run clock
 * = realtime).
 */
static void make_gaps(struct run *r, size_t n, const size_t *order, size_t m, const uint64_t *got,
		      const int64_t *send_late, uint64_t lat)
{
	uint8_t b[64] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00 };
	uint64_t t0 = 1700000000000000000ull, rt = t0 + lat;

	memset(r, 0, sizeof(*r));
	r->ref.n = n;
	r->ref.id = calloc(n, sizeof(uint64_t));
	r->ref.ts_ns = calloc(n, sizeof(uint64_t));
	r->ref.recno = calloc(n, sizeof(uint64_t));
	r->ref.len = calloc(n, sizeof(uint32_t));
	r->e = calloc(n, sizeof(*r->e));
	r->sink.id_bytes = PKT_ID_BYTES;
	assert_true(r->ref.id && r->ref.ts_ns && r->ref.recno && r->ref.len && r->e);
	for (size_t i = 0; i < n; i++) {
		uint64_t t = t0 + i * 1000000;

		memcpy(b + 42, &i, sizeof(i));
		r->ref.id[i] = pkt_id(b, sizeof(b), sizeof(b), PKT_ID_BYTES);
		r->ref.ts_ns[i] = t;
		r->ref.recno[i] = i + 1;
		r->ref.len[i] = sizeof(b);
		r->e[i] = (struct sendlog_entry){
			.run_ns = (uint64_t)((int64_t)t + (send_late ? send_late[i] : 0)),
			.id = r->ref.id[i],
			.recno = i + 1,
		};
	}
	for (size_t k = 0; k < m; k++) {
		size_t i = order ? order[k] : k;

		if (k)
			rt += got[k - 1];
		memcpy(b + 42, &i, sizeof(i));
		assert_true(rx_sink_take(&r->sink, b, sizeof(b), sizeof(b), rt, 0) >= 0);
	}
	r->log = (struct sendlog_data){ .e = r->e, .count = n };
	r->log.hdr.id_bytes = PKT_ID_BYTES;
	assert_int_equal(rx_analyse(&r->res, &r->sink.recs, &r->ref, send_late ? &r->log : NULL), 0);
}

/* The scatter's cells: "x,y,opacity" of each rect in the blue group, in order, ';'-joined. */
static void scatter_cells(const char *svg, char *out, size_t len)
{
	const char *g = strstr(svg, "<g fill=\"#1f5fbf\">"), *e;
	size_t used = 0;

	assert_non_null(g);
	e = strstr(g, "</g>");
	assert_non_null(e);
	*out = '\0';
	for (const char *p = g; (p = strstr(p, "<rect ")) && p < e; p++) {
		double x, y, op;

		assert_int_equal(sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"3\" height=\"3\" fill-opacity=\"%lf\"",
					&x, &y, &op),
				 3);
		used += (size_t)snprintf(out + used, len - used, "%s%.1f,%.1f,%.2f", used ? ";" : "",
					 x, y, op);
		assert_true(used < len);
	}
}

/*
 * The linear interval-interval figure: five pairs, intended 1 ms each,
 * received 1, 1.5, 0.5, 1 and 1 ms.  The axes run from 0 to 1.6 ms (a round
 * 0.2 ms step above the longest gap), 426 px square from (90, 490): the
 * cells, 3 px, are at x = 90 + 3 floor(426 g / 1.6 ms / 3) and
 * y = 490 - 3 (floor(426 r / 1.6 ms / 3) + 1): intended 1 ms is column 88
 * (x 354), received 1 ms row 88 (y 223), 1.5 ms row 133 (y 88), 0.5 ms
 * row 44 (y 355).  The cell with 3 pairs is the darkest (opacity 1), the
 * single ones 0.3 + 0.7 ln 2 / ln 4 = 0.65.  The log-log figure of the same
 * run puts them elsewhere (decades 100 us .. 10 ms).
 */
static void test_interval_linear(void **state)
{
	static const uint64_t got[] = { 1000000, 1500000, 500000, 1000000, 1000000 };
	struct run r;
	char cells[512];
	size_t len;
	char *out;

	(void)state;
	make_gaps(&r, 6, NULL, 6, got, NULL, 20000);
	assert_int_equal(r.res.lost, 0);
	out = draw(rx_plot_interval_linear, &r, &len);
	scatter_cells(out, cells, sizeof(cells));
	assert_string_equal(cells, "354.0,355.0,0.65;354.0,223.0,1.00;354.0,88.0,0.65");
	assert_non_null(strstr(out, "(linear)"));
	assert_non_null(strstr(out, ">5 pairs<"));
	assert_non_null(strstr(out, ">60.0 % within 1 % of intended<"));
	assert_non_null(strstr(out, ">20.0 % longer (above)<"));
	assert_non_null(strstr(out, ">20.0 % shorter (below)<"));
	/* Axis labels: 0 at the origin, 1.6 ms at the far end. */
	assert_non_null(strstr(out, "text-anchor=\"middle\">0</text>"));
	assert_non_null(strstr(out, "text-anchor=\"middle\">1.6 ms</text>"));
	/* The diagonal from (0, 0) to (1.6 ms, 1.6 ms). */
	assert_non_null(strstr(out, "<line x1=\"90.0\" y1=\"490.0\" x2=\"516.0\" y2=\"64.0\" stroke=\"#c00\""));
	free(out);
	out = draw(rx_plot_interval, &r, &len);
	scatter_cells(out, cells, sizeof(cells));
	assert_string_not_equal(cells, "354.0,355.0,0.65;354.0,223.0,1.00;354.0,88.0,0.65");
	assert_null(strstr(out, "(linear)"));
	free(out);
	free_run(&r);
}

/*
 * The send series: six packets due 1 ms apart, sent 0, +3, -1, +50, 0 and
 * +7 us off their schedule; arriving 1 ms apart from 2 ms after the first
 * was due, as 0, 2, 1, 3, 5 (1 and 2 swapped, 4 lost).  Per packet, in the
 * reference's order, relative to packet 0: the send error is send_late; the
 * arrival error is (arrival - 2 ms) - due; the latency arrival - send.
 */
static const char send_series_tsv[] =
	"# replay-rx send series: one line per reference packet received and in the send log, in reference order\n"
	"# times in ns, relative to the first in-order frame in the send log; error = actual minus intended\n"
	"recno\tintended_ns\tsend_error_ns\tarrival_error_ns\tlatency_ns\n"
	"1\t0\t0\t0\t2000000\n"
	"2\t1000000\t3000\t1000000\t2997000\n"
	"3\t2000000\t-1000\t-1000000\t1001000\n"
	"4\t3000000\t50000\t0\t1950000\n"
	"6\t5000000\t7000\t-1000000\t993000\n";

static void make_send_run(struct run *r)
{
	static const size_t order[] = { 0, 2, 1, 3, 5 };
	static const uint64_t got[] = { 1000000, 1000000, 1000000, 1000000 };
	static const int64_t late[] = { 0, 3000, -1000, 50000, 0, 7000 };

	make_gaps(r, 6, order, 5, got, late, 2000000);
	assert_int_equal(r->res.lost, 1);
	assert_int_equal(r->res.reordered, 1);
	assert_int_equal(r->res.log_matched, 5);
}

static char *tsv(struct run *r)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(rx_send_series_tsv(f, &r->res, &r->sink.recs, &r->ref), 0);
	fclose(f);
	return out;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_send_series(void **state)
{
	char dir[] = "/tmp/test_rx_plot.XXXXXX", p[300], err[512];
	struct rx_send_point *pt;
	struct run r;
	size_t len, n;
	char *out;

	(void)state;
	make_send_run(&r);
	assert_int_equal(rx_send_series(&pt, &n, &r.res, &r.sink.recs, &r.ref), 0);
	assert_int_equal(n, 5);
	assert_int_equal(pt[2].pos, 2);
	assert_int_equal(pt[2].latency_ns, 1001000);
	assert_int_equal(pt[4].pos, 5);
	free(pt);
	out = tsv(&r);
	assert_string_equal(out, send_series_tsv);
	free(out);
	out = draw(rx_plot_send_series, &r, &len);
	assert_non_null(strstr(out, ">5 packets in the send log and received;"));
	assert_non_null(strstr(out, "<polygon fill=\"#e08000\""));
	assert_non_null(strstr(out, "<polygon fill=\"#1f5fbf\""));
	assert_non_null(strstr(out, "<polygon fill=\"#2a9d5c\""));
	assert_non_null(strstr(out, "packet number in the reference"));
	free(out);

	/* --plot writes both, the numbers exactly. */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(rx_plot_write(dir, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/send-series.tsv", dir);
	out = slurp(p);
	assert_string_equal(out, send_series_tsv);
	free(out);
	unlink(p);
	snprintf(p, sizeof(p), "%s/send-series.svg", dir);
	out = slurp(p);
	assert_non_null(strstr(out, "Send series"));
	free(out);
	unlink(p);
	for (const char *const *f = (const char *const[]){ "interval.svg", "interval-linear.svg",
							   "error-cdf.svg", "interval-hist.svg",
							   "timeline.svg", NULL };
	     *f; f++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *f);
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(rmdir(dir), 0);
	free_run(&r);

	/* Without a send log: no series, and the figure says why. */
	make_gaps(&r, 6, (const size_t[]){ 0, 2, 1, 3, 5 }, 5,
		  (const uint64_t[]){ 1000000, 1000000, 1000000, 1000000 }, NULL, 2000000);
	assert_int_equal(rx_send_series(&pt, &n, &r.res, &r.sink.recs, &r.ref), 0);
	assert_int_equal(n, 0);
	assert_null(pt);
	out = draw(rx_plot_send_series, &r, &len);
	assert_non_null(strstr(out, "no send log (--send-log)"));
	free(out);
	free_run(&r);
}

static void test_write_dir(void **state)
{
	char dir[] = "/tmp/test_rx_plot.XXXXXX", path[256], err[512], p0[300];
	const char *names[] = { "interval.svg", "interval-linear.svg", "error-cdf.svg",
				"interval-hist.svg", "timeline.svg" };
	struct run r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	make_run(&r, 300, true, false);
	snprintf(path, sizeof(path), "%s/figs", dir);
	assert_int_equal(rx_plot_write(path, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char p[300];

		snprintf(p, sizeof(p), "%s/%s", path, names[i]);
		assert_int_equal(access(p, R_OK), 0);
		unlink(p);
	}
	/* No send log: no send series. */
	snprintf(p0, sizeof(p0), "%s/send-series.tsv", path);
	assert_int_equal(access(p0, F_OK), -1);
	snprintf(p0, sizeof(p0), "%s/send-series.svg", path);
	assert_int_equal(access(p0, F_OK), -1);
	assert_int_equal(rmdir(path), 0);
	rmdir(dir);
	assert_int_equal(rx_plot_write("/nonexistent-dir/figs", &r.res, &r.sink.recs, &r.ref, err,
				       sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent-dir/figs: cannot create the plot directory: No such file or directory");
	free_run(&r);
}

/* Entries of @dir other than "." and "..". */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void rm_rf(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%.400s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The rule of rx_plot_dir_check(), over every permission bit and both
 * owners: a directory of the caller's, not writable by others unless
 * sticky; anything but a directory is not one.
 */
static void test_dir_check(void **state)
{
	uid_t me = 1000;
	char err[512];

	(void)state;
	for (unsigned mode = 0; mode <= 07777; mode++) {
		for (int other = 0; other < 2; other++) {
			struct stat st = { .st_mode = S_IFDIR | mode, .st_uid = other ? me + 1 : me };
			bool ok = !other && (!(mode & S_IWOTH) || (mode & S_ISVTX));
			int rc = rx_plot_dir_check(&st, me, "d", err, sizeof(err));

			if (rc != (ok ? 0 : -EPERM))
				fail_msg("mode %04o, %s: %d", mode, other ? "another's" : "mine", rc);
			if (!ok && (strncmp(err, "--plot d: ", 10) || strchr(err, '\n')))
				fail_msg("mode %04o: '%s'", mode, err);
		}
	}
	for (unsigned type = 0; type < 8; type++) {
		static const mode_t kinds[] = { S_IFREG, S_IFLNK, S_IFCHR, S_IFBLK, S_IFIFO, S_IFSOCK,
						S_IFREG, S_IFREG };
		struct stat st = { .st_mode = kinds[type] | 0755, .st_uid = me };

		assert_int_equal(rx_plot_dir_check(&st, me, "f", err, sizeof(err)), -ENOTDIR);
		assert_string_equal(err, "--plot f: exists and is not a directory");
	}
}

/*
 * A plot directory reached through a symbolic link is refused, whoever
 * made it, and nothing is written where it points -- a link another user
 * plants (/tmp/x -> a directory of root's) once had root write its figures
 * there; so are one through another user's link, another user's
 * directory, and one anyone may write in without the sticky bit.
 */
static void test_dir_refused(void **state)
{
	char dir[] = "/tmp/test_rx_plot.XXXXXX", target[300], link[300], p[400], err[512];
	struct run r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	make_run(&r, 300, true, false);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/x", dir);
	assert_int_equal(mkdir(target, 0755), 0);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(rx_plot_write(link, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), -EPERM);
	snprintf(p, sizeof(p), "--plot %s: is a symbolic link; give the directory itself", link);
	assert_string_equal(err, p);
	snprintf(p, sizeof(p), "%s/", link); /* a trailing slash follows the link, O_NOFOLLOW or not */
	assert_int_equal(rx_plot_write(p, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), -EPERM);
	assert_int_equal(entries(target), 0);

	/* Through a link of our own to a directory of ours: followed. */
	snprintf(p, sizeof(p), "%s/x/figs", dir);
	assert_int_equal(rx_plot_write(p, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/figs", target);
	assert_int_equal(entries(p), 5);
	rm_rf(p);

	/* Anyone may write in it: refused; with the sticky bit, as /tmp: written. */
	assert_int_equal(chmod(target, 0777), 0);
	assert_int_equal(rx_plot_write(target, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "anyone may write in the directory (mode 0777, no sticky bit)"));
	assert_int_equal(entries(target), 0);
	assert_int_equal(chmod(target, 01777), 0);
	assert_int_equal(rx_plot_write(target, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), 0);
	assert_int_equal(entries(target), 5);
	rm_rf(target);

	/* Another user's link on the way, another user's directory: only root can make them. */
	if (geteuid() == 0) {
		assert_int_equal(mkdir(target, 0755), 0);
		snprintf(p, sizeof(p), "%s/sub", target);
		assert_int_equal(mkdir(p, 0755), 0);
		assert_int_equal(lchown(link, 65534, 65534), 0);
		snprintf(p, sizeof(p), "%s/sub", link);
		assert_int_equal(rx_plot_write(p, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), -EPERM);
		assert_non_null(strstr(err, ": x is a symbolic link owned by another user (uid 65534)"));
		snprintf(p, sizeof(p), "%s/sub", target);
		assert_int_equal(entries(p), 0);
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_int_equal(rx_plot_write(p, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), -EPERM);
		assert_non_null(strstr(err, "the directory belongs to another user (uid 65534)"));
		assert_int_equal(entries(p), 0);
	}
	rm_rf(dir);
	free_run(&r);
}

/*
 * All or none: a figure that cannot be written (a file size limit, as a
 * full disk would) or that cannot take its name (a directory in the way)
 * leaves no figure of the run and no temporary behind, and an older figure
 * as it was.
 */
static void test_all_or_nothing(void **state)
{
	char dir[] = "/tmp/test_rx_plot.XXXXXX", p[300], err[512], *old;
	struct rlimit lim, small;
	struct run r;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	make_run(&r, 2000, true, true);
	snprintf(p, sizeof(p), "%s/interval.svg", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("old", f);
	fclose(f);

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &lim), 0);
	small = (struct rlimit){ 10000, lim.rlim_max }; /* the soft limit only: it goes back up */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	assert_int_equal(rx_plot_write(dir, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_non_null(strstr(err, ": cannot write: File too large"));
	assert_int_equal(entries(dir), 1);
	old = slurp(p);
	assert_string_equal(old, "old");
	free(old);

	snprintf(p, sizeof(p), "%s/send-series.svg", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(rx_plot_write(dir, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), -EISDIR);
	snprintf(p, sizeof(p), "%s/send-series.svg: cannot write: Is a directory", dir);
	assert_string_equal(err, p);
	assert_int_equal(entries(dir), 2);
	snprintf(p, sizeof(p), "%s/interval.svg", dir);
	old = slurp(p);
	assert_string_equal(old, "old");
	free(old);

	/* With room, all seven replace what was there. */
	snprintf(p, sizeof(p), "%s/send-series.svg", dir);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rx_plot_write(dir, &r.res, &r.sink.recs, &r.ref, err, sizeof(err)), 0);
	assert_int_equal(entries(dir), 7);
	snprintf(p, sizeof(p), "%s/interval.svg", dir);
	old = slurp(p);
	assert_non_null(strstr(old, "</svg>"));
	free(old);
	rm_rf(dir);
	free_run(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_figures_well_formed),
		cmocka_unit_test(test_size_bounded),
		cmocka_unit_test(test_edge_cases),
		cmocka_unit_test(test_interval_hist),
		cmocka_unit_test(test_interval_linear),
		cmocka_unit_test(test_send_series),
		cmocka_unit_test(test_write_dir),
		cmocka_unit_test(test_dir_check),
		cmocka_unit_test(test_dir_refused),
		cmocka_unit_test(test_all_or_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
