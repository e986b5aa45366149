// SPDX-License-Identifier: MIT
/*
 * titlewl - a process that sets its title as setproctitle does: it
 * overwrites its argv area with TITLE and pads the rest with NULs (so
 * /proc/PID/cmdline and ps -o args show TITLE), then prints its pid and
 * waits for a line on stdin.
 *
 * Usage: titlewl TITLE PADDING...  (the arguments give the room)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char title[256], line[16];
	char *end;
	size_t room;

	if (argc < 3) {
		fprintf(stderr, "usage: titlewl TITLE PADDING...\n");
		return 2;
	}
	snprintf(title, sizeof(title), "%s", argv[1]);
	end = argv[argc - 1] + strlen(argv[argc - 1]);
	room = (size_t)(end - argv[0]);
	if (strlen(title) >= room) {
		fprintf(stderr, "titlewl: give more padding\n");
		return 2;
	}
	memset(argv[0], 0, room);
	memcpy(argv[0], title, strlen(title));
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	return 0;
}
