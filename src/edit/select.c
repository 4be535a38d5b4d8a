// SPDX-License-Identifier: BSD-2-Clause
/* --include / --exclude: keep or drop packets by their record number in the file (from 1). */
#include "edit_int.h"

static bool in_list(const struct edit_pktlist *l, uint64_t n)
{
	for (unsigned i = 0; i < l->n; i++)
		if (n >= l->r[i].lo && n <= l->r[i].hi)
			return true;
	return false;
}

static bool select_wanted(const struct edit_cfg *cfg)
{
	return cfg->include.n || cfg->exclude.n;
}

static int select_apply(struct edit *e, struct edit_ctx *c)
{
	uint64_t n = c->p->recno;

	if (e->cfg->include.n && !in_list(&e->cfg->include, n))
		return EDIT_DROP;
	if (e->cfg->exclude.n && in_list(&e->cfg->exclude, n))
		return EDIT_DROP;
	return EDIT_KEEP;
}

const struct edit_ops edit_select_ops = {
	.name = "select",
	.wanted = select_wanted,
	.apply = select_apply,
};
