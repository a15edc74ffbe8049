/*
 * iCalendar (RFC 5545) with libical: parse once, expand per question.
 *
 * Parsing turns each VEVENT into a small struct (times as instants,
 * recurrence rules, exclusions, text) and keeps libical's tree only for
 * the VTIMEZONE definitions the rules need.  Expansion walks each rule
 * with libical's iterator, but bounded: UNTIL is clamped to the end of the
 * asked range (so a rule that never matches, such as BYMONTH=2;
 * BYMONTHDAY=30, stops at the range instead of searching for centuries),
 * the iterator jumps to the range start when the rule allows it, and a
 * step and occurrence budget stops hostile rules (FREQ=SECONDLY with no
 * end).  A file is checked before libical sees it: its size, and how deep
 * its BEGIN/END components nest (libical frees components recursively).
 *
 * Times with a TZID use the calendar's VTIMEZONE, else the tz database
 * (libical's built-in zones); UTC times are UTC; floating and all-day
 * times are local to CC_TZ (cc_tz_use()).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <libical/ical.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_time.h"
#include "cc_ics.h"

/*
 * libical (and the ICU and C++ libraries it brings) is loaded with
 * dlopen() at the first calendar parsed, not linked: linking it was most
 * of cc-event's start (4.8 of the 5.2 million instructions left once the
 * calendars were parsed lazily), paid by every question, and most
 * questions never read a calendar.  The functions used are resolved from
 * the loaded library; the names below call them through this table.
 */
#define ICAL_FUNCTIONS(X) \
	X(icalcomponent_free) X(icalcomponent_get_description) \
	X(icalcomponent_get_first_component) \
	X(icalcomponent_get_first_property) X(icalcomponent_get_location) \
	X(icalcomponent_get_next_component) X(icalcomponent_get_next_property) \
	X(icalcomponent_get_status) X(icalcomponent_get_summary) \
	X(icalcomponent_get_timezone) X(icalcomponent_get_uid) \
	X(icalcomponent_isa) X(icalcomponent_remove_component) \
	X(icaldurationtype_as_int) X(icalerror_clear_errno) \
	X(icalerror_set_errors_are_fatal) X(icalmemory_free_ring) \
	X(icalparameter_get_tzid) X(icalparser_parse_string) \
	X(icalproperty_get_dtend) X(icalproperty_get_dtstart) \
	X(icalproperty_get_duration) X(icalproperty_get_exdate) \
	X(icalproperty_get_exrule) X(icalproperty_get_first_parameter) \
	X(icalproperty_get_rdate) X(icalproperty_get_recurrenceid) \
	X(icalproperty_get_rrule) X(icalproperty_get_url) \
	X(icalrecur_iterator_free) X(icalrecur_iterator_new) \
	X(icalrecur_iterator_next) X(icalrecur_iterator_set_start) \
	X(icalrecurrencetype_day_position) X(icalrecurrencetype_month_month) \
	X(icaltime_as_timet_with_zone) X(icaltime_compare) \
	X(icaltime_from_timet_with_zone) X(icaltime_is_null_time) \
	X(icaltime_is_utc) X(icaltime_is_valid_time) X(icaltime_null_time) \
	X(icaltime_set_timezone) X(icaltimezone_free_builtin_timezones) \
	X(icaltimezone_get_builtin_timezone) \
	X(icaltimezone_get_builtin_timezone_from_tzid) \
	X(icaltimezone_get_utc_timezone)

static struct {
	void *dl;
	int failed;
#define X(f) __typeof__(f) *f;
	ICAL_FUNCTIONS(X)
#undef X
} ical;

/* Load libical once; -1 with a message in err if it cannot be. */
static int
ical_load(char *err, size_t errlen)
{
	/* the ABI of libical 3; the unversioned name only where a -dev is */
	static const char *const names[] = { "libical.so.3", "libical.so", NULL };
#define X(f) #f,
	static const char *const syms[] = { ICAL_FUNCTIONS(X) NULL };
#undef X
#define X(f) (void **)&ical.f,
	static void **const slots[] = { ICAL_FUNCTIONS(X) };
#undef X

	if (ical.dl)
		return 0;
	if (ical.failed) {
		snprintf(err, errlen, "cannot load libical");
		return -1;
	}
	ical.dl = cc_dl_load("libical", names, "", syms, slots, err, errlen);
	ical.failed = !ical.dl;
	return ical.dl ? 0 : -1;
}

#define icalcomponent_free (*ical.icalcomponent_free)
#define icalcomponent_get_description (*ical.icalcomponent_get_description)
#define icalcomponent_get_first_component (*ical.icalcomponent_get_first_component)
#define icalcomponent_get_first_property (*ical.icalcomponent_get_first_property)
#define icalcomponent_get_location (*ical.icalcomponent_get_location)
#define icalcomponent_get_next_component (*ical.icalcomponent_get_next_component)
#define icalcomponent_get_next_property (*ical.icalcomponent_get_next_property)
#define icalcomponent_get_status (*ical.icalcomponent_get_status)
#define icalcomponent_get_summary (*ical.icalcomponent_get_summary)
#define icalcomponent_get_timezone (*ical.icalcomponent_get_timezone)
#define icalcomponent_get_uid (*ical.icalcomponent_get_uid)
#define icalcomponent_isa (*ical.icalcomponent_isa)
#define icalcomponent_remove_component (*ical.icalcomponent_remove_component)
#define icaldurationtype_as_int (*ical.icaldurationtype_as_int)
#define icalerror_clear_errno (*ical.icalerror_clear_errno)
#define icalerror_set_errors_are_fatal (*ical.icalerror_set_errors_are_fatal)
#define icalmemory_free_ring (*ical.icalmemory_free_ring)
#define icalparameter_get_tzid (*ical.icalparameter_get_tzid)
#define icalparser_parse_string (*ical.icalparser_parse_string)
#define icalproperty_get_dtend (*ical.icalproperty_get_dtend)
#define icalproperty_get_dtstart (*ical.icalproperty_get_dtstart)
#define icalproperty_get_duration (*ical.icalproperty_get_duration)
#define icalproperty_get_exdate (*ical.icalproperty_get_exdate)
#define icalproperty_get_exrule (*ical.icalproperty_get_exrule)
#define icalproperty_get_first_parameter (*ical.icalproperty_get_first_parameter)
#define icalproperty_get_rdate (*ical.icalproperty_get_rdate)
#define icalproperty_get_recurrenceid (*ical.icalproperty_get_recurrenceid)
#define icalproperty_get_rrule (*ical.icalproperty_get_rrule)
#define icalproperty_get_url (*ical.icalproperty_get_url)
#define icalrecur_iterator_free (*ical.icalrecur_iterator_free)
#define icalrecur_iterator_new (*ical.icalrecur_iterator_new)
#define icalrecur_iterator_next (*ical.icalrecur_iterator_next)
#define icalrecur_iterator_set_start (*ical.icalrecur_iterator_set_start)
#define icalrecurrencetype_day_position (*ical.icalrecurrencetype_day_position)
#define icalrecurrencetype_month_month (*ical.icalrecurrencetype_month_month)
#define icaltime_as_timet_with_zone (*ical.icaltime_as_timet_with_zone)
#define icaltime_compare (*ical.icaltime_compare)
#define icaltime_from_timet_with_zone (*ical.icaltime_from_timet_with_zone)
#define icaltime_is_null_time (*ical.icaltime_is_null_time)
#define icaltime_is_utc (*ical.icaltime_is_utc)
#define icaltime_is_valid_time (*ical.icaltime_is_valid_time)
#define icaltime_null_time (*ical.icaltime_null_time)
#define icaltime_set_timezone (*ical.icaltime_set_timezone)
#define icaltimezone_free_builtin_timezones (*ical.icaltimezone_free_builtin_timezones)
#define icaltimezone_get_builtin_timezone (*ical.icaltimezone_get_builtin_timezone)
#define icaltimezone_get_builtin_timezone_from_tzid (*ical.icaltimezone_get_builtin_timezone_from_tzid)
#define icaltimezone_get_utc_timezone (*ical.icaltimezone_get_utc_timezone)

#define DESCRIPTION_MAX 2000

struct period {
	time_t start;
	long dur;		/* -1: the event's own duration */
};

struct vevent {
	char *uid, *title, *description, *location, *url;
	struct icaltimetype dtstart;	/* with its zone set */
	icaltimezone *zone;		/* NULL: floating or all-day (CC_TZ) */
	int all_day, has_end, cancelled, skip;
	time_t start;
	long dur;			/* seconds; all-day: days * 86400 nominal */
	int dur_days;			/* all-day length in days */
	struct icalrecurrencetype *rrules, *exrules;
	size_t nrrules, nexrules;
	struct period *rdates;
	size_t nrdates;
	time_t *exdates;		/* sorted */
	size_t nexdates;
	struct cc_date *exdays;		/* EXDATE;VALUE=DATE on a timed event */
	size_t nexdays;
	int is_override;
	time_t recurrence_id;
	time_t *overridden;		/* masters: RECURRENCE-IDs, sorted */
	size_t noverridden;
};

struct cc_ics {
	char *name;
	icalcomponent *root;	/* kept for its VTIMEZONEs */
	struct vevent *ev;
	size_t n;
	struct cc_ics_limits lim;
	/*
	 * The occurrences in [win_start, win_end), expanded once: libical
	 * opens an ICU calendar for every rule iterator (tens of
	 * microseconds), so ranges inside the window are answered by
	 * filtering this list instead.
	 */
	time_t win_start, win_end;
	struct cc_event_list win;
	int win_ok;
};

static void
limits(struct cc_ics_limits *l, const struct cc_ics_limits *given)
{
	*l = given ? *given : (struct cc_ics_limits){0};
	if (!l->max_bytes)
		l->max_bytes = 8u << 20;
	if (!l->max_events)
		l->max_events = 50000;
	if (!l->max_depth)
		l->max_depth = 16;
	if (!l->max_occurrences)
		l->max_occurrences = 10000;
	if (!l->max_steps)
		l->max_steps = 200000;
}

static void
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- text ---- */

/* A copy that is valid UTF-8 without control characters, at most max bytes. */
static char *
clean_text(const char *s, size_t max)
{
	struct cc_buf b = {0};
	size_t n, i = 0;

	if (!s || !*s)
		return NULL;
	n = strlen(s);
	while (i < n && b.len < max) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x80) {
			if (c >= 0x20 || c == '\n' || c == '\t')
				cc_buf_add(&b, s + i, 1);
			else if (c == '\r')
				;	/* CRLF inside text: keep the LF */
			else
				cc_buf_add(&b, " ", 1);
			i++;
			continue;
		}
		{
			size_t j = i;
			int32_t cp = cc_utf8_next(s, n, &j);

			if (cp == 0xFFFD && !(j - i == 3 && (unsigned char)s[i] == 0xEF))
				cc_buf_add(&b, "\xef\xbf\xbd", 3);
			else
				cc_buf_add(&b, s + i, j - i);
			i = j;
		}
	}
	if (b.len >= max && i < n) {
		/* cut on a character boundary and say so */
		while (b.len > 0 && ((unsigned char)b.data[b.len - 1] & 0xC0) == 0x80)
			b.len--;
		if (b.len > 0 && ((unsigned char)b.data[b.len - 1] & 0xC0) == 0xC0)
			b.len--;
		cc_buf_add(&b, "\xe2\x80\xa6", 3);
	}
	if (!b.data)
		return NULL;
	return b.data;
}

/* ---- time ---- */

static icaltimezone *
zone_of(icalcomponent *cal, icalproperty *p, struct icaltimetype t)
{
	icalparameter *par;
	const char *tzid;
	icaltimezone *z;

	if (t.is_date)
		return NULL;
	if (icaltime_is_utc(t))
		return icaltimezone_get_utc_timezone();
	par = icalproperty_get_first_parameter(p, ICAL_TZID_PARAMETER);
	if (!par || !(tzid = icalparameter_get_tzid(par)) || !*tzid)
		return NULL;	/* floating */
	if (cal && (z = icalcomponent_get_timezone(cal, tzid)))
		return z;
	if ((z = icaltimezone_get_builtin_timezone(tzid)))
		return z;
	if ((z = icaltimezone_get_builtin_timezone_from_tzid(tzid)))
		return z;
	/* "/mozilla.org/20050126_1/Asia/Tokyo" and other prefixed ids */
	for (const char *q = tzid; (q = strchr(q, '/')); q++)
		if ((z = icaltimezone_get_builtin_timezone(q + 1)))
			return z;
	return NULL;	/* unknown: read it as local time */
}

static time_t
instant(struct icaltimetype t, icaltimezone *z)
{
	struct cc_date d = { t.year, t.month, t.day };

	if (t.is_date)
		return cc_date_start(d);
	if (!z)
		return cc_local_time(d, t.hour, t.minute) + t.second;
	return icaltime_as_timet_with_zone(t, z);
}

/* The wall-clock time of instant t where the event lives. */
static struct icaltimetype
wall(time_t t, icaltimezone *z, int is_date)
{
	struct icaltimetype w;

	if (z) {
		/* the zone must travel with it: UNTIL is compared across zones */
		w = icaltime_from_timet_with_zone(t, is_date, z);
		return is_date ? w : icaltime_set_timezone(&w, z);
	}
	{
		struct tm tm;

		localtime_r(&t, &tm);
		w = icaltime_null_time();
		w.year = tm.tm_year + 1900;
		w.month = tm.tm_mon + 1;
		w.day = tm.tm_mday;
		if (is_date) {
			w.is_date = 1;
		} else {
			w.hour = tm.tm_hour;
			w.minute = tm.tm_min;
			w.second = tm.tm_sec;
		}
	}
	return w;
}

static int
cmp_time(const void *a, const void *b)
{
	time_t x = *(const time_t *)a, y = *(const time_t *)b;

	return x < y ? -1 : x > y;
}

static int
has_time(const time_t *v, size_t n, time_t t)
{
	return n && bsearch(&t, v, n, sizeof *v, cmp_time) != NULL;
}

/* ---- parsing ---- */

/* Nesting depth and count of components, without libical. */
static int
prescan(const char *s, size_t n, const struct cc_ics_limits *lim, char *err,
    size_t errlen)
{
	int depth = 0, seen = 0;
	size_t events = 0;
	size_t i = 0;

	while (i < n) {
		const char *line = s + i;
		const char *nl = memchr(line, '\n', n - i);
		size_t len = nl ? (size_t)(nl - line) : n - i;

		if (len >= 6 && strncasecmp(line, "BEGIN:", 6) == 0) {
			if (++depth > lim->max_depth) {
				fail(err, errlen, "components nested more than %d deep",
				    lim->max_depth);
				return -1;
			}
			if (len >= 12 && strncasecmp(line + 6, "VEVENT", 6) == 0 &&
			    ++events > lim->max_events) {
				fail(err, errlen, "more than %zu events", lim->max_events);
				return -1;
			}
			if (len >= 15 && strncasecmp(line + 6, "VCALENDAR", 9) == 0)
				seen = 1;
		} else if (len >= 4 && strncasecmp(line, "END:", 4) == 0) {
			if (depth > 0)
				depth--;
		}
		i += len + 1;
	}
	if (!seen) {
		fail(err, errlen, "not an iCalendar file (no BEGIN:VCALENDAR)");
		return -1;
	}
	return 0;
}

static void
add_time(time_t **v, size_t *n, time_t t)
{
	*v = cc_xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = t;
}

static int
read_event(struct cc_ics *cal, icalcomponent *vcal, icalcomponent *c,
    struct vevent *e)
{
	icalproperty *p;
	struct icaltimetype dt, de;
	const char *s;

	memset(e, 0, sizeof *e);
	p = icalcomponent_get_first_property(c, ICAL_DTSTART_PROPERTY);
	if (!p)
		return -1;
	dt = icalproperty_get_dtstart(p);
	if (icaltime_is_null_time(dt) || !icaltime_is_valid_time(dt) ||
	    dt.year < 1900 || dt.year > 2500)
		return -1;
	e->zone = zone_of(vcal, p, dt);
	e->all_day = dt.is_date;
	e->dtstart = icaltime_set_timezone(&dt, e->zone);
	e->start = instant(dt, e->zone);

	/* the end: DTEND, or DURATION, or none (a day for all-day events) */
	if ((p = icalcomponent_get_first_property(c, ICAL_DTEND_PROPERTY))) {
		de = icalproperty_get_dtend(p);
		if (!icaltime_is_null_time(de)) {
			e->has_end = 1;
			if (e->all_day) {
				struct cc_date a = { dt.year, dt.month, dt.day };
				struct cc_date b = { de.year, de.month, de.day };

				e->dur_days = (int)cc_date_diff(a, b);
			} else {
				e->dur = (long)(instant(de, zone_of(vcal, p, de)) - e->start);
			}
		}
	} else if ((p = icalcomponent_get_first_property(c, ICAL_DURATION_PROPERTY))) {
		struct icaldurationtype d = icalproperty_get_duration(p);
		long secs = icaldurationtype_as_int(d);

		e->has_end = 1;
		if (e->all_day)
			e->dur_days = (int)(secs / 86400);
		else
			e->dur = secs;
	} else if (e->all_day) {
		e->dur_days = 1;
	}
	if (e->all_day && e->dur_days < 1)
		e->dur_days = 1;
	if (e->dur < 0)
		e->dur = 0;
	if (e->all_day)
		e->dur = 86400L * e->dur_days;

	e->cancelled = icalcomponent_get_status(c) == ICAL_STATUS_CANCELLED;
	if ((s = icalcomponent_get_uid(c)))
		e->uid = cc_xstrdup(s);
	e->title = clean_text(icalcomponent_get_summary(c), 500);
	e->description = clean_text(icalcomponent_get_description(c), DESCRIPTION_MAX);
	e->location = clean_text(icalcomponent_get_location(c), 500);
	if ((p = icalcomponent_get_first_property(c, ICAL_URL_PROPERTY)))
		e->url = clean_text(icalproperty_get_url(p), 1000);

	if ((p = icalcomponent_get_first_property(c, ICAL_RECURRENCEID_PROPERTY))) {
		struct icaltimetype r = icalproperty_get_recurrenceid(p);

		e->is_override = 1;
		e->recurrence_id = instant(r, r.is_date ? NULL : zone_of(vcal, p, r));
	}
	for (p = icalcomponent_get_first_property(c, ICAL_RRULE_PROPERTY); p;
	    p = icalcomponent_get_next_property(c, ICAL_RRULE_PROPERTY)) {
		struct icalrecurrencetype r = icalproperty_get_rrule(p);

		if (r.freq == ICAL_NO_RECURRENCE)
			continue;
		e->rrules = cc_xrealloc(e->rrules, (e->nrrules + 1) * sizeof *e->rrules);
		e->rrules[e->nrrules++] = r;
	}
	for (p = icalcomponent_get_first_property(c, ICAL_EXRULE_PROPERTY); p;
	    p = icalcomponent_get_next_property(c, ICAL_EXRULE_PROPERTY)) {
		struct icalrecurrencetype r = icalproperty_get_exrule(p);

		if (r.freq == ICAL_NO_RECURRENCE)
			continue;
		e->exrules = cc_xrealloc(e->exrules, (e->nexrules + 1) * sizeof *e->exrules);
		e->exrules[e->nexrules++] = r;
	}
	for (p = icalcomponent_get_first_property(c, ICAL_RDATE_PROPERTY); p;
	    p = icalcomponent_get_next_property(c, ICAL_RDATE_PROPERTY)) {
		struct icaldatetimeperiodtype r = icalproperty_get_rdate(p);
		struct period pd = { 0, -1 };

		if (!icaltime_is_null_time(r.time)) {
			pd.start = instant(r.time, zone_of(vcal, p, r.time));
		} else if (!icaltime_is_null_time(r.period.start)) {
			icaltimezone *z = zone_of(vcal, p, r.period.start);

			pd.start = instant(r.period.start, z);
			if (!icaltime_is_null_time(r.period.end))
				pd.dur = (long)(instant(r.period.end, z) - pd.start);
			else
				pd.dur = icaldurationtype_as_int(r.period.duration);
		} else {
			continue;
		}
		e->rdates = cc_xrealloc(e->rdates, (e->nrdates + 1) * sizeof *e->rdates);
		e->rdates[e->nrdates++] = pd;
	}
	for (p = icalcomponent_get_first_property(c, ICAL_EXDATE_PROPERTY); p;
	    p = icalcomponent_get_next_property(c, ICAL_EXDATE_PROPERTY)) {
		struct icaltimetype x = icalproperty_get_exdate(p);

		if (icaltime_is_null_time(x))
			continue;
		if (x.is_date && !e->all_day) {	/* a whole day off a timed rule */
			e->exdays = cc_xrealloc(e->exdays, (e->nexdays + 1) * sizeof *e->exdays);
			e->exdays[e->nexdays++] = (struct cc_date){ x.year, x.month, x.day };
			continue;
		}
		add_time(&e->exdates, &e->nexdates, instant(x, zone_of(vcal, p, x)));
	}
	if (e->nexdates)
		qsort(e->exdates, e->nexdates, sizeof *e->exdates, cmp_time);
	(void)cal;
	return 0;
}

static void
free_event(struct vevent *e)
{
	free(e->uid);
	free(e->title);
	free(e->description);
	free(e->location);
	free(e->url);
	free(e->rrules);
	free(e->exrules);
	free(e->rdates);
	free(e->exdates);
	free(e->exdays);
	free(e->overridden);
}

static void
collect(struct cc_ics *cal, icalcomponent *comp, icalcomponent *vcal, size_t *cap)
{
	icalcomponent *c;
	icalcomponent **done = NULL;
	size_t ndone = 0;

	if (icalcomponent_isa(comp) == ICAL_VCALENDAR_COMPONENT)
		vcal = comp;
	for (c = icalcomponent_get_first_component(comp, ICAL_ANY_COMPONENT); c;
	    c = icalcomponent_get_next_component(comp, ICAL_ANY_COMPONENT)) {
		icalcomponent_kind k = icalcomponent_isa(c);

		if (k == ICAL_VCALENDAR_COMPONENT) {
			collect(cal, c, c, cap);	/* depth is bounded by prescan */
			continue;
		}
		if (k != ICAL_VEVENT_COMPONENT)
			continue;
		if (cal->n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			cal->ev = cc_xrealloc(cal->ev, *cap * sizeof *cal->ev);
		}
		if (read_event(cal, vcal, c, &cal->ev[cal->n]) == 0)
			cal->n++;
		else
			free_event(&cal->ev[cal->n]);
		done = cc_xrealloc(done, (ndone + 1) * sizeof *done);
		done[ndone++] = c;
	}
	/* what was read is kept in struct vevent; libical's copy can go */
	for (size_t i = 0; i < ndone; i++) {
		icalcomponent_remove_component(comp, done[i]);
		icalcomponent_free(done[i]);
	}
	free(done);
}

static int
cmp_uid(const void *a, const void *b)
{
	const struct vevent *x = *(struct vevent *const *)a;
	const struct vevent *y = *(struct vevent *const *)b;
	int c = strcmp(x->uid ? x->uid : "", y->uid ? y->uid : "");

	if (c)
		return c;
	if (x->is_override != y->is_override)
		return x->is_override - y->is_override;	/* master first */
	return x < y ? -1 : x > y;
}

/* Tie each override (RECURRENCE-ID) to its master by UID. */
static void
link_overrides(struct cc_ics *cal)
{
	struct vevent **by = cc_xmalloc((cal->n ? cal->n : 1) * sizeof *by);
	size_t i = 0;

	for (size_t k = 0; k < cal->n; k++)
		by[k] = &cal->ev[k];
	qsort(by, cal->n, sizeof *by, cmp_uid);
	while (i < cal->n) {
		size_t j = i;
		struct vevent *master = NULL;

		while (j < cal->n && by[j]->uid && by[i]->uid &&
		    strcmp(by[j]->uid, by[i]->uid) == 0)
			j++;
		if (j == i)	/* no UID: on its own */
			j = i + 1;
		for (size_t k = i; k < j; k++) {
			struct vevent *e = by[k];

			if (!e->is_override) {
				if (master)	/* the same master twice: keep one */
					e->skip = 1;
				else
					master = e;
				continue;
			}
			if (!master)
				continue;	/* an orphan override stands alone */
			if (master->cancelled)
				e->skip = 1;
			add_time(&master->overridden, &master->noverridden,
			    e->recurrence_id);
		}
		if (master && master->noverridden)
			qsort(master->overridden, master->noverridden,
			    sizeof *master->overridden, cmp_time);
		i = j;
	}
	free(by);
}

/*
 * The text as libical will read it: a C string (a NUL inside would end it
 * early, so it becomes a space), each content line, folded ones joined,
 * cut at MAX_LINE bytes.  libical reads a long line in time that grows
 * with its square (a 5 MB DESCRIPTION took 4 s), and nothing we show
 * needs more than a few thousand characters of one.
 */
#define MAX_LINE 65536

static char *
copy_lines(const char *text, size_t len)
{
	char *copy = cc_xmalloc(len + 1), *o = copy;
	size_t line = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c == '\n') {
			/* a fold continues the line; anything else begins a new one */
			if (!(i + 1 < len && (text[i + 1] == ' ' || text[i + 1] == '\t')))
				line = 0;
			*o++ = c;
			continue;
		}
		if (line++ >= MAX_LINE && c != '\r')
			continue;
		*o++ = c ? c : ' ';
	}
	*o = '\0';
	return copy;
}

struct cc_ics *
cc_ics_parse(const char *text, size_t len, const char *name,
    const struct cc_ics_limits *lim, char *err, size_t errlen)
{
	struct cc_ics *cal = calloc(1, sizeof *cal);
	size_t cap = 0;
	char *copy;

	if (!cal)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	limits(&cal->lim, lim);
	if (len > cal->lim.max_bytes) {
		fail(err, errlen, "larger than %zu bytes", cal->lim.max_bytes);
		free(cal);
		return NULL;
	}
	if (prescan(text, len, &cal->lim, err, errlen) < 0 || ical_load(err, errlen) < 0) {
		free(cal);
		return NULL;
	}
	icalerror_set_errors_are_fatal(0);
	icalerror_clear_errno();
	copy = copy_lines(text, len);
	cal->root = icalparser_parse_string(copy);
	free(copy);
	if (!cal->root) {
		fail(err, errlen, "not an iCalendar file");
		free(cal);
		return NULL;
	}
	cal->name = cc_xstrdup(name ? name : "calendar");
	collect(cal, cal->root, NULL, &cap);
	link_overrides(cal);
	return cal;
}

struct cc_ics *
cc_ics_load(const char *path, const char *name, const struct cc_ics_limits *lim,
    char *err, size_t errlen)
{
	struct cc_ics_limits l;
	struct stat st;
	struct cc_ics *cal;
	char *buf;
	ssize_t got;
	size_t n = 0;
	int fd;

	limits(&l, lim);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fail(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fail(err, errlen, "not a regular file");
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if ((size_t)st.st_size > l.max_bytes) {
		fail(err, errlen, "larger than %zu bytes", l.max_bytes);
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	buf = cc_xmalloc((size_t)st.st_size + 1);
	while (n < (size_t)st.st_size &&
	    (got = read(fd, buf + n, (size_t)st.st_size - n)) > 0)
		n += (size_t)got;
	close(fd);
	cal = cc_ics_parse(buf, n, name, &l, err, errlen);
	free(buf);
	if (!cal)
		errno = EINVAL;
	return cal;
}

size_t
cc_ics_count(const struct cc_ics *cal)
{
	return cal ? cal->n : 0;
}

void
cc_ics_free(struct cc_ics *cal)
{
	if (!cal)
		return;
	for (size_t i = 0; i < cal->n; i++)
		free_event(&cal->ev[i]);
	free(cal->ev);
	cc_event_list_release(&cal->win);
	if (cal->root)
		icalcomponent_free(cal->root);
	free(cal->name);
	free(cal);
}

void
cc_ics_cleanup(void)
{
	/* the library stays loaded: another calendar may still be in use */
	if (!ical.dl)
		return;
	icaltimezone_free_builtin_timezones();
	icalmemory_free_ring();
}

/* ---- expansion ---- */

struct walk {
	const struct cc_ics *cal;
	time_t start, end;	/* the range; end is never 0 here */
	int open;		/* only occurrences starting at start or later */
	size_t upcoming;	/* open: this many per event are enough */
	size_t steps, found;
	int stopped;
	struct cc_event_list *out;
};

static void
emit(struct walk *w, const struct vevent *e, time_t s, long dur)
{
	struct cc_event ev;

	if (dur < 0)
		dur = e->dur;
	if (w->open ? s < w->start : (s + dur <= w->start && !(dur == 0 && s == w->start)))
		return;
	if (s >= w->end)
		return;
	if (w->found >= w->cal->lim.max_occurrences) {
		w->stopped = 1;
		return;
	}
	ev = (struct cc_event){
		.start = s, .end = s + dur, .all_day = e->all_day,
		.has_end = e->has_end || e->all_day,
		.title = e->title, .description = e->description,
		.location = e->location, .url = e->url, .source = w->cal->name,
	};
	if (e->all_day)	/* whole local days, whatever DST does */
		ev.end = cc_date_start(cc_date_add(cc_date_of(s), e->dur_days));
	cc_event_list_add(w->out, &ev);
	w->found++;
}

/*
 * BYMONTHDAY values that no BYMONTH month has (30 February): libical's
 * monthly iterator would search for them until the year 2582 and ignore
 * UNTIL while it does, so such a rule is known to be empty up front.
 */
static int
never_matches(const struct icalrecurrencetype *r)
{
	static const int longest[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (r->by_month_day[0] == ICAL_RECURRENCE_ARRAY_MAX ||
	    r->by_month[0] == ICAL_RECURRENCE_ARRAY_MAX)
		return 0;
	for (int i = 0; i < ICAL_BY_MONTH_SIZE && r->by_month[i] != ICAL_RECURRENCE_ARRAY_MAX; i++) {
		int m = icalrecurrencetype_month_month(r->by_month[i]);

		if (m < 1 || m > 12)
			return 0;
		for (int k = 0; k < ICAL_BY_MONTHDAY_SIZE &&
		    r->by_month_day[k] != ICAL_RECURRENCE_ARRAY_MAX; k++) {
			int d = r->by_month_day[k];

			if ((d > 0 ? d : -d) <= longest[m - 1])
				return 0;
		}
	}
	return 1;
}

/* The days of a month the n-th (n < 0: from the end) weekday can be on. */
static void
nth_weekday_days(int n, int *lo, int *hi)
{
	/* the first is on day 1 to 7; the last on day 22 (of 28) to 31 */
	*lo = n > 0 ? 7 * n - 6 : 29 + 7 * n;
	*hi = n > 0 ? 7 * n : 38 + 7 * n;
	if (*lo < 1)
		*lo = 1;
	if (*hi > 31)
		*hi = 31;
}

/*
 * Days within a month that cannot be, in a monthly rule or a yearly one by
 * month (where BYDAY ordinals count in the month): a weekday beyond the
 * fifth (BYDAY=8FR), an ordinal no BYMONTHDAY day can be (2MO on the
 * 31st), or a BYSETPOS beyond what a month holds (BYSETPOS=40;BYDAY=MO).
 * libical's iterator looks for their first instance until the year 2582
 * as well, a second or more per rule and question (found by fuzzing).
 */
static int
no_day_in_month(const struct icalrecurrencetype *r)
{
	int monthly = r->freq == ICAL_MONTHLY_RECURRENCE ||
	    (r->freq == ICAL_YEARLY_RECURRENCE &&
	    r->by_month[0] != ICAL_RECURRENCE_ARRAY_MAX);
	int has_md = r->by_month_day[0] != ICAL_RECURRENCE_ARRAY_MAX;
	long days = 0, most = 1;	/* candidate days; instances a month */
	const short *const times[] = { r->by_hour, r->by_minute, r->by_second };
	const int sizes[] = { ICAL_BY_HOUR_SIZE, ICAL_BY_MINUTE_SIZE,
		ICAL_BY_SECOND_SIZE };

	if (!monthly)
		return 0;
	for (int i = 0; i < ICAL_BY_DAY_SIZE && r->by_day[i] != ICAL_RECURRENCE_ARRAY_MAX; i++) {
		int n = icalrecurrencetype_day_position(r->by_day[i]), lo = 1, hi = 31;
		int possible = !has_md;

		if (n)
			nth_weekday_days(n, &lo, &hi);
		for (int k = 0; has_md && k < ICAL_BY_MONTHDAY_SIZE &&
		    r->by_month_day[k] != ICAL_RECURRENCE_ARRAY_MAX; k++) {
			int d = r->by_month_day[k];

			/* day d, or with d < 0 the d-th from the end: 28 + d + 1 ... */
			if ((d > 0 ? d : 29 + d) <= hi && (d > 0 ? d : 32 + d) >= lo)
				possible = 1;
		}
		if (lo <= hi && possible)
			days += n ? 1 : 5;
	}
	if (r->by_day[0] != ICAL_RECURRENCE_ARRAY_MAX && days == 0)
		return 1;
	if (r->by_set_pos[0] == ICAL_RECURRENCE_ARRAY_MAX ||
	    r->freq != ICAL_MONTHLY_RECURRENCE)
		return 0;
	/* BYSETPOS counts the instances of one month */
	if (!days || days > 31)
		days = 31;
	if (has_md) {
		long k = 0;

		while (k < ICAL_BY_MONTHDAY_SIZE &&
		    r->by_month_day[k] != ICAL_RECURRENCE_ARRAY_MAX)
			k++;
		if (k < days)
			days = k;
	}
	for (int t = 0; t < 3; t++) {
		long k = 0;

		while (k < sizes[t] && times[t][k] != ICAL_RECURRENCE_ARRAY_MAX)
			k++;
		most *= k ? k : 1;
	}
	most *= days;
	for (int i = 0; i < ICAL_BY_SETPOS_SIZE &&
	    r->by_set_pos[i] != ICAL_RECURRENCE_ARRAY_MAX; i++)
		if (r->by_set_pos[i] != 0 && labs(r->by_set_pos[i]) <= most)
			return 0;
	return 1;
}

/* Iterate one rule from dtstart over [from, until]; calls back per instant. */
static size_t
walk_rule(struct walk *w, const struct vevent *e, struct icalrecurrencetype rule,
    time_t from, int (*cb)(struct walk *, const struct vevent *, time_t, void *),
    void *arg)
{
	struct icaltimetype until = wall(w->end, e->zone, e->all_day), t;
	icalrecur_iterator *it;
	size_t n = 0;

	/* never look past the range: impossible rules stop here */
	if (icaltime_is_null_time(rule.until) ||
	    icaltime_compare(until, rule.until) < 0)
		rule.until = until;
	if (never_matches(&rule) || no_day_in_month(&rule))
		return 0;
	it = icalrecur_iterator_new(rule, e->dtstart);
	if (!it)
		return 0;
	if (!rule.count && from > e->start &&
	    !icalrecur_iterator_set_start(it, wall(from, e->zone, e->all_day))) {
		/* libical cannot jump for this rule: walk from the start */
		icalrecur_iterator_free(it);
		it = icalrecur_iterator_new(rule, e->dtstart);
		if (!it)
			return 0;
	}
	while (!icaltime_is_null_time(t = icalrecur_iterator_next(it))) {
		time_t s = instant(t, e->zone);

		if (++w->steps > w->cal->lim.max_steps) {
			w->stopped = 1;
			break;
		}
		if (s >= w->end)
			break;
		n++;
		if (s >= from && !cb(w, e, s, arg))
			break;
		if (w->stopped)
			break;
	}
	icalrecur_iterator_free(it);
	return n;
}

struct times {
	time_t *v;
	size_t n;
};

static int
collect_time(struct walk *w, const struct vevent *e, time_t s, void *arg)
{
	struct times *t = arg;

	add_time(&t->v, &t->n, s);
	return t->n < w->cal->lim.max_occurrences;
}

static int
excluded(const struct vevent *e, const struct times *exr, time_t s)
{
	if (has_time(e->exdates, e->nexdates, s) ||
	    has_time(e->overridden, e->noverridden, s) ||
	    has_time(exr->v, exr->n, s))
		return 1;
	if (e->nexdays) {
		struct cc_date d = cc_date_of(s);

		for (size_t i = 0; i < e->nexdays; i++)
			if (cc_date_cmp(d, e->exdays[i]) == 0)
				return 1;
	}
	return 0;
}

struct per_event {
	const struct times *exr;
	size_t emitted;
};

static int
occurrence(struct walk *w, const struct vevent *e, time_t s, void *arg)
{
	struct per_event *pe = arg;

	if (!excluded(e, pe->exr, s)) {
		size_t before = w->found;

		emit(w, e, s, -1);
		if (w->found > before)
			pe->emitted++;
	}
	return !(w->open && pe->emitted >= w->upcoming);
}

static void
expand_event(struct walk *w, const struct vevent *e)
{
	/* an occurrence that started before the range may still overlap it */
	time_t from = w->open ? w->start : w->start - e->dur - 1;
	struct times exr = {0};
	struct per_event pe = { &exr, 0 };

	if (!e->nrrules && !e->nrdates) {
		emit(w, e, e->start, -1);
		return;
	}
	for (size_t i = 0; i < e->nexrules; i++)
		walk_rule(w, e, e->exrules[i], from, collect_time, &exr);
	if (exr.n)
		qsort(exr.v, exr.n, sizeof *exr.v, cmp_time);
	/*
	 * With RDATE alone, DTSTART is the first occurrence.  With a rule, the
	 * iterator returns it when it matches the rule; an unsynchronised
	 * DTSTART is undefined in RFC 5545 and, as in libical, not listed.
	 */
	if (!e->nrrules && e->start >= from && !excluded(e, &exr, e->start)) {
		emit(w, e, e->start, -1);
		pe.emitted++;
	}
	for (size_t i = 0; i < e->nrrules && !w->stopped; i++)
		walk_rule(w, e, e->rrules[i], from, occurrence, &pe);
	for (size_t i = 0; i < e->nrdates && !w->stopped; i++)
		if (e->rdates[i].start >= from && !excluded(e, &exr, e->rdates[i].start))
			emit(w, e, e->rdates[i].start, e->rdates[i].dur);
	free(exr.v);
}

static int
expand_range(struct cc_ics *cal, time_t start, time_t end, size_t upcoming,
    struct cc_event_list *out, char *err, size_t errlen)
{
	struct walk w = { .cal = cal, .start = start, .end = end, .out = out,
	    .upcoming = upcoming ? upcoming : 3 };

	if (!cal)
		return 0;
	if (!end) {		/* open: look a year ahead */
		w.open = 1;
		w.end = start + 366L * 86400;
	}
	for (size_t i = 0; i < cal->n && !w.stopped; i++) {
		const struct vevent *e = &cal->ev[i];

		if (e->cancelled || e->skip)
			continue;
		expand_event(&w, e);
	}
	if (w.stopped) {
		fail(err, errlen, "expansion stopped after %zu occurrences and %zu "
		    "recurrence steps", w.found, w.steps);
		return -1;
	}
	return 0;
}

/* ---- occurrence lists ---- */

void
cc_event_list_add(struct cc_event_list *l, const struct cc_event *e)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 32;
		l->v = cc_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = *e;
}

void
cc_event_list_release(struct cc_event_list *l)
{
	free(l->v);
	*l = (struct cc_event_list){0};
}

static int
cmp_event(const void *a, const void *b)
{
	const struct cc_event *x = a, *y = b;
	int c;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	c = strcmp(x->title ? x->title : "", y->title ? y->title : "");
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int
same_title(const char *a, const char *b)
{
	char *fa, *fb;
	int same;

	if (!a || !b)
		return a == b;
	if (strcmp(a, b) == 0)
		return 1;
	fa = cc_text_fold(a, strlen(a), NULL, 0);
	fb = cc_text_fold(b, strlen(b), NULL, 0);
	same = strcmp(fa, fb) == 0;
	free(fa);
	free(fb);
	return same;
}

void
cc_event_list_finish(struct cc_event_list *l)
{
	size_t o = 0;

	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, cmp_event);
	for (size_t i = 0; i < l->n; i++) {
		struct cc_event *keep = NULL;

		/* the same event from another source: same start, same title */
		for (size_t k = o; k-- > 0 && l->v[k].start == l->v[i].start;)
			if (same_title(l->v[k].title, l->v[i].title)) {
				keep = &l->v[k];
				break;
			}
		if (!keep) {
			l->v[o++] = l->v[i];
			continue;
		}
		if (l->v[i].order < keep->order) {	/* the earlier source wins */
			struct cc_event t = *keep;

			*keep = l->v[i];
			l->v[i] = t;
		}
		if (!keep->description)
			keep->description = l->v[i].description;
		if (!keep->location)
			keep->location = l->v[i].location;
		if (!keep->url)
			keep->url = l->v[i].url;
		if (!keep->has_end && l->v[i].has_end) {
			keep->end = l->v[i].end;
			keep->has_end = 1;
		}
	}
	l->n = o;
}

#define WINDOW (92L * 86400)	/* about a quarter */

int
cc_ics_expand(struct cc_ics *cal, time_t start, time_t end, size_t upcoming,
    struct cc_event_list *out, char *err, size_t errlen)
{
	if (!cal)
		return 0;
	if (!end)		/* open ranges look a year ahead: no window */
		return expand_range(cal, start, end, upcoming, out, err, errlen);
	if (!cal->win_ok || start < cal->win_start || end > cal->win_end) {
		time_t ws = start, we = end - start < WINDOW ? start + WINDOW : end;

		cal->win.n = 0;
		cal->win_ok = expand_range(cal, ws, we, 0, &cal->win, NULL, 0) == 0;
		cal->win_start = ws;
		cal->win_end = we;
		if (!cal->win_ok)	/* a limit: answer the range alone */
			return expand_range(cal, start, end, upcoming, out, err, errlen);
	}
	/* the same test as emit(): overlapping [start, end) */
	for (size_t i = 0; i < cal->win.n; i++) {
		const struct cc_event *e = &cal->win.v[i];

		if (e->start >= end)
			continue;
		if (e->end <= start && !(e->end == e->start && e->start == start))
			continue;
		cc_event_list_add(out, e);
	}
	return 0;
}
