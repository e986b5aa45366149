/* SPDX-License-Identifier: MIT */
/*
 * cli.c - parsing and validating ftf-bpf's options.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sources.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Parses a non-negative decimal number with an optional fraction; the
 * rest of the string is returned in *rest. */
static int parse_number(const char *s, double *v, const char **rest)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *v != *v /* NaN */)
		return -EINVAL;
	/* strtod accepts "inf", hex floats and exponents; allow plain
	 * decimals only. */
	for (const char *p = s; p < end; p++)
		if (!((*p >= '0' && *p <= '9') || *p == '.'))
			return -EINVAL;
	*rest = end;
	return 0;
}

int cli_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{ "ns", 1 },	  { "us", 1e3 },   { "ms", 1e6 },
		{ "s", 1e9 },	  { "", 1e9 },	   { "m", 60e9 },
		{ "min", 60e9 },  { "h", 3600e9 },
	};
	const char *rest;
	double v;

	if (parse_number(s, &v, &rest))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(rest, units[i].unit) == 0) {
			double total = v * units[i].ns;

			if (total < 1 || total > 1e18)
				return -ERANGE;
			*ns = (uint64_t)total;
			return 0;
		}
	}
	return -EINVAL;
}

int cli_parse_size(const char *s, uint64_t *bytes)
{
	const char *rest;
	double v, mult;

	if (parse_number(s, &v, &rest))
		return -EINVAL;
	if (!*rest || strcmp(rest, "B") == 0)
		mult = 1;
	else if (!strcmp(rest, "K") || !strcmp(rest, "k") || !strcmp(rest, "KiB") ||
		 !strcmp(rest, "KB"))
		mult = 1024.0;
	else if (!strcmp(rest, "M") || !strcmp(rest, "m") || !strcmp(rest, "MiB") ||
		 !strcmp(rest, "MB"))
		mult = 1024.0 * 1024;
	else if (!strcmp(rest, "G") || !strcmp(rest, "g") || !strcmp(rest, "GiB") ||
		 !strcmp(rest, "GB"))
		mult = 1024.0 * 1024 * 1024;
	else
		return -EINVAL;
	v *= mult;
	if (v < 1 || v > (double)(1ull << 40))
		return -EINVAL;
	*bytes = (uint64_t)v;
	return 0;
}

static int parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

void cli_usage(FILE *f, const char *prog)
{
	char names[256];

	ftfb_sources_event_names(names, sizeof(names));
	fprintf(f,
"Usage: %s [OPTIONS] (-a | -p PID | [--] CMD [ARGS...])\n"
"\n"
"Records what a program and the kernel scheduler do, with BPF, and writes a\n"
"Fuchsia Trace Format file (.fxt) that opens in Perfetto (ui.perfetto.dev).\n"
"\n"
"What to trace (one of):\n"
"  -a, --all              every process on the machine (scheduling of all CPUs)\n"
"  -p, --pid PID          one running process: all its threads, and the\n"
"                         threads and children it creates while traced\n"
"  [--] CMD [ARGS...]     start CMD and trace it until it exits\n"
"\n"
"Function calls (uprobes):\n"
"  -u, --uprobe SPEC      trace calls of functions as slices (repeatable):\n"
"                           FUNC or GLOB       in the target's main binary\n"
"                           BINARY:FUNC        BINARY is a path or on PATH\n"
"                           LIB:FUNC           a library name, e.g. libc:malloc\n"
"                           BINARY:0xOFFSET    a raw file offset\n"
"      --args N           record the first N integer arguments (0..6, default 0)\n"
"      --list             print what the -u specs match and trace nothing\n"
"      --no-sched         record only the uprobes, not context switches\n"
"      --syscalls[=LIST]  system calls as slices on their threads (category\n"
"                         syscall, ret and error on the end, --args N of\n"
"                         their arguments); LIST: names or globs,\n"
"                         e.g. --syscalls=read,write,'*sock*' (the others\n"
"                         are filtered in the kernel); with -p/-- the\n"
"                         target's, with -f its children's too; --list\n"
"                         --syscalls=LIST prints what a list matches\n"
"  -f, --follow-children  with -p/--: probe the calls of the processes the\n"
"                         target forks too (default: the target's own only,\n"
"                         filtered by the kernel; with -f every process that\n"
"                         maps the binary takes the probe and BPF filters it)\n"
"\n"
"Static probes (USDT, <sys/sdt.h>), with -u too:\n"
"  -u usdt:PROVIDER:NAME  instants on the thread at each hit of a probe of the\n"
"                         main binary (globs), its arguments as arg0..\n"
"  -u usdt:BINARY:PROVIDER:NAME   in BINARY (path, name on PATH, or library)\n"
"  -u 'usdt:P:START~usdt:P:END'   slices from START to the next END on the\n"
"                         same thread (nested pairs nest)\n"
"                         a suffix ,str or ,str=0,2 reads those arguments\n"
"                         as C strings (at most 2, 63 bytes each)\n"
"      --usdt-strings     read every pointer argument (8@) as a C string\n"
"      --python           Python's probes as slices (category python):\n"
"                         gc (generation, collected) and \"import MODULE\"\n"
"                         slices; Python calls are not traced: on\n"
"                         Debian 12, python3.11's function__entry fires only\n"
"                         where C code enters the interpreter\n"
"\n"
"Stack samples:\n"
"  -g, --stacks           stack samples of the traced threads: on CPU at\n"
"                         --freq HZ, and off CPU (the stack each time a\n"
"                         thread blocks, weighted by the time until it runs\n"
"                         again); Perfetto shows them as flame graphs. In a\n"
"                         CPython process (3.8 to 3.13) the Python functions\n"
"                         (name, file:line of the def) take the place of\n"
"                         the interpreter's frames\n"
"      --freq HZ          on-CPU samples per second and CPU (1..10000,\n"
"                         default 99)\n"
"      --no-python-stacks\n"
"                         with -g: native frames only, also in CPython\n"
"\n"
"Other events (each off unless listed):\n"
"      --events LIST      more event sources, each off unless listed; LIST:\n"
"                         %s, comma-separated (of the\n"
"                         traced processes; with -a of all), e.g.\n"
"                         --events=io,irq:\n",
		prog, names);
	ftfb_sources_event_help(f, 27);
	fprintf(f,
"\n"
"Flight recorder (keep the last seconds in memory, write them on demand):\n"
"  -F, --flight-recorder DUR  record as usual but keep only the events of the\n"
"                         last DUR in memory and write nothing until a\n"
"                         snapshot: on SIGUSR1, at every --trigger, and at\n"
"                         the stop; -o FILE.fxt writes FILE-1.fxt, FILE-2.fxt..\n"
"                         (FILE.fxt.gz: FILE-1.fxt.gz, ..., gzipped)\n"
"      --flight-size SIZE memory cap of the window (default 256M); whichever\n"
"                         of DUR and SIZE is reached first decides the window\n"
"      --trigger 'SPEC>DUR'  a snapshot when a call of a -u function matching\n"
"                         SPEC lasts longer than DUR (SPEC alone: any call);\n"
"                         repeatable\n"
"      --post DUR         keep recording DUR after a trigger before the\n"
"                         snapshot is cut (default 0)\n"
"      --max-snapshots N  write at most N snapshots (default 10); later ones\n"
"                         are counted and reported\n"
"\n"
"Output and limits:\n"
"  -o, --output FILE      trace file (default: " FTFB_DEFAULT_OUTPUT "); an existing\n"
"                         file is kept as FILE.old once the trace started\n"
"                         (a failed start leaves it); a symlink, device,\n"
"                         FIFO or directory is refused;\n"
"                         a name ending in .gz (trace.fxt.gz) is gzipped\n"
"      --compress         gzip the trace as it is written (default name\n"
"                         " FTFB_DEFAULT_OUTPUT ".gz); flushed to a point that\n"
"                         decodes to whole records at least every second;\n"
"                         Perfetto and ftf-dump read it\n"
"  -d, --duration DUR     stop after DUR: 500ms, 10s, 2m, 1h (a bare number\n"
"                         is seconds); default: until Ctrl-C / SIGTERM / the\n"
"                         traced process exits; a -- command still running\n"
"                         at the stop gets SIGTERM (as with perf record)\n"
"      --buffer-size SIZE BPF ring buffer size per ring: 64K, 8M, 1G (rounded\n"
"                         up to a power of two; default 8M, system-wide\n"
"                         more: x2 per doubling of CPUs past 2, x2 with\n"
"                         --syscalls, x2 with -g, at most 256M in all)\n"
"      --rings N          number of BPF ring buffers (1..64, default 1):\n"
"                         switches and wakeups by CPU (ring cpu %% N), the\n"
"                         rest in the first; rings 2..N each read and\n"
"                         written by a thread of its own (not with -F)\n"
"      --clock tsc|mono   timestamps as calibrated TSC ticks (default) or\n"
"                         CLOCK_MONOTONIC nanoseconds\n"
"\n"
"Other:\n"
"  -q, --quiet            no live status line and no summary\n"
"      --status           live status line even when stderr is not a terminal\n"
"  -v, --verbose          say what is loaded and attached; time the start-up\n"
"  -h, --help             this text\n"
"  -V, --version          the version\n"
"\n"
"Examples:\n"
"  sudo %s -a -d 10s -o sched.fxt        all CPUs for 10 seconds\n"
"  sudo %s -p 1234                        one process until Ctrl-C\n"
"  sudo %s -- make -j2                    a command until it exits\n"
"  sudo %s -p 1234 -u 'parse_*' -u libc:malloc --args 2\n"
"  sudo %s -u work -- ./app args          calls of work() in ./app\n"
"  sudo %s -f -u libc:malloc -- make      malloc() in make and all it starts\n"
"  sudo %s --list -u 'libc:*alloc*'       what a spec matches\n"
"  sudo %s --python -- python3 app.py     Python's gc and imports as slices\n"
"  sudo %s -g -- ./app                    where ./app runs and waits\n"
"  sudo %s -F 10s -a -u app:handle --trigger 'app:handle>50ms' -o slow.fxt\n"
"                                         the 10 s before each slow handle()\n"
"\n"
"Needs root (or CAP_BPF + CAP_PERFMON) and a kernel with BTF.\n"
"Open the trace at https://ui.perfetto.dev (Open trace file), or check it\n"
"with ftf-dump --summary FILE.\n"
"-g keeps the unwind tables it builds in /var/cache/ftf-bpf (at most\n"
"256 MiB; FTF_BPF_UNWIND_CACHE=DIR elsewhere, =off for none).\n",
		prog, prog, prog, prog, prog, prog, prog, prog, prog, prog);
}

enum {
	OPT_BUFFER_SIZE = 256,
	OPT_RINGS,
	OPT_CLOCK,
	OPT_ARGS,
	OPT_LIST,
	OPT_NO_SCHED,
	OPT_NO_PYSTACKS,
	OPT_STATUS,
	OPT_FLIGHT_SIZE,
	OPT_TRIGGER,
	OPT_POST,
	OPT_MAX_SNAPSHOTS,
	OPT_SYSCALLS,
	OPT_USDT_STRINGS,
	OPT_PYTHON,
	OPT_COMPRESS,
	OPT_FREQ,
	OPT_EVENTS,
};

static const struct option long_opts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "pid", required_argument, NULL, 'p' },
	{ "uprobe", required_argument, NULL, 'u' },
	{ "output", required_argument, NULL, 'o' },
	{ "duration", required_argument, NULL, 'd' },
	{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
	{ "rings", required_argument, NULL, OPT_RINGS },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "args", required_argument, NULL, OPT_ARGS },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "no-sched", no_argument, NULL, OPT_NO_SCHED },
	{ "no-python-stacks", no_argument, NULL, OPT_NO_PYSTACKS },
	{ "follow-children", no_argument, NULL, 'f' },
	{ "status", no_argument, NULL, OPT_STATUS },
	{ "syscalls", optional_argument, NULL, OPT_SYSCALLS },
	{ "usdt-strings", no_argument, NULL, OPT_USDT_STRINGS },
	{ "python", no_argument, NULL, OPT_PYTHON },
	{ "stacks", no_argument, NULL, 'g' },
	{ "freq", required_argument, NULL, OPT_FREQ },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "flight-recorder", required_argument, NULL, 'F' },
	{ "flight-size", required_argument, NULL, OPT_FLIGHT_SIZE },
	{ "trigger", required_argument, NULL, OPT_TRIGGER },
	{ "post", required_argument, NULL, OPT_POST },
	{ "max-snapshots", required_argument, NULL, OPT_MAX_SNAPSHOTS },
	{ "compress", no_argument, NULL, OPT_COMPRESS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

bool cli_gz_name(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && !strcmp(path + n - 3, ".gz");
}

/* --events=LIST: names of the source table's --events rows,
 * comma-separated. */
static int parse_events(const char *list, unsigned *mask, char *err,
			size_t errlen)
{
	const char *p = list;
	char names[256];

	ftfb_sources_event_names(names, sizeof(names));
	if (!*p)
		return fail(err, errlen,
			    "--events needs a list: e.g. --events=io,mem,irq,waker");
	while (*p) {
		size_t len = strcspn(p, ",");
		unsigned bit = ftfb_sources_event_bit(p, len);

		if (!bit)
			return fail(err, errlen,
				    "unknown event source '%.*s' in --events: give any of %s",
				    (int)len, p, names);
		*mask |= bit;
		p += len;
		if (*p == ',' && !*++p)
			return fail(err, errlen,
				    "--events=%s ends with a comma: give any of %s",
				    list, names);
	}
	return 0;
}

/* --trigger 'SPEC>DUR' or 'SPEC'. */
static int parse_trigger(const char *arg, struct cli_opts *o, char *err,
			 size_t errlen)
{
	const char *gt = strrchr(arg, '>');
	size_t len = gt ? (size_t)(gt - arg) : strlen(arg);

	if (o->ntriggers == CLI_MAX_TRIGGERS)
		return fail(err, errlen,
			    "too many --trigger (at most %d): use a glob in SPEC",
			    CLI_MAX_TRIGGERS);
	if (!len || len >= sizeof(o->triggers[0].spec))
		return fail(err, errlen,
			    "invalid --trigger '%s': give 'SPEC>DUR' (e.g. 'handle>50ms') or SPEC, SPEC as in -u",
			    arg);
	o->triggers[o->ntriggers].min_ns = 0;
	if (gt && cli_parse_duration(gt + 1, &o->triggers[o->ntriggers].min_ns))
		return fail(err, errlen,
			    "invalid duration '%s' in --trigger '%s': use e.g. 50ms, 1s",
			    gt + 1, arg);
	memcpy(o->triggers[o->ntriggers].spec, arg, len);
	o->triggers[o->ntriggers].spec[len] = '\0';
	o->ntriggers++;
	return 0;
}

static uint64_t round_up_pow2(uint64_t v)
{
	uint64_t p = 4096;

	while (p < v)
		p <<= 1;
	return p;
}

/* What the parse keeps besides the options: to check once all are in. */
struct parse_state {
	const char *flight_only; /* an -F option given without -F */
	bool output_given;
};

static void set_defaults(struct cli_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->output = FTFB_DEFAULT_OUTPUT;
	o->ring_bytes = FTFB_DEFAULT_RING_BYTES;
	o->nr_rings = FTFB_DEFAULT_RINGS;
	o->flight_bytes = FTFB_FLIGHT_DEFAULT_BYTES;
	o->max_snapshots = FTFB_FLIGHT_DEFAULT_SNAPSHOTS;
}

/* Each option group below returns 0 (taken), 1 (not one of its own) or
 * -EINVAL with one line in err. */
#define NOT_MINE 1

/* What is traced: -a, -p, -u, -f. */
static int parse_target_opt(int c, const char *arg, struct cli_opts *o,
			    char *err, size_t errlen)
{
	long v;

	switch (c) {
	case 'a':
		o->all = true;
		return 0;
	case 'p':
		if (parse_int(arg, 1, INT_MAX, &v))
			return fail(err, errlen,
				    "invalid PID '%s' for -p: give the numeric id of a running process (see pgrep NAME)",
				    arg);
		if (o->pid)
			return fail(err, errlen,
				    "-p given twice: trace one process per run (its threads and children are included)");
		o->pid = (int)v;
		return 0;
	case 'u':
		if (!*arg)
			return fail(err, errlen,
				    "empty -u spec: give FUNC, BINARY:FUNC, LIB:FUNC or BINARY:0xOFFSET");
		if (o->nuprobes == CLI_MAX_UPROBES)
			return fail(err, errlen,
				    "too many -u specs (at most %d): use globs such as 'parse_*' to match many functions with one spec",
				    CLI_MAX_UPROBES);
		o->uprobes[o->nuprobes++] = arg;
		return 0;
	case 'f':
		o->follow_children = true;
		return 0;
	}
	return NOT_MINE;
}

/* What is recorded besides scheduling: --syscalls, --args, -g, --freq,
 * --usdt-strings, --python, --no-sched. */
static int parse_record_opt(int c, const char *arg, struct cli_opts *o,
			    char *err, size_t errlen)
{
	long v;

	switch (c) {
	case OPT_SYSCALLS:
		o->syscalls = true;
		o->syscall_list = arg; /* (only --syscalls=LIST) */
		if (arg && !*arg)
			return fail(err, errlen,
				    "--syscalls= needs names: e.g. --syscalls=read,write,'*sock*', or --syscalls for all");
		return 0;
	case OPT_EVENTS:
		return parse_events(arg, &o->events, err, errlen);
	case OPT_ARGS:
		if (parse_int(arg, 0, FTFB_MAX_ARGS, &v))
			return fail(err, errlen,
				    "invalid --args '%s': give a number of integer arguments from 0 to %d",
				    arg, FTFB_MAX_ARGS);
		o->nargs = (int)v;
		return 0;
	case 'g':
		o->stacks = true;
		return 0;
	case OPT_NO_PYSTACKS:
		o->no_python_stacks = true;
		return 0;
	case OPT_FREQ:
		if (parse_int(arg, 1, FTFB_MAX_FREQ_HZ, &v))
			return fail(err, errlen,
				    "invalid --freq '%s': give samples per second from 1 to %d",
				    arg, FTFB_MAX_FREQ_HZ);
		o->freq_hz = (unsigned)v;
		return 0;
	case OPT_USDT_STRINGS:
		o->usdt_strings = true;
		return 0;
	case OPT_PYTHON:
		o->python = true;
		return 0;
	case OPT_NO_SCHED:
		o->no_sched = true;
		return 0;
	}
	return NOT_MINE;
}

/* Where and how it is written: -o, --compress, -d, --buffer-size,
 * --rings, --clock. */
static int parse_output_opt(int c, const char *arg, struct cli_opts *o,
			    struct parse_state *ps, char *err, size_t errlen)
{
	uint64_t b;
	int r;
	long v;

	switch (c) {
	case 'o':
		if (!*arg)
			return fail(err, errlen,
				    "empty output path for -o: give a file name such as trace.fxt");
		o->output = arg;
		ps->output_given = true;
		return 0;
	case OPT_COMPRESS:
		o->compress = true;
		return 0;
	case 'd':
		r = cli_parse_duration(arg, &o->duration_ns);
		if (r == -ERANGE)
			return fail(err, errlen,
				    "invalid duration '%s' for -d: give one from 1ns to 31 years, e.g. 500ms, 10s, 2m, 1h",
				    arg);
		if (r)
			return fail(err, errlen,
				    "invalid duration '%s' for -d: use a number with a unit, e.g. 500ms, 10s, 2m, 1h",
				    arg);
		return 0;
	case OPT_BUFFER_SIZE:
		if (cli_parse_size(arg, &b) || b < 4096 ||
		    b > FTFB_MAX_RING_BYTES)
			return fail(err, errlen,
				    "invalid --buffer-size '%s': use a size from 4K to 1G, e.g. 256K, 8M, 64M",
				    arg);
		o->ring_bytes = round_up_pow2(b);
		o->ring_bytes_given = true;
		return 0;
	case OPT_RINGS:
		if (parse_int(arg, 1, FTFB_MAX_RINGS, &v))
			return fail(err, errlen,
				    "invalid --rings '%s': give a number from 1 to %d",
				    arg, FTFB_MAX_RINGS);
		o->nr_rings = (int)v;
		return 0;
	case OPT_CLOCK:
		if (strcmp(arg, "mono") && strcmp(arg, "tsc"))
			return fail(err, errlen,
				    "invalid --clock '%s': use tsc (calibrated TSC ticks) or mono (CLOCK_MONOTONIC ns)",
				    arg);
		o->clock_mono = !strcmp(arg, "mono");
		return 0;
	}
	return NOT_MINE;
}

/* The flight recorder: -F, --flight-size, --post, --max-snapshots,
 * --trigger (all but -F only with -F: noted in ps). */
static int parse_flight_opt(int c, const char *arg, struct cli_opts *o,
			    struct parse_state *ps, char *err, size_t errlen)
{
	long v;

	switch (c) {
	case 'F':
		if (cli_parse_duration(arg, &o->flight_ns) || !o->flight_ns)
			return fail(err, errlen,
				    "invalid window '%s' for -F: use a duration such as 2s, 500ms, 1m",
				    arg);
		return 0;
	case OPT_FLIGHT_SIZE:
		if (cli_parse_size(arg, &o->flight_bytes) ||
		    o->flight_bytes < FTFB_FLIGHT_MIN_BYTES)
			return fail(err, errlen,
				    "invalid size '%s' for --flight-size: use at least 1M, e.g. 64M, 256M, 2G",
				    arg);
		break;
	case OPT_POST:
		if (!strcmp(arg, "0"))
			o->post_ns = 0;
		else if (cli_parse_duration(arg, &o->post_ns))
			return fail(err, errlen,
				    "invalid duration '%s' for --post: use e.g. 0, 200ms, 2s",
				    arg);
		break;
	case OPT_MAX_SNAPSHOTS:
		if (parse_int(arg, 1, FTFB_FLIGHT_MAX_SNAPSHOTS, &v))
			return fail(err, errlen,
				    "invalid count '%s' for --max-snapshots: give 1..%d",
				    arg, FTFB_FLIGHT_MAX_SNAPSHOTS);
		o->max_snapshots = (unsigned)v;
		break;
	case OPT_TRIGGER:
		if (parse_trigger(arg, o, err, errlen))
			return -EINVAL;
		break;
	default:
		return NOT_MINE;
	}
	ps->flight_only = c == OPT_FLIGHT_SIZE ? "--flight-size"
			  : c == OPT_POST      ? "--post"
			  : c == OPT_TRIGGER   ? "--trigger"
					       : "--max-snapshots";
	return 0;
}

/* What it says and does: --list, -q, -v, --status, -h, -V. */
static int parse_ui_opt(int c, struct cli_opts *o)
{
	switch (c) {
	case OPT_LIST:
		o->action = CLI_LIST;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case OPT_STATUS:
		o->force_status = true;
		return 0;
	case 'h':
		o->action = CLI_HELP;
		return 0;
	case 'V':
		o->action = CLI_VERSION;
		return 0;
	}
	return NOT_MINE;
}

/* One option: its group's answer, or an error for a missing value or
 * an unknown option. */
static int parse_one(int c, char **argv, struct cli_opts *o,
		     struct parse_state *ps, char *err, size_t errlen)
{
	int r = parse_target_opt(c, optarg, o, err, errlen);

	if (r == NOT_MINE)
		r = parse_record_opt(c, optarg, o, err, errlen);
	if (r == NOT_MINE)
		r = parse_output_opt(c, optarg, o, ps, err, errlen);
	if (r == NOT_MINE)
		r = parse_flight_opt(c, optarg, o, ps, err, errlen);
	if (r == NOT_MINE)
		r = parse_ui_opt(c, o);
	if (r != NOT_MINE)
		return r;
	if (c == ':')
		return fail(err, errlen, "option %s needs a value: see --help",
			    argv[optind - 1]);
	if (optopt)
		return fail(err, errlen, "unknown option -%c: see --help",
			    optopt);
	return fail(err, errlen, "unknown option %s: see --help",
		    argv[optind - 1]);
}

/* Exactly one of -a, -p, -- CMD. */
static int check_target(const struct cli_opts *o, char *err, size_t errlen)
{
	int targets = (o->all ? 1 : 0) + (o->pid ? 1 : 0) + (o->cmd ? 1 : 0);

	if (targets == 0)
		return fail(err, errlen,
			    "nothing to trace: give -a (all processes), -p PID, or a command after -- (see --help)");
	if (targets > 1)
		return fail(err, errlen,
			    "give only one of -a, -p PID and -- CMD");
	return 0;
}

/* With -a there is no main binary: every -u spec names its own. */
static int check_all_specs(const struct cli_opts *o, char *err, size_t errlen)
{
	for (int i = 0; o->all && i < o->nuprobes; i++)
		if (!strchr(o->uprobes[i], ':'))
			return fail(err, errlen,
				    "-u '%s' with -a has no main binary: name it as BINARY:FUNC or LIB:FUNC",
				    o->uprobes[i]);
	return 0;
}

/* Options that need another one. */
static int check_combinations(struct cli_opts *o, const struct parse_state *ps,
			      char *err, size_t errlen)
{
	if (o->no_sched && o->nuprobes == 0 && !o->syscalls && !o->python &&
	    !o->stacks && !o->events)
		return fail(err, errlen,
			    "--no-sched leaves nothing to record: add -u SPEC or --syscalls (or --stacks, --events), or drop --no-sched");
	if (o->no_python_stacks && !o->stacks)
		return fail(err, errlen,
			    "--no-python-stacks changes what --stacks (-g) records: add -g or drop it");
	if ((o->events & ftfb_sources_event_bit("waker", 5)) && !o->stacks)
		return fail(err, errlen,
			    "--events=waker records the waker's stacks: add --stacks (-g)");
	if (o->freq_hz && !o->stacks)
		return fail(err, errlen,
			    "--freq sets the rate of stack samples: add --stacks (-g)");
	if (!o->freq_hz)
		o->freq_hz = FTFB_DEFAULT_FREQ_HZ;
	if (!o->flight_ns && ps->flight_only)
		return fail(err, errlen,
			    "%s belongs to the flight recorder: add -F DUR (the window to keep)",
			    ps->flight_only);
	if (o->post_ns && !o->ntriggers)
		return fail(err, errlen,
			    "--post keeps recording after a --trigger snapshot: add --trigger 'SPEC>DUR' or drop --post");
	if (o->ntriggers && o->nuprobes == 0)
		return fail(err, errlen,
			    "--trigger '%s' needs the function traced: add -u %s",
			    o->triggers[0].spec, o->triggers[0].spec);
	if (o->nargs && o->nuprobes == 0 && !o->syscalls)
		return fail(err, errlen,
			    "--args records the arguments of calls: add -u SPEC or --syscalls, or drop --args");
	return 0;
}

int cli_parse(int argc, char **argv, struct cli_opts *o, char *err,
	      size_t errlen)
{
	struct parse_state ps = { 0 };
	int c;

	set_defaults(o);
	err[0] = '\0';
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option, which starts CMD. */
	while ((c = getopt_long(argc, argv, "+:ap:u:o:d:F:fgqvhV", long_opts,
				NULL)) != -1) {
		if (parse_one(c, argv, o, &ps, err, errlen))
			return -EINVAL;
		if (o->action == CLI_HELP || o->action == CLI_VERSION)
			return 0;
	}
	if (o->compress && !ps.output_given)
		o->output = FTFB_DEFAULT_OUTPUT ".gz";
	if (cli_gz_name(o->output))
		o->compress = true;
	if (optind < argc) /* getopt stops at "--" having consumed it, or at CMD */
		o->cmd = &argv[optind];
	if (o->action == CLI_LIST) {
		if (o->nuprobes == 0 && !o->syscalls && !o->python)
			return fail(err, errlen,
				    "--list needs at least one -u SPEC, --python or --syscalls=LIST to show what it matches");
		return 0;
	}
	if (check_target(o, err, errlen) ||
	    check_combinations(o, &ps, err, errlen) ||
	    check_all_specs(o, err, errlen))
		return -EINVAL;
	return 0;
}
