/*
 * Time expressions: which days a visitor's question asks about.
 *
 * The specification's extractTimeRange() checks substrings in order
 * (今日/today, 今週/this week, 来週/next week, 今月/this month) and falls
 * back to this week.  Ported literally it fails the way visitors talk:
 * 今週末 contains 今週, 再来週 contains 来週, "Today I Learned" is an event
 * title, "busy today, anything tomorrow?" asks about tomorrow.  So the
 * text is read in three steps, each small enough to check by eye:
 *
 *   1. lex: find time words (a table of folded phrases, numbers with
 *      their units), each with its place in the text;
 *   2. compose: join words that qualify each other (来週 + 金曜 + 夜,
 *      "Friday" + "of next week") into mentions, each a range of dates;
 *   3. choose: drop negated mentions (今週じゃなくて, "not this week"),
 *      context (今日は..., "busy today"), join spans and unions (今週と来週,
 *      "from Friday to Sunday"), and take the mention the question is
 *      about; with none, "the next event" or the spec's default.
 *
 * The word tables are language, not venue data, so they live here.
 * Dates are local dates in the zone set by cc_tz_use(); date arithmetic is
 * pure Gregorian (cc_days_from_civil), the zone is consulted only to turn an
 * instant into a date and a date into an instant.
 */
#include "config.h"

#include <ctype.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>

#include "cc_util.h"
#include "cc_text.h"
#include "cc_casual.h"
#include "cc_time.h"

/* ---- zones and dates ---- */

static int
posix_tz(const char *s)
{
	/* std offset [dst [offset] [,rule]]: JST-9, EST5EDT,M3.2.0,M11.1.0 */
	const char *p = s;

	if (*p == '<') {
		p = strchr(p, '>');
		if (!p)
			return 0;
		p++;
	} else {
		while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
			p++;
		if (p - s < 3)
			return 0;
	}
	if (*p == '+' || *p == '-')
		p++;
	return *p >= '0' && *p <= '9';
}

/*
 * glibc's localtime_r and mktime re-parse the zone's POSIX rule (with
 * sscanf) on every call for instants past the zone's last transition,
 * which is every instant for Asia/Tokyo: about 10 us each.  Records ask
 * about the same few days and instants over and over, so the answers are
 * kept in small direct-mapped tables, emptied when the zone changes.
 */
#define MEMO 64

static struct {
	time_t t;
	int used;
	struct tm tm;
	char iso[CC_TIME_ISO_MAX];	/* cc_time_format(), or "" */
} memo_tm[MEMO];

static struct {
	struct cc_date d;
	int hour, minute, used;
	time_t t;
} memo_mk[MEMO];

static void
memo_clear(void)
{
	memset(memo_tm, 0, sizeof memo_tm);
	memset(memo_mk, 0, sizeof memo_mk);
}

static unsigned
memo_tm_slot(time_t t)
{
	return (unsigned)(((uint64_t)t * 2654435761u) >> 7) % MEMO;
}

static int
local_tm(time_t t, struct tm *tm)
{
	unsigned k = memo_tm_slot(t);

	if (memo_tm[k].used && memo_tm[k].t == t) {
		*tm = memo_tm[k].tm;
		return 0;
	}
	if (!localtime_r(&t, tm))
		return -1;
	memo_tm[k].t = t;
	memo_tm[k].tm = *tm;
	memo_tm[k].iso[0] = '\0';
	memo_tm[k].used = 1;
	return 0;
}

static unsigned
memo_mk_slot(struct cc_date d, int hour, int minute)
{
	/* unsigned: a calendar's year 4000 would overflow int (undefined) */
	return ((((unsigned)d.year * 13 + (unsigned)d.month) * 32 +
	    (unsigned)d.day) * 1631 + (unsigned)hour * 61 + (unsigned)minute) % MEMO;
}

int
cc_tz_use(const char *name)
{
	const char *dir = getenv("TZDIR");
	char path[PATH_MAX];
	struct stat st;
	const char *n = name;

	if (!n || !*n || strlen(n) > 255)
		return -1;
	if (*n == ':')
		n++;
	if (strstr(n, ".."))
		return -1;
	if (*n == '/')
		snprintf(path, sizeof path, "%s", n);
	else
		snprintf(path, sizeof path, "%s/%s",
		    dir && *dir ? dir : "/usr/share/zoneinfo", n);
	if (!(stat(path, &st) == 0 && S_ISREG(st.st_mode)) && !posix_tz(n))
		return -1;
	if (setenv("TZ", name, 1) < 0)
		return -1;
	tzset();
	memo_clear();
	return 0;
}

/* Days since 1970-01-01 (Howard Hinnant's algorithms). */
long
cc_days_from_civil(int y, int m, int d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static struct cc_date
civil_from_days(long z)
{
	long era, doe, yoe, y, doy, mp, d, m;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	return (struct cc_date){ (int)(y + (m <= 2)), (int)m, (int)d };
}

static long
day_number(struct cc_date d)
{
	return cc_days_from_civil(d.year, d.month, d.day);
}

struct cc_date
cc_date_of(time_t t)
{
	struct tm tm;

	if (local_tm(t, &tm) < 0)
		return (struct cc_date){ 1970, 1, 1 };
	return (struct cc_date){ tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday };
}

int
cc_date_weekday(struct cc_date d)
{
	long z = day_number(d);

	/* 1970-01-01 was a Thursday (ISO 4) */
	return (int)(((z + 3) % 7 + 7) % 7) + 1;
}

struct cc_date
cc_date_add(struct cc_date d, int days)
{
	return civil_from_days(day_number(d) + days);
}

long
cc_date_diff(struct cc_date a, struct cc_date b)
{
	return day_number(b) - day_number(a);
}

int
cc_date_cmp(struct cc_date a, struct cc_date b)
{
	long x = day_number(a), y = day_number(b);

	return x < y ? -1 : x > y;
}

int
cc_days_in_month(int year, int month)
{
	static const int n[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (month < 1 || month > 12)
		return 0;
	if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
		return 29;
	return n[month - 1];
}

time_t
cc_local_time(struct cc_date d, int hour, int minute)
{
	struct tm tm = {0};

	if (hour >= 24) {
		d = cc_date_add(d, hour / 24);
		hour %= 24;
	}
	tm.tm_year = d.year - 1900;
	tm.tm_mon = d.month - 1;
	tm.tm_mday = d.day;
	tm.tm_hour = hour;
	tm.tm_min = minute;
	tm.tm_isdst = -1;	/* let the zone decide, DST included */
	{
		unsigned k = memo_mk_slot(d, hour, minute);

		if (memo_mk[k].used && memo_mk[k].hour == hour && memo_mk[k].minute == minute &&
		    memcmp(&memo_mk[k].d, &d, sizeof d) == 0)
			return memo_mk[k].t;
		memo_mk[k].t = mktime(&tm);
		memo_mk[k].d = d;
		memo_mk[k].hour = hour;
		memo_mk[k].minute = minute;
		memo_mk[k].used = 1;
		return memo_mk[k].t;
	}
}

time_t
cc_date_start(struct cc_date d)
{
	return cc_local_time(d, 0, 0);
}

void
cc_time_format(time_t t, char out[CC_TIME_ISO_MAX])
{
	unsigned k = memo_tm_slot(t);
	struct tm tm;
	long off;
	size_t n;

	if (memo_tm[k].used && memo_tm[k].t == t && memo_tm[k].iso[0]) {
		memcpy(out, memo_tm[k].iso, CC_TIME_ISO_MAX);
		return;
	}
	if (local_tm(t, &tm) < 0) {
		snprintf(out, CC_TIME_ISO_MAX, "1970-01-01T00:00:00Z");
		return;
	}
	n = strftime(out, CC_TIME_ISO_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
	off = tm.tm_gmtoff / 60;
	snprintf(out + n, CC_TIME_ISO_MAX - n, "%c%02ld:%02ld",
	    off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60);
	if (memo_tm[k].used && memo_tm[k].t == t)
		memcpy(memo_tm[k].iso, out, CC_TIME_ISO_MAX);
}

const char *
cc_weekday_name(int wd)
{
	static const char *const names[] = {"monday", "tuesday", "wednesday",
	    "thursday", "friday", "saturday", "sunday"};

	return wd >= 1 && wd <= 7 ? names[wd - 1] : NULL;
}

/* ---- 1. the lexicon ---- */

enum tok_type {
	T_DAY,		/* a: day offset, b: part of day */
	T_PART,		/* a: part of day */
	T_WEEK,		/* a: week offset */
	T_WEEKEND,	/* a: week offset */
	T_MONTHREL,	/* a: month offset, b: 1 for "the month" (no fixed one) */
	T_MONTHPART,	/* a: which part, b: month offset or NO_REL */
	T_YEARREL,	/* a: year offset */
	T_YEAR,		/* a: year */
	T_MONTH,	/* a: month, b: year or 0 */
	T_DATE,		/* a: month, b: day, c: year or 0 */
	T_MDAY,		/* a: day of the month */
	T_WEEKDAY,	/* a: ISO weekday, b: week offset or NO_REL */
	T_QUAL,		/* a: Q_* */
	T_DUR,		/* a: days, b: months, c: said in weeks */
	T_AFTER,	/* a: days, b: weeks, c: months from today */
	T_UPCOMING,	/* "the next event" words */
	T_ANCHOR,	/* これから, 今後, within: a duration starts today */
	T_WHEN,		/* いつ, when */
};

enum { P_NONE, P_MORNING, P_AFTERNOON, P_EVENING, P_NIGHT };
enum { Q_THIS = 1, Q_NEXT, Q_COMING, Q_LAST, Q_EVERY, Q_FINAL };
enum { MP_BEGIN = 1, MP_EARLY, MP_MID, MP_LATE, MP_END };
#define NO_REL 99

/* lexeme flags */
#define F_WORD	1	/* ASCII: a whole word (or words) */
#define F_KANA	2	/* kana: not inside another kana word */
#define F_RB	4	/* kana: must end at a particle or punctuation */
#define F_CTX	8	/* ambiguous English word: needs a time context */
#define F_NOHA	16	/* not followed by は/わ (こんばんは is a greeting) */

struct lexeme {
	const char *s;
	unsigned char type, flags;
	signed char a, b;
};

static const struct lexeme lexicon[] = {
	/* days */
	{"今日", T_DAY, 0, 0, 0}, {"本日", T_DAY, 0, 0, 0},
	{"きょう", T_DAY, F_KANA, 0, 0}, {"ほんじつ", T_DAY, F_KANA, 0, 0},
	{"today", T_DAY, F_WORD, 0, 0},
	{"今夜", T_DAY, 0, 0, P_NIGHT}, {"今晩", T_DAY, 0, 0, P_NIGHT},
	{"こんや", T_DAY, F_KANA, 0, P_NIGHT},
	{"こんばん", T_DAY, F_KANA | F_NOHA, 0, P_NIGHT},
	{"今夕", T_DAY, 0, 0, P_EVENING}, {"今朝", T_DAY, 0, 0, P_MORNING},
	{"けさ", T_DAY, F_KANA | F_RB, 0, P_MORNING},
	{"tonight", T_DAY, F_WORD, 0, P_NIGHT}, {"tonite", T_DAY, F_WORD, 0, P_NIGHT},
	{"this morning", T_DAY, F_WORD, 0, P_MORNING},
	{"this afternoon", T_DAY, F_WORD, 0, P_AFTERNOON},
	{"this evening", T_DAY, F_WORD, 0, P_EVENING},
	{"明日", T_DAY, 0, 1, 0}, {"あした", T_DAY, F_KANA, 1, 0},
	{"あす", T_DAY, F_KANA | F_RB, 1, 0}, {"みょうにち", T_DAY, F_KANA, 1, 0},
	{"tomorrow", T_DAY, F_WORD, 1, 0}, {"tmrw", T_DAY, F_WORD, 1, 0},
	{"tmr", T_DAY, F_WORD, 1, 0}, {"tmw", T_DAY, F_WORD, 1, 0},
	{"tomorow", T_DAY, F_WORD, 1, 0}, {"tommorow", T_DAY, F_WORD, 1, 0},
	{"tommorrow", T_DAY, F_WORD, 1, 0}, {"2morrow", T_DAY, F_WORD, 1, 0},
	{"2moro", T_DAY, F_WORD, 1, 0},
	{"明朝", T_DAY, 0, 1, P_MORNING}, {"明晩", T_DAY, 0, 1, P_NIGHT},
	{"明夜", T_DAY, 0, 1, P_NIGHT},
	{"明後日", T_DAY, 0, 2, 0}, {"あさって", T_DAY, F_KANA, 2, 0},
	{"みょうごにち", T_DAY, F_KANA, 2, 0},
	{"明々後日", T_DAY, 0, 3, 0}, {"明明後日", T_DAY, 0, 3, 0},
	{"しあさって", T_DAY, F_KANA, 3, 0}, {"みょうみょうごにち", T_DAY, F_KANA, 3, 0},
	{"day after tomorrow", T_DAY, F_WORD, 2, 0},
	{"the day after tomorrow", T_DAY, F_WORD, 2, 0},
	{"the day after", T_DAY, F_WORD, 2, 0}, {"overmorrow", T_DAY, F_WORD, 2, 0},
	{"昨日", T_DAY, 0, -1, 0}, {"きのう", T_DAY, F_KANA, -1, 0},
	{"さくじつ", T_DAY, F_KANA, -1, 0}, {"yesterday", T_DAY, F_WORD, -1, 0},
	{"昨夜", T_DAY, 0, -1, P_NIGHT}, {"昨晩", T_DAY, 0, -1, P_NIGHT},
	{"ゆうべ", T_DAY, F_KANA, -1, P_NIGHT},
	{"last night", T_DAY, F_WORD, -1, P_NIGHT},
	{"一昨日", T_DAY, 0, -2, 0}, {"おととい", T_DAY, F_KANA, -2, 0},
	{"おとつい", T_DAY, F_KANA, -2, 0},
	{"day before yesterday", T_DAY, F_WORD, -2, 0},
	{"the day before yesterday", T_DAY, F_WORD, -2, 0},
	/* days of the year known by name (a: month, b: day) */
	{"大晦日", T_DATE, 0, 12, 31}, {"おおみそか", T_DATE, F_KANA, 12, 31},
	{"元日", T_DATE, 0, 1, 1}, {"元旦", T_DATE, 0, 1, 1},
	{"がんじつ", T_DATE, F_KANA, 1, 1}, {"がんたん", T_DATE, F_KANA, 1, 1},
	{"クリスマスイブ", T_DATE, F_KANA, 12, 24}, {"クリスマスイヴ", T_DATE, F_KANA, 12, 24},
	{"クリスマス", T_DATE, F_KANA, 12, 25},
	{"christmas eve", T_DATE, F_WORD, 12, 24}, {"christmas day", T_DATE, F_WORD, 12, 25},
	{"christmas", T_DATE, F_WORD, 12, 25}, {"xmas", T_DATE, F_WORD, 12, 25},
	{"xmas eve", T_DATE, F_WORD, 12, 24},
	{"new year's eve", T_DATE, F_WORD, 12, 31}, {"new years eve", T_DATE, F_WORD, 12, 31},
	{"new year's day", T_DATE, F_WORD, 1, 1}, {"new years day", T_DATE, F_WORD, 1, 1},
	/* days of the month read in kana (a: the day); not いつか (some
	 * day), なのか or ようか, which are other words too */
	{"ついたち", T_MDAY, F_KANA | F_RB, 1, 0}, {"ふつか", T_MDAY, F_KANA | F_RB, 2, 0},
	{"みっか", T_MDAY, F_KANA | F_RB, 3, 0}, {"よっか", T_MDAY, F_KANA | F_RB, 4, 0},
	{"とおか", T_MDAY, F_KANA | F_RB, 10, 0}, {"はつか", T_MDAY, F_KANA | F_RB, 20, 0},
	/* parts of the day (only with a day: 夜のイベント alone names no date) */
	{"朝", T_PART, 0, P_MORNING, 0}, {"午前", T_PART, 0, P_MORNING, 0},
	{"午前中", T_PART, 0, P_MORNING, 0}, {"昼", T_PART, 0, P_AFTERNOON, 0},
	{"お昼", T_PART, 0, P_AFTERNOON, 0}, {"午後", T_PART, 0, P_AFTERNOON, 0},
	{"夕方", T_PART, 0, P_EVENING, 0}, {"夜", T_PART, 0, P_NIGHT, 0},
	{"晩", T_PART, 0, P_NIGHT, 0}, {"よる", T_PART, F_KANA | F_RB, P_NIGHT, 0},
	{"morning", T_PART, F_WORD, P_MORNING, 0},
	{"afternoon", T_PART, F_WORD, P_AFTERNOON, 0},
	{"evening", T_PART, F_WORD, P_EVENING, 0},
	{"night", T_PART, F_WORD, P_NIGHT, 0},
	/* weeks */
	{"今週", T_WEEK, 0, 0, 0}, {"こんしゅう", T_WEEK, F_KANA, 0, 0},
	{"this week", T_WEEK, F_WORD, 0, 0},
	{"来週", T_WEEK, 0, 1, 0}, {"らいしゅう", T_WEEK, F_KANA, 1, 0},
	{"翌週", T_WEEK, 0, 1, 0}, {"next week", T_WEEK, F_WORD, 1, 0},
	{"the following week", T_WEEK, F_WORD, 1, 0},
	{"rest of the week", T_WEEK, F_WORD, 0, 0},
	{"remainder of the week", T_WEEK, F_WORD, 0, 0},
	/* "by the end of the week": with by/until, today to Sunday */
	{"end of the week", T_WEEK, F_WORD, 0, 0},
	{"end of this week", T_WEEK, F_WORD, 0, 0},
	{"end of week", T_WEEK, F_WORD, 0, 0},
	{"the end of the week", T_WEEK, F_WORD, 0, 0},
	{"the end of this week", T_WEEK, F_WORD, 0, 0},
	{"coming week", T_WEEK, F_WORD, 1, 0},
	{"再来週", T_WEEK, 0, 2, 0}, {"さらいしゅう", T_WEEK, F_KANA, 2, 0},
	{"week after next", T_WEEK, F_WORD, 2, 0},
	{"the week after next", T_WEEK, F_WORD, 2, 0},
	{"先週", T_WEEK, 0, -1, 0}, {"せんしゅう", T_WEEK, F_KANA, -1, 0},
	{"last week", T_WEEK, F_WORD, -1, 0}, {"先々週", T_WEEK, 0, -2, 0},
	{"週明け", T_WEEKDAY, 0, 1, 1},
	/* weekends */
	{"週末", T_WEEKEND, 0, 0, 0}, {"しゅうまつ", T_WEEKEND, F_KANA, 0, 0},
	{"土日", T_WEEKEND, 0, 0, 0}, {"どにち", T_WEEKEND, F_KANA, 0, 0},
	{"今週末", T_WEEKEND, 0, 0, 0}, {"こんしゅうまつ", T_WEEKEND, F_KANA, 0, 0},
	{"来週末", T_WEEKEND, 0, 1, 0}, {"らいしゅうまつ", T_WEEKEND, F_KANA, 1, 0},
	{"再来週末", T_WEEKEND, 0, 2, 0}, {"先週末", T_WEEKEND, 0, -1, 0},
	{"weekend", T_WEEKEND, F_WORD, 0, 0}, {"weekends", T_WEEKEND, F_WORD, 0, 0},
	{"this weekend", T_WEEKEND, F_WORD, 0, 0},
	{"this coming weekend", T_WEEKEND, F_WORD, 0, 0},
	{"next weekend", T_WEEKEND, F_WORD, 1, 0},
	{"last weekend", T_WEEKEND, F_WORD, -1, 0},
	{"weekend after next", T_WEEKEND, F_WORD, 2, 0},
	{"the weekend after next", T_WEEKEND, F_WORD, 2, 0},
	/* months */
	{"今月", T_MONTHREL, 0, 0, 0}, {"こんげつ", T_MONTHREL, F_KANA, 0, 0},
	{"this month", T_MONTHREL, F_WORD, 0, 0},
	{"来月", T_MONTHREL, 0, 1, 0}, {"らいげつ", T_MONTHREL, F_KANA, 1, 0},
	{"翌月", T_MONTHREL, 0, 1, 0}, {"next month", T_MONTHREL, F_WORD, 1, 0},
	{"再来月", T_MONTHREL, 0, 2, 0}, {"さらいげつ", T_MONTHREL, F_KANA, 2, 0},
	{"month after next", T_MONTHREL, F_WORD, 2, 0},
	{"the month after next", T_MONTHREL, F_WORD, 2, 0},
	{"先月", T_MONTHREL, 0, -1, 0}, {"せんげつ", T_MONTHREL, F_KANA, -1, 0},
	{"last month", T_MONTHREL, F_WORD, -1, 0},
	/* "the rest of the month", "the last Friday of the month": this one,
	 * but "the 3rd Tuesday of the month" may still mean next month's */
	{"the month", T_MONTHREL, F_WORD, 0, 1},
	{"月末", T_MONTHPART, 0, MP_END, NO_REL},
	{"今月末", T_MONTHPART, 0, MP_END, 0}, {"来月末", T_MONTHPART, 0, MP_END, 1},
	{"月初", T_MONTHPART, 0, MP_BEGIN, NO_REL},
	{"月初め", T_MONTHPART, 0, MP_BEGIN, NO_REL},
	{"上旬", T_MONTHPART, 0, MP_EARLY, NO_REL},
	{"中旬", T_MONTHPART, 0, MP_MID, NO_REL},
	{"下旬", T_MONTHPART, 0, MP_LATE, NO_REL},
	{"the end of the month", T_MONTHPART, F_WORD, MP_END, 0},
	{"the end of this month", T_MONTHPART, F_WORD, MP_END, 0},
	{"end of the month", T_MONTHPART, F_WORD, MP_END, 0},
	{"end of this month", T_MONTHPART, F_WORD, MP_END, 0},
	{"end of month", T_MONTHPART, F_WORD, MP_END, 0},
	{"end of next month", T_MONTHPART, F_WORD, MP_END, 1},
	{"beginning of next month", T_MONTHPART, F_WORD, MP_BEGIN, 1},
	{"start of next month", T_MONTHPART, F_WORD, MP_BEGIN, 1},
	/* years */
	{"今年", T_YEARREL, 0, 0, 0}, {"ことし", T_YEARREL, F_KANA, 0, 0},
	{"本年", T_YEARREL, 0, 0, 0}, {"年内", T_YEARREL, 0, 0, 0},
	{"this year", T_YEARREL, F_WORD, 0, 0},
	{"来年", T_YEARREL, 0, 1, 0}, {"らいねん", T_YEARREL, F_KANA, 1, 0},
	{"next year", T_YEARREL, F_WORD, 1, 0},
	{"翌年", T_YEARREL, 0, 1, 0},
	{"去年", T_YEARREL, 0, -1, 0}, {"昨年", T_YEARREL, 0, -1, 0},
	{"きょねん", T_YEARREL, F_KANA, -1, 0},
	{"last year", T_YEARREL, F_WORD, -1, 0},
	/* month names */
	{"january", T_MONTH, F_WORD, 1, 0}, {"jan", T_MONTH, F_WORD, 1, 0},
	{"february", T_MONTH, F_WORD, 2, 0}, {"feb", T_MONTH, F_WORD, 2, 0},
	{"march", T_MONTH, F_WORD | F_CTX, 3, 0}, {"mar", T_MONTH, F_WORD | F_CTX, 3, 0},
	{"april", T_MONTH, F_WORD, 4, 0}, {"apr", T_MONTH, F_WORD, 4, 0},
	{"may", T_MONTH, F_WORD | F_CTX, 5, 0},
	{"june", T_MONTH, F_WORD, 6, 0}, {"jun", T_MONTH, F_WORD, 6, 0},
	{"july", T_MONTH, F_WORD, 7, 0}, {"jul", T_MONTH, F_WORD, 7, 0},
	{"august", T_MONTH, F_WORD, 8, 0}, {"aug", T_MONTH, F_WORD, 8, 0},
	{"september", T_MONTH, F_WORD, 9, 0}, {"sept", T_MONTH, F_WORD, 9, 0},
	{"sep", T_MONTH, F_WORD, 9, 0},
	{"october", T_MONTH, F_WORD, 10, 0}, {"oct", T_MONTH, F_WORD, 10, 0},
	{"november", T_MONTH, F_WORD, 11, 0}, {"nov", T_MONTH, F_WORD, 11, 0},
	{"december", T_MONTH, F_WORD, 12, 0}, {"dec", T_MONTH, F_WORD, 12, 0},
	/* weekdays */
	{"月曜", T_WEEKDAY, 0, 1, NO_REL}, {"月曜日", T_WEEKDAY, 0, 1, NO_REL},
	{"火曜", T_WEEKDAY, 0, 2, NO_REL}, {"火曜日", T_WEEKDAY, 0, 2, NO_REL},
	{"水曜", T_WEEKDAY, 0, 3, NO_REL}, {"水曜日", T_WEEKDAY, 0, 3, NO_REL},
	{"木曜", T_WEEKDAY, 0, 4, NO_REL}, {"木曜日", T_WEEKDAY, 0, 4, NO_REL},
	{"金曜", T_WEEKDAY, 0, 5, NO_REL}, {"金曜日", T_WEEKDAY, 0, 5, NO_REL},
	{"土曜", T_WEEKDAY, 0, 6, NO_REL}, {"土曜日", T_WEEKDAY, 0, 6, NO_REL},
	{"日曜", T_WEEKDAY, 0, 7, NO_REL}, {"日曜日", T_WEEKDAY, 0, 7, NO_REL},
	{"げつよう", T_WEEKDAY, F_KANA, 1, NO_REL}, {"げつようび", T_WEEKDAY, F_KANA, 1, NO_REL},
	{"かようび", T_WEEKDAY, F_KANA, 2, NO_REL},
	{"すいよう", T_WEEKDAY, F_KANA, 3, NO_REL}, {"すいようび", T_WEEKDAY, F_KANA, 3, NO_REL},
	{"もくよう", T_WEEKDAY, F_KANA, 4, NO_REL}, {"もくようび", T_WEEKDAY, F_KANA, 4, NO_REL},
	{"きんよう", T_WEEKDAY, F_KANA, 5, NO_REL}, {"きんようび", T_WEEKDAY, F_KANA, 5, NO_REL},
	{"どよう", T_WEEKDAY, F_KANA, 6, NO_REL}, {"どようび", T_WEEKDAY, F_KANA, 6, NO_REL},
	{"にちよう", T_WEEKDAY, F_KANA, 7, NO_REL}, {"にちようび", T_WEEKDAY, F_KANA, 7, NO_REL},
	{"monday", T_WEEKDAY, F_WORD, 1, NO_REL}, {"mondays", T_WEEKDAY, F_WORD, 1, NO_REL},
	{"mon", T_WEEKDAY, F_WORD, 1, NO_REL},
	{"tuesday", T_WEEKDAY, F_WORD, 2, NO_REL}, {"tuesdays", T_WEEKDAY, F_WORD, 2, NO_REL},
	{"tue", T_WEEKDAY, F_WORD, 2, NO_REL}, {"tues", T_WEEKDAY, F_WORD, 2, NO_REL},
	{"wednesday", T_WEEKDAY, F_WORD, 3, NO_REL}, {"wednesdays", T_WEEKDAY, F_WORD, 3, NO_REL},
	{"wed", T_WEEKDAY, F_WORD, 3, NO_REL}, {"weds", T_WEEKDAY, F_WORD, 3, NO_REL},
	{"thursday", T_WEEKDAY, F_WORD, 4, NO_REL}, {"thursdays", T_WEEKDAY, F_WORD, 4, NO_REL},
	{"thu", T_WEEKDAY, F_WORD, 4, NO_REL}, {"thur", T_WEEKDAY, F_WORD, 4, NO_REL},
	{"thurs", T_WEEKDAY, F_WORD, 4, NO_REL},
	{"friday", T_WEEKDAY, F_WORD, 5, NO_REL}, {"fridays", T_WEEKDAY, F_WORD, 5, NO_REL},
	{"fri", T_WEEKDAY, F_WORD, 5, NO_REL},
	{"saturday", T_WEEKDAY, F_WORD, 6, NO_REL}, {"saturdays", T_WEEKDAY, F_WORD, 6, NO_REL},
	{"sat", T_WEEKDAY, F_WORD | F_CTX, 6, NO_REL},
	{"sunday", T_WEEKDAY, F_WORD, 7, NO_REL}, {"sundays", T_WEEKDAY, F_WORD, 7, NO_REL},
	{"sun", T_WEEKDAY, F_WORD | F_CTX, 7, NO_REL},
	/* qualifiers: they only count in front of a time word */
	{"this", T_QUAL, F_WORD, Q_THIS, 0}, {"next", T_QUAL, F_WORD, Q_NEXT, 0},
	{"coming", T_QUAL, F_WORD, Q_COMING, 0},
	{"this coming", T_QUAL, F_WORD, Q_COMING, 0},
	{"upcoming", T_QUAL, F_WORD, Q_COMING, 0},
	{"following", T_QUAL, F_WORD, Q_NEXT, 0},
	{"last", T_QUAL, F_WORD, Q_LAST, 0}, {"past", T_QUAL, F_WORD, Q_LAST, 0},
	{"every", T_QUAL, F_WORD, Q_EVERY, 0},
	/* 今月最後の月曜, 来月の最終金曜, "the final Friday": a month's last */
	{"最後の", T_QUAL, 0, Q_FINAL, 0}, {"最終", T_QUAL, 0, Q_FINAL, 0},
	{"さいごの", T_QUAL, F_KANA, Q_FINAL, 0}, {"final", T_QUAL, F_WORD, Q_FINAL, 0},
	{"次の", T_QUAL, 0, Q_COMING, 0}, {"つぎの", T_QUAL, F_KANA, Q_COMING, 0},
	{"今度の", T_QUAL, 0, Q_COMING, 0}, {"こんどの", T_QUAL, F_KANA, Q_COMING, 0},
	{"この", T_QUAL, F_KANA, Q_THIS, 0}, {"毎週", T_QUAL, 0, Q_EVERY, 0},
	/* "the next event" */
	{"次回", T_UPCOMING, 0, 0, 0}, {"直近", T_UPCOMING, 0, 0, 0},
	{"近日", T_UPCOMING, 0, 0, 0}, {"近々", T_UPCOMING, 0, 0, 0},
	{"もうすぐ", T_UPCOMING, F_KANA, 0, 0}, {"近いうち", T_UPCOMING, 0, 0, 0},
	{"soonest", T_UPCOMING, F_WORD, 0, 0}, {"coming up", T_UPCOMING, F_WORD, 0, 0},
	{"what's next", T_UPCOMING, F_WORD, 0, 0},
	{"anytime soon", T_UPCOMING, F_WORD, 0, 0},
	/* a duration that starts today */
	{"これから", T_ANCHOR, F_KANA, 0, 0}, {"今から", T_ANCHOR, 0, 0, 0},
	{"いまから", T_ANCHOR, F_KANA, 0, 0}, {"今後", T_ANCHOR, 0, 0, 0},
	{"こんご", T_ANCHOR, F_KANA, 0, 0}, {"向こう", T_ANCHOR, 0, 0, 0},
	{"むこう", T_ANCHOR, F_KANA, 0, 0}, {"within", T_ANCHOR, F_WORD, 0, 0},
	/* questions about when */
	{"いつ", T_WHEN, F_KANA, 0, 0}, {"when", T_WHEN, F_WORD, 0, 0},
	{"what day", T_WHEN, F_WORD, 0, 0}, {"what date", T_WHEN, F_WORD, 0, 0},
	{"何日", T_WHEN, 0, 0, 0}, {"何曜", T_WHEN, 0, 0, 0},
};

#define NLEX (sizeof lexicon / sizeof lexicon[0])

/* Lexemes bucketed by their first character, longest first. */
static struct {
	unsigned short *v;
	unsigned n;
} buckets[256];
static unsigned char lexlen[NLEX];
static char *lexstr[NLEX];	/* folded like the text: きょう → きよう */
static int lex_ready;

static unsigned
bucket_of(const unsigned char *s)
{
	if (s[0] < 0x80)
		return s[0];
	/* a 2-4 byte character: hash it into the upper half */
	return 128 + ((s[0] * 31u + s[1] * 7u + (s[1] ? s[2] : 0)) & 127);
}

static void
lex_init(void)
{
	unsigned count[256] = {0};

	for (size_t i = 0; i < NLEX; i++) {
		lexstr[i] = cc_text_fold(lexicon[i].s, strlen(lexicon[i].s), NULL, 0);
		lexlen[i] = (unsigned char)strlen(lexstr[i]);
		count[bucket_of((const unsigned char *)lexstr[i])]++;
	}
	for (int b = 0; b < 256; b++)
		if (count[b])
			buckets[b].v = cc_xmalloc(count[b] * sizeof *buckets[b].v);
	for (size_t i = 0; i < NLEX; i++) {
		unsigned b = bucket_of((const unsigned char *)lexstr[i]);
		unsigned k = buckets[b].n++;

		/* insertion by length, longest first */
		while (k > 0 && lexlen[buckets[b].v[k - 1]] < lexlen[i]) {
			buckets[b].v[k] = buckets[b].v[k - 1];
			k--;
		}
		buckets[b].v[k] = (unsigned short)i;
	}
	lex_ready = 1;
}

static void __attribute__((destructor))
lex_release(void)
{
	for (int b = 0; b < 256; b++)
		free(buckets[b].v);
	for (size_t i = 0; i < NLEX; i++)
		free(lexstr[i]);
}

/* ---- the text being read ---- */

struct tok {
	int type;
	int a, b, c;
	size_t at, end;		/* bytes in the folded text */
	int dropped;		/* inside a title or quotation */
	int used;		/* composed into a mention */
};

#define MAXTOK 48

struct text {
	const char *s;		/* folded, lower case (ASCII) */
	const char *cs;		/* folded, case kept, same bytes otherwise */
	const char *orig;	/* the query as given */
	size_t olen;
	size_t n;
	struct tok t[MAXTOK];
	int nt;
};

static int
ascii_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
ascii_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
upper(int c)
{
	return c >= 'A' && c <= 'Z';
}

/* The code point that ends just before s[at]. */
static int32_t
prev_cp(const char *s, size_t at)
{
	size_t i = at;

	if (at == 0)
		return 0;
	do
		i--;
	while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80);
	return cc_utf8_next(s, at, &i);
}

static int32_t
next_cp(const char *s, size_t n, size_t at)
{
	return at < n ? cc_utf8_next(s, n, &at) : 0;
}

static int
hiragana(int32_t cp)
{
	return cp >= 0x3041 && cp <= 0x309F;
}

/* Particles after which a kana time word may start (明日とあさって). */
static int
particle(int32_t cp)
{
	return (cp == 0x3068 || cp == 0x3084 || cp == 0x304B || cp == 0x306E ||
	    cp == 0x306F || cp == 0x3082 || cp == 0x306B || cp == 0x3067 ||
	    cp == 0x3092 || cp == 0x304C || cp == 0x3078 || cp == 0x3089 ||
	    cp == 0x3066 /* て: って */);
}

/* A kana word ends here: a particle, punctuation, another script. */
static int
kana_end(int32_t cp)
{
	return !hiragana(cp) || particle(cp);
}

static int
starts(const char *s, size_t n, size_t at, const char *w)
{
	size_t k = strlen(w);

	return at + k <= n && memcmp(s + at, w, k) == 0;
}

/* The text after `at`, spaces skipped, starts with w. */
static int
followed_by(const struct text *x, size_t at, const char *w)
{
	while (at < x->n && x->s[at] == ' ')
		at++;
	return starts(x->s, x->n, at, w);
}

/* The text before `at`, spaces skipped, ends with the word w. */
static int
preceded_by(const struct text *x, size_t at, const char *w)
{
	size_t k = strlen(w);

	while (at > 0 && x->s[at - 1] == ' ')
		at--;
	if (at < k || memcmp(x->s + at - k, w, k) != 0)
		return 0;
	return at == k || !ascii_alpha(x->s[at - k - 1]) || !ascii_alpha(w[0]);
}

static void
add_tok(struct text *x, int type, int a, int b, int c, size_t at, size_t end)
{
	struct tok *t;

	if (x->nt >= MAXTOK)
		return;
	t = &x->t[x->nt++];
	*t = (struct tok){ .type = type, .a = a, .b = b, .c = c, .at = at, .end = end };
}

/*
 * English words that make an ambiguous one (may, march, sat, sun) a date:
 * a preposition before it, a part of the day, a number or what happens in
 * it after it ("March events?", "May's meetups"), a capital letter inside
 * a sentence ("anything for us in ... March?"; "May I" is a verb), or the
 * word alone ("March?", a follow-up).
 */
static int
time_context(const struct text *x, size_t at, size_t end)
{
	static const char *const before[] = {"in", "on", "of", "this", "next",
	    "last", "every", "coming", "early", "mid", "late", "until", "till",
	    "by", "from", "during", "through", "for", "around", "about", NULL};
	static const char *const after[] = {"night", "morning", "afternoon",
	    "evening", "event", "events", "meetup", "meetups", "meet-up",
	    "meet-ups", "seminar", "seminars", "workshop", "workshops",
	    "hackathon", "hackathons", "study", "session", "sessions",
	    "schedule", "calendar", "lineup", "line-up", "'s", "\xe2\x80\x99s",
	    NULL};
	static const char *const subjects[] = {"i ", "we ", "you ", "he ", "she ",
	    "they ", "it ", "i?", "we?", NULL};
	size_t a = at, e = end;

	for (int i = 0; before[i]; i++)
		if (preceded_by(x, at, before[i]))
			return 1;
	while (e < x->n && x->s[e] == ' ')
		e++;
	for (int i = 0; after[i]; i++)
		if (starts(x->s, x->n, e, after[i]) &&
		    !ascii_alpha(x->s[e + strlen(after[i])]))
			return 1;
	while (a > 0 && (x->s[a - 1] == ' ' || strchr("?!.,", x->s[a - 1])))
		a--;
	while (e < x->n && (x->s[e] == ' ' || strchr("?!.,", x->s[e])))
		e++;
	if (a == 0 && e == x->n)
		return 1;
	if (upper(x->cs[at]) && at > 0 && a > 0 && (ascii_alpha(x->s[a - 1]) ||
	    ascii_digit(x->s[a - 1]))) {
		int subject = 0;

		for (int i = 0; subjects[i]; i++)
			subject |= followed_by(x, end, subjects[i]);
		if (!subject)
			return 1;
	}
	while (end < x->n && (x->s[end] == ' ' || x->s[end] == '.'))
		end++;
	return end < x->n && ascii_digit(x->s[end]);
}

/* ---- numbers ---- */

static int
kanji_digit(int32_t cp)
{
	switch (cp) {
	case 0x3007: return 0;	/* 〇 */
	case 0x4E00: return 1;	/* 一 */
	case 0x4E8C: return 2;	/* 二 */
	case 0x4E09: return 3;	/* 三 */
	case 0x56DB: return 4;	/* 四 */
	case 0x4E94: return 5;	/* 五 */
	case 0x516D: return 6;	/* 六 */
	case 0x4E03: return 7;	/* 七 */
	case 0x516B: return 8;	/* 八 */
	case 0x4E5D: return 9;	/* 九 */
	case 0x5341: return 10;	/* 十 */
	default: return -1;
	}
}

/* A number at s[*i]: ASCII digits or kanji numerals up to 99. */
static int
read_number(const struct text *x, size_t *i, int *kanji)
{
	size_t j = *i;
	int v = 0, nd = 0;

	*kanji = 0;
	while (j < x->n && ascii_digit(x->s[j]) && nd < 5) {
		v = v * 10 + (x->s[j++] - '0');
		nd++;
	}
	if (nd) {
		if (j < x->n && ascii_digit(x->s[j]))
			return -1;
		*i = j;
		return v;
	}
	{
		int tens = 0, units = 0, seen = 0;

		for (;;) {
			size_t k = j;
			int d = j < x->n ? kanji_digit(cc_utf8_next(x->s, x->n, &k)) : -1;

			if (d < 0)
				break;
			if (d == 10) {
				tens = (units ? units : 1);
				units = 0;
			} else {
				units = units * 10 + d;
			}
			j = k;
			seen++;
		}
		if (!seen)
			return -1;
		*kanji = 1;
		*i = j;
		return tens * 10 + units;
	}
}

static const struct {
	const char *w;
	int v;
} number_words[] = {
	{"a", 1}, {"an", 1}, {"one", 1}, {"two", 2}, {"three", 3}, {"four", 4},
	{"five", 5}, {"six", 6}, {"seven", 7}, {"eight", 8}, {"nine", 9},
	{"ten", 10}, {"eleven", 11}, {"twelve", 12}, {"fourteen", 14},
	{"twenty", 20}, {"thirty", 30},
};

/* An English unit after a number: 1 day, 7 week, 30 month; 0 if none. */
static size_t
english_unit(const struct text *x, size_t at, int *days, int *months)
{
	static const struct {
		const char *w;
		int days, months;
	} units[] = {
		{"days", 1, 0}, {"day", 1, 0}, {"weeks", 7, 0}, {"week", 7, 0},
		{"months", 0, 1}, {"month", 0, 1}, {"fortnight", 14, 0},
		{"nights", 1, 0},
	};
	size_t j = at;

	while (j < x->n && x->s[j] == ' ')
		j++;
	if (j == at && j < x->n && ascii_alpha(x->s[j]) && at > 0 &&
	    ascii_alpha(x->s[at - 1]))
		return 0;
	for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
		if (starts(x->s, x->n, j, units[u].w) &&
		    !ascii_alpha(x->s[j + strlen(units[u].w)])) {
			*days = units[u].days;
			*months = units[u].months;
			return j + strlen(units[u].w);
		}
	return 0;
}

/* Skip a weekday in brackets after a date: 1/20(月), 1月20日（月）. */
static size_t
skip_weekday_note(const struct text *x, size_t j)
{
	size_t k = j;
	int32_t cp;

	if (k >= x->n || x->s[k] != '(')
		return j;
	k++;
	while (k < x->n && x->s[k] != ')' && k - j < 16)
		k++;
	if (k < x->n && x->s[k] == ')')
		return k + 1;
	(void)cp;
	return j;
}

/* The ISO weekday a note in brackets at x->s[j] names (（火）, (Tue)), or 0. */
static int
note_weekday(const struct text *x, size_t j)
{
	static const char *const ja[] = {"月", "火", "水", "木", "金", "土", "日"};
	static const char *const en[] = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};

	if (j >= x->n || x->s[j] != '(')
		return 0;
	for (int d = 0; d < 7; d++)
		if (starts(x->s, x->n, j + 1, ja[d]) || starts(x->s, x->n, j + 1, en[d]))
			return d + 1;
	return 0;
}

/*
 * A day of the month in kanji numerals (二十日, 十四日, 一日のイベント)
 * and not a count of days (一日だけ, 三日で, 一日中, 毎日, あと三日ある):
 * what follows is a particle, punctuation or the end, and what comes
 * before is no other kanji (月 apart: 今月二十日) nor a word in kana.
 */
static int
kanji_mday(const struct text *x, size_t at, size_t end)
{
	int32_t b = prev_cp(x->s, at), a = next_cp(x->s, x->n, end);

	if ((b >= 0x4E00 && b <= 0x9FFF && b != 0x6708 /* 月 */) ||
	    (hiragana(b) && !particle(b)))
		return 0;
	if (end >= x->n || a == ' ' || a == '?' || a == '!' || a == ',' ||
	    a == '(' || a == '.' || (a >= 0x3000 && a <= 0x303F) ||
	    a >= 0xFF00)
		return 1;
	return a == 0x306E /* の */ || a == 0x306B /* に */ ||
	    a == 0x306F /* は */ || a == 0x3082 /* も */ ||
	    a == 0x304B /* か(ら) */ || a == 0x307E /* ま(で) */ ||
	    a == 0x3063 || a == 0x3064 /* っ(て), folded as つ */ ||
	    a == 0x3068 /* と */ ||
	    a == 0x3084 /* や */ || a == 0x3001;
}

/* Numbers with their units at x->s[i]; returns the bytes consumed, 0 if none. */
static size_t
lex_number(struct text *x, size_t i)
{
	size_t j = i, k;
	int kanji, n, m, d, y;
	int days, months;

	if (i > 0 && (ascii_digit(x->s[i - 1]) || x->s[i - 1] == '/' ||
	    x->s[i - 1] == ':' || x->s[i - 1] == '.'))
		return 0;
	n = read_number(x, &j, &kanji);
	if (n < 0)
		return 0;
	/* clock times (19:00, 19時) and sizes are not dates */
	if (starts(x->s, x->n, j, ":") || starts(x->s, x->n, j, "時"))
		return j - i;
	/* years: 2025年, 2025年2月, 2025年2月3日, 2025-02-03, 2025/2/3 */
	if (!kanji && n >= 1900 && n <= 2200) {
		if (starts(x->s, x->n, j, "年")) {
			k = j + strlen("年");
			y = n;
			size_t k2 = k;
			m = read_number(x, &k2, &kanji);
			if (m >= 1 && m <= 12 && starts(x->s, x->n, k2, "月")) {
				k2 += strlen("月");
				size_t k3 = k2;
				d = read_number(x, &k3, &kanji);
				if (d >= 1 && d <= cc_days_in_month(y, m) &&
				    starts(x->s, x->n, k3, "日")) {
					k3 = skip_weekday_note(x, k3 + strlen("日"));
					add_tok(x, T_DATE, m, d, y, i, k3);
					return k3 - i;
				}
				add_tok(x, T_MONTH, m, y, 0, i, k2);
				return k2 - i;
			}
			add_tok(x, T_YEAR, y, 0, 0, i, k);
			return k - i;
		}
		if (j < x->n && (x->s[j] == '-' || x->s[j] == '/')) {
			char sep = x->s[j];
			size_t k2 = j + 1;

			m = read_number(x, &k2, &kanji);
			if (!kanji && m >= 1 && m <= 12 && k2 < x->n && x->s[k2] == sep) {
				size_t k3 = k2 + 1;

				d = read_number(x, &k3, &kanji);
				if (!kanji && d >= 1 && d <= cc_days_in_month(n, m)) {
					k3 = skip_weekday_note(x, k3);
					add_tok(x, T_DATE, m, d, n, i, k3);
					return k3 - i;
				}
			}
		}
		return j - i;
	}
	/* M/D (Japanese and US order) */
	if (!kanji && j < x->n && x->s[j] == '/' && n >= 1 && n <= 12) {
		size_t k2 = j + 1;

		d = read_number(x, &k2, &kanji);
		if (!kanji && d >= 1 && d <= 31 &&
		    !(k2 < x->n && (x->s[k2] == '/' || ascii_digit(x->s[k2])))) {
			k2 = skip_weekday_note(x, k2);
			add_tok(x, T_DATE, n, d, 0, i, k2);
			return k2 - i;
		}
		return 0;
	}
	/* N週間, N日間, Nか月, with 後 (after) or 以内 (within) */
	if (starts(x->s, x->n, j, "週間") || starts(x->s, x->n, j, "週")) {
		k = j + strlen(starts(x->s, x->n, j, "週間") ? "週間" : "週");
		if (starts(x->s, x->n, k, "後")) {
			add_tok(x, T_AFTER, 0, n, 0, i, k + strlen("後"));
			return k + strlen("後") - i;
		}
		add_tok(x, T_DUR, 7 * n, 0, 0, i, k);
		return k - i;
	}
	if (starts(x->s, x->n, j, "か月") || starts(x->s, x->n, j, "け月") ||
	    starts(x->s, x->n, j, "こ月") || starts(x->s, x->n, j, "箇月")) {
		k = j + strlen("か月");
		if (starts(x->s, x->n, k, "間"))
			k += strlen("間");
		if (starts(x->s, x->n, k, "後")) {
			add_tok(x, T_AFTER, 0, 0, n, i, k + strlen("後"));
			return k + strlen("後") - i;
		}
		add_tok(x, T_DUR, 0, n, 0, i, k);
		return k - i;
	}
	if (starts(x->s, x->n, j, "日")) {
		k = j + strlen("日");
		if (starts(x->s, x->n, k, "間")) {
			add_tok(x, T_DUR, n, 0, 0, i, k + strlen("間"));
			return k + strlen("間") - i;
		}
		if (starts(x->s, x->n, k, "後") || starts(x->s, x->n, k, "前")) {
			int sign = starts(x->s, x->n, k, "後") ? 1 : -1;

			add_tok(x, T_AFTER, sign * n, 0, 0, i, k + strlen("後"));
			return k + strlen("後") - i;
		}
		if (starts(x->s, x->n, k, "以内") || starts(x->s, x->n, k, "のうち")) {
			add_tok(x, T_DUR, n, 0, 0, i, k);
			return k - i;
		}
		if (n >= 1 && n <= 31 && (!kanji || kanji_mday(x, i, k))) {
			int wd = note_weekday(x, k);	/* 25日（火）: b, its weekday */

			k = skip_weekday_note(x, k);
			add_tok(x, T_MDAY, n, wd, 0, i, k);
			return k - i;
		}
		return k - i;
	}
	if (starts(x->s, x->n, j, "月") && !starts(x->s, x->n, j, "月曜") &&
	    n >= 1 && n <= 12) {
		k = j + strlen("月");
		size_t k2 = k;

		d = read_number(x, &k2, &kanji);
		if (d >= 1 && d <= 31 && starts(x->s, x->n, k2, "日")) {
			k2 = skip_weekday_note(x, k2 + strlen("日"));
			add_tok(x, T_DATE, n, d, 0, i, k2);
			return k2 - i;
		}
		add_tok(x, T_MONTH, n, 0, 0, i, k);
		return k - i;
	}
	/* 第3金曜: the third Friday */
	if (i >= 3 && starts(x->s, x->n, i - 3, "第") && n >= 1 && n <= 5) {
		add_tok(x, T_MDAY, n, 0, 1, i - 3, j);
		return j - i;
	}
	if (kanji)
		return j - i;
	/* English: 7 days, 20th, 20th of January, 20 Jan */
	if ((k = english_unit(x, j, &days, &months))) {
		add_tok(x, T_DUR, n * days, n * months, days >= 7, i, k);
		return k - i;
	}
	if (n >= 1 && n <= 31) {
		k = j;
		if (starts(x->s, x->n, k, "st") || starts(x->s, x->n, k, "nd") ||
		    starts(x->s, x->n, k, "rd") || starts(x->s, x->n, k, "th"))
			k += 2;
		if (k < x->n && ascii_alpha(x->s[k]))
			return 0;
		/* "20 January", "20th of Jan": the month name follows */
		size_t k2 = k;
		while (k2 < x->n && x->s[k2] == ' ')
			k2++;
		if (starts(x->s, x->n, k2, "of "))
			k2 += 3;
		for (size_t l = 0; l < NLEX; l++)
			if (lexicon[l].type == T_MONTH && !(lexicon[l].flags & F_CTX) &&
			    starts(x->s, x->n, k2, lexstr[l]) &&
			    !ascii_alpha(x->s[k2 + lexlen[l]])) {
				add_tok(x, T_DATE, lexicon[l].a, n, 0, i, k2 + lexlen[l]);
				return k2 + lexlen[l] - i;
			}
		if (k > j) {	/* an ordinal alone: the 20th, the 3rd (Tuesday) */
			add_tok(x, T_MDAY, n, 0, 1, i, k);
			return k - i;
		}
	}
	return j - i;
}

/* After an English month name: "Jan 20", "January 20th, 2025". */
static size_t
month_day(struct text *x, size_t end, int month, size_t at)
{
	size_t j = end, k;
	int kanji, d, y = 0;

	if (j < x->n && x->s[j] == '.')
		j++;
	while (j < x->n && x->s[j] == ' ')
		j++;
	k = j;
	d = read_number(x, &k, &kanji);
	if (kanji || d < 1 || d > 31)
		return 0;
	if (starts(x->s, x->n, k, "st") || starts(x->s, x->n, k, "nd") ||
	    starts(x->s, x->n, k, "rd") || starts(x->s, x->n, k, "th"))
		k += 2;
	if (k < x->n && (ascii_alpha(x->s[k]) || x->s[k] == ':'))
		return 0;
	{
		size_t k2 = k;

		if (k2 < x->n && x->s[k2] == ',')
			k2++;
		while (k2 < x->n && x->s[k2] == ' ')
			k2++;
		size_t k3 = k2;
		y = read_number(x, &k3, &kanji);
		if (!kanji && y >= 1900 && y <= 2200)
			k = k3;
		else
			y = 0;
	}
	add_tok(x, T_DATE, month, d, y, at, k);
	return k;
}

static int
number_word(const struct text *x, size_t i, size_t *end)
{
	for (size_t w = 0; w < sizeof number_words / sizeof number_words[0]; w++) {
		size_t k = strlen(number_words[w].w);

		if (starts(x->s, x->n, i, number_words[w].w) &&
		    !ascii_alpha(x->s[i + k])) {
			*end = i + k;
			return number_words[w].v;
		}
	}
	return -1;
}

/* "first" ... "fifth" before a weekday ("the first Saturday"); 0 if not. */
static int
ordinal_weekday(const struct text *x, size_t i, size_t *end)
{
	static const char *const ords[] = {"first", "second", "third", "fourth",
	    "fifth", NULL};
	static const char *const days[] = {"mon", "tue", "wed", "thu", "fri",
	    "sat", "sun", NULL};

	for (int o = 0; ords[o]; o++) {
		size_t k = strlen(ords[o]), j = i + k;

		if (!starts(x->s, x->n, i, ords[o]) || (j < x->n && ascii_alpha(x->s[j])))
			continue;
		while (j < x->n && x->s[j] == ' ')
			j++;
		for (int d = 0; days[d]; d++)
			if (starts(x->s, x->n, j, days[d])) {
				*end = i + k;
				return o + 1;
			}
		return 0;
	}
	return 0;
}

/* 水・木, 土・日: a weekday by its one kanji, listed with ・; 0 if not */
static int
weekday_kanji(const struct text *x, size_t i)
{
	static const char *const k[] = {"月", "火", "水", "木", "金", "土", "日"};
	static const char dot[] = "\xe3\x83\xbb";	/* ・ */

	for (int d = 0; d < 7; d++) {
		size_t at;

		if (!starts(x->s, x->n, i, k[d]))
			continue;
		at = i + strlen(k[d]);
		if (starts(x->s, x->n, at, "曜"))
			return 0;
		if (starts(x->s, x->n, at, dot)) {
			for (int e = 0; e < 7; e++)
				if (starts(x->s, x->n, at + 3, k[e]))
					return d + 1;
		}
		/* 月〜木曜, 月～金 (the wave folded to ー after a kanji): the
		 * first day of a range of weekdays, and the day after it */
		for (int w = 0; w < 2; w++) {
			const char *wave = w ? "~" : "\xe3\x83\xbc";
			size_t wl = strlen(wave);

			for (int e = 0; e < 7; e++)
				if ((starts(x->s, x->n, at, wave) &&
				    starts(x->s, x->n, at + wl, k[e])) ||
				    (i >= wl + 3 && starts(x->s, x->n, i - wl, wave) &&
				    starts(x->s, x->n, i - wl - 3, k[e])))
					return d + 1;
		}
		if (i >= 6 && starts(x->s, x->n, i - 3, dot))
			for (int e = 0; e < 7; e++)
				if (starts(x->s, x->n, i - 6, k[e]))
					return d + 1;
		return 0;
	}
	return 0;
}

static void
lex(struct text *x)
{
	size_t i = 0;

	if (!lex_ready)
		lex_init();
	while (i < x->n && x->nt < MAXTOK) {
		unsigned char c = (unsigned char)x->s[i];
		int32_t before = 0;
		size_t adv;

		/* URLs hold digits and words that are not times */
		if ((c == 'h' && (starts(x->s, x->n, i, "http://") ||
		    starts(x->s, x->n, i, "https://"))) ||
		    (c == 'w' && starts(x->s, x->n, i, "www."))) {
			while (i < x->n && x->s[i] != ' ')
				i++;
			continue;
		}
		if (ascii_digit(c) || (c >= 0xE3 && kanji_digit(next_cp(x->s, x->n, i)) > 0)) {
			int had = x->nt;

			adv = lex_number(x, i);
			/* a kanji numeral with no unit may begin a word: 一昨日 */
			if (adv && (x->nt > had || ascii_digit(c))) {
				i += adv;
				continue;
			}
		}
		if ((c == 0xE5 || c == 0xE6 || c == 0xE7 || c == 0xE9) && x->nt < MAXTOK) {
			int wd = weekday_kanji(x, i);

			if (wd) {
				add_tok(x, T_WEEKDAY, wd, NO_REL, 0, i, i + 3);
				i += 3;
				continue;
			}
		}
		if (ascii_alpha(c) && (i == 0 || !ascii_alpha(x->s[i - 1]))) {
			size_t e;
			int v, days, months;
			size_t k;

			if ((v = ordinal_weekday(x, i, &k)) > 0) {
				/* "the first Saturday": the nth weekday of a month */
				add_tok(x, T_MDAY, v, 0, 1, i, k);
				i = k;
				continue;
			}
			v = number_word(x, i, &e);
			if (v > 0 && (k = english_unit(x, e, &days, &months))) {
				add_tok(x, T_DUR, v * days, v * months, days >= 7, i, k);
				i = k;
				continue;
			}
		}
		{
			const unsigned short *cand = buckets[bucket_of((const unsigned char *)x->s + i)].v;
			unsigned nc = buckets[bucket_of((const unsigned char *)x->s + i)].n;
			const struct lexeme *hit = NULL;
			size_t hl = 0;

			if (c < 0x80 && ascii_alpha(c) && i > 0 && ascii_alpha(x->s[i - 1]))
				nc = 0;	/* inside an English word */
			for (unsigned k = 0; k < nc; k++) {
				const struct lexeme *l = &lexicon[cand[k]];
				size_t ln = lexlen[cand[k]];

				if (i + ln > x->n || memcmp(x->s + i, lexstr[cand[k]], ln) != 0)
					continue;
				if ((l->flags & F_WORD) && i + ln < x->n &&
				    (ascii_alpha(x->s[i + ln]) || ascii_digit(x->s[i + ln])))
					continue;
				if (l->flags & F_KANA) {
					before = prev_cp(x->s, i);
					if (hiragana(before) && !particle(before))
						continue;
				}
				if ((l->flags & F_RB) && !kana_end(next_cp(x->s, x->n, i + ln)))
					continue;
				if ((l->flags & F_NOHA) && (starts(x->s, x->n, i + ln, "は") ||
				    starts(x->s, x->n, i + ln, "わ")))
					continue;
				if ((l->flags & F_CTX) && !time_context(x, i, i + ln))
					continue;
				if (l->type == T_WHEN && starts(x->s, x->n, i + ln, "も"))
					continue;	/* いつも: always */
				hit = l;
				hl = ln;
				break;
			}
			if (hit) {
				if (hit->type == T_MONTH) {
					size_t k = month_day(x, i + hl, hit->a, i);

					if (k) {
						i = k;
						continue;
					}
				}
				add_tok(x, hit->type, hit->a, hit->b, 0, i, i + hl);
				i += hl;
				continue;
			}
		}
		if (c < 0x80 && ascii_alpha(c)) {
			while (i < x->n && ascii_alpha(x->s[i]))
				i++;
			continue;
		}
		i += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	}
}

/* ---- titles: time words inside an event's name are not times ---- */

/*
 * "Today I Learned", "This Week in AI": a capitalised time word followed
 * by two more capitalised words (short linking words allowed between) is
 * part of a title.  All-capitals text says nothing about titles.
 */
static int
title_case_run(const struct text *x, const struct tok *t)
{
	size_t i = t->at;
	int caps = 0, words = 0;

	if (!upper(x->cs[t->at]))
		return 0;
	for (size_t k = 0; k < x->n; k++)
		if (x->cs[k] >= 'a' && x->cs[k] <= 'z')
			goto mixed;
	return 0;	/* ALL CAPITALS */
mixed:
	/* skip the first word (a named day: all its words, New Year's Day);
	 * count capitalised words after it */
	if (t->type == T_DATE)
		i = t->end;
	while (i < x->n && ascii_alpha(x->cs[i]))
		i++;
	while (i < x->n && words < 5) {
		size_t w;

		while (i < x->n && x->cs[i] == ' ')
			i++;
		if (i >= x->n || !ascii_alpha(x->cs[i]))
			break;
		w = i;
		while (i < x->n && (ascii_alpha(x->cs[i]) || x->cs[i] == '\''))
			i++;
		words++;
		if (upper(x->cs[w])) {
			/* "Today I want ...": a lone I begins a sentence */
			if (i - w == 1 && x->cs[w] == 'I' && caps == 0) {
				size_t j = i;

				while (j < x->n && x->cs[j] == ' ')
					j++;
				if (j >= x->n || !upper(x->cs[j]))
					return 0;
			}
			if (++caps >= 2)
				return 1;
			continue;
		}
		/* linking words inside titles: This Week in Rust */
		if ((i - w == 2 && (starts(x->s, x->n, w, "in") ||
		    starts(x->s, x->n, w, "of"))) ||
		    (i - w == 3 && (starts(x->s, x->n, w, "the") ||
		    starts(x->s, x->n, w, "and") || starts(x->s, x->n, w, "for"))))
			continue;
		return 0;
	}
	return 0;
}

/* Drop time words inside quotations (「今日の一冊」読書会) and titles. */
static void
drop_titles(struct text *x)
{
	static const char *const open[] = {"「", "『", "\"", "\xe2\x80\x9c", NULL};
	static const char *const close[] = {"」", "』", "\"", "\xe2\x80\x9d", NULL};

	for (int q = 0; open[q]; q++) {
		size_t i = 0;
		const char *o;

		while ((o = strstr(x->s + i, open[q])) != NULL) {
			size_t from = (size_t)(o - x->s) + strlen(open[q]);
			const char *c = strstr(x->s + from, close[q]);
			size_t to;

			if (!c)
				break;
			to = (size_t)(c - x->s);
			for (int k = 0; k < x->nt; k++)
				if (x->t[k].at >= from && x->t[k].end <= to)
					x->t[k].dropped = 1;
			i = to + strlen(close[q]);
		}
	}
	/*
	 * 'Python Today': single quotes too, told from apostrophes (when's,
	 * the users' room) by what is around them: an opening quote after no
	 * letter or digit, a closing one before none.
	 */
	for (size_t i = 0; i < x->n; i++) {
		size_t from, to;

		if (x->s[i] != '\'' || (i > 0 && isalnum((unsigned char)x->s[i - 1])))
			continue;
		from = i + 1;
		for (to = from; to < x->n; to++)
			if (x->s[to] == '\'' && to > from && x->s[to - 1] != ' ' &&
			    (to + 1 == x->n || !isalnum((unsigned char)x->s[to + 1])))
				break;
		if (to >= x->n)
			break;
		for (int k = 0; k < x->nt; k++)
			if (x->t[k].at >= from && x->t[k].end <= to)
				x->t[k].dropped = 1;
		i = to;
	}
	for (int k = 0; k < x->nt; k++)
		if (x->t[k].type != T_QUAL && ascii_alpha(x->cs[x->t[k].at]) &&
		    title_case_run(x, &x->t[k]))
			x->t[k].dropped = 1;
}

/* ---- 2. compose words into mentions ---- */

struct mention {
	size_t at, end;
	struct cc_date first, last;
	const char *kind;
	int weekday, days, month_year, month, part;
	int monthpart;		/* MP_* when a part of a month (月末) */
	int bare;		/* a bare weekday or day of month: may move
				   forward to follow the start of a span */
	int negated, context, attributive;
	int corrected;		/* said, then taken back (correct()) */
	int has_wk;		/* a weekday of a named week (来週の水曜): */
	struct cc_date wk;	/* that week's Monday */
};

#define MAXMENT 16

struct reading {
	struct text *x;
	struct cc_date today;
	struct cc_date monday;	/* of this ISO week */
	struct mention m[MAXMENT];
	int nm;
};

/* The gap between two places, spaces removed, is one of the words. */
static int
gap_is(const struct text *x, size_t from, size_t to, const char *const *words)
{
	char g[48];
	size_t n = 0;

	if (to < from || to - from >= sizeof g)
		return 0;
	for (size_t i = from; i < to; i++)
		if (x->s[i] != ' ')
			g[n++] = x->s[i];
	g[n] = '\0';
	for (int i = 0; words[i]; i++)
		if (strcmp(g, words[i]) == 0)
			return 1;
	return 0;
}

static const char *const glue_words[] = {"", "の", "'s", "\xe2\x80\x99s", "of",
	"ofthe", "on", "onthe", "at", "the", "に", "(", "(the", NULL};

struct phrase {
	int has_day, day, part;
	int has_week, week;
	int has_weekend, weekend;
	int has_weekday, weekday, weekday_week;
	int has_monthrel, monthrel, monthrel_generic;
	int has_month, month, month_year;
	int has_mday, mday, mday_ordinal, nth, mday_weekday;
	int has_date, date_m, date_d, date_y;
	int has_year, year, has_yearrel, yearrel;
	int has_monthpart, monthpart, monthpart_rel;
	int qual;
	int dur_days, dur_months, has_dur, anchored;
	int after_days, after_weeks, after_months, has_after;
	size_t at, end;
};

static struct cc_date
month_start(struct cc_date today, int offset)
{
	int m = today.month - 1 + offset;
	int y = today.year + (m >= 0 ? m / 12 : -((11 - m) / 12));

	m = ((m % 12) + 12) % 12;
	return (struct cc_date){ y, m + 1, 1 };
}

static struct cc_date
month_end(struct cc_date first)
{
	return (struct cc_date){ first.year, first.month,
	    cc_days_in_month(first.year, first.month) };
}

static void
set_days(struct mention *m, struct cc_date first, struct cc_date last,
    const char *kind)
{
	m->first = first;
	m->last = last;
	m->kind = kind;
}

/* A date with no year: within the last month it is past, else the next one. */
static struct cc_date
date_near(struct cc_date today, int month, int day)
{
	struct cc_date d = { today.year, month, day };

	if (day > cc_days_in_month(d.year, month))
		d.day = cc_days_in_month(d.year, month);
	if (cc_date_diff(d, today) > 31)
		d.year++;
	if (day > cc_days_in_month(d.year, month))
		d.day = cc_days_in_month(d.year, month);
	return d;
}

/* A day of the month with no month: this month's unless it has passed,
 * else the next month's that has the day. */
static struct cc_date
mday_near(struct cc_date today, int day)
{
	for (int off = 0; off <= 2; off++) {
		struct cc_date f = month_start(today, off);

		if (day <= cc_days_in_month(f.year, f.month) &&
		    (off > 0 || day >= today.day))
			return (struct cc_date){ f.year, f.month, day };
	}
	return (struct cc_date){0, 0, 0};
}

static const char *
day_kind(int off)
{
	switch (off) {
	case 0: return "today";
	case 1: return "tomorrow";
	case 2: return "dayAfterTomorrow";
	case -1: return "yesterday";
	default: return "date";
	}
}

static const char *
week_kind(int off)
{
	switch (off) {
	case 0: return "thisWeek";
	case 1: return "nextWeek";
	case 2: return "weekAfterNext";
	case -1: return "lastWeek";
	default: return "range";
	}
}

/* Resolve a phrase to a mention; 0 if it names no range. */
static int
resolve(const struct reading *rd, const struct phrase *p, struct mention *m)
{
	struct cc_date t = rd->today, mon = rd->monday, f, l;

	*m = (struct mention){ .at = p->at, .end = p->end, .part = P_NONE };
	if (p->has_dur && (p->anchored || p->has_day)) {
		int days = p->dur_days;

		f = p->has_day ? cc_date_add(t, p->day) : t;
		if (p->dur_months) {
			struct cc_date e = month_start(f, p->dur_months);

			e.day = f.day <= cc_days_in_month(e.year, e.month) ? f.day :
			    cc_days_in_month(e.year, e.month);
			days = (int)cc_date_diff(f, e);
		}
		if (days < 1 || days > 400)
			return 0;
		set_days(m, f, cc_date_add(f, days - 1),
		    !p->has_day || p->day == 0 ? "nextNDays" : "range");
		m->days = days;
		return 1;
	}
	if (p->has_dur && !p->anchored && !p->has_day && (p->has_weekday ||
	    p->has_date || p->has_mday) && !p->dur_months) {
		/* 金曜から3日間: that day and the days after it */
		struct phrase q = *p;
		int days = p->dur_days;

		q.has_dur = 0;
		if (days < 1 || days > 400 || !resolve(rd, &q, m))
			return 0;
		f = m->first;
		*m = (struct mention){ .at = p->at, .end = p->end, .part = P_NONE };
		set_days(m, f, cc_date_add(f, days - 1), "range");
		m->days = days;
		return 1;
	}
	if (p->has_after) {
		if (p->after_weeks) {
			f = cc_date_add(mon, 7 * p->after_weeks);
			set_days(m, f, cc_date_add(f, 6), week_kind(p->after_weeks));
		} else if (p->after_months) {
			f = month_start(t, p->after_months);
			set_days(m, f, month_end(f),
			    p->after_months == 1 ? "nextMonth" : "month");
			m->month_year = f.year;
			m->month = f.month;
		} else {
			int off = p->after_days + (p->has_day ? p->day : 0);

			f = cc_date_add(t, off);
			set_days(m, f, f, off >= -1 && off <= 2 ? day_kind(off) : "date");
		}
		return 1;
	}
	if (p->has_date) {
		if (p->date_y) {
			f = (struct cc_date){ p->date_y, p->date_m, p->date_d };
			if (p->date_d > cc_days_in_month(p->date_y, p->date_m))
				return 0;
		} else {
			f = date_near(t, p->date_m, p->date_d);
		}
		set_days(m, f, f, "date");
		m->part = p->part;
		return 1;
	}
	if (p->has_mday) {
		if (p->has_monthrel || p->has_month) {
			struct cc_date ms = p->has_monthrel ? month_start(t, p->monthrel) :
			    (struct cc_date){ p->month_year ? p->month_year :
			    (p->month >= t.month ? t.year : t.year + 1), p->month, 1 };

			if (p->mday > cc_days_in_month(ms.year, ms.month))
				return 0;
			f = (struct cc_date){ ms.year, ms.month, p->mday };
		} else {
			f = mday_near(t, p->mday);
			if (!f.year)
				return 0;
			/*
			 * "Tuesday the 25th" with the 25th a Saturday this
			 * month: the next month in the coming year whose 25th
			 * is a Tuesday; none, the day as said
			 */
			int want = p->has_weekday ? p->weekday : p->mday_weekday;

			if (want >= 1 && want <= 7 && cc_date_weekday(f) != want)
				for (int off = 1; off <= 12; off++) {
					struct cc_date ms = month_start(f, off);
					struct cc_date g = { ms.year, ms.month, p->mday };

					if (p->mday <= cc_days_in_month(ms.year, ms.month) &&
					    cc_date_weekday(g) == want) {
						f = g;
						break;
					}
				}
			m->bare = 2;
		}
		set_days(m, f, f, "date");
		m->part = p->part;
		return 1;
	}
	if (p->has_day) {
		f = cc_date_add(t, p->day);
		set_days(m, f, f, day_kind(p->day));
		m->part = p->part;
		return 1;
	}
	/*
	 * The last weekday of a month: 今月最後の月曜, 来月の最終金曜, "the
	 * last Monday of this month" ("last Monday" alone is last week's);
	 * with no month named, this month's, or next month's once passed.
	 */
	if (p->has_weekday && !p->nth && (p->qual == Q_FINAL ||
	    (p->qual == Q_LAST && (p->has_monthrel || p->has_month)) ||
	    (p->has_monthpart && p->monthpart == MP_END))) {
		struct cc_date ms = p->has_monthrel ? month_start(t, p->monthrel) :
		    p->has_monthpart && p->monthpart_rel != NO_REL && !p->has_month ?
		    month_start(t, p->monthpart_rel) :
		    p->has_month ? (struct cc_date){ p->month_year ? p->month_year :
		    (p->month >= t.month ? t.year : t.year + 1), p->month, 1 } :
		    month_start(t, 0);
		int fixed = (p->has_monthrel && !p->monthrel_generic) || p->has_month ||
		    (p->has_monthpart && p->monthpart_rel != NO_REL);

		for (int tries = 0; tries < 2; tries++) {
			struct cc_date e = month_end(ms);

			f = cc_date_add(e, -((cc_date_weekday(e) - p->weekday + 7) % 7));
			if (fixed || cc_date_cmp(f, t) >= 0) {
				set_days(m, f, f, "date");
				m->weekday = p->weekday;
				m->part = p->part;
				return 1;
			}
			ms = month_start(ms, 1);
		}
		return 0;
	}
	if (p->has_weekday && p->nth) {
		struct cc_date ms = p->has_monthrel ? month_start(t, p->monthrel) :
		    p->has_month ? (struct cc_date){ p->month_year ? p->month_year :
		    (p->month >= t.month ? t.year : t.year + 1), p->month, 1 } :
		    month_start(t, 0);
		int fixed = (p->has_monthrel && !p->monthrel_generic) || p->has_month;

		/* this month's, or next month's once it has passed */
		for (int tries = 0; tries < 2; tries++) {
			int day = 1 + (p->weekday - cc_date_weekday(ms) + 7) % 7 +
			    7 * (p->nth - 1);

			f = (struct cc_date){ ms.year, ms.month, day };
			if (day <= cc_days_in_month(ms.year, ms.month) &&
			    (fixed || cc_date_cmp(f, t) >= 0)) {
				set_days(m, f, f, "date");
				m->weekday = p->weekday;
				m->part = p->part;
				return 1;
			}
			if (fixed)
				return 0;
			ms = month_start(ms, 1);
		}
		return 0;
	}
	if (p->has_weekday) {
		int wd = p->weekday, week = p->weekday_week;
		int twd = cc_date_weekday(t);

		if (week == NO_REL && p->has_week)
			week = p->week;
		if (week != NO_REL) {
			f = cc_date_add(mon, 7 * week + wd - 1);
		} else {
			switch (p->qual) {
			case Q_THIS:
				f = cc_date_add(mon, wd - 1);
				break;
			case Q_NEXT:	/* "next Friday": Friday of next week */
				f = cc_date_add(mon, 7 + wd - 1);
				break;
			case Q_COMING:	/* 次の金曜, "coming Friday": after today */
				f = cc_date_add(t, (wd - twd + 6) % 7 + 1);
				break;
			case Q_LAST:
				f = cc_date_add(t, -((twd - wd + 6) % 7 + 1));
				break;
			default:	/* not passed yet: today counts */
				f = cc_date_add(t, (wd - twd + 7) % 7);
				m->bare = 1;
			}
		}
		set_days(m, f, f, "weekday");
		m->weekday = wd;
		m->part = p->part;
		if (!m->bare) {
			m->has_wk = 1;
			m->wk = cc_date_add(f, 1 - wd);
		}
		return 1;
	}
	if (p->has_weekend) {
		int w = p->weekend;

		if (p->has_week)
			w = p->week;
		else if (p->qual == Q_NEXT)
			w = 1;
		else if (p->qual == Q_LAST)
			w = -1;
		f = cc_date_add(mon, 7 * w + 5);
		set_days(m, f, cc_date_add(f, 1), w == 0 ? "thisWeekend" :
		    w == 1 ? "nextWeekend" : "range");
		return 1;
	}
	if (p->has_week) {
		f = cc_date_add(mon, 7 * p->week);
		set_days(m, f, cc_date_add(f, 6), week_kind(p->week));
		return 1;
	}
	if (p->has_monthpart) {
		int rel = p->monthpart_rel;
		struct cc_date ms;
		int last;

		if (p->has_monthrel)
			rel = p->monthrel;
		if (p->has_month)
			ms = (struct cc_date){ p->month_year ? p->month_year :
			    (p->month >= t.month ? t.year : t.year + 1), p->month, 1 };
		else
			ms = month_start(t, rel == NO_REL ? 0 : rel);
		last = cc_days_in_month(ms.year, ms.month);
		switch (p->monthpart) {
		case MP_BEGIN: f = ms; l = cc_date_add(ms, 6); break;
		case MP_EARLY: f = ms; l = (struct cc_date){ ms.year, ms.month, 10 }; break;
		case MP_MID:
			f = (struct cc_date){ ms.year, ms.month, 11 };
			l = (struct cc_date){ ms.year, ms.month, 20 };
			break;
		case MP_LATE:
			f = (struct cc_date){ ms.year, ms.month, 21 };
			l = month_end(ms);
			break;
		default:
			f = (struct cc_date){ ms.year, ms.month, last - 6 };
			l = month_end(ms);
		}
		set_days(m, f, l, "range");
		m->monthpart = p->monthpart;
		return 1;
	}
	if (p->has_month) {
		int y = p->month_year;

		if (!y)
			y = p->has_yearrel ? t.year + p->yearrel : p->has_year ? p->year :
			    p->qual == Q_NEXT && p->month <= t.month ? t.year + 1 :
			    p->month >= t.month ? t.year : t.year + 1;
		f = (struct cc_date){ y, p->month, 1 };
		set_days(m, f, month_end(f), "month");
		m->month_year = y;
		m->month = p->month;
		return 1;
	}
	if (p->has_monthrel) {
		f = month_start(t, p->monthrel);
		set_days(m, f, month_end(f), p->monthrel == 0 ? "thisMonth" :
		    p->monthrel == 1 ? "nextMonth" : "month");
		m->month_year = f.year;
		m->month = f.month;
		return 1;
	}
	if (p->has_year || p->has_yearrel) {
		int y = p->has_year ? p->year : t.year + p->yearrel;

		f = (struct cc_date){ y, 1, 1 };
		set_days(m, f, (struct cc_date){ y, 12, 31 },
		    y == t.year ? "thisYear" : y == t.year + 1 ? "nextYear" : "range");
		return 1;
	}
	return 0;
}

/* Add token t to phrase p; 0 if the slot is taken (a new phrase starts). */
static int
absorb(struct phrase *p, const struct tok *t)
{
	switch (t->type) {
	case T_DAY:
		if (p->has_day || p->has_date || p->has_weekday)
			return 0;
		p->has_day = 1;
		p->day = t->a;
		if (t->b)
			p->part = t->b;
		return 1;
	case T_PART:
		if (p->part)
			return 0;
		p->part = t->a;
		return 1;
	case T_WEEK:
		if (p->has_week || p->has_day)
			return 0;
		p->has_week = 1;
		p->week = t->a;
		return 1;
	case T_WEEKEND:
		if (p->has_weekend || p->has_weekday)
			return 0;
		p->has_weekend = 1;
		p->weekend = t->a;
		return 1;
	case T_WEEKDAY:
		if (p->has_mday && p->mday_ordinal && p->mday <= 5 && !p->has_weekday) {
			/* "the 3rd Tuesday", 第3火曜: the nth weekday of a month */
			p->has_mday = 0;
			p->nth = p->mday;
			p->has_weekday = 1;
			p->weekday = t->a;
			p->weekday_week = NO_REL;
			return 1;
		}
		if (p->has_weekday || p->has_weekend || p->has_date || p->has_mday)
			return p->has_date || p->has_mday;	/* 1/20 (Mon) */
		p->has_weekday = 1;
		p->weekday = t->a;
		p->weekday_week = t->b;
		return 1;
	case T_MONTHREL:
		if (p->has_monthrel || p->has_month)
			return 0;
		p->has_monthrel = 1;
		p->monthrel = t->a;
		p->monthrel_generic = t->b;
		return 1;
	case T_MONTHPART:
		if (p->has_monthpart)
			return 0;
		p->has_monthpart = 1;
		p->monthpart = t->a;
		p->monthpart_rel = t->b;
		return 1;
	case T_MONTH:
		if (p->has_month || p->has_monthrel || p->has_date)
			return 0;
		p->has_month = 1;
		p->month = t->a;
		p->month_year = t->b;
		return 1;
	case T_YEAR:
		if (p->has_year || p->has_yearrel)
			return 0;
		p->has_year = 1;
		p->year = t->a;
		if (p->has_month && !p->month_year)
			p->month_year = t->a;
		return 1;
	case T_YEARREL:
		if (p->has_year || p->has_yearrel)
			return 0;
		p->has_yearrel = 1;
		p->yearrel = t->a;
		return 1;
	case T_DATE:
		if (p->has_date || p->has_day || p->has_mday)
			return 0;
		p->has_date = 1;
		p->date_m = t->a;
		p->date_d = t->b;
		p->date_y = t->c;
		return 1;
	case T_MDAY:
		if (p->has_mday || p->has_date || p->has_day)
			return 0;
		p->has_mday = 1;
		p->mday = t->a;
		p->mday_ordinal = t->c;
		p->mday_weekday = t->b;
		return 1;
	case T_QUAL:
		if (p->qual || p->has_weekday || p->has_weekend || p->has_month)
			return 0;
		p->qual = t->a;
		return 1;
	case T_DUR:
		if (p->has_dur)
			return 0;
		p->has_dur = 1;
		p->dur_days = t->a;
		p->dur_months = t->b;
		return 1;
	case T_AFTER:
		if (p->has_after)
			return 0;
		p->has_after = 1;
		p->after_days = t->a;
		p->after_weeks = t->b;
		p->after_months = t->c;
		return 1;
	}
	return 0;
}

static int
phrase_names_time(const struct phrase *p)
{
	return p->has_day || p->has_week || p->has_weekend || p->has_weekday ||
	    p->has_monthrel || p->has_month || p->has_mday || p->has_date ||
	    p->has_year || p->has_yearrel || p->has_monthpart ||
	    (p->has_dur && (p->anchored || p->has_day)) || p->has_after;
}

/* Words that count today in a duration: 今日を含めて3日間, "next 3 days
 * incl today", "the next 5 days, today included". */
static const char *const incl_before[] = {"incl", "incl.", "including",
	"inclusive of", "counting", "plus", "with", NULL};
static const char *const incl_after[] = {"included", "inclusive", "incl",
	"including", "counted", "を含", "も含", "を入れ", "も入れ", "込み", "こみ",
	"から数え", NULL};

/* The today at [at, end) only says a duration counts it. */
static int
today_included(const struct text *x, size_t at, size_t end)
{
	for (int i = 0; incl_before[i]; i++)
		if (preceded_by(x, at, incl_before[i]))
			return 1;
	for (int i = 0; incl_after[i]; i++)
		if (followed_by(x, end, incl_after[i]))
			return 1;
	return 0;
}

/* The question says a duration counts today. */
static int
includes_today(const struct text *x)
{
	for (int i = 0; i < x->nt; i++)
		if (x->t[i].type == T_DAY && x->t[i].a == 0 && !x->t[i].dropped &&
		    today_included(x, x->t[i].at, x->t[i].end))
			return 1;
	return 0;
}

/* A duration counts from today: これから一週間, "the next 7 days", 7日以内. */
static int
anchored_duration(const struct text *x, int k, const struct phrase *p)
{
	const struct tok *t = &x->t[k];

	if (p->qual == Q_NEXT || p->qual == Q_COMING)
		return 1;
	if (k > 0 && x->t[k - 1].type == T_ANCHOR && !x->t[k - 1].dropped &&
	    gap_is(x, x->t[k - 1].end, t->at, (const char *const[]){"", "の", "the",
	    "thenext", "a", NULL}))
		return 1;
	if (followed_by(x, t->end, "以内") || followed_by(x, t->end, "のうち") ||
	    followed_by(x, t->end, "ahead") || includes_today(x))
		return 1;
	return 0;
}

/*
 * "in 3 days", "3 days from now", "after 4 days": a day counted from
 * today, not the days up to it ("the next 3 days from now" is those:
 * anchored_duration() is asked first).
 */
static int
after_duration(const struct text *x, const struct tok *t)
{
	return ((preceded_by(x, t->at, "in") || preceded_by(x, t->at, "after")) &&
	    !preceded_by(x, t->at, "the")) ||
	    followed_by(x, t->end, "from now") || followed_by(x, t->end, "from today") ||
	    followed_by(x, t->end, "later") || followed_by(x, t->end, "後");
}

static void
compose(struct reading *rd)
{
	struct text *x = rd->x;
	int k = 0;

	while (k < x->nt && rd->nm < MAXMENT) {
		struct phrase p = {0};
		int j = k, any = 0;

		if (x->t[k].dropped || x->t[k].type == T_UPCOMING ||
		    x->t[k].type == T_ANCHOR || x->t[k].type == T_WHEN ||
		    x->t[k].type == T_PART) {
			k++;
			continue;
		}
		p.at = x->t[k].at;
		for (; j < x->nt; j++) {
			const struct tok *t = &x->t[j];

			if (t->dropped || t->type == T_UPCOMING || t->type == T_ANCHOR ||
			    t->type == T_WHEN)
				break;
			if (j > k) {
				const struct tok *pv = &x->t[j - 1];
				int glued = gap_is(x, pv->end, t->at, glue_words);

				/* "Tuesday, March 4th", 火曜、3月4日: a weekday and its
				 * date written apart by a comma are one day, not a list */
				if (!glued && pv->type == T_WEEKDAY &&
				    (t->type == T_DATE || t->type == T_MDAY) &&
				    gap_is(x, pv->end, t->at, (const char *const[]){",",
				    ",the", "\xe3\x80\x81", "\xef\xbc\x8c", NULL}))
					glued = 1;
				/* 今日から1週間, 明日から3日間: a duration from a day */
				if (!glued && t->type == T_DUR && p.has_day &&
				    gap_is(x, pv->end, t->at, (const char *const[]){"から",
				    "より", "fromtodayfor", "for", "を含めて", "も含めて",
				    "を入れて", "も入れて", "含めて", "込みで", "こみで",
				    "から数えて", NULL}))
					glued = 1;
				/* 金曜から3日間, 20日から2日間: a duration from a named day */
				if (!glued && t->type == T_DUR && !p.has_day &&
				    (p.has_weekday || p.has_date || p.has_mday) &&
				    gap_is(x, pv->end, t->at, (const char *const[]){"から",
				    "より", "for", NULL}))
					glued = 1;
				/* "for 3 days from Friday": the day after the duration */
				if (!glued && p.has_dur && !p.anchored && !p.has_day &&
				    !p.has_weekday && !p.has_date && !p.has_mday &&
				    (t->type == T_WEEKDAY || t->type == T_DATE ||
				    t->type == T_MDAY || t->type == T_DAY) &&
				    gap_is(x, pv->end, t->at, (const char *const[]){"from",
				    "fromthe", "starting", "startingfrom", "startingon",
				    "startingthe", "startingonthe", "startingfromthe",
				    "beginning", "beginningon", "beginningthe",
				    "beginningonthe", "from,",
				    /* "a week here from the 27th" */
				    "herefrom", "herefromthe", "therefrom", "therefromthe",
				    "herestarting", "herestartingthe", NULL}))
					glued = 1;
				/* 今日から3日後, 明日から5日後: a day counted from a day */
				if (!glued && t->type == T_AFTER && p.has_day && !p.has_after &&
				    gap_is(x, pv->end, t->at, (const char *const[]){"から",
				    "より", NULL}))
					glued = 1;
				if (!glued || !absorb(&p, t))
					break;
			} else if (!absorb(&p, t)) {
				break;
			}
			if (t->type == T_DUR && anchored_duration(x, j, &p)) {
				p.anchored = 1;
				/* これから一週間: the anchor word belongs to the phrase */
				if (j == k && j > 0 && x->t[j - 1].type == T_ANCHOR)
					p.at = x->t[j - 1].at;
			}
			if (t->type == T_DUR && !p.anchored && after_duration(x, t)) {
				p.has_dur = 0;
				p.has_after = 1;
				if (t->b)
					p.after_months = t->b;
				else if (t->c && t->a % 7 == 0 && t->a >= 7)
					p.after_weeks = t->a / 7;	/* "in 2 weeks", not "7 days" */
				else
					p.after_days = t->a;
			}
			p.end = t->end;
			any = 1;
		}
		if (!any) {
			k++;
			continue;
		}
		if (phrase_names_time(&p) && resolve(rd, &p, &rd->m[rd->nm])) {
			for (int u = k; u < j; u++)
				x->t[u].used = 1;
			rd->nm++;
		}
		k = j > k ? j : k + 1;
	}
}

/* ---- 3. choose ---- */

/*
 * Self-corrections: "Tuesday, no wait, Thursday", 来週の火曜、いや金曜,
 * "this Friday - sorry, I mean Saturday", 明日、あ、違った、明後日.  Words
 * between two mentions that take the first back leave the second alone;
 * a bare weekday keeps the week of the one it corrects (来週の火曜、いや
 * 金曜 is next week's Friday, "next Tuesday, no, Wednesday" next week's).
 * English words count whole; Japanese ones anywhere in the gap, written
 * as cc_text_fold() leaves them (small っ as つ), as negations_after are.
 */
static const char *const correction_en[] = {"no", "nope", "nah", "wait",
	"sorry", "oops", "whoops", "actually", "i mean", "i meant", "meant",
	"correction", "scratch that", "strike that", "make that", "make it",
	"or rather", "rather", "my bad", "my mistake", "err", "erm", "pardon",
	"misspoke", "i misspoke", "wrong", "not that", NULL};
static const char *const correction_ja[] = {"いや", "いえ", "違", "ちが",
	"間違", "まちが", "訂正", "失礼", "すみません", "すいません", "ごめん",
	"申し訳", "やつぱ", "もとい", "というか", "つていうか", "つて言うか",
	"正しくは", "言いましたが", "申しましたが", "申し上げましたが",
	"つて言つたけど", "と言つたけど", "つていつたけど", NULL};

/* The English word or words w, whole, in [from, to). */
static int
word_between(const struct text *x, size_t from, size_t to, const char *w)
{
	size_t k = strlen(w);

	for (size_t i = from; i + k <= to; i++)
		if (memcmp(x->s + i, w, k) == 0 &&
		    (i == from || !ascii_alpha(x->s[i - 1])) &&
		    (i + k == to || !ascii_alpha(x->s[i + k])))
			return 1;
	return 0;
}

static int
correction_gap(const struct text *x, size_t from, size_t to)
{
	if (to < from || to - from > 72)
		return 0;
	for (int i = 0; correction_en[i]; i++)
		if (word_between(x, from, to, correction_en[i]))
			return 1;
	for (int i = 0; correction_ja[i]; i++) {
		const char *w = correction_ja[i];
		size_t k = strlen(w);

		for (size_t j = from; j + k <= to; j++)
			if (memcmp(x->s + j, w, k) == 0)
				return 1;
	}
	return 0;
}

static void
correct(struct mention *a, struct mention *b)
{
	a->corrected = 1;
	if (b->bare == 1 && !a->bare && a->weekday && strcmp(a->kind, "weekday") == 0) {
		struct cc_date mon = cc_date_add(a->first, 1 - cc_date_weekday(a->first));

		b->first = b->last = cc_date_add(mon, b->weekday - 1);
		b->bare = 0;
	}
}

static const char *const negations_after[] = {"じやなく", "じやない", "ではなく",
	"ではない", "でなく", "以外", "のじやなく", "のじやない", "のではなく",
	"のではない", "のでなく", "を除", "は除", "を除く", "除いて", "をのぞ",
	"はのぞ", "抜きで", "はぬきで", NULL};
static const char *const negations_before[] = {"not", "notfor", "noton", "notin",
	"ratherthan", "insteadof", "otherthan", "except", "besides", "n't", NULL};

static int
negated(const struct text *x, const struct mention *m)
{
	for (int i = 0; negations_after[i]; i++)
		if (followed_by(x, m->end, negations_after[i]))
			return 1;
	/* up to two words before, spaces removed */
	{
		char g[32];
		size_t n = 0, i = m->at, words = 0;

		while (i > 0 && words < 3 && n < sizeof g - 1) {
			i--;
			if (x->s[i] == ' ') {
				words++;
				continue;
			}
			if (!ascii_alpha(x->s[i]) && x->s[i] != '\'')
				break;
			n++;
		}
		/* gather the letters from i on, without spaces */
		n = 0;
		for (size_t j = i; j < m->at && n < sizeof g - 1; j++)
			if (x->s[j] != ' ' && (ascii_alpha(x->s[j]) || x->s[j] == '\''))
				g[n++] = x->s[j];
		g[n] = '\0';
		for (int w = 0; negations_before[w]; w++) {
			size_t k = strlen(negations_before[w]);

			if (n >= k && strcmp(g + n - k, negations_before[w]) == 0)
				return 1;
		}
	}
	return 0;
}

/* Where the clause around [at, end) begins and ends. */
static void
clause(const struct text *x, size_t at, size_t end, size_t *from, size_t *to)
{
	static const char *const stops[] = {"。", "？", "！", "?", "!", ".", ";",
	    "\xe2\x80\x94", "\xe2\x80\x93", "ので", "けど", "けれど", " but ",
	    " so ", "、", ",", NULL};
	size_t a = 0, b = x->n;

	for (int i = 0; stops[i]; i++) {
		size_t k = strlen(stops[i]);
		const char *p = x->s;

		while ((p = strstr(p, stops[i])) != NULL) {
			size_t pos = (size_t)(p - x->s);

			if (pos + k <= at && pos + k > a)
				a = pos + k;
			if (pos >= end && pos < b)
				b = pos;
			p += k;
		}
	}
	*from = a;
	*to = b;
}

/* The sentence of m ends with a question mark. */
static int
asked(const struct text *x, const struct mention *m)
{
	for (size_t i = m->end; i < x->n; i++) {
		if (x->s[i] == '?' || starts(x->s, x->n, i, "\xef\xbc\x9f"))
			return 1;
		if (x->s[i] == '!' || x->s[i] == '\n' ||
		    (x->s[i] == '.' && (i + 1 == x->n || x->s[i + 1] == ' ')) ||
		    starts(x->s, x->n, i, "\xe3\x80\x82") ||
		    starts(x->s, x->n, i, "\xef\xbc\x81"))
			return 0;
	}
	return 0;
}

/* "busy today", 今日は忙しい: a day named as the one that does not suit. */
static int
unavailable(const struct text *x, const struct mention *m)
{
	static const char *const busy[] = {"忙しい", "いそがしい", "無理", "むり",
	    "行けない", "いけない", "都合が悪", "都合悪", "用事", "予定があ",
	    "予定が入", "埋まつて", "はぱす", "はだめ", "は駄目", "は厳し", "は難し", "busy", "can't make", "cannot make",
	    "can't go", "can't come", "not free", "unavailable", "tied up",
	    "booked up",
	    /* a range already looked at or not wanted, beside the one asked */
	    "もう見", "見終", "見まし", "チェック済", "確認済", "もう知つて",
	    "いらない", "要らない", "興味ない", "興味がない", "already seen",
	    "already saw", "already looked", "already checked", "already read",
	    "already know", "'ve seen", "have seen", "i saw", "'ve looked",
	    "'ve checked", "'ve read", "don't want", "do not want",
	    "don't need", "not interested", NULL};
	size_t a, b;
	char *c;
	int hit = 0;

	clause(x, m->at, m->end, &a, &b);
	c = cc_xmalloc(b - a + 1);
	memcpy(c, x->s + a, b - a);
	c[b - a] = '\0';
	for (int i = 0; busy[i] && !hit; i++)
		hit = strstr(c, busy[i]) != NULL;
	free(c);
	return hit;
}

static const char *const union_ends[] = {"と", "や", "か", "とか", "、", ",",
	"and", "or", "&", "/", "・", "または", "もしくは", "andalso", NULL};
static const char *const span_words[] = {"から", "より", "~", "〜", "ー", "-",
	"\xe2\x80\x93", "to", "through", "thru", "till", "until", "untilthe",
	"tothe", "throughthe", "から、", NULL};

/* The gap ends with a union word and says nothing else of weight. */
static int
union_gap(const struct text *x, size_t from, size_t to)
{
	char g[64];
	size_t n = 0;

	if (to < from || to - from >= sizeof g)
		return 0;
	for (size_t i = from; i < to; i++) {
		if (strchr("?!.", x->s[i]))
			return 0;
		if (x->s[i] != ' ')
			g[n++] = x->s[i];
	}
	g[n] = '\0';
	if (strstr(g, "？") || strstr(g, "。") || strstr(g, "！"))
		return 0;
	if (n > 24)
		return 0;
	for (int i = 0; union_ends[i]; i++) {
		size_t k = strlen(union_ends[i]);

		if (n >= k && strcmp(g + n - k, union_ends[i]) == 0)
			return 1;
	}
	return 0;
}

/* Move a bare weekday or day of month forward to follow `from`. */
static void
follow(struct mention *m, struct cc_date from)
{
	while (m->bare && cc_date_cmp(m->first, from) < 0) {
		if (m->bare == 1) {
			m->first = cc_date_add(m->first, 7);
		} else {
			int day = m->first.day;

			m->first = month_start(m->first, 1);
			if (day > cc_days_in_month(m->first.year, m->first.month))
				day = cc_days_in_month(m->first.year, m->first.month);
			m->first.day = day;
		}
		m->last = m->first;
	}
}

static void
join(struct mention *a, const struct mention *b, const char *kind)
{
	if (cc_date_cmp(b->first, a->first) < 0)
		a->first = b->first;
	if (cc_date_cmp(b->last, a->last) > 0)
		a->last = b->last;
	a->end = b->end;
	if (!b->has_wk || cc_date_cmp(a->wk, b->wk) != 0)
		a->has_wk = 0;
	a->kind = kind;
	a->part = P_NONE;
	a->weekday = 0;
	a->days = 0;
	a->month = 0;
	a->bare = 0;
}

static const char *
spec_of(const struct reading *rd, struct cc_date f, struct cc_date l)
{
	struct cc_date sun = cc_date_add(rd->monday, 6);

	if (cc_date_cmp(f, rd->today) == 0 && cc_date_cmp(l, rd->today) == 0)
		return "today";
	if (cc_date_cmp(f, rd->monday) >= 0 && cc_date_cmp(l, sun) <= 0)
		return "thisWeek";
	if (cc_date_cmp(f, cc_date_add(rd->monday, 7)) >= 0 &&
	    cc_date_cmp(l, cc_date_add(sun, 7)) <= 0)
		return "nextWeek";
	if (f.year == rd->today.year && f.month == rd->today.month &&
	    l.year == rd->today.year && l.month == rd->today.month)
		return "thisMonth";
	return NULL;
}

static void
copy_span(char *dst, size_t cap, const char *s, size_t at, size_t end)
{
	size_t n = end > at ? end - at : 0;

	if (n >= cap) {
		n = cap - 1;
		while (n > 0 && ((unsigned char)s[at + n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, s + at, n);
	dst[n] = '\0';
}

/* Words that only say "an event": no title to look for. */
static int
generic_title(const char *t)
{
	static const char *const words[] = {"いべんと", "イベント", "event", "events",
	    "もよおし", "催し", "催し物", "予定", "schedule", "one", "ones", "やつ",
	    "もの", "こと", "の", "thing", "something", "anything", "what", "何",
	    "なに", "なん", "on", "up",
	    /* the date asked, not a title: AI勉強会の次の開催日 */
	    "開催日", "開催日時", "開催予定", "日程", "日時", "日付", "日にち", "予定日",
	    "開催", "date", "dates", "day", "time", "times", NULL};

	for (int i = 0; words[i]; i++)
		if (strcmp(t, words[i]) == 0)
			return 1;
	return 0;
}

/*
 * Where a title ends: a particle phrase or punctuation.  Single particles
 * are not enough, since folded katakana (ハッカソン, はつかそん) holds them.
 */
static const char *const title_stops[] = {"はいつ", "がいつ", "つていつ", "いつ",
	"つて", "について", "は何", "はなに", "はなん", "はある", "はあり", "はどこ",
	"はどう", "はいくら", "を教", "を知", "の日", "の予定", "の開催", "の時間",
	"の場所", "の参加", "に参加", "は?", "は？", " is ", " is?", " at ", " on ",
	" in ", " will ", " happen", " start", " be ", "'s ", " this ", " next ",
	" going", " scheduled", NULL};

static int
title_stop(const struct text *x, size_t b)
{
	int32_t cp = next_cp(x->s, x->n, b);

	if (cp == '?' || cp == '!' || cp == ',' || cp == '.' || cp == 0xFF1F ||
	    cp == 0x3002 || cp == 0x3001 || cp == 0xFF01 || cp == 0x300D)
		return 1;
	for (int i = 0; title_stops[i]; i++)
		if (starts(x->s, x->n, b, title_stops[i]))
			return 1;
	return 0;
}

/* The visitor's own spelling of folded text f, or f when not found. */
static void
original_spelling(const struct text *x, char *f, size_t cap)
{
	size_t fl = strlen(f), i = 0;

	while (i < x->olen) {
		size_t j = i;

		if (x->orig[i] == ' ' || x->orig[i] == '\t') {
			i++;
			continue;
		}

		while (j < x->olen) {
			size_t gl;
			char *g;
			int cmp;

			cc_utf8_next(x->orig, x->olen, &j);
			g = cc_text_fold(x->orig + i, j - i, &gl, CC_FOLD_KEEP_CASE);
			cmp = gl <= fl ? memcmp(g, f, gl) : 1;
			if (cmp == 0 && gl == fl) {
				free(g);
				copy_span(f, cap, x->orig, i, j);
				return;
			}
			free(g);
			if (cmp != 0)
				break;
		}
		cc_utf8_next(x->orig, x->olen, &i);
	}
}

/* A title that quotes its name (the next 'Python Today' meetup): the name. */
static void
quoted_part(char *t)
{
	static const char *const pairs[][2] = { {"'", "'"}, {"\"", "\""},
	    {"「", "」"}, {"『", "』"}, {"\xe2\x80\x9c", "\xe2\x80\x9d"},
	    {"\xe2\x80\x98", "\xe2\x80\x99"} };

	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		char *a = strstr(t, pairs[i][0]), *b;
		size_t k = strlen(pairs[i][0]);

		if (!a)
			continue;
		if (!(b = strstr(a + k, pairs[i][1]))) {	/* the close was cut off */
			memmove(a, a + k, strlen(a + k) + 1);
			return;
		}
		if (b == a + k)
			continue;
		memmove(t, a + k, (size_t)(b - a - (long)k));
		t[b - a - k] = '\0';
		return;
	}
}

/* The event named after 次の / "next" / before はいつ, or "" if generic. */
static void
find_title(const struct text *x, const struct tok *t, char *out, size_t cap)
{
	size_t a, b;

	out[0] = '\0';
	if (t->type == T_WHEN && !ascii_alpha(x->s[t->at])) {
		size_t from, to;

		/* もくもく会はいつ？: the topic before いつ */
		clause(x, t->at, t->end, &from, &to);
		a = from;
		b = t->at;
		while (b > a && x->s[b - 1] == ' ')
			b--;
		if (b >= a + 3 && (starts(x->s, x->n, b - 3, "は") ||
		    starts(x->s, x->n, b - 3, "が")))
			b -= 3;
		else if (b >= a + 6 && starts(x->s, x->n, b - 6, "つて"))
			b -= 6;
		else
			return;
	} else {
		a = t->end;
		if (t->type == T_WHEN) {	/* When is (the next) X? */
			while (a < x->n && x->s[a] == ' ')
				a++;
			if (starts(x->s, x->n, a, "is "))
				a += 3;
			else if (starts(x->s, x->n, a, "'s "))
				a += 3;
			else if (starts(x->s, x->n, a, "does "))
				a += 5;
			else
				return;
			while (a < x->n && x->s[a] == ' ')
				a++;
			if (starts(x->s, x->n, a, "the "))
				a += 4;
			if (starts(x->s, x->n, a, "next "))
				a += 5;
		}
		while (a < x->n && x->s[a] == ' ')
			a++;
		if (starts(x->s, x->n, a, "の"))
			a += 3;
		for (b = a; b < x->n && !title_stop(x, b);)
			cc_utf8_next(x->s, x->n, &b);
		/* a particle left at the very end: 次の勉強会は */
		if (b >= a + 3 && b == x->n && (starts(x->s, x->n, b - 3, "は") ||
		    starts(x->s, x->n, b - 3, "が") || starts(x->s, x->n, b - 3, "を")))
			b -= 3;
	}
	while (a < b && x->s[a] == ' ')
		a++;
	while (b > a && x->s[b - 1] == ' ')
		b--;
	copy_span(out, cap, x->cs, a, b);
	{
		/* generic words do not name an event */
		char *low = cc_xstrdup(out);

		for (char *p = low; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		if (generic_title(low) || strlen(low) < 2)
			out[0] = '\0';
		free(low);
	}
	if (out[0])
		original_spelling(x, out, cap);
	quoted_part(out);
}

static void
finish(struct cc_time_range *r, const struct reading *rd, time_t now)
{
	static const int hours[][2] = {{0, 24}, {6, 12}, {12, 18}, {17, 24}, {17, 24}};
	static const char *const parts[] = {NULL, "morning", "afternoon", "evening", "night"};
	int p = 0;

	(void)now;
	if (r->open)
		return;
	if (r->part_of_day)
		for (p = 1; p < 5 && strcmp(parts[p], r->part_of_day); p++)
			;
	if (p >= 5)
		p = 0;
	r->start = cc_local_time(r->first, hours[p][0], 0);
	r->end = hours[p][1] == 24 ? cc_date_start(cc_date_add(r->last, 1)) :
	    cc_local_time(r->last, hours[p][1], 0);
	r->spec = spec_of(rd, r->first, r->last);
}

/* ---- English typing: abbreviations and one-letter typos ---- */

/* Short forms people type for time words (whole words, any case). */
static const char *const short_forms[][2] = {
	{"nxt", "next"}, {"nex", "next"}, {"nexy", "next"}, {"thsi", "this"},
	{"ths", "this"}, {"wk", "week"}, {"wks", "weeks"}, {"wek", "week"},
	{"wkly", "weekly"}, {"wknd", "weekend"}, {"wkend", "weekend"},
	{"wknds", "weekends"}, {"wkends", "weekends"},
	{"mnth", "month"}, {"mth", "month"}, {"mnths", "months"},
	{"mths", "months"}, {"2day", "today"}, {"tdy", "today"},
	{"yr", "year"}, {"yrs", "years"},
	{"2nite", "tonight"}, {"2night", "tonight"}, {"tnight", "tonight"},
	{"yday", "yesterday"}, {"tody", "today"}, {"tdoy", "today"},
	{"tday", "today"}, {"2dy", "today"},
	/* "the day after tmrw" is the day after tomorrow only once written out */
	{"tmrw", "tomorrow"}, {"tmr", "tomorrow"}, {"tmw", "tomorrow"},
	{"tmrow", "tomorrow"}, {"tmro", "tomorrow"}, {"2moro", "tomorrow"},
	{"2morrow", "tomorrow"}, {"2mrw", "tomorrow"},
};

/* Time words a longer word one typo away is read as ("weeekend"); not
 * "march", one letter from "match". */
static const char *const time_words[] = {
	"today", "tonight", "tomorrow", "yesterday", "weekend", "weekends",
	"month", "months", "weekday", "weekdays", "morning", "afternoon",
	"evening", "monday", "tuesday", "wednesday", "thursday", "friday",
	"saturday", "sunday", "january", "february", "april",
	"august", "september", "october", "november", "december", "upcoming",
	"following", "fortnight",
};

/* 1 if a and b (lower case) differ by one edit or one swap of neighbours. */
static int
one_edit(const char *a, size_t n, const char *b)
{
	size_t m = strlen(b), i = 0;

	if (n + 1 < m || m + 1 < n)
		return 0;
	while (i < n && i < m && a[i] == b[i])
		i++;
	if (i == n && i == m)
		return 0;	/* the same word */
	if (n == m)
		return strncmp(a + i + 1, b + i + 1, n - i - 1) == 0 ||
		    (i + 1 < n && a[i] == b[i + 1] && a[i + 1] == b[i] &&
		    strncmp(a + i + 2, b + i + 2, n - i - 2) == 0);
	if (n > m)
		return strncmp(a + i + 1, b + i, m - i) == 0;
	return strncmp(a + i, b + i + 1, n - i) == 0;
}

/*
 * The question with English short forms (nxt wknd) and words one typo
 * from a time word (tommorow, weeekend, mnoth) written out; NULL when
 * nothing changed.  Only ASCII words change: Japanese text is untouched.
 */
static char *
respell(const char *q, size_t len, size_t *outlen)
{
	/* a short form is at most three times longer written out (wk) */
	char *b = cc_xmalloc(3 * len + 1);
	size_t o = 0, i = 0;
	int changed = 0;

	while (i < len) {
		size_t j = i;
		char w[24];
		const char *put = NULL;

		if (!isalnum((unsigned char)q[i])) {
			b[o++] = q[i++];
			continue;
		}
		while (j < len && isalnum((unsigned char)q[j]))
			j++;
		if (j - i < sizeof w && (i == 0 || (unsigned char)q[i - 1] < 0x80) &&
		    (j == len || (unsigned char)q[j] < 0x80)) {
			size_t n = j - i;

			for (size_t k = 0; k < n; k++)
				w[k] = (char)tolower((unsigned char)q[i + k]);
			w[n] = '\0';
			for (size_t k = 0; !put && k < sizeof short_forms / sizeof *short_forms; k++)
				if (strcmp(w, short_forms[k][0]) == 0)
					put = short_forms[k][1];
			/* a time word as it is, before any one edit from another
			 * ("weekdays" is not "weekday" misspelt) */
			int exact = 0;

			for (size_t k = 0; k < sizeof time_words / sizeof *time_words; k++)
				exact |= strcmp(w, time_words[k]) == 0;
			for (size_t k = 0; !put && !exact && n >= 5 &&
			    k < sizeof time_words / sizeof *time_words; k++)
				if (one_edit(w, n, time_words[k]))
					put = time_words[k];
		}
		if (put && strlen(put) <= 3 * (j - i)) {
			memcpy(b + o, put, strlen(put));
			o += strlen(put);
			changed = 1;
		} else {
			memcpy(b + o, q + i, j - i);
			o += j - i;
		}
		i = j;
	}
	if (!changed) {
		free(b);
		return NULL;
	}
	b[o] = '\0';
	*outlen = o;
	return b;
}

/* ---- weekends and weeks counted from this one ---- */

/*
 * "The weekend after this one" and "the weekend after next" mean the
 * weekend after the coming one: next week's Saturday and Sunday, as
 * 来週末 does (eval/README.md).  Said as next weekend before lexing; "the
 * week after this week" (今週の次の週) likewise as next week.
 */
static const char *const weekend_after[][2] = {
	{"weekend after this one", "next weekend"},
	{"weekend after this weekend", "next weekend"},
	{"weekend after the next", "next weekend"},
	{"weekend after the coming weekend", "next weekend"},
	{"weekend after this coming one", "next weekend"},
	{"weekend after the coming one", "next weekend"},
	{"weekend after this", "next weekend"},
	{"weekend after next", "next weekend"},
	{"weekend following this one", "next weekend"},
	{"今週末の次の週末", "来週末"}, {"この週末の次の週末", "来週末"},
	{"今度の週末の次の週末", "来週末"}, {"今週末の次の土日", "来週末"},
	{"今週末の翌週末", "来週末"}, {"次の次の週末", "来週末"},
	{"今週末じゃなくてその次の週末", "来週末"}, {"今週末のあとの週末", "来週末"},
	/* and the week after this one is next week, the one after next
	 * week the week after next */
	{"week after this week", "next week"}, {"week after this weekend", "next week"},
	{"week after this one", "next week"}, {"week following this one", "next week"},
	{"week following this week", "next week"}, {"week after the current one", "next week"},
	{"week after the current week", "next week"}, {"week after this", "next week"},
	{"week that follows this one", "next week"}, {"week after next week", "week after next"},
	{"今週の次の週", "来週"}, {"今週の翌週", "来週"}, {"今週のあとの週", "来週"},
	{"今週の後の週", "来週"}, {"今週の次週", "来週"}, {"今週のその次の週", "来週"},
	{"来週の次の週", "再来週"}, {"来週の翌週", "再来週"}, {"来週のあとの週", "再来週"},
	{"次の次の週", "再来週"},
	/*
	 * The unit said once for two ranges: "this month or next" (after
	 * respell(): "this mnth or nxt"), "this week and next", one range
	 * over both as 今月か来月 is; "this month or next week" is left.
	 */
	{"this month or next", "this month or next month"},
	{"this month and next", "this month and next month"},
	{"this month or the next", "this month or next month"},
	{"this month and the next", "this month and next month"},
	{"this month & next", "this month and next month"},
	{"this month/next", "this month or next month"},
	{"this weekend or next", "this weekend or next weekend"},
	{"this weekend and next", "this weekend and next weekend"},
	{"this week or next", "this week or next week"},
	{"this week and next", "this week and next week"},
	{"this week or the next", "this week or next week"},
	{"this week and the next", "this week and next week"},
};

/* q with the phrases above replaced (any case); NULL when none is there. */
static char *
rephrase(const char *q, size_t len, size_t *outlen)
{
	char *b = NULL;
	size_t o = 0, i = 0;

	while (i < len) {
		const char *to = NULL;
		size_t k = 0;
		/* a phrase's first byte first: a long question is read in one
		 * pass, not a comparison with every phrase at every byte */
		unsigned char c = (unsigned char)q[i];

		if (c < 0x80)
			c = (unsigned char)tolower(c);
		for (size_t w = 0; !to && w < sizeof weekend_after / sizeof *weekend_after; w++) {
			if ((unsigned char)weekend_after[w][0][0] != c)
				continue;
			k = strlen(weekend_after[w][0]);
			if (i + k <= len && strncasecmp(q + i, weekend_after[w][0], k) == 0 &&
			    (i + k == len || !isalpha((unsigned char)q[i + k])) &&
			    /* "the weekend after next week" is another question */
			    strncasecmp(q + i + k, " week", 5) != 0 &&
			    strncasecmp(q + i + k, " month", 6) != 0 &&
			    /* 今週の次の週末 is a weekend, not the week */
			    strncmp(q + i + k, "末", strlen("末")) != 0)
				to = weekend_after[w][1];
		}
		if (to && !b) {
			b = cc_xmalloc(2 * len + 16);
			memcpy(b, q, i);
			o = i;
		}
		if (to) {
			memcpy(b + o, to, strlen(to));
			o += strlen(to);
			i += k;
		} else {
			if (b)
				b[o++] = q[i];
			i++;
		}
	}
	if (!b)
		return NULL;
	b[o] = '\0';
	*outlen = o;
	return b;
}

/* ---- "the rest of this week": from today on ---- */

static const char *const rest_words[] = {
	"rest of", "remainder of", "remaining", "later this", "what's left of",
	"what is left of", "残り", "のこり", "いつぱい", "中に", "このあと",
	"この後", "これから", "今日以降", "あと", "今週中", "今月中",
	"こんしゆうちゆう", NULL,
};

/*
 * "the rest of this week" / 今週の残り: this week (or month) from today,
 * kind range; r is left as it is when the question is not that.
 */
static void
rest_of(const char *lower, const struct cc_date today, struct cc_time_range *r)
{
	int hit = 0;

	if (r->implicit || r->open || (strcmp(r->kind, "thisWeek") &&
	    strcmp(r->kind, "thisMonth")) || cc_date_cmp(r->first, today) >= 0 ||
	    cc_date_cmp(r->last, today) < 0)
		return;
	for (int i = 0; rest_words[i] && !hit; i++)
		hit = strstr(lower, rest_words[i]) != NULL;
	if (!hit)
		return;
	r->first = today;
	r->kind = "range";
	r->start = r->part_of_day ? r->start : cc_date_start(today);
}

/*
 * 来週の平日だけ, "weekdays next week": a week, or its rest, named with
 * 平日 or "weekdays" is its Monday to Friday.  ("What weekday ...?" says
 * weekday, not weekdays, and is not this.)
 */
static void
weekdays_only(const char *lower, const struct reading *rd, time_t now,
    struct cc_time_range *r)
{
	static const char *const words[] = {"平日", "へいじつ", "weekdays",
	    "week days", "weekday only", "weekday events", "on weekdays", NULL};
	struct cc_date fri = cc_date_add(r->last, -2);
	int hit = 0;

	if (r->implicit || r->open || cc_date_weekday(r->last) != 7 ||
	    cc_date_diff(r->first, r->last) > 6 || cc_date_cmp(r->first, fri) > 0)
		return;
	for (int i = 0; words[i] && !hit; i++)
		hit = strstr(lower, words[i]) != NULL;
	if (!hit)
		return;
	r->last = fri;
	r->kind = "range";
	finish(r, rd, now);
}

/*
 * 今日以外で今週, "can't make it today, anything later this week?": today
 * named as the day that is out (negated, or busy) inside the range asked
 * leaves that range from tomorrow.
 */
static void
without_today(const struct text *x, const struct reading *rd, time_t now,
    struct cc_time_range *r)
{
	struct cc_date tomorrow = cc_date_add(rd->today, 1);
	int out = 0;

	if (r->open || cc_date_cmp(r->first, rd->today) > 0 ||
	    cc_date_cmp(r->last, tomorrow) < 0)
		return;
	for (int i = 0; i < rd->nm && !out; i++)
		out = strcmp(rd->m[i].kind, "today") == 0 &&
		    (rd->m[i].negated || unavailable(x, &rd->m[i]));
	if (!out)
		return;
	r->first = tomorrow;
	r->kind = "range";
	r->implicit = 0;
	finish(r, rd, now);
}

/* このあと, "after this": later today, when no range is named. */
static int
later_today(const char *lower)
{
	static const char *const words[] = {"このあと", "この後", "このあとで",
	    "この後で", "このあとに", "この後に", "これからすぐ", "あとで",
	    "後ほど", "のちほど", "after this", "afterwards", "after that",
	    "later on", "later", NULL};

	for (int i = 0; words[i]; i++)
		if (strstr(lower, words[i]))
			return 1;
	return 0;
}

/*
 * Today named only as where another range starts or what it counts:
 * "next 3 days incl today", 今日を含めて, "4 days from today", and the
 * days after it (今日以降, "after today": the next ones, not today's).
 */
static int
not_the_day(const struct text *x, const struct reading *rd, int i)
{
	const struct mention *m = &rd->m[i];

	if (rd->nm > 1 && today_included(x, m->at, m->end))
		return 1;
	if (i > 0 && gap_is(x, rd->m[i - 1].end, m->at, (const char *const[]){
	    "from", "countingfrom", "startingfrom", "starting", "beginning",
	    "beginningfrom", "counting", NULL}))
		return 1;
	return followed_by(x, m->end, "以降") || followed_by(x, m->end, "以後") ||
	    followed_by(x, m->end, "より後") || followed_by(x, m->end, "よりあと") ||
	    followed_by(x, m->end, "から先") || preceded_by(x, m->at, "after") ||
	    preceded_by(x, m->at, "beyond") || preceded_by(x, m->at, "later than");
}

void
cc_time_extract(const char *q, size_t len, time_t now, struct cc_time_range *r)
{
	static const char *const parts[] = {NULL, "morning", "afternoon", "evening", "night"};
	struct text x = {0};
	struct reading rd = { .x = &x };
	char *lower, *cased, *respelled, *rephrased, *casual = NULL;
	size_t rlen = 0;
	int chosen = -1, attributive_seen = 0;

	memset(r, 0, sizeof *r);
	/*
	 * romaji and chat spellings as the router reads them (doyoubi,
	 * ashita); the dialect's verbs name no time, so a question with no
	 * Latin letter is not folded for it
	 */
	for (size_t i = 0; i < len; i++) {
		if ((q[i] | 0x20) >= 'a' && (q[i] | 0x20) <= 'z') {
			char *f = cc_text_fold(q, len, &rlen, 0);

			casual = cc_casual(f, rlen, &rlen);
			free(f);
			if (casual) {
				q = casual;
				len = rlen;
			}
			break;
		}
	}
	respelled = respell(q, len, &rlen);
	if (respelled) {
		q = respelled;
		len = rlen;
	}
	rephrased = rephrase(q, len, &rlen);
	if (rephrased) {
		q = rephrased;
		len = rlen;
	}
	cased = cc_text_fold(q, len, &x.n, CC_FOLD_KEEP_CASE);
	lower = cc_xmalloc(x.n + 1);
	for (size_t i = 0; i <= x.n; i++)
		lower[i] = (cased[i] >= 'A' && cased[i] <= 'Z') ?
		    (char)(cased[i] - 'A' + 'a') : cased[i];
	x.s = lower;
	x.cs = cased;
	x.orig = q;
	x.olen = len;
	rd.today = cc_date_of(now);
	rd.monday = cc_date_add(rd.today, 1 - cc_date_weekday(rd.today));

	lex(&x);
	drop_titles(&x);
	compose(&rd);

	/* negation, context, and which mentions are about the events */
	for (int i = 0; i < rd.nm; i++) {
		struct mention *m = &rd.m[i];

		m->negated = negated(&x, m);
		m->context = unavailable(&x, m) ||
		    (i + 1 < rd.nm && strcmp(m->kind, "today") == 0 &&
		    followed_by(&x, m->end, "は")) ||
		    (strcmp(m->kind, "today") == 0 && not_the_day(&x, &rd, i));
		m->attributive = followed_by(&x, m->end, "の") ||
		    followed_by(&x, m->end, "'s") ||
		    followed_by(&x, m->end, "\xe2\x80\x99s");
	}
	for (int i = 0; i + 1 < rd.nm; i++)
		if (!rd.m[i + 1].negated &&
		    correction_gap(&x, rd.m[i].end, rd.m[i + 1].at))
			correct(&rd.m[i], &rd.m[i + 1]);
	/* spans (X から Y, from X to Y, X まで) and unions (X と Y, X or Y) */
	for (int i = 0; i + 1 < rd.nm; i++) {
		struct mention *a = &rd.m[i], *b = &rd.m[i + 1];

		if (a->negated || b->negated || a->context || b->context ||
		    a->corrected || b->corrected)
			continue;
		if (gap_is(&x, a->end, b->at, span_words) ||
		    ((preceded_by(&x, a->at, "between") ||
		    preceded_by(&x, a->at, "between the")) &&
		    gap_is(&x, a->end, b->at, (const char *const[]){"and",
		    "andthe", NULL}))) {
			follow(b, a->first);
			join(a, b, "range");
		} else if (union_gap(&x, a->end, b->at) ||
		    gap_is(&x, a->end, b->at, (const char *const[]){"", NULL})) {
			/* 来週の水曜と木曜, "next Wed and Thu": the second
			 * weekday is of the first one's week */
			if (b->bare == 1 && b->weekday && a->has_wk) {
				b->first = b->last = cc_date_add(a->wk, b->weekday - 1);
				b->has_wk = 1;
				b->wk = a->wk;
			}
			/* 今日明日, 土日月: days side by side are a list */
			join(a, b, "range");
		} else {
			continue;
		}
		a->attributive = b->attributive;
		memmove(b, b + 1, (size_t)(rd.nm - i - 2) * sizeof *b);
		rd.nm--;
		i--;
	}
	for (int i = 0; i < rd.nm; i++) {
		struct mention *m = &rd.m[i];

		if (m->negated || m->context || m->corrected)
			continue;
		if (m->attributive && !attributive_seen) {
			attributive_seen = 1;
			chosen = i;
		} else if (m->attributive || !attributive_seen) {
			chosen = i;
		}
	}
	/*
	 * "Can I come on Thursday the 23rd? My train leaves on the 24th.",
	 * 25日って開いてますか？26日には帰るので: a day in a sentence asked
	 * (ending with a question mark) before one in a remark: the asked
	 */
	if (chosen >= 0 && !asked(&x, &rd.m[chosen]))
		for (int i = chosen - 1; i >= 0; i--) {
			const struct mention *m = &rd.m[i];

			if (!m->negated && !m->context && !m->corrected && asked(&x, m)) {
				chosen = i;
				break;
			}
		}
	if (chosen >= 0) {
		struct mention *m = &rd.m[chosen];

		/* until X: from today to the end of X */
		if ((followed_by(&x, m->end, "まで") || preceded_by(&x, m->at, "until") ||
		    preceded_by(&x, m->at, "till") || preceded_by(&x, m->at, "through") ||
		    preceded_by(&x, m->at, "by") || preceded_by(&x, m->at, "until the") ||
		    preceded_by(&x, m->at, "till the") || preceded_by(&x, m->at, "by the") ||
		    preceded_by(&x, m->at, "up to the") || preceded_by(&x, m->at, "up until the")) &&
		    cc_date_cmp(m->last, rd.today) >= 0 &&
		    !preceded_by(&x, m->at, "から") &&
		    (strcmp(m->kind, "range") != 0 || m->monthpart == MP_END)) {
			m->first = rd.today;
			m->kind = "range";
			m->part = P_NONE;
			m->weekday = m->days = m->month = 0;
		}
		/* "the week of the 20th", 20日の週: Monday to Sunday around it */
		if (strcmp(m->kind, "date") == 0 &&
		    (preceded_by(&x, m->at, "week of") || preceded_by(&x, m->at, "week of the") ||
		    followed_by(&x, m->end, "の週"))) {
			m->first = cc_date_add(m->first, 1 - cc_date_weekday(m->first));
			m->last = cc_date_add(m->first, 6);
			m->kind = "range";
			m->part = P_NONE;
		}
		r->kind = m->kind;
		r->first = m->first;
		r->last = m->last;
		r->weekday = m->weekday;
		r->days = m->days;
		r->month_year = m->month_year;
		r->month = m->month;
		r->part_of_day = parts[m->part];
		copy_span(r->expression, sizeof r->expression, x.cs, m->at, m->end);
		finish(r, &rd, now);
	} else {
		const struct tok *up = NULL, *when = NULL;

		for (int i = 0; i < x.nt; i++) {
			const struct tok *t = &x.t[i];

			if (t->dropped || t->used)
				continue;
			if (t->type == T_UPCOMING ||
			    (t->type == T_QUAL && (t->a == Q_NEXT || t->a == Q_COMING)) ||
			    (t->type == T_ANCHOR && (followed_by(&x, t->end, "の") ||
			    t->a == 0)))
				up = up ? up : t;
			if (t->type == T_WHEN)
				when = when ? when : t;
		}
		if (up && up->type == T_ANCHOR && !followed_by(&x, up->end, "の"))
			up = NULL;	/* これから alone is not "upcoming" */
		if (up || when) {
			const struct tok *t = up ? up : when;

			r->kind = "nextUpcoming";
			r->open = 1;
			r->start = now;
			r->end = 0;
			r->first = rd.today;
			r->last = rd.today;
			r->spec = "thisWeek";
			find_title(&x, t, r->title, sizeof r->title);
			if (!r->title[0] && up && when)
				find_title(&x, when, r->title, sizeof r->title);
			copy_span(r->expression, sizeof r->expression, x.cs, t->at, t->end);
		} else if (later_today(lower)) {
			r->kind = "today";
			r->first = r->last = rd.today;
			finish(r, &rd, now);
		} else {
			r->kind = "thisWeek";
			r->implicit = 1;
			r->first = rd.monday;
			r->last = cc_date_add(rd.monday, 6);
			finish(r, &rd, now);
			r->spec = "thisWeek";
		}
	}
	rest_of(lower, rd.today, r);
	without_today(&x, &rd, now, r);
	weekdays_only(lower, &rd, now, r);
	free(lower);
	free(cased);
	free(respelled);
	free(rephrased);
	free(casual);
}
