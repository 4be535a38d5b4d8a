// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include "play_int.h"

int play_serve(const struct play_cfg *cfg, const struct conv_set *set, const volatile sig_atomic_t *stop,
	       struct play_report *rep, char *err, size_t errlen)
{
	(void)cfg; (void)set; (void)stop; (void)rep;
	snprintf(err, errlen, "not yet");
	return -ENOSYS;
}
