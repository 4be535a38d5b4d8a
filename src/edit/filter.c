// SPDX-License-Identifier: BSD-2-Clause
/*
 * --filter EXPR: keep the packets a libpcap filter expression matches.  The
 * expression is compiled once per link type (a BPF program depends on the
 * link-layer header), for Ethernet when the chain is built so that a bad
 * expression is a usage error before anything is sent, for any other link
 * type the first time one of its packets comes by.  Matching runs the
 * compiled program with pcap_offline_filter(): no copy, no allocation.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit_int.h"

#define FILTER_LINKTYPES 8 /* link types one run can meet; readers convert most to Ethernet */

struct filter {
	unsigned n;
	struct {
		unsigned linktype;
		int rc;                  /* 0 compiled, <0 it does not compile for this link type */
		struct bpf_program prog;
		char err[PCAP_ERRBUF_SIZE];
	} lt[FILTER_LINKTYPES];
};

static int compile(struct filter *f, const char *expr, unsigned linktype)
{
	pcap_t *dead;
	unsigned i = f->n;

	if (i == FILTER_LINKTYPES)
		return -ENOSPC;
	f->n++;
	f->lt[i].linktype = linktype;
	f->lt[i].rc = 0;
	dead = pcap_open_dead((int)linktype, (int)PKT_FRAME_MAX_BYTES);
	if (!dead) {
		snprintf(f->lt[i].err, sizeof(f->lt[i].err), "out of memory");
		return f->lt[i].rc = -ENOMEM;
	}
	if (pcap_compile(dead, &f->lt[i].prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(f->lt[i].err, sizeof(f->lt[i].err), "%s", pcap_geterr(dead));
		f->lt[i].rc = -EINVAL;
	}
	pcap_close(dead);
	return f->lt[i].rc;
}

static bool filter_wanted(const struct edit_cfg *cfg)
{
	return cfg->filter != NULL;
}

static int filter_init(struct edit *e, const struct edit_cfg *cfg, char *err, size_t errlen)
{
	struct filter *f = calloc(1, sizeof(*f));

	e->priv = f;
	if (!f)
		return -ENOMEM;
	if (compile(f, cfg->filter, LINKTYPE_ETHERNET) < 0) {
		snprintf(err, errlen, "--filter '%s': %s", cfg->filter, f->lt[0].err);
		return -EINVAL;
	}
	return 0;
}

static int filter_apply(struct edit *e, struct edit_ctx *c)
{
	struct filter *f = e->priv;
	struct pcap_pkthdr h = { .caplen = c->p->caplen, .len = c->p->wirelen };
	unsigned i;

	for (i = 0; i < f->n && f->lt[i].linktype != c->p->linktype; i++)
		;
	if (i == f->n && compile(f, e->cfg->filter, c->p->linktype) == -ENOSPC)
		return edit_fail(c, "--filter: more than %d link types in one run", FILTER_LINKTYPES);
	if (f->lt[i].rc < 0)
		return edit_fail(c, "--filter does not apply to link type %u: %s", c->p->linktype,
				 f->lt[i].err);
	return pcap_offline_filter(&f->lt[i].prog, &h, c->p->data) ? EDIT_KEEP : EDIT_DROP;
}

static void filter_free(struct edit *e)
{
	struct filter *f = e->priv;

	if (!f)
		return;
	for (unsigned i = 0; i < f->n; i++)
		if (f->lt[i].rc == 0)
			pcap_freecode(&f->lt[i].prog);
	free(f);
}

const struct edit_ops edit_filter_ops = {
	.name = "filter",
	.wanted = filter_wanted,
	.init = filter_init,
	.apply = filter_apply,
	.free = filter_free,
};
