/*
 * bench/ics-expand: expand a year of a daily rule across 5 calendars, in
 * process (cc_ics_expand and the chronological merge), and report the best
 * and median of --runs runs.  Every run starts from freshly parsed
 * calendars, so none reuses an earlier expansion.  The calendars differ in how their times are
 * written: a TZID from the tz database, a VTIMEZONE-less UTC time, floating
 * local time, a DST zone (America/New_York) and all-day dates.
 *
 *   ics-expand [--runs N] [--write DIR]
 *
 * --write also leaves the calendars in DIR (cal1.ics ... cal5.ics), so
 * bench/events can time cc-event on the same data.  Exits 1 if the count
 * of occurrences is not a year's worth.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_time.h"
#include "cc_ics.h"

static const char *const dtstart[5] = {
	"DTSTART;TZID=Asia/Tokyo:20240101T190000\r\nDURATION:PT2H",
	"DTSTART:20240101T030000Z\r\nDURATION:PT1H",
	"DTSTART:20240101T120000\r\nDURATION:PT30M",
	"DTSTART;TZID=America/New_York:20240101T080000\r\nDURATION:PT1H",
	"DTSTART;VALUE=DATE:20240101",
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct cc_ics *cal[5];
	const char *dir = NULL;
	int runs = 50;
	double t0, parse_ms, *ms;
	time_t from, to;
	size_t count = 0;
	char err[200], texts[5][1024];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--write") == 0 && i + 1 < argc)
			dir = argv[++i];
		else
			cc_die(CC_EXIT_USAGE, "usage: ics-expand [--runs N] [--write DIR]");
	}
	if (runs < 1)
		runs = 1;
	cc_set_progname(argv[0]);
	if (cc_tz_use(getenv("CC_TZ") && *getenv("CC_TZ") ? getenv("CC_TZ") : "Asia/Tokyo") < 0)
		cc_die(CC_EXIT_USAGE, "unknown time zone in CC_TZ");
	cc_time_parse_iso8601("2025-01-01T00:00:00+09:00", &from);
	cc_time_parse_iso8601("2026-01-01T00:00:00+09:00", &to);

	t0 = now_ms();
	for (int c = 0; c < 5; c++) {
		snprintf(texts[c], sizeof texts[c], "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
		    "PRODID:-//concierge bench//EN\r\nBEGIN:VEVENT\r\nUID:daily-%d\r\n"
		    "SUMMARY:daily %d\r\n%s\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\n"
		    "END:VCALENDAR\r\n", c + 1, c + 1, dtstart[c]);
		cal[c] = cc_ics_parse(texts[c], strlen(texts[c]), "bench", NULL, err, sizeof err);
		if (!cal[c])
			cc_die(CC_EXIT_INTERNAL, "calendar %d: %s", c + 1, err);
		if (dir) {
			char path[4096];
			FILE *f;

			snprintf(path, sizeof path, "%s/cal%d.ics", dir, c + 1);
			if (!(f = fopen(path, "w")) || fputs(texts[c], f) < 0 || fclose(f) != 0)
				cc_die(CC_EXIT_INTERNAL, "cannot write '%s'", path);
		}
	}
	parse_ms = now_ms() - t0;

	ms = cc_xmalloc((size_t)runs * sizeof *ms);
	for (int r = 0; r < runs; r++) {
		struct cc_event_list l = {0};

		/* fresh calendars: a calendar remembers its last expansion */
		for (int c = 0; r > 0 && c < 5; c++) {
			cc_ics_free(cal[c]);
			cal[c] = cc_ics_parse(texts[c], strlen(texts[c]), "bench",
			    NULL, err, sizeof err);
		}
		t0 = now_ms();
		for (int c = 0; c < 5; c++)
			if (cc_ics_expand(cal[c], from, to, 0, &l, err, sizeof err) < 0)
				cc_die(CC_EXIT_INTERNAL, "calendar %d: %s", c + 1, err);
		cc_event_list_finish(&l);
		ms[r] = now_ms() - t0;
		count = l.n;
		cc_event_list_release(&l);
	}
	qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
	printf("ics-expand: a year of a daily rule in 5 calendars: %zu occurrences, "
	    "best %.2f ms, median %.2f ms over %d runs (parsing the 5: %.2f ms)\n",
	    count, ms[0], ms[runs / 2], runs, parse_ms);
	free(ms);
	for (int c = 0; c < 5; c++)
		cc_ics_free(cal[c]);
	cc_ics_cleanup();
	/* a year is 365 days; the zones shift at most one occurrence each way */
	return count >= 5 * 364 && count <= 5 * 366 ? 0 : 1;
}
