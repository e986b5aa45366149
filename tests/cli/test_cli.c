/* SPDX-License-Identifier: MIT */
/*
 * test_cli - option parsing: defaults, every value form, every bad value.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"
#include "sources.h"

#define ARGV(...) ((char *[]){ "ftf-bpf", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "ftf-bpf", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, err, ...) cli_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), (err), sizeof(err))

static void durations_in_every_unit(void **state)
{
	uint64_t ns;

	(void)state;
	assert_int_equal(cli_parse_duration("500ms", &ns), 0);
	assert_int_equal(ns, 500000000ull);
	assert_int_equal(cli_parse_duration("10s", &ns), 0);
	assert_int_equal(ns, 10000000000ull);
	assert_int_equal(cli_parse_duration("2m", &ns), 0);
	assert_int_equal(ns, 120000000000ull);
	assert_int_equal(cli_parse_duration("1h", &ns), 0);
	assert_int_equal(ns, 3600000000000ull);
	assert_int_equal(cli_parse_duration("1.5s", &ns), 0);
	assert_int_equal(ns, 1500000000ull);
	assert_int_equal(cli_parse_duration("3", &ns), 0);
	assert_int_equal(ns, 3000000000ull);
	assert_int_equal(cli_parse_duration("250us", &ns), 0);
	assert_int_equal(ns, 250000ull);
}

static void bad_durations_are_refused(void **state)
{
	const char *bad[] = { "", "s", "-1s", "10x", "1e3s", "inf",
			      "10 s", "nan", "+5s", "1..2s" };
	/* durations, but none (under 1 ns) or past 1e18 ns */
	const char *out_of_range[] = { "0", "0ms", "0.1ns", "400000000h" };
	uint64_t ns = 42;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cli_parse_duration(bad[i], &ns), -EINVAL);
		assert_int_equal(ns, 42);
	}
	for (size_t i = 0; i < sizeof(out_of_range) / sizeof(out_of_range[0]);
	     i++) {
		assert_int_equal(cli_parse_duration(out_of_range[i], &ns),
				 -ERANGE);
		assert_int_equal(ns, 42);
	}
}

static void sizes(void **state)
{
	uint64_t b;

	(void)state;
	assert_int_equal(cli_parse_size("64K", &b), 0);
	assert_int_equal(b, 65536);
	assert_int_equal(cli_parse_size("8M", &b), 0);
	assert_int_equal(b, 8u << 20);
	assert_int_equal(cli_parse_size("1G", &b), 0);
	assert_int_equal(b, 1u << 30);
	assert_int_equal(cli_parse_size("4096", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(cli_parse_size("8X", &b), -EINVAL);
	assert_int_equal(cli_parse_size("-8M", &b), -EINVAL);
	assert_int_equal(cli_parse_size("", &b), -EINVAL);
}

static void defaults(void **state)
{
	struct cli_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-a"), 0);
	assert_true(o.all);
	assert_string_equal(o.output, "trace.fxt");
	assert_int_equal(o.ring_bytes, 8u << 20);
	assert_int_equal(o.nr_rings, 1);
	assert_int_equal(o.duration_ns, 0);
	assert_false(o.clock_mono);
	assert_false(o.follow_children);
	assert_int_equal(o.nargs, 0);
	assert_null(o.cmd);
}

static void every_option(void **state)
{
	struct cli_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-p", "123", "-u", "parse_*", "-u",
			       "libc:malloc", "--args", "3", "-o", "x.fxt",
			       "-d", "2m", "--buffer-size", "100K", "--rings",
			       "2", "--clock", "mono", "-q", "-v", "-f"),
			 0);
	assert_int_equal(o.pid, 123);
	assert_int_equal(o.nuprobes, 2);
	assert_string_equal(o.uprobes[0], "parse_*");
	assert_string_equal(o.uprobes[1], "libc:malloc");
	assert_int_equal(o.nargs, 3);
	assert_string_equal(o.output, "x.fxt");
	assert_int_equal(o.duration_ns, 120000000000ull);
	/* 100K rounds up to the next power of two. */
	assert_int_equal(o.ring_bytes, 128 * 1024);
	assert_int_equal(o.nr_rings, 2);
	assert_true(o.clock_mono);
	assert_true(o.quiet);
	assert_true(o.verbose);
	assert_true(o.follow_children);
	assert_int_equal(PARSE(&o, err, "--follow-children", "--", "make"), 0);
	assert_true(o.follow_children);
}

static void command_after_dashes_or_bare(void **state)
{
	struct cli_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-u", "work", "--", "./app", "-x", "y"), 0);
	assert_non_null(o.cmd);
	assert_string_equal(o.cmd[0], "./app");
	assert_string_equal(o.cmd[1], "-x");
	assert_string_equal(o.cmd[2], "y");
	assert_null(o.cmd[3]);
	/* Options after the command belong to the command. */
	assert_int_equal(PARSE(&o, err, "ls", "-a"), 0);
	assert_false(o.all);
	assert_string_equal(o.cmd[0], "ls");
	assert_string_equal(o.cmd[1], "-a");
}

struct bad_case {
	char *argv[8];
	const char *msg_part;
};

static void bad_options_get_one_clear_line(void **state)
{
	static struct bad_case cases[] = {
		{ { "ftf-bpf", NULL }, "nothing to trace" },
		{ { "ftf-bpf", "-a", "-p", "1", NULL }, "only one of" },
		{ { "ftf-bpf", "-p", "abc", NULL }, "invalid PID 'abc'" },
		{ { "ftf-bpf", "-p", "-5", NULL }, "invalid PID" },
		{ { "ftf-bpf", "-p", "0", NULL }, "invalid PID" },
		{ { "ftf-bpf", "-p", "99999999999", NULL }, "invalid PID" },
		{ { "ftf-bpf", "-a", "-d", "10x", NULL }, "invalid duration '10x'" },
		{ { "ftf-bpf", "-a", "-d", NULL }, "needs a value" },
		{ { "ftf-bpf", "-a", "--buffer-size", "2G", NULL }, "invalid --buffer-size" },
		{ { "ftf-bpf", "-a", "--buffer-size", "lots", NULL }, "invalid --buffer-size" },
		/* under the 4K the message names (it was rounded up, silently) */
		{ { "ftf-bpf", "-a", "--buffer-size", "1", NULL }, "use a size from 4K to 1G" },
		{ { "ftf-bpf", "-a", "-d", "0", NULL }, "give one from 1ns to 31 years" },
		{ { "ftf-bpf", "-a", "--rings", "0", NULL }, "invalid --rings" },
		{ { "ftf-bpf", "-a", "--clock", "wall", NULL }, "invalid --clock 'wall'" },
		{ { "ftf-bpf", "-p", "1", "-u", "f", "--args", "7", NULL }, "invalid --args '7'" },
		{ { "ftf-bpf", "-a", "--args", "2", NULL }, "add -u SPEC" },
		{ { "ftf-bpf", "-a", "--no-sched", NULL }, "nothing to record" },
		{ { "ftf-bpf", "-a", "-u", "malloc", NULL }, "BINARY:FUNC" },
		{ { "ftf-bpf", "-a", "--bogus", NULL }, "unknown option --bogus" },
		{ { "ftf-bpf", "-a", "-Z", NULL }, "unknown option -Z" },
		{ { "ftf-bpf", "-a", "-o", "", NULL }, "empty output path" },
		{ { "ftf-bpf", "--list", NULL }, "--list needs" },
		{ { "ftf-bpf", "-p", "1", "-p", "2", NULL }, "-p given twice" },
	};
	struct cli_opts o;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int argc = 0;

		while (cases[i].argv[argc])
			argc++;
		err[0] = '\0';
		assert_int_equal(cli_parse(argc, cases[i].argv, &o, err, sizeof(err)),
				 -EINVAL);
		if (!strstr(err, cases[i].msg_part))
			fail_msg("case %zu: message '%s' lacks '%s'", i, err,
				 cases[i].msg_part);
		assert_null(strchr(err, '\n'));
	}
}

static void help_and_version(void **state)
{
	struct cli_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--help"), 0);
	assert_int_equal(o.action, CLI_HELP);
	assert_int_equal(PARSE(&o, err, "-V"), 0);
	assert_int_equal(o.action, CLI_VERSION);
	assert_int_equal(PARSE(&o, err, "--list", "-u", "libc:malloc"), 0);
	assert_int_equal(o.action, CLI_LIST);
}

static void flight_recorder_options(void **state)
{
	struct cli_opts o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-F", "2s", "-u", "rare", "-u", "tick",
			       "--trigger", "rare>50ms", "--trigger", "tick",
			       "--post", "200ms", "--flight-size", "64M",
			       "--max-snapshots", "3", "--", "app"), 0);
	assert_int_equal(o.flight_ns, 2000000000ull);
	assert_int_equal(o.flight_bytes, 64ull << 20);
	assert_int_equal(o.post_ns, 200000000ull);
	assert_int_equal(o.max_snapshots, 3);
	assert_int_equal(o.ntriggers, 2);
	assert_string_equal(o.triggers[0].spec, "rare");
	assert_int_equal(o.triggers[0].min_ns, 50000000ull);
	assert_string_equal(o.triggers[1].spec, "tick");
	assert_int_equal(o.triggers[1].min_ns, 0);
	/* defaults, and --post 0 */
	assert_int_equal(PARSE(&o, err, "--flight-recorder", "1s", "--post",
			       "0", "-a"), 0);
	assert_int_equal(o.flight_bytes, 256ull << 20);
	assert_int_equal(o.max_snapshots, 10);
	assert_int_equal(o.post_ns, 0);
	assert_int_equal(o.ntriggers, 0);
}

static void bad_flight_recorder_options(void **state)
{
	static const struct {
		const char *argv[10]; /* NULL-terminated */
		const char *says;
	} bad[] = {
		{ { "-F", "0", "-a" }, "invalid window '0' for -F" },
		{ { "-F", "soon", "-a" }, "invalid window 'soon' for -F" },
		{ { "--trigger", "f>1ms", "-u", "f", "--", "x" },
		  "--trigger belongs to the flight recorder: add -F DUR" },
		{ { "--post", "1s", "-a" },
		  "--post belongs to the flight recorder" },
		{ { "--max-snapshots", "2", "-a" },
		  "--max-snapshots belongs to the flight recorder" },
		{ { "-F", "1s", "--trigger", "f>1ms", "--", "x" },
		  "--trigger 'f' needs the function traced: add -u f" },
		{ { "-F", "1s", "--trigger", ">1ms", "-u", "f", "--", "x" },
		  "invalid --trigger '>1ms'" },
		{ { "-F", "1s", "--trigger", "f>abc", "-u", "f", "--", "x" },
		  "invalid duration 'abc' in --trigger 'f>abc'" },
		{ { "-F", "1s", "--flight-size", "10K", "-a" },
		  "invalid size '10K' for --flight-size" },
		{ { "-F", "1s", "--max-snapshots", "0", "-a" },
		  "invalid count '0' for --max-snapshots" },
		/* (it only ever delays a trigger's snapshot) */
		{ { "-F", "1s", "--post", "5s", "-a" },
		  "--post keeps recording after a --trigger snapshot" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[12] = { "ftf-bpf" };
		struct cli_opts o;
		char err[512];
		int argc = 1;

		for (int j = 0; bad[i].argv[j]; j++)
			argv[argc++] = (char *)bad[i].argv[j];
		assert_int_equal(cli_parse(argc, argv, &o, err, sizeof(err)),
				 -EINVAL);
		if (!strstr(err, bad[i].says))
			fail_msg("case %zu: '%s' does not say '%s'", i, err,
				 bad[i].says);
	}
}

static void syscall_options(void **state)
{
	struct cli_opts o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--syscalls", "-a"), 0);
	assert_true(o.syscalls);
	assert_null(o.syscall_list);
	assert_int_equal(PARSE(&o, err, "--syscalls=read,*sock*", "--args",
			       "2", "--no-sched", "-a"), 0);
	assert_string_equal(o.syscall_list, "read,*sock*");
	assert_int_equal(o.nargs, 2);
	assert_int_equal(PARSE(&o, err, "--list", "--syscalls=read"), 0);
	assert_int_equal(o.action, CLI_LIST);
	assert_int_equal(PARSE(&o, err, "--syscalls=", "-a"), -EINVAL);
	assert_non_null(strstr(err, "--syscalls= needs names"));
	/* without them, --no-sched and --args still say what is missing */
	assert_int_equal(PARSE(&o, err, "--no-sched", "-a"), -EINVAL);
	assert_non_null(strstr(err, "add -u SPEC or --syscalls"));
}

static void usdt_options(void **state)
{
	struct cli_opts o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--python", "-p", "12"), 0);
	assert_true(o.python);
	assert_false(o.usdt_strings);
	assert_int_equal(PARSE(&o, err, "--usdt-strings", "-u",
			       "usdt:app:req__*", "-p", "12"), 0);
	assert_true(o.usdt_strings);
	assert_int_equal(o.nuprobes, 1);
	assert_string_equal(o.uprobes[0], "usdt:app:req__*");
	/* --python alone is something to list, and to record without
	 * scheduling */
	assert_int_equal(PARSE(&o, err, "--list", "--python"), 0);
	assert_int_equal(o.action, CLI_LIST);
	assert_int_equal(PARSE(&o, err, "--python", "--no-sched", "-p", "12"),
			 0);
}

static void compressed_output(void **state)
{
	struct cli_opts o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-a"), 0);
	assert_false(o.compress);
	assert_int_equal(PARSE(&o, err, "--compress", "-a"), 0);
	assert_true(o.compress);
	assert_string_equal(o.output, "trace.fxt.gz");
	assert_int_equal(PARSE(&o, err, "-o", "x.fxt.gz", "-a"), 0);
	assert_true(o.compress);
	assert_string_equal(o.output, "x.fxt.gz");
	/* the name given is kept: readers recognise gzip by its content */
	assert_int_equal(PARSE(&o, err, "-o", "x.fxt", "--compress", "-a"), 0);
	assert_true(o.compress);
	assert_string_equal(o.output, "x.fxt");
	assert_int_equal(PARSE(&o, err, "-o", "x.fxt", "-a"), 0);
	assert_false(o.compress);
}

static void stack_options(void **state)
{
	struct cli_opts o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-a"), 0);
	assert_false(o.stacks);
	assert_int_equal(PARSE(&o, err, "-g", "-a"), 0);
	assert_true(o.stacks);
	assert_int_equal(o.freq_hz, 99);
	assert_int_equal(PARSE(&o, err, "--stacks", "--freq", "997",
			       "--no-sched", "-p", "1"), 0);
	assert_true(o.stacks);
	assert_true(o.no_sched);
	assert_int_equal(o.freq_hz, 997);
	assert_int_equal(PARSE(&o, err, "--freq", "99", "-a"), -EINVAL);
	assert_non_null(strstr(err, "add --stacks"));
	assert_int_equal(PARSE(&o, err, "-g", "--freq", "0", "-a"), -EINVAL);
	assert_non_null(strstr(err, "invalid --freq '0'"));
	assert_int_equal(PARSE(&o, err, "-g", "--freq", "10001", "-a"),
			 -EINVAL);
	assert_int_equal(PARSE(&o, err, "-g", "--freq", "fast", "-a"),
			 -EINVAL);
	assert_non_null(strstr(err, "1 to 10000"));
	assert_int_equal(PARSE(&o, err, "-g", "-F", "2s", "-a"), 0);
	assert_true(o.stacks);
}

/* The bit of an --events source (its row in the source table). */
static unsigned bit(const char *name)
{
	unsigned b = ftfb_sources_event_bit(name, strlen(name));

	assert_int_not_equal(b, 0);
	return b;
}

/* --events LIST: each source off unless listed, unknown names and
 * waker without -g refused in one line, naming the sources there are */
static void event_source_options(void **state)
{
	struct cli_opts o;
	char err[512];

	(void)state;
	assert_int_equal(__builtin_popcount(bit("io") | bit("mem") |
					    bit("irq") | bit("waker")),
			 4);
	assert_int_equal(ftfb_sources_event_bit("sched", 5), 0);
	assert_int_equal(PARSE(&o, err, "-a"), 0);
	assert_int_equal(o.events, 0);
	assert_int_equal(PARSE(&o, err, "--events=io", "-a"), 0);
	assert_int_equal(o.events, bit("io"));
	assert_int_equal(PARSE(&o, err, "--events", "irq,mem", "-p", "1"), 0);
	assert_int_equal(o.events, bit("irq") | bit("mem"));
	assert_int_equal(PARSE(&o, err, "--events=io,mem,irq,waker", "-g",
			       "-a"), 0);
	assert_int_equal(o.events,
			 bit("io") | bit("mem") | bit("irq") | bit("waker"));
	/* sources alone are something to record */
	assert_int_equal(PARSE(&o, err, "--events=io", "--no-sched", "-a"), 0);
	assert_int_equal(PARSE(&o, err, "--events=disk", "-a"), -EINVAL);
	assert_non_null(strstr(err, "unknown event source 'disk'"));
	assert_non_null(strstr(err, "give any of io, mem, irq, waker"));
	assert_int_equal(PARSE(&o, err, "--events=io,", "-a"), -EINVAL);
	assert_non_null(strstr(err, "ends with a comma"));
	assert_int_equal(PARSE(&o, err, "--events=", "-a"), -EINVAL);
	assert_non_null(strstr(err, "needs a list"));
	assert_int_equal(PARSE(&o, err, "--events=waker", "-a"), -EINVAL);
	assert_non_null(strstr(err, "add --stacks"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations_in_every_unit),
		cmocka_unit_test(bad_durations_are_refused),
		cmocka_unit_test(sizes),
		cmocka_unit_test(defaults),
		cmocka_unit_test(every_option),
		cmocka_unit_test(command_after_dashes_or_bare),
		cmocka_unit_test(bad_options_get_one_clear_line),
		cmocka_unit_test(help_and_version),
		cmocka_unit_test(flight_recorder_options),
		cmocka_unit_test(syscall_options),
		cmocka_unit_test(usdt_options),
		cmocka_unit_test(compressed_output),
		cmocka_unit_test(stack_options),
		cmocka_unit_test(event_source_options),
		cmocka_unit_test(bad_flight_recorder_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
