/*
 * cc_kb.h: the knowledge base (cc-kb(5)): documents cut into passages,
 * the tokenizer for Japanese and English, and the SQLite FTS5 index with
 * optional embeddings.
 *
 * Owns: the index connection, the passages it reads and the hits it
 * returns.  Borrows: the configuration (where the index and the domain's
 * documents are), cc_text, and an embedder a caller may hand in.
 */
#ifndef CC_KB_H
#define CC_KB_H

#include <stddef.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"

/* One passage of a knowledge-base document: front matter and body. */
struct cc_kbdoc {
	char *id, *title, *language;
	char *category;		/* "general" when not given */
	char *request_types;	/* comma-separated, "" when none */
	char *tags;		/* comma-separated, "" when none */
	char *body;
	unsigned line;		/* where its front matter starts */
};

/*
 * The passages of one file; problems are counted and reported to report
 * (cc-domain check), or to stderr when it is NULL.
 */
struct cc_kbdoc_file {
	const char *path;	/* borrowed; used in messages */
	struct cc_problems *report;	/* borrowed; may be NULL */
	struct cc_kbdoc *docs;
	size_t n, cap;
	unsigned problems;
};
/* Parse text (set f->path first); bad passages are skipped with a message. */
int cc_kbdoc_parse(struct cc_kbdoc_file *f, const char *text, size_t len);
int cc_kbdoc_load(struct cc_kbdoc_file *f, const char *path);
void cc_kbdoc_file_release(struct cc_kbdoc_file *f);

/*
 * The tokenizer of passages and queries: NFKC and cc_text_fold(); Latin
 * words (lower case, stop words dropped, Wi-Fi also as wifi; the index
 * adds SQLite's Porter stemmer: tokenize='porter cc'); Japanese runs of
 * one script as overlapping bigrams, with unigrams of Han beside them in
 * passages, and in queries only the two ends of a kanji run
 * (CC_KB_TOKEN_HAN_EDGE).  fn returns non-zero to stop; cc_kb_tokenize
 * returns that value.
 */
#define CC_KB_TOKENIZE_QUERY 1
enum cc_kb_token_kind {
	CC_KB_TOKEN_WORD, CC_KB_TOKEN_HAN, CC_KB_TOKEN_HIRAGANA, CC_KB_TOKEN_KATAKANA,
	CC_KB_TOKEN_OKURIGANA,	/* hiragana right after kanji: 開いて, 料金は */
	CC_KB_TOKEN_HAN_EDGE,	/* queries: an end of a kanji run, alone */
};
typedef int (*cc_kb_token_fn)(void *ctx, const char *tok, size_t len,
	int kind, int colocated);
int cc_kb_tokenize(const char *s, size_t len, int flags, cc_kb_token_fn fn,
	void *ctx);
/*
 * Append the FTS5 expression for a query ("t1" OR "t2" ...) to out;
 * returns the number of terms (0: nothing to search for).
 */
size_t cc_kb_query_terms(const char *text, size_t len, struct cc_buf *out);

/* Computes embeddings: n texts in, n * *dim floats (malloc'd) out. */
struct cc_kb_embedder {
	const char *model;
	int (*embed)(void *ctx, const char *const *texts, size_t n,
	    float **vecs, int *dim, char *err, size_t errlen);
	void *ctx;
};

struct cc_kb;
#define CC_KB_READONLY 1
/* NULL with a message in err when it cannot be opened. */
struct cc_kb *cc_kb_open(const char *path, int flags, char *err, size_t errlen);
void cc_kb_close(struct cc_kb *kb);
const char *cc_kb_error(const struct cc_kb *kb);	/* the last failure */
/*
 * Open the index at path read-only and prepare a search's statements on
 * a second thread, for the next cc_kb_open_current()/cc_kb_open_fresh()
 * of that path in this thread to take; they behave as without it
 * (messages, errors), only sooner.  cc_kb_ahead_end() joins the thread
 * and closes what was not taken.  One at a time; a no-op when SQLite is
 * not thread-safe or the thread cannot start.
 */
void cc_kb_open_ahead(const char *path);
void cc_kb_ahead_end(void);
/* The index path: CC_KB_DB, else $XDG_CACHE_HOME/concierge/kb-DOMAIN.sqlite. */
char *cc_kb_default_db(const struct cc_config *cfg);

struct cc_kb_build_stats {
	size_t files, files_changed, files_kept;
	size_t passages, added, removed, vectors;
	unsigned problems;	/* bad passages or files, reported on stderr */
	char embed_error[256];	/* why vectors could not be made, or "" */
	double seconds;
};
/*
 * Bring the index up to date with the *.md files under dirs: only files
 * whose size or mtime changed are read again.  One transaction, taken
 * with BEGIN IMMEDIATE: concurrent builders wait, readers keep the last
 * committed index (WAL).  em may be NULL.  force rebuilds everything.
 */
int cc_kb_build(struct cc_kb *kb, const char *const *dirs, size_t ndirs,
	const struct cc_kb_embedder *em, int force, struct cc_kb_build_stats *st);
/* 1 if the index is missing, older than the documents or of another format. */
int cc_kb_stale(struct cc_kb *kb, const char *const *dirs, size_t ndirs,
	const char *embed_model);
/*
 * The document folders of the index at path: the given ones, else those it
 * was built from (when they all still exist), else <datadir>/<domain>/kb.
 * A NULL-terminated array; free with cc_kb_dirs_free().
 */
char **cc_kb_resolve_dirs(const char *path, char *const *given, size_t ngiven,
	const struct cc_config *cfg, size_t *ndirs);
void cc_kb_dirs_free(char **dirs);
/* Die with CC_EXIT_USAGE if one of dirs is not a folder. */
void cc_kb_dirs_check(char *const *dirs);
/* Open path read-only, building or refreshing it first when it is stale. */
struct cc_kb *cc_kb_open_fresh(const char *path, const char *const *dirs,
	size_t ndirs, const struct cc_kb_embedder *em, int quiet, char *err,
	size_t errlen);
/*
 * cc_kb_resolve_dirs(), cc_kb_dirs_check() and cc_kb_open_fresh() on one
 * connection to the index: the folders in *dirs (free with
 * cc_kb_dirs_free(), also when NULL is returned).
 */
struct cc_kb *cc_kb_open_current(const char *path, char *const *given,
	size_t ngiven, const struct cc_config *cfg, const struct cc_kb_embedder *em,
	int quiet, char ***dirs, size_t *ndirs, char *err, size_t errlen);

struct cc_kb_query {
	const char *text;
	size_t len;
	const char *language;	/* answer language: its passages first */
	const char *category;	/* the route's category: boosted */
	const char *request_type;	/* the route's request type: boosted */
	size_t limit;		/* 0: 10 */
	const float *vector;	/* the query's embedding, or NULL */
	int dim;
	const char *model;	/* the model of vector */
};
struct cc_kb_hit {
	char *id, *title, *content, *language, *category, *request_types;
	double score;		/* the ranking score, bigger is better */
	double bm25;		/* -bm25(), 0 if found by vector only */
};
struct cc_kb_hits {
	struct cc_kb_hit *v;
	size_t n, cap;
};
/* Ranked passages for q into out (cleared first with cc_kb_hits_clear). */
int cc_kb_search(struct cc_kb *kb, const struct cc_kb_query *q,
	struct cc_kb_hits *out);
void cc_kb_hits_clear(struct cc_kb_hits *h);
void cc_kb_hits_release(struct cc_kb_hits *h);

/* Every passage (content holds its file, score its line); fn != 0 stops. */
int cc_kb_list(struct cc_kb *kb, int (*fn)(void *ctx, const struct cc_kb_hit *h),
	void *ctx);
struct cc_kb_stats {
	long long passages, files, ja, en, vectors, categories;
	time_t built;
	char *embed_model, *format;
};
int cc_kb_stats(struct cc_kb *kb, struct cc_kb_stats *s);
void cc_kb_stats_release(struct cc_kb_stats *s);
/* Changes when another connection commits (PRAGMA data_version). */
long long cc_kb_version(struct cc_kb *kb);

#endif
