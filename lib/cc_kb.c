/*
 * The knowledge base: a tokenizer that works for Japanese and English
 * together, an SQLite FTS5 index of the passages of cc-kb(5) documents,
 * incremental builds, and ranked search with the route's boosts and an
 * optional dense-vector fusion.
 *
 * Why a tokenizer of our own: FTS5's unicode61 makes a Japanese phrase one
 * token, and trigram never matches a two-character query such as 料金 or
 * 地下.  Here text is cut into script runs (Latin words, Han, hiragana,
 * katakana), each run folded with cc_text_fold() exactly as the router
 * folds, and the Japanese runs indexed as overlapping bigrams, with Han
 * unigrams beside them so one-character words (席, 開) match too.  Queries
 * are tokenized the same way, then handed to FTS5 as exact terms.
 *
 * All SQL is in this file, with bound parameters only, behind the small
 * cc_kb_* interface of cc_kb.h, so another backend could replace it.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_kb.h"

/* Bump when tokenization or the schema changes: indexes are rebuilt. */
#define KB_FORMAT "cc-kb-3"

/* Column weights for bm25(): title, tags, body. */
#define W_TITLE 2.0
#define W_TAGS 2.0
#define W_BODY 1.0
/* Multipliers for passages that match the route. */
#define BOOST_CATEGORY 1.5
#define BOOST_REQUEST_TYPE 1.5
/* Reciprocal rank fusion constant (Cormack et al. 2009). */
#define RRF_K 60.0
#define MAX_QUERY_TERMS 48
#define MAX_SEGMENT 512		/* code points per run handled at once */

/* ---------------------------------------------------------------------- */
/* tokenizer */

enum cls { C_SEP, C_WORD, C_HAN, C_HIRA, C_KATA, C_EXTEND };

static enum cls
classify(int32_t cp)
{
	if (cp < 0x80) {
		if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
		    (cp >= '0' && cp <= '9'))
			return C_WORD;
		return C_SEP;
	}
	if (cp == 0x30FC)	/* the long-vowel mark joins the run before it */
		return C_EXTEND;
	switch (cc_text_script(cp)) {
	case CC_SCRIPT_LATIN:
	case CC_SCRIPT_DIGIT:
	case CC_SCRIPT_OTHER:	/* Cyrillic, Greek, ...: space-separated words */
		return C_WORD;
	case CC_SCRIPT_HAN:
		return C_HAN;
	case CC_SCRIPT_HIRAGANA:
		return cp == 0x30FB ? C_SEP : C_HIRA;
	case CC_SCRIPT_KATAKANA:
		return cp == 0x30FB ? C_SEP : C_KATA;	/* ・ separates */
	case CC_SCRIPT_HANGUL:
		return C_WORD;
	default:
		return C_SEP;
	}
}

static const char *const stopwords[] = {
	"a", "about", "also", "am", "an", "and", "any", "are", "as", "at",
	"be", "been", "but", "by", "can", "could", "did", "do", "does", "for",
	"from", "get", "got", "had", "has", "have", "he", "her", "here", "his",
	"how", "i", "if", "in", "is", "it", "its", "just", "know", "let",
	"me", "might", "my", "not", "of", "on", "or", "our", "please", "she", "should",
	"so", "some", "tell", "than", "that", "the", "their", "them", "then",
	"there", "these", "they", "this", "those", "to", "us", "want", "was",
	"we", "were", "what", "when", "where", "which", "who", "why", "will",
	"with", "would", "you", "your",
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
stopword(const char *w)
{
	return bsearch(&w, stopwords, sizeof stopwords / sizeof *stopwords,
	    sizeof *stopwords, cmp_str) != NULL;
}

/* Japanese request words that carry no topic (教えて, 知りたい, ...). */
static int
ja_stop_unigram(int32_t cp)
{
	return cp == 0x6559 || cp == 0x77E5 || cp == 0x805E || cp == 0x8A00 ||
	    cp == 0x601D || cp == 0x9858 || cp == 0x4F55;	/* 教 知 聞 言 思 願 何 */
}

struct tok {
	int flags;
	cc_kb_token_fn fn;
	void *ctx;
	int rc;
	char word[256];
};

static void
emit(struct tok *t, const char *s, size_t n, int kind, int colocated)
{
	if (t->rc == 0 && n > 0)
		t->rc = t->fn(t->ctx, s, n, kind, colocated);
}

/* One Latin (or other alphabetic) word, already NFKC; lower-cased here. */
static void
word_token(struct tok *t, const char *s, size_t n, int colocated)
{
	char *w = t->word;
	size_t len;

	if (n >= sizeof t->word)
		return;		/* no one searches for 256-byte words */
	memcpy(w, s, n);
	w[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)w[i] >= 0x80) {
			char *f = cc_text_fold(s, n, &len, 0);

			if (len < sizeof t->word) {
				memcpy(w, f, len + 1);
				n = len;
			}
			free(f);
			break;
		} else if (w[i] >= 'A' && w[i] <= 'Z') {
			w[i] = (char)(w[i] + 32);
		}
	if (stopword(w))
		return;
	if (n == 1 && !(w[0] >= '0' && w[0] <= '9'))
		return;		/* stray letters: the s of what's, the x of 3 x 4 */
	emit(t, w, n, CC_KB_TOKEN_WORD, colocated);
}

/*
 * A run of word characters that may be joined by '-' (Wi-Fi), by ',' in
 * numbers (1,700) or carry an apostrophe suffix (cafe's).  The parts are
 * tokens; a joined form is added at the same position, so "wifi" finds
 * "Wi-Fi" and "1700" finds "1,700".
 */
static void
word_run(struct tok *t, const char *s, size_t n, const size_t *cut,
    const size_t *cutlen, size_t ncut)
{
	size_t start = 0;
	char joined[256];
	size_t jl = 0;
	int emitted = 0;

	for (size_t k = 0; k <= ncut; k++) {
		size_t end = k < ncut ? cut[k] : n;

		if (end > start) {
			word_token(t, s + start, end - start, 0);
			emitted = 1;
			if (jl + end - start < sizeof joined) {
				memcpy(joined + jl, s + start, end - start);
				jl += end - start;
			}
		}
		start = k < ncut ? end + cutlen[k] : n;
	}
	if (ncut && emitted && jl > 0)
		word_token(t, joined, jl, 1);
}

/* A Japanese run (Han, hiragana or katakana), folded: bigrams, unigrams. */
static void
cjk_run(struct tok *t, const char *s, size_t n, enum cls c, int after_han)
{
	size_t flen, i = 0, np = 0;
	char *f = cc_text_fold(s, n, &flen, 0);
	size_t at[MAX_SEGMENT + 1];
	int query = t->flags & CC_KB_TOKENIZE_QUERY;
	int kind = c == C_HAN ? CC_KB_TOKEN_HAN :
	    c == C_KATA ? CC_KB_TOKEN_KATAKANA :
	    after_han ? CC_KB_TOKEN_OKURIGANA : CC_KB_TOKEN_HIRAGANA;

	while (i < flen && np < MAX_SEGMENT) {
		at[np++] = i;
		cc_utf8_next(f, flen, &i);
	}
	at[np] = i;
	if (np == 1) {
		int32_t cp;
		size_t j = 0;

		cp = cc_utf8_next(f, flen, &j);
		/* a lone hiragana is a particle (の, は, を) */
		if (c != C_HIRA && !(query && c == C_HAN && ja_stop_unigram(cp)))
			emit(t, f, at[1], kind, 0);
	} else {
		for (size_t k = 0; k + 1 < np; k++) {
			emit(t, f + at[k], at[k + 2] - at[k], kind, 0);
			if (c == C_HAN && !query)
				emit(t, f + at[k], at[k + 1] - at[k], kind, 1);
		}
		if (c == C_HAN && !query)
			emit(t, f + at[np - 1], at[np] - at[np - 1], kind, 1);
		/*
		 * A query's kanji run may join two words (ご飯食べる gives 飯食):
		 * its first and last kanji are also looked up alone.
		 */
		if (c == C_HAN && query) {
			size_t j = 0;
			int32_t first = cc_utf8_next(f, flen, &j), last;

			j = at[np - 1];
			last = cc_utf8_next(f, flen, &j);
			if (!ja_stop_unigram(first))
				emit(t, f, at[1], CC_KB_TOKEN_HAN_EDGE, 1);
			if (!ja_stop_unigram(last))
				emit(t, f + at[np - 1], at[np] - at[np - 1],
				    CC_KB_TOKEN_HAN_EDGE, 1);
		}
	}
	free(f);
}

int
cc_kb_tokenize(const char *s, size_t len, int flags, cc_kb_token_fn fn,
    void *ctx)
{
	struct tok t = { .flags = flags, .fn = fn, .ctx = ctx };
	size_t nlen, i = 0, run = 0, cut[16], cutlen[16], ncut = 0;
	char *norm = cc_text_nfkc(s, len, &nlen);
	enum cls cur = C_SEP, prev = C_SEP;	/* the run before, if adjacent */

	if (!norm)
		return 0;	/* not UTF-8: nothing to index */
	while (i <= nlen && t.rc == 0) {
		size_t at = i;
		int32_t cp = i < nlen ? cc_utf8_next(norm, nlen, &i) : 0;
		enum cls c = i > at ? classify(cp) : C_SEP;

		if (i == at)
			i++;	/* the end */
		if (c == C_EXTEND)
			c = cur == C_SEP || cur == C_WORD ? C_SEP : cur;
		if (cur == C_WORD && c == C_SEP && ncut < 16 && i <= nlen) {
			/* joiners inside a word: Wi-Fi, 1,700, cafe's */
			size_t k = i;
			int32_t next = k < nlen ? cc_utf8_next(norm, nlen, &k) : 0;

			if ((cp == '-' || cp == 0x2010 || cp == 0x2011) &&
			    classify(next) == C_WORD) {
				cutlen[ncut] = i - at;
				cut[ncut++] = at - run;
				continue;
			}
			if (cp == ',' && at > run && norm[at - 1] >= '0' &&
			    norm[at - 1] <= '9' && next >= '0' && next <= '9') {
				cutlen[ncut] = 1;
				cut[ncut++] = at - run;
				continue;
			}
			if (cp == '\'' || cp == 0x2019) {
				/* drop the suffix: cafe's, don't */
				word_run(&t, norm + run, at - run, cut, cutlen, ncut);
				while (k < nlen && classify(next) == C_WORD) {
					i = k;
					next = cc_utf8_next(norm, nlen, &k);
				}
				if (k >= nlen && classify(next) == C_WORD)
					i = k;
				cur = C_SEP;
				ncut = 0;
				continue;
			}
		}
		if (c == cur)
			continue;
		if (cur == C_WORD)
			word_run(&t, norm + run, at - run, cut, cutlen, ncut);
		else if (cur != C_SEP)
			cjk_run(&t, norm + run, at - run, cur, prev == C_HAN);
		prev = cur;
		cur = c;
		run = at;
		ncut = 0;
	}
	free(norm);
	return t.rc;
}

/* ---- the FTS5 tokenizer "cc" ---- */

struct fts_ctx {
	void *ctx;
	int (*xToken)(void *, int, const char *, int, int, int);
	int nText;
};

static int
fts_token(void *ctx, const char *tok, size_t n, int kind, int colocated)
{
	struct fts_ctx *c = ctx;

	/* offsets are not kept: folding changes lengths, and no
	   highlight() or snippet() is used */
	return c->xToken(c->ctx, colocated ? FTS5_TOKEN_COLOCATED : 0, tok,
	    (int)n, 0, c->nText);
}

static int
fts_create(void *p, const char **az, int n, Fts5Tokenizer **out)
{
	static int dummy;

	*out = (Fts5Tokenizer *)&dummy;
	return SQLITE_OK;
}

static void
fts_delete(Fts5Tokenizer *t)
{
}

static int
fts_tokenize(Fts5Tokenizer *t, void *ctx, int flags, const char *text,
    int ntext, int (*xToken)(void *, int, const char *, int, int, int))
{
	struct fts_ctx c = { ctx, xToken, ntext };

	if (flags & FTS5_TOKENIZE_QUERY) {
		/*
		 * Queries are built by cc_kb_search() from tokens this
		 * tokenizer made: each quoted term is already an index term.
		 */
		int start = 0;

		for (int i = 0; i <= ntext; i++)
			if (i == ntext || text[i] == ' ') {
				if (i > start) {
					int rc = xToken(ctx, 0, text + start,
					    i - start, start, i);
					if (rc != SQLITE_OK)
						return rc;
				}
				start = i + 1;
			}
		return SQLITE_OK;
	}
	return cc_kb_tokenize(text, (size_t)ntext, 0, fts_token, &c);
}

/*
 * The share of the query's terms a passage holds: bm25 is multiplied by it
 * (Lucene's classic "coord"), so a passage that answers several words of
 * the question beats one that repeats a single word.
 */
static void
fts_coord(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
    int nval, sqlite3_value **val)
{
	int np = api->xPhraseCount(fts), hit = 0, core = 0;
	/* the first ncore phrases are the query's own terms; the rest (the
	   ends of kanji runs) only support them: alone they do not count */
	int ncore = nval > 0 ? sqlite3_value_int(val[0]) : np;

	for (int i = 0; i < np; i++) {
		Fts5PhraseIter it;
		int col = -1, off;

		if (api->xPhraseFirst(fts, i, &it, &col, &off) == SQLITE_OK &&
		    col >= 0) {
			hit++;
			core += i < ncore;
		}
	}
	sqlite3_result_double(ctx, !core ? 0.0 : np ? (double)hit / np : 1.0);
}

static fts5_api *
fts5_of(sqlite3 *db)
{
	fts5_api *api = NULL;
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
	sqlite3_step(st);
	sqlite3_finalize(st);
	return api && api->iVersion >= 2 ? api : NULL;
}

/* ---------------------------------------------------------------------- */
/* the index */

struct vec {
	sqlite3_int64 rowid;
	float *v;		/* normalised to unit length */
};

struct cc_kb {
	sqlite3 *db;
	int readonly;
	char err[512];
	sqlite3_stmt *bm25, *bm25_all, *meta, *detail, *version, *vocab;
	sqlite3_stmt *meta_get;	/* kb_meta's value of a key: once prepared */
	long long npassages;	/* -1 until the first search */
	struct vec *vecs;	/* loaded on the first vector search */
	size_t nvecs;
	int dim;
	char *vec_model;
	struct cc_buf match;	/* the MATCH expression being built */
	int ncore;		/* its phrases that are not supporting ones */
	/* SQLite's Porter stemmer over "cc", to stem query terms as the
	   index does (the table is tokenize='porter cc') */
	fts5_tokenizer porter;
	Fts5Tokenizer *stemmer;
};

static void
set_err(struct cc_kb *kb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
set_err(struct cc_kb *kb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(kb->err, sizeof kb->err, fmt, ap);
	va_end(ap);
}

const char *
cc_kb_error(const struct cc_kb *kb)
{
	return kb->err;
}

static int
exec(struct cc_kb *kb, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(kb->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		set_err(kb, "%s", msg ? msg : sqlite3_errmsg(kb->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static sqlite3_stmt *
prepare(struct cc_kb *kb, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(kb->db, sql, -1, &st, NULL) != SQLITE_OK) {
		set_err(kb, "%s", sqlite3_errmsg(kb->db));
		return NULL;
	}
	return st;
}

/*
 * *st, prepared at its first use: a cold question runs one of the two
 * bm25 statements and no vectors, and preparing the four that a search
 * may use cost it a quarter of a million instructions (issue 16).
 */
static sqlite3_stmt *
lazy(struct cc_kb *kb, sqlite3_stmt **st, const char *sql)
{
	if (!*st)
		*st = prepare(kb, sql);
	return *st;
}

/* The statements a reader prepares at their first use, and ahead (below). */
static const char sql_meta_get[] = "SELECT value FROM kb_meta WHERE key = ?1";
static const char sql_version[] = "PRAGMA data_version";
static const char sql_detail[] = "SELECT id, title, body, language, category,"
    " request_types FROM kb_passages WHERE rowid = ?1";
static const char sql_bm25_all[] = "SELECT f.rowid, f.s, p.language, p.category,"
    " p.request_types FROM (SELECT rowid, bm25(kb_fts, ?3, ?4, ?5)"
    " AS s FROM kb_fts WHERE kb_fts MATCH ?1 ORDER BY s LIMIT ?2)"
    " AS f JOIN kb_passages AS p ON p.rowid = f.rowid ORDER BY f.s";
static const char sql_bm25[] = "SELECT f.rowid, f.s, p.language, p.category,"
    " p.request_types FROM (SELECT rowid, bm25(kb_fts, ?3, ?4, ?5)"
    " * cc_coord(kb_fts, ?6) AS s FROM kb_fts WHERE kb_fts MATCH ?1 ORDER BY s LIMIT ?2)"
    " AS f JOIN kb_passages AS p ON p.rowid = f.rowid ORDER BY f.s";

/* mkdir -p of the directory part of path. */
static int
make_parent(const char *path)
{
	char *p = cc_xstrdup(path), *s;
	int r = 0;

	for (s = p + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			r = -1;
			break;
		}
		*s = '/';
	}
	free(p);
	return r;
}

/*
 * Switch to WAL.  Two processes creating the database at once can get
 * SQLITE_BUSY here without the busy handler being asked (SQLite avoids a
 * deadlock), so wait and try again, for up to about ten seconds.
 */
static int
set_wal(struct cc_kb *kb)
{
	for (int tries = 0;; tries++) {
		char *msg = NULL;
		int rc = sqlite3_exec(kb->db, "PRAGMA journal_mode=WAL", NULL, NULL,
		    &msg);

		sqlite3_free(msg);
		if (rc == SQLITE_OK)
			return 0;
		if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || tries == 200) {
			set_err(kb, "%s", sqlite3_errmsg(kb->db));
			return -1;
		}
		usleep(50000);
	}
}

struct cc_kb *
cc_kb_open(const char *path, int flags, char *err, size_t errlen)
{
	struct cc_kb *kb = calloc(1, sizeof *kb);
	int oflags = (flags & CC_KB_READONLY) ? SQLITE_OPEN_READONLY :
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	if (!kb)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	kb->readonly = !!(flags & CC_KB_READONLY);
	kb->npassages = -1;
	if (!kb->readonly && make_parent(path) < 0) {
		snprintf(err, errlen, "cannot create the directory of '%s': %s",
		    path, strerror(errno));
		free(kb);
		return NULL;
	}
	if (sqlite3_open_v2(path, &kb->db, oflags | SQLITE_OPEN_NOMUTEX,
	    NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
		    kb->db ? sqlite3_errmsg(kb->db) : "out of memory");
		sqlite3_close(kb->db);
		free(kb);
		return NULL;
	}
	sqlite3_busy_timeout(kb->db, 60000);
	{
		static fts5_tokenizer tk = { fts_create, fts_delete, fts_tokenize };
		fts5_api *api = fts5_of(kb->db);
		void *ud = NULL;
		const char *parent[] = { "cc" };

		if (!api || api->xCreateTokenizer(api, "cc", NULL, &tk, NULL) ||
		    api->xCreateFunction(api, "cc_coord", NULL, fts_coord, NULL) ||
		    api->xFindTokenizer(api, "porter", &ud, &kb->porter) ||
		    kb->porter.xCreate(ud, parent, 1, &kb->stemmer)) {
			snprintf(err, errlen, "this SQLite has no FTS5");
			kb->stemmer = NULL;
			cc_kb_close(kb);
			return NULL;
		}
	}
	if (!kb->readonly) {
		int one = 1;

		/*
		 * Keep the -wal and -shm files when the writer closes: a
		 * read-only connection without them rebuilds the WAL index in
		 * heap memory for every transaction, which made each search
		 * several times slower.
		 */
		sqlite3_file_control(kb->db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
	}
	/*
	 * A reader maps the index rather than reading its pages with pread
	 * into page-cache slots on the heap, each a page the kernel zeroes
	 * first (issue 16: a cold question reads some thirty).  The index
	 * only grows in place (no VACUUM, no auto_vacuum), so no page of
	 * the mapping goes away under a reader while another process
	 * rebuilds it (tests/kb.test searches during rebuilds).
	 */
	if (kb->readonly)
		exec(kb, "PRAGMA mmap_size=268435456");
	if (!kb->readonly && (set_wal(kb) < 0 ||
	    exec(kb, "PRAGMA synchronous=NORMAL") < 0 ||
	    exec(kb, "PRAGMA journal_size_limit=4194304") < 0)) {
		snprintf(err, errlen, "cannot use '%s': %s", path, kb->err);
		cc_kb_close(kb);
		return NULL;
	}
	return kb;
}

void
cc_kb_close(struct cc_kb *kb)
{
	if (!kb)
		return;
	sqlite3_finalize(kb->bm25);
	sqlite3_finalize(kb->bm25_all);
	sqlite3_finalize(kb->meta);
	sqlite3_finalize(kb->meta_get);
	sqlite3_finalize(kb->detail);
	sqlite3_finalize(kb->version);
	sqlite3_finalize(kb->vocab);
	for (size_t i = 0; i < kb->nvecs; i++)
		free(kb->vecs[i].v);
	free(kb->vecs);
	free(kb->vec_model);
	cc_buf_release(&kb->match);
	if (kb->stemmer)
		kb->porter.xDelete(kb->stemmer);
	sqlite3_close(kb->db);
	free(kb);
}

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS kb_meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS kb_files(path TEXT PRIMARY KEY,"
	"  mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS kb_passages(rowid INTEGER PRIMARY KEY,"
	"  id TEXT NOT NULL UNIQUE, file TEXT NOT NULL, line INTEGER,"
	"  title TEXT NOT NULL, tags TEXT NOT NULL, body TEXT NOT NULL,"
	"  language TEXT NOT NULL, category TEXT NOT NULL,"
	"  request_types TEXT NOT NULL, hash TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS kb_passages_file ON kb_passages(file);"
	"CREATE VIRTUAL TABLE IF NOT EXISTS kb_fts USING fts5(title, tags, body,"
	"  content='kb_passages', content_rowid='rowid', tokenize='porter cc');"
	"CREATE VIRTUAL TABLE IF NOT EXISTS kb_vocab USING fts5vocab(kb_fts, row);"
	"CREATE VIRTUAL TABLE IF NOT EXISTS kb_vocab USING fts5vocab(kb_fts, row);"
	"CREATE TABLE IF NOT EXISTS kb_vectors(model TEXT NOT NULL,"
	"  hash TEXT NOT NULL, dim INTEGER NOT NULL, v BLOB NOT NULL,"
	"  PRIMARY KEY(model, hash));";

static const char drop[] =
	"DROP TABLE IF EXISTS kb_vocab; DROP TABLE IF EXISTS kb_fts; DROP TABLE IF EXISTS kb_passages;"
	"DROP TABLE IF EXISTS kb_files; DROP TABLE IF EXISTS kb_vectors;"
	"DROP TABLE IF EXISTS kb_meta;";

/* The value of a meta key as a fresh string, or NULL. */
static char *
meta_get(struct cc_kb *kb, const char *key)
{
	sqlite3_stmt *st = kb->meta_get;
	char *v = NULL;

	/*
	 * Prepared once: opening the index reads three keys, and preparing
	 * the statement each time was 5% of a cold question (issue 16).
	 */
	if (!st && sqlite3_prepare_v2(kb->db, sql_meta_get, -1, &st, NULL) != SQLITE_OK)
		return NULL;	/* no table yet */
	kb->meta_get = st;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = cc_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return v;
}

static int
meta_set(struct cc_kb *kb, const char *key, const char *value)
{
	sqlite3_stmt *st = prepare(kb,
	    "INSERT OR REPLACE INTO kb_meta(key, value) VALUES(?1, ?2)");
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		set_err(kb, "%s", sqlite3_errmsg(kb->db));
		return -1;
	}
	return 0;
}

/* ---- the documents on disk ---- */

struct file {
	char *path;
	long long mtime_ns, size;
	int state;		/* 0 new or changed, 1 unchanged */
};

struct files {
	struct file *v;
	size_t n, cap;
};

static void
files_release(struct files *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->v[i].path);
	free(fs->v);
	memset(fs, 0, sizeof *fs);
}

static int
ends_md(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && strcmp(name + n - 3, ".md") == 0;
}

/* Collect the *.md files under dir (recursively, no dot files). */
static int
scan_dir(struct cc_kb *kb, const char *dir, struct files *fs, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		set_err(kb, "cannot read the directory '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(dir) + strlen(e->d_name) + 2;
		char *p;
		struct stat sb;

		if (e->d_name[0] == '.')
			continue;
		p = cc_xmalloc(n);
		snprintf(p, n, "%s/%s", dir, e->d_name);
		if (stat(p, &sb) < 0) {
			free(p);
			continue;
		}
		if (S_ISDIR(sb.st_mode) && depth < 8) {
			int r = scan_dir(kb, p, fs, depth + 1);

			free(p);
			if (r < 0) {
				closedir(d);
				return -1;
			}
			continue;
		}
		if (!S_ISREG(sb.st_mode) || !ends_md(e->d_name)) {
			free(p);
			continue;
		}
		if (fs->n == fs->cap) {
			fs->cap = fs->cap ? fs->cap * 2 : 32;
			fs->v = cc_xrealloc(fs->v, fs->cap * sizeof *fs->v);
		}
		fs->v[fs->n++] = (struct file){ p,
		    (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec,
		    (long long)sb.st_size, 0 };
	}
	closedir(d);
	return 0;
}

static int
cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct file *)a)->path, ((const struct file *)b)->path);
}

static int
scan(struct cc_kb *kb, const char *const *dirs, size_t ndirs, struct files *fs)
{
	for (size_t i = 0; i < ndirs; i++) {
		char *real = realpath(dirs[i], NULL);
		int r;

		if (!real) {
			set_err(kb, "cannot read the directory '%s': %s", dirs[i],
			    strerror(errno));
			return -1;
		}
		r = scan_dir(kb, real, fs, 0);
		free(real);
		if (r < 0)
			return -1;
	}
	qsort(fs->v, fs->n, sizeof *fs->v, cmp_file);
	return 0;
}

/* Mark the files whose row in kb_files matches; count the differences. */
static long
compare_files(struct cc_kb *kb, struct files *fs)
{
	sqlite3_stmt *st;
	long changed = 0;

	if (sqlite3_prepare_v2(kb->db, "SELECT path, mtime_ns, size FROM kb_files",
	    -1, &st, NULL) != SQLITE_OK)
		return (long)fs->n + 1;		/* no index yet */
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct file key = { (char *)sqlite3_column_text(st, 0), 0, 0, 0 };
		struct file *f = key.path ? bsearch(&key, fs->v, fs->n,
		    sizeof *fs->v, cmp_file) : NULL;

		if (f && f->mtime_ns == sqlite3_column_int64(st, 1) &&
		    f->size == sqlite3_column_int64(st, 2))
			f->state = 1;
		else
			changed++;	/* changed or removed */
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].state == 0)
			changed++;
	return changed;
}

static int
format_ok(struct cc_kb *kb, const char *embed_model)
{
	char *fmt = meta_get(kb, "format");
	char *model = meta_get(kb, "embed_model");
	/* vectors of another model are stale only to a reader that has a
	   model: keyword search ignores them */
	int ok = fmt && strcmp(fmt, KB_FORMAT) == 0 && (!embed_model ||
	    strcmp(model ? model : "", embed_model) == 0);

	free(fmt);
	free(model);
	return ok;
}

int
cc_kb_stale(struct cc_kb *kb, const char *const *dirs, size_t ndirs,
    const char *embed_model)
{
	struct files fs = {0};
	long changed;

	if (!format_ok(kb, embed_model))
		return 1;
	if (scan(kb, dirs, ndirs, &fs) < 0) {
		files_release(&fs);
		return -1;
	}
	changed = compare_files(kb, &fs);
	files_release(&fs);
	return changed > 0;
}

/* ---- building ---- */

static void
hash_hex(const char *title, const char *body, char out[17])
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *p = title; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ '\n') * 1099511628211ULL;
	for (const char *p = body; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* Delete the passages of one file from the passages and the FTS index. */
static int
delete_file(struct cc_kb *kb, const char *path, struct cc_kb_build_stats *st)
{
	sqlite3_stmt *sel = prepare(kb, "SELECT rowid, title, tags, body "
	    "FROM kb_passages WHERE file = ?1");
	sqlite3_stmt *del = prepare(kb, "INSERT INTO kb_fts(kb_fts, rowid, "
	    "title, tags, body) VALUES('delete', ?1, ?2, ?3, ?4)");
	sqlite3_stmt *rm = prepare(kb, "DELETE FROM kb_passages WHERE file = ?1");
	int rc = -1;

	if (!sel || !del || !rm)
		goto out;
	sqlite3_bind_text(sel, 1, path, -1, SQLITE_STATIC);
	while (sqlite3_step(sel) == SQLITE_ROW) {
		for (int c = 0; c < 4; c++)
			sqlite3_bind_value(del, c + 1, sqlite3_column_value(sel, c));
		if (sqlite3_step(del) != SQLITE_DONE) {
			set_err(kb, "%s", sqlite3_errmsg(kb->db));
			goto out;
		}
		sqlite3_reset(del);
		st->removed++;
	}
	sqlite3_bind_text(rm, 1, path, -1, SQLITE_STATIC);
	if (sqlite3_step(rm) != SQLITE_DONE) {
		set_err(kb, "%s", sqlite3_errmsg(kb->db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(del);
	sqlite3_finalize(rm);
	return rc;
}

struct inserter {
	sqlite3_stmt *doc, *fts, *file;
};

static int
insert_file(struct cc_kb *kb, struct inserter *ins, struct file *f,
    struct cc_kb_build_stats *st)
{
	struct cc_kbdoc_file df = {0};

	cc_kbdoc_load(&df, f->path);
	st->problems += df.problems;
	for (size_t i = 0; i < df.n; i++) {
		struct cc_kbdoc *d = &df.docs[i];
		char hash[17];
		int rc;

		hash_hex(d->title, d->body, hash);
		sqlite3_bind_text(ins->doc, 1, d->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins->doc, 2, f->path, -1, SQLITE_STATIC);
		sqlite3_bind_int(ins->doc, 3, (int)d->line);
		sqlite3_bind_text(ins->doc, 4, d->title, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins->doc, 5, d->tags, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins->doc, 6, d->body, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins->doc, 7, d->language, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins->doc, 8, d->category, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins->doc, 9, d->request_types, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins->doc, 10, hash, -1, SQLITE_STATIC);
		rc = sqlite3_step(ins->doc);
		sqlite3_reset(ins->doc);
		if (rc == SQLITE_CONSTRAINT) {
			cc_warn("%s:%u: id '%s' is used by another passage: "
			    "skipped", f->path, d->line, d->id);
			st->problems++;
			continue;
		}
		if (rc != SQLITE_DONE) {
			set_err(kb, "%s", sqlite3_errmsg(kb->db));
			cc_kbdoc_file_release(&df);
			return -1;
		}
		sqlite3_bind_int64(ins->fts, 1, sqlite3_last_insert_rowid(kb->db));
		sqlite3_bind_text(ins->fts, 2, d->title, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins->fts, 3, d->tags, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins->fts, 4, d->body, -1, SQLITE_STATIC);
		rc = sqlite3_step(ins->fts);
		sqlite3_reset(ins->fts);
		if (rc != SQLITE_DONE) {
			set_err(kb, "%s", sqlite3_errmsg(kb->db));
			cc_kbdoc_file_release(&df);
			return -1;
		}
		st->added++;
	}
	cc_kbdoc_file_release(&df);
	sqlite3_bind_text(ins->file, 1, f->path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins->file, 2, f->mtime_ns);
	sqlite3_bind_int64(ins->file, 3, f->size);
	if (sqlite3_step(ins->file) != SQLITE_DONE) {
		set_err(kb, "%s", sqlite3_errmsg(kb->db));
		sqlite3_reset(ins->file);
		return -1;
	}
	sqlite3_reset(ins->file);
	return 0;
}

/* Embed the passages that have no vector for this model yet. */
static int
embed_missing(struct cc_kb *kb, const struct cc_kb_embedder *em,
    struct cc_kb_build_stats *st)
{
	sqlite3_stmt *sel = prepare(kb, "SELECT DISTINCT p.hash, p.title, p.body "
	    "FROM kb_passages p WHERE NOT EXISTS (SELECT 1 FROM kb_vectors v "
	    "WHERE v.model = ?1 AND v.hash = p.hash) ORDER BY p.hash");
	sqlite3_stmt *ins = prepare(kb, "INSERT OR REPLACE INTO kb_vectors"
	    "(model, hash, dim, v) VALUES(?1, ?2, ?3, ?4)");
	enum { BATCH = 32 };
	char *hashes[BATCH], *texts[BATCH];
	size_t n = 0;
	int rc = 0, done = 0;

	if (!sel || !ins) {
		sqlite3_finalize(sel);
		sqlite3_finalize(ins);
		return -1;
	}
	sqlite3_bind_text(sel, 1, em->model, -1, SQLITE_STATIC);
	while (!done && rc == 0) {
		int step = sqlite3_step(sel);

		if (step == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(sel, 1);
			const char *b = (const char *)sqlite3_column_text(sel, 2);
			size_t len = strlen(t) + strlen(b) + 2;

			hashes[n] = cc_xstrdup((const char *)sqlite3_column_text(sel, 0));
			texts[n] = cc_xmalloc(len);
			snprintf(texts[n], len, "%s\n%s", t, b);
			n++;
		} else {
			done = 1;
		}
		if (n == BATCH || (done && n > 0)) {
			float *v = NULL;
			int dim = 0;
			char err[256] = "";

			if (em->embed(em->ctx, (const char *const *)texts, n, &v,
			    &dim, err, sizeof err) < 0) {
				snprintf(st->embed_error, sizeof st->embed_error,
				    "%s", err);
				rc = 1;
			}
			for (size_t i = 0; i < n && rc == 0; i++) {
				sqlite3_bind_text(ins, 1, em->model, -1, SQLITE_STATIC);
				sqlite3_bind_text(ins, 2, hashes[i], -1, SQLITE_STATIC);
				sqlite3_bind_int(ins, 3, dim);
				sqlite3_bind_blob(ins, 4, v + i * (size_t)dim,
				    (int)(sizeof *v * (size_t)dim), SQLITE_STATIC);
				if (sqlite3_step(ins) != SQLITE_DONE) {
					set_err(kb, "%s", sqlite3_errmsg(kb->db));
					rc = -1;
				}
				sqlite3_reset(ins);
				st->vectors++;
			}
			free(v);
			for (size_t i = 0; i < n; i++) {
				free(hashes[i]);
				free(texts[i]);
			}
			n = 0;
		}
	}
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	if (rc == 0 && exec(kb, "DELETE FROM kb_vectors WHERE hash NOT IN "
	    "(SELECT hash FROM kb_passages)") < 0)
		return -1;
	return rc;
}

int
cc_kb_build(struct cc_kb *kb, const char *const *dirs, size_t ndirs,
    const struct cc_kb_embedder *em, int force, struct cc_kb_build_stats *st)
{
	struct files fs = {0};
	struct inserter ins = {0};
	struct timeval t0, t1;
	sqlite3_stmt *gone = NULL;
	struct cc_buf dirlist = {0};
	int rc = -1;

	memset(st, 0, sizeof *st);
	gettimeofday(&t0, NULL);
	if (kb->readonly) {
		set_err(kb, "the index is open read-only");
		return -1;
	}
	if (scan(kb, dirs, ndirs, &fs) < 0)
		return -1;
	for (size_t i = 0; i < ndirs; i++) {
		char *real = realpath(dirs[i], NULL);

		if (i)
			cc_buf_add(&dirlist, "\n", 1);
		cc_buf_add(&dirlist, real ? real : dirs[i],
		    strlen(real ? real : dirs[i]));
		free(real);
	}
	/* one writer at a time; readers go on seeing the last commit (WAL) */
	if (exec(kb, "BEGIN IMMEDIATE") < 0)
		goto out;
	if (force || !format_ok(kb, em ? em->model : NULL)) {
		char *fmt = meta_get(kb, "format");

		/* the embedding model alone changing keeps the passages */
		if (force || !fmt || strcmp(fmt, KB_FORMAT) != 0)
			if (exec(kb, drop) < 0)
				goto rollback;
		free(fmt);
	}
	if (exec(kb, schema) < 0)
		goto rollback;
	compare_files(kb, &fs);
	/* first remove what changed or went away, then insert, so an id
	   that moves from one file to another is free when it is needed */
	gone = prepare(kb, "SELECT path FROM kb_files");
	if (!gone)
		goto rollback;
	{
		struct files old = {0};

		while (sqlite3_step(gone) == SQLITE_ROW) {
			struct file key = { (char *)sqlite3_column_text(gone, 0),
			    0, 0, 0 };
			struct file *f = bsearch(&key, fs.v, fs.n, sizeof *fs.v,
			    cmp_file);

			if (f && f->state == 1)
				continue;
			if (old.n == old.cap) {
				old.cap = old.cap ? old.cap * 2 : 16;
				old.v = cc_xrealloc(old.v, old.cap * sizeof *old.v);
			}
			old.v[old.n++] = (struct file){ cc_xstrdup(key.path), 0, 0,
			    f ? 0 : -1 };
		}
		sqlite3_finalize(gone);
		gone = NULL;
		for (size_t i = 0; i < old.n; i++) {
			sqlite3_stmt *rmf = NULL;

			if (delete_file(kb, old.v[i].path, st) < 0) {
				files_release(&old);
				goto rollback;
			}
			if (old.v[i].state == -1) {
				rmf = prepare(kb, "DELETE FROM kb_files WHERE path = ?1");
				if (!rmf) {
					files_release(&old);
					goto rollback;
				}
				sqlite3_bind_text(rmf, 1, old.v[i].path, -1,
				    SQLITE_STATIC);
				sqlite3_step(rmf);
				sqlite3_finalize(rmf);
			}
		}
		files_release(&old);
	}
	ins.doc = prepare(kb, "INSERT INTO kb_passages(id, file, line, title, "
	    "tags, body, language, category, request_types, hash) "
	    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
	ins.fts = prepare(kb, "INSERT INTO kb_fts(rowid, title, tags, body) "
	    "VALUES(?1, ?2, ?3, ?4)");
	ins.file = prepare(kb, "INSERT OR REPLACE INTO kb_files(path, mtime_ns, "
	    "size) VALUES(?1, ?2, ?3)");
	if (!ins.doc || !ins.fts || !ins.file)
		goto rollback;
	for (size_t i = 0; i < fs.n; i++) {
		if (fs.v[i].state == 1) {
			st->files_kept++;
			continue;
		}
		st->files_changed++;
		if (insert_file(kb, &ins, &fs.v[i], st) < 0)
			goto rollback;
	}
	st->files = fs.n;
	if (em && embed_missing(kb, em, st) < 0)
		goto rollback;
	{
		char now[32];

		snprintf(now, sizeof now, "%lld", (long long)time(NULL));
		if (meta_set(kb, "format", KB_FORMAT) < 0 ||
		    (em && meta_set(kb, "embed_model", st->embed_error[0] ? "" :
		    em->model) < 0) ||
		    meta_set(kb, "built", now) < 0 ||
		    meta_set(kb, "dirs", dirlist.data ? dirlist.data : "") < 0)
			goto rollback;
	}
	if (st->files_changed + st->removed > 0 &&
	    exec(kb, "INSERT INTO kb_fts(kb_fts) VALUES('optimize')") < 0)
		goto rollback;
	if (exec(kb, "COMMIT") < 0)
		goto rollback;
	/* fold the WAL back into the database and shrink it: best effort,
	   readers may hold it */
	sqlite3_exec(kb->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	{
		sqlite3_stmt *c = prepare(kb, "SELECT count(*) FROM kb_passages");

		if (c && sqlite3_step(c) == SQLITE_ROW)
			st->passages = (size_t)sqlite3_column_int64(c, 0);
		sqlite3_finalize(c);
	}
	rc = 0;
	goto out;
rollback:
	sqlite3_exec(kb->db, "ROLLBACK", NULL, NULL, NULL);
out:
	sqlite3_finalize(gone);
	sqlite3_finalize(ins.doc);
	sqlite3_finalize(ins.fts);
	sqlite3_finalize(ins.file);
	files_release(&fs);
	cc_buf_release(&dirlist);
	gettimeofday(&t1, NULL);
	st->seconds = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_usec - t0.tv_usec) / 1e6;
	/* the deletions counted passages of changed files too */
	return rc;
}

/* ---------------------------------------------------------------------- */
/* search */

struct qterms {
	char *buf;		/* the terms, NUL-separated */
	size_t len, cap;
	size_t n;
	size_t off[MAX_QUERY_TERMS];
	int kind[MAX_QUERY_TERMS];
};

static int
add_term(void *ctx, const char *tok, size_t n, int kind, int colocated)
{
	struct qterms *q = ctx;

	if (q->n == MAX_QUERY_TERMS)
		return 1;	/* enough: stop tokenizing */
	for (size_t i = 0; i < q->n; i++)
		if (strlen(q->buf + q->off[i]) == n &&
		    memcmp(q->buf + q->off[i], tok, n) == 0)
			return 0;
	if (q->len + n + 1 > q->cap) {
		q->cap = (q->len + n + 1) * 2;
		q->buf = cc_xrealloc(q->buf, q->cap);
	}
	q->off[q->n] = q->len;
	q->kind[q->n++] = kind;
	memcpy(q->buf + q->len, tok, n);
	q->len += n;
	q->buf[q->len++] = '\0';
	return 0;
}

/* Terms above this share of the passages are dropped from large indexes. */
#define PRUNE_MIN_PASSAGES 2000
#define PRUNE_MAX_SHARE 0.05
#define PRUNE_KEEP 3

struct dfterm {
	const char *t;		/* the term as the query has it */
	int edge;		/* an end of a kanji run: supports only */
	char form[256];		/* as the index has it */
	long long df;
};

static int
cmp_df(const void *a, const void *b)
{
	long long x = ((const struct dfterm *)a)->df, y = ((const struct dfterm *)b)->df;

	return x < y ? -1 : x > y;
}

struct stemmed {
	char buf[256];
	int n;
};

static int
stem_cb(void *ctx, int tflags, const char *tok, int n, int start, int end)
{
	struct stemmed *c = ctx;

	if (c->n < 0 && n < (int)sizeof c->buf) {
		memcpy(c->buf, tok, (size_t)n);
		c->buf[n] = '\0';
		c->n = n;
	}
	return SQLITE_OK;
}

/* The index form of a query term (Porter-stemmed if it is a word). */
static const char *
index_term(struct cc_kb *kb, const char *t, struct stemmed *c)
{
	c->n = -1;
	kb->porter.xTokenize(kb->stemmer, c, FTS5_TOKENIZE_QUERY, t,
	    (int)strlen(t), stem_cb);
	return c->n >= 0 ? c->buf : t;
}

/* How many passages hold the term; -1 if it cannot be told. */
static long long
doc_freq(struct cc_kb *kb, const char *term)
{
	long long df = -1;

	if (!kb->vocab && !(kb->vocab = prepare(kb,
	    "SELECT doc FROM kb_vocab WHERE term = ?1")))
		return -1;
	sqlite3_bind_text(kb->vocab, 1, term, -1, SQLITE_STATIC);
	df = sqlite3_step(kb->vocab) == SQLITE_ROW ?
	    sqlite3_column_int64(kb->vocab, 0) : 0;
	sqlite3_reset(kb->vocab);
	return df;
}

/*
 * The FTS5 expression of a query.  On a large index (kb given), terms
 * that no passage holds are left out, and so are very common ones (more
 * than PRUNE_MAX_SHARE of the passages) beyond the PRUNE_KEEP rarest:
 * they barely change the ranking but make bm25() score most of the index.
 */
static size_t
build_match(struct cc_kb *kb, const char *text, size_t len, struct cc_buf *out,
    const char *op, int *ncore)
{
	struct qterms q = {0};
	struct dfterm t[MAX_QUERY_TERMS];
	size_t n = 0, nt = 0;
	/* long inputs: the first few thousand bytes say what is asked */
	size_t cap = len > 4096 ? 4096 : len;
	int prune = kb && kb->npassages >= PRUNE_MIN_PASSAGES;

	while (cap < len && cap > 0 && ((unsigned char)text[cap] & 0xC0) == 0x80)
		cap--;
	cc_kb_tokenize(text, cap, CC_KB_TOKENIZE_QUERY, add_term, &q);
	for (size_t i = 0; i < q.n; i++) {
		struct stemmed st;
		const char *form;
		size_t k;

		/* verb endings and particles after kanji: 開いて, 予約できますか */
		if (q.kind[i] == CC_KB_TOKEN_OKURIGANA)
			continue;
		t[nt].t = q.buf + q.off[i];
		if (kb) {
			/* one term per index form: "book" and "booking" are one */
			form = index_term(kb, t[nt].t, &st);
			for (k = 0; k < nt && strcmp(t[k].form, form) != 0; k++)
				;
			if (k < nt)
				continue;
			snprintf(t[nt].form, sizeof t[nt].form, "%s", form);
		}
		/* on a large index the ends of kanji runs are too common */
		if (prune && q.kind[i] == CC_KB_TOKEN_HAN_EDGE)
			continue;
		t[nt].edge = q.kind[i] == CC_KB_TOKEN_HAN_EDGE;
		t[nt].df = prune ? doc_freq(kb, t[nt].form) : 0;
		if (prune && t[nt].df == 0)
			continue;
		nt++;
	}
	if (prune)
		qsort(t, nt, sizeof *t, cmp_df);
	else	/* the query's own terms first, then the supporting ones */
		for (size_t i = 0, k = 0; i < nt; i++)
			if (!t[i].edge) {
				struct dfterm x = t[i];

				memmove(&t[k + 1], &t[k], (i - k) * sizeof *t);
				t[k++] = x;
			}
	for (size_t i = 0; i < nt; i++) {
		if (prune && i >= PRUNE_KEEP &&
		    (double)t[i].df > PRUNE_MAX_SHARE * (double)kb->npassages)
			break;
		if (!t[i].edge && ncore)
			(*ncore)++;
		if (n++)
			cc_buf_add(out, op, strlen(op));
		cc_buf_add(out, "\"", 1);
		cc_buf_add(out, t[i].t, strlen(t[i].t));
		cc_buf_add(out, "\"", 1);
	}
	free(q.buf);
	return n;
}

size_t
cc_kb_query_terms(const char *text, size_t len, struct cc_buf *out)
{
	return build_match(NULL, text, len, out, " OR ", NULL);
}

struct cand {
	sqlite3_int64 rowid;
	double score;		/* bigger is better */
	int bm25_rank, vec_rank;	/* from 1; 0: not in that list */
	double bm25;
	int other_lang;
};

static int
has_item(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t k = e ? (size_t)(e - p) : strlen(p);

		if (k == n && memcmp(p, item, n) == 0)
			return 1;
		p = e ? e + 1 : p + k;
	}
	return 0;
}

static int
cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->other_lang != y->other_lang)
		return x->other_lang - y->other_lang;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

static int
load_vectors(struct cc_kb *kb, const char *model)
{
	sqlite3_stmt *st;

	if (kb->vec_model && strcmp(kb->vec_model, model) == 0)
		return 0;
	for (size_t i = 0; i < kb->nvecs; i++)
		free(kb->vecs[i].v);
	free(kb->vecs);
	kb->vecs = NULL;
	kb->nvecs = 0;
	free(kb->vec_model);
	kb->vec_model = cc_xstrdup(model);
	st = prepare(kb, "SELECT p.rowid, v.dim, v.v FROM kb_passages p "
	    "JOIN kb_vectors v ON v.hash = p.hash AND v.model = ?1");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, model, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int dim = sqlite3_column_int(st, 1);
		const float *v = sqlite3_column_blob(st, 2);
		double norm = 0;
		float *copy;

		if (dim <= 0 || sqlite3_column_bytes(st, 2) != dim * (int)sizeof(float))
			continue;
		if (kb->dim && dim != kb->dim)
			continue;
		kb->dim = dim;
		copy = cc_xmalloc(sizeof *copy * (size_t)dim);
		for (int i = 0; i < dim; i++)
			norm += (double)v[i] * v[i];
		norm = norm > 0 ? sqrt(norm) : 1;
		for (int i = 0; i < dim; i++)
			copy[i] = (float)(v[i] / norm);
		kb->vecs = cc_xrealloc(kb->vecs, (kb->nvecs + 1) * sizeof *kb->vecs);
		kb->vecs[kb->nvecs++] = (struct vec){ sqlite3_column_int64(st, 0), copy };
	}
	sqlite3_finalize(st);
	return 0;
}

static int
cmp_sim(const void *a, const void *b)
{
	double x = ((const double *)a)[1], y = ((const double *)b)[1];

	return x > y ? -1 : x < y;
}

static char *
col_dup(sqlite3_stmt *st, int c)
{
	const unsigned char *s = sqlite3_column_text(st, c);

	return cc_xstrdup(s ? (const char *)s : "");
}

/*
 * Run kb->match through bm25 into c[0..pool); *nc is set.  all: the
 * expression is an AND, every passage holds every term, and the share of
 * terms held need not be computed.
 */
static int
bm25_candidates(struct cc_kb *kb, const struct cc_kb_query *q, struct cand *c,
    size_t pool, size_t *nc, int all)
{
	sqlite3_stmt *st = all ? lazy(kb, &kb->bm25_all, sql_bm25_all) :
	    lazy(kb, &kb->bm25, sql_bm25);
	int rc;

	*nc = 0;
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, kb->match.data, (int)kb->match.len,
	    SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)pool);
	sqlite3_bind_double(st, 3, W_TITLE);
	sqlite3_bind_double(st, 4, W_TAGS);
	sqlite3_bind_double(st, 5, W_BODY);
	if (!all)
		sqlite3_bind_int(st, 6, kb->ncore);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *nc < pool) {
		const char *lang = (const char *)sqlite3_column_text(st, 2);
		const char *cat = (const char *)sqlite3_column_text(st, 3);
		const char *rts = (const char *)sqlite3_column_text(st, 4);
		struct cand *x;

		if (sqlite3_column_double(st, 1) == 0)
			continue;	/* matched by supporting terms only */
		x = &c[(*nc)++];
		x->rowid = sqlite3_column_int64(st, 0);
		x->bm25 = -sqlite3_column_double(st, 1);
		x->bm25_rank = (int)*nc;
		x->vec_rank = 0;
		x->score = x->bm25;
		x->other_lang = q->language && lang && strcmp(lang, q->language) != 0;
		if (q->category && cat && strcmp(cat, q->category) == 0)
			x->score *= BOOST_CATEGORY;
		if (q->request_type && has_item(rts, q->request_type))
			x->score *= BOOST_REQUEST_TYPE;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		set_err(kb, "search failed: %s", sqlite3_errmsg(kb->db));
		return -1;
	}
	return 0;
}

int
cc_kb_search(struct cc_kb *kb, const struct cc_kb_query *q, struct cc_kb_hits *out)
{
	struct cand *c = NULL;
	size_t nc = 0, cap = 0, want = q->limit ? q->limit : 10;
	size_t pool = want * 5 > 50 ? want * 5 : 50;
	size_t nterms;

	cc_kb_hits_clear(out);
	kb->match.len = 0;
	if (kb->npassages < 0) {
		sqlite3_stmt *st = prepare(kb, "SELECT count(*) FROM kb_passages");

		kb->npassages = st && sqlite3_step(st) == SQLITE_ROW ?
		    sqlite3_column_int64(st, 0) : 0;
		sqlite3_finalize(st);
	}
	kb->ncore = 0;
	nterms = build_match(kb, q->text, q->len, &kb->match, " OR ", &kb->ncore);
	if (!lazy(kb, &kb->detail, sql_detail))
		return -1;
	cap = pool * 2;
	c = cc_xmalloc(cap * sizeof *c);
	if (nterms > 1 && kb->npassages >= PRUNE_MIN_PASSAGES) {
		/*
		 * A large index: passages that hold every term come first in
		 * bm25 anyway, and there are far fewer of them to score.
		 * Only when they are too few is the whole OR query run.
		 */
		kb->match.len = 0;
		kb->ncore = 0;
		build_match(kb, q->text, q->len, &kb->match, " AND ", &kb->ncore);
		if (bm25_candidates(kb, q, c, pool, &nc, 1) < 0) {
			free(c);
			return -1;
		}
		if (nc < want) {
			nc = 0;
			kb->match.len = 0;
			kb->ncore = 0;
			build_match(kb, q->text, q->len, &kb->match, " OR ",
			    &kb->ncore);
		}
	}
	if (nterms > 0 && nc == 0 && bm25_candidates(kb, q, c, pool, &nc, 0) < 0) {
		free(c);
		return -1;
	}
	if (q->vector && q->model && load_vectors(kb, q->model) == 0 &&
	    kb->nvecs > 0 && q->dim == kb->dim) {
		double *sims, qn = 0;
		size_t nv = kb->nvecs < pool ? kb->nvecs : pool;

		if (!lazy(kb, &kb->meta, "SELECT language, category, request_types "
		    "FROM kb_passages WHERE rowid = ?1")) {
			free(c);
			return -1;
		}
		sims = cc_xmalloc(sizeof *sims * 2 * kb->nvecs);

		for (int i = 0; i < q->dim; i++)
			qn += (double)q->vector[i] * q->vector[i];
		qn = qn > 0 ? sqrt(qn) : 1;
		for (size_t i = 0; i < kb->nvecs; i++) {
			double dot = 0;

			for (int k = 0; k < kb->dim; k++)
				dot += (double)kb->vecs[i].v[k] * q->vector[k];
			sims[2 * i] = (double)i;
			sims[2 * i + 1] = dot / qn;
		}
		qsort(sims, kb->nvecs, 2 * sizeof *sims, cmp_sim);
		/* reciprocal rank fusion of the two rankings */
		for (size_t i = 0; i < nc; i++)
			c[i].score = 0;
		for (size_t r = 0; r < nv; r++) {
			sqlite3_int64 rowid = kb->vecs[(size_t)sims[2 * r]].rowid;
			size_t k;

			for (k = 0; k < nc && c[k].rowid != rowid; k++)
				;
			if (k == nc) {
				if (nc == cap)
					break;
				c[nc] = (struct cand){ rowid, 0, 0, 0, 0, 0 };
				nc++;
			}
			c[k].vec_rank = (int)r + 1;
		}
		for (size_t i = 0; i < nc; i++) {
			struct cand *x = &c[i];
			const char *lang, *cat, *rts;

			x->score = (x->bm25_rank ? 1 / (RRF_K + x->bm25_rank) : 0) +
			    (x->vec_rank ? 1 / (RRF_K + x->vec_rank) : 0);
			sqlite3_bind_int64(kb->meta, 1, x->rowid);
			if (sqlite3_step(kb->meta) == SQLITE_ROW) {
				lang = (const char *)sqlite3_column_text(kb->meta, 0);
				cat = (const char *)sqlite3_column_text(kb->meta, 1);
				rts = (const char *)sqlite3_column_text(kb->meta, 2);
				x->other_lang = q->language && lang &&
				    strcmp(lang, q->language) != 0;
				if (q->category && cat && strcmp(cat, q->category) == 0)
					x->score *= BOOST_CATEGORY;
				if (q->request_type && has_item(rts, q->request_type))
					x->score *= BOOST_REQUEST_TYPE;
			}
			sqlite3_reset(kb->meta);
		}
		free(sims);
	}
	qsort(c, nc, sizeof *c, cmp_cand);
	if (nc > want)
		nc = want;
	if (out->cap < nc) {
		out->cap = nc;
		out->v = cc_xrealloc(out->v, out->cap * sizeof *out->v);
	}
	for (size_t i = 0; i < nc; i++) {
		struct cc_kb_hit *h = &out->v[out->n];

		sqlite3_bind_int64(kb->detail, 1, c[i].rowid);
		if (sqlite3_step(kb->detail) == SQLITE_ROW) {
			h->id = col_dup(kb->detail, 0);
			h->title = col_dup(kb->detail, 1);
			h->content = col_dup(kb->detail, 2);
			h->language = col_dup(kb->detail, 3);
			h->category = col_dup(kb->detail, 4);
			h->request_types = col_dup(kb->detail, 5);
			h->score = c[i].score;
			h->bm25 = c[i].bm25;
			out->n++;
		}
		sqlite3_reset(kb->detail);
	}
	free(c);
	return 0;
}

void
cc_kb_hits_clear(struct cc_kb_hits *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].id);
		free(h->v[i].title);
		free(h->v[i].content);
		free(h->v[i].language);
		free(h->v[i].category);
		free(h->v[i].request_types);
	}
	h->n = 0;
}

void
cc_kb_hits_release(struct cc_kb_hits *h)
{
	cc_kb_hits_clear(h);
	free(h->v);
	h->v = NULL;
	h->cap = 0;
}

/* ---------------------------------------------------------------------- */
/* inspection */

int
cc_kb_list(struct cc_kb *kb, int (*fn)(void *ctx, const struct cc_kb_hit *h),
    void *ctx)
{
	sqlite3_stmt *st = prepare(kb, "SELECT id, title, language, category, "
	    "request_types, file, line FROM kb_passages ORDER BY file, line");
	int rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cc_kb_hit h = {
			.id = (char *)sqlite3_column_text(st, 0),
			.title = (char *)sqlite3_column_text(st, 1),
			.language = (char *)sqlite3_column_text(st, 2),
			.category = (char *)sqlite3_column_text(st, 3),
			.request_types = (char *)sqlite3_column_text(st, 4),
			.content = (char *)sqlite3_column_text(st, 5),
			.score = sqlite3_column_int(st, 6),
		};
		if (fn(ctx, &h) != 0)
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int
cc_kb_stats(struct cc_kb *kb, struct cc_kb_stats *s)
{
	static const char *const sql[] = {
		"SELECT count(*) FROM kb_passages",
		"SELECT count(*) FROM kb_files",
		"SELECT count(*) FROM kb_passages WHERE language = 'ja'",
		"SELECT count(*) FROM kb_passages WHERE language = 'en'",
		"SELECT count(*) FROM kb_vectors",
		"SELECT count(DISTINCT category) FROM kb_passages",
	};
	long long *slot[] = { &s->passages, &s->files, &s->ja, &s->en,
	    &s->vectors, &s->categories };
	char *built;

	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
		sqlite3_stmt *st = prepare(kb, sql[i]);

		if (!st)
			return -1;
		if (sqlite3_step(st) == SQLITE_ROW)
			*slot[i] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	built = meta_get(kb, "built");
	s->built = built ? (time_t)strtoll(built, NULL, 10) : 0;
	free(built);
	s->embed_model = meta_get(kb, "embed_model");
	s->format = meta_get(kb, "format");
	return 0;
}

long long
cc_kb_version(struct cc_kb *kb)
{
	long long v = -1;

	if (!kb->version && !(kb->version = prepare(kb, sql_version)))
		return -1;
	if (sqlite3_step(kb->version) == SQLITE_ROW)
		v = sqlite3_column_int64(kb->version, 0);
	sqlite3_reset(kb->version);
	return v;
}

void
cc_kb_stats_release(struct cc_kb_stats *s)
{
	free(s->embed_model);
	free(s->format);
	s->embed_model = s->format = NULL;
}

/* ---------------------------------------------------------------------- */
/* where things are, and opening with a fresh index */

char *
cc_kb_default_db(const struct cc_config *cfg)
{
	const char *env = getenv("CC_KB_DB");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	size_t n;
	char *p;

	if (env && *env)
		return cc_xstrdup(env);
	if (!(xdg && *xdg == '/')) {
		xdg = NULL;
		if (!home || !*home)
			home = ".";
	}
	n = strlen(xdg ? xdg : home) + strlen(cfg->domain) + 64;
	p = cc_xmalloc(n);
	snprintf(p, n, "%s%s/concierge/kb-%s.sqlite", xdg ? xdg : home,
	    xdg ? "" : "/.cache", cfg->domain);
	return p;
}

/*
 * The index opened ahead, on a second thread, while the thread that will
 * search it does other work (a cold question: while cc-route loads its
 * rules; issue 16).  The thread does what open_existing() and the first
 * search would do first, and nothing else: it opens the index read-only
 * and prepares the reader's statements, which is SQLite parsing the
 * schema and the bm25 query, about 0.7 million instructions.  It writes
 * nothing, prints nothing, reads no environment and no clock, and shares
 * nothing with the caller but its own struct, read back after
 * pthread_join() (which orders its writes before the reads) and SQLite,
 * which is asked whether it was built thread-safe (its allocator, its
 * locks and the caller's own connections, such as cc-route's session
 * store, are then safe beside this one).  Whatever it could not do, open_existing()
 * does again in the caller's thread, so the messages, the errors and
 * the handle a search gets are what they were without it.
 */
static struct {
	pthread_t thread;
	int running;
	char *path;
	struct cc_kb *kb;	/* the thread's result, read after the join */
} ahead;

static void *
ahead_run(void *arg)
{
	struct stat sb;
	struct cc_kb *kb;
	char err[256];

	(void)arg;
	if (stat(ahead.path, &sb) < 0 ||
	    !(kb = cc_kb_open(ahead.path, CC_KB_READONLY, err, sizeof err)))
		return NULL;
	/* prepared now rather than at first use: a failure here is
	   met again there, in the caller's thread, with its message */
	if (!kb->meta_get)
		sqlite3_prepare_v2(kb->db, sql_meta_get, -1, &kb->meta_get, NULL);
	if (!kb->version)
		kb->version = prepare(kb, sql_version);
	if (!kb->detail)
		kb->detail = prepare(kb, sql_detail);
	if (!kb->bm25)
		kb->bm25 = prepare(kb, sql_bm25);
	kb->err[0] = '\0';
	ahead.kb = kb;
	return NULL;
}

void
cc_kb_open_ahead(const char *path)
{
	/*
	 * SQLite initialised here, not by the thread's first open: its
	 * initialisation reads the environment (the temporary directory),
	 * which this thread may be changing meanwhile (cc-event sets TZ).
	 */
	if (ahead.running || !path || !sqlite3_threadsafe() ||
	    sqlite3_initialize() != SQLITE_OK)
		return;
	ahead.path = cc_xstrdup(path);
	ahead.kb = NULL;
	if (pthread_create(&ahead.thread, NULL, ahead_run, NULL) != 0) {
		free(ahead.path);
		ahead.path = NULL;
		return;
	}
	ahead.running = 1;
}

/* The index opened ahead for path, or NULL; the thread is joined. */
static struct cc_kb *
ahead_take(const char *path)
{
	struct cc_kb *kb;

	if (!ahead.running)
		return NULL;
	pthread_join(ahead.thread, NULL);
	ahead.running = 0;
	kb = ahead.kb;
	ahead.kb = NULL;
	if (kb && strcmp(ahead.path, path) != 0) {
		cc_kb_close(kb);
		kb = NULL;
	}
	free(ahead.path);
	ahead.path = NULL;
	return kb;
}

void
cc_kb_ahead_end(void)
{
	if (ahead.running)
		cc_kb_close(ahead_take(""));
}

/* The index at path opened read-only if it is there, else NULL. */
static struct cc_kb *
open_existing(const char *path, char *err, size_t errlen)
{
	struct stat sb;
	struct cc_kb *kb = ahead_take(path);

	if (kb)
		return kb;
	if (stat(path, &sb) < 0)
		return NULL;
	return cc_kb_open(path, CC_KB_READONLY, err, errlen);
}

/* cc_kb_open_fresh() with the read-only handle open_existing() gave. */
static struct cc_kb *
open_fresh(const char *path, struct cc_kb *kb, const char *const *dirs,
    size_t ndirs, const struct cc_kb_embedder *em, int quiet, char *err,
    size_t errlen)
{
	if (kb) {
		int stale = cc_kb_stale(kb, dirs, ndirs, em ? em->model : NULL);

		if (stale < 0) {
			snprintf(err, errlen, "%s", kb->err);
			cc_kb_close(kb);
			return NULL;
		}
		if (!stale)
			return kb;
		cc_kb_close(kb);
	}
	kb = cc_kb_open(path, 0, err, errlen);
	if (!kb)
		return NULL;
	/* another process may have built it meanwhile: cc_kb_build() takes
	   the write lock, then finds nothing to do */
	{
		struct cc_kb_build_stats st;

		if (cc_kb_build(kb, dirs, ndirs, em, 0, &st) < 0) {
			snprintf(err, errlen, "cannot build the index '%s': %s",
			    path, kb->err);
			cc_kb_close(kb);
			return NULL;
		}
		if (!quiet && st.files_changed + st.removed > 0)
			cc_warn("indexed %zu passages from %zu files into '%s'",
			    st.passages, st.files, path);
		if (st.embed_error[0])
			cc_warn("no vectors: %s", st.embed_error);
	}
	cc_kb_close(kb);
	return cc_kb_open(path, CC_KB_READONLY, err, errlen);
}

struct cc_kb *
cc_kb_open_fresh(const char *path, const char *const *dirs, size_t ndirs,
    const struct cc_kb_embedder *em, int quiet, char *err, size_t errlen)
{
	return open_fresh(path, open_existing(path, err, errlen), dirs, ndirs,
	    em, quiet, err, errlen);
}

/* cc_kb_resolve_dirs() with the index open (or NULL when it is not there). */
static char **
resolve_dirs(struct cc_kb *kb, char *const *given, size_t ngiven,
    const struct cc_config *cfg, size_t *ndirs)
{
	char **v;
	char *remembered = NULL;
	struct stat sb;

	if (ngiven > 0) {
		v = cc_xmalloc((ngiven + 1) * sizeof *v);
		for (size_t i = 0; i < ngiven; i++)
			v[i] = cc_xstrdup(given[i]);
		v[ngiven] = NULL;
		*ndirs = ngiven;
		return v;
	}
	if (kb)
		remembered = meta_get(kb, "dirs");
	if (remembered && *remembered) {
		size_t n = 1, k = 0;
		int all_there = 1;

		for (char *p = remembered; *p; p++)
			n += *p == '\n';
		v = cc_xmalloc((n + 1) * sizeof *v);
		for (char *p = remembered, *e; p; p = e ? e + 1 : NULL) {
			e = strchr(p, '\n');
			if (e)
				*e = '\0';
			if (stat(p, &sb) < 0 || !S_ISDIR(sb.st_mode))
				all_there = 0;
			v[k++] = cc_xstrdup(p);
		}
		v[k] = NULL;
		free(remembered);
		if (all_there) {
			*ndirs = k;
			return v;
		}
		cc_kb_dirs_free(v);	/* moved or removed: the default */
	} else {
		free(remembered);
	}
	v = cc_xmalloc(2 * sizeof *v);
	v[0] = cc_config_domain_path(cfg, "kb");
	v[1] = NULL;
	*ndirs = 1;
	return v;
}

char **
cc_kb_resolve_dirs(const char *path, char *const *given, size_t ngiven,
    const struct cc_config *cfg, size_t *ndirs)
{
	char err[256];
	struct cc_kb *kb = ngiven > 0 ? NULL : open_existing(path, err, sizeof err);
	char **v = resolve_dirs(kb, given, ngiven, cfg, ndirs);

	cc_kb_close(kb);
	return v;
}

/*
 * One connection where the three calls took two: each connection reads
 * the index's schema again, which was a tenth of a cold question's
 * search stage.
 */
struct cc_kb *
cc_kb_open_current(const char *path, char *const *given, size_t ngiven,
    const struct cc_config *cfg, const struct cc_kb_embedder *em, int quiet,
    char ***dirs, size_t *ndirs, char *err, size_t errlen)
{
	struct cc_kb *kb = open_existing(path, err, errlen);

	*dirs = resolve_dirs(kb, given, ngiven, cfg, ndirs);
	cc_kb_dirs_check(*dirs);
	return open_fresh(path, kb, (const char *const *)*dirs, *ndirs, em,
	    quiet, err, errlen);
}

void
cc_kb_dirs_check(char *const *dirs)
{
	struct stat sb;

	for (; *dirs; dirs++)
		if (stat(*dirs, &sb) < 0 || !S_ISDIR(sb.st_mode))
			cc_die(CC_EXIT_USAGE, "no document folder '%s'", *dirs);
}

void
cc_kb_dirs_free(char **dirs)
{
	if (!dirs)
		return;
	for (char **p = dirs; *p; p++)
		free(*p);
	free(dirs);
}
