/*
 * cc_json.h: JSON text without building values: a growable buffer, a
 * one-pass checker that compacts and indexes a text, reading one member
 * without parsing its neighbours, and a streaming writer.
 *
 * jv ownership follows libjq: a function that takes a jv either "borrows"
 * it (the caller still owns it) or "consumes" it (the caller must not use
 * it again); every declaration that takes a jv in this library says which.
 *
 * Owns: the buffers and documents it is handed (release them with
 * cc_buf_release, cc_json_doc_release).  Borrows: libjq's jv only where a
 * caller asks for a value (cc_json_to_jv, cc_json_parse, cc_jw_jv).
 */
#ifndef CC_JSON_H
#define CC_JSON_H

#include <jv.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/*
 * A member of an object, as offsets into cc_json_doc.text.  A top-level
 * member whose value is an object also has its members indexed: subs[sub]
 * to subs[sub + nsub - 1] of the doc.
 */
struct cc_json_field {
	size_t key_at, key_len;	/* the name, without its quotes */
	size_t val_at, val_len;	/* the value's compact text */
	size_t sub, nsub;	/* a top-level member's own members */
};

/* One JSON text, checked and compacted in a single pass (no jv built). */
struct cc_json_doc {
	struct cc_buf text;	/* the value with insignificant space removed */
	struct cc_json_field *fields;	/* top-level members, in order */
	size_t nfields, cap;
	/*
	 * The members of the top-level members' object values: a stage
	 * reads route.agent or retrieval.results, and walking to it through
	 * the neighbours (a route's debug trace, a retrieval's context) once
	 * for each member read cost more than the scan that indexes them.
	 */
	struct cc_json_field *subs;
	size_t nsubs, subcap;
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
/*
 * The same check, for text that should need no compacting (a value a
 * stage wrote with cc_jw): 0 when cc_json_scan() would accept s[0..n)
 * and leave it byte for byte as it is, needing no rewrite; then doc's
 * members are indexed as a scan would index them, as offsets into s, and
 * doc->text is left empty.  -1 otherwise (scan it to know why).  It
 * costs the check, not the copy.
 */
int cc_json_index(struct cc_json_doc *doc, const char *s, size_t n);
/* The last top-level member named key, or NULL. */
const struct cc_json_field *cc_json_field(const struct cc_json_doc *doc,
	const char *key);
/* The last member named key of top-level member f's object, or NULL. */
const struct cc_json_field *cc_json_subfield(const struct cc_json_doc *doc,
	const struct cc_json_field *f, const char *key);
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
 * The same when key names the object's last member, found from the end
 * (a route's session follows its long debug trace); NULL otherwise,
 * when cc_json_member() must look.
 */
const char *cc_json_member_last(const char *obj, size_t n, const char *key, size_t *len);
/*
 * Several members at once, in one pass over obj (checked compact text):
 * for each name of the NULL-terminated keys, vals[i] and lens[i] are its
 * text (the last one when repeated), or vals[i] NULL.  Returns how many
 * were found.  A record's route carries a large debug trace, and each
 * cc_json_member() call skips through all of it.
 */
int cc_json_members(const char *obj, size_t n, const char *const keys[],
	const char *vals[], size_t lens[]);
/*
 * The elements of the compact array text arr[0..n) (checked by
 * cc_json_scan()), one a call: start with *pos = 0; returns the next
 * element's text, its length in *len, or NULL after the last one (or when
 * arr is no array).  Like cc_json_member(), it skips, never parses.
 */
const char *cc_json_next(const char *arr, size_t n, size_t *pos, size_t *len);
/*
 * The jv of the compact text s[0..n) checked by cc_json_scan(): the same
 * value jv_parse_sized() would give, several times faster.  Owned.
 */
jv cc_json_to_jv(const char *s, size_t n);
/*
 * The string that the string text s[0..n) (quotes included, checked by
 * cc_json_scan()) stands for, decoded into a fresh NUL-terminated
 * buffer: the bytes cc_json_to_jv() would give, without building a jv
 * (whose UTF-8 check costs a long text several times more).
 */
char *cc_json_unescape(const char *s, size_t n);
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
 * An object written again and again with small changes (a session's
 * state): the text of its array and object members, and of the arrays'
 * array and object elements, as last written, so that one that is still
 * the same value (jv_identical: a value held by a jv cannot change) is
 * copied rather than written anew.  A history that grew by one entry
 * costs the new entry.
 */
struct cc_json_memo_part {
	jv v;			/* a copy of the value */
	size_t at, len;		/* its text in the memo's text */
	size_t elem, nelem;	/* an array member's elements in elems */
};
struct cc_json_memo {
	struct cc_buf text;	/* the object as last written */
	struct cc_json_memo_part *parts, *elems;
	jv keys;		/* the parts' member names, an array */
	size_t n, nelems;
};
/* cc_json_put(b, v), and remember v's parts in m; borrows v. */
void cc_json_put_memo(struct cc_buf *b, jv v, struct cc_json_memo *m);
void cc_json_memo_release(struct cc_json_memo *m);

/*
 * An owned jv string of the NUL-terminated s, shared by every call with
 * the same text: for member names and the few words a stage sets again
 * and again.  jv_string() allocates, and an object lookup hashes the
 * name anew each time; this costs a small table lookup, and the hash is
 * computed once.  At most a few hundred distinct texts are shared (the
 * rest are plain jv_string); cc_jv_names_release() frees them.
 */
jv cc_jv_name(const char *s);
void cc_jv_names_release(void);

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
	/* the index of the whole text, when cc_jw_raw_indexed() wrote it */
	const struct cc_json_doc *index;
	/*
	 * Optional (cc_jw_track): a doc whose fields the writer fills as it
	 * writes, as cc_json_index() would index the text, and whether it
	 * can vouch for that (untracked: it cannot).
	 */
	struct cc_json_doc *track;
	int untracked;
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
/*
 * cc_jw_raw() of text whose cc_json_index() the caller kept: idx
 * (borrowed; NULL when it has none) indexes json[0..n) as
 * cc_json_index() would.  When the text is the writer's whole value,
 * w->index is idx, so whoever hands the value on (cc_record.c, between
 * chained stages) takes the index rather than check the same bytes
 * again; any later write clears it.  The caller keeps idx and json alive
 * until the value is handed on.
 */
void cc_jw_raw_indexed(struct cc_jw *w, const char *json, size_t n,
	const struct cc_json_doc *idx);
/*
 * Index the value while writing it, into doc (borrowed; its fields are
 * overwritten): afterwards cc_jw_tracked() gives doc when the writer's
 * text is one value that cc_json_index() would accept as it is, with
 * doc's fields (key_at, key_len, val_at, val_len; no subs) those that
 * cc_json_index() would find, and NULL when it cannot tell (raw text at
 * the top, invalid UTF-8, a member name with escapes, a misuse).  The
 * strings are checked as they are written, not the whole text again:
 * chained stages hand a value on without scanning it (cc_record.c).
 */
void cc_jw_track(struct cc_jw *w, struct cc_json_doc *doc);
/*
 * cc_jw_raw() of a member's text as a checked record gives it
 * (cc_record_raw): valid as it is, so a tracking writer need not check
 * it again unless it is the whole value.
 */
void cc_jw_raw_checked(struct cc_jw *w, const char *json, size_t n);
const struct cc_json_doc *cc_jw_tracked(const struct cc_jw *w);

#endif
