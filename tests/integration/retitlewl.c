// SPDX-License-Identifier: MIT
/*
 * retitlewl - titles set while traced, as PostgreSQL's backends and
 * nginx's workers set them: by writing over argv, with no system call.
 * It prints its pid, waits for a line on stdin, forks a child that sets
 * CHILD_TITLE and lives about a second, sets its own title to
 * SELF_TITLE, waits for the child, prints "child=PID", and waits for a
 * second line before it exits.
 *
 * Usage: retitlewl CHILD_TITLE SELF_TITLE PADDING...  (the arguments
 * give the room; each title must fit in it)
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* argv's area rewritten as setproctitle does: the title, then NULs */
static int set_title(int argc, char **argv, const char *title)
{
	char *end = argv[argc - 1] + strlen(argv[argc - 1]);
	size_t room = (size_t)(end - argv[0]);
	char copy[256];

	snprintf(copy, sizeof(copy), "%s", title);
	if (strlen(copy) >= room)
		return -1;
	memset(argv[0], 0, room);
	memcpy(argv[0], copy, strlen(copy));
	return 0;
}

/* a second of short sleeps: it runs (and is switched in) many times */
static void live_a_second(void)
{
	struct timespec ts = {0, 50 * 1000 * 1000};

	for (int i = 0; i < 20; i++)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	char child_title[256], line[16];
	pid_t child;

	if (argc < 4) {
		fprintf(stderr, "usage: retitlewl CHILD SELF PADDING...\n");
		return 2;
	}
	snprintf(child_title, sizeof(child_title), "%s", argv[1]);
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		if (set_title(argc, argv, child_title))
			_exit(2);
		live_a_second();
		_exit(0);
	}
	if (set_title(argc, argv, argv[2]))
		return 2;
	waitpid(child, NULL, 0);
	printf("child=%d\n", (int)child);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	return 0;
}
