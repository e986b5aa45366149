/* SPDX-License-Identifier: MIT */
/*
 * main.c - ftf-bpf: parse the options, then list (--list) or trace: a
 * session in phases (session.h): prepare, attach, loop, finish, close.
 */
#include <stdio.h>

#include "cli.h"
#include "list.h"
#include "session.h"

int main(int argc, char **argv)
{
	struct cli_opts o;
	struct session s;
	char err[512];

	if (cli_parse(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "ftf-bpf: %s\n", err);
		return 2;
	}
	switch (o.action) {
	case CLI_HELP:
		cli_usage(stdout, "ftf-bpf");
		return 0;
	case CLI_VERSION:
		printf("ftf-bpf %s\n", FTFB_VERSION);
		return 0;
	case CLI_LIST:
		return list_probes(&o);
	case CLI_TRACE:
		break;
	}
	if (session_prepare(&s, &o) == 0 && session_attach(&s) == 0 &&
	    session_loop(&s) == 0)
		session_finish(&s);
	return session_close(&s);
}
