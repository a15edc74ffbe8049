/*
 * cc.h: the internal library shared by every concierge program.
 *
 * Every program is a filter over newline-delimited JSON records (see
 * cc-record(5)).  A program owns exactly one top-level key of the record,
 * computes it in a callback, and lets cc_record_run() do the rest: reading,
 * error records, pass-through, output and the exit status.
 *
 * jv ownership follows libjq: a function that takes a jv either "borrows"
 * it (the caller still owns it) or "consumes" it (the caller must not use
 * it again).  Every declaration below that takes a jv says which.
 *
 * Naming: cc_<module>_<verb>(), struct cc_<module>; everything else in a
 * .c file is static.
 */
#ifndef CC_H
#define CC_H

#include <stddef.h>
#include <string.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <jv.h>

/* ---- exit statuses: one table for every program (see concierge(7)) ---- */
enum cc_exit {
	CC_EXIT_OK = 0,		/* success */
	CC_EXIT_NEGATIVE = 1,	/* a negative answer scripts can test for */
	CC_EXIT_USAGE = 2,	/* bad option, argument or environment */
	CC_EXIT_DATA = 3,	/* some input record was bad (error record written) */
	CC_EXIT_UPSTREAM = 4,	/* a temporary upstream or network failure */
	CC_EXIT_INTERNAL = 5,	/* internal error, out of memory, cannot write */
};

/* ---- messages (cc_util.c) ---- */

/* The program name that prefixes every message; set once from argv[0]. */
extern const char *cc_progname;
void cc_set_progname(const char *argv0);
void cc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void cc_die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void *cc_xmalloc(size_t n);
void *cc_xrealloc(void *p, size_t n);
char *cc_xstrdup(const char *s);

/* mkdir -p; the directories it creates are private (0700).  0 or -1. */
int cc_mkdirs(const char *path);
/* Split off the first blank-delimited word of *s (in place). */
char *cc_word(char **s);

/* --version output, shared so every program prints the same thing. */
void cc_print_version(void);

/*
 * The options every program takes.  Put CC_COMMON_LONGOPTS in the
 * getopt_long table and CC_COMMON_SHORTOPTS in the short string, and pass
 * every option to cc_option_common() first (set opterr = 0 before
 * getopt_long so messages carry the program name): it handles -u/-h/-V and
 * unknown options (usage to stderr, exit 2) and returns 1, or returns 0 for
 * an option of the program's own.  *unbuffered may be NULL.
 */
#define CC_COMMON_SHORTOPTS "uhV"
#define CC_COMMON_LONGOPTS \
	{"unbuffered", no_argument, NULL, 'u'}, \
	{"help", no_argument, NULL, 'h'}, \
	{"version", no_argument, NULL, 'V'}
int cc_option_common(int c, char **argv, const char *usage, int *unbuffered);

/* ---- configuration from the environment (cc_config.c) ---- */

/*
 * The environment every program shares.  Strings point into the
 * environment or into storage owned by the struct; cc_config_release()
 * frees what the struct owns.
 *
 *   CC_DATADIR    package data (default: the compiled-in pkgdatadir)
 *   CC_DOMAIN     domain folder under the data dir (default engineer-cafe)
 *   CC_STATE_DIR  session store (default $XDG_STATE_HOME/concierge,
 *                 else ~/.local/state/concierge)
 *   CC_NOW        frozen "now", ISO 8601 with offset or Z
 *   CC_TZ         time zone for dates shown to people (default Asia/Tokyo)
 *   CC_LOCK_TIMEOUT  seconds to wait for the session store while another
 *                 process holds its lock (default 10)
 */
struct cc_config {
	const char *datadir;
	const char *domain;
	char *state_dir;
	const char *tz;
	time_t now;		/* CC_NOW if set, else the clock at load time */
	int now_frozen;		/* 1 when now came from CC_NOW */
	long lock_timeout_ms;	/* CC_LOCK_TIMEOUT */
};

/* Read the environment; dies with CC_EXIT_USAGE on a malformed value. */
void cc_config_load(struct cc_config *cfg);
void cc_config_release(struct cc_config *cfg);
/*
 * $<xdg_var>/concierge when that variable holds an absolute path, else
 * $HOME/<home_dir>/concierge (fresh string): the XDG base directories.
 */
char *cc_xdg_dir(const char *xdg_var, const char *home_dir);
/* A freshly allocated path: <datadir>/<domain>/<name>. */
char *cc_config_domain_path(const struct cc_config *cfg, const char *name);
/*
 * Parse an ISO 8601 date-time ("2025-01-15T10:00:00+09:00", "...Z",
 * seconds optional).  Returns 0 and sets *t on success, -1 otherwise.
 */
int cc_time_parse_iso8601(const char *s, time_t *t);

/* ---- JSON text (cc_json.c) ---- */

struct cc_buf {
	char *data;		/* NUL-terminated when not NULL */
	size_t len, cap;
};
void cc_buf_grow(struct cc_buf *b, size_t n);	/* room for n more bytes */
void cc_buf_release(struct cc_buf *b);

/* Make room for n more bytes (and the terminating NUL). */
static inline void
cc_buf_grow_to(struct cc_buf *b, size_t n)
{
	if (b->len + n + 1 > b->cap)
		cc_buf_grow(b, n);
}

/* Append n bytes; inline because output is built from many small pieces. */
static inline void
cc_buf_add(struct cc_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap)
		cc_buf_grow(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* A top-level member of an object, as offsets into cc_json_doc.text. */
struct cc_json_field {
	size_t key_at, key_len;	/* the name, without its quotes */
	size_t val_at, val_len;	/* the value's compact text */
};

/* One JSON text, checked and compacted in a single pass (no jv built). */
struct cc_json_doc {
	struct cc_buf text;	/* the value with insignificant space removed */
	struct cc_json_field *fields;	/* top-level members, in order */
	size_t nfields, cap;
	/*
	 * The text is valid JSON but cannot be copied as it is: it holds
	 * invalid UTF-8 or raw control characters in a string (libjq
	 * tolerates both), or an escaped member name.
	 */
	int needs_rewrite;
	const char *err;	/* why scanning failed */
	size_t err_col;		/* where, counting bytes from 1 */
};

/*
 * Check s[0..n) as strict JSON (RFC 8259, nesting up to 512 levels),
 * compacting it into doc->text and indexing the members of a top-level
 * object.  Returns 0, or -1 with doc->err and doc->err_col set.  The doc is
 * reused across calls; cc_json_doc_release() frees it.
 */
int cc_json_scan(struct cc_json_doc *doc, const char *s, size_t n);
/* The last top-level member named key, or NULL. */
const struct cc_json_field *cc_json_field(const struct cc_json_doc *doc,
	const char *key);
void cc_json_doc_release(struct cc_json_doc *doc);
/*
 * The compact text of member `key` of the object text obj[0..n), or NULL;
 * *len is its length.  obj must be compact JSON checked by cc_json_scan()
 * (a member's value in doc->text, say): it is skipped through, not parsed,
 * so a stage can read one nested field without parsing its neighbours.
 * Names are compared as they are written (no escapes).
 */
const char *cc_json_member(const char *obj, size_t n, const char *key, size_t *len);
/*
 * The jv of the compact text s[0..n) checked by cc_json_scan(): the same
 * value jv_parse_sized() would give, several times faster.  Owned.
 */
jv cc_json_to_jv(const char *s, size_t n);
/*
 * Parse JSON text from outside (an HTTP answer, a labelled file) into an
 * owned jv: jv_invalid() unless cc_json_scan() accepts it (strict RFC 8259
 * but for raw control characters in strings, which it escapes; libjq is
 * laxer elsewhere, and leaks on some invalid text).
 */
jv cc_json_parse(const char *s, size_t n);
/* Append v as compact JSON; borrows v. */
void cc_json_put(struct cc_buf *b, jv v);

/*
 * A streaming JSON writer: stages write their value as text, which costs a
 * fraction of building a jv object and dumping it.  Commas are placed by
 * the writer; nesting is limited to 64 levels.
 */
struct cc_jw {
	struct cc_buf *b;
	unsigned depth;
	uint64_t has_item;	/* bit d: level d already holds an item */
	uint64_t is_object;	/* bit d: level d is an object */
	int after_key;
};
void cc_jw_init(struct cc_jw *w, struct cc_buf *b);
void cc_jw_object(struct cc_jw *w);	/* { */
void cc_jw_array(struct cc_jw *w);	/* [ */
void cc_jw_end(struct cc_jw *w);	/* } or ] */
void cc_jw_key(struct cc_jw *w, const char *key);
void cc_jw_str(struct cc_jw *w, const char *s, size_t n);
void cc_jw_cstr(struct cc_jw *w, const char *s);	/* NULL: null */
void cc_jw_num(struct cc_jw *w, double d);
void cc_jw_bool(struct cc_jw *w, int b);
void cc_jw_null(struct cc_jw *w);
void cc_jw_jv(struct cc_jw *w, jv v);	/* borrows v */
/* Write text that is already one compact JSON value. */
void cc_jw_raw(struct cc_jw *w, const char *json, size_t n);

/* ---- the NDJSON record stream (cc_record.c) ---- */

/*
 * One input record while a stage looks at it.  Read members through the
 * accessors: most records are never parsed into jv as a whole.
 */
struct cc_record {
	struct cc_json_doc doc;	/* the line, checked and compacted */
	jv whole;		/* the parsed record when the text cannot be
				   spliced (a bare string, needs_rewrite);
				   otherwise jv_invalid() */
	jv held;		/* strings handed out by cc_record_str() */
	unsigned long line;	/* physical input line, from 1 */
	const char *fail_code;	/* set by cc_record_fail() */
	char fail_message[256];
};

/* The member `key` as an owned jv, or jv_invalid() when it is absent. */
jv cc_record_get(struct cc_record *rec, const char *key);
int cc_record_has(struct cc_record *rec, const char *key);
/*
 * The string member `key`, or NULL when absent or not a string.  The bytes
 * are valid UTF-8 but not NUL-terminated; use *len.  Valid until the stage
 * returns.
 */
const char *cc_record_str(struct cc_record *rec, const char *key, size_t *len);
/* The compact JSON text of member `key`, or NULL; valid until it returns. */
const char *cc_record_raw(struct cc_record *rec, const char *key, size_t *len);
/*
 * The same for a dotted path of object members ("route.debug_info.session"):
 * only the value at the end is parsed (cc_record_at), so reading
 * route.agent does not pay for parsing the whole route.
 */
jv cc_record_at(struct cc_record *rec, const char *path);
const char *cc_record_raw_at(struct cc_record *rec, const char *path, size_t *len);
/* The query, or NULL. */
#define cc_record_query(rec, len) cc_record_str((rec), "query", (len))

/* What a stage did with a record. */
enum cc_outcome {
	CC_RECORD_PASS,		/* nothing to do: pass it through unchanged */
	CC_RECORD_SET,		/* the stage wrote its key's value */
	CC_RECORD_FAIL,		/* cannot process it: see cc_record_fail() */
};

/*
 * Mark the record as one the stage cannot process: it is passed on with an
 * "error" member {stage, code, message, line}, a message goes to stderr,
 * and the run ends with CC_EXIT_DATA.  Returns CC_RECORD_FAIL.
 */
enum cc_outcome cc_record_fail(struct cc_record *rec, const char *code,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * A stage: process() reads the record and, to set its key, writes exactly
 * one JSON value to `out` and returns CC_RECORD_SET.  It is never called
 * for records that already carry an "error".
 */
struct cc_stage {
	const char *name;	/* program name, recorded in error records */
	const char *key;	/* the top-level key this stage owns */
	int unbuffered;		/* flush after every record */
	enum cc_outcome (*process)(void *ctx, struct cc_record *rec,
	    struct cc_jw *out);
	/*
	 * Optional: called whenever output is flushed (after every record when
	 * interactive, and at the end), so a stage can make what it wrote
	 * elsewhere (the session store) visible at the same moment.
	 */
	void (*flush)(void *ctx);
	/*
	 * Optional: called at the end, and when no input has come for
	 * CC_RECORD_IDLE_MS with nothing left to hand on: for writes no later
	 * stage waits for (cc-respond's answers), so they are committed in
	 * batches rather than with every record, yet never held while the
	 * stream is quiet.
	 */
	void (*idle)(void *ctx);
	/*
	 * Optional: write this instead of the record when process() set the
	 * key (cc-respond --text); `value` is the key's JSON text.  Records it
	 * did not set are then not written at all.
	 */
	void (*render)(void *ctx, const char *value, size_t len, struct cc_buf *line);
	void *ctx;
};

#define CC_RECORD_IDLE_MS 20
/* Read records from `in`, write them to `out`; returns the exit status. */
int cc_record_run(struct cc_stage *stage, FILE *in, FILE *out);

/* ---- text: UTF-8 and Unicode normalisation (cc_text.c) ---- */

/* Decode one code point at s[*i] (advancing *i); U+FFFD on bad bytes. */
int32_t cc_utf8_next(const char *s, size_t len, size_t *i);
/* 1 if s[0..len) is valid UTF-8 with no NUL byte. */
int cc_utf8_valid(const char *s, size_t len);
/* 1 if s[0..len) is plainly its own NFKC (a quick, conservative check). */
int cc_text_is_nfkc(const char *s, size_t len);
/* NFKC of s[0..len) into a fresh NUL-terminated string; NULL on bad input. */
char *cc_text_nfkc(const char *s, size_t len, size_t *outlen);

/*
 * Fold text for matching, the same way for the text and for the patterns
 * or index terms it is matched against:
 *   NFKC (fullwidth Latin to ASCII, halfwidth kana to fullwidth);
 *   lower case;
 *   katakana to hiragana, small kana to their large forms, wave dashes
 *   after kana as the long-vowel mark ー, repeated ー once (ワイファイ and
 *   わいふぁい both become わいふあい, パスワード and ぱすわ〜ど ぱすわーど);
 *   white space between two Japanese characters removed (エンジニア カフェ),
 *   other runs of white space collapsed to one space, ends trimmed.
 * Returns a fresh NUL-terminated string.  Regular-expression syntax is
 * ASCII and left alone apart from case, so patterns should be folded with
 * CC_FOLD_KEEP_CASE (and matched caselessly).
 */
#define CC_FOLD_KEEP_CASE 1
char *cc_text_fold(const char *s, size_t len, size_t *outlen, int flags);

/*
 * At most max_chars characters of s on one line (new lines become spaces),
 * with an ellipsis when cut; never cuts a character in half.
 */
void cc_text_excerpt(const char *s, size_t max_chars, char *out, size_t outlen);

/* Coarse script classes used by the language detector. */
enum cc_script {
	CC_SCRIPT_NONE,		/* space, punctuation, symbols, emoji */
	CC_SCRIPT_DIGIT,
	CC_SCRIPT_HIRAGANA,
	CC_SCRIPT_KATAKANA,	/* includes the long-vowel mark */
	CC_SCRIPT_HAN,
	CC_SCRIPT_LATIN,
	CC_SCRIPT_HANGUL,
	CC_SCRIPT_OTHER,	/* letters of any other script */
	CC_SCRIPT_COUNT
};
enum cc_script cc_text_script(int32_t cp);

/* ---- language detection (cc_lang.c) ---- */

enum cc_lang { CC_LANG_JA, CC_LANG_EN };

struct cc_lang_result {
	enum cc_lang lang;
	double confidence;
	int is_mixed;
	int ambiguous;		/* reasonable readers could disagree */
	const char *cue;	/* which rule decided: "ja-frame", "romaji", ... */
	unsigned scripts[CC_SCRIPT_COUNT];
	unsigned latin_words;	/* Latin words of two or more letters */
	unsigned en_function;	/* English grammar words (what, is, the, ...) */
	unsigned en_content;	/* common English content words */
	unsigned romaji;	/* unambiguous romanised Japanese words */
	enum cc_lang first_script;
};

/* Detect the reply language of UTF-8 text s[0..len). */
void cc_lang_detect(const char *s, size_t len, struct cc_lang_result *r);
const char *cc_lang_name(enum cc_lang lang);
/* 1 if the lower-case word is in the detector's English word lists. */
int cc_lang_known_word(const char *word);
/* Write the result as the record's language_detection object. */
void cc_lang_write(const struct cc_lang_result *r, struct cc_jw *w);

/* ---- session memory (cc_session.c) ---- */

struct cc_session;

/* One routed turn; strings are owned (cc_turns_release frees them). */
struct cc_turn {
	long long id;
	time_t at;
	char *query, *language, *agent, *category, *request_type;
	char *slots;		/* the router's slots as a JSON object */
	char *answer;		/* added by cc-respond; NULL if none or not asked for */
};

/*
 * Open (creating, mode 0700) the store under cfg->state_dir, waiting up to
 * cfg->lock_timeout_ms for another process's lock; NULL + message.  With
 * CC_SESSION_ANSWERS the answers are opened too (cc_session_answer, and
 * cc_turn.answer from cc_session_recent); without, they are not touched.
 * A program that gets -1 from a store call should go on without memory
 * (the spec's rule) rather than try again for every record.
 */
#define CC_SESSION_ANSWERS 1
struct cc_session *cc_session_open(const struct cc_config *cfg, int flags,
	char *err, size_t errlen);
void cc_session_close(struct cc_session *s);
const char *cc_session_error(struct cc_session *s);
/*
 * The turns of `session` asked at or after `since`, oldest first, at most
 * max (the newest ones).  Returns the count, or -1 on a store error.
 */
int cc_session_recent(struct cc_session *s, const char *session, time_t since,
	struct cc_turn *turns, int max);
/*
 * Record a turn (t->id is ignored); returns its id, or -1.  Turns are
 * written in transactions of up to 64 turns or 20 ms: this connection sees
 * them at once, other processes after cc_session_flush() or the next
 * commit.
 */
long long cc_session_add(struct cc_session *s, const char *session,
	const struct cc_turn *t);
/* Commit what cc_session_add() and cc_session_answer() wrote; 0 or -1. */
int cc_session_flush(struct cc_session *s);
/* Add the answer to a turn, in the same batches as cc_session_add(); 0 or -1. */
int cc_session_answer(struct cc_session *s, long long turn, const char *answer,
	time_t at);
void cc_turns_release(struct cc_turn *turns, int n);

/* ---- literal prefilter for regular expressions (cc_litindex.c) ---- */

struct cc_litindex;
struct cc_litindex *cc_litindex_new(void);
void cc_litindex_free(struct cc_litindex *x);
/*
 * Index the literals every match of `pattern` (PCRE2 syntax, folded) must
 * begin with, for `target`.  Returns -1 when there is no such set (the
 * pattern can begin with anything): the caller must always run it.
 */
int cc_litindex_add_pattern(struct cc_litindex *x, const char *pattern,
	int target);
/*
 * Where the literals of each target occur in a text: up to CC_LIT_POS
 * starting offsets, in increasing order; n > CC_LIT_POS means more.
 */
#define CC_LIT_POS 4
struct cc_lithit {
	unsigned n;
	size_t pos[CC_LIT_POS];
};
/* Fill hits[target] (zeroed by the caller) from one pass over the text. */
void cc_litindex_scan(const struct cc_litindex *x, const char *text,
	size_t len, struct cc_lithit *hits);

/* ---- decision rules as data (cc_rules.c; format in cc-rules(5)) ---- */

#define CC_RULES_MAX_SLOTS 64
struct cc_rules;

/*
 * What earlier turns of the session said: slot values by slot index, each
 * mapped through cc_rules_intern() (a value the rules never name is NULL
 * there, and equals nothing).
 */
struct cc_rules_context {
	int has_last;				/* the session has an earlier turn */
	const char *last[CC_RULES_MAX_SLOTS];	/* the turn just before */
	const char *prev[CC_RULES_MAX_SLOTS];	/* the last turn that gives context */
};

/* Load and compile a rules file; NULL with a "path:line: why" message. */
struct cc_rules *cc_rules_load(const char *path, char *err, size_t errlen);
void cc_rules_free(struct cc_rules *r);
/* Fold the text, run the cues, decide every slot.  ctx may be NULL. */
void cc_rules_eval(struct cc_rules *r, const char *text, size_t len,
	const struct cc_rules_context *ctx);
/* The value of a slot after cc_rules_eval(), or NULL (unset / null). */
const char *cc_rules_get(const struct cc_rules *r, const char *slot);
int cc_rules_slot(const struct cc_rules *r, const char *name);	/* -1 if none */
/* The rules' own copy of the value v, or NULL if the rules never name it. */
const char *cc_rules_intern(const struct cc_rules *r, const char *v);
/* The value of slot number `slot` (from cc_rules_slot), or NULL. */
const char *cc_rules_value(const struct cc_rules *r, int slot);
size_t cc_rules_nslots(const struct cc_rules *r);
const char *cc_rules_slot_name(const struct cc_rules *r, size_t i);
/* 1 if turns routed to this agent give no context (context-skip). */
int cc_rules_skips_agent(const struct cc_rules *r, const char *agent);
/* 1 if this language cue means "take the session's language". */
int cc_rules_language_neutral(const struct cc_rules *r, const char *cue);
/*
 * Whether a slot value was copied from an earlier turn in the last
 * evaluation: 0 no, 1 from the turn just before, 2 from the last turn
 * that gives context.
 */
int cc_rules_inherited(const struct cc_rules *r);
/* The folded, fixed text the cues were matched against. */
const char *cc_rules_text(const struct cc_rules *r);
/*
 * Members "rules", "matched", "slots", "text" of the debug object.  Cues
 * are run only when a condition needs them, so "matched" lists the cues
 * that were needed and matched; "slots" leaves out those named in omit
 * (a NULL-terminated list, or NULL).
 */
void cc_rules_write_trace(struct cc_rules *r, struct cc_jw *w,
	const char *const *omit);

/* ---- leaving a dead service alone (cc_util.c) ---- */

/*
 * A service that timed out or could not be reached is not asked again for
 * CC_BACKOFF_SECONDS (the real clock): the records meanwhile carry the
 * same failure at once, so a dead service costs one time limit, not one
 * per record.  cc-event does the same for its sources.
 */
#define CC_BACKOFF_SECONDS 60
struct cc_backoff {
	time_t until;		/* not asked before this */
	const char *code;	/* the failure (a static string) */
	char why[200];
};
/* 1, with *code and err set, while the service is left alone; else 0. */
int cc_backoff_active(const struct cc_backoff *b, const char **code,
	char *err, size_t errlen);
/* A failure: "timeout", "unreachable" or "connect" start a back-off. */
void cc_backoff_note(struct cc_backoff *b, const char *code, const char *why);

/* ---- knowledge base (cc_kbdoc.c, cc_kb.c, cc_kbnet.c; see cc-kb(5)) ---- */

/* One passage of a knowledge-base document: front matter and body. */
struct cc_kbdoc {
	char *id, *title, *language;
	char *category;		/* "general" when not given */
	char *request_types;	/* comma-separated, "" when none */
	char *tags;		/* comma-separated, "" when none */
	char *body;
	unsigned line;		/* where its front matter starts */
};

/* The passages of one file; problems are reported to stderr and counted. */
struct cc_kbdoc_file {
	const char *path;	/* borrowed; used in messages */
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

/*
 * Outside services of the knowledge base (cc_kbnet.c, over cc_http_fetch),
 * both off unless configured in the environment.  Failures return -1 with
 * a short code (timeout, unreachable, http_status, rate_limited,
 * too_large, bad_response, failed)
 * and a message that never holds a key.
 *
 * Web search (seed 002 generalWebSearch), SearXNG's JSON API shape:
 *   CC_WEB_SEARCH_URL      e.g. http://127.0.0.1:8888/search (GET
 *                          ?q=...&format=json&language=ja|en)
 *   CC_WEB_SEARCH_API_KEY  sent as "Authorization: Bearer"; optional
 *   CC_WEB_SEARCH_TIMEOUT  seconds (default 3); CC_WEB_SEARCH_LIMIT (5)
 */
struct cc_websearch {
	const char *url, *key;
	long timeout_ms;
	size_t limit;
	struct cc_backoff down;
};
struct cc_web_hit {
	char *title, *url, *content;
};
/* 1 if configured, 0 if not; dies with CC_EXIT_USAGE on a bad value. */
int cc_websearch_init(struct cc_websearch *ws);
void cc_websearch_release(struct cc_websearch *ws);
/* 1 if the query has one of the spec's web-search keywords. */
int cc_websearch_wanted(const char *q, size_t len);
int cc_websearch_query(struct cc_websearch *ws, const char *q, size_t len,
	const char *lang, struct cc_web_hit **hits, size_t *nhits,
	const char **code, char *err, size_t errlen);
/*
 * The reading half of cc_websearch_query(), on its own so it can be tested
 * and fuzzed without a server: the hits (at most limit) of a SearXNG JSON
 * answer body[0..len) (len below 2 GiB; body may be NULL when len is 0).
 * 0, or -1 with *code "bad_response" and a message.
 */
int cc_websearch_parse(const char *body, size_t len, size_t limit,
	struct cc_web_hit **hits, size_t *nhits, const char **code, char *err,
	size_t errlen);
void cc_web_hits_release(struct cc_web_hit *h, size_t n);

/*
 * Embeddings, an OpenAI-compatible POST <base>/embeddings:
 *   CC_EMBED_BASE_URL  e.g. http://127.0.0.1:8080/v1
 *   CC_EMBED_MODEL     required with the URL
 *   CC_EMBED_API_KEY   sent as "Authorization: Bearer"; optional
 *   CC_EMBED_TIMEOUT   seconds (default 10)
 */
struct cc_embed {
	const char *base, *key;
	long timeout_ms;
	struct cc_kb_embedder embedder;	/* for cc_kb_build() */
	const char *code;	/* the last failure's code, or NULL */
	struct cc_backoff down;
};
int cc_embed_init(struct cc_embed *e);
void cc_embed_release(struct cc_embed *e);
/* The cc_kb_embedder function; ctx is the struct cc_embed. */
int cc_embed_texts(void *ctx, const char *const *texts, size_t n,
	float **vecs, int *dim, char *err, size_t errlen);
/*
 * The reading half of cc_embed_texts(): n vectors of one dimension from an
 * embeddings answer body[0..len) (len below 2 GiB), placed by their
 * "index".  0 with *vecs (malloc'd, n * *dim floats; NULL when n is 0),
 * or -1 with a message.
 */
int cc_embed_parse(const char *body, size_t len, size_t n, float **vecs,
	int *dim, char *err, size_t errlen);

/* ---- response texts (cc_texts.c; format in cc-respond(1)) ---- */

struct cc_texts;
/* A {name} of a template and what fills it (len 0: strlen(value)). */
struct cc_var {
	const char *name;
	const char *value;
	size_t len;
};
/* Load the domain's response texts; NULL with a "path:line: why" message. */
struct cc_texts *cc_texts_load(const char *path, char *err, size_t errlen);
void cc_texts_free(struct cc_texts *t);
/*
 * The text for key in lang (else in any language), or NULL; *emotion (if
 * not NULL) is set to its emotion, or NULL for "-".
 */
const char *cc_texts_get(const struct cc_texts *t, const char *key,
	const char *lang, const char **emotion);
/* Append tmpl with every {name} of vars filled in (unknown names stay). */
void cc_texts_fill(struct cc_buf *b, const char *tmpl, const struct cc_var *vars);
/* The {year} {month} ... {weekday_long} {month_name} vars of a local time. */
struct cc_date_vars {
	char year[12], month[12], month2[12], day[12], day2[12];
	char hour[12], hour2[12], hour12[12], minute2[12];
	char ampm[32], weekday[32], weekday_long[48];
	char month_name[48], month_name_short[32];
	struct cc_var vars[20];
};
void cc_texts_date_vars(const struct cc_texts *t, const char *lang, time_t when,
	struct cc_date_vars *d);
/* Append `when` written as the text `key` ("datetime", "time") says. */
void cc_texts_format_time(const struct cc_texts *t, const char *key,
	const char *lang, time_t when, struct cc_buf *b);

/* ---- composed answers (cc_answer.c) ---- */

struct cc_answerer {
	const struct cc_texts *texts;
	time_t now;			/* CC_NOW or the clock */
	long window;			/* the session memory window, seconds */
	double general_min_score;	/* weaker passages do not answer */
};

struct cc_answer {
	struct cc_buf text;		/* with its emotion tag first */
	const char *emotion;		/* helpful, excited, apologetic */
	double confidence;
	const char *sources[4];		/* knowledge_base, web_search, ... */
	int nsources;
	jv passages;			/* ids of the passages quoted */
	int events;			/* events listed */
	char agent_name[48];
	char language[4];
	long long turn;			/* the session turn, or -1 */
};

void cc_answer_init(struct cc_answer *a);
void cc_answer_release(struct cc_answer *a);
/*
 * Compose the answer for a routed record (route, retrieval, events);
 * store (may be NULL) gives the session's turns to a memory question.
 * Returns -1 when the record has no route or query.
 */
int cc_answer_compose(const struct cc_answerer *ar, struct cc_record *rec,
	struct cc_session *store, struct cc_answer *a);
/*
 * The system and user prompts (seeds 002 and 004) for putting a composed
 * answer to an LLM; -1 when there is nothing to ground one in (time,
 * memory, clarification, nothing found).  The user prompt is also the
 * grounding that cc_answer_check() holds the LLM's answer to.
 */
int cc_answer_prompt(const struct cc_answerer *ar, struct cc_record *rec,
	const struct cc_answer *a, struct cc_buf *system, struct cc_buf *user);
/* 0 if every number the text states is in the grounding; else -1 and why. */
int cc_answer_check(const char *text, const char *grounding, char *why,
	size_t whylen);
/* The length of the emotion tag s begins with ([happy] ...), or 0. */
size_t cc_answer_tag(const char *s);
/* Make the LLM's text the answer, with the rules' emotion tag if it has none. */
void cc_answer_use_llm(struct cc_answer *a, const char *text);

/* ---- an optional LLM (cc_llm.c; cc-respond(1) ENVIRONMENT) ---- */

struct cc_llm {
	char *url;		/* CC_LLM_BASE_URL + /chat/completions */
	char *model;		/* CC_LLM_MODEL */
	char *auth;		/* "Authorization: Bearer " CC_LLM_API_KEY, or NULL */
	long timeout_ms;	/* CC_LLM_TIMEOUT_MS, default 20000 */
	/* the last failure: timeout, unreachable, http_status, rate_limited,
	   too_large, failed (network), bad_response, cut_off (a stream) */
	const char *code;
	struct cc_backoff down;
};
/* 1 and l set up when CC_LLM_BASE_URL is set, else 0. */
int cc_llm_from_env(struct cc_llm *l);
void cc_llm_release(struct cc_llm *l);
/*
 * One chat completion (max 500 tokens; one retry after 429, 5xx or a
 * timeout).  0 with the text appended to out, or -1 with a reason that
 * never contains the key.
 */
int cc_llm_chat(struct cc_llm *l, const char *system, const char *user,
	struct cc_buf *out, char *err, size_t errlen);
/*
 * The same, streamed ("stream": true, server-sent events): delta() gets
 * each piece of text as it comes.  A stream that ends without its final
 * "[DONE]" is a failure (cut off); nothing is retried once text came.
 */
int cc_llm_chat_stream(struct cc_llm *l, const char *system,
	const char *user, struct cc_buf *out, char *err, size_t errlen,
	void (*delta)(const char *s, size_t n, void *arg), void *arg);

/*
 * The readers of the answers, on their own so they can be tested and
 * fuzzed without a server.  cc_llm_parse_reply: choices[0].message.content
 * of a chat-completion body[0..len) (len below 2 GiB) appended to out; 0,
 * or -1 with a reason.
 */
int cc_llm_parse_reply(const char *body, size_t len, struct cc_buf *out,
	char *err, size_t errlen);
/*
 * A streamed answer being read: cc_llm_stream_feed() takes the body in
 * pieces as they come (split anywhere, arg is the stream) and appends each
 * "data: {...}" line's choices[0].delta.content to out, also handing it to
 * delta() when set.  Zero it, set out, delta and arg; free line with
 * cc_buf_release() when done.
 */
struct cc_llm_stream {
	struct cc_buf line;	/* a line still coming */
	struct cc_buf *out;
	void (*delta)(const char *s, size_t n, void *arg);
	void *arg;
	int done;		/* "data: [DONE]" seen */
	int bad;		/* an event that is not the expected JSON */
	int events;		/* "data:" lines seen */
};
void cc_llm_stream_feed(const char *p, size_t n, void *arg);

/* ---- local dates in CC_TZ (cc_time.c) ---- */

/*
 * Dates that people mean ("tomorrow", "next week") are local dates in one
 * IANA time zone, CC_TZ.  The library computes them with the C library's
 * tz database: cc_tz_use() puts the zone in TZ for the whole process, so
 * call it once at start-up, before anything reads local time.  Date
 * arithmetic itself (cc_date_add, weekdays, month lengths) is pure
 * proleptic Gregorian and never consults the zone.
 */
int cc_tz_use(const char *name);	/* 0, or -1 for an unknown zone */

struct cc_date {
	int year, month, day;		/* month 1-12, day 1-31 */
};
/* The local date of t in the zone set by cc_tz_use(). */
struct cc_date cc_date_of(time_t t);
/* ISO weekday: 1 Monday ... 7 Sunday. */
int cc_date_weekday(struct cc_date d);
struct cc_date cc_date_add(struct cc_date d, int days);
/* Days from a to b (b - a). */
long cc_date_diff(struct cc_date a, struct cc_date b);
int cc_date_cmp(struct cc_date a, struct cc_date b);
int cc_days_in_month(int year, int month);
/* Days since 1970-01-01 of a proleptic Gregorian date. */
long cc_days_from_civil(int y, int m, int d);
/*
 * The instant a local wall-clock time begins: cc_date_start() is local
 * midnight (or the first instant of the day where a DST change skips
 * midnight); cc_local_time() any hour and minute of the date.
 */
time_t cc_date_start(struct cc_date d);
time_t cc_local_time(struct cc_date d, int hour, int minute);
/* t as local ISO 8601 with offset: "2025-01-15T10:00:00+09:00". */
#define CC_TIME_ISO_MAX 32
void cc_time_format(time_t t, char out[CC_TIME_ISO_MAX]);

/* ---- time expressions (cc_time.c; cc-event(1) lists them) ---- */

/*
 * The range a question asks about.  spec is the specification's four-value
 * TimeRange ("today", "thisWeek", "nextWeek", "thisMonth"): the smallest of
 * the four that contains the asked range, "thisWeek" when no time is named
 * or the range is open ("the next event"), NULL when none contains it (next
 * month).  kind says the range precisely (the names of
 * ../shared/eval/README.md section 4): one of the four above, or
 * tomorrow, dayAfterTomorrow, yesterday, thisWeekend, nextWeekend,
 * weekAfterNext, lastWeek, nextMonth, month, thisYear, weekday, date,
 * nextNDays, range, nextUpcoming.  Weeks are ISO weeks, Monday to Sunday.
 */
struct cc_time_range {
	const char *spec;		/* static string or NULL */
	const char *kind;		/* static string */
	time_t start;			/* inclusive */
	time_t end;			/* exclusive; 0 when open */
	int open;			/* nextUpcoming: from start, no end */
	int implicit;			/* no time named: the spec's default */
	struct cc_date first, last;	/* the local dates covered, inclusive */
	int weekday;			/* kind weekday: 1 Monday ... 7 Sunday */
	int days;			/* kind nextNDays */
	int month_year, month;		/* kind month */
	const char *part_of_day;	/* "morning", "afternoon", "evening",
					   "night" or NULL */
	char title[128];		/* nextUpcoming: the event asked for */
	char expression[128];		/* the words that decided (folded) */
};

/*
 * Read the time range asked in UTF-8 text q[0..len), relative to `now`,
 * in the zone set by cc_tz_use().  Never fails: with no time named the
 * result is this week, implicit.
 */
void cc_time_extract(const char *q, size_t len, time_t now,
	struct cc_time_range *r);
/* ISO weekday 1-7 to "monday" ... "sunday". */
const char *cc_weekday_name(int weekday);

/* ---- HTTP client (cc_http.c) ---- */

/*
 * A small libcurl client for every program that talks to the outside
 * (iCalendar URLs and connpass now; web search and an LLM later).
 * Contract:
 *   - libcurl is initialised once, on first use; cc_http_cleanup() at exit.
 *   - Connect and total timeouts always apply; the body is capped at
 *     max_bytes (after decompression); only http and https, TLS
 *     verification on; redirects only when asked, never with secret
 *     headers.
 *   - A status other than 2xx (or 304 on revalidation) is a failure.
 *   - Headers may hold secrets (API keys from the environment): they are
 *     sent, never logged, never cached, never put in messages.  Messages
 *     name a URL only as scheme://host/... (cc_http_redact).
 *   - GET answers are cached on disk under cc_http_cache_dir() when a
 *     cache_key is given: a copy younger than max_age seconds is used
 *     without asking; an older one is revalidated with If-None-Match /
 *     If-Modified-Since (304 keeps it); when the fetch fails, the stale
 *     copy is still returned, marked stale, with the error set.
 *   - Requests with the same rate_key are spaced at least min_interval_ms
 *     apart, across processes (a lock file in the cache directory).
 */
struct cc_http_request {
	const char *url;
	const char *const *headers;	/* "Name: value", NULL-terminated */
	int secret_headers;		/* headers hold a key: no redirects */
	const char *body;		/* POST body, or NULL for GET */
	size_t body_len;
	long connect_timeout_ms;	/* 0: 5000 */
	long timeout_ms;		/* 0: 15000 */
	size_t max_bytes;		/* 0: 8 MiB */
	int follow_redirects;		/* up to 5, http(s) only */
	const char *cache_key;		/* NULL: no cache; never a secret */
	long max_age;			/* seconds a cached copy is fresh */
	const char *rate_key;		/* NULL: no spacing */
	long min_interval_ms;
	/* optional: each piece of the body as it arrives (streamed answers) */
	void (*on_data)(const char *p, size_t n, void *arg);
	void *on_data_arg;
};

struct cc_http_response {
	long status;			/* HTTP status of the last answer, 0: none */
	struct cc_buf body;		/* the body used (fresh, cached or stale) */
	int from_cache;			/* body came from the cache (fresh or 304) */
	int stale;			/* body is a stale copy kept after a failure */
	const char *error_code;		/* NULL on success; "timeout", "connect",
					   "network", "http_status",
					   "rate_limited", "too_large" */
	char error[256];		/* what failed, safe to show */
};

/* Fetch; 0 on success, -1 with res->error_code set (res->body may still
 * hold a stale copy).  Release res with cc_http_response_release(). */
int cc_http_fetch(const struct cc_http_request *req, struct cc_http_response *res);
void cc_http_response_release(struct cc_http_response *res);
void cc_http_cleanup(void);
/* CC_CACHE_DIR, else $XDG_CACHE_HOME/concierge, else ~/.cache/concierge
 * (fresh string). */
char *cc_http_cache_dir(void);
/* "https://host/..." for messages (fresh string). */
char *cc_http_redact(const char *url);
/* Append s percent-encoded for a URL query. */
void cc_http_urlencode(struct cc_buf *b, const char *s);

/* ---- iCalendar (cc_ics.c) ---- */

/*
 * One occurrence of an event, as cc_ics_expand() and the connpass client
 * produce them.  Strings belong to the source (the calendar) and live as
 * long as it does.
 */
struct cc_event {
	time_t start, end;		/* end == start when no end was given */
	int all_day;
	int has_end;
	const char *title, *description, *location, *url;
	const char *source;		/* the source's name */
	unsigned order;			/* the source's position, for ties */
};

struct cc_event_list {
	struct cc_event *v;
	size_t n, cap;
};
void cc_event_list_add(struct cc_event_list *l, const struct cc_event *e);
void cc_event_list_release(struct cc_event_list *l);
/* Sort chronologically and drop duplicates (same folded title and start
 * time; the first source wins and lends missing fields). */
void cc_event_list_finish(struct cc_event_list *l);

/*
 * Limits that keep hostile calendars from hanging or exhausting memory:
 * a file larger than max_bytes, nested deeper than max_depth or with
 * more than max_events events is refused; one expansion stops after
 * max_occurrences occurrences or max_steps recurrence steps (and says
 * so).
 */
struct cc_ics_limits {
	size_t max_bytes;		/* 0: 8 MiB */
	int max_depth;			/* 0: 16 */
	size_t max_events;		/* 0: 50000 VEVENTs */
	size_t max_occurrences;		/* 0: 10000 */
	size_t max_steps;		/* 0: 200000 */
};

struct cc_ics;			/* a parsed calendar */

/*
 * Parse iCalendar text (RFC 5545).  `name` labels its events.  Returns
 * NULL with a message in err when the text is not a calendar or breaks a
 * limit.  Times without a zone (floating, all-day) are local to CC_TZ.
 */
struct cc_ics *cc_ics_parse(const char *text, size_t len, const char *name,
	const struct cc_ics_limits *lim, char *err, size_t errlen);
/* Read and parse a file; NULL with err set (errno kept for open errors). */
struct cc_ics *cc_ics_load(const char *path, const char *name,
	const struct cc_ics_limits *lim, char *err, size_t errlen);
/*
 * Append the occurrences overlapping [start, end) to out: RRULE (bounded
 * to the range), RDATE, EXDATE, EXRULE, RECURRENCE-ID overrides, and
 * STATUS:CANCELLED removed.  With end == 0, the first `upcoming`
 * occurrences from start on (within a year).  Returns 0, or -1 when a
 * limit stopped the expansion (err says which; what was found is kept).
 */
int cc_ics_expand(struct cc_ics *cal, time_t start, time_t end,
	size_t upcoming, struct cc_event_list *out, char *err, size_t errlen);
/* Events (masters and overrides) in the calendar. */
size_t cc_ics_count(const struct cc_ics *cal);
void cc_ics_free(struct cc_ics *cal);
/* Free libical's time-zone cache (at exit, for leak checkers). */
void cc_ics_cleanup(void);

/* ---- event sources and the events value (cc_event.c, cc-event(1)) ---- */

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
 * Write the events object for range r: {time_range, kind, ..., start, end,
 * timezone, expression, items, sources, errors}.  Returns 1 when a
 * network source failed for this record, 2 when a calendar file is bad,
 * else 0.
 */
int cc_event_write(struct cc_event_sources *s, const struct cc_time_range *r,
	struct cc_jw *out);

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

/* ---- terminal output (cc_term.c) ---- */

/*
 * Append s[0..n) to out in a form that cannot act on a terminal: C0
 * controls and DEL in caret notation (^[, ^M, ^?), C1 controls and the
 * invisible bidirectional controls as <U+202E>, invalid UTF-8 bytes as
 * \xFF.  Newlines and tabs are kept only when the flags say so.  Returns
 * how many things were escaped.
 */
#define CC_TERM_KEEP_NEWLINE 1
#define CC_TERM_KEEP_TAB 2
size_t cc_term_escape(struct cc_buf *out, const char *s, size_t n, int flags);

/* ---- running the pipeline (cc_pipe.c) ---- */

/*
 * The stages of the pipeline, as program paths or names, in order: from
 * CC_STAGES (colon-separated) when set, else from `concierge stages
 * --path` (the driver beside this program, else in PATH), so the list is
 * written in one place.  NULL with a message in err; free with
 * cc_stages_free().
 */
char **cc_stages_find(size_t *n, char *err, size_t errlen);
void cc_stages_free(char **stages);
/* The program name of a stage path: "cc-route" for ".../src/cc-route". */
const char *cc_stage_name(const char *path);

/*
 * A running pipeline: stages exec'd directly (no shell), joined by pipes,
 * in a process group of their own.  Write records to `in`, read them from
 * `out`; both are close-on-exec, and so must be every other descriptor of
 * the caller that the stages should not inherit.
 */
#define CC_PIPE_MAX 16
struct cc_pipe {
	int in, out;		/* -1 once closed */
	pid_t pgid;
	pid_t pids[CC_PIPE_MAX];
	int status[CC_PIPE_MAX];	/* each stage's exit status, after finish */
	size_t n;
	int killed;
};
/*
 * Start stages[0..n).  env is NULL or a NULL-terminated list of name,
 * value pairs set in the children (CC_STATE_DIR, CC_NOW).  0, or -1 with
 * a message in err.
 */
int cc_pipe_start(struct cc_pipe *p, char *const *stages, size_t n,
	const char *const *env, char *err, size_t errlen);
/* Cancel: SIGTERM to the whole group. */
void cc_pipe_kill(struct cc_pipe *p);
/*
 * Close what is still open, reap every stage and return the worst exit
 * status (the table above; a stage that could not be run counts as
 * CC_EXIT_USAGE, one killed by a signal we did not send or exiting with
 * a status outside the table as CC_EXIT_INTERNAL).
 */
int cc_pipe_finish(struct cc_pipe *p);

#endif
