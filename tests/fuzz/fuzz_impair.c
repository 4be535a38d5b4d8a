// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz both impairment trace parsers (replay/impair.h), picked by the input's
 * first bytes like the reader does: any bytes as a file.  Every refusal says
 * why; every action read is one a trace can hold; written back in both
 * forms, it reads back the same (checked in lockstep, so nothing is stored);
 * and the engine over the same file applies corruptions only inside a frame.
 * The same bytes, as a string, go to the netem-like model parser: a refusal
 * names a word; an accepted spec's canonical form reads back to the same
 * model, and the model's actions are ones the send loop can carry out.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay/impair.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: say which, then stop (distinct from a crash the sanitizers catch). */
#define BROKEN(what)                                                               \
	do {                                                                       \
		fprintf(stderr, "fuzz_impair: line %d: %s\n", __LINE__, what);     \
		abort();                                                           \
	} while (0)

static struct impair_action a, b;

static bool same(const struct impair_action *x, const struct impair_action *y)
{
	if (x->drop != y->drop || x->delay_ns != y->delay_ns || x->ndup != y->ndup ||
	    x->ncorrupt != y->ncorrupt)
		return false;
	for (unsigned i = 0; i < x->ndup; i++)
		if (x->dup_delay_ns[i] != y->dup_delay_ns[i])
			return false;
	for (unsigned i = 0; i < x->ncorrupt; i++)
		if (x->corrupt[i].kind != y->corrupt[i].kind || x->corrupt[i].pos != y->corrupt[i].pos)
			return false;
	return true;
}

static int memfd_path(char *path, size_t len, const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd >= 0)
		snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* Read @n actions from @path in lockstep with @in's; trap on any difference. */
static void check_copy(const char *in, const char *path, uint64_t n)
{
	struct impair_reader *r0 = NULL, *r1 = NULL;

	if (impair_reader_open(&r0, in) < 0 || impair_reader_open(&r1, path) < 0)
		BROKEN("check failed");
	for (uint64_t i = 0; i < n; i++) {
		if (impair_reader_next(r0, &a) != 1 || impair_reader_next(r1, &b) != 1 || !same(&a, &b))
			BROKEN("check failed");
	}
	if (impair_reader_next(r1, &b) != 0) /* nothing more in the copy */
		BROKEN("check failed");
	impair_reader_close(r0);
	impair_reader_close(r1);
}

static bool close_to(double x, double y)
{
	return x == y || (x - y < 1e-12 && y - x < 1e-12);
}

static bool same_cfg(const struct impair_stat_cfg *x, const struct impair_stat_cfg *y)
{
	for (int i = 0; i < 5; i++)
		if (!close_to(x->loss_p[i], y->loss_p[i]))
			return false;
	return x->delay_ns == y->delay_ns && x->jitter_ns == y->jitter_ns &&
	       close_to(x->delay_corr, y->delay_corr) && x->dist == y->dist && x->loss == y->loss &&
	       close_to(x->loss_corr, y->loss_corr) && close_to(x->dup, y->dup) &&
	       close_to(x->dup_corr, y->dup_corr) && close_to(x->corrupt, y->corrupt) &&
	       close_to(x->corrupt_corr, y->corrupt_corr) && close_to(x->reorder, y->reorder) &&
	       close_to(x->reorder_corr, y->reorder_corr) && x->gap == y->gap &&
	       x->rate_bps == y->rate_bps && x->overhead == y->overhead &&
	       x->cell_size == y->cell_size && x->cell_overhead == y->cell_overhead &&
	       x->limit == y->limit;
}

/* The bytes up to the first NUL as a netem-like spec. */
static void check_stat(const uint8_t *data, size_t size)
{
	static struct impair_stat_cfg c, d;
	char spec[2048], canon[1024], err[512] = "";
	size_t n = size < sizeof(spec) - 1 ? size : sizeof(spec) - 1;
	struct impair_cfg cfg = { .seed = size };
	struct impair *im;
	uint8_t buf[1600] = { 0 };
	struct pkt p = { .data = buf, .linktype = 1 };

	memcpy(spec, data, n);
	spec[n] = 0;
	impair_stat_init(&c);
	if (impair_stat_parse(spec, &c, err, sizeof(err)) < 0) {
		if (!err[0])
			BROKEN("a refused spec without a reason");
		return;
	}
	if (impair_stat_format(&c, canon, sizeof(canon)) >= (int)sizeof(canon))
		BROKEN("canonical form too long");
	impair_stat_init(&d);
	if (impair_stat_parse(canon, &d, err, sizeof(err)) < 0 || !same_cfg(&c, &d))
		BROKEN("the canonical form does not read back");
	cfg.stat = &c;
	impair_action_pass(&cfg.dflt);
	if (impair_open(&im, &cfg, 1, err, sizeof(err)) < 0)
		BROKEN("a parsed model does not open");
	for (uint64_t i = 0; i < 256; i++) {
		p.caplen = p.wirelen = (uint32_t)(i * 37 % sizeof(buf));
		if (impair_next(im, &p, i * 1000, &a) != 1)
			BROKEN("the model gave no action");
		if (a.delay_ns > IMPAIR_DELAY_MAX || a.ndup > 1 || a.ncorrupt > 1 ||
		    (a.drop && (a.ndup || a.ncorrupt || a.delay_ns)) ||
		    (a.ndup && a.dup_delay_ns[0] > IMPAIR_DELAY_MAX))
			BROKEN("a model action the loop cannot carry out");
		impair_corrupt_apply(im, &a, buf, p.caplen);
	}
	impair_close(im);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[64], out[2][64], err[1024];
	int fd, ofd[2];
	FILE *of[2];
	struct impair_reader *r = NULL;
	uint64_t n = 0;
	bool r_opened;
	int rc;

	fd = memfd_path(in, sizeof(in), "impair");
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	for (int k = 0; k < 2; k++) {
		ofd[k] = memfd_path(out[k], sizeof(out[k]), "impair-out");
		of[k] = ofd[k] >= 0 ? fdopen(dup(ofd[k]), "wb") : NULL;
		if (!of[k])
			BROKEN("check failed");
		if (impair_write_header(of[k], (enum impair_fmt)k) < 0)
			BROKEN("check failed");
	}
	rc = impair_reader_open(&r, in);
	r_opened = rc == 0;
	while (rc >= 0 && (rc = impair_reader_next(r, &a)) == 1) {
		for (int k = 0; k < 2; k++)
			if (impair_write(of[k], (enum impair_fmt)k, &a) < 0)
				BROKEN("the reader let through what no trace can hold");
		n++;
	}
	if (rc < 0 && (!r || !strcmp(impair_reader_strerror(r), "no error")))
		BROKEN("a refusal without a reason");
	impair_reader_close(r);
	for (int k = 0; k < 2; k++) {
		if (fclose(of[k]))
			BROKEN("check failed");
		if (r_opened)
			check_copy(in, out[k], n);
		close(ofd[k]);
	}

	/* The engine: twice over the trace, then the default; corruptions stay in the frame. */
	struct impair_cfg cfg = { .path = in, .repeat = 2, .seed = size };
	struct impair *im;

	impair_action_pass(&cfg.dflt);
	cfg.dflt.drop = true;
	if (impair_open(&im, &cfg, 1, err, sizeof(err)) == 0) {
		uint8_t frame[64 + 16];

		for (uint64_t i = 0; i < 2 * n + 2 && i < 4096; i++) {
			if (impair_next(im, NULL, 0, &a) != 1)
				BROKEN("check failed");
			if ((i < 2 * n) != (a.src == IMPAIR_SRC_TRACE))
				BROKEN("check failed");
			memset(frame, 0xa5, sizeof(frame));
			impair_corrupt_apply(im, &a, frame, i % 65);
			for (size_t j = i % 65; j < sizeof(frame); j++)
				if (frame[j] != 0xa5)
					BROKEN("check failed");
		}
		impair_close(im);
	} else if (rc == 0 && n) {
		BROKEN("the reader took it whole, the engine did not");
	} else if (!err[0]) {
		BROKEN("check failed");
	}
	close(fd);
	check_stat(data, size);
	return 0;
}
