/*
 * bench/spawn-time: spawn-time RUNS [-i FILE] COMMAND [ARG...]: run the
 * command RUNS times (standard input from FILE, else /dev/null; standard
 * output to /dev/null) and print the median wall time of a run in
 * milliseconds, measured around fork and wait alone.  bench/frontends
 * times cold questions with it: timing a run with date(1) before and
 * after adds the start of a date process to every figure (about as much
 * as the /bin/true it is compared with), and flatters every ratio.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	const char *in = "/dev/null";
	double *t;
	int runs, i = 2;

	if (argc < 3 || (runs = atoi(argv[1])) < 1) {
		fputs("usage: spawn-time RUNS [-i FILE] COMMAND [ARG...]\n", stderr);
		return 2;
	}
	if (strcmp(argv[i], "-i") == 0 && argc > i + 2) {
		in = argv[i + 1];
		i += 2;
	}
	if (!(t = calloc((size_t)runs, sizeof *t)))
		return 5;
	for (int r = 0; r < runs; r++) {
		struct timespec a, b;
		int st;
		pid_t p;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if ((p = fork()) < 0) {
			perror("spawn-time: fork");
			return 5;
		}
		if (p == 0) {
			int fd = open(in, O_RDONLY);

			if (fd < 0 || dup2(fd, 0) < 0 || (fd = open("/dev/null", O_WRONLY)) < 0 ||
			    dup2(fd, 1) < 0)
				_exit(126);
			execvp(argv[i], argv + i);
			_exit(127);
		}
		if (waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "spawn-time: '%s' failed\n", argv[i]);
			return 5;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[r] = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	}
	qsort(t, (size_t)runs, sizeof *t, cmp);
	printf("%.2f\n", runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2);
	free(t);
	return 0;
}
