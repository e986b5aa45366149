// SPDX-License-Identifier: MIT
/*
 * crosswl.c - a workload whose USDT pairs cross, the way PostgreSQL's do:
 * a transaction starts inside the query "BEGIN" and commits inside the
 * query "END", with one query "SELECT" between them that nests in it.
 *
 * Two threads, "cw-worker-0" and "cw-worker-1", each run N transactions
 * (N = 500, or argv[1]) of
 *   crosswl:query__start("BEGIN") crosswl:txn__start(i) crosswl:query__done(0)
 *   crosswl:query__start("SELECT") crosswl:query__done(1)
 *   crosswl:query__start("END") crosswl:txn__commit(i) crosswl:query__done(2)
 * that is, per thread, N txn pairs and 3N query pairs of which 2N cross
 * a txn pair (BEGIN and END) and N nest in one (SELECT).
 *
 * usage: crosswl [N]: prints "ready PID", waits for a line on stdin,
 * runs, prints "done" and exits.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <unistd.h>

#define NTHREADS 2

static long ntxn = 500;

static void query(const char *text, long done_arg)
{
	DTRACE_PROBE1(crosswl, query__start, text);
	DTRACE_PROBE1(crosswl, query__done, done_arg);
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "cw-worker-%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	for (long i = 0; i < ntxn; i++) {
		DTRACE_PROBE1(crosswl, query__start, "BEGIN");
		DTRACE_PROBE1(crosswl, txn__start, i);
		DTRACE_PROBE1(crosswl, query__done, 0);
		query("SELECT", 1);
		DTRACE_PROBE1(crosswl, query__start, "END");
		DTRACE_PROBE1(crosswl, txn__commit, i);
		DTRACE_PROBE1(crosswl, query__done, 2);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	char line[16];

	if (argc > 1)
		ntxn = atol(argv[1]);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (long t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	printf("done\n");
	fflush(stdout);
	return 0;
}
