// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay --info FILE...: what a trace holds, read once through the same
 * reader a replay uses (so what it says is what a replay would see), with
 * packets as recorded -- no link-type conversion.  The first thing to run on
 * an unknown trace, so it only reads: no interface, no privilege.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "replay/run.h"
#include "replay/log.h"
#include "replay/split.h"
#include "replay/trace.h"

struct lenstat {
	uint64_t min, max, sum;
};

/* A forward step longer than this between two records is a jump: a replay would wait it out. */
#define INFO_JUMP_NS (60 * NSEC_PER_SEC)

struct info {
	uint64_t pkts, truncated, backwards;
	uint64_t first_ns, last_ns, min_ns, max_ns, prev_ns;
	uint64_t gap_ns, gap_rec;        /* the longest forward step, and the record after it */
	uint64_t jumps, jump_rec;        /* steps over INFO_JUMP_NS; the first one's record */
	uint64_t back_ns, back_rec;      /* the first backward step and its record */
	struct lenstat cap, wire;
	uint64_t *per_if; /* packets per interface */
	unsigned nper_if;
};

static void len_add(struct lenstat *l, uint32_t v, bool first)
{
	if (first || v < l->min)
		l->min = v;
	if (first || v > l->max)
		l->max = v;
	l->sum += v;
}

static void print_time(FILE *f, const char *key, uint64_t ns)
{
	time_t sec = (time_t)(ns / NSEC_PER_SEC);
	struct tm tm;
	char buf[64] = "?";

	if (gmtime_r(&sec, &tm))
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	uint64_t s = ns / NSEC_PER_SEC, frac = ns % NSEC_PER_SEC;

	fprintf(f, "%-14s%s.%09" PRIu64 " UTC (%" PRIu64 ".%09" PRIu64 ")\n", key, buf, frac, s,
		frac);
}

static void print_tsresol(FILE *f, uint8_t r)
{
	static const char *const names[] = { [0] = "s", [3] = "ms", [6] = "us", [9] = "ns" };
	unsigned e = r & 0x7f;

	if (r & 0x80)
		fprintf(f, "2^-%u s", e);
	else if (e < ARRAY_SIZE(names) && names[e])
		fprintf(f, "10^-%u s (%s)", e, names[e]);
	else
		fprintf(f, "10^-%u s", e);
}

static void print_len(FILE *f, const char *key, const struct lenstat *l, uint64_t n)
{
	if (!n) {
		fprintf(f, "%-14s-\n", key);
		return;
	}
	fprintf(f, "%-14smin %" PRIu64 ", avg %.1f, max %" PRIu64 " bytes\n", key, l->min,
		(double)l->sum / (double)n, l->max);
}

static int count_if(struct info *in, uint32_t ifidx)
{
	if (ifidx >= in->nper_if) {
		unsigned n = MAX(ifidx + 1, 2 * in->nper_if);
		uint64_t *p = realloc(in->per_if, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + in->nper_if, 0, (n - in->nper_if) * sizeof(*p));
		in->per_if = p;
		in->nper_if = n;
	}
	in->per_if[ifidx]++;
	return 0;
}

static void report(FILE *f, const char *path, struct trace *t, const struct info *in)
{
	struct stat st;
	const char *first;
	uint64_t nwarn = trace_warnings(t, &first);
	uint64_t zin = 0, zout = 0;
	const char *codec;

	fprintf(f, "%s\n", path);
	fprintf(f, "%-14s%s", "format:", trace_format_name(t));
	if (*trace_format_detail(t))
		fprintf(f, " (%s)", trace_format_detail(t));
	fprintf(f, "\n%-14s%s\n", "byte order:", trace_byte_order(t));
	if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode))
		fprintf(f, "%-14s%lld bytes\n", "size:", (long long)st.st_size);
	codec = trace_compression(t, &zin, &zout);
	/* Known once the whole input was read, which --info does: no header says it for every codec. */
	if (codec)
		fprintf(f, "%-14s%s, %" PRIu64 " bytes -> %" PRIu64 " bytes (ratio %.2f)\n", "compressed:", codec,
			zin, zout, zin ? (double)zout / (double)zin : 0.0);
	fprintf(f, "%-14s%u\n", "interfaces:", trace_ninterfaces(t));
	for (unsigned i = 0; i < trace_ninterfaces(t); i++) {
		const struct trace_iface *ifc = trace_interface(t, i);
		const char *n = linktype_name(ifc->linktype);

		fprintf(f, "  %-4u%s (%u)%s, snaplen %" PRIu32 ", timestamps ", i,
			n ? n : "unknown", ifc->linktype,
			trace_linktype_replayable(ifc->linktype) ? "" : " [cannot be replayed]",
			ifc->snaplen);
		print_tsresol(f, ifc->tsresol);
		if (ifc->tsoffset_s)
			fprintf(f, " + %" PRId64 " s", ifc->tsoffset_s);
		if (ifc->fcs_bytes)
			fprintf(f, ", FCS %u bytes stripped", ifc->fcs_bytes);
		if (ifc->name[0])
			fprintf(f, ", name \"%s\"", ifc->name);
		if (!strcmp(trace_format_name(t), "pcapng") && (trace_ninterfaces(t) > 1 || ifc->section))
			fprintf(f, ", section %" PRIu32, ifc->section);
		fprintf(f, ", %" PRIu64 " packets\n", i < in->nper_if ? in->per_if[i] : 0);
	}
	fprintf(f, "%-14s%" PRIu64 "\n", "packets:", in->pkts);
	if (in->pkts) {
		print_time(f, "first:", in->first_ns);
		print_time(f, "last:", in->last_ns);
		uint64_t d = in->max_ns - in->min_ns, ds = d / NSEC_PER_SEC, dns = d % NSEC_PER_SEC;

		fprintf(f, "%-14s%" PRIu64 ".%09" PRIu64 " s\n", "duration:", ds, dns);
		if (in->pkts > 1)
			fprintf(f, "%-14s%" PRIu64 ".%09" PRIu64 " s, before record %" PRIu64 "\n",
				"longest gap:", (uint64_t)(in->gap_ns / NSEC_PER_SEC), (uint64_t)(in->gap_ns % NSEC_PER_SEC),
				in->gap_rec);
		if (in->jumps)
			fprintf(f, "%-14s%" PRIu64 " gaps longer than %d s, the first before record %" PRIu64
				" (a replay at recorded timing waits them out; --maxsleep MS caps a wait)\n",
				"time jumps:", in->jumps, (int)(INFO_JUMP_NS / NSEC_PER_SEC), in->jump_rec);
		if (in->backwards)
			fprintf(f, "%-14s%" PRIu64 " packets stamped earlier than the one before, the first record %"
				PRIu64 " (%" PRIu64 ".%09" PRIu64 " s back; a replay sends them at once)\n",
				"out of order:", in->backwards, in->back_rec, (uint64_t)(in->back_ns / NSEC_PER_SEC),
				(uint64_t)(in->back_ns % NSEC_PER_SEC));
	}
	print_len(f, "caplen:", &in->cap, in->pkts);
	print_len(f, "wirelen:", &in->wire, in->pkts);
	fprintf(f, "%-14s%" PRIu64 " packets captured shorter than on the wire\n", "truncated:",
		in->truncated);
	fprintf(f, "%-14s%" PRIu64 "%s%s\n", "warnings:", nwarn, nwarn ? ", the first: " : "",
		nwarn ? first : "");
}

/* One file: 0, or -1 after logging why it could not be read to the end. */
static int info_file(FILE *f, const char *path, bool first_file)
{
	struct trace_cfg cfg = { .keep_linktype = true };
	struct info in = { 0 };
	struct trace *t;
	struct pkt p;
	int rc = trace_open(&t, path, &cfg);

	if (rc < 0) {
		log_err("%s", t ? trace_strerror(t) : "out of memory");
		trace_close(t);
		return -1;
	}
	while ((rc = trace_next(t, &p)) == 1) {
		bool first = in.pkts == 0;

		if (first) {
			in.first_ns = in.min_ns = in.max_ns = p.ts_ns;
		} else if (p.ts_ns < in.prev_ns) {
			if (!in.backwards++) {
				in.back_ns = in.prev_ns - p.ts_ns;
				in.back_rec = p.recno;
			}
		} else {
			uint64_t gap = p.ts_ns - in.prev_ns;

			if (gap > in.gap_ns || !in.gap_rec) {
				in.gap_ns = gap;
				in.gap_rec = p.recno;
			}
			if (gap > INFO_JUMP_NS && !in.jumps++)
				in.jump_rec = p.recno;
		}
		in.min_ns = MIN(in.min_ns, p.ts_ns);
		in.max_ns = MAX(in.max_ns, p.ts_ns);
		in.last_ns = in.prev_ns = p.ts_ns;
		len_add(&in.cap, p.caplen, first);
		len_add(&in.wire, p.wirelen, first);
		in.truncated += p.caplen < p.wirelen;
		in.pkts++;
		if (count_if(&in, p.ifidx) < 0) {
			rc = -ENOMEM;
			break;
		}
	}
	if (!first_file)
		fputc('\n', f);
	report(f, path, t, &in);
	if (rc < 0)
		log_err("%s", rc == -ENOMEM ? "out of memory" : trace_strerror(t));
	free(in.per_if);
	trace_close(t);
	return rc < 0 ? -1 : 0;
}

/* Per-side totals of --split or --cachefile. */
struct side_count {
	uint64_t pkts[3], bytes[3]; /* [SPLIT_NOSEND], [SPLIT_INTF1], [SPLIT_INTF2] */
};

/*
 * One pass over @path (converted to Ethernet, as a replay sends it): with
 * @learn, pass one of the modes that need it; else the side of every packet
 * into *@sc.  Returns the packet count, or -1 after logging why.
 */
static int64_t split_pass(const char *path, struct split *sp, const struct split_cache *cache,
			  bool learn, struct side_count *sc)
{
	struct trace *t;
	struct pkt p;
	int64_t n = 0;
	int rc = trace_open(&t, path, NULL);

	if (rc < 0) {
		log_err("%s", t ? trace_strerror(t) : "out of memory");
		trace_close(t);
		return -1;
	}
	while ((rc = trace_next(t, &p)) == 1) {
		int side;

		n++;
		if (learn) {
			if (split_learn(sp, &p) < 0) {
				log_err("%s: --split %s: %s", path, split_mode_name(split_mode(sp)),
					split_strerror(sp));
				trace_close(t);
				return -1;
			}
			continue;
		}
		if (!sc)
			continue;
		side = cache ? split_cache_side(cache, (uint64_t)n) : split_classify(sp, &p);
		if (side < 0)
			side = SPLIT_NOSEND; /* past the cache's end: refused below by the count */
		sc->pkts[side]++;
		sc->bytes[side] += p.wirelen;
	}
	if (rc < 0) {
		log_err("%s", trace_strerror(t));
		n = -1;
	}
	trace_close(t);
	return n;
}

/* The split of one file, after its description: 0, or -1 after logging why. */
static int info_split(FILE *f, const struct opts *o, const char *path)
{
	static const char *const names[] = { "not sent:", "intf1:", "intf2:" };
	struct side_count sc = { 0 };
	struct split_cache *cache = NULL;
	struct split *sp = NULL;
	char err[512];
	int rc = -1;
	int64_t n;

	if (o->cachefile) {
		if (split_cache_read(&cache, o->cachefile, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return -1;
		}
		n = split_pass(path, NULL, NULL, false, NULL);
		if (n < 0)
			goto out;
		if (split_cache_check(cache, (uint64_t)n, err, sizeof(err)) < 0) {
			log_err("%s: %s", o->cachefile, err);
			goto out;
		}
		if (split_cache_warning(cache, err, sizeof(err)))
			log_warn("%s: %s", o->cachefile, err);
	} else {
		if (split_open(&sp, o->split_mode, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return -1;
		}
		if (split_needs_pass(sp)) {
			if (split_pass(path, sp, NULL, true, NULL) < 0)
				goto out;
			if (split_learn_done(sp) < 0) {
				log_err("%s: --split %s: %s", path, o->split_mode, split_strerror(sp));
				goto out;
			}
		}
	}
	if (split_pass(path, sp, cache, false, &sc) < 0)
		goto out;
	if (cache)
		fprintf(f, "%-14stcpprep cache %s\n", "split:", o->cachefile);
	else
		fprintf(f, "%-14s%s\n", "split:", o->split_mode);
	for (int side = SPLIT_INTF1; side <= SPLIT_INTF2; side++)
		fprintf(f, "  %-12s%" PRIu64 " packets, %" PRIu64 " bytes\n", names[side],
			sc.pkts[side], sc.bytes[side]);
	if (cache)
		fprintf(f, "  %-12s%" PRIu64 " packets, %" PRIu64 " bytes\n", names[SPLIT_NOSEND],
			sc.pkts[SPLIT_NOSEND], sc.bytes[SPLIT_NOSEND]);
	rc = 0;
out:
	split_close(sp);
	split_cache_free(cache);
	return rc;
}

int replay_info(const struct opts *o)
{
	int status = EXIT_DONE;

	for (int i = 0; i < o->nfiles; i++) {
		if (info_file(stdout, o->files[i], i == 0) < 0)
			status = EXIT_FAIL;
		else if ((o->split_mode || o->cachefile) && info_split(stdout, o, o->files[i]) < 0)
			status = EXIT_FAIL;
		fflush(stdout);
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		log_err("standard output: %s", strerror(errno));
		status = EXIT_FAIL;
	}
	return status;
}
