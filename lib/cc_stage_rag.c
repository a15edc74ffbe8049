/*
 * The cc-rag stage: add retrieval {results, context, sources, language} to each
 * record whose agent answers from documents, from the knowledge base and,
 * when configured, web search (seed 002).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_text.h"
#include "cc_lang.h"
#include "cc_kb.h"
#include "cc_kbnet.h"
#include "cc_http.h"
#include "cc_domain.h"
#include "cc_stages.h"

#define CACHE_SLOTS 4096	/* distinct queries remembered, at most */
#define CACHE_PROBE 8

struct slot {
	char *key, *value;
	size_t klen, vlen;
	/*
	 * value's cc_json_index(), made once when it was stored: chained,
	 * the next stage takes it instead of checking 5 kB of passages again
	 * on every record that asks the same (cc_jw_raw_indexed)
	 */
	struct cc_json_doc index;
	int indexed;
};

struct rag {
	struct cc_config cfg;
	struct cc_domain *domain;
	struct cc_kb *kb;
	struct cc_websearch ws;
	struct cc_embed em;
	int web_on, embed_on;
	size_t limit, context_chars;
	struct cc_kb_hits hits;
	struct cc_buf key, value;
	/*
	 * The cache (not --no-cache): one entry until a second question
	 * comes, then the table.  A single question (a cold ask) has nothing
	 * to look up, and zeroing the 128 kB table was 2% of it (issue 16).
	 */
	int cache_wanted;
	struct slot first;
	struct slot *cache;	/* NULL: not made yet */
	long long version;	/* of the index, when the cache was filled */
	time_t checked;
	int upstream_failed;	/* some outside service failed: exit 4 */
	char *kb_error;		/* the index cannot be used: why (exit 5) */
	int kb_failed;		/* a search failed: exit 5 */
};

#define MAX_ASKED 5	/* places or aspects of one compound question */

struct route {
	int present;
	char agent[64], category[64], request_type[64], language[8];
	char search[2048];	/* route.search_query: the question continued */
	/* route.places, route.aspects: what a compound question asks each */
	char places[MAX_ASKED][64], aspects[MAX_ASKED][64];
	int nplaces, naspects;
};

/* Copy a string member of obj into buf (empty if absent or not a string). */
static void
member(jv obj, const char *key, char *buf, size_t size)
{
	jv v = jv_object_get(jv_copy(obj), jv_string(key));

	buf[0] = '\0';
	if (jv_get_kind(v) == JV_KIND_STRING)
		snprintf(buf, size, "%s", jv_string_value(v));
	jv_free(v);
}

/* A string cut by snprintf at size - 1 bytes must not end inside a
   character: the tokenizer ignores text that is not UTF-8. */
static void
cut_utf8(char *s, size_t size)
{
	size_t n = strlen(s), k = n;

	if (n < size - 1)
		return;
	while (k > 0 && ((unsigned char)s[k - 1] & 0xC0) == 0x80)
		k--;
	if (k > 0 && (unsigned char)s[k - 1] >= 0xC0) {
		unsigned char lead = (unsigned char)s[k - 1];
		size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;

		if (n - (k - 1) < want)
			s[k - 1] = '\0';
	}
}

/* The string of compact JSON text v[0..n) into buf, or "". */
static void
json_str(const char *v, size_t n, char *buf, size_t size)
{
	jv s;

	buf[0] = '\0';
	if (!v || !n || *v != '"')
		return;
	if (n >= 2) {	/* ASCII without escapes (agents, categories): as it is */
		size_t k = 0;

		while (k < n - 2 && (unsigned char)v[1 + k] < 0x80 && v[1 + k] != '\\')
			k++;
		if (k == n - 2) {
			if (k >= size)
				k = size - 1;
			memcpy(buf, v + 1, k);
			buf[k] = '\0';
			return;
		}
	}
	s = cc_json_to_jv(v, n);
	if (jv_get_kind(s) == JV_KIND_STRING)
		snprintf(buf, size, "%s", jv_string_value(s));
	jv_free(s);
}

/* The strings of the list text v[0..n) into out (at most MAX_ASKED). */
static int
json_list(const char *v, size_t n, char out[][64])
{
	jv l;
	int k = 0;

	if (!v || !n || *v != '[')
		return 0;
	l = cc_json_to_jv(v, n);
	if (jv_get_kind(l) == JV_KIND_ARRAY) {
		jv_array_foreach(l, i, x) {
			if (jv_get_kind(x) == JV_KIND_STRING && k < MAX_ASKED)
				snprintf(out[k++], 64, "%s", jv_string_value(x));
			jv_free(x);
		}
	}
	jv_free(l);
	return k;
}

/* The route's members, read in one pass (its debug trace skipped once). */
static void
read_route(struct cc_record *rec, struct route *r)
{
	static const char *const keys[] = {
		"agent", "category", "request_type", "language", "search_query",
		"places", "aspects", NULL,
	};
	const char *v[sizeof keys / sizeof keys[0]];
	size_t l[sizeof keys / sizeof keys[0]], len;
	const char *raw = cc_record_raw(rec, "route", &len);

	memset(r, 0, sizeof *r);
	if (!raw || *raw != '{')
		return;
	r->present = 1;
	cc_record_members(rec, "route", raw, len, keys, v, l);
	json_str(v[0], l[0], r->agent, sizeof r->agent);
	json_str(v[1], l[1], r->category, sizeof r->category);
	json_str(v[2], l[2], r->request_type, sizeof r->request_type);
	json_str(v[3], l[3], r->language, sizeof r->language);
	json_str(v[4], l[4], r->search, sizeof r->search);
	cut_utf8(r->search, sizeof r->search);
	r->nplaces = json_list(v[5], l[5], r->places);
	r->naspects = json_list(v[6], l[6], r->aspects);
}

/* Move up to two hits of q's place, aspect and language from more into
 * the record's hits (those already there count); how many there are. */
static int
add_hits(struct rag *g, struct cc_kb_hits *more, const struct cc_kb_query *q)
{
	int found = 0;

	for (size_t m = 0; m < more->n && found < 2; m++) {
		struct cc_kb_hit *h = &more->v[m];
		size_t j;

		if ((q->category && (!h->category || strcmp(h->category, q->category))) ||
		    (q->request_type && !cc_csv_has(h->request_types, q->request_type)) ||
		    (q->language && (!h->language || strcmp(h->language, q->language))))
			continue;
		found++;
		for (j = 0; j < g->hits.n; j++)
			if (strcmp(g->hits.v[j].id, h->id) == 0)
				break;
		if (j < g->hits.n)
			continue;
		if (g->hits.n == g->hits.cap) {
			g->hits.cap = g->hits.cap ? 2 * g->hits.cap : 16;
			g->hits.v = cc_xrealloc(g->hits.v, g->hits.cap * sizeof *g->hits.v);
		}
		g->hits.v[g->hits.n++] = *h;	/* moved */
		memset(h, 0, sizeof *h);
	}
	cc_kb_hits_clear(more);
	return found;
}

/*
 * A compound question (two places, or hours and fees and access at once):
 * the best passages of each place and aspect asked are added to the hits,
 * so the answer can take one for each.
 */
static void
add_asked(struct rag *g, const struct route *r, const struct cc_kb_query *kq)
{
	int np = r->nplaces ? r->nplaces : 1, na = r->naspects ? r->naspects : 1;
	struct cc_kb_hits more = {0};

	if (np * na < 2)
		return;
	for (int i = 0; i < np; i++)
		for (int k = 0; k < na; k++)
			for (int pass = 0; pass < 2; pass++) {
				struct cc_kb_query q = *kq;

				q.category = r->nplaces ? r->places[i] : kq->category;
				q.request_type = r->naspects ? r->aspects[k] : kq->request_type;
				q.limit = 20;
				/* the question's words, else the aspect's own name
				 * ("location" when "how do I get there" matched nothing) */
				if (pass && !q.request_type)
					break;
				if (pass) {
					q.text = q.request_type;
					q.len = strlen(q.request_type);
				}
				/* two found, or one of a single aspect's own, for
				 * the answer to choose from (cc_answer.c) */
				if (cc_kb_search(g->kb, &q, &more) == 0 &&
				    add_hits(g, &more, &q) >= 2)
					break;
			}
	cc_kb_hits_release(&more);
}

/* Whether every type of the list is a or b ("meeting-room, price" for
 * the 2F rooms' price; not "price, facility", the equipment's). */
static int
only_types(const char *list, const char *a, const char *b)
{
	const char *item;
	size_t n;

	while ((item = cc_csv_next(&list, &n)))
		if (n && !(strlen(a) == n && !strncmp(item, a, n)) &&
		    !(strlen(b) == n && !strncmp(item, b, n)))
			return 0;
	return 1;
}

/*
 * One aspect asked of a topic that has passages for several (the price
 * of the 2F rooms, not their hours; "does a few hours cost money?", the
 * fees, not the opening hours): the passages that carry the aspect come
 * first, in their order, since the words of the question ("いくら",
 * "upstairs") may rank another passage of the topic higher.
 */
static void
promote_aspect(struct rag *g, const struct route *r)
{
	size_t k = 0;

	if (r->nplaces || r->naspects != 1)
		return;
	for (size_t i = 0; i < g->hits.n; i++) {
		struct cc_kb_hit h = g->hits.v[i];

		if (!cc_csv_has(h.request_types, r->aspects[0]) ||
		    !only_types(h.request_types, r->request_type, r->aspects[0]))
			continue;
		memmove(&g->hits.v[k + 1], &g->hits.v[k], (i - k) * sizeof h);
		g->hits.v[k++] = h;
	}
}

/* The answer language: the route's, the detector's, or detected here. */
static const char *
answer_language(struct cc_record *rec, const struct route *r, const char *q,
    size_t len)
{
	struct cc_lang_result lr;

	if (!strcmp(r->language, "ja") || !strcmp(r->language, "en"))
		return !strcmp(r->language, "ja") ? "ja" : "en";
	if (cc_record_has(rec, "language_detection")) {
		jv ld = cc_record_get(rec, "language_detection");
		char lang[8] = "";

		if (jv_get_kind(ld) == JV_KIND_OBJECT)
			member(ld, "detected_language", lang, sizeof lang);
		jv_free(ld);
		if (!strcmp(lang, "ja") || !strcmp(lang, "en"))
			return !strcmp(lang, "ja") ? "ja" : "en";
	}
	cc_lang_detect(q, len, &lr);
	return cc_lang_name(lr.lang);
}

static double
round4(double d)
{
	return round(d * 10000) / 10000;
}

/* Append s to the context while it has room; never split a character. */
static void
context_add(struct cc_buf *ctx, size_t *chars, size_t cap, const char *s)
{
	size_t i = 0, n = strlen(s);

	while (i < n && *chars < cap) {
		size_t at = i;

		cc_utf8_next(s, n, &i);
		cc_buf_add(ctx, s + at, i - at);
		(*chars)++;
	}
}

static void
context_entry(struct cc_buf *ctx, size_t *chars, size_t cap, const char *a,
    const char *b, const char *c)
{
	if (ctx->len)
		context_add(ctx, chars, cap, "\n\n");
	context_add(ctx, chars, cap, a);
	if (b && *b) {
		context_add(ctx, chars, cap, "\n");
		context_add(ctx, chars, cap, b);
	}
	if (c && *c) {
		context_add(ctx, chars, cap, "\n");
		context_add(ctx, chars, cap, c);
	}
}

static void
write_error(struct cc_jw *w, const char *source, const char *code,
    const char *message)
{
	cc_jw_object(w);
	cc_jw_key(w, "source");
	cc_jw_cstr(w, source);
	cc_jw_key(w, "code");
	cc_jw_cstr(w, code);
	cc_jw_key(w, "message");
	cc_jw_cstr(w, message);
	cc_jw_end(w);
}

/* Search and write the retrieval object; returns 1 if it may be cached. */
static int
retrieve(struct rag *g, const struct route *r, const char *q, size_t len,
    const char *lang, int web_allowed, struct cc_jw *w)
{
	struct cc_kb_query kq = {
		.text = q, .len = len, .language = lang, .limit = g->limit,
		.category = *r->category ? r->category : NULL,
		.request_type = *r->request_type ? r->request_type : NULL,
	};
	struct cc_web_hit *web = NULL;
	size_t nweb = 0, chars = 0;
	struct cc_buf ctx = {0};
	float *qv = NULL;
	int dim = 0, kb_ok, cacheable = 1;
	char kb_err[600] = "", web_err[300] = "", emb_err[300] = "";
	const char *web_code = NULL, *emb_code = NULL;

	if (g->embed_on) {
		if (cc_embed_texts(&g->em, &q, 1, &qv, &dim, emb_err,
		    sizeof emb_err) == 0) {
			kq.vector = qv;
			kq.dim = dim;
			kq.model = g->em.embedder.model;
		} else {
			emb_code = g->em.code ? g->em.code : "failed";
			cc_warn("embeddings: %s", emb_err);
			g->upstream_failed = 1;
			cacheable = 0;
		}
	}
	cc_kb_hits_clear(&g->hits);
	kb_ok = g->kb && cc_kb_search(g->kb, &kq, &g->hits) == 0;
	if (kb_ok) {
		add_asked(g, r, &kq);
		promote_aspect(g, r);
	}
	if (!kb_ok) {
		snprintf(kb_err, sizeof kb_err, "%s",
		    g->kb ? cc_kb_error(g->kb) : g->kb_error);
		cacheable = 0;
		g->kb_failed = 1;
	}
	free(qv);
	if (web_allowed && (g->hits.n == 0 || cc_websearch_wanted(q, len))) {
		cacheable = 0;	/* "latest" questions: ask each time */
		if (cc_websearch_query(&g->ws, q, len, lang, &web, &nweb, &web_code,
		    web_err, sizeof web_err) < 0) {
			cc_warn("web search: %s", web_err);
			g->upstream_failed = 1;
		}
	}

	cc_jw_object(w);
	cc_jw_key(w, "results");
	cc_jw_array(w);
	for (size_t i = 0; i < g->hits.n; i++) {
		const struct cc_kb_hit *h = &g->hits.v[i];

		cc_jw_object(w);
		cc_jw_key(w, "id");
		cc_jw_cstr(w, h->id);
		cc_jw_key(w, "title");
		cc_jw_cstr(w, h->title);
		cc_jw_key(w, "content");
		cc_jw_cstr(w, h->content);
		cc_jw_key(w, "score");
		cc_jw_num(w, round4(h->score));
		cc_jw_key(w, "language");
		cc_jw_cstr(w, h->language);
		cc_jw_key(w, "category");
		cc_jw_cstr(w, h->category);
		if (r->nplaces || r->naspects) {	/* a compound question's */
			cc_jw_key(w, "request_types");
			cc_jw_cstr(w, h->request_types);
		}
		cc_jw_key(w, "source");
		cc_jw_cstr(w, "knowledge_base");
		cc_jw_end(w);
		context_entry(&ctx, &chars, g->context_chars, h->title, h->content,
		    NULL);
	}
	for (size_t i = 0; i < nweb; i++) {
		char id[32];

		snprintf(id, sizeof id, "web-%zu", i + 1);
		cc_jw_object(w);
		cc_jw_key(w, "id");
		cc_jw_cstr(w, id);
		cc_jw_key(w, "title");
		cc_jw_cstr(w, web[i].title);
		cc_jw_key(w, "content");
		cc_jw_cstr(w, web[i].content);
		cc_jw_key(w, "score");
		cc_jw_num(w, round4(1.0 / (double)(i + 1)));
		cc_jw_key(w, "language");
		cc_jw_cstr(w, lang);
		cc_jw_key(w, "category");
		cc_jw_cstr(w, "web");
		cc_jw_key(w, "source");
		cc_jw_cstr(w, "web_search");
		cc_jw_key(w, "url");
		cc_jw_cstr(w, web[i].url);
		cc_jw_end(w);
		context_entry(&ctx, &chars, g->context_chars, web[i].title,
		    web[i].content, web[i].url);
	}
	cc_jw_end(w);
	cc_jw_key(w, "context");
	cc_jw_str(w, ctx.data ? ctx.data : "", ctx.len);
	cc_jw_key(w, "sources");
	cc_jw_array(w);
	if (g->hits.n)
		cc_jw_cstr(w, "knowledge_base");
	if (nweb)
		cc_jw_cstr(w, "web_search");
	cc_jw_end(w);
	cc_jw_key(w, "language");
	cc_jw_cstr(w, lang);
	if (!kb_ok || web_code || emb_code) {
		cc_jw_key(w, "errors");
		cc_jw_array(w);
		if (!kb_ok)
			write_error(w, "knowledge_base", g->kb ? "search_failed" :
			    "unavailable", kb_err);
		if (emb_code)
			write_error(w, "embeddings", emb_code, emb_err);
		if (web_code)
			write_error(w, "web_search", web_code, web_err);
		cc_jw_end(w);
	}
	cc_jw_end(w);
	cc_buf_release(&ctx);
	cc_web_hits_release(web, nweb);
	return cacheable;
}

static uint64_t
fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static void
slot_clear(struct slot *s)
{
	free(s->key);
	free(s->value);
	cc_json_doc_release(&s->index);
	*s = (struct slot){0};
}

static void
cache_flush(struct rag *g)
{
	slot_clear(&g->first);
	for (size_t i = 0; g->cache && i < CACHE_SLOTS; i++)
		slot_clear(&g->cache[i]);
}

/*
 * The slot of g->key: its entry, or a free slot (key NULL) to fill.  Open
 * addressing over a short probe; when the probe is full its first slot
 * is reused.
 */
static struct slot *
cache_find(struct rag *g)
{
	size_t h = (size_t)fnv(g->key.data, g->key.len);

	if (!g->cache) {
		struct slot *s = &g->first;

		if (!s->key || (s->klen == g->key.len && memcmp(s->key, g->key.data, s->klen) == 0))
			return s;
		/* another question: the table, the first one's entry in its place */
		if (!(g->cache = calloc(CACHE_SLOTS, sizeof *g->cache))) {
			cache_flush(g);
			g->cache_wanted = 0;
			return NULL;
		}
		g->cache[(size_t)fnv(s->key, s->klen) % CACHE_SLOTS] = *s;
		*s = (struct slot){0};
	}

	for (size_t k = 0; k < CACHE_PROBE; k++) {
		struct slot *s = &g->cache[(h + k) % CACHE_SLOTS];

		if (!s->key)
			return s;
		if (s->klen == g->key.len && memcmp(s->key, g->key.data, s->klen) == 0)
			return s;
	}
	{
		struct slot *s = &g->cache[h % CACHE_SLOTS];

		slot_clear(s);
		return s;
	}
}

static enum cc_outcome
rag(void *vctx, struct cc_record *rec, struct cc_jw *out)
{
	struct rag *g = vctx;
	struct route r;
	size_t len;
	const char *q, *lang, *agent;
	int web_allowed;
	struct slot *s = NULL;
	struct cc_jw w;

	read_route(rec, &r);
	/* the manifest says which agents answer from documents */
	agent = r.present && *r.agent ? r.agent : NULL;
	if (!cc_domain_acts(g->domain, "cc-rag", agent))
		return CC_RECORD_PASS;
	q = cc_record_query(rec, &len);
	if (!q)
		return cc_record_fail(rec, "no_query",
		    "the record has no string \"query\"");
	if (*r.search) {	/* "駅前店の方" searches with the question it answers */
		q = r.search;
		len = strlen(r.search);
	}
	lang = answer_language(rec, &r, q, len);
	/* the web for the general agent of seed 002, and for what is not routed */
	web_allowed = g->web_on && (!agent ||
	    cc_domain_agent(g->domain, agent)->answer == CC_ANSWER_SEARCH);
	if (g->cache_wanted && g->kb) {
		time_t now = time(NULL);

		if (now != g->checked) {	/* a rebuild empties the cache */
			long long v = cc_kb_version(g->kb);

			g->checked = now;
			if (v != g->version)
				cache_flush(g);
			g->version = v;
		}
		g->key.len = 0;
		cc_buf_add(&g->key, lang, strlen(lang) + 1);
		cc_buf_add(&g->key, r.category, strlen(r.category) + 1);
		cc_buf_add(&g->key, r.request_type, strlen(r.request_type) + 1);
		for (int i = 0; i < r.nplaces; i++)
			cc_buf_add(&g->key, r.places[i], strlen(r.places[i]) + 1);
		cc_buf_add(&g->key, "|", 1);
		for (int i = 0; i < r.naspects; i++)
			cc_buf_add(&g->key, r.aspects[i], strlen(r.aspects[i]) + 1);
		cc_buf_add(&g->key, web_allowed ? "w" : "-", 1);
		cc_buf_add(&g->key, q, len);
		s = cache_find(g);
		if (s && s->key) {
			cc_jw_raw_indexed(out, s->value, s->vlen,
			    s->indexed ? &s->index : NULL);
			return CC_RECORD_SET;
		}
	}
	g->value.len = 0;
	cc_jw_init(&w, &g->value);
	if (retrieve(g, &r, q, len, lang, web_allowed, &w) && s) {
		slot_clear(s);
		s->key = cc_xmalloc(g->key.len);
		memcpy(s->key, g->key.data, g->key.len);
		s->klen = g->key.len;
		s->value = cc_xmalloc(g->value.len);
		memcpy(s->value, g->value.data, g->value.len);
		s->vlen = g->value.len;
		s->indexed = cc_json_index(&s->index, s->value, s->vlen) == 0;
		cc_jw_raw_indexed(out, s->value, s->vlen, s->indexed ? &s->index : NULL);
		return CC_RECORD_SET;
	}
	cc_jw_raw(out, g->value.data, g->value.len);
	return CC_RECORD_SET;
}

int
cc_rag_open(struct cc_stage *stage, const struct cc_rag_options *o,
    char *err, size_t errlen)
{
	struct rag *g = cc_xmalloc(sizeof *g);
	char **dirs, *db;
	size_t ndirs;

	memset(g, 0, sizeof *g);
	g->limit = o->limit;
	g->context_chars = o->context_chars;
	g->version = -1;
	stage->name = "cc-rag";
	stage->key = "retrieval";
	stage->process = rag;
	stage->ctx = g;
	cc_config_load(&g->cfg);
	g->domain = cc_domain_for_stage(&g->cfg, stage);
	if (!stage->process)
		return 0;
	g->web_on = cc_websearch_init(&g->ws);
	g->embed_on = cc_embed_init(&g->em);
	db = o->db ? cc_xstrdup(o->db) : cc_kb_default_db(&g->cfg);
	g->kb = cc_kb_open_current(db, (char *const *)o->kb, o->nkb, &g->cfg,
	    g->embed_on ? &g->em.embedder : NULL, 0, &dirs, &ndirs, err, errlen);
	cc_kb_dirs_free(dirs);
	if (!g->kb) {
		/*
		 * An index that cannot be opened or built (corrupt, unwritable)
		 * used to end cc-rag before it read a record, and a pipeline
		 * lost them all.  The records go on, with the failure in
		 * retrieval.errors (and web results when configured); exit 5.
		 */
		cc_warn("%s; records pass without the knowledge base (the index "
		    "is rebuilt from the documents once '%s' is removed)", err, db);
		g->kb_error = cc_xstrdup(err);
		*err = '\0';
	}
	free(db);
	g->cache_wanted = !o->no_cache;
	return 0;
}

void
cc_rag_open_ahead(const struct cc_rag_options *o)
{
	struct cc_config cfg;
	char *db;

	cc_config_load(&cfg);
	db = o->db ? cc_xstrdup(o->db) : cc_kb_default_db(&cfg);
	cc_kb_open_ahead(db);
	free(db);
	cc_config_release(&cfg);
}

int
cc_rag_close(struct cc_stage *stage, int status)
{
	struct rag *g = stage->ctx;

	if (status < CC_EXIT_INTERNAL && g->kb_failed)
		status = CC_EXIT_INTERNAL;
	if (status == CC_EXIT_OK && g->upstream_failed)
		status = CC_EXIT_UPSTREAM;
	if (stage->leave)	/* the index is only read: nothing to close */
		return status;
	cache_flush(g);
	free(g->cache);
	cc_kb_hits_release(&g->hits);
	cc_buf_release(&g->key);
	cc_buf_release(&g->value);
	cc_kb_close(g->kb);
	free(g->kb_error);
	cc_websearch_release(&g->ws);
	cc_embed_release(&g->em);
	cc_http_cleanup();
	cc_domain_free(g->domain);
	cc_config_release(&g->cfg);
	free(g);
	return status;
}
