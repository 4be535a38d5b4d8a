// SPDX-License-Identifier: BSD-2-Clause
/*
 * Routing: the lane a packet leaves by, decided on the packet as read,
 * before any edit -- the only lane; with -I the side --split's classifier,
 * the -c cache or the --prep sidecar names; with --dualfile its file's
 * place in its pair.  Opened before the run (route_open(): the cache
 * checked against the trace, --split's learning pass), and with -I over
 * interfaces of different MTUs every frame checked against its side
 * first.  Called by src/run/loop.c (route_side(), route_two()) and
 * src/run/setup.c; calls nothing else of the run's.
 */
#include <errno.h>
#include <string.h>

#include "run_int.h"
#include "replay/log.h"

int route_side(struct replay *r, const struct pkt *p)
{
	const struct route *rt = &r->route;

	if (rt->cache)
		return split_cache_side(rt->cache, p->recno);
	if (rt->prep_sides)
		/* A record outside the sidecar goes to intf1, where the chain fails it, naming why. */
		return edit_prep_side(r->prep, p->recno) == SPLIT_INTF2 ? SPLIT_INTF2 : SPLIT_INTF1;
	if (p->linktype != LINKTYPE_ETHERNET)
		return SPLIT_INTF2; /* not classified (replay/split.h): it fails there, counted on intf2 */
	return split_classify(rt->split, p);
}

struct lane *route_two(struct replay *r, const struct pkt *p)
{
	int side;

	if (r->route.dualfile) {
		r->route.side = (int)r->src.side + 1;
		return &r->out.lane[r->src.side];
	}
	side = route_side(r, p);
	r->route.side = side;
	if (side == SPLIT_INTF2)
		return &r->out.lane[1];
	return side == SPLIT_INTF1 ? &r->out.lane[0] : NULL;
}

int split_learn_trace(const char *path, struct split *sp, uint64_t *n)
{
	struct trace *t;
	struct pkt p;
	int rc = trace_open(&t, path, NULL);

	if (rc < 0) {
		log_err("%s", t ? trace_strerror(t) : "out of memory");
		trace_close(t);
		return -1;
	}
	while ((rc = trace_next(t, &p)) == 1) {
		(*n)++;
		if (sp && split_learn(sp, &p) < 0) {
			log_err("%s: --split %s: %s", path, split_mode_name(split_mode(sp)),
				split_strerror(sp));
			trace_close(t);
			return -1;
		}
	}
	if (rc < 0)
		log_err("%s", trace_strerror(t));
	trace_close(t);
	return rc < 0 ? -1 : 0;
}

/* -c: the tcpprep cache, checked against the trace's packet count. */
static int open_cache(struct replay *r)
{
	const struct opts *o = r->o;
	char err[512];
	uint64_t n = 0;

	if (!strcmp(o->files[0], "-")) {
		log_err("--cachefile: the trace is counted against the cache before sending: give a file, not standard input");
		return -EINVAL;
	}
	if (split_cache_read(&r->route.cache, o->cachefile, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return -EINVAL;
	}
	if (split_learn_trace(o->files[0], NULL, &n) < 0)
		return -EINVAL;
	if (split_cache_check(r->route.cache, n, err, sizeof(err)) < 0) {
		log_err("%s: %s", o->cachefile, err);
		return -EINVAL;
	}
	if (split_cache_warning(r->route.cache, err, sizeof(err)))
		log_warn("%s: %s", o->cachefile, err);
	return 0;
}

/* --split MODE: the classifier, and for the modes that look at the whole trace first, that pass. */
static int open_classifier(struct replay *r, const char *mode)
{
	const struct opts *o = r->o;
	char err[512];
	uint64_t n = 0;

	if (split_open(&r->route.split, mode, err, sizeof(err)) < 0) {
		log_err("--split: %s", err);
		return -EINVAL;
	}
	if (!split_needs_pass(r->route.split))
		return 0;
	for (int i = 0; i < o->nfiles; i++) {
		if (!strcmp(o->files[i], "-")) {
			log_err("--split %s reads the whole trace before sending: it cannot read standard input twice; give a file (or --split first, cidr, port or mac)",
				mode);
			return -EINVAL;
		}
		if (!r->th.idx) /* --threads: each thread learns for its own classifier; thread 0 says it */
			log_info("--split %s: reading %s to place its addresses before sending", mode, o->files[i]);
		if (split_learn_trace(o->files[i], r->route.split, &n) < 0)
			return -EINVAL;
	}
	if (split_learn_done(r->route.split) < 0) {
		log_err("--split %s: %s", mode, split_strerror(r->route.split));
		return -EINVAL;
	}
	return 0;
}

/*
 * -I: how each packet picks its interface: the -c cache, the sidecar's
 * sides, or --split (first, the default, decides as the trace streams).
 * With one output, -c or --split only give -e and the pair forms their
 * direction.
 */
int route_open(struct replay *r)
{
	const struct opts *o = r->o;
	const char *mode = o->split_mode ? o->split_mode : "first";
	struct route *rt = &r->route;
	char err[512];

	rt->nosend_skips = !o->tx.path; /* -w writes a "don't send" packet as read (tcprewrite 4.6) */
	if (o->run.dualfile) {
		rt->dualfile = true; /* a packet's file names its interface */
		return 0;
	}
	if (!o->intf2) {
		if (!o->cachefile && !o->split_mode) {
			/* A sidecar made with --split edited by its sides: its checksums hold for those. */
			if (r->prep && edit_cfg_wants_side(&o->edit) &&
			    edit_prep_split(r->prep, NULL, NULL, err, sizeof(err)) == 1)
				rt->prep_sides = rt->sides1 = true;
			return 0;
		}
		rt->sides1 = true;
	}
	/* A sidecar made by 'replay prep --split' with this mode holds every side: no classifier,
	 * no learning pass.  One made with another mode is refused; one without sides is ignored. */
	if (r->prep && !o->cachefile) {
		int rc = edit_prep_split(r->prep, mode, NULL, err, sizeof(err));

		if (rc < 0) {
			log_err("%s: %s", o->prep_path, err);
			return rc;
		}
		if (rc == 1) {
			rt->prep_sides = true;
			log_info("--split %s: the sides come from %s", mode, o->prep_path);
			return 0;
		}
	}
	return o->cachefile ? open_cache(r) : open_classifier(r, mode);
}

void route_close(struct replay *r)
{
	split_close(r->route.split);
	split_cache_free(r->route.cache);
	r->route.split = NULL;
	r->route.cache = NULL;
}

/* The longest frame lane @l takes: its MTU plus the Ethernet header (and one 802.1Q tag, as the kernel allows). */
static uint32_t lane_frame_max(const struct lane *l, const struct pkt *p)
{
	uint16_t type;

	if (!pkt_get_be16(p, 12, &type) && type == 0x8100)
		return l->tx->mtu + ETH_HDR_BYTES + 4;
	return l->tx->mtu + ETH_HDR_BYTES;
}

/* File @i's frames, each placed as the run will place it: 0, or -1 at the first too long for its side. */
static int check_file_mtus(struct replay *r, struct split *sp, int i)
{
	static const char *const names[2] = { "intf1", "intf2" };
	const struct opts *o = r->o;
	struct trace *t;
	struct pkt p;
	int n, rc = 0;

	if (trace_open(&t, o->files[i], NULL) < 0) {
		log_err("%s", t ? trace_strerror(t) : "out of memory");
		trace_close(t);
		return -1;
	}
	while (!rc && (n = trace_next(t, &p)) == 1) {
		const struct lane *l;
		int side;

		if (p.linktype != LINKTYPE_ETHERNET)
			continue; /* fails in the run, whatever its length */
		if (o->run.dualfile)
			side = i % 2 ? SPLIT_INTF2 : SPLIT_INTF1;
		else if (r->route.cache)
			side = split_cache_side(r->route.cache, p.recno);
		else if (sp)
			side = split_classify(sp, &p);
		else
			break;
		if (side != SPLIT_INTF1 && side != SPLIT_INTF2)
			continue;
		l = &r->out.lane[side - 1];
		if (p.caplen <= lane_frame_max(l, &p))
			continue;
		log_err("%s (-%c %s): %s: record %llu is a frame of %u bytes, more than %s's MTU %u takes (%u with its header); %s (%s) has MTU %u: raise the MTU or truncate with an edit",
			names[side - 1], side == SPLIT_INTF2 ? 'I' : 'i', l->tx->dev, o->files[i],
			(unsigned long long)p.recno, p.caplen, l->tx->dev, l->tx->mtu,
			lane_frame_max(l, &p), names[2 - side], r->out.lane[2 - side].tx->dev,
			r->out.lane[2 - side].tx->mtu);
		rc = -1;
	}
	if (!rc && n < 0) {
		log_err("%s", trace_strerror(t));
		rc = -1;
	}
	trace_close(t);
	return rc;
}

/*
 * -I with interfaces of different MTUs: a frame that fits one side but not
 * the other would only fail when its turn came, mid-run.  So the traces are
 * read once before sending, each packet placed as the run will place it
 * (its file with --dualfile, the -c cache, or a fresh --split classifier),
 * and the run is refused at the first frame too long for its side, naming
 * the side, the file and the record.  Not done when an edit may change the
 * frames (each too long one then fails when sent, named then), --segment
 * cuts the long ones, or an input is a pipe; with equal MTUs a frame too long fails on either side alike, as
 * with one interface.
 */
int route_check_mtus(struct replay *r)
{
	const struct opts *o = r->o;
	struct split *sp = r->route.split;
	char err[512];
	int rc = 0;

	if (r->out.n != 2 || !r->out.lane[0].tx->mtu || !r->out.lane[1].tx->mtu ||
	    r->out.lane[0].tx->mtu == r->out.lane[1].tx->mtu || r->chain || r->o->run.segment)
		return 0;
	for (int i = 0; i < o->nfiles; i++)
		if (!strcmp(o->files[i], "-"))
			return 0;
	/* first learns as it streams: the run's own classifier must start from nothing. */
	if (sp && split_mode(sp) == SPLIT_FIRST && split_open(&sp, "first", err, sizeof(err)) < 0) {
		log_err("--split: %s", err);
		return -1;
	}
	log_info("-i %s has MTU %u, -I %s MTU %u: checking that every frame fits its side", o->tx.ifname,
		 r->out.lane[0].tx->mtu, o->intf2, r->out.lane[1].tx->mtu);
	for (int i = 0; i < o->nfiles && !rc; i++)
		rc = check_file_mtus(r, sp, i);
	if (sp != r->route.split)
		split_close(sp);
	return rc;
}
