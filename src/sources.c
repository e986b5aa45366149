// SPDX-License-Identifier: MIT
/*
 * sources.c - the source table (see sources.h) and each source's attach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_loader.h"
#include "event_kinds.h"
#include "monotime.h"
#include "sources.h"

/* The uprobe links of one spec's functions in one binary, in one call;
 * the cookies count the functions in spec order. */
static int attach_binary(const struct ftfb_source_ctx *c, const struct ftfb_sym *v,
			 size_t n, uint64_t cookie, char *err, size_t errlen)
{
	uint64_t *offs = calloc(n, sizeof(*offs));
	uint64_t *cookies = calloc(n, sizeof(*cookies));
	int r = -ENOMEM;

	if (offs && cookies) {
		for (size_t q = 0; q < n; q++) {
			offs[q] = v[q].offset;
			cookies[q] = cookie + q;
		}
		r = ftfb_loader_attach_uprobes(c->loader, v[0].binary, offs,
					       cookies, n, c->link_pid,
					       err, errlen);
	}
	free(offs);
	free(cookies);
	return r;
}

/* Every resolved function, one call per (spec, binary) group; then the
 * uprobes and USDT probes are armed together. */
static int attach_uprobes(const struct ftfb_source_ctx *c, char *err, size_t errlen)
{
	const struct ftfb_uprobe_set *p = c->probes;
	uint64_t cookie = 0, t0 = ftfb_mono_ns();

	for (int i = 0; i < p->nlists; i++) {
		const struct ftfb_symlist *sl = &p->lists[i];
		size_t j = 0;

		while (j < sl->n) {
			size_t n = 0;
			int r;

			while (j + n < sl->n &&
			       !strcmp(sl->v[j + n].binary, sl->v[j].binary))
				n++;
			r = attach_binary(c, &sl->v[j], n, cookie, err, errlen);
			if (r)
				return r;
			cookie += n;
			j += n;
		}
	}
	/* every link is there: entries and returns start now */
	ftfb_loader_arm_uprobes(c->loader, true);
	if (c->verbose && p->nfuncs)
		fprintf(stderr, "ftf-bpf: attached %zu uprobes in %.3f s\n",
			p->nfuncs, (double)(ftfb_mono_ns() - t0) / 1e9);
	return 0;
}

static int attach_usdt(const struct ftfb_source_ctx *c, char *err, size_t errlen)
{
	const struct ftfb_usdt_set *u = c->usdt;

	for (size_t i = 0; i < u->n; i++) {
		const struct ftfb_usdt_probe *p = &u->probes.v[i];
		int r = ftfb_loader_attach_usdt(c->loader, p->path, p->provider,
						p->name,
						ftfb_usdt_set_cookie(u, i),
						c->link_pid, err,
						errlen);

		if (r)
			return r;
	}
	return 0;
}

static int attach_syscalls(const struct ftfb_source_ctx *c, char *err, size_t errlen)
{
	return ftfb_loader_attach_syscalls(c->loader, c->sys_wanted,
					   c->sys_tgid, err, errlen);
}

static int attach_stacks(const struct ftfb_source_ctx *c, char *err, size_t errlen)
{
	return ftfb_loader_attach_stacks(c->loader, c->freq_hz, err,
					 errlen);
}

static bool want_sched(const struct ftfb_source_ctx *c)
{
	return c->sched;
}

static bool want_usdt(const struct ftfb_source_ctx *c)
{
	return c->usdt->n > 0;
}

/* (its attach arms the USDT probes too, once every link is there) */
static bool want_probes(const struct ftfb_source_ctx *c)
{
	return c->probes->nfuncs > 0 || c->usdt->n > 0;
}

static bool want_syscalls(const struct ftfb_source_ctx *c)
{
	return c->syscalls;
}

static bool want_stacks(const struct ftfb_source_ctx *c)
{
	return c->stacks;
}

/* An --events source's two halves, which its row joins: its attach
 * (loader/loader_NAME.c) and its translator (translate/translate_NAME.c). */
#define EVENTS_SOURCE(name)                                                    \
	ftfb_loader_attach_fn ftfb_loader_attach_##name;                       \
	extern const struct ftfb_tr_source ftfb_tr_##name
EVENTS_SOURCE(blockio);
EVENTS_SOURCE(mem);
EVENTS_SOURCE(irq);

const struct ftfb_source ftfb_sources[] = {
	{ "sched", "default; --no-sched: off", "bpf/sched.bpf.c",
	  "ftfb_switch, ftfb_wakeup, ftfb_wakeup_new, ftfb_fork, ftfb_exec, ftfb_exit, ftfb_rename",
	  { FTFB_EV_SWITCH, FTFB_EV_WAKEUP, FTFB_EV_WAKEUP_NEW, FTFB_EV_FORK,
	    FTFB_EV_EXEC, FTFB_EV_EXIT, FTFB_EV_RENAME, FTFB_EV_TASKNAME },
	  .wanted = want_sched },
	{ "usdt", "-u usdt:..., --python", "bpf/usdt.bpf.c", "ftfb_usdt",
	  { FTFB_EV_USDT }, .wanted = want_usdt, .attach = attach_usdt },
	{ "uprobes", "-u SPEC", "bpf/uprobe.bpf.c",
	  "ftfb_uentry(_multi), ftfb_uret(_multi)",
	  { FTFB_EV_UENTRY, FTFB_EV_URET }, .wanted = want_probes,
	  .attach = attach_uprobes },
	{ "syscalls", "--syscalls[=LIST]", "bpf/syscalls.bpf.c",
	  "ftfb_sys_enter, ftfb_sys_exit", { FTFB_EV_SENTER, FTFB_EV_SEXIT },
	  .wanted = want_syscalls, .attach = attach_syscalls },
	{ "stacks", "-g, --stacks", "bpf/stacks.bpf.c",
	  "ftfb_cpu_sample, ftfb_offcpu_switch",
	  { FTFB_EV_STACK_ON, FTFB_EV_STACK_OFF },
	  .wanted = want_stacks, .attach = attach_stacks },
	/* --events: their names, bits (1 << row) and help lines here */
	{ "io", "--events=io", "bpf/blockio.bpf.c",
	  "ftfb_blk_start, ftfb_blk_insert, ftfb_blk_issue, ftfb_blk_complete",
	  .events_help = "each block request from its making to its\n"
			 "completion, as a slice in the process that\n"
			 "made it and in its disk (op, sector, bytes,\n"
			 "queue and device time)",
	  .attach_to = ftfb_loader_attach_blockio, .tr = &ftfb_tr_blockio },
	{ "mem", "--events=mem", "bpf/mem.bpf.c",
	  "ftfb_rss_stat, ftfb_fault_user, ftfb_fault_switch",
	  .events_help = "resident memory (rss:file, rss:anon,\n"
			 "rss:swap, rss:shmem counters in bytes), and\n"
			 "user page faults in which a thread slept, as\n"
			 "slices on the thread",
	  .attach_to = ftfb_loader_attach_mem, .tr = &ftfb_tr_mem },
	{ "irq", "--events=irq", "bpf/irq.bpf.c",
	  "ftfb_irq_entry, ftfb_irq_exit, ftfb_softirq_entry, ftfb_softirq_exit, ftfb_vec_* (irq_vectors, where the kernel has them)",
	  .events_help = "hard and soft interrupts as slices on one\n"
			 "track per CPU (with -p/--: those that\n"
			 "interrupted a traced thread)",
	  .attach_to = ftfb_loader_attach_irq, .tr = &ftfb_tr_irq },
	/* an option of the stacks source (its attach loads the program
	 * when the loader's waker_stacks is set) */
	{ "waker", "--events=waker, with -g", "bpf/stacks.bpf.c",
	  "ftfb_waker_stack", { FTFB_EV_STACK_WAKER },
	  .events_help = "with -g: the waker's stacks at each wakeup\n"
			 "of a traced thread (timebase 'waker')" },
};
const size_t ftfb_nsources = sizeof(ftfb_sources) / sizeof(ftfb_sources[0]);

const struct ftfb_tr_source *const *ftfb_sources_tr(size_t *n)
{
	static const struct ftfb_tr_source *v[sizeof(ftfb_sources) /
					      sizeof(ftfb_sources[0])];
	static size_t nv;

	if (!nv)
		for (size_t i = 0; i < ftfb_nsources; i++)
			if (ftfb_sources[i].tr)
				v[nv++] = ftfb_sources[i].tr;
	*n = nv;
	return v;
}

const char *ftfb_sources_kind_label(unsigned kind)
{
	for (size_t i = 0; i < ftfb_nsources; i++) {
		const struct ftfb_tr_source *tr = ftfb_sources[i].tr;

		for (size_t j = 0; tr && j < tr->nkinds; j++)
			if (tr->kinds[j].kind == kind)
				return tr->kinds[j].label;
	}
	return ftfb_kind_label(kind);
}

unsigned ftfb_sources_event_bit(const char *name, size_t len)
{
	for (size_t i = 0; i < ftfb_nsources; i++) {
		const struct ftfb_source *src = &ftfb_sources[i];

		if (src->events_help && strlen(src->name) == len &&
		    !strncmp(src->name, name, len))
			return 1u << i;
	}
	return 0;
}

void ftfb_sources_event_names(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ftfb_nsources && n < size; i++)
		if (ftfb_sources[i].events_help)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? ", " : "",
					      ftfb_sources[i].name);
}

/* NAME, padded to 6, then its lines, the later ones under the first. */
void ftfb_sources_event_help(FILE *f, int indent)
{
	for (size_t i = 0; i < ftfb_nsources; i++) {
		const char *h = ftfb_sources[i].events_help;

		if (!h)
			continue;
		fprintf(f, "%*s%-5s ", indent, "", ftfb_sources[i].name);
		for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
			fprintf(f, "%.*s\n%*s", (int)(nl - h), h, indent + 6,
				"");
		fprintf(f, "%s\n", h);
	}
}

/* -v: the source and the kinds it brings. */
static void say_attached(const struct ftfb_source *src)
{
	size_t n = 0;

	fprintf(stderr, "ftf-bpf: source %s (%s): %s", src->name,
		src->option, src->object);
	for (int k = 0; k < FTFB_SOURCE_MAX_KINDS && src->kinds[k]; k++, n++)
		fprintf(stderr, "%s%s", n ? ", " : " -> ",
			ftfb_kind_label(src->kinds[k]));
	for (size_t k = 0; src->tr && k < src->tr->nkinds; k++, n++)
		fprintf(stderr, "%s%s", n ? ", " : " -> ",
			src->tr->kinds[k].label);
	fputc('\n', stderr);
}

int ftfb_sources_attach(const struct ftfb_source_ctx *c, char *err, size_t errlen)
{
	for (size_t i = 0; i < ftfb_nsources; i++) {
		const struct ftfb_source *src = &ftfb_sources[i];
		int r;

		if (src->wanted ? !src->wanted(c) : !(c->events & (1u << i)))
			continue;
		if (src->attach)
			r = src->attach(c, err, errlen);
		else if (src->attach_to)
			r = src->attach_to(c->loader, err, errlen);
		else
			r = 0;
		if (r)
			return r;
		if (c->verbose)
			say_attached(src);
	}
	return 0;
}
