// SPDX-License-Identifier: BSD-2-Clause
/* The capabilities each of replay's options needs; see privs.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "privs.h"
#include "replay/caps.h"
#include "replay/optparse.h"
#include "replay/tx.h"

void privs_needed(const struct opts *o, uint64_t *need, uint64_t *want)
{
	/* -I may use its own method (--method2): what either side needs. */
	bool xdp = o->method == TX_METHOD_XDP || (o->intf2 && o->method2 == TX_METHOD_XDP);
	bool autom = o->method == TX_METHOD_AUTO || (o->intf2 && o->method2 == TX_METHOD_AUTO);

	*need = 0;
	*want = 0;
	if (o->tx.path || o->info || o->prep_cmd || !o->tx.ifname)
		return;
	*need |= CAPS_NET_RAW;
	if (xdp)
		*need |= CAPS_NET_ADMIN | CAPS_BPF;
	if (autom && o->tx.qdisc_bypass)
		*want |= CAPS_NET_ADMIN | CAPS_BPF;
	if (o->rt.priority)
		*want |= CAPS_SYS_NICE | CAPS_IPC_LOCK;
}

int privs_acquire(const struct opts *o, char *err, size_t len)
{
	uint64_t need, want, eff, perm;
	char why[128];
	int rc;

	privs_needed(o, &need, &want);
	if (o->tx.ifname && !o->tx.path)
		snprintf(why, sizeof(why), "sending on %s%s%s", o->tx.ifname,
			 o->method == TX_METHOD_AUTO ? "" : " with --method ",
			 o->method == TX_METHOD_AUTO ? "" : opt_enum_name(tx_method_choices, (int)o->method));
	else
		snprintf(why, sizeof(why), "this run");
	if ((rc = caps_require(need, "replay", why, err, len)) < 0)
		return rc;
	if ((rc = caps_get(&eff, &perm)) < 0) {
		snprintf(err, len, "cannot read the process's capabilities: %s", strerror(-rc));
		return rc;
	}
	/*
	 * What can be used of the wanted ones is raised too.  Nothing is dropped yet: root
	 * opens its output files with the rights it was started with (cap_dac_override).
	 */
	return caps_require(want & perm, "replay", why, err, len);
}

int privs_release(bool outputs)
{
	/*
	 * Output files are written unnamed and linked in at the end of the run
	 * (replay/outfile.h): root, whose rights to the output's directory may be
	 * cap_dac_override's alone, keeps that (and cap_fowner, to replace a file in a
	 * sticky directory) until then, where it holds them.
	 */
	uint64_t keep = outputs ? CAPS_FILES : 0;

	return caps_drop(keep);
}
