/*
 * bench-kb DB QUERIES [REPEAT]: search latency of the knowledge base,
 * in process (no start-up, no JSON): each line of QUERIES is
 * "LANG<TAB>QUERY"; every query runs REPEAT times (default 20) after one
 * warm-up pass.  Prints the count and the 50th, 90th and 99th percentile
 * and the maximum, in microseconds.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_kb.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int
main(int argc, char **argv)
{
	FILE *fp;
	char *line = NULL, err[600], **qs = NULL;
	size_t cap = 0, nq = 0, n = 0, hits_total = 0;
	int repeat = argc > 3 ? atoi(argv[3]) : 20;
	struct cc_kb *kb;
	struct cc_kb_hits hits = {0};
	double *t;

	cc_set_progname(argv[0]);
	if (argc < 3 || repeat < 1)
		cc_die(CC_EXIT_USAGE, "usage: bench-kb DB QUERIES [REPEAT]");
	if (!(fp = fopen(argv[2], "r")))
		cc_die(CC_EXIT_USAGE, "cannot open '%s'", argv[2]);
	while (getline(&line, &cap, fp) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!strchr(line, '\t'))
			continue;
		qs = cc_xrealloc(qs, (nq + 1) * sizeof *qs);
		qs[nq++] = cc_xstrdup(line);
	}
	fclose(fp);
	free(line);
	if (!(kb = cc_kb_open(argv[1], CC_KB_READONLY, err, sizeof err)))
		cc_die(CC_EXIT_INTERNAL, "%s", err);
	t = cc_xmalloc(sizeof *t * nq * (size_t)repeat);
	for (int r = -1; r < repeat; r++)
		for (size_t i = 0; i < nq; i++) {
			char *tab = strchr(qs[i], '\t');
			struct cc_kb_query q = { .text = tab + 1,
			    .len = strlen(tab + 1), .limit = 10 };
			char lang[8];
			double t0;

			snprintf(lang, sizeof lang, "%.*s", (int)(tab - qs[i]), qs[i]);
			q.language = lang;
			t0 = now_us();
			if (cc_kb_search(kb, &q, &hits) < 0)
				cc_die(CC_EXIT_INTERNAL, "%s", cc_kb_error(kb));
			if (r >= 0) {
				t[n++] = now_us() - t0;
				hits_total += hits.n;
			}
		}
	qsort(t, n, sizeof *t, cmp_double);
	if (n)
		printf("%zu searches, %.1f results each: p50 %.0f us, p90 %.0f us, "
		    "p99 %.0f us, max %.0f us\n", n, (double)hits_total / (double)n,
		    t[n / 2], t[n * 9 / 10], t[n * 99 / 100], t[n - 1]);
	cc_kb_hits_release(&hits);
	cc_kb_close(kb);
	for (size_t i = 0; i < nq; i++)
		free(qs[i]);
	free(qs);
	free(t);
	return 0;
}
