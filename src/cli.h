/* SPDX-License-Identifier: MIT */
/*
 * cli.h - ftf-bpf's command line: options, their defaults and validation.
 *
 * Parsing is separate from running so that every bad value can be tested
 * without BPF: cli_parse() fills struct cli_opts or writes one line saying
 * what is wrong and what to do.
 */
#ifndef FTFB_CLI_H
#define FTFB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "defaults.h"

#define CLI_MAX_UPROBES FTFB_MAX_UPROBE_SPECS
#define CLI_MAX_TRIGGERS FTFB_MAX_TRIGGERS

enum cli_action {
	CLI_TRACE = 0,
	CLI_HELP,
	CLI_VERSION,
	CLI_LIST,
};

struct cli_opts {
	enum cli_action action;
	bool all;            /* -a: system-wide */
	int pid;             /* -p PID, 0 if none */
	char **cmd;          /* -- CMD ARGS (NULL-terminated), NULL if none */
	const char *output;  /* -o FILE */
	uint64_t duration_ns; /* -d DUR, 0 = until stopped */
	uint64_t ring_bytes; /* --buffer-size */
	bool ring_bytes_given; /* --buffer-size given: else ring_size.h */
	int nr_rings;        /* --rings */
	bool clock_mono;     /* --clock mono */
	bool no_sched;       /* --no-sched */
	bool follow_children; /* -f: uprobes also in the target's children */
	int nargs;           /* --args N */
	const char *uprobes[CLI_MAX_UPROBES];
	int nuprobes;
	bool quiet;          /* -q: no live status */
	bool verbose;        /* -v */
	bool force_status;   /* --status: live status even if not a tty */
	bool usdt_strings;   /* --usdt-strings */
	bool python;         /* --python */
	bool syscalls;            /* --syscalls[=LIST] */
	const char *syscall_list; /* LIST, NULL: every call */
	bool stacks;              /* -g, --stacks */
	bool no_python_stacks;    /* --no-python-stacks */
	unsigned freq_hz;         /* --freq HZ (on-CPU samples) */
	unsigned events;          /* --events=LIST: sources.h's bits */
	/* flight recorder (-F DUR); 0: off */
	uint64_t flight_ns;
	uint64_t flight_bytes;   /* --flight-size */
	uint64_t post_ns;        /* --post */
	unsigned max_snapshots;  /* --max-snapshots */
	struct {
		char spec[256];  /* the -u style SPEC */
		uint64_t min_ns; /* >DUR, 0: any call */
	} triggers[CLI_MAX_TRIGGERS];
	int ntriggers;
	bool compress;           /* --compress or -o FILE.gz: gzip output */
};

/* True if path ends in ".gz" (the name asks for gzip output). */
bool cli_gz_name(const char *path);

/* Parses argv. Returns 0, or -EINVAL with one line in err. */
int cli_parse(int argc, char **argv, struct cli_opts *o, char *err,
	      size_t errlen);

/* "500ms", "10s", "2m", "1h", "1.5s", "250us"; a bare number is seconds.
 * Returns 0, -EINVAL (not a duration) or -ERANGE (under 1 ns, over
 * 1e18 ns). */
int cli_parse_duration(const char *s, uint64_t *ns);

/* "64K", "8M", "1G", "4096"; a bare number is bytes. Returns 0 or
 * -EINVAL. */
int cli_parse_size(const char *s, uint64_t *bytes);

/* The complete --help text. */
void cli_usage(FILE *f, const char *prog);

#endif
