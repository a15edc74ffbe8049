/*
 * cc_time.h: dates and time expressions: local dates in CC_TZ, date
 * arithmetic, and the time range a question asks about (cc-event(1)
 * lists the expressions).
 *
 * Owns: nothing beyond its results.  Borrows: the C library's tz database
 * (cc_tz_use sets TZ for the process) and cc_text for folding.
 */
#ifndef CC_TIME_H
#define CC_TIME_H

#include <stddef.h>
#include <time.h>

/*
 * Dates that people mean ("tomorrow", "next week") are local dates in one
 * IANA time zone, CC_TZ.  The library computes them with the C library's
 * tz database: cc_tz_use() puts the zone in TZ for the whole process, so
 * call it once at start-up, before anything reads local time.  Date
 * arithmetic itself (cc_date_add, weekdays, month lengths) is pure
 * proleptic Gregorian and never consults the zone.
 */
int cc_tz_use(const char *name);	/* 0, or -1 for an unknown zone */

struct cc_date {
	int year, month, day;		/* month 1-12, day 1-31 */
};
/* The local date of t in the zone set by cc_tz_use(). */
struct cc_date cc_date_of(time_t t);
/* ISO weekday: 1 Monday ... 7 Sunday. */
int cc_date_weekday(struct cc_date d);
struct cc_date cc_date_add(struct cc_date d, int days);
/* Days from a to b (b - a). */
long cc_date_diff(struct cc_date a, struct cc_date b);
int cc_date_cmp(struct cc_date a, struct cc_date b);
int cc_days_in_month(int year, int month);
/* Days since 1970-01-01 of a proleptic Gregorian date. */
long cc_days_from_civil(int y, int m, int d);
/*
 * The instant a local wall-clock time begins: cc_date_start() is local
 * midnight (or the first instant of the day where a DST change skips
 * midnight); cc_local_time() any hour and minute of the date.
 */
time_t cc_date_start(struct cc_date d);
time_t cc_local_time(struct cc_date d, int hour, int minute);
/* t as local ISO 8601 with offset: "2025-01-15T10:00:00+09:00". */
#define CC_TIME_ISO_MAX 32
void cc_time_format(time_t t, char out[CC_TIME_ISO_MAX]);

/*
 * The range a question asks about.  spec is the specification's four-value
 * TimeRange ("today", "thisWeek", "nextWeek", "thisMonth"): the smallest of
 * the four that contains the asked range, "thisWeek" when no time is named
 * or the range is open ("the next event"), NULL when none contains it (next
 * month).  kind says the range precisely (the names of
 * ../shared/eval/README.md section 4): one of the four above, or
 * tomorrow, dayAfterTomorrow, yesterday, thisWeekend, nextWeekend,
 * weekAfterNext, lastWeek, nextMonth, month, thisYear, nextYear, weekday, date,
 * nextNDays, range, nextUpcoming.  Weeks are ISO weeks, Monday to Sunday.
 */
struct cc_time_range {
	const char *spec;		/* static string or NULL */
	const char *kind;		/* static string */
	time_t start;			/* inclusive */
	time_t end;			/* exclusive; 0 when open */
	int open;			/* nextUpcoming: from start, no end */
	int implicit;			/* no time named: the spec's default */
	struct cc_date first, last;	/* the local dates covered, inclusive */
	int weekday;			/* kind weekday: 1 Monday ... 7 Sunday */
	int days;			/* kind nextNDays */
	int month_year, month;		/* kind month */
	const char *part_of_day;	/* "morning", "afternoon", "evening",
					   "night" or NULL */
	char title[128];		/* nextUpcoming: the event asked for */
	char expression[128];		/* the words that decided (folded) */
};

/*
 * Read the time range asked in UTF-8 text q[0..len), relative to `now`,
 * in the zone set by cc_tz_use().  Never fails: with no time named the
 * result is this week, implicit.
 */
void cc_time_extract(const char *q, size_t len, time_t now,
	struct cc_time_range *r);
/* ISO weekday 1-7 to "monday" ... "sunday". */
const char *cc_weekday_name(int weekday);

#endif
