// SPDX-License-Identifier: MIT
/*
 * session_specs.c - the session's -u, USDT, --syscalls and --trigger
 * specs resolved before anything else is opened (session.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "flight.h"
#include "probespec.h"
#include "session.h"

struct ftfb_usdt_set_opts session_usdt_opts(const struct cli_opts *o,
					    const char *mb)
{
	struct ftfb_usdt_set_opts uo = {
		.specs = (const char *const *)o->uprobes,
		.nspecs = o->nuprobes,
		.python = o->python,
		.strings = o->usdt_strings,
		.pid = o->pid,
		.main_binary = mb,
	};

	return uo;
}

/* Every spec, before the output or the kernel is touched, so a spec
 * that matches nothing costs nothing. */
int session_resolve_specs(struct session *s, char *err, size_t errlen)
{
	const struct cli_opts *o = s->o;
	struct ftfb_usdt_set_opts uo = session_usdt_opts(o, s->mb);

	if (ftfb_usdt_set_build(&s->usdt, &uo, err, errlen) ||
	    ftfb_uprobe_set_build(&s->probes, (const char *const *)o->uprobes,
				  o->nuprobes, o->pid, s->mb, err, errlen) ||
	    (o->syscall_list &&
	     ftfb_syscall_list(o->syscall_list, s->sys_wanted, err, errlen)))
		return -1;
	return 0;
}

/* Marks the traced functions of one --trigger spec; how many. */
static size_t mark_trigger(struct session *s, const struct ftfb_symlist *sl,
			   uint64_t min_ns)
{
	size_t hits = 0;

	for (size_t j = 0; j < sl->n; j++) {
		long k = ftfb_uprobe_set_find(&s->probes, sl->v[j].binary,
					      sl->v[j].offset);

		if (k >= 0) {
			s->trigger_ns[k] = min_ns;
			hits++;
		}
	}
	return hits;
}

/* -F --trigger: which traced functions (cookies) trigger, after how
 * long. A trigger names functions that -u traces: the same binary and
 * offset. 0, or -1 with one line in err. */
int session_resolve_triggers(struct session *s, char *err, size_t errlen)
{
	const struct cli_opts *o = s->o;
	size_t n = s->probes.nfuncs ? s->probes.nfuncs : 1;

	if (!o->ntriggers)
		return 0;
	s->trigger_ns = malloc(n * sizeof(*s->trigger_ns));
	if (!s->trigger_ns) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t k = 0; k < s->probes.nfuncs; k++)
		s->trigger_ns[k] = FTFB_FLIGHT_NO_TRIGGER;
	for (int i = 0; i < o->ntriggers; i++) {
		const char *spec = o->triggers[i].spec;
		struct ftfb_symlist sl = {0};
		size_t hits;

		if (ftfb_is_usdt_spec(spec)) {
			snprintf(err, errlen,
				 "--trigger '%s': a trigger is a call of a -u "
				 "function that lasts too long, not a USDT "
				 "probe",
				 spec);
			return -1;
		}
		if (ftfb_probespec_resolve(spec, o->pid, s->mb, &sl, err,
					   errlen)) {
			char why[512];

			snprintf(why, sizeof(why), "%.500s", err);
			snprintf(err, errlen, "--trigger: %s", why);
			return -1;
		}
		hits = mark_trigger(s, &sl, o->triggers[i].min_ns);
		ftfb_symlist_free(&sl);
		if (!hits) {
			snprintf(err, errlen,
				 "--trigger '%s' matches no function traced "
				 "with -u: add -u '%s' (or a -u spec that "
				 "matches it)",
				 spec, spec);
			return -1;
		}
	}
	return 0;
}
