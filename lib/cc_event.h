/*
 * cc_event.h: event sources and the events value (cc-event(1)): the
 * domain's calendars (events.conf), iCalendar URLs and connpass, asked for
 * the range a question names.
 *
 * Owns: the sources and what they fetched.  Borrows: the configuration,
 * cc_ics, cc_http, cc_time.
 */
#ifndef CC_EVENT_H
#define CC_EVENT_H

#include <stddef.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_time.h"
#include "cc_ics.h"

/*
 * The calendars a program answers from: iCalendar files and URLs and the
 * connpass API, configured from the domain's events.conf and options.
 * Each source that fails is reported in the record's events.errors; the
 * others still answer.
 */
struct cc_event_sources;

struct cc_event_options {
	const char *const *ics;		/* --ics FILE|URL...; NULL: events.conf */
	size_t nics;
	int connpass;			/* --connpass */
	long timeout_ms;		/* network total timeout; 0: 15000 */
	size_t upcoming;		/* items for an open range; 0: 3 */
	size_t max_items;		/* items per record; 0: 50 */
};

/*
 * Set up the sources: reads <datadir>/<domain>/events.conf, loads local
 * calendars (URLs and connpass are fetched on first use).  Dies with
 * CC_EXIT_USAGE on a configuration error (an unreadable file, connpass
 * without CC_CONNPASS_API_KEY).
 */
struct cc_event_sources *cc_event_sources_new(const struct cc_config *cfg,
	const struct cc_event_options *opt);
void cc_event_sources_free(struct cc_event_sources *s);
/*
 * Check the domain's events.conf and read its local calendars, reporting
 * every problem to p (URLs are not fetched); 0, or -1 if there was one.
 */
int cc_event_check(const struct cc_config *cfg, struct cc_problems *p);
/*
 * Write the events object for range r: {time_range, kind, ..., start, end,
 * timezone, expression, items, sources, errors}.  Returns 1 when a
 * network source failed for this record, 2 when a calendar file is bad,
 * else 0.
 */
int cc_event_write(struct cc_event_sources *s, const struct cc_time_range *r,
	struct cc_jw *out);

/*
 * The opening calendar (events.conf `opening`, cc-event(1)): its all-day
 * events close the places their LOCATION names (a comma-separated list),
 * its timed events are their opening hours.  cc_event_write_opening()
 * writes {date, weekday, kind, places: {PLACE: {open, hours|closed}}} for
 * the one local day r names; for a range of days (at most 92; an open
 * range, the next 92) the closing days in it, {from, to, kind, places:
 * {PLACE: {closed: [{date, weekday, title}]}}}; -1 (nothing written) when
 * r names no time, is longer, or there is no opening calendar.
 */
int cc_event_has_opening(const struct cc_event_sources *s);
int cc_event_write_opening(struct cc_event_sources *s,
	const struct cc_time_range *r, struct cc_jw *out);
/*
 * Named events (events.conf event_name): when the question q[0..len)
 * holds one of the words that name an event, r->title becomes that
 * event's title (the items are those events only) and a range with no
 * time named becomes the next ones from now (nextUpcoming).  1 when a
 * name was found, else 0 (r unchanged); a title the question already
 * gave is kept unless it holds the word.
 */
int cc_event_named(const struct cc_event_sources *s, const char *q, size_t len,
	time_t now, struct cc_time_range *r);
/* Strings that events point to, kept alive while their list is used. */
struct cc_event_strings {
	char **v;
	size_t n;
};
void cc_event_strings_release(struct cc_event_strings *p);
/*
 * The reading half of the connpass client, on its own so it can be tested
 * and fuzzed without a server: the events of a connpass API answer
 * body[0..len) (len below 2 GiB) that overlap r and start before
 * range_end, appended to out with `source` as their source; their text
 * (HTML stripped, cut) is added to strings.  0, or -1 when the body is not
 * connpass event JSON.
 */
int cc_event_connpass_parse(const char *body, size_t len, const char *source,
	const struct cc_time_range *r, time_t range_end, struct cc_event_list *out,
	struct cc_event_strings *strings);

#endif
