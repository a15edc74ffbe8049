/* cc-event: add events (the asked time range and the events in it). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_time.h"
#include "cc_event.h"
#include "cc_domain.h"

static const char usage_text[] =
	"usage: cc-event [--ics FILE|URL]... [--connpass] [--now TIME] [options]\n"
	"                < records.ndjson\n"
	"Adds events {time_range, kind, start, end, timezone, items, sources,\n"
	"errors} to records routed to an agent the domain's manifest lists\n"
	"cc-event for, and to records with no route.\n"
	"  -D, --domain NAME|DIR  the domain (default $CC_DOMAIN)\n"
	"  --ics FILE|URL     a calendar (repeatable; default: the domain's)\n"
	"  --connpass         also ask connpass (key in CC_CONNPASS_API_KEY)\n"
	"  --now TIME         the current time, ISO 8601 (default CC_NOW, clock)\n"
	"  --timeout SECONDS  network time limit per request (default 15)\n"
	"  --upcoming N       events listed for \"the next event\" (default 3)\n"
	"  --max-items N      events listed per record (default 50)\n"
	"  -u, --unbuffered   flush after every record\n"
	"  -h, --help         show this help\n"
	"  -V, --version      show the version\n";

struct app {
	const struct cc_domain *domain;
	struct cc_event_sources *sources;
	time_t now;
	int clock;		/* now is the clock's: read it for each record */
	int flags;		/* 1: a network source failed; 2: a calendar limit */
};

static enum cc_outcome
answer(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct app *a = ctx;
	struct cc_time_range r;
	size_t len;
	const char *q;

	int day_only = 0;	/* an agent answered otherwise: the day's opening only */
	jv cont = jv_invalid();	/* route.search_query: the question continued */
	size_t rlen;
	const char *raw = cc_record_raw(rec, "route", &rlen);

	if (a->clock)
		a->now = time(NULL);

	if (raw && *raw == '{') {
		/* route.agent and route.opening in one pass over the route */
		static const char *const keys[] = { "agent", "opening", "search_query", NULL };
		const char *v[4];
		size_t l[4];
		jv agent = jv_invalid();
		int other;

		cc_json_members(raw, rlen, keys, v, l);
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
		if (day_only && v[2] && *v[2] == '"')
			cont = cc_json_to_jv(v[2], l[2]);
	}
	if (!(q = cc_record_query(rec, &len))) {
		jv_free(cont);
		return cc_record_fail(rec, "no_query", "the record has no string \"query\"");
	}
	cc_time_extract(q, len, a->now, &r);
	/* "and the other place?" after "open tomorrow?": the day of the question it continues */
	if (day_only && r.implicit && jv_get_kind(cont) == JV_KIND_STRING)
		cc_time_extract(jv_string_value(cont),
		    (size_t)jv_string_length_bytes(jv_copy(cont)), a->now, &r);
	jv_free(cont);
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

static long
number(const char *opt, const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 1 || v > max) {
		cc_warn("invalid %s '%s': expected 1 to %ld", opt, s, max);
		fputs(usage_text, stderr);
		exit(CC_EXIT_USAGE);
	}
	return v;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"ics", required_argument, NULL, 'i'},
		{"connpass", no_argument, NULL, 'c'},
		{"now", required_argument, NULL, 'n'},
		{"timeout", required_argument, NULL, 't'},
		{"upcoming", required_argument, NULL, 'U'},
		{"max-items", required_argument, NULL, 'm'},
		CC_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cc_event_options eo = {0};
	struct cc_stage stage = { .name = "cc-event", .key = "events", .process = answer };
	struct app a = {0};
	struct cc_config cfg;
	struct cc_domain *dom;
	const char **ics = NULL;
	const char *now = NULL;
	int c, status;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" CC_COMMON_SHORTOPTS, opts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &stage.unbuffered))
			continue;
		switch (c) {
		case 'i':
			ics = cc_xrealloc(ics, (eo.nics + 1) * sizeof *ics);
			ics[eo.nics++] = optarg;
			break;
		case 'c':
			eo.connpass = 1;
			break;
		case 'n':
			now = optarg;
			break;
		case 't':
			eo.timeout_ms = number("--timeout", optarg, 600) * 1000;
			break;
		case 'U':
			eo.upcoming = (size_t)number("--upcoming", optarg, 1000);
			break;
		case 'm':
			eo.max_items = (size_t)number("--max-items", optarg, 100000);
			break;
		default:
			cc_die(CC_EXIT_INTERNAL, "unhandled option -%c", c);
		}
	}
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	cc_config_load(&cfg);
	a.domain = dom = cc_domain_for_stage(&cfg, &stage);
	if (cc_tz_use(cfg.tz) < 0)
		cc_die(CC_EXIT_USAGE, "unknown time zone '%s' in CC_TZ", cfg.tz);
	a.now = cfg.now;
	a.clock = !now && !cfg.now_frozen;
	if (now && cc_time_parse_iso8601(now, &a.now) < 0)
		cc_die(CC_EXIT_USAGE, "invalid --now '%s': expected ISO 8601 such as "
		    "2025-01-15T10:00:00+09:00", now);
	eo.ics = ics;
	if (stage.process)
		a.sources = cc_event_sources_new(&cfg, &eo);
	stage.ctx = &a;
	status = cc_record_run(&stage, stdin, stdout);
	cc_event_sources_free(a.sources);
	cc_domain_free(dom);
	cc_config_release(&cfg);
	free(ics);
	/* bad input and internal errors outrank a failed upstream source */
	if (status == CC_EXIT_OK && (a.flags & 2))
		status = CC_EXIT_DATA;
	if (status == CC_EXIT_OK && (a.flags & 1))
		status = CC_EXIT_UPSTREAM;
	return status;
}
