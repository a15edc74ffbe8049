/*
 * Event sources and the `events` value of a record (cc-event(1)).
 *
 * Sources are iCalendar files (parsed once at start), iCalendar URLs
 * (fetched on first use through cc_http's cache, refreshed when the copy
 * is older than its max age) and the connpass API (one request per asked
 * range, cached).  A record's answer depends only on its range, so the
 * finished items/sources/errors text is kept per range: a stream of
 * questions about "this week" expands the calendars once.  A failing
 * source is remembered for a minute, so a dead server costs one timeout,
 * not one per record.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_time.h"
#include "cc_http.h"
#include "cc_ics.h"
#include "cc_event.h"

enum src_type { SRC_FILE, SRC_URL, SRC_CONNPASS };

struct source {
	enum src_type type;
	char *where;		/* path or URL */
	char *name;		/* shown in items and errors */
	struct cc_ics *cal;
	time_t loaded;		/* URL: when the copy was (re)checked */
	time_t failed_at;	/* URL: the last failure, retried later */
	const char *err_code;
	char err[256];
	int stale;
	int from_cache;		/* URL: the copy came from the disk cache or a 304 */
	unsigned line;		/* its line in events.conf, 0 if not from there */
};

/* event_name WORD, WORD... : TITLE: the words (folded, spaces removed)
 * that name the events whose titles hold TITLE. */
struct event_name {
	char **words;
	size_t nwords;
	char *title;
};

#define RANGE_CACHE 16
#define RETRY_AFTER 60		/* seconds before a failed source is asked again */

struct range_entry {
	time_t start, end;
	int open;
	char title[128];
	struct cc_buf items, sources, errors;	/* JSON arrays */
	int flags;
	time_t made, ttl;	/* real clock; ttl 0: forever */
	unsigned long used;
};

struct cc_event_sources {
	char *tz;
	struct source *src;
	size_t n;
	char **keywords;
	size_t nkw;
	char *prefecture;
	const char *api_key;	/* from the environment; never printed */
	char *connpass_url;
	long timeout_ms, url_max_age, connpass_max_age;
	size_t upcoming, max_items;
	struct cc_ics_limits lim;
	struct range_entry cache[RANGE_CACHE];
	unsigned long tick;
	struct event_name *names;	/* events.conf event_name lines */
	size_t nnames;
	char *opening_path;	/* the opening calendar (events.conf opening) */
	unsigned opening_line;
	struct cc_ics *opening;
	int parsed;		/* the local calendars are parsed (load_local) */
};

/* ---- configuration ---- */

static int
is_url(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0 ||
	    strncmp(s, "webcal://", 9) == 0;
}

static char *
host_of(const char *url)
{
	char *r = cc_http_redact(url), *p = strstr(r, "://"), *e;

	if (!p)
		return r;
	memmove(r, p + 3, strlen(p + 3) + 1);
	if ((e = strchr(r, '/')))
		*e = '\0';
	return r;
}

static void
add_source(struct cc_event_sources *s, enum src_type type, const char *where,
    const char *name)
{
	struct source *x;

	s->src = cc_xrealloc(s->src, (s->n + 1) * sizeof *s->src);
	x = &s->src[s->n++];
	*x = (struct source){ .type = type };
	if (type == SRC_URL && strncmp(where, "webcal://", 9) == 0) {
		size_t n = strlen(where) + 2;

		x->where = cc_xmalloc(n);
		snprintf(x->where, n, "https://%s", where + 9);
	} else {
		x->where = cc_xstrdup(where);
	}
	if (name) {
		x->name = cc_xstrdup(name);
	} else if (type == SRC_URL) {
		x->name = host_of(x->where);
	} else {
		const char *b = strrchr(where, '/');

		x->name = cc_xstrdup(b ? b + 1 : where);
	}
}

static void
add_calendar(struct cc_event_sources *s, const struct cc_config *cfg,
    const char *value, int from_conf)
{
	if (is_url(value)) {
		add_source(s, SRC_URL, value, NULL);
	} else if (from_conf && value[0] != '/') {
		char *p = cc_config_domain_path(cfg, value);

		add_source(s, SRC_FILE, p, NULL);
		free(p);
	} else {
		add_source(s, SRC_FILE, value, NULL);
	}
}

/* Fold and remove spaces: "AI 勉強会" and "ai勉強会" are one name. */
static char *
fold_name(const char *s, size_t n)
{
	char *f = cc_text_fold(s, n, NULL, 0), *o = f;

	for (char *p = f; *p; p++)
		if (*p != ' ')
			*o++ = *p;
	*o = '\0';
	return f;
}

/* "WORD, WORD... : TITLE"; -1 when it is not that. */
static int
add_event_name(struct cc_event_sources *s, const char *val)
{
	const char *colon = strrchr(val, ':'), *p = val;
	struct event_name e = {0};
	char *copy, *title;

	if (!colon || colon == val)
		return -1;
	copy = cc_xstrdup(colon + 1);
	title = cc_trim(copy);
	if (!*title) {
		free(copy);
		return -1;
	}
	e.title = cc_xstrdup(title);
	free(copy);
	while (p < colon) {
		size_t n = strcspn(p, ",");
		char *w;

		if (p + n > colon)
			n = (size_t)(colon - p);
		w = fold_name(p, n);
		if (*w) {
			e.words = cc_xrealloc(e.words, (e.nwords + 1) * sizeof *e.words);
			e.words[e.nwords++] = w;
		} else {
			free(w);
		}
		p += n;
		if (*p == ',')
			p++;
	}
	if (!e.nwords) {
		free(e.title);
		return -1;
	}
	s->names = cc_xrealloc(s->names, (s->nnames + 1) * sizeof *s->names);
	s->names[s->nnames++] = e;
	return 0;
}

/*
 * events.conf: "key = value" lines; # comments; see cc-event(1).  A
 * problem ends the program, or with `check` set is reported there and
 * the line skipped.
 */
static void
read_conf(struct cc_event_sources *s, const struct cc_config *cfg, int use_calendars,
    struct cc_problems *check)
{
	char *path = cc_config_domain_path(cfg, "events.conf"), *line = NULL;
	size_t cap = 0;
	unsigned long n = 0;
	FILE *f = fopen(path, "r");
	struct cc_problems die = {0};

	if (!f) {
		if (errno != ENOENT) {
			if (!check)
				cc_die(CC_EXIT_USAGE, "cannot open '%s': %s", path, strerror(errno));
			cc_problem(check, "cannot open '%s': %s", path, strerror(errno));
		}
		free(path);
		return;
	}
	while (getline(&line, &cap, f) >= 0) {
		char *eq, *key, *val, *t = cc_trim(line);

		n++;
		if (!*t || *t == '#')
			continue;
		if (!(eq = strchr(t, '='))) {
			cc_problem(check ? check : &die, "%s:%lu: expected 'key = value'", path, n);
			goto bad;
		}
		*eq = '\0';
		key = cc_trim(t);
		val = cc_trim(eq + 1);
		if (strcmp(key, "calendar") == 0) {
			if (use_calendars) {
				size_t before = s->n;

				add_calendar(s, cfg, val, 1);
				if (s->n > before)
					s->src[before].line = (unsigned)n;
			}
		} else if (strcmp(key, "event_name") == 0) {
			if (add_event_name(s, val) < 0) {
				cc_problem(check ? check : &die, "%s:%lu: expected 'event_name = "
				    "WORD, WORD... : TITLE'", path, n);
				goto bad;
			}
		} else if (strcmp(key, "opening") == 0) {
			if (is_url(val)) {
				cc_problem(check ? check : &die, "%s:%lu: the opening calendar "
				    "must be a local file", path, n);
				goto bad;
			}
			free(s->opening_path);
			s->opening_path = val[0] == '/' ? cc_xstrdup(val) :
			    cc_config_domain_path(cfg, val);
			s->opening_line = (unsigned)n;
		} else if (strcmp(key, "connpass_keyword") == 0) {
			s->keywords = cc_xrealloc(s->keywords, (s->nkw + 1) * sizeof *s->keywords);
			s->keywords[s->nkw++] = cc_xstrdup(val);
		} else if (strcmp(key, "connpass_prefecture") == 0) {
			free(s->prefecture);
			s->prefecture = cc_xstrdup(val);
		} else if (strcmp(key, "url_max_age") == 0) {
			s->url_max_age = strtol(val, NULL, 10);
		} else if (strcmp(key, "connpass_max_age") == 0) {
			s->connpass_max_age = strtol(val, NULL, 10);
		} else {
			cc_problem(check ? check : &die, "%s:%lu: unknown key '%s'", path, n, key);
			goto bad;
		}
		continue;
bad:
		if (!check)
			exit(CC_EXIT_USAGE);	/* cc_problem said why */
	}
	free(line);
	fclose(f);
	free(path);
}

int
cc_event_check(const struct cc_config *cfg, struct cc_problems *p)
{
	struct cc_event_sources *s = calloc(1, sizeof *s);
	unsigned before = p->n;
	char *conf = cc_config_domain_path(cfg, "events.conf");

	if (!s)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	s->tz = cc_xstrdup(cfg->tz);
	read_conf(s, cfg, 1, p);
	for (size_t i = 0; i < s->n; i++) {
		struct source *x = &s->src[i];
		char err[256];

		if (x->type != SRC_FILE)
			continue;	/* a URL is not fetched by a check */
		if (!(x->cal = cc_ics_load(x->where, x->name, &s->lim, err, sizeof err)))
			cc_problem(p, "%s:%u: calendar '%s': %s", conf, x->line, x->where, err);
	}
	if (s->opening_path) {
		char err[256];

		if (!(s->opening = cc_ics_load(s->opening_path, "opening", &s->lim, err, sizeof err)))
			cc_problem(p, "%s:%u: opening calendar '%s': %s", conf,
			    s->opening_line, s->opening_path, err);
	}
	free(conf);
	cc_event_sources_free(s);
	return p->n == before ? 0 : -1;
}

/* A regular file that can be opened for reading; errno says why not. */
static int
readable(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	close(fd);
	if (!ok)
		errno = EINVAL;
	return ok;
}

struct cc_event_sources *
cc_event_sources_new(const struct cc_config *cfg, const struct cc_event_options *opt)
{
	struct cc_event_sources *s = calloc(1, sizeof *s);
	const char *cu = getenv("CC_CONNPASS_URL");

	if (!s)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	s->tz = cc_xstrdup(cfg->tz);
	s->timeout_ms = opt->timeout_ms ? opt->timeout_ms : 15000;
	s->upcoming = opt->upcoming ? opt->upcoming : 3;
	s->max_items = opt->max_items ? opt->max_items : 50;
	s->url_max_age = 300;
	s->connpass_max_age = 600;
	read_conf(s, cfg, opt->nics == 0, NULL);
	for (size_t i = 0; i < opt->nics; i++)
		add_calendar(s, cfg, opt->ics[i], 0);
	if (opt->connpass) {
		s->api_key = getenv("CC_CONNPASS_API_KEY");
		if (!s->api_key || !*s->api_key)
			cc_die(CC_EXIT_USAGE, "--connpass needs the API key in "
			    "CC_CONNPASS_API_KEY");
		s->connpass_url = cc_xstrdup(cu && *cu ? cu :
		    "https://connpass.com/api/v2/events/");
		add_source(s, SRC_CONNPASS, s->connpass_url, "connpass");
	}
	/*
	 * A local calendar that is not there is a usage error now; it is
	 * parsed when a question first needs it (load_local): most questions
	 * do not, and parsing the demo calendars was half of a cold start.
	 */
	for (size_t i = 0; i < s->n; i++) {
		struct source *x = &s->src[i];

		if (x->type == SRC_FILE && !readable(x->where))
			cc_die(CC_EXIT_USAGE, "cannot read calendar '%s': %s", x->where,
			    errno == EINVAL ? "not a regular file" : strerror(errno));
	}
	if (s->opening_path && !readable(s->opening_path))
		cc_die(CC_EXIT_USAGE, "cannot read the opening calendar '%s': %s",
		    s->opening_path, errno == EINVAL ? "not a regular file" : strerror(errno));
	return s;
}

/*
 * Parse the local calendars, once, at their first use.  Every function
 * that reads a calendar calls it first; the sources are const to their
 * callers, and parsing does not change what they answer.
 */
static void
load_local(const struct cc_event_sources *cs)
{
	struct cc_event_sources *s = (struct cc_event_sources *)cs;

	if (s->parsed)
		return;
	s->parsed = 1;
	for (size_t i = 0; i < s->n; i++) {
		struct source *x = &s->src[i];
		char err[256];

		if (x->type != SRC_FILE)
			continue;
		x->cal = cc_ics_load(x->where, x->name, &s->lim, err, sizeof err);
		if (!x->cal)
			cc_die(CC_EXIT_USAGE, "cannot read calendar '%s': %s", x->where, err);
	}
	if (s->opening_path) {
		char err[256];

		if (!(s->opening = cc_ics_load(s->opening_path, "opening", &s->lim, err, sizeof err)))
			cc_die(CC_EXIT_USAGE, "cannot read the opening calendar '%s': %s",
			    s->opening_path, err);
	}
}

void
cc_event_sources_free(struct cc_event_sources *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		cc_ics_free(s->src[i].cal);
		free(s->src[i].where);
		free(s->src[i].name);
	}
	free(s->src);
	cc_ics_free(s->opening);
	free(s->opening_path);
	for (size_t i = 0; i < s->nnames; i++) {
		for (size_t k = 0; k < s->names[i].nwords; k++)
			free(s->names[i].words[k]);
		free(s->names[i].words);
		free(s->names[i].title);
	}
	free(s->names);
	for (size_t i = 0; i < s->nkw; i++)
		free(s->keywords[i]);
	free(s->keywords);
	free(s->prefecture);
	free(s->connpass_url);
	free(s->tz);
	for (int i = 0; i < RANGE_CACHE; i++) {
		cc_buf_release(&s->cache[i].items);
		cc_buf_release(&s->cache[i].sources);
		cc_buf_release(&s->cache[i].errors);
	}
	free(s);
	cc_ics_cleanup();
	cc_http_cleanup();
}

/* ---- errors and sources, as JSON ---- */

static void
add_error(struct cc_jw *w, const char *source, const char *code, const char *msg,
    int stale)
{
	cc_jw_object(w);
	cc_jw_key(w, "source");
	cc_jw_cstr(w, source);
	cc_jw_key(w, "code");
	cc_jw_cstr(w, code);
	cc_jw_key(w, "message");
	cc_jw_cstr(w, msg);
	if (stale) {
		cc_jw_key(w, "stale");
		cc_jw_bool(w, 1);
	}
	cc_jw_end(w);
}

static void
add_answered(struct cc_jw *w, const char *name, const char *type, size_t n,
    int cached)
{
	cc_jw_object(w);
	cc_jw_key(w, "name");
	cc_jw_cstr(w, name);
	cc_jw_key(w, "type");
	cc_jw_cstr(w, type);
	cc_jw_key(w, "items");
	cc_jw_num(w, (double)n);
	if (cached) {
		cc_jw_key(w, "cached");
		cc_jw_bool(w, 1);
	}
	cc_jw_end(w);
}

/* ---- iCalendar URLs ---- */

static void
load_url(struct cc_event_sources *s, struct source *x)
{
	time_t now = time(NULL);
	struct cc_http_request req = {
		.url = x->where, .timeout_ms = s->timeout_ms,
		.connect_timeout_ms = s->timeout_ms < 5000 ? s->timeout_ms : 5000,
		.max_bytes = 16u << 20, .follow_redirects = 1,
		.cache_key = x->where, .max_age = s->url_max_age,
	};
	struct cc_http_response res;
	char err[200];
	struct cc_ics *cal;

	if (x->cal && now - x->loaded < s->url_max_age && now >= x->loaded)
		return;
	if (x->err_code && now - x->failed_at < RETRY_AFTER && now >= x->failed_at)
		return;
	x->err_code = NULL;
	x->stale = 0;
	if (cc_http_fetch(&req, &res) < 0) {
		x->err_code = res.error_code;
		snprintf(x->err, sizeof x->err, "%s", res.error);
		cc_warn("calendar %s", res.error);
		x->failed_at = now;
		x->stale = res.stale;
		if (!res.stale) {
			cc_http_response_release(&res);
			return;
		}
	}
	cal = cc_ics_parse(res.body.data, res.body.len, x->name, &s->lim, err, sizeof err);
	x->from_cache = res.from_cache;
	cc_http_response_release(&res);
	if (!cal) {
		char *h = cc_http_redact(x->where);

		x->err_code = "bad_calendar";
		snprintf(x->err, sizeof x->err, "%s: %s", h, err);
		cc_warn("calendar %s", x->err);
		x->failed_at = now;
		free(h);
		return;	/* keep the last good copy, if any */
	}
	cc_ics_free(x->cal);
	x->cal = cal;
	x->loaded = now;
}

/* ---- connpass ---- */

static const char *
pool_add(struct cc_event_strings *p, char *s)
{
	p->v = cc_xrealloc(p->v, (p->n + 1) * sizeof *p->v);
	return p->v[p->n++] = s;
}

void
cc_event_strings_release(struct cc_event_strings *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

static const char *
str_member(jv o, const char *k)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	const char *s = NULL;

	if (jv_get_kind(v) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(v)) > 0)
		s = jv_string_value(v);
	jv_free(v);	/* o still holds the string */
	return s;
}

/* connpass descriptions are HTML: keep the text, at most max bytes. */
static char *
strip_html(const char *s, size_t max)
{
	struct cc_buf b = {0};
	int in_tag = 0, space = 0;

	for (; *s && b.len < max; s++) {
		if (*s == '<') {
			in_tag = 1;
			continue;
		}
		if (in_tag) {
			in_tag = *s != '>';
			space = 1;
			continue;
		}
		if (*s == '\n' || *s == '\r' || *s == '\t' || *s == ' ') {
			space = 1;
			continue;
		}
		if (space && b.len)
			cc_buf_add(&b, " ", 1);
		space = 0;
		cc_buf_add(&b, s, 1);
	}
	if (*s) {	/* cut at the limit: not inside a character */
		while (b.len > 0 && ((unsigned char)b.data[b.len - 1] & 0xC0) == 0x80)
			b.len--;
		if (b.len > 0 && ((unsigned char)b.data[b.len - 1] & 0xC0) == 0xC0)
			b.len--;
	}
	if (!b.data)
		return NULL;
	b.data[b.len] = '\0';
	return b.data;
}

static void
ymd(struct cc_buf *b, struct cc_date d, int with_day)
{
	char t[16];

	snprintf(t, sizeof t, with_day ? "%04d%02d%02d" : "%04d%02d", d.year,
	    d.month, d.day);
	cc_buf_add(b, t, strlen(t));
}

static void
connpass_url(const struct cc_event_sources *s, const struct cc_time_range *r,
    struct cc_buf *u)
{
	struct cc_date f = r->first, l = r->last;

	cc_buf_add(u, s->connpass_url, strlen(s->connpass_url));
	cc_buf_add(u, strchr(s->connpass_url, '?') ? "&" : "?", 1);
	cc_buf_add(u, "count=100&order=2", 17);
	for (size_t i = 0; i < s->nkw; i++) {
		cc_buf_add(u, "&keyword_or=", 12);
		cc_http_urlencode(u, s->keywords[i]);
	}
	if (s->prefecture) {
		cc_buf_add(u, "&prefecture=", 12);
		cc_http_urlencode(u, s->prefecture);
	}
	if (r->open)
		l = cc_date_add(f, 92);
	/* whole months by ym, other ranges up to a month by day (ymd) */
	if (!r->open && cc_date_diff(f, l) < 31 &&
	    !(f.day == 1 && l.day == cc_days_in_month(l.year, l.month))) {
		cc_buf_add(u, "&ymd=", 5);
		for (struct cc_date d = f; cc_date_cmp(d, l) <= 0; d = cc_date_add(d, 1)) {
			if (cc_date_cmp(d, f) > 0)
				cc_buf_add(u, "%2C", 3);
			ymd(u, d, 1);
		}
	} else {
		struct cc_date m = { f.year, f.month, 1 };
		int k = 0;

		cc_buf_add(u, "&ym=", 4);
		for (; k < 13 && (m.year < l.year || (m.year == l.year && m.month <= l.month)); k++) {
			if (k)
				cc_buf_add(u, "%2C", 3);
			ymd(u, m, 0);
			m = cc_date_add((struct cc_date){ m.year, m.month,
			    cc_days_in_month(m.year, m.month) }, 1);
		}
	}
}

/* Fetch and add connpass events for r; 0, or -1 with err set. */
static int
connpass_events(struct cc_event_sources *s, struct source *x,
    const struct cc_time_range *r, time_t range_end, struct cc_event_list *out,
    struct cc_event_strings *pool, int *cached, int *stale, const char **code,
    char *err, size_t errlen)
{
	struct cc_buf url = {0}, key = {0};
	const char *headers[3] = { NULL, "Accept: application/json", NULL };
	struct cc_http_response res;
	int rc = 0;

	connpass_url(s, r, &url);
	cc_buf_add(&key, "X-API-Key: ", 11);
	cc_buf_add(&key, s->api_key, strlen(s->api_key));
	headers[0] = key.data;
	{
		struct cc_http_request req = {
			.url = url.data, .headers = headers, .secret_headers = 1,
			.timeout_ms = s->timeout_ms,
			.connect_timeout_ms = s->timeout_ms < 5000 ? s->timeout_ms : 5000,
			.max_bytes = 4u << 20, .cache_key = url.data,
			.max_age = s->connpass_max_age,
			.rate_key = "connpass", .min_interval_ms = 1000,
		};

		if (cc_http_fetch(&req, &res) < 0) {
			*code = res.error_code;
			snprintf(err, errlen, "%s", res.error);
			rc = -1;
		}
	}
	/* the key leaves memory with the request */
	memset(key.data, 0, key.len);
	cc_buf_release(&key);
	cc_buf_release(&url);
	*cached = res.from_cache;
	*stale = res.stale;
	if (rc < 0 && !res.stale) {
		cc_http_response_release(&res);
		return -1;
	}
	if (cc_event_connpass_parse(res.body.data, res.body.len, x->name, r,
	    range_end, out, pool) < 0) {
		cc_http_response_release(&res);
		*code = "bad_response";
		snprintf(err, errlen, "%s: the answer is not connpass event JSON", x->name);
		return -1;
	}
	cc_http_response_release(&res);
	return rc;
}

int
cc_event_connpass_parse(const char *body, size_t len, const char *source,
    const struct cc_time_range *r, time_t range_end, struct cc_event_list *out,
    struct cc_event_strings *pool)
{
	jv doc, evs;

	doc = cc_json_parse(body, len);
	if (jv_get_kind(doc) != JV_KIND_OBJECT ||
	    jv_get_kind(evs = jv_object_get(jv_copy(doc), jv_string("events"))) !=
	    JV_KIND_ARRAY) {
		if (jv_get_kind(doc) == JV_KIND_OBJECT)
			jv_free(evs);
		jv_free(doc);
		return -1;
	}
	jv_array_foreach(evs, i, e) {
		struct cc_event ev = { .source = source };
		const char *t, *st, *en, *place, *addr, *c;
		time_t a, b;

		if (jv_get_kind(e) != JV_KIND_OBJECT ||
		    !(t = str_member(e, "title")) || !(st = str_member(e, "started_at")) ||
		    cc_time_parse_iso8601(st, &a) < 0) {
			jv_free(e);
			continue;
		}
		en = str_member(e, "ended_at");
		if (!en || cc_time_parse_iso8601(en, &b) < 0 || b < a)
			b = a;
		else
			ev.has_end = 1;
		if (r->open ? a < r->start : (b <= r->start && !(a == b && a == r->start))) {
			jv_free(e);
			continue;
		}
		if (a >= range_end) {
			jv_free(e);
			continue;
		}
		ev.start = a;
		ev.end = b;
		ev.title = pool_add(pool, strip_html(t, 500));
		if ((c = str_member(e, "catch")))
			ev.description = pool_add(pool, strip_html(c, 500));
		else if ((c = str_member(e, "description")))
			ev.description = pool_add(pool, strip_html(c, 500));
		place = str_member(e, "place");
		addr = str_member(e, "address");
		if (place || addr) {
			size_t n = (place ? strlen(place) : 0) + (addr ? strlen(addr) : 0) + 3;
			char *loc = cc_xmalloc(n);

			snprintf(loc, n, "%s%s%s", place ? place : "",
			    place && addr ? ", " : "", addr ? addr : "");
			ev.location = pool_add(pool, strip_html(loc, 500));
			free(loc);
		}
		if ((c = str_member(e, "url")))
			ev.url = pool_add(pool, strip_html(c, 1000));
		if (ev.title)
			cc_event_list_add(out, &ev);
		jv_free(e);
	}
	jv_free(evs);
	jv_free(doc);
	return 0;
}

/* ---- the value ---- */

/* Write JSON text that is already a value (the writer places commas). */
static void
jw_raw(struct cc_jw *w, const char *text, size_t n)
{
	cc_jw_null(w);
	w->b->len -= 4;
	cc_buf_add(w->b, text, n);
}

static void
write_item(struct cc_jw *w, const struct cc_event *e)
{
	char t[CC_TIME_ISO_MAX];

	cc_jw_object(w);
	cc_jw_key(w, "title");
	cc_jw_cstr(w, e->title);
	cc_jw_key(w, "start");
	cc_time_format(e->start, t);
	cc_jw_cstr(w, t);
	cc_jw_key(w, "end");
	if (e->has_end) {
		cc_time_format(e->end, t);
		cc_jw_cstr(w, t);
	} else {
		cc_jw_null(w);
	}
	cc_jw_key(w, "all_day");
	cc_jw_bool(w, e->all_day);
	cc_jw_key(w, "description");
	cc_jw_cstr(w, e->description);
	cc_jw_key(w, "location");
	cc_jw_cstr(w, e->location);
	cc_jw_key(w, "url");
	cc_jw_cstr(w, e->url);
	cc_jw_key(w, "source");
	cc_jw_cstr(w, e->source);
	cc_jw_end(w);
}

/* Remove spaces in place: "AI 勉強会" is asked for as "AI勉強会". */
static void
squeeze(char *s)
{
	char *o = s;

	for (; *s; s++)
		if (*s != ' ')
			*o++ = *s;
	*o = '\0';
}

/* The title asked for (次のもくもく会) appears in the event's title. */
static int
title_matches(const struct cc_event *e, const char *want)
{
	char *t, *f;
	int hit;

	if (!e->title)
		return 0;
	t = cc_text_fold(e->title, strlen(e->title), NULL, 0);
	f = cc_text_fold(want, strlen(want), NULL, 0);
	squeeze(t);
	squeeze(f);
	hit = *f && strstr(t, f) != NULL;
	free(t);
	free(f);
	return hit;
}

/* Build the items, sources and errors arrays for range r. */
static int
build(struct cc_event_sources *s, const struct cc_time_range *r,
    struct range_entry *out, int *network)
{
	struct cc_event_list list = {0};
	struct cc_jw ws, we, wi;
	struct cc_event_strings pool = {0};
	time_t range_end = r->open ? r->start + 366L * 86400 : r->end;
	size_t limit = r->open ? s->upcoming : s->max_items, shown = 0;
	int flags = 0;
	char err[256];

	*network = 0;
	out->items.len = out->sources.len = out->errors.len = 0;
	cc_jw_init(&ws, &out->sources);
	cc_jw_init(&we, &out->errors);
	cc_jw_array(&ws);
	cc_jw_array(&we);
	for (size_t i = 0; i < s->n; i++) {
		struct source *x = &s->src[i];
		size_t before = list.n;
		int cached = 0, stale = 0;
		const char *code = NULL;

		if (x->type == SRC_URL) {
			*network = 1;
			load_url(s, x);
			if (x->err_code) {
				add_error(&we, x->name, x->err_code, x->err, x->stale && x->cal);
				flags |= 1;
			}
		}
		if (x->type == SRC_CONNPASS) {
			time_t now = time(NULL);

			*network = 1;
			/*
			 * connpass is asked once per range: without this, a dead
			 * server cost a time limit (and a second of rate spacing)
			 * for every new range in the stream, where a calendar URL
			 * costs one.  Its failure is remembered the same minute.
			 */
			if (x->err_code && now - x->failed_at < RETRY_AFTER &&
			    now >= x->failed_at) {
				add_error(&we, x->name, x->err_code, x->err, 0);
				flags |= 1;
				continue;
			}
			x->err_code = NULL;
			if (connpass_events(s, x, r, range_end, &list, &pool, &cached,
			    &stale, &code, err, sizeof err) < 0) {
				cc_warn("connpass: %s", err);
				add_error(&we, x->name, code, err, stale);
				flags |= 1;
				x->err_code = code;
				snprintf(x->err, sizeof x->err, "%s", err);
				x->failed_at = now;
				if (!stale)
					continue;
			}
		} else if (x->cal) {
			if (cc_ics_expand(x->cal, r->start, r->open ? 0 : r->end,
			    s->upcoming, &list, err, sizeof err) < 0) {
				add_error(&we, x->name, "limit", err, 0);
				flags |= 2;
			}
		} else {
			continue;
		}
		for (size_t k = before; k < list.n; k++)
			list.v[k].order = (unsigned)i;
		add_answered(&ws, x->name, x->type == SRC_FILE ? "ics" :
		    x->type == SRC_URL ? "ics-url" : "connpass", list.n - before,
		    cached || (x->type == SRC_URL && (x->stale || x->from_cache)));
	}
	cc_jw_end(&ws);
	cc_jw_end(&we);
	cc_event_list_finish(&list);

	cc_jw_init(&wi, &out->items);
	cc_jw_array(&wi);
	for (size_t i = 0; i < list.n && shown < limit; i++) {
		if (r->title[0] && !title_matches(&list.v[i], r->title))
			continue;
		write_item(&wi, &list.v[i]);
		shown++;
	}
	cc_jw_end(&wi);
	cc_event_list_release(&list);
	cc_event_strings_release(&pool);
	return flags;
}

static struct range_entry *
lookup(struct cc_event_sources *s, const struct cc_time_range *r, int *hit)
{
	struct range_entry *lru = &s->cache[0];
	time_t now = time(NULL);

	*hit = 0;
	for (int i = 0; i < RANGE_CACHE; i++) {
		struct range_entry *e = &s->cache[i];

		if (e->used && e->start == r->start && e->end == r->end &&
		    e->open == r->open && strcmp(e->title, r->title) == 0 &&
		    (!e->ttl || (now >= e->made && now - e->made < e->ttl))) {
			*hit = 1;
			e->used = ++s->tick;
			return e;
		}
		if (e->used < lru->used)
			lru = e;
	}
	return lru;
}

int
cc_event_write(struct cc_event_sources *s, const struct cc_time_range *r,
    struct cc_jw *w)
{
	struct range_entry *e;
	char t[CC_TIME_ISO_MAX];
	int hit, network;

	load_local(s);

	cc_jw_object(w);
	cc_jw_key(w, "time_range");
	cc_jw_cstr(w, r->spec);
	cc_jw_key(w, "kind");
	cc_jw_cstr(w, r->kind);
	if (r->weekday) {
		cc_jw_key(w, "weekday");
		cc_jw_cstr(w, cc_weekday_name(r->weekday));
	}
	if (r->part_of_day) {
		cc_jw_key(w, "part_of_day");
		cc_jw_cstr(w, r->part_of_day);
	}
	if (r->days) {
		cc_jw_key(w, "days");
		cc_jw_num(w, r->days);
	}
	if (r->month && strcmp(r->kind, "month") == 0) {
		snprintf(t, sizeof t, "%04d-%02d", r->month_year, r->month);
		cc_jw_key(w, "month");
		cc_jw_cstr(w, t);
	}
	if (r->title[0]) {
		cc_jw_key(w, "title");
		cc_jw_cstr(w, r->title);
	}
	cc_jw_key(w, "start");
	cc_time_format(r->start, t);
	cc_jw_cstr(w, t);
	cc_jw_key(w, "end");
	if (r->open) {
		cc_jw_null(w);
	} else {
		cc_time_format(r->end, t);
		cc_jw_cstr(w, t);
	}
	cc_jw_key(w, "timezone");
	cc_jw_cstr(w, s->tz);
	cc_jw_key(w, "expression");
	cc_jw_cstr(w, r->expression[0] ? r->expression : NULL);

	e = lookup(s, r, &hit);
	if (!hit) {
		e->flags = build(s, r, e, &network);
		e->start = r->start;
		e->end = r->end;
		e->open = r->open;
		snprintf(e->title, sizeof e->title, "%s", r->title);
		e->made = time(NULL);
		/* network answers age; a failure is retried after a minute */
		e->ttl = !network ? 0 : e->flags & 1 ? RETRY_AFTER :
		    s->url_max_age < s->connpass_max_age ? s->url_max_age :
		    s->connpass_max_age;
		if (network && e->ttl <= 0)
			e->ttl = 1;
		e->used = ++s->tick;
	}
	cc_jw_key(w, "items");
	jw_raw(w, e->items.data, e->items.len);
	cc_jw_key(w, "sources");
	jw_raw(w, e->sources.data, e->sources.len);
	cc_jw_key(w, "errors");
	jw_raw(w, e->errors.data, e->errors.len);
	/* no events on the one day asked: whether the places were open (a
	 * closing day has none, and the answer says why) */
	if (e->items.len <= 2 && !r->open && !r->implicit &&
	    cc_date_cmp(r->first, r->last) == 0 && cc_event_has_opening(s)) {
		cc_jw_key(w, "opening");
		cc_event_write_opening(s, r, w);
	}
	cc_jw_end(w);
	return e->flags;
}

/* ---- opening: whether each place is open on the asked day ---- */

int
cc_event_has_opening(const struct cc_event_sources *s)
{
	load_local(s);
	return s->opening != NULL;
}

/* Does the comma-separated list `places` name `place`? */
static int
names_place(const char *places, const char *place, size_t n)
{
	while (places && *places) {
		size_t w;

		places += strspn(places, ", ");
		w = strcspn(places, ",");
		while (w && places[w - 1] == ' ')
			w--;
		if (w == n && strncmp(places, place, n) == 0)
			return 1;
		places += strcspn(places, ",");
	}
	return 0;
}

static void
hhmm(time_t t, char out[8])
{
	struct tm tm;

	localtime_r(&t, &tm);
	snprintf(out, 8, "%d:%02d", tm.tm_hour % 100, tm.tm_min % 100);
}

/* e's local start and end (its start when it has none) as "start", "end". */
static void
put_span(struct cc_jw *w, const struct cc_event *e)
{
	char a[8], b[8];

	hhmm(e->start, a);
	hhmm(e->has_end ? e->end : e->start, b);
	cc_jw_key(w, "start");
	cc_jw_cstr(w, a);
	cc_jw_key(w, "end");
	cc_jw_cstr(w, b);
}

/* The places the events' LOCATIONs name, in the order first named. */
static size_t
places_of(const struct cc_event_list *l, const char **place, size_t *plen,
    size_t max)
{
	size_t np = 0;

	for (size_t i = 0; i < l->n; i++) {
		const char *loc = l->v[i].location;

		while (loc && *loc) {
			size_t k, n;

			loc += strspn(loc, ", ");
			n = strcspn(loc, ",");
			while (n && loc[n - 1] == ' ')
				n--;
			for (k = 0; k < np; k++)
				if (plen[k] == n && strncmp(place[k], loc, n) == 0)
					break;
			if (k == np && n && np < max) {
				place[np] = loc;
				plen[np++] = n;
			}
			loc += strcspn(loc, ",");
		}
	}
	return np;
}

/*
 * The closing days of a range of days, at most CLOSINGS_MAX of them (an
 * open range: that many from its first day): {from, to, kind, places:
 * {PLACE: {closed: [{date, weekday, title}]}}}, a day once for each
 * all-day event that closes it.
 */
#define CLOSINGS_MAX 92

static int
write_closings(struct cc_event_sources *s, const struct cc_time_range *r,
    struct cc_jw *w)
{
	struct cc_event_list l = {0};
	struct cc_date from = r->first;
	struct cc_date to = r->open ? cc_date_add(r->first, CLOSINGS_MAX - 1) : r->last;
	const char *place[32];
	size_t plen[32], np;
	char err[256], t[16];
	int rc;

	if (cc_date_diff(from, to) < 0 || cc_date_diff(from, to) >= CLOSINGS_MAX)
		return -1;
	rc = cc_ics_expand(s->opening, cc_date_start(from),
	    cc_date_start(cc_date_add(to, 1)), 0, &l, err, sizeof err);
	cc_event_list_finish(&l);
	np = places_of(&l, place, plen, sizeof place / sizeof *place);
	cc_jw_object(w);
	snprintf(t, sizeof t, "%04d-%02d-%02d", from.year % 10000, from.month, from.day);
	cc_jw_key(w, "from");
	cc_jw_cstr(w, t);
	snprintf(t, sizeof t, "%04d-%02d-%02d", to.year % 10000, to.month, to.day);
	cc_jw_key(w, "to");
	cc_jw_cstr(w, t);
	cc_jw_key(w, "kind");
	cc_jw_cstr(w, r->kind);
	cc_jw_key(w, "places");
	cc_jw_object(w);
	for (size_t k = 0; k < np; k++) {
		char key[128];

		snprintf(key, sizeof key, "%.*s", (int)plen[k], place[k]);
		cc_jw_key(w, key);
		cc_jw_object(w);
		cc_jw_key(w, "closed");
		cc_jw_array(w);
		for (size_t i = 0; i < l.n; i++) {
			const struct cc_event *e = &l.v[i];
			struct cc_date d = cc_date_of(e->start);

			if (!e->all_day || !names_place(e->location, place[k], plen[k]) ||
			    cc_date_cmp(d, from) < 0 || cc_date_cmp(d, to) > 0)
				continue;
			cc_jw_object(w);
			snprintf(t, sizeof t, "%04d-%02d-%02d", d.year % 10000, d.month, d.day);
			cc_jw_key(w, "date");
			cc_jw_cstr(w, t);
			cc_jw_key(w, "weekday");
			cc_jw_num(w, cc_date_weekday(d));
			cc_jw_key(w, "title");
			cc_jw_cstr(w, e->title);
			cc_jw_end(w);
		}
		cc_jw_end(w);
		cc_jw_end(w);
	}
	cc_jw_end(w);
	if (rc < 0) {
		cc_jw_key(w, "error");
		cc_jw_cstr(w, err);
	}
	cc_jw_end(w);
	cc_event_list_release(&l);
	return 0;
}

/*
 * The first of the 14 days after `day` that `place` is open, in *next,
 * with that day's opening events in *l (released by the caller); -1 when
 * none is.  Asked only for a closed day ("and if not, when can I come?").
 */
static int
next_open(struct cc_event_sources *s, struct cc_date day, const char *place,
    size_t plen, struct cc_date *next, struct cc_event_list *l)
{
	char err[256];

	for (int k = 1; k <= 14; k++) {
		struct cc_date d = cc_date_add(day, k);
		int closed = 0, any = 0;

		memset(l, 0, sizeof *l);
		if (cc_ics_expand(s->opening, cc_date_start(d),
		    cc_date_start(cc_date_add(d, 1)), 0, l, err, sizeof err) < 0) {
			cc_event_list_release(l);
			return -1;
		}
		cc_event_list_finish(l);
		for (size_t i = 0; i < l->n; i++)
			if (names_place(l->v[i].location, place, plen)) {
				any = 1;
				closed |= l->v[i].all_day;
			}
		if (any && !closed) {
			*next = d;
			return 0;
		}
		cc_event_list_release(l);
	}
	memset(l, 0, sizeof *l);
	return -1;
}

int
cc_event_write_opening(struct cc_event_sources *s, const struct cc_time_range *r,
    struct cc_jw *w)
{
	struct cc_event_list l = {0};
	struct cc_date day = r->first;
	char err[256], t[16];
	/* the places, in the order the calendar first names them */
	const char *place[32];
	size_t plen[32], np = 0;
	int rc;

	load_local(s);

	if (!s->opening || r->implicit)
		return -1;
	if (r->open || cc_date_cmp(r->first, r->last) != 0)
		return write_closings(s, r, w);
	rc = cc_ics_expand(s->opening, cc_date_start(day),
	    cc_date_start(cc_date_add(day, 1)), 0, &l, err, sizeof err);
	cc_event_list_finish(&l);
	for (size_t i = 0; i < l.n; i++) {
		const char *loc = l.v[i].location;

		while (loc && *loc) {
			size_t k, n;

			loc += strspn(loc, ", ");
			n = strcspn(loc, ",");
			while (n && loc[n - 1] == ' ')
				n--;
			for (k = 0; k < np; k++)
				if (plen[k] == n && strncmp(place[k], loc, n) == 0)
					break;
			if (k == np && n && np < sizeof place / sizeof *place) {
				place[np] = loc;
				plen[np++] = n;
			}
			loc += strcspn(loc, ",");
		}
	}
	cc_jw_object(w);
	snprintf(t, sizeof t, "%04d-%02d-%02d", day.year % 10000, day.month, day.day);
	cc_jw_key(w, "date");
	cc_jw_cstr(w, t);
	cc_jw_key(w, "weekday");
	cc_jw_num(w, cc_date_weekday(day));
	cc_jw_key(w, "kind");
	cc_jw_cstr(w, r->kind);
	cc_jw_key(w, "places");
	cc_jw_object(w);
	for (size_t k = 0; k < np; k++) {
		int closed = 0;
		char key[128];

		for (size_t i = 0; i < l.n; i++)
			closed |= l.v[i].all_day && names_place(l.v[i].location, place[k], plen[k]);
		snprintf(key, sizeof key, "%.*s", (int)plen[k], place[k]);
		cc_jw_key(w, key);
		cc_jw_object(w);
		cc_jw_key(w, "open");
		cc_jw_bool(w, !closed);
		cc_jw_key(w, closed ? "closed" : "hours");
		cc_jw_array(w);
		for (size_t i = 0; i < l.n; i++) {
			const struct cc_event *e = &l.v[i];

			if (!names_place(e->location, place[k], plen[k]) || e->all_day != closed)
				continue;
			cc_jw_object(w);
			cc_jw_key(w, "title");
			cc_jw_cstr(w, e->title);
			if (!closed)
				put_span(w, e);
			cc_jw_end(w);
		}
		cc_jw_end(w);
		if (!closed) {	/* open again after a closure: 1月4日からは開いとる？ */
			struct cc_event_list pl = {0};
			struct cc_date pd = cc_date_add(day, -1);
			char perr[256];
			const char *why = NULL;

			if (cc_ics_expand(s->opening, cc_date_start(pd), cc_date_start(day), 0,
			    &pl, perr, sizeof perr) >= 0) {
				cc_event_list_finish(&pl);
				for (size_t i = 0; i < pl.n && !why; i++)
					if (pl.v[i].all_day && names_place(pl.v[i].location, place[k], plen[k]))
						why = pl.v[i].title;
				if (why) {
					cc_jw_key(w, "after_closed");
					cc_jw_object(w);
					cc_jw_key(w, "title");
					cc_jw_cstr(w, why);
					cc_jw_end(w);
				}
			}
			cc_event_list_release(&pl);
		}
		if (closed) {	/* and the next day it opens, with its hours */
			struct cc_event_list nl;
			struct cc_date nd;

			if (next_open(s, day, place[k], plen[k], &nd, &nl) == 0) {
				snprintf(t, sizeof t, "%04d-%02d-%02d", nd.year % 10000, nd.month, nd.day);
				cc_jw_key(w, "next_open");
				cc_jw_object(w);
				cc_jw_key(w, "date");
				cc_jw_cstr(w, t);
				cc_jw_key(w, "hours");
				cc_jw_array(w);
				for (size_t i = 0; i < nl.n; i++) {
					const struct cc_event *e = &nl.v[i];

					if (!names_place(e->location, place[k], plen[k]) || e->all_day)
						continue;
					cc_jw_object(w);
					cc_jw_key(w, "title");
					cc_jw_cstr(w, e->title);
					put_span(w, e);
					cc_jw_end(w);
				}
				cc_jw_end(w);
				cc_jw_end(w);
				cc_event_list_release(&nl);
			}
		}
		cc_jw_end(w);
	}
	cc_jw_end(w);
	if (rc < 0) {
		cc_jw_key(w, "error");
		cc_jw_cstr(w, err);
	}
	cc_jw_end(w);
	cc_event_list_release(&l);
	return 0;
}

/* ---- named events ---- */

int
cc_event_named(const struct cc_event_sources *s, const char *q, size_t len,
    time_t now, struct cc_time_range *r)
{
	char *f, *guess;
	const char *title = NULL, *word = NULL;
	size_t best = 0;
	int keep;

	load_local(s);

	if (!s->nnames)
		return 0;
	f = fold_name(q, len);
	for (size_t i = 0; i < s->nnames; i++)
		for (size_t k = 0; k < s->names[i].nwords; k++) {
			size_t n = strlen(s->names[i].words[k]);

			/* the longest word wins: "ai勉強会" before "勉強会" */
			if (n > best && strstr(f, s->names[i].words[k])) {
				best = n;
				title = s->names[i].title;
				word = s->names[i].words[k];
			}
		}
	/* a title read from the question ('Python Today') stays, unless it
	 * is the name said another way (メイカーズの講習会) */
	guess = r->title[0] ? fold_name(r->title, strlen(r->title)) : NULL;
	keep = guess && (!word || !strstr(guess, word));
	free(guess);
	free(f);
	if (!title || keep)
		return 0;
	snprintf(r->title, sizeof r->title, "%s", title);
	if (r->implicit) {
		/* no time named: that event's next dates */
		r->kind = "nextUpcoming";
		r->open = 1;
		r->implicit = 0;
		r->start = now;
		r->end = 0;
		r->first = r->last = cc_date_of(now);
	}
	return 1;
}
