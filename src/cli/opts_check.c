// SPDX-License-Identifier: BSD-2-Clause
/*
 * What replay's option rows cannot say as row data (src/cli/opts.c): the
 * checks that need the operands, a value, or several options at once, and
 * the warnings for options that do nothing in the combination given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/frag.h"
#include "replay/opts.h"
#include "replay/split.h"
#include "opts_int.h"

static void warn(struct opts *o, const char *msg)
{
	if (o->nwarn < OPTS_WARN_MAX)
		snprintf(o->warn[o->nwarn++], sizeof(o->warn[0]), "%s", msg);
}

/* How many of the trace files are standard input ("-")? */
static int stdin_files(const struct opts *o)
{
	int n = 0;

	for (int i = 0; i < o->nfiles; i++)
		n += !strcmp(o->files[i], "-");
	return n;
}

/* -v writes tcpdump's lines on stdout: no output given as '-' may. */
static int check_stdout(const struct opts *o, char *err, size_t len)
{
	const char *out = o->tx.path && !strcmp(o->tx.path, "-") ? "-w -"
			  : o->stats_json && !strcmp(o->stats_json, "-") ? "--stats-json -"
			  : o->send_log && !strcmp(o->send_log, "-") ? "--send-log -"
								    : NULL;

	if (o->decode && out)
		return opts_fail(err, len, "-v prints tcpdump's lines on stdout, where %s writes: give it a file", out);
	if (o->run.oneatatime && stdin_files(o))
		return opts_fail(err, len, "--oneatatime reads the answers from standard input: the trace cannot "
				 "come from there too");
	return 0;
}

/* What the inputs take: files for --prep, -c and --dualfile; a valid --split. */
static int check_inputs(const struct opts *o, char *err, size_t len)
{
	struct split *sp;

	if (o->prep_path && o->nfiles != 1)
		return opts_fail(err, len, "--prep: a sidecar belongs to one trace; give exactly one file");
	/* The split picks one of two interfaces, or the direction of -e and the pair forms
	 * (--enet-dmac C2S,S2C, --pnat twice) or the frames --fragdir takes, as tcprewrite -c does. */
	if ((o->split_mode || o->cachefile) && !o->info && !o->intf2 && !edit_cfg_wants_side(&o->edit) &&
	    !(o->cachefile && o->run.fragdir))
		return opts_fail(err, len, "--%s chooses between two interfaces: give the second with -I IF (or use --info to see the split); "
				 "with one output it only steers -e/--endpoints and the pair forms (--enet-dmac C2S,S2C, --pnat twice)",
				 o->split_mode ? "split" : "cachefile");
	if (o->cachefile && !o->info && o->nfiles > 1)
		return opts_fail(err, len, "--cachefile describes one trace: give exactly one file");
	if (o->split_mode) {
		if (split_open(&sp, o->split_mode, err, len) < 0)
			return -EINVAL;
		split_close(sp);
	}
	/* tcpreplay's -2: the files of a pair are read side by side. */
	if (o->run.dualfile && !o->info && (o->nfiles == 0 || o->nfiles % 2))
		return opts_fail(err, len, "--dualfile takes the files in pairs (one for -i, one for -I): %d given",
				 o->nfiles);
	if (o->run.merge && stdin_files(o) > 1)
		return opts_fail(err, len, "--merge reads its files side by side: standard input ('-') can be one of them, once");
	if (o->run.dualfile && stdin_files(o) > 1)
		return opts_fail(err, len, "--dualfile: standard input ('-') can be given once, as one file of one pair");
	return 0;
}

/*
 * --dlt raw, user or hdlc: frames of that link layer go into a file; an
 * interface here sends Ethernet frames, and -v, --segment and --fragroute
 * read the frames as Ethernet.
 */
static int check_dlt(const struct opts *o, char *err, size_t len)
{
	const char *name = opt_enum_name(edit_dlt_choices, (int)o->edit.dlt);

	if (!o->tx.path)
		return opts_fail(err, len, "--dlt %s writes frames without an Ethernet header, which go into a "
				 "file (-w FILE): -i sends Ethernet frames", name);
	if (o->decode || o->run.segment || o->run.fragroute)
		return opts_fail(err, len, "--dlt %s excludes %s, which reads the frames as Ethernet", name,
				 o->decode ? "-v" : o->run.segment ? "--segment" : "--fragroute");
	return 0;
}

/* Where the frames go: one output, interfaces that differ, a method that can send there. */
static int check_outputs(struct opts *o, char *err, size_t len)
{
	const char *ifname = o->tx.ifname, *wpath = o->tx.path;

	if (o->intf2 && !strcmp(o->intf2, ifname))
		return opts_fail(err, len, "-i and -I both name %s: two-interface replay needs two interfaces", ifname);
	if (!ifname && !wpath)
		return opts_fail(err, len, "no output: give an interface (-i IF) or an output file (-w FILE)");
	if (o->nfiles == 0)
		return opts_fail(err, len, "no trace file given");
	if (wpath && o->method != TX_METHOD_AUTO && o->method != TX_METHOD_FILE)
		return opts_fail(err, len, "-w writes a file: --method %s needs an interface (-i)",
				 opt_enum_name(tx_method_choices, (int)o->method));
	if (ifname && o->method == TX_METHOD_FILE)
		return opts_fail(err, len, "--method file needs an output file (-w FILE), not -i");
	if (o->intf2 && o->method2 == TX_METHOD_FILE)
		return opts_fail(err, len, "--method2 file: -I is an interface; -w writes a file, and excludes -I");
	/* A dry run computes the schedule in virtual time: nothing waits, nothing to pin. */
	if (wpath && o->rt.priority)
		warn(o, "--rt-priority does nothing with -w: a dry run waits for no deadline");
	if (wpath && o->cpus.n)
		warn(o, "--cpu does nothing with -w: a dry run waits for no deadline");
	return 0;
}

/*
 * --threads, --cpu LIST and --xdp-queue LIST: lists that fit the threads;
 * each thread reads the traces itself, so standard input only from a
 * preload.  (What several threads cannot do at all is in the rows' rules.)
 */
static int check_threads(const struct opts *o, char *err, size_t len)
{
	if (o->threads <= 1 && o->cpus.n > 1)
		return opts_fail(err, len, "--cpu: %u CPUs given for one thread: give one CPU, or --threads N", o->cpus.n);
	if (o->threads <= 1 && o->xdp_queues.n > 1)
		return opts_fail(err, len, "--xdp-queue: %u queues given for one thread: give one queue, or --threads N",
				 o->xdp_queues.n);
	if (o->threads <= 1)
		return 0;
	if (o->xdp_queues.n && o->xdp_queues.n != o->threads)
		return opts_fail(err, len, "--xdp-queue: %u queues given for --threads %u: give one queue per thread",
				 o->xdp_queues.n, o->threads);
	if (o->sched.mode == SCHED_MODE_MBPS && edit_cfg_any(&o->edit))
		return opts_fail(err, len, "--threads %u excludes --mbps with edits: each thread counts the bytes of "
				 "every frame as read; use one thread", o->threads);
	/* With --preload thread 0 reads each input once into memory and every thread reads that copy. */
	if (stdin_files(o) && !o->trace.preload)
		return opts_fail(err, len, "--threads %u: every thread reads the traces itself; standard input "
				 "can be read once: give a file, or add --preload (-K) to read it into memory once "
				 "for all threads", o->threads);
	return 0;
}

/* The live forwarder (src/live/live.c): the interface is the one input, named as a file. */
static char *live_files[2];

static int check_live(struct opts *o, char *err, size_t len)
{
	if (o->nfiles)
		return opts_fail(err, len, "--source-interface %s is the input: give no trace file (%s)",
				 o->source_if, o->files[0]);
	if (!strcmp(o->source_if, o->tx.ifname))
		return opts_fail(err, len, "--source-interface and -i both name %s: the frames sent would arrive again",
				 o->tx.ifname);
	live_files[0] = (char *)o->source_if;
	o->files = live_files;
	o->nfiles = 1;
	return 0;
}

/*
 * --fragroute FILE: the rules read now, so that a bad one is a usage error
 * naming its line, and one replay does not apply is refused before the run.
 */
static int check_fragroute(const struct opts *o, char *err, size_t len)
{
	struct frag_rules *rules;
	char why[400];
	int rc;

	if (!o->run.fragroute)
		return 0;
	rules = malloc(sizeof(*rules));
	if (!rules)
		return opts_fail(err, len, "--fragroute: out of memory");
	rc = frag_load(o->run.fragroute, rules, why, sizeof(why));
	if (rc < 0) {
		free(rules);
		return opts_fail(err, len, "--fragroute %s", why);
	}
	rc = frag_rules_applied(rules, why, sizeof(why));
	free(rules);
	if (rc < 0)
		return opts_fail(err, len, "--fragroute %s: %s", o->run.fragroute, why);
	return 0;
}

int opts_check_combined(struct opts *o, char *err, size_t len)
{
	if (check_stdout(o, err, len) < 0)
		return -EINVAL;
	if (o->prep_cmd && !o->prep_out)
		return opts_fail(err, len, "replay prep: give the sidecar's name with -o FILE");
	if (o->prep_cmd && o->nfiles != 1)
		return opts_fail(err, len, "replay prep: give exactly one trace file");
	if (o->prep_cmd)
		return 0;
	if (check_inputs(o, err, len) < 0 || check_fragroute(o, err, len) < 0)
		return -EINVAL;
	if (o->info && o->nfiles == 0)
		return opts_fail(err, len, "no trace file given");
	if (o->info)
		return 0;
	if (o->edit.dlt != EDIT_DLT_ENET && check_dlt(o, err, len) < 0)
		return -EINVAL;
	if (o->source_if)
		return check_live(o, err, len);
	if (check_outputs(o, err, len) < 0)
		return -EINVAL;
	return check_threads(o, err, len);
}
