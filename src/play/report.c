// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the engines found (replay/play.h): the results, the summary, the
 * JSON; and the small rules both engines share (what is playable, where a
 * conversation's server is).  The JSON goes through the project's
 * writer (replay/json.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "replay/compiler.h"
#include "replay/json.h"
#include "play_int.h"

const char *const play_verdict_name[PLAY_VERDICT_MAX] = {
	[PLAY_OK] = "ok",
	[PLAY_MISMATCH] = "mismatch",
	[PLAY_REFUSED] = "refused",
	[PLAY_RESET] = "reset",
	[PLAY_TIMEOUT] = "timeout",
	[PLAY_UNREACHABLE] = "unreachable",
	[PLAY_CLOSED] = "closed",
	[PLAY_ERROR] = "error",
	[PLAY_SKIPPED] = "skipped",
};

static const char *const match_name[CONV_MATCH_MAX] = {
	[CONV_MATCH_EXACT] = "exact",
	[CONV_MATCH_PREFIX] = "prefix",
	[CONV_MATCH_ORDER] = "order",
};

struct play_result *play_report_add(struct play_report *rep)
{
	if (rep->n == rep->cap) {
		size_t nc = rep->cap ? rep->cap * 2 : 256;
		struct play_result *v = realloc(rep->r, nc * sizeof(*v));

		if (!v)
			return NULL;
		rep->r = v;
		rep->cap = nc;
	}
	memset(&rep->r[rep->n], 0, sizeof(rep->r[0]));
	return &rep->r[rep->n++];
}

void play_report_free(struct play_report *rep)
{
	free(rep->r);
	memset(rep, 0, sizeof(*rep));
}

uint16_t play_map_port(const struct play_portmap *m, uint16_t port)
{
	for (unsigned i = 0; i < m->n; i++)
		if (m->m[i].from == port)
			return m->m[i].to;
	return port;
}

void play_server_addr(const struct play_cfg *cfg, const struct conv *c, struct conv_addr *out)
{
	*out = c->ep[CONV_SERVER];
	out->port = play_map_port(&cfg->port_map, out->port);
	if (cfg->target.set) {
		out->family = cfg->target.a.family;
		memcpy(out->addr, cfg->target.a.addr, 16);
		if (cfg->target.a.port)
			out->port = cfg->target.a.port;
	}
}

bool play_playable(const struct play_cfg *cfg, const struct conv *c, char *why, size_t len)
{
	char name[160];

	if (conv_refusal(c, CONV_CLIENT, why, len))
		return false;
	conv_name(c, name, sizeof(name));
	if ((c->flags & CONV_F_MIDSTREAM) && !cfg->midstream) {
		snprintf(why, len,
			 "%s: conversation %u (%s): no handshake in the capture (it began before the capture); --midstream plays it with the lower port as the server",
			 c->file, c->id, name);
		return false;
	}
	if (c->flags & CONV_F_NO_SYNACK) {
		snprintf(why, len, "%s: conversation %u (%s): the recorded server never accepted the connection",
			 c->file, c->id, name);
		return false;
	}
	if (cfg->exact && c->proto != 6) {
		snprintf(why, len, "%s: conversation %u (%s): --exact plays TCP conversations", c->file, c->id, name);
		return false;
	}
	if (cfg->target.set && cfg->target.a.family != c->ep[CONV_SERVER].family) {
		snprintf(why, len, "%s: conversation %u (%s): --target is of another address family", c->file,
			 c->id, name);
		return false;
	}
	if (cfg->source_range.set && cfg->source_range.family != c->ep[CONV_SERVER].family &&
	    !cfg->target.set) {
		snprintf(why, len, "%s: conversation %u (%s): --source-range is of another address family",
			 c->file, c->id, name);
		return false;
	}
	why[0] = '\0';
	return true;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentiles of one timing over the results that have it. */
struct pcts {
	size_t n;
	uint64_t p50, p90, p99, max;
	double mean;
};

static void pcts_of(const struct play_report *rep, size_t field, struct pcts *p)
{
	uint64_t *v = malloc((rep->n ? rep->n : 1) * sizeof(*v));
	double sum = 0;

	memset(p, 0, sizeof(*p));
	if (!v)
		return;
	for (size_t i = 0; i < rep->n; i++) {
		uint64_t x = *(const uint64_t *)((const char *)&rep->r[i] + field);

		if (rep->r[i].verdict == PLAY_SKIPPED || x == UINT64_MAX)
			continue;
		v[p->n++] = x;
		sum += (double)x;
	}
	if (p->n) {
		qsort(v, p->n, sizeof(*v), u64_cmp);
		p->p50 = v[(p->n - 1) * 50 / 100];
		p->p90 = v[(p->n - 1) * 90 / 100];
		p->p99 = v[(p->n - 1) * 99 / 100];
		p->max = v[p->n - 1];
		p->mean = sum / (double)p->n;
	}
	free(v);
}

static const struct {
	const char *name;
	size_t off;
} timings[] = {
	{ "connect", offsetof(struct play_result, connect_ns) },
	{ "first_byte", offsetof(struct play_result, first_ns) },
	{ "duration", offsetof(struct play_result, dur_ns) },
};

static const struct conv *find_conv(const struct conv_set *set, uint32_t id)
{
	return id && id <= set->n && set->v[id - 1]->id == id ? set->v[id - 1] : NULL;
}

void play_report_print(const struct play_report *rep, const struct conv_set *set, uint32_t mismatch_max,
		       FILE *f)
{
	uint64_t sent = 0, wsent = 0, rcvd = 0, wrcvd = 0, listed = 0, played = 0;
	double secs = (double)rep->elapsed_ns / 1e9;

	for (size_t i = 0; i < rep->n; i++) {
		const struct play_result *r = &rep->r[i];

		if (r->verdict == PLAY_SKIPPED)
			continue;
		played++;
		sent += r->sent;
		wsent += r->want_sent;
		rcvd += r->rcvd;
		wrcvd += r->want_rcvd;
	}
	fprintf(f, "Conversations: %" PRIu64 " played in %.3f s (%.1f/s), at most %" PRIu64 " at once\n", played,
		secs, secs > 0 ? (double)played / secs : 0.0, rep->max_active);
	fprintf(f, "Verdicts:");
	for (int v = 0; v < PLAY_VERDICT_MAX; v++)
		fprintf(f, " %s %" PRIu64 "%s", play_verdict_name[v], rep->verdicts[v],
			v + 1 < PLAY_VERDICT_MAX ? "," : "\n");
	fprintf(f, "Bytes: sent %" PRIu64 " of %" PRIu64 " recorded, received %" PRIu64 " of %" PRIu64 " recorded\n",
		sent, wsent, rcvd, wrcvd);
	if (rep->unmatched || rep->udp_requests)
		fprintf(f, "Requests: %" PRIu64 " datagrams answered, %" PRIu64 " unmatched\n", rep->udp_requests,
			rep->unmatched);
	for (size_t t = 0; t < ARRAY_SIZE(timings); t++) {
		struct pcts p;

		pcts_of(rep, timings[t].off, &p);
		if (!p.n)
			continue;
		fprintf(f, "Time to %-10s p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms (%zu)\n",
			!strcmp(timings[t].name, "duration") ? "end:" : !strcmp(timings[t].name, "connect") ? "connect:" : "1st byte:",
			(double)p.p50 / 1e6, (double)p.p90 / 1e6, (double)p.p99 / 1e6, (double)p.max / 1e6, p.n);
	}
	for (size_t i = 0; i < rep->n; i++) {
		const struct play_result *r = &rep->r[i];
		const struct conv *c = find_conv(set, r->conv);
		char name[160], a[4 * PLAY_SNIP_BYTES + 1], b[4 * PLAY_SNIP_BYTES + 1];

		if (r->verdict != PLAY_MISMATCH || !c)
			continue;
		if (listed++ >= mismatch_max)
			continue;
		fprintf(f, "Mismatch: conversation %u (%s), pass %u: reply differs at byte %" PRIu64
			   " (recorded byte %" PRIu64 "; %" PRIu64 " bytes received, %" PRIu64 " recorded)\n",
			r->conv, conv_name(c, name, sizeof(name)), r->pass, r->live_off, r->rec_off, r->rcvd,
			r->want_rcvd);
		fprintf(f, "  recorded \"%s\"\n  live     \"%s\"\n",
			conv_escape(a, sizeof(a), r->rec_snip, r->rec_snip_len),
			conv_escape(b, sizeof(b), r->live_snip, r->live_snip_len));
	}
	if (listed > mismatch_max)
		fprintf(f, "Mismatch: %" PRIu64 " more not listed (--mismatch-max %u)\n", listed - mismatch_max,
			mismatch_max);
	for (size_t i = 0; i < rep->n; i++) {
		const struct play_result *r = &rep->r[i];
		const struct conv *c = find_conv(set, r->conv);
		char name[160];

		if (r->verdict == PLAY_OK || r->verdict == PLAY_MISMATCH || r->verdict == PLAY_SKIPPED || !c)
			continue;
		fprintf(f, "Failed: conversation %u (%s), pass %u: %s%s%s\n", r->conv,
			conv_name(c, name, sizeof(name)), r->pass, play_verdict_name[r->verdict],
			r->err ? ": " : "", r->err ? strerror(r->err) : "");
	}
}

static void json_ns(struct json *w, const char *key, uint64_t v)
{
	if (v == UINT64_MAX)
		json_null(w, key);
	else
		json_uint(w, key, v);
}

static void json_result(struct json *w, const struct play_report *rep, const struct play_result *r,
			const struct conv *c)
{
	char cli[64] = "", srv[64] = "", snip[4 * PLAY_SNIP_BYTES + 1];

	if (c) {
		conv_addr_str(&c->ep[CONV_CLIENT], cli, sizeof(cli));
		conv_addr_str(&c->ep[CONV_SERVER], srv, sizeof(srv));
	}
	json_object(w, NULL);
	json_uint(w, "conversation", r->conv);
	json_uint(w, "pass", r->pass);
	json_str(w, "proto", c && c->proto == 17 ? "udp" : "tcp");
	json_str(w, "client", cli);
	json_str(w, "server", srv);
	json_str(w, "verdict", play_verdict_name[r->verdict]);
	if (r->err)
		json_str(w, "error", strerror(r->err));
	if (!strcmp(rep->role ? rep->role : "", "serve"))
		json_str(w, "match", r->match < CONV_MATCH_MAX ? match_name[r->match] : "");
	json_uint(w, "bytes_sent", r->sent);
	json_uint(w, "bytes_sent_recorded", r->want_sent);
	json_uint(w, "bytes_received", r->rcvd);
	json_uint(w, "bytes_received_recorded", r->want_rcvd);
	json_ns(w, "connect_ns", r->connect_ns);
	json_ns(w, "first_byte_ns", r->first_ns);
	json_ns(w, "duration_ns", r->verdict == PLAY_SKIPPED ? UINT64_MAX : r->dur_ns);
	if (r->diff) {
		json_object(w, "mismatch");
		json_uint(w, "offset", r->live_off);
		json_uint(w, "recorded_offset", r->rec_off);
		/* The bytes around it as the summary prints them: printable, escaped. */
		if (r->rec_snip_len || r->live_snip_len) {
			json_str(w, "recorded", conv_escape(snip, sizeof(snip), r->rec_snip, r->rec_snip_len));
			json_str(w, "live", conv_escape(snip, sizeof(snip), r->live_snip, r->live_snip_len));
		}
		json_end(w);
	}
	json_end(w);
}

int play_report_json(const struct play_report *rep, const struct conv_set *set, FILE *f)
{
	struct json w;

	json_init(&w, f);
	json_object(&w, NULL);
	json_str(&w, "role", rep->role ? rep->role : "");
	json_uint(&w, "elapsed_ns", rep->elapsed_ns);
	json_uint(&w, "max_active", rep->max_active);
	json_bool(&w, "interrupted", rep->interrupted);
	json_uint(&w, "unmatched", rep->unmatched);
	json_uint(&w, "udp_requests", rep->udp_requests);
	json_object(&w, "verdicts");
	for (int v = 0; v < PLAY_VERDICT_MAX; v++)
		json_uint(&w, play_verdict_name[v], rep->verdicts[v]);
	json_end(&w);
	json_object(&w, "timings_ns");
	for (size_t t = 0; t < ARRAY_SIZE(timings); t++) {
		struct pcts p;

		pcts_of(rep, timings[t].off, &p);
		json_object(&w, timings[t].name);
		json_uint(&w, "count", p.n);
		json_double(&w, "mean", p.mean, 0);
		json_uint(&w, "p50", p.p50);
		json_uint(&w, "p90", p.p90);
		json_uint(&w, "p99", p.p99);
		json_uint(&w, "max", p.max);
		json_end(&w);
	}
	json_end(&w);
	json_array(&w, "conversations");
	for (size_t i = 0; i < rep->n; i++)
		json_result(&w, rep, &rep->r[i], find_conv(set, rep->r[i].conv));
	json_end(&w);
	json_end(&w);
	if (json_finish(&w) < 0)
		return -EIO;
	return fputc('\n', f) == EOF ? -EIO : 0;
}
