/*
 * cc_ics.h: iCalendar (RFC 5545, through libical): parsing with limits
 * against hostile calendars, and bounded expansion of recurrences into
 * event occurrences.
 *
 * Owns: the parsed calendar and the strings its events point to; the
 * event lists that hold occurrences.  Borrows: cc_time for local dates.
 */
#ifndef CC_ICS_H
#define CC_ICS_H

#include <stddef.h>
#include <time.h>

/*
 * One occurrence of an event, as cc_ics_expand() and the connpass client
 * produce them.  Strings belong to the source (the calendar) and live as
 * long as it does.
 */
struct cc_event {
	time_t start, end;		/* end == start when no end was given */
	int all_day;
	int has_end;
	const char *title, *description, *location, *url;
	const char *source;		/* the source's name */
	unsigned order;			/* the source's position, for ties */
};

struct cc_event_list {
	struct cc_event *v;
	size_t n, cap;
};
void cc_event_list_add(struct cc_event_list *l, const struct cc_event *e);
void cc_event_list_release(struct cc_event_list *l);
/* Sort chronologically and drop duplicates (same folded title and start
 * time; the first source wins and lends missing fields). */
void cc_event_list_finish(struct cc_event_list *l);

/*
 * Limits that keep hostile calendars from hanging or exhausting memory:
 * a file larger than max_bytes, nested deeper than max_depth or with
 * more than max_events events is refused; one expansion stops after
 * max_occurrences occurrences or max_steps recurrence steps (and says
 * so).
 */
struct cc_ics_limits {
	size_t max_bytes;		/* 0: 8 MiB */
	int max_depth;			/* 0: 16 */
	size_t max_events;		/* 0: 50000 VEVENTs */
	size_t max_occurrences;		/* 0: 10000 */
	size_t max_steps;		/* 0: 200000 */
};

struct cc_ics;			/* a parsed calendar */

/*
 * Parse iCalendar text (RFC 5545).  `name` labels its events.  Returns
 * NULL with a message in err when the text is not a calendar or breaks a
 * limit.  Times without a zone (floating, all-day) are local to CC_TZ.
 */
struct cc_ics *cc_ics_parse(const char *text, size_t len, const char *name,
	const struct cc_ics_limits *lim, char *err, size_t errlen);
/* Read and parse a file; NULL with err set (errno kept for open errors). */
struct cc_ics *cc_ics_load(const char *path, const char *name,
	const struct cc_ics_limits *lim, char *err, size_t errlen);
/*
 * Append the occurrences overlapping [start, end) to out: RRULE (bounded
 * to the range), RDATE, EXDATE, EXRULE, RECURRENCE-ID overrides, and
 * STATUS:CANCELLED removed.  With end == 0, the first `upcoming`
 * occurrences from start on (within a year).  Returns 0, or -1 when a
 * limit stopped the expansion (err says which; what was found is kept).
 */
int cc_ics_expand(struct cc_ics *cal, time_t start, time_t end,
	size_t upcoming, struct cc_event_list *out, char *err, size_t errlen);
/* Events (masters and overrides) in the calendar. */
size_t cc_ics_count(const struct cc_ics *cal);
void cc_ics_free(struct cc_ics *cal);
/* Free libical's time-zone cache (at exit, for leak checkers). */
void cc_ics_cleanup(void);

#endif
