/*
 * The NDJSON record stream: one record per line in, one line out, in order.
 *
 * Each line is checked and compacted by cc_json_scan() without building jv
 * values; the stage reads the few members it needs through the accessors,
 * and its key is spliced onto the compact text.  Fields the stage does not
 * own therefore leave exactly as they came (integers beyond 2^53 included).
 * Only a line whose text cannot be copied (invalid UTF-8, raw control
 * characters, a bare string) is parsed whole with libjq and re-serialised.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_record.h"

void
cc_buf_grow(struct cc_buf *b, size_t n)
{
	b->cap = (b->len + n + 1) * 2;
	b->data = cc_xrealloc(b->data, b->cap);
}

void
cc_buf_release(struct cc_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* ---- accessors ---- */

#define MEMO_MIN 256	/* shorter texts cost less to read than to compare */
#define NMEMO (sizeof ((struct cc_record *)0)->memo / sizeof (struct cc_record_memo))

/* The jv of the JSON text t[0..n), from the memo when it holds t. */
static jv
memo_value(struct cc_record *rec, const char *t, size_t n)
{
	struct cc_record_memo *m;
	jv v;

	if (n < MEMO_MIN)
		return cc_json_to_jv(t, n);
	for (size_t i = 0; i < NMEMO; i++) {
		m = &rec->memo[i];
		if (m->text && m->len == n && memcmp(m->text, t, n) == 0)
			return jv_copy(m->v);
	}
	v = cc_json_to_jv(t, n);
	m = &rec->memo[rec->memo_next++ % NMEMO];
	if (m->text)
		jv_free(m->v);
	m->text = cc_xrealloc(m->text, n);
	memcpy(m->text, t, n);
	m->len = n;
	m->v = jv_copy(v);
	return v;
}

static void
memo_release(struct cc_record *rec)
{
	for (size_t i = 0; i < NMEMO; i++) {
		if (rec->memo[i].text)
			jv_free(rec->memo[i].v);
		free(rec->memo[i].text);
		rec->memo[i].text = NULL;
	}
}

jv
cc_record_get(struct cc_record *rec, const char *key)
{
	const struct cc_json_field *f;

	if (jv_is_valid(rec->whole)) {
		if (!jv_object_has(jv_copy(rec->whole), jv_string(key)))
			return jv_invalid();
		return jv_object_get(jv_copy(rec->whole), jv_string(key));
	}
	f = cc_json_field(&rec->doc, key);
	if (!f)
		return jv_invalid();
	return memo_value(rec, rec->doc.text.data + f->val_at, f->val_len);
}

const char *
cc_record_raw(struct cc_record *rec, const char *key, size_t *len)
{
	const struct cc_json_field *f;

	if (jv_is_valid(rec->whole)) {	/* rare: re-serialise the member */
		jv v = cc_record_get(rec, key);
		struct cc_buf b = {0};
		const char *s;

		if (!jv_is_valid(v)) {
			jv_free(v);
			return NULL;
		}
		cc_json_put(&b, v);
		jv_free(v);
		v = jv_string_sized(b.data, (int)b.len);
		cc_buf_release(&b);
		*len = (size_t)jv_string_length_bytes(jv_copy(v));
		s = jv_string_value(v);
		rec->held = jv_array_append(rec->held, v);	/* keeps s alive */
		return s;
	}
	if (!(f = cc_json_field(&rec->doc, key)))
		return NULL;
	*len = f->val_len;
	return rec->doc.text.data + f->val_at;
}

/* The name of path that begins at *path (up to a dot or the end) into
 * key; *path moves past it and its dot.  0, or -1 when it is too long. */
static int
next_name(const char **path, char *key, size_t size, int *more)
{
	size_t k = strcspn(*path, ".");

	if (k >= size)
		return -1;
	memcpy(key, *path, k);
	key[k] = '\0';
	*more = (*path)[k] == '.';
	*path += k + *more;
	return 0;
}

const char *
cc_record_raw_at(struct cc_record *rec, const char *path, size_t *len)
{
	char key[64];
	const char *v;
	int more;

	if (next_name(&path, key, sizeof key, &more) < 0)
		return NULL;
	v = cc_record_raw(rec, key, len);
	if (v && more && !jv_is_valid(rec->whole)) {
		/* the second name from the scan's index, not by a walk */
		const struct cc_json_field *f = cc_json_field(&rec->doc, key);

		if (next_name(&path, key, sizeof key, &more) < 0 ||
		    !(f = cc_json_subfield(&rec->doc, f, key)))
			return NULL;
		v = rec->doc.text.data + f->val_at;
		*len = f->val_len;
	}
	for (int depth = 0; v && more; depth++) {
		const char *in = v;
		size_t in_len = *len;

		if (next_name(&path, key, sizeof key, &more) < 0)
			return NULL;
		if (rec->walk_in == in && rec->walk_in_len == in_len &&
		    strcmp(rec->walk_key, key) == 0) {
			v = rec->walk_v;	/* walked already this record */
			*len = rec->walk_len;
			continue;
		}
		{
			const char *last = cc_json_member_last(v, *len, key, len);

			v = last ? last : cc_json_member(v, *len, key, len);
		}
		/* the first walk only: route.debug_info.session, then .id */
		if (v && depth == 0 && strlen(key) < sizeof rec->walk_key) {
			rec->walk_in = in;
			rec->walk_in_len = in_len;
			strcpy(rec->walk_key, key);
			rec->walk_v = v;
			rec->walk_len = *len;
		}
	}
	return v;
}

int
cc_record_members(struct cc_record *rec, const char *key, const char *raw,
    size_t len, const char *const keys[], const char *vals[], size_t lens[])
{
	const struct cc_json_field *f;
	int found = 0;

	if (jv_is_valid(rec->whole) || !(f = cc_json_field(&rec->doc, key)) ||
	    rec->doc.text.data + f->val_at != raw || f->val_len != len ||
	    !len || *raw != '{')
		return cc_json_members(raw, len, keys, vals, lens);
	/* the last of a repeated name, as cc_json_members() takes it */
	for (int k = 0; keys[k]; k++) {
		const struct cc_json_field *m = cc_json_subfield(&rec->doc, f, keys[k]);

		vals[k] = m ? rec->doc.text.data + m->val_at : NULL;
		if (m) {
			lens[k] = m->val_len;
			found++;
		}
	}
	return found;
}

jv
cc_record_at(struct cc_record *rec, const char *path)
{
	size_t len;
	const char *v;

	if (jv_is_valid(rec->whole)) {	/* rare: walk the parsed record */
		jv cur = jv_copy(rec->whole);

		while (*path && jv_is_valid(cur)) {
			size_t k = strcspn(path, ".");
			jv key = jv_string_sized(path, (int)k);

			path += k + (path[k] == '.');
			if (jv_get_kind(cur) != JV_KIND_OBJECT ||
			    !jv_object_has(jv_copy(cur), jv_copy(key))) {
				jv_free(key);
				jv_free(cur);
				return jv_invalid();
			}
			cur = jv_object_get(cur, key);
		}
		return cur;
	}
	v = cc_record_raw_at(rec, path, &len);

	return v ? cc_json_to_jv(v, len) : jv_invalid();
}

int
cc_record_has(struct cc_record *rec, const char *key)
{
	if (jv_is_valid(rec->whole))
		return jv_object_has(jv_copy(rec->whole), jv_string(key));
	return cc_json_field(&rec->doc, key) != NULL;
}

const char *
cc_record_str(struct cc_record *rec, const char *key, size_t *len)
{
	const struct cc_json_field *f;
	const char *s;
	jv v;

	if (!jv_is_valid(rec->whole) && (f = cc_json_field(&rec->doc, key)) &&
	    rec->doc.text.data[f->val_at] == '"' &&
	    !memchr(rec->doc.text.data + f->val_at, '\\', f->val_len)) {
		/* no escapes: the JSON text is the string itself */
		*len = f->val_len - 2;
		return rec->doc.text.data + f->val_at + 1;
	}
	v = cc_record_get(rec, key);
	if (jv_get_kind(v) != JV_KIND_STRING) {
		jv_free(v);
		return NULL;
	}
	*len = (size_t)jv_string_length_bytes(jv_copy(v));
	s = jv_string_value(v);
	rec->held = jv_array_append(rec->held, v);	/* keeps s alive */
	return s;
}

enum cc_outcome
cc_record_fail(struct cc_record *rec, const char *code, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(rec->fail_message, sizeof rec->fail_message, fmt, ap);
	va_end(ap);
	/* a cut message must not end inside a UTF-8 sequence */
	n = strlen(rec->fail_message);
	if (n == sizeof rec->fail_message - 1)
		while (n > 0 && ((unsigned char)rec->fail_message[n] & 0xC0) == 0x80)
			rec->fail_message[--n] = '\0';
	if (n > 0 && ((unsigned char)rec->fail_message[n - 1] & 0xC0) == 0xC0)
		rec->fail_message[n - 1] = '\0';
	rec->fail_code = code;
	return CC_RECORD_FAIL;
}

/* ---- output ---- */

/* What the output line is, for a next stage that takes it as a record. */
enum edit {
	EDIT_TEXT,		/* only its text: the next stage reads it */
	EDIT_SAME,		/* rec.doc's text, unchanged */
	EDIT_SET,		/* rec.doc's text with edit_key set to value */
};

struct run {
	struct cc_stage *stage;
	struct cc_record rec;
	struct cc_buf out;	/* the output line */
	struct cc_buf value;	/* the stage's value, as JSON text */
	int status;
	enum edit edit;
	const char *edit_key;
	struct cc_json_doc vdoc;	/* the value, checked (handoff) */
	const struct cc_json_doc *vindex;	/* the stage's own index of it */
	int chained;	/* the value goes on to a stage in this process */
	/*
	 * The next record was handed over by the stage before, already a
	 * checked document in rec.doc (have_doc), or as a line in intext.
	 */
	int have_doc;
	struct cc_buf intext;
};

static void
write_error(struct cc_jw *w, struct run *r, const char *code, const char *message)
{
	cc_jw_object(w);
	cc_jw_key(w, "stage");
	cc_jw_cstr(w, r->stage->name);
	cc_jw_key(w, "code");
	cc_jw_cstr(w, code);
	cc_jw_key(w, "message");
	cc_jw_cstr(w, message);
	cc_jw_key(w, "line");
	cc_jw_num(w, (double)r->rec.line);
	cc_jw_end(w);
	cc_warn("line %lu: %s", r->rec.line, message);
	r->status = CC_EXIT_DATA;
}

/* A line that is not a record: {"error": {...}, "input": "<the line>"}. */
static void
bad_line(struct run *r, const char *code, const char *message,
    const char *raw, size_t len)
{
	struct cc_jw w;
	jv input;

	if (r->stage->render) {	/* only answers are written: say it on stderr */
		cc_warn("line %lu: %s", r->rec.line, message);
		r->status = CC_EXIT_DATA;
		return;
	}
	input = jv_string_sized(raw, (int)len);	/* replaces bad UTF-8 */
	cc_jw_init(&w, &r->out);
	cc_jw_object(&w);
	cc_jw_key(&w, "error");
	write_error(&w, r, code, message);
	cc_jw_key(&w, "input");
	cc_jw_jv(&w, input);
	cc_jw_end(&w);
	jv_free(input);
}

/* The record with `key` set to the JSON text in r->value. */
static void
put_with(struct run *r, const char *key)
{
	struct cc_json_doc *d = &r->rec.doc;
	const struct cc_json_field *f;

	if (jv_is_valid(r->rec.whole)) {
		jv whole = jv_object_set(jv_copy(r->rec.whole), jv_string(key),
		    jv_parse_sized(r->value.data, (int)r->value.len));

		cc_json_put(&r->out, whole);
		jv_free(whole);
		return;
	}
	r->edit = EDIT_SET;
	r->edit_key = key;
	f = cc_json_field(d, key);
	if (f) {		/* replace the member's value in place */
		cc_buf_add(&r->out, d->text.data, f->val_at);
		cc_buf_add(&r->out, r->value.data, r->value.len);
		cc_buf_add(&r->out, d->text.data + f->val_at + f->val_len,
		    d->text.len - f->val_at - f->val_len);
	} else {		/* append it before the closing brace */
		cc_buf_add(&r->out, d->text.data, d->text.len - 1);
		if (d->nfields)
			cc_buf_add(&r->out, ",", 1);
		cc_buf_add(&r->out, "\"", 1);
		cc_buf_add(&r->out, key, strlen(key));
		cc_buf_add(&r->out, "\":", 2);
		cc_buf_add(&r->out, r->value.data, r->value.len);
		cc_buf_add(&r->out, "}", 1);
	}
}

static void
put_unchanged(struct run *r)
{
	if (jv_is_valid(r->rec.whole)) {
		cc_json_put(&r->out, r->rec.whole);
	} else {
		r->edit = EDIT_SAME;
		cc_buf_add(&r->out, r->rec.doc.text.data, r->rec.doc.text.len);
	}
}

static void process_record(struct run *r);

static void
process_line(struct run *r, const char *raw, size_t len)
{
	struct cc_record *rec = &r->rec;
	char first, msg[160];

	if (cc_json_scan(&rec->doc, raw, len) < 0) {
		snprintf(msg, sizeof msg, "invalid JSON at column %zu: %s",
		    rec->doc.err_col, rec->doc.err);
		bad_line(r, "bad_json", msg, raw, len);
		return;
	}
	first = rec->doc.text.data[0];
	if (first != '{' && first != '"') {
		bad_line(r, "not_object", "a record must be a JSON object or string",
		    raw, len);
		return;
	}
	if (first == '"' || rec->doc.needs_rewrite) {
		/* the checked text: control characters in it are escaped now */
		jv whole = jv_parse_sized(rec->doc.text.data, (int)rec->doc.text.len);

		if (!jv_is_valid(whole)) {	/* libjq nests only 256 deep */
			jv_free(whole);
			bad_line(r, "bad_json", "invalid JSON: nested too deeply "
			    "for libjq", raw, len);
			return;
		}
		if (first == '"')	/* convenience: a bare string is a query */
			whole = jv_object_set(jv_object(), jv_string("query"), whole);
		rec->whole = whole;
	}
	process_record(r);
}

/* The record in r->rec, checked: the stage's output line into r->out. */
static void
process_record(struct run *r)
{
	struct cc_record *rec = &r->rec;
	struct cc_jw w;

	if (cc_record_has(rec, "error")) {
		put_unchanged(r);	/* an earlier stage's error passes untouched */
		return;
	}
	r->value.len = 0;
	r->vindex = NULL;
	cc_jw_init(&w, &r->value);
	if (r->chained)		/* index it as it is written: no scan after */
		cc_jw_track(&w, &r->vdoc);
	/* no process: a stage its domain does not run passes everything on */
	switch (r->stage->process ? r->stage->process(r->stage->ctx, rec, &w) :
	    CC_RECORD_PASS) {
	case CC_RECORD_SET:
		r->vindex = w.index ? w.index : cc_jw_tracked(&w);
		if (r->stage->render)
			r->stage->render(r->stage->ctx, r->value.data, r->value.len,
			    &r->out);
		else
			put_with(r, r->stage->key);
		break;
	case CC_RECORD_FAIL:
		r->value.len = 0;
		cc_jw_init(&w, &r->value);
		write_error(&w, r, rec->fail_code, rec->fail_message);
		if (!r->stage->render)
			put_with(r, "error");
		break;
	default:
		if (!r->stage->render)
			put_unchanged(r);
	}
}

static int
blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

static void end_record(struct run *r, size_t before);

/* One physical input line (its newline included or not): its output line
 * (if any) appended to r->out. */
static void
run_line(struct run *r, const char *line, size_t len)
{
	size_t before = r->out.len;

	r->rec.line++;
	r->edit = EDIT_TEXT;
	r->vindex = NULL;
	if (len && line[len - 1] == '\n')
		len--;
	if (len && line[len - 1] == '\r')
		len--;
	if (blank(line, len))
		return;
	if (len > INT32_MAX)	/* libjq lengths are int */
		bad_line(r, "too_long", "line longer than 2 GiB", line, 4096);
	else
		process_line(r, line, len);
	end_record(r, before);
}

/* After a record: what its accessors held goes, and its line ends. */
static void
end_record(struct run *r, size_t before)
{
	jv_free(r->rec.whole);
	r->rec.whole = jv_invalid();
	r->rec.walk_in = NULL;	/* its text goes with the record */
	if (jv_array_length(jv_copy(r->rec.held)) > 0) {
		jv_free(r->rec.held);
		r->rec.held = jv_array();
	}
	if (r->out.len > before || !r->stage->render)
		cc_buf_add(&r->out, "\n", 1);
}

/*
 * 1 if a line is already waiting in `in`'s buffer, so reading it will not
 * block.  glibc's FILE fields say so; elsewhere assume it would block.
 */
static int
input_buffered(FILE *in)
{
#ifdef __GLIBC__
	/* a whole line: getline() on part of one would block for the rest */
	return in->_IO_read_ptr < in->_IO_read_end &&
	    memchr(in->_IO_read_ptr, '\n', (size_t)(in->_IO_read_end - in->_IO_read_ptr));
#else
	(void)in;
	return 0;
#endif
}

/* 1 if input can be read within ms milliseconds (or at once: EOF, error). */
static int
input_within(FILE *in, int ms)
{
	struct pollfd p = { fileno(in), POLLIN, 0 };
	int rc;

	while ((rc = poll(&p, 1, ms)) < 0 && errno == EINTR)
		;
	return rc != 0;
}

/*
 * Hand the records built so far on: first let the stage settle what it
 * wrote elsewhere (cc-route commits its session turns), so a later stage
 * never sees a record whose turn it cannot read; then write them.
 *
 * They leave whole.  SIGINT, SIGTERM and SIGHUP wait until they are
 * written and flushed, and then end the program at once with the
 * signal's status (their default action; nothing is caught).  Before, a
 * signal between two writes left half a record in the output (the tail
 * that stdio kept of a chunk), which the next stage took for bad JSON.
 */
static int
hand_on(struct run *r, FILE *out)
{
	sigset_t hold, old;
	int rc = 0;

	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigprocmask(SIG_BLOCK, &hold, &old);
	if (r->stage->flush)
		r->stage->flush(r->stage->ctx);
	if (r->out.len && fwrite(r->out.data, 1, r->out.len, out) != r->out.len)
		rc = -1;
	r->out.len = 0;
	if (fflush(out) != 0)
		rc = -1;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/*
 * Records are handed on in chunks while more input is ready (batch
 * throughput), and at once before a read could block or after every
 * record when interactive (nobody waits on a stuck buffer).  So a stage
 * never holds what it wrote (a session transaction, output) while it
 * waits on a pipe.  For a stage with a flush hook a chunk is also its
 * write batch (cc-route commits its turns before handing their records
 * on): at 64 kB, 40 records, its commits cost more than its routing, so
 * it hands on a megabyte at a time.  The others keep chunks small, which
 * lets the next stage start sooner (a megabyte everywhere cost the
 * pipeline a fifth more time).
 */
#define CHUNK 65536
#define FLUSH_CHUNK (1 << 20)

int
cc_record_run(struct cc_stage *stage, FILE *in, FILE *out)
{
	struct run r = { .stage = stage };
	int interactive = stage->unbuffered || isatty(fileno(out));
	size_t chunk = stage->flush ? FLUSH_CHUNK : CHUNK;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int failed = 0;

	/*
	 * A pipe's worth of input at a time.  Behind cc-rag a record is 5 kB,
	 * more than stdio's 4 kB buffer: every record cost two reads and a
	 * poll (the buffer never held a whole line), a fifth of the
	 * pipeline's time in system calls.  A read still returns what the
	 * pipe holds, so a quiet stream waits no longer.  Only before the
	 * first read (setvbuf after one loses what is buffered), and not
	 * over a buffer the program gave the stream itself (cc-coach's).
	 */
	static char inbuf[1 << 16];

#ifdef __GLIBC__
	if (!in->_IO_buf_base)
#endif
		setvbuf(in, inbuf, _IOFBF, sizeof inbuf);
	r.rec.whole = jv_invalid();
	r.rec.held = jv_array();
	for (;;) {
		/*
		 * The next line may keep us waiting only when stdio holds no
		 * whole one and the descriptor has nothing to read yet (a
		 * file always has: batch input is handed on in chunks).
		 */
		int waiting = !input_buffered(in) && !input_within(in, 0);

		if (r.out.len && waiting && hand_on(&r, out) < 0) {
			failed = 1;
			break;
		}
		if (stage->idle && waiting && !input_within(in, CC_RECORD_IDLE_MS))
			stage->idle(stage->ctx);
		if ((n = getline(&line, &cap, in)) < 0)
			break;
		run_line(&r, line, (size_t)n);
		if ((interactive || r.out.len >= chunk) && hand_on(&r, out) < 0) {
			failed = 1;
			break;
		}
	}
	free(line);
	if (stage->idle)
		stage->idle(stage->ctx);
	jv_free(r.rec.held);
	memo_release(&r.rec);
	cc_json_doc_release(&r.rec.doc);
	if (!failed && ferror(in)) {
		cc_warn("cannot read input: %s", strerror(errno));
		cc_buf_release(&r.out);
		cc_buf_release(&r.value);
		return CC_EXIT_INTERNAL;
	}
	if (failed || hand_on(&r, out) != 0 || ferror(out)) {
		cc_warn("cannot write output: %s", strerror(errno));
		cc_buf_release(&r.out);
		cc_buf_release(&r.value);
		return CC_EXIT_INTERNAL;
	}
	cc_buf_release(&r.out);
	cc_buf_release(&r.value);
	return r.status;
}

/* ---- a record at a time, for stages chained in one process ---- */

struct cc_record_stream {
	struct run r;
	int held;		/* flush() is the caller's (cc_record_stream_hold) */
};

struct cc_record_stream *
cc_record_stream_new(struct cc_stage *stage)
{
	struct cc_record_stream *s = cc_xmalloc(sizeof *s);

	memset(s, 0, sizeof *s);
	s->r.stage = stage;
	s->r.rec.whole = jv_invalid();
	s->r.rec.held = jv_array();
	return s;
}

void
cc_record_stream_line(struct cc_record_stream *s, const char *line, size_t len,
    struct cc_buf *out)
{
	struct run *r = &s->r;

	run_line(r, line, len);
	/* what hand_on() does before the next stage may see the record */
	if (r->stage->flush && !s->held)
		r->stage->flush(r->stage->ctx);
	cc_buf_add(out, r->out.data, r->out.len);
	r->out.len = 0;
}

/* Room for n fields in a document's index (fields or subs). */
static struct cc_json_field *
fields_room(struct cc_json_field *f, size_t *cap, size_t n)
{
	if (n > *cap) {
		*cap = n < 16 ? 16 : n * 2;
		f = cc_xrealloc(f, *cap * sizeof *f);
	}
	return f;
}

/*
 * The document a full scan of r's output line would give, built from
 * the one r read and the value it set, into nd; r->out's text moves
 * there.  -1 when it cannot be (then the next stage reads the line): the
 * value is not compact, valid text as a scan would leave it.  The value
 * is checked in full (in place: cc_json_index), but nothing else: the
 * rest is the text r read, checked already.
 */
static int
build_doc(struct run *r, struct cc_json_doc *nd)
{
	const struct cc_json_doc *d = &r->rec.doc;
	const struct cc_json_field *f;
	const struct cc_json_doc *v = r->vindex;
	size_t fi = (size_t)-1, klen, nsub, at;
	ptrdiff_t delta;

	if (r->edit == EDIT_SAME) {
		struct cc_json_doc t = *nd;

		*nd = r->rec.doc;	/* the same text and index: swap */
		r->rec.doc = t;
		return 0;
	}
	/*
	 * the stage's writer made it: check it where it lies, not copied,
	 * unless the stage kept the index of these very bytes (cc-rag's
	 * cached answers)
	 */
	if (!v) {
		if (cc_json_index(&r->vdoc, r->value.data, r->value.len) < 0)
			return -1;
		v = &r->vdoc;
	}
	if ((f = cc_json_field(d, r->edit_key)))
		fi = (size_t)(f - d->fields);
	klen = strlen(r->edit_key);
	delta = (ptrdiff_t)r->value.len - (ptrdiff_t)(f ? f->val_len : 0);
	nd->fields = fields_room(nd->fields, &nd->cap, d->nfields + 1);
	nsub = d->nsubs + v->nfields;
	if (f)
		nsub -= f->nsub;
	nd->subs = fields_room(nd->subs, &nd->subcap, nsub);
	nd->nfields = nd->nsubs = 0;
	for (size_t i = 0; i < d->nfields; i++) {
		struct cc_json_field g = d->fields[i];
		const struct cc_json_field *from = d->subs + g.sub;
		size_t n = g.nsub;
		ptrdiff_t shift = f && g.val_at > f->val_at ? delta : 0;

		if (i == fi) {
			g.val_len = r->value.len;
			from = v->fields;
			n = v->nfields;
			shift = (ptrdiff_t)g.val_at;
		}
		g.key_at = (size_t)((ptrdiff_t)g.key_at + (i == fi ? 0 : shift));
		g.val_at = (size_t)((ptrdiff_t)g.val_at + (i == fi ? 0 : shift));
		g.sub = nd->nsubs;
		g.nsub = n;
		for (size_t k = 0; k < n; k++) {
			struct cc_json_field x = from[k];

			x.key_at = (size_t)((ptrdiff_t)x.key_at + shift);
			x.val_at = (size_t)((ptrdiff_t)x.val_at + shift);
			x.sub = x.nsub = 0;
			nd->subs[nd->nsubs++] = x;
		}
		nd->fields[nd->nfields++] = g;
	}
	if (!f) {	/* appended: ,"key":value} */
		struct cc_json_field g;

		at = d->text.len - 1 + (d->nfields ? 1 : 0) + 1;
		g.key_at = at;
		g.key_len = klen;
		g.val_at = at + klen + 2;
		g.val_len = r->value.len;
		g.sub = nd->nsubs;
		g.nsub = v->nfields;
		for (size_t k = 0; k < v->nfields; k++) {
			struct cc_json_field x = v->fields[k];

			x.key_at += g.val_at;
			x.val_at += g.val_at;
			x.sub = x.nsub = 0;
			nd->subs[nd->nsubs++] = x;
		}
		nd->fields[nd->nfields++] = g;
	}
	/* the line without its newline is the text */
	{
		struct cc_buf t = nd->text;

		nd->text = r->out;
		nd->text.len--;
		nd->text.data[nd->text.len] = '\0';
		r->out = t;
		r->out.len = 0;
	}
	nd->needs_rewrite = 0;
	nd->err = NULL;
	nd->err_col = 0;
	return 0;
}

int
cc_record_stream_pass(struct cc_record_stream *s, const char *line, size_t len,
    struct cc_record_stream *next, struct cc_buf *out)
{
	struct run *r = &s->r;
	size_t before = r->out.len;

	r->chained = next && !r->stage->render;
	if (r->have_doc) {	/* handed over checked: no scan */
		r->have_doc = 0;
		r->rec.line++;
		r->edit = EDIT_TEXT;
		process_record(r);
		end_record(r, before);
	} else if (!line) {
		run_line(r, r->intext.data, r->intext.len);
	} else {
		run_line(r, line, len);
	}
	/* what hand_on() does before the next stage may see the record */
	if (r->stage->flush && !s->held)
		r->stage->flush(r->stage->ctx);
	if (r->out.len == 0)
		return 0;
	if (!next) {
		cc_buf_add(out, r->out.data, r->out.len);
		r->out.len = 0;
		return 1;
	}
	if (r->edit != EDIT_TEXT && !r->stage->render &&
	    build_doc(r, &next->r.rec.doc) == 0) {
		next->r.have_doc = 1;
	} else {
		struct cc_buf t = next->r.intext;

		next->r.intext = r->out;
		r->out = t;
	}
	r->out.len = 0;
	return 1;
}

int
cc_record_stream_free(struct cc_record_stream *s)
{
	int status;

	if (!s)
		return CC_EXIT_OK;
	/* the end of cc_record_run(): idle, then the last hand_on()'s flush */
	if (s->r.stage->idle)
		s->r.stage->idle(s->r.stage->ctx);
	if (s->r.stage->flush)
		s->r.stage->flush(s->r.stage->ctx);
	status = s->r.status;
	jv_free(s->r.rec.held);
	memo_release(&s->r.rec);
	cc_json_doc_release(&s->r.rec.doc);
	cc_json_doc_release(&s->r.vdoc);
	cc_buf_release(&s->r.out);
	cc_buf_release(&s->r.value);
	cc_buf_release(&s->r.intext);
	free(s);
	return status;
}

void
cc_record_stream_hold(struct cc_record_stream *s)
{
	s->held = 1;
}

void
cc_record_stream_seek(struct cc_record_stream *s, unsigned long n)
{
	s->r.rec.line = n ? n - 1 : 0;
}

char *
cc_record_line_session(struct cc_json_doc *doc, const char *line, size_t len)
{
	struct cc_record rec;
	char *id = NULL;

	if (len && line[len - 1] == '\n')
		len--;
	if (len && line[len - 1] == '\r')
		len--;
	if (len > INT32_MAX || cc_json_scan(doc, line, len) < 0 ||
	    doc->text.data[0] != '{')
		return NULL;	/* no record, or a bare string: no session */
	memset(&rec, 0, sizeof rec);
	rec.doc = *doc;
	rec.whole = jv_invalid();
	rec.held = jv_array();
	if (doc->needs_rewrite) {	/* as process_line() reads it */
		rec.whole = jv_parse_sized(doc->text.data, (int)doc->text.len);
		if (!jv_is_valid(rec.whole)) {
			jv_free(rec.whole);
			jv_free(rec.held);
			return NULL;
		}
	}
	if (!cc_record_has(&rec, "error"))	/* stages pass it untouched */
		id = cc_record_session_id(&rec);
	*doc = rec.doc;	/* the accessors only read it */
	jv_free(rec.whole);
	jv_free(rec.held);
	memo_release(&rec);
	return id;
}

char *
cc_record_session_id(struct cc_record *rec)
{
	static const char *const keys[] = { "session_id", "sessionId" };

	for (int i = 0; i < 2; i++) {
		size_t n;
		const char *s = cc_record_str(rec, keys[i], &n);
		jv v;
		char *id = NULL;

		if (s && n > 0 && !memchr(s, '\0', n)) {
			id = cc_xmalloc(n + 1);
			memcpy(id, s, n);
			id[n] = '\0';
			return id;
		}
		if (!cc_record_has(rec, keys[i]))
			continue;
		v = cc_record_get(rec, keys[i]);
		if (jv_get_kind(v) == JV_KIND_NUMBER) {
			jv text = jv_dump_string(jv_copy(v), 0);
			id = cc_xstrdup(jv_string_value(text));
			jv_free(text);
		}
		jv_free(v);
		if (id)
			return id;
	}
	return NULL;
}
