/*
 * Unit tests of the event library: local dates, time expressions (with a
 * frozen clock, in both languages, across month, year and DST changes),
 * iCalendar recurrence (RFC 5545), hostile calendars, and HTTP helpers.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_config.h"
#include "cc_json.h"
#include "cc_time.h"
#include "cc_http.h"
#include "cc_ics.h"
#include "tap.h"

static time_t
at(const char *iso)
{
	time_t t = 0;

	if (cc_time_parse_iso8601(iso, &t) < 0)
		printf("# bad test time %s\n", iso);
	return t;
}

/* ---- dates ---- */

static void
test_dates(void)
{
	struct cc_date d = { 2024, 2, 28 };

	is_int(cc_date_weekday((struct cc_date){ 2025, 1, 15 }), 3, "2025-01-15 is a Wednesday");
	is_int(cc_date_weekday((struct cc_date){ 2025, 1, 19 }), 7, "2025-01-19 is a Sunday");
	d = cc_date_add(d, 1);
	ok(d.month == 2 && d.day == 29, "2024 is a leap year");
	d = cc_date_add((struct cc_date){ 2025, 12, 31 }, 1);
	ok(d.year == 2026 && d.month == 1 && d.day == 1, "a year ends");
	is_int(cc_date_diff((struct cc_date){ 2025, 1, 1 }, (struct cc_date){ 2026, 1, 1 }), 365,
	    "365 days in 2025");
	is_int(cc_days_in_month(2100, 2), 28, "2100 is not a leap year");
	is_int(cc_days_in_month(2000, 2), 29, "2000 is a leap year");
	ok(cc_tz_use("No/Such_Zone") < 0, "an unknown zone is refused");
	ok(cc_tz_use("../../etc/passwd") < 0, "a path out of the zone directory is refused");
	ok(cc_tz_use("JST-9") == 0, "a POSIX TZ string is accepted");
	ok(cc_tz_use("Asia/Tokyo") == 0, "Asia/Tokyo is known");
	{
		char t[CC_TIME_ISO_MAX];

		cc_time_format(at("2025-01-15T01:00:00Z"), t);
		is_str(t, "2025-01-15T10:00:00+09:00", "local time with its offset");
	}
}

/* ---- time expressions ---- */

/*
 * range_is(now, query, spec, kind, start, end): start and end as local
 * ISO text; end NULL for an open range.
 */
static void
range_is(const char *now, const char *q, const char *spec, const char *kind,
    const char *start, const char *end)
{
	struct cc_time_range r;
	char s[CC_TIME_ISO_MAX], e[CC_TIME_ISO_MAX] = "null";

	cc_time_extract(q, strlen(q), at(now), &r);
	cc_time_format(r.start, s);
	if (!r.open)
		cc_time_format(r.end, e);
	ok((spec ? r.spec && strcmp(spec, r.spec) == 0 : !r.spec) &&
	    strcmp(kind, r.kind) == 0 && strcmp(start, s) == 0 &&
	    strcmp(end ? end : "null", e) == 0,
	    "'%s' at %.10s: %s %s %s..%s (got %s %s %s..%s)", q, now,
	    spec ? spec : "null", kind, start, end ? end : "null",
	    r.spec ? r.spec : "null", r.kind, s, e);
}

#define WED "2025-01-15T10:00:00+09:00"

static void
test_expressions(void)
{
	cc_tz_use("Asia/Tokyo");
	/* the spec's four, and its default */
	range_is(WED, "今日のイベントは？", "today", "today",
	    "2025-01-15T00:00:00+09:00", "2025-01-16T00:00:00+09:00");
	range_is(WED, "What events are scheduled this week?", "thisWeek", "thisWeek",
	    "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "来週の勉強会を教えて", "nextWeek", "nextWeek",
	    "2025-01-20T00:00:00+09:00", "2025-01-27T00:00:00+09:00");
	range_is(WED, "今月のイベントはありますか？", "thisMonth", "thisMonth",
	    "2025-01-01T00:00:00+09:00", "2025-02-01T00:00:00+09:00");
	range_is(WED, "イベントある？", "thisWeek", "thisWeek",
	    "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	/* tomorrow, the day after */
	range_is(WED, "明日のイベント", "thisWeek", "tomorrow",
	    "2025-01-16T00:00:00+09:00", "2025-01-17T00:00:00+09:00");
	range_is(WED, "anything tomorrow?", "thisWeek", "tomorrow",
	    "2025-01-16T00:00:00+09:00", "2025-01-17T00:00:00+09:00");
	range_is(WED, "明後日は？", "thisWeek", "dayAfterTomorrow",
	    "2025-01-17T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "the day after tomorrow", "thisWeek", "dayAfterTomorrow",
	    "2025-01-17T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	/* weekends: 今週末 contains 今週, "this weekend" contains "this week" */
	range_is(WED, "今週末のイベント", "thisWeek", "thisWeekend",
	    "2025-01-18T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "this weekend?", "thisWeek", "thisWeekend",
	    "2025-01-18T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "来週末", "nextWeek", "nextWeekend",
	    "2025-01-25T00:00:00+09:00", "2025-01-27T00:00:00+09:00");
	range_is(WED, "next weekend", "nextWeek", "nextWeekend",
	    "2025-01-25T00:00:00+09:00", "2025-01-27T00:00:00+09:00");
	/* 再来週 contains 来週 */
	range_is(WED, "再来週のイベント", NULL, "weekAfterNext",
	    "2025-01-27T00:00:00+09:00", "2025-02-03T00:00:00+09:00");
	range_is(WED, "the week after next", NULL, "weekAfterNext",
	    "2025-01-27T00:00:00+09:00", "2025-02-03T00:00:00+09:00");
	range_is(WED, "来月のイベント", NULL, "nextMonth",
	    "2025-02-01T00:00:00+09:00", "2025-03-01T00:00:00+09:00");
	range_is(WED, "events next month", NULL, "nextMonth",
	    "2025-02-01T00:00:00+09:00", "2025-03-01T00:00:00+09:00");
	/* dates */
	range_is(WED, "1月20日のイベント", "nextWeek", "date",
	    "2025-01-20T00:00:00+09:00", "2025-01-21T00:00:00+09:00");
	range_is(WED, "What's on Jan 20?", "nextWeek", "date",
	    "2025-01-20T00:00:00+09:00", "2025-01-21T00:00:00+09:00");
	range_is(WED, "1/20の勉強会", "nextWeek", "date",
	    "2025-01-20T00:00:00+09:00", "2025-01-21T00:00:00+09:00");
	range_is(WED, "events on 1/20?", "nextWeek", "date",
	    "2025-01-20T00:00:00+09:00", "2025-01-21T00:00:00+09:00");
	/* weekdays and parts of the day */
	range_is(WED, "金曜の夜のイベント", "thisWeek", "weekday",
	    "2025-01-17T17:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "Friday night?", "thisWeek", "weekday",
	    "2025-01-17T17:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "next Friday's meetup", "nextWeek", "weekday",
	    "2025-01-24T00:00:00+09:00", "2025-01-25T00:00:00+09:00");
	range_is(WED, "月曜のイベント", "nextWeek", "weekday",
	    "2025-01-20T00:00:00+09:00", "2025-01-21T00:00:00+09:00");
	range_is(WED, "今夜のイベント", "today", "today",
	    "2025-01-15T17:00:00+09:00", "2025-01-16T00:00:00+09:00");
	range_is(WED, "anything tonight?", "today", "today",
	    "2025-01-15T17:00:00+09:00", "2025-01-16T00:00:00+09:00");
	/* rolling ranges and the next event */
	range_is(WED, "今日から1週間のイベント", "thisMonth", "nextNDays",
	    "2025-01-15T00:00:00+09:00", "2025-01-22T00:00:00+09:00");
	range_is(WED, "events in the next 7 days", "thisMonth", "nextNDays",
	    "2025-01-15T00:00:00+09:00", "2025-01-22T00:00:00+09:00");
	/* today only qualifies a duration; N days from now is one date */
	range_is(WED, "next 3 days incl today", "thisWeek", "nextNDays",
	    "2025-01-15T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "今日を含めて3日間", "thisWeek", "nextNDays",
	    "2025-01-15T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "3 days from now", "thisWeek", "date",
	    "2025-01-18T00:00:00+09:00", "2025-01-19T00:00:00+09:00");
	range_is(WED, "今日から4日後", "thisWeek", "date",
	    "2025-01-19T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "the week after this week", "nextWeek", "nextWeek",
	    "2025-01-20T00:00:00+09:00", "2025-01-27T00:00:00+09:00");
	range_is(WED, "今日以降で次の講習会はいつ？", "thisWeek", "nextUpcoming",
	    "2025-01-15T10:00:00+09:00", NULL);
	range_is(WED, "次のイベントはいつ？", "thisWeek", "nextUpcoming",
	    "2025-01-15T10:00:00+09:00", NULL);
	range_is(WED, "When is the next event?", "thisWeek", "nextUpcoming",
	    "2025-01-15T10:00:00+09:00", NULL);
	/* traps of a literal port */
	range_is(WED, "Today I Learned勉強会は今月ありますか", "thisMonth", "thisMonth",
	    "2025-01-01T00:00:00+09:00", "2025-02-01T00:00:00+09:00");
	range_is(WED, "I'm busy today — anything tomorrow?", "thisWeek", "tomorrow",
	    "2025-01-16T00:00:00+09:00", "2025-01-17T00:00:00+09:00");
	range_is(WED, "今週じゃなくて来週", "nextWeek", "nextWeek",
	    "2025-01-20T00:00:00+09:00", "2025-01-27T00:00:00+09:00");
	range_is(WED, "Not this week — next week's events, please", "nextWeek", "nextWeek",
	    "2025-01-20T00:00:00+09:00", "2025-01-27T00:00:00+09:00");
	range_is(WED, "今週と来週のイベント", "thisMonth", "range",
	    "2025-01-13T00:00:00+09:00", "2025-01-27T00:00:00+09:00");
	range_is(WED, "ＴＯＭＯＲＲＯＷ", "thisWeek", "tomorrow",
	    "2025-01-16T00:00:00+09:00", "2025-01-17T00:00:00+09:00");
	range_is(WED, "あしたのべんきょうかい", "thisWeek", "tomorrow",
	    "2025-01-16T00:00:00+09:00", "2025-01-17T00:00:00+09:00");
	range_is(WED, "open 24/7?", "thisWeek", "thisWeek",
	    "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	/* the rest of this week without today: tomorrow to Sunday */
	range_is(WED, "今日以外で今週のイベント", "thisWeek", "range",
	    "2025-01-16T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "can't make it today, anything later this week?", "thisWeek", "range",
	    "2025-01-16T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	/* ... on a Sunday nothing is left: the week stays as asked */
	range_is("2025-01-19T10:00:00+09:00", "今日以外で今週", "thisWeek", "thisWeek",
	    "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	/* a today that counts is not a today left out */
	range_is(WED, "next 3 days incl today", "thisWeek", "nextNDays",
	    "2025-01-15T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	/* weekdays of a week: Monday to Friday; "weekdays" is no typo of weekday */
	range_is(WED, "来週の平日だけ", "nextWeek", "range",
	    "2025-01-20T00:00:00+09:00", "2025-01-25T00:00:00+09:00");
	range_is(WED, "events on weekdays this week", "thisWeek", "range",
	    "2025-01-13T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "What weekday is the meetup next week?", "nextWeek", "nextWeek",
	    "2025-01-20T00:00:00+09:00", "2025-01-27T00:00:00+09:00");
	range_is("2025-01-30T10:00:00+09:00", "weekdays next week", "nextWeek", "range",
	    "2025-02-03T00:00:00+09:00", "2025-02-08T00:00:00+09:00");
	/* two months said with one unit, and across a year */
	range_is(WED, "this mnth or nxt", NULL, "range",
	    "2025-01-01T00:00:00+09:00", "2025-03-01T00:00:00+09:00");
	range_is("2025-12-30T10:00:00+09:00", "this month or next?", NULL, "range",
	    "2025-12-01T00:00:00+09:00", "2026-02-01T00:00:00+09:00");
	range_is(WED, "this month or next week", "thisMonth", "range",
	    "2025-01-01T00:00:00+09:00", "2025-02-01T00:00:00+09:00");

	/* across a month: Thursday 30 January */
	range_is("2025-01-30T10:00:00+09:00", "来週", "nextWeek", "nextWeek",
	    "2025-02-03T00:00:00+09:00", "2025-02-10T00:00:00+09:00");
	range_is("2025-01-30T10:00:00+09:00", "day after tomorrow", "thisWeek", "dayAfterTomorrow",
	    "2025-02-01T00:00:00+09:00", "2025-02-02T00:00:00+09:00");
	range_is("2025-01-30T10:00:00+09:00", "今週末", "thisWeek", "thisWeekend",
	    "2025-02-01T00:00:00+09:00", "2025-02-03T00:00:00+09:00");
	range_is("2025-01-30T10:00:00+09:00", "5日のイベント", "nextWeek", "date",
	    "2025-02-05T00:00:00+09:00", "2025-02-06T00:00:00+09:00");
	range_is("2025-01-31T10:00:00+09:00", "来月", NULL, "nextMonth",
	    "2025-02-01T00:00:00+09:00", "2025-03-01T00:00:00+09:00");
	/* across a year: Tuesday 30 December */
	range_is("2025-12-30T10:00:00+09:00", "今週のイベント", "thisWeek", "thisWeek",
	    "2025-12-29T00:00:00+09:00", "2026-01-05T00:00:00+09:00");
	range_is("2025-12-30T10:00:00+09:00", "next week", "nextWeek", "nextWeek",
	    "2026-01-05T00:00:00+09:00", "2026-01-12T00:00:00+09:00");
	range_is("2025-12-30T10:00:00+09:00", "明後日", "thisWeek", "dayAfterTomorrow",
	    "2026-01-01T00:00:00+09:00", "2026-01-02T00:00:00+09:00");
	range_is("2025-12-30T10:00:00+09:00", "来月のイベント", NULL, "nextMonth",
	    "2026-01-01T00:00:00+09:00", "2026-02-01T00:00:00+09:00");
	range_is("2025-12-30T10:00:00+09:00", "1月5日", "nextWeek", "date",
	    "2026-01-05T00:00:00+09:00", "2026-01-06T00:00:00+09:00");
	range_is("2025-12-30T10:00:00+09:00", "Jan 9th", "nextWeek", "date",
	    "2026-01-09T00:00:00+09:00", "2026-01-10T00:00:00+09:00");
	range_is("2025-12-30T10:00:00+09:00", "this year", NULL, "thisYear",
	    "2025-01-01T00:00:00+09:00", "2026-01-01T00:00:00+09:00");

	/* daylight saving: America/New_York springs forward 9 March 2025 */
	ok(cc_tz_use("America/New_York") == 0, "America/New_York is known");
	range_is("2025-03-06T10:00:00-05:00", "this weekend", "thisWeek", "thisWeekend",
	    "2025-03-08T00:00:00-05:00", "2025-03-10T00:00:00-04:00");
	range_is("2025-03-06T10:00:00-05:00", "next week", "nextWeek", "nextWeek",
	    "2025-03-10T00:00:00-04:00", "2025-03-17T00:00:00-04:00");
	range_is("2025-03-06T10:00:00-05:00", "日曜日のイベント", "thisWeek", "weekday",
	    "2025-03-09T00:00:00-05:00", "2025-03-10T00:00:00-04:00");
	range_is("2025-03-06T10:00:00-05:00", "today", "today", "today",
	    "2025-03-06T00:00:00-05:00", "2025-03-07T00:00:00-05:00");
	/* ... and falls back 2 November */
	range_is("2025-10-30T10:00:00-04:00", "週末", "thisWeek", "thisWeekend",
	    "2025-11-01T00:00:00-04:00", "2025-11-03T00:00:00-05:00");
	range_is("2025-10-30T10:00:00-04:00", "the next 7 days", NULL, "nextNDays",
	    "2025-10-30T00:00:00-04:00", "2025-11-06T00:00:00-05:00");
	/* late at night in UTC is already tomorrow in New York's east? no: west */
	range_is("2025-03-07T03:00:00Z", "today", "today", "today",
	    "2025-03-06T00:00:00-05:00", "2025-03-07T00:00:00-05:00");
	/* Europe/Berlin: 30 March 2025 */
	ok(cc_tz_use("Europe/Berlin") == 0, "Europe/Berlin is known");
	range_is("2025-03-27T12:00:00+01:00", "今週末", "thisWeek", "thisWeekend",
	    "2025-03-29T00:00:00+01:00", "2025-03-31T00:00:00+02:00");
	range_is("2025-03-27T12:00:00+01:00", "Sunday evening", "thisWeek", "weekday",
	    "2025-03-30T17:00:00+02:00", "2025-03-31T00:00:00+02:00");
	cc_tz_use("Asia/Tokyo");
}

/* A day said and taken back; a month named by a word that is also a verb. */
static void
test_corrections(void)
{
	/* the corrected day alone, in the week of the one it corrects */
	range_is(WED, "来週の火曜、いや金曜のイベントは？", "nextWeek", "weekday",
	    "2025-01-24T00:00:00+09:00", "2025-01-25T00:00:00+09:00");
	range_is(WED, "next Tuesday, no, Wednesday", "nextWeek", "weekday",
	    "2025-01-22T00:00:00+09:00", "2025-01-23T00:00:00+09:00");
	range_is(WED, "Tuesday, no wait, Thursday", "thisWeek", "weekday",
	    "2025-01-16T00:00:00+09:00", "2025-01-17T00:00:00+09:00");
	range_is(WED, "明日、あ、違った、明後日", "thisWeek", "dayAfterTomorrow",
	    "2025-01-17T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "today, sorry, I mean this week", "thisWeek", "thisWeek",
	    "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	/* words with a small っ, as the folded text spells them */
	range_is(WED, "明日って言ったけど明後日のイベント", "thisWeek", "dayAfterTomorrow",
	    "2025-01-17T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "明日、っていうか明後日", "thisWeek", "dayAfterTomorrow",
	    "2025-01-17T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	/* not corrections: a union, a negation, a span */
	range_is(WED, "Monday or Tuesday?", "nextWeek", "range",
	    "2025-01-20T00:00:00+09:00", "2025-01-22T00:00:00+09:00");
	range_is(WED, "Tuesday, not Wednesday", "nextWeek", "weekday",
	    "2025-01-21T00:00:00+09:00", "2025-01-22T00:00:00+09:00");
	range_is(WED, "from Monday to Friday", "nextWeek", "range",
	    "2025-01-20T00:00:00+09:00", "2025-01-25T00:00:00+09:00");
	/* March and May: months before events, alone, or capitalised inside a
	 * sentence; not verbs */
	range_is(WED, "March events?", NULL, "month",
	    "2025-03-01T00:00:00+09:00", "2025-04-01T00:00:00+09:00");
	range_is(WED, "May?", NULL, "month",
	    "2025-05-01T00:00:00+09:00", "2025-06-01T00:00:00+09:00");
	range_is(WED, "anything happening March?", NULL, "month",
	    "2025-03-01T00:00:00+09:00", "2025-04-01T00:00:00+09:00");
	range_is(WED, "May I join the event?", "thisWeek", "thisWeek",
	    "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "Can we march in with the band?", "thisWeek", "thisWeek",
	    "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
}

/* Issue 15, a ninth set's kinds: a week's two days, kanji days of the
 * month, tomorrow typed short, "by the end of the week", N days from a day */
static void
test_days_said_otherwise(void)
{
	cc_tz_use("Asia/Tokyo");
	range_is(WED, "来週の水曜と木曜のイベント", "nextWeek", "range",
	    "2025-01-22T00:00:00+09:00", "2025-01-24T00:00:00+09:00");
	range_is(WED, "next Wed or Fri?", "nextWeek", "range",
	    "2025-01-22T00:00:00+09:00", "2025-01-25T00:00:00+09:00");
	range_is(WED, "金曜と土曜は？", "thisWeek", "range",
	    "2025-01-17T00:00:00+09:00", "2025-01-19T00:00:00+09:00");
	range_is(WED, "二十日のイベント", "nextWeek", "date",
	    "2025-01-20T00:00:00+09:00", "2025-01-21T00:00:00+09:00");
	range_is(WED, "十四日は？", NULL, "date",
	    "2025-02-14T00:00:00+09:00", "2025-02-15T00:00:00+09:00");
	range_is(WED, "15日のイベント", "today", "date",
	    "2025-01-15T00:00:00+09:00", "2025-01-16T00:00:00+09:00");
	range_is(WED, "はつかに何かある？", "nextWeek", "date",
	    "2025-01-20T00:00:00+09:00", "2025-01-21T00:00:00+09:00");
	range_is(WED, "ついたちのセミナー", NULL, "date",
	    "2025-02-01T00:00:00+09:00", "2025-02-02T00:00:00+09:00");
	/* counts of days, not days of the month */
	range_is(WED, "一日だけ参加したい", "thisWeek", "thisWeek",
	    "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "三日間のワークショップ", "thisWeek", "thisWeek",
	    "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "一日中いられますか", "thisWeek", "thisWeek",
	    "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "day after tmrw?", "thisWeek", "dayAfterTomorrow",
	    "2025-01-17T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "the day after tmr", "thisWeek", "dayAfterTomorrow",
	    "2025-01-17T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "tmrw?", "thisWeek", "tomorrow",
	    "2025-01-16T00:00:00+09:00", "2025-01-17T00:00:00+09:00");
	range_is(WED, "events by the end of the week", "thisWeek", "range",
	    "2025-01-15T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "until the weekend?", "thisWeek", "range",
	    "2025-01-15T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "金曜から3日間", "thisWeek", "range",
	    "2025-01-17T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
	range_is(WED, "for 2 days from Thursday", "thisWeek", "range",
	    "2025-01-16T00:00:00+09:00", "2025-01-18T00:00:00+09:00");
	range_is(WED, "20日から2日間", "nextWeek", "range",
	    "2025-01-20T00:00:00+09:00", "2025-01-22T00:00:00+09:00");
	/* weekdays by one kanji, listed with ・; a third one of the same week */
	range_is(WED, "来週の水・木は？", "nextWeek", "range",
	    "2025-01-22T00:00:00+09:00", "2025-01-24T00:00:00+09:00");
	range_is(WED, "来週の月・水・金", "nextWeek", "range",
	    "2025-01-20T00:00:00+09:00", "2025-01-25T00:00:00+09:00");
	range_is(WED, "2月・3月のイベント", NULL, "range",
	    "2025-02-01T00:00:00+09:00", "2025-04-01T00:00:00+09:00");
	range_is(WED, "二十日って何かある？", "nextWeek", "date",
	    "2025-01-20T00:00:00+09:00", "2025-01-21T00:00:00+09:00");
	range_is(WED, "今週中のイベント", "thisWeek", "range",
	    "2025-01-15T00:00:00+09:00", "2025-01-20T00:00:00+09:00");
}

static void
test_extras(void)
{
	struct cc_time_range r;
	const char *q;

	q = "次のもくもく会はいつ？";
	cc_time_extract(q, strlen(q), at(WED), &r);
	is_str(r.title, "もくもく会", "the next occurrence of a named event");
	q = "When is the next Engineer Cafe Meetup?";
	cc_time_extract(q, strlen(q), at(WED), &r);
	is_str(r.title, "Engineer Cafe Meetup", "the English title");
	q = "次のハッカソンはいつ？";
	cc_time_extract(q, strlen(q), at(WED), &r);
	is_str(r.title, "ハッカソン", "katakana titles keep their spelling");
	q = "金曜の夜";
	cc_time_extract(q, strlen(q), at(WED), &r);
	ok(r.weekday == 5 && r.part_of_day && strcmp(r.part_of_day, "night") == 0,
	    "weekday and part of the day are reported");
	q = "2月のイベント";
	cc_time_extract(q, strlen(q), at(WED), &r);
	ok(strcmp(r.kind, "month") == 0 && r.month_year == 2025 && r.month == 2,
	    "a named month");
	q = "向こう3日間";
	cc_time_extract(q, strlen(q), at(WED), &r);
	ok(strcmp(r.kind, "nextNDays") == 0 && r.days == 3, "three days from today");
	q = "来週の水曜のもくもく会";
	cc_time_extract(q, strlen(q), at(WED), &r);
	is_str(r.expression, "来週の水曜", "the words that decided");
	q = "";
	cc_time_extract(q, 0, at(WED), &r);
	ok(r.implicit && strcmp(r.kind, "thisWeek") == 0, "an empty query is this week");
	q = "\xff\xfe 今日";
	cc_time_extract(q, strlen(q), at(WED), &r);
	is_str(r.kind, "today", "invalid UTF-8 around a time word");
}

/* ---- iCalendar ---- */

static const char recur_ics[] =
	"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
	/* COUNT */
	"BEGIN:VEVENT\r\nUID:count\r\nSUMMARY:count\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250106T100000\r\nDURATION:PT1H\r\n"
	"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3\r\nEND:VEVENT\r\n"
	/* UNTIL, in UTC */
	"BEGIN:VEVENT\r\nUID:until\r\nSUMMARY:until\r\n"
	"DTSTART:20250101T090000Z\r\nDTEND:20250101T093000Z\r\n"
	"RRULE:FREQ=DAILY;UNTIL=20250104T090000Z\r\nEND:VEVENT\r\n"
	/* the last Friday */
	"BEGIN:VEVENT\r\nUID:lastfri\r\nSUMMARY:lastfri\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250131T190000\r\n"
	"RRULE:FREQ=MONTHLY;BYDAY=-1FR\r\nEND:VEVENT\r\n"
	/* the second Monday */
	"BEGIN:VEVENT\r\nUID:secondmon\r\nSUMMARY:secondmon\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250113T190000\r\n"
	"RRULE:FREQ=MONTHLY;BYDAY=2MO\r\nEND:VEVENT\r\n"
	/* BYMONTHDAY=31 skips short months */
	"BEGIN:VEVENT\r\nUID:day31\r\nSUMMARY:day31\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250131T120000\r\n"
	"RRULE:FREQ=MONTHLY;BYMONTHDAY=31\r\nEND:VEVENT\r\n"
	/* BYSETPOS: the last weekday of the month */
	"BEGIN:VEVENT\r\nUID:setpos\r\nSUMMARY:setpos\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250131T090000\r\n"
	"RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1\r\nEND:VEVENT\r\n"
	/* EXDATE */
	"BEGIN:VEVENT\r\nUID:exdate\r\nSUMMARY:exdate\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250101T190000\r\n"
	"RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=5\r\n"
	"EXDATE;TZID=Asia/Tokyo:20250115T190000\r\nEND:VEVENT\r\n"
	/* RECURRENCE-ID: one moved, one cancelled */
	"BEGIN:VEVENT\r\nUID:moved\r\nSUMMARY:moved\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250102T120000\r\n"
	"RRULE:FREQ=WEEKLY;COUNT=5\r\nEND:VEVENT\r\n"
	"BEGIN:VEVENT\r\nUID:moved\r\nSUMMARY:moved\r\n"
	"RECURRENCE-ID;TZID=Asia/Tokyo:20250109T120000\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250110T130000\r\nEND:VEVENT\r\n"
	"BEGIN:VEVENT\r\nUID:moved\r\nSUMMARY:moved\r\nSTATUS:CANCELLED\r\n"
	"RECURRENCE-ID;TZID=Asia/Tokyo:20250116T120000\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250116T120000\r\nEND:VEVENT\r\n"
	/* RDATE */
	"BEGIN:VEVENT\r\nUID:rdate\r\nSUMMARY:rdate\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250105T100000\r\n"
	"RDATE;TZID=Asia/Tokyo:20250112T100000,20250119T100000\r\nEND:VEVENT\r\n"
	/* all day, two days */
	"BEGIN:VEVENT\r\nUID:allday\r\nSUMMARY:allday\r\n"
	"DTSTART;VALUE=DATE:20250111\r\nDTEND;VALUE=DATE:20250113\r\nEND:VEVENT\r\n"
	/* floating: local to CC_TZ */
	"BEGIN:VEVENT\r\nUID:floating\r\nSUMMARY:floating\r\n"
	"DTSTART:20250114T080000\r\nEND:VEVENT\r\n"
	/* a cancelled series */
	"BEGIN:VEVENT\r\nUID:gone\r\nSUMMARY:gone\r\nSTATUS:CANCELLED\r\n"
	"DTSTART;TZID=Asia/Tokyo:20250101T100000\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\n"
	/* folded, escaped, non-ASCII text */
	"BEGIN:VEVENT\r\nUID:text\r\nSUMMARY:勉強会\\, 第1回 / Study\r\n  session\r\n"
	"DESCRIPTION:一行目\\n二行目\r\nDTSTART;TZID=Asia/Tokyo:20250125T100000\r\n"
	"END:VEVENT\r\n"
	"END:VCALENDAR\r\n";

/* The occurrences of events titled `title` in [from, to), as MM-DDTHH:MM. */
static char *
occurrences(struct cc_ics *cal, const char *from, const char *to, const char *title)
{
	struct cc_event_list l = {0};
	struct cc_buf b = {0};
	char err[200];

	cc_ics_expand(cal, at(from), to ? at(to) : 0, 5, &l, err, sizeof err);
	cc_event_list_finish(&l);
	for (size_t i = 0; i < l.n; i++) {
		char t[CC_TIME_ISO_MAX];

		if (title && (!l.v[i].title || strcmp(l.v[i].title, title) != 0))
			continue;
		cc_time_format(l.v[i].start, t);
		if (b.len)
			cc_buf_add(&b, " ", 1);
		cc_buf_add(&b, t + 5, 11);
	}
	cc_event_list_release(&l);
	if (!b.data)
		cc_buf_add(&b, "", 0);
	return b.data;
}

static void
occ_is(struct cc_ics *cal, const char *from, const char *to, const char *title,
    const char *want, const char *what)
{
	char *got = occurrences(cal, from, to, title);

	is_str(got, want, "%s", what);
	free(got);
}

#define Y0 "2025-01-01T00:00:00+09:00"
#define Y1 "2025-09-01T00:00:00+09:00"

static void
test_ics(void)
{
	char err[200] = "";
	struct cc_ics *cal;
	struct cc_event_list l = {0};

	cc_tz_use("Asia/Tokyo");
	cal = cc_ics_parse(recur_ics, strlen(recur_ics), "t.ics", NULL, err, sizeof err);
	ok(cal != NULL, "the test calendar parses (%s)", err);
	if (!cal)
		return;
	occ_is(cal, Y0, Y1, "count", "01-06T10:00 01-13T10:00 01-20T10:00", "COUNT=3");
	occ_is(cal, Y0, Y1, "until", "01-01T18:00 01-02T18:00 01-03T18:00 01-04T18:00",
	    "UNTIL in UTC, shown in Tokyo");
	occ_is(cal, Y0, "2025-05-01T00:00:00+09:00", "lastfri",
	    "01-31T19:00 02-28T19:00 03-28T19:00 04-25T19:00", "BYDAY=-1FR");
	occ_is(cal, Y0, "2025-04-01T00:00:00+09:00", "secondmon",
	    "01-13T19:00 02-10T19:00 03-10T19:00", "BYDAY=2MO");
	occ_is(cal, Y0, Y1, "day31", "01-31T12:00 03-31T12:00 05-31T12:00 07-31T12:00 08-31T12:00",
	    "BYMONTHDAY=31 skips short months");
	occ_is(cal, Y0, "2025-05-01T00:00:00+09:00", "setpos",
	    "01-31T09:00 02-28T09:00 03-31T09:00 04-30T09:00", "BYSETPOS=-1 weekday");
	occ_is(cal, Y0, Y1, "exdate", "01-01T19:00 01-08T19:00 01-22T19:00 01-29T19:00",
	    "EXDATE removes one of COUNT=5");
	occ_is(cal, Y0, Y1, "moved", "01-02T12:00 01-10T13:00 01-23T12:00 01-30T12:00",
	    "RECURRENCE-ID moves one and cancels one");
	occ_is(cal, "2025-01-10T00:00:00+09:00", "2025-01-10T23:00:00+09:00", "moved",
	    "01-10T13:00", "the moved occurrence is found where it moved to");
	occ_is(cal, "2025-01-09T00:00:00+09:00", "2025-01-10T00:00:00+09:00", "moved",
	    "", "and not where it was");
	occ_is(cal, Y0, Y1, "rdate", "01-05T10:00 01-12T10:00 01-19T10:00", "RDATE");
	occ_is(cal, "2025-01-12T00:00:00+09:00", "2025-01-13T00:00:00+09:00", "allday",
	    "01-11T00:00", "a two-day all-day event overlaps its second day");
	occ_is(cal, Y0, Y1, "floating", "01-14T08:00", "floating time is local");
	occ_is(cal, Y0, Y1, "gone", "", "a cancelled series has no occurrences");
	occ_is(cal, "2025-01-13T00:00:00+09:00", "2025-01-20T00:00:00+09:00", NULL,
	    "01-13T10:00 01-13T19:00 01-14T08:00 01-19T10:00", "a week holds only its own occurrences, in order");
	occ_is(cal, "2025-01-06T10:30:00+09:00", "2025-01-06T10:40:00+09:00", "count",
	    "01-06T10:00", "an occurrence that started before the range still overlaps it");
	occ_is(cal, "2025-01-15T10:00:00+09:00", NULL, "exdate", "01-22T19:00 01-29T19:00",
	    "an open range lists what comes next");
	cc_ics_expand(cal, at("2025-01-25T00:00:00+09:00"), at("2025-01-26T00:00:00+09:00"),
	    0, &l, err, sizeof err);
	ok(l.n == 1 && strcmp(l.v[0].title, "勉強会, 第1回 / Study session") == 0 &&
	    strcmp(l.v[0].description, "一行目\n二行目") == 0,
	    "folded, escaped, non-ASCII text (%s)", l.n ? l.v[0].title : "none");
	cc_event_list_release(&l);
	cc_ics_free(cal);
}

/* A weekly event in New York, with its own VTIMEZONE, across DST. */
static const char dst_ics[] =
	"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
	"BEGIN:VTIMEZONE\r\nTZID:Eastern Standard Time\r\n"
	"BEGIN:STANDARD\r\nDTSTART:16011104T020000\r\n"
	"RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11\r\n"
	"TZOFFSETFROM:-0400\r\nTZOFFSETTO:-0500\r\nEND:STANDARD\r\n"
	"BEGIN:DAYLIGHT\r\nDTSTART:16010311T020000\r\n"
	"RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3\r\n"
	"TZOFFSETFROM:-0500\r\nTZOFFSETTO:-0400\r\nEND:DAYLIGHT\r\n"
	"END:VTIMEZONE\r\n"
	"BEGIN:VEVENT\r\nUID:ny\r\nSUMMARY:ny\r\n"
	"DTSTART;TZID=Eastern Standard Time:20250303T100000\r\n"
	"DTEND;TZID=Eastern Standard Time:20250303T110000\r\n"
	"RRULE:FREQ=WEEKLY\r\nEND:VEVENT\r\n"
	"BEGIN:VEVENT\r\nUID:builtin\r\nSUMMARY:builtin\r\n"
	"DTSTART;TZID=Europe/Berlin:20250324T090000\r\n"
	"RRULE:FREQ=WEEKLY;COUNT=2\r\nEND:VEVENT\r\n"
	"END:VCALENDAR\r\n";

static void
test_ics_zones(void)
{
	char err[200] = "";
	struct cc_ics *cal = cc_ics_parse(dst_ics, strlen(dst_ics), "dst.ics", NULL,
	    err, sizeof err);

	ok(cal != NULL, "the DST calendar parses (%s)", err);
	if (!cal)
		return;
	cc_tz_use("Asia/Tokyo");
	occ_is(cal, "2025-03-01T00:00:00+09:00", "2025-03-20T00:00:00+09:00", "ny",
	    "03-04T00:00 03-10T23:00 03-17T23:00",
	    "10:00 in New York is an hour earlier in Tokyo after the change");
	occ_is(cal, "2025-03-17T00:00:00+09:00", "2025-03-18T00:00:00+09:00", "ny",
	    "03-17T23:00", "an occurrence an hour before the end of the range is in it");
	occ_is(cal, "2025-03-20T00:00:00+09:00", "2025-04-01T00:00:00+09:00", "builtin",
	    "03-24T17:00 03-31T16:00", "a TZID from the tz database, across Europe's change");
	cc_tz_use("America/New_York");
	occ_is(cal, "2025-03-01T00:00:00-05:00", "2025-03-20T00:00:00-04:00", "ny",
	    "03-03T10:00 03-10T10:00 03-17T10:00", "and stays at 10:00 in New York");
	cc_tz_use("Asia/Tokyo");
	cc_ics_free(cal);
}

static void
test_hostile(void)
{
	char err[200] = "";
	struct cc_ics_limits lim = { .max_bytes = 1000 };
	struct cc_event_list l = {0};
	struct cc_buf deep = {0};
	struct cc_ics *cal;
	clock_t c0;
	const char *secondly =
	    "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:s\r\nSUMMARY:s\r\n"
	    "DTSTART:20000101T000000Z\r\nRRULE:FREQ=SECONDLY\r\nEND:VEVENT\r\n"
	    "BEGIN:VEVENT\r\nUID:never\r\nSUMMARY:never\r\n"
	    "DTSTART:20250101T000000Z\r\nRRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30\r\n"
	    "END:VEVENT\r\nEND:VCALENDAR\r\n";
	const char *never =
	    "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:never\r\nSUMMARY:never\r\n"
	    "DTSTART:20250101T000000Z\r\nRRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30\r\n"
	    "END:VEVENT\r\nBEGIN:VEVENT\r\nUID:n2\r\nSUMMARY:n2\r\n"
	    "DTSTART:20250131T000000Z\r\nRRULE:FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2,4\r\n"
	    "END:VEVENT\r\nEND:VCALENDAR\r\n";

	cal = cc_ics_parse(secondly, strlen(secondly), "s.ics", NULL, err, sizeof err);
	ok(cal != NULL, "an unbounded SECONDLY rule parses");
	c0 = clock();
	ok(cc_ics_expand(cal, at("2025-01-13T00:00:00Z"), at("2025-01-20T00:00:00Z"),
	    0, &l, err, sizeof err) < 0 && l.n <= 10000, "its week of seconds stops at a "
	    "limit (%zu kept: %s)", l.n, err);
	ok((double)(clock() - c0) / CLOCKS_PER_SEC < 5, "within seconds");
	cc_event_list_release(&l);
	cc_ics_free(cal);

	cal = cc_ics_parse(never, strlen(never), "n.ics", NULL, err, sizeof err);
	c0 = clock();
	ok(cal && cc_ics_expand(cal, at("2025-01-01T00:00:00Z"), at("2026-01-01T00:00:00Z"),
	    0, &l, err, sizeof err) == 0 && l.n == 0, "rules that never match find nothing");
	ok((double)(clock() - c0) / CLOCKS_PER_SEC < 5, "quickly (%.3f s)",
	    (double)(clock() - c0) / CLOCKS_PER_SEC);
	cc_event_list_release(&l);
	cc_ics_free(cal);

	cc_buf_add(&deep, "BEGIN:VCALENDAR\r\n", 17);
	for (int i = 0; i < 100000; i++)
		cc_buf_add(&deep, "BEGIN:VEVENT\r\n", 14);
	ok(cc_ics_parse(deep.data, deep.len, "deep.ics", NULL, err, sizeof err) == NULL &&
	    strstr(err, "nested"), "100,000 nested components are refused (%s)", err);
	cc_buf_release(&deep);
	ok(cc_ics_parse(recur_ics, strlen(recur_ics), "big.ics", &lim, err, sizeof err) == NULL &&
	    strstr(err, "larger"), "a calendar over the size limit is refused (%s)", err);
	ok(cc_ics_parse("hello", 5, "x", NULL, err, sizeof err) == NULL,
	    "text that is not a calendar is refused (%s)", err);
	ok(cc_ics_load("/nonexistent/x.ics", "x", NULL, err, sizeof err) == NULL,
	    "a missing file (%s)", err);
}

static void
test_dedupe(void)
{
	struct cc_event_list l = {0};
	struct cc_event a = { .start = 100, .end = 200, .has_end = 1, .title = "Meetup",
	    .source = "a", .order = 0 };
	struct cc_event b = { .start = 100, .end = 200, .has_end = 1, .title = "ＭＥＥＴＵＰ",
	    .source = "b", .order = 1, .url = "https://example.org/" };
	struct cc_event c = { .start = 50, .end = 60, .title = "Early", .source = "b", .order = 1 };

	cc_event_list_add(&l, &b);
	cc_event_list_add(&l, &a);
	cc_event_list_add(&l, &c);
	cc_event_list_finish(&l);
	ok(l.n == 2 && strcmp(l.v[0].title, "Early") == 0, "sorted by time, duplicate gone");
	ok(l.n == 2 && strcmp(l.v[1].source, "a") == 0 && l.v[1].url &&
	    strcmp(l.v[1].url, "https://example.org/") == 0,
	    "the first source wins and borrows the missing url");
	cc_event_list_release(&l);
}

static void
test_http_helpers(void)
{
	struct cc_buf b = {0};
	char *s;

	s = cc_http_redact("https://user:pw@calendar.example.com/private-abc/basic.ics?k=1");
	is_str(s, "https://calendar.example.com/...", "a URL in a message shows only its host");
	free(s);
	s = cc_http_redact("http://127.0.0.1:8080");
	is_str(s, "http://127.0.0.1:8080", "a bare host stays");
	free(s);
	cc_http_urlencode(&b, "エンジニア Cafe&x=1");
	is_str(b.data, "%E3%82%A8%E3%83%B3%E3%82%B8%E3%83%8B%E3%82%A2%20Cafe%26x%3D1",
	    "query values are percent-encoded");
	cc_buf_release(&b);
	setenv("CC_CACHE_DIR", "/c", 1);
	s = cc_http_cache_dir();
	is_str(s, "/c", "CC_CACHE_DIR overrides");
	free(s);
	unsetenv("CC_CACHE_DIR");
	setenv("XDG_CACHE_HOME", "/x", 1);
	s = cc_http_cache_dir();
	is_str(s, "/x/concierge", "under XDG_CACHE_HOME");
	free(s);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/h", 1);
	s = cc_http_cache_dir();
	is_str(s, "/h/.cache/concierge", "else under ~/.cache");
	free(s);
}

int
main(void)
{
	test_dates();
	test_expressions();
	test_days_said_otherwise();
	test_corrections();
	test_extras();
	test_ics();
	test_ics_zones();
	test_hostile();
	test_dedupe();
	test_http_helpers();
	cc_ics_cleanup();
	return tap_done();
}
