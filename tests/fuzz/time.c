/*
 * Fuzz target "time": the reader of time expressions, cc_time_extract()
 * ("来週の土曜", "Jan 20", "next 3 days", ...), in Asia/Tokyo at two fixed
 * reference times (the test suite's Wednesday, and a Sunday night at the
 * end of a year), and the ISO 8601 reader on the same bytes.
 *
 * Checked: a closed range is not empty and its dates are in order; the
 * named fields are terminated; an ISO 8601 time of 1970 or later comes
 * back unchanged through cc_time_format().
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_time.h"
#include "fuzz.h"

static const char *const refs[] = {
	"2025-01-15T10:00:00+09:00",	/* CC_NOW of the tests: a Wednesday */
	"2024-12-29T23:30:00+09:00",	/* a Sunday night, two days before a new year */
};

static void
check(const struct cc_time_range *r)
{
	fuzz_assert(r->kind);
	fuzz_assert(memchr(r->title, '\0', sizeof r->title));
	fuzz_assert(memchr(r->expression, '\0', sizeof r->expression));
	fuzz_assert(r->weekday >= 0 && r->weekday <= 7);
	fuzz_assert(cc_date_cmp(r->first, r->last) <= 0);
	if (!r->open)
		fuzz_assert(r->start < r->end);
	if (r->weekday)
		fuzz_assert(cc_weekday_name(r->weekday));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct cc_time_range r;
	char *cstr, iso[CC_TIME_ISO_MAX];
	time_t now, t, t2;

	if (!ready) {
		fuzz_assert(cc_tz_use("Asia/Tokyo") == 0);
		ready = 1;
	}
	for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) {
		fuzz_assert(cc_time_parse_iso8601(refs[i], &now) == 0);
		memset(&r, 0xA5, sizeof r);	/* every field must be set */
		cc_time_extract((const char *)data, size, now, &r);
		check(&r);
	}

	cstr = cc_xmalloc(size + 1);
	memcpy(cstr, data, size);
	cstr[size] = '\0';
	if (cc_time_parse_iso8601(cstr, &t) == 0 && t >= 0 && t < 253370764800) {
		cc_time_format(t, iso);
		fuzz_assert(cc_time_parse_iso8601(iso, &t2) == 0);
		fuzz_assert(t2 == t);
	}
	free(cstr);
	return 0;
}
