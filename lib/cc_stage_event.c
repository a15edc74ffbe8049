/* The cc-event stage: add events (the asked time range and the events in it). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_time.h"
#include "cc_memo.h"
#include "cc_event.h"
#include "cc_domain.h"
#include "cc_stages.h"

struct app {
	struct cc_config cfg;
	struct cc_domain *domain;
	struct cc_event_sources *sources;
	time_t now;
	int clock;		/* now is the clock's: read it for each record */
	int flags;		/* 1: a network source failed; 2: a calendar limit */
	/*
	 * The time ranges of questions asked before: cc_time_extract() is a
	 * function of the text and the moment alone (the zone is the
	 * process's, set once at the open), and a question that names a
	 * time costs some 67,000 instructions to read.
	 */
	struct cc_memo memo;
	struct cc_buf key;
};

/* cc_time_extract(), remembered by the moment and the text. */
static void
extract(struct app *a, const char *q, size_t len, struct cc_time_range *r)
{
	struct cc_memo_entry *e;

	a->key.len = 0;
	cc_buf_add(&a->key, &a->now, sizeof a->now);
	cc_buf_add(&a->key, q, len);
	if ((e = cc_memo_find(&a->memo, a->key.data, a->key.len)) && e->value) {
		memcpy(r, e->value, sizeof *r);
		return;
	}
	cc_time_extract(q, len, a->now, r);
	if (e)
		cc_memo_set(e, a->key.data, a->key.len, r, sizeof *r, 0);
}

static enum cc_outcome
answer(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct app *a = ctx;
	struct cc_time_range r;
	size_t len;
	const char *q;

	int day_only = 0;	/* an agent answered otherwise: the day's opening only */
	int arrive = 0;		/* "can I get in at 21:30?": today unless a day is named */
	jv cont = jv_invalid();	/* route.search_query: the question continued */
	size_t rlen;
	const char *raw = cc_record_raw(rec, "route", &rlen);

	if (a->clock)
		a->now = time(NULL);

	if (raw && *raw == '{') {
		/* route.agent and route.opening from the index of its members */
		static const char *const keys[] = { "agent", "opening", "search_query", NULL };
		const char *v[4];
		size_t l[4];
		jv agent = jv_invalid();
		int other;

		cc_record_members(rec, "route", raw, rlen, keys, v, l);
		if (v[0])
			agent = cc_json_to_jv(v[0], l[0]);
		other = jv_get_kind(agent) == JV_KIND_STRING &&
		    !cc_domain_acts(a->domain, "cc-event", jv_string_value(agent));
		day_only = !other && jv_get_kind(agent) == JV_KIND_STRING &&
		    cc_domain_agent(a->domain, jv_string_value(agent))->answer != CC_ANSWER_EVENTS;
		jv_free(agent);
		/* the opening only when the route asks how it is open */
		if (other || (day_only && (!v[1] || *v[1] != '"' ||
		    !cc_event_has_opening(a->sources))))
			return CC_RECORD_PASS;
		arrive = v[1] && l[1] == 8 && memcmp(v[1], "\"arrive\"", 8) == 0;
		if (day_only && v[2] && *v[2] == '"')
			cont = cc_json_to_jv(v[2], l[2]);
	}
	if (!(q = cc_record_query(rec, &len))) {
		jv_free(cont);
		return cc_record_fail(rec, "no_query", "the record has no string \"query\"");
	}
	extract(a, q, len, &r);
	/* "and the other place?" after "open tomorrow?": the day of the question it continues */
	if (day_only && r.implicit && jv_get_kind(cont) == JV_KIND_STRING)
		extract(a, jv_string_value(cont),
		    (size_t)jv_string_length_bytes(jv_copy(cont)), &r);
	jv_free(cont);
	if (day_only && arrive && r.implicit) {
		r.implicit = 0;
		r.open = 0;
		r.kind = "today";
		r.first = r.last = cc_date_of(a->now);
	}
	if (day_only) {
		struct cc_buf b = {0};
		struct cc_jw w;

		cc_jw_init(&w, &b);
		if (cc_event_write_opening(a->sources, &r, &w) < 0) {
			cc_buf_release(&b);
			return CC_RECORD_PASS;
		}
		cc_jw_object(out);
		cc_jw_key(out, "kind");
		cc_jw_cstr(out, r.kind);
		cc_jw_key(out, "expression");
		cc_jw_cstr(out, r.expression[0] ? r.expression : NULL);
		cc_jw_key(out, "opening");
		cc_jw_raw(out, b.data, b.len);
		cc_jw_end(out);
		cc_buf_release(&b);
		return CC_RECORD_SET;
	}
	cc_event_named(a->sources, q, len, a->now, &r);
	a->flags |= cc_event_write(a->sources, &r, out);
	return CC_RECORD_SET;
}

int
cc_event_open(struct cc_stage *stage, const struct cc_event_stage_options *o,
    char *err, size_t errlen)
{
	struct app *a = cc_xmalloc(sizeof *a);

	memset(a, 0, sizeof *a);
	stage->name = "cc-event";
	stage->key = "events";
	stage->process = answer;
	stage->ctx = a;
	cc_config_load(&a->cfg);
	a->domain = cc_domain_for_stage(&a->cfg, stage);
	if (cc_tz_use(a->cfg.tz) < 0) {
		snprintf(err, errlen, "unknown time zone '%s' in CC_TZ", a->cfg.tz);
		goto fail;
	}
	a->now = a->cfg.now;
	a->clock = !o->now && !a->cfg.now_frozen;
	if (o->now && cc_time_parse_iso8601(o->now, &a->now) < 0) {
		snprintf(err, errlen, "invalid --now '%s': expected ISO 8601 such as "
		    "2025-01-15T10:00:00+09:00", o->now);
		goto fail;
	}
	if (stage->process)
		a->sources = cc_event_sources_new(&a->cfg, &o->eo);
	return 0;
fail:
	cc_domain_free(a->domain);
	cc_config_release(&a->cfg);
	free(a);
	return CC_EXIT_USAGE;
}

int
cc_event_close(struct cc_stage *stage, int status)
{
	struct app *a = stage->ctx;

	/* bad input and internal errors outrank a failed upstream source */
	if (status == CC_EXIT_OK && (a->flags & 2))
		status = CC_EXIT_DATA;
	if (status == CC_EXIT_OK && (a->flags & 1))
		status = CC_EXIT_UPSTREAM;
	if (stage->leave)
		return status;
	cc_memo_release(&a->memo);
	cc_buf_release(&a->key);
	cc_event_sources_free(a->sources);
	cc_domain_free(a->domain);
	cc_config_release(&a->cfg);
	free(a);
	return status;
}
