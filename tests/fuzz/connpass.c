/*
 * Fuzz target "connpass": the reader of a connpass API answer,
 * cc_event_connpass_parse(), on any body, for a closed range (January
 * 2025) and an open one (upcoming from the tests' "now"), then merged and
 * de-duplicated by cc_event_list_finish() as cc-event does.
 *
 * Checked: every event kept has a title; its texts are valid UTF-8 (HTML
 * stripped and cut at a limit, never inside a character); it overlaps its
 * range; the list is in order.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "cc_config.h"
#include "cc_text.h"
#include "cc_time.h"
#include "cc_ics.h"
#include "cc_event.h"
#include "fuzz.h"

static time_t
at(const char *iso)
{
	time_t t;

	fuzz_assert(cc_time_parse_iso8601(iso, &t) == 0);
	return t;
}

static void
check_text(const char *s)
{
	if (s)
		fuzz_assert(cc_utf8_valid(s, strlen(s)));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct cc_time_range r[2] = {{0}};
	struct cc_event_list l = {0};
	struct cc_event_strings keep = {0};

	if (!ready) {
		fuzz_assert(cc_tz_use("Asia/Tokyo") == 0);
		ready = 1;
	}
	r[0].start = at("2025-01-01T00:00:00+09:00");
	r[0].end = at("2025-02-01T00:00:00+09:00");
	r[1].start = at("2025-01-15T10:00:00+09:00");
	r[1].open = 1;
	for (int i = 0; i < 2; i++) {
		time_t end = r[i].open ? r[i].start + 366L * 86400 : r[i].end;
		size_t before = l.n;

		if (cc_event_connpass_parse((const char *)data, size, "connpass",
		    &r[i], end, &l, &keep) < 0) {
			fuzz_assert(l.n == before);
			continue;
		}
		for (size_t k = before; k < l.n; k++) {
			const struct cc_event *e = &l.v[k];

			fuzz_assert(e->title && *e->title);
			check_text(e->title);
			check_text(e->description);
			check_text(e->location);
			check_text(e->url);
			fuzz_assert(e->start < end && e->start <= e->end);
			fuzz_assert(e->end >= r[i].start);
			if (r[i].open)
				fuzz_assert(e->start >= r[i].start);
		}
	}
	cc_event_list_finish(&l);
	for (size_t k = 1; k < l.n; k++)
		fuzz_assert(l.v[k - 1].start <= l.v[k].start);
	cc_event_list_release(&l);
	cc_event_strings_release(&keep);
	return 0;
}
