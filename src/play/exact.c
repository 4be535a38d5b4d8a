// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include "play_int.h"

int play_exact(const struct play_cfg *cfg, const struct conv_set *set, const struct conv_mask *mask,
	       const volatile sig_atomic_t *stop, struct play_report *rep, char *err, size_t errlen)
{
	(void)cfg; (void)set; (void)stop; (void)rep; (void)mask;
	snprintf(err, errlen, "not yet");
	return -ENOSYS;
}
