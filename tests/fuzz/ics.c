/*
 * Fuzz target "ics": the iCalendar reader, cc_ics_parse() with limits
 * like those of a calendar file, then bounded expansion as cc-event does: a
 * quarter (RRULE, RDATE, EXDATE, overrides, cancellations) and the next
 * three upcoming occurrences, merged and sorted by cc_event_list_finish().
 *
 * The limits are smaller than a calendar file's defaults, so that one
 * input costs milliseconds, not seconds; they are the same code.
 *
 * Checked: the merged list is in chronological order and every occurrence
 * carries the source's name.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_time.h"
#include "cc_ics.h"
#include "fuzz.h"

static time_t
at(const char *iso)
{
	time_t t;

	fuzz_assert(cc_time_parse_iso8601(iso, &t) == 0);
	return t;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	static const struct cc_ics_limits lim = {
		.max_events = 2000, .max_occurrences = 1000, .max_steps = 20000,
	};
	struct cc_event_list l = {0};
	struct cc_ics *cal;
	char err[256];

	if (!ready) {
		fuzz_assert(cc_tz_use("Asia/Tokyo") == 0);
		atexit(cc_ics_cleanup);
		cc_progname = "fuzz-ics";
		ready = 1;
	}
	cal = cc_ics_parse((const char *)data, size, "fuzz.ics", &lim, err, sizeof err);
	if (!cal)
		return 0;
	cc_ics_count(cal);
	cc_ics_expand(cal, at("2025-01-01T00:00:00+09:00"),
	    at("2025-04-01T00:00:00+09:00"), 0, &l, err, sizeof err);
	cc_ics_expand(cal, at("2025-01-15T10:00:00+09:00"), 0, 3, &l, err,
	    sizeof err);
	cc_event_list_finish(&l);
	for (size_t i = 0; i < l.n; i++) {
		fuzz_assert(l.v[i].source && strcmp(l.v[i].source, "fuzz.ics") == 0);
		if (i)
			fuzz_assert(l.v[i - 1].start <= l.v[i].start);
	}
	cc_event_list_release(&l);
	cc_ics_free(cal);
	return 0;
}
