// SPDX-License-Identifier: MIT
/*
 * ftf-merge - merges Fuchsia Trace Format traces (an application's own
 * trace written with libftf, ftf-bpf's trace of it, ...) into one, with
 * timestamps in one tick domain. The work is in merge.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "merge.h"
#include "merge_time.h"

static const char usage[] =
	"Usage: ftf-merge [--offset DUR] INPUT... -o OUTPUT\n"
	"\n"
	"Merges FTF traces (.fxt, or gzip .fxt.gz) into one: every record of\n"
	"every input, with its strings, threads, processes and arguments, the\n"
	"timestamps in the first input's tick domain. Each input keeps its "
	"own\n"
	"provider section (its provider name stays visible); a process or\n"
	"thread named in one input is named in the output.\n"
	"\n"
	"Placing inputs in time (each input's first initialization record):\n"
	"  - the same clock as the first input (ticks per second within 50 "
	"ppm\n"
	"    and base ticks/base time consistent, as for ftf-bpf's and "
	"libftf's\n"
	"    TSC traces on one machine): timestamps kept, read at the first\n"
	"    input's rate\n"
	"  - another clock with a base time (4-word initialization record):\n"
	"    mapped through the two base times (wall-clock time)\n"
	"  - no base time (2-word record) or no record: needs --offset\n"
	"\n"
	"Options:\n"
	"  -o, --output OUTPUT  the merged trace (required; a name ending in\n"
	"                       .gz is written gzipped); not one of the "
	"inputs;\n"
	"                       a new name or a regular file (a device, "
	"FIFO,\n"
	"                       directory or symlink is refused), replaced "
	"only\n"
	"                       when the merge worked\n"
	"      --offset DUR     for the inputs after it on the command line\n"
	"                       (until the next --offset): their time (ticks "
	"/\n"
	"                       their ticks per second) plus DUR is the first\n"
	"                       input's time; DUR such as 1.5ms, -200us, 3s,\n"
	"                       10ns (a bare number is seconds); overrides "
	"the\n"
	"                       base time mapping\n"
	"  -q, --quiet          no lines on how inputs are placed, no summary\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: 0 merged, 1 an input or the output failed (one line "
	"says\n"
	"which; what was at OUTPUT is left as it was), 2 usage.\n"
	"An input may be a pipe or a FIFO (read once into $TMPDIR).\n"
	"\n"
	"Examples:\n"
	"  ftf-merge app.fxt kernel.fxt -o both.fxt\n"
	"  ftf-merge app.fxt.gz kernel.fxt.gz -o both.fxt.gz\n"
	"  ftf-merge kernel.fxt --offset 1.25s old-ns-trace.fxt -o both.fxt\n";

#define MAX_INPUTS 256

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* -1 to go on with in[] and mo filled in, else the exit status (--help, bad
 * options, missing input or output: one line on stderr). */
static int parse_args(int argc, char **argv, struct merge_input *in,
		      struct merge_opts *mo, bool *quiet)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"offset", required_argument, NULL, 'O'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	bool has_offset = false;
	int64_t offset_ns = 0;
	int opt;

	opterr = 0;
	/* "-": inputs come back in order, so --offset knows which follow */
	while ((opt = getopt_long(argc, argv, "-o:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (mo->n == MAX_INPUTS) {
				fprintf(stderr,
					"ftf-merge: more than %d inputs: merge "
					"them in groups\n",
					MAX_INPUTS);
				return 2;
			}
			in[mo->n].path = optarg;
			in[mo->n].has_offset = has_offset;
			in[mo->n++].offset_ns = offset_ns;
			break;
		case 'o':
			mo->output = optarg;
			break;
		case 'O':
			if (merge_parse_offset(optarg, &offset_ns)) {
				fprintf(stderr,
					"ftf-merge: invalid --offset '%s': "
					"give a duration such as 1.5ms, "
					"-200us, 3s\n",
					optarg);
				return 2;
			}
			has_offset = true;
			break;
		case 'q':
			*quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case ':':
			fprintf(stderr,
				"ftf-merge: %s needs a value (see --help)\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr,
				"ftf-merge: unknown option %s (see --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (!mo->output || !*mo->output) {
		fprintf(stderr, "ftf-merge: no output: give -o OUTPUT.fxt (see "
				"--help)\n");
		return 2;
	}
	if (mo->n == 0) {
		fprintf(stderr, "ftf-merge: no input traces: give INPUT.fxt "
				"... (see --help)\n");
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static struct merge_input in[MAX_INPUTS];
	struct merge_opts mo = {.in = in, .log = stderr};
	struct merge_stats st;
	bool quiet = false;
	char err[1024];
	double t0, dt;
	int status = parse_args(argc, argv, in, &mo, &quiet);

	if (status >= 0)
		return status;
	if (quiet)
		mo.log = NULL;
	t0 = now_s();
	if (merge_run(&mo, &st, err, sizeof(err))) {
		fprintf(stderr, "ftf-merge: %s\n", err);
		return 1;
	}
	dt = now_s() - t0;
	if (st.clamped)
		fprintf(stderr,
			"ftf-merge: warning: %llu timestamps fell outside the output's time range (before its 0, or past its end) and were pinned to its edge: check --offset\n",
			(unsigned long long)st.clamped);
	if (!quiet)
		fprintf(stderr,
			"ftf-merge: wrote %s: %llu records, %.1f MB from %d "
			"inputs (%.1f MB read) in %.2f s, %.1f MB/s\n",
			mo.output, (unsigned long long)st.records,
			(double)st.bytes_out / 1e6, mo.n,
			(double)st.bytes_in / 1e6, dt,
			dt > 0 ? (double)st.bytes_in / 1e6 / dt : 0.0);
	return 0;
}
