// SPDX-License-Identifier: BSD-2-Clause
/*
 * --fixcsum: recompute every IPv4 header, TCP, UDP, ICMP and ICMPv6 checksum
 * (the chain does it once, at the end).  Fragments and packets truncated by
 * the capture keep their L4 checksum: it covers bytes we do not have.
 */
#include "edit_int.h"

static bool fixcsum_wanted(const struct edit_cfg *cfg)
{
	return cfg->fixcsum;
}

static int fixcsum_apply(struct edit *e, struct edit_ctx *c)
{
	(void)e;
	c->csum_full = true;
	return EDIT_KEEP;
}

const struct edit_ops edit_fixcsum_ops = {
	.name = "fixcsum",
	.wanted = fixcsum_wanted,
	.apply = fixcsum_apply,
};
