/*
 * Fuzz target "record": lines through cc_record_run(), the loop of every
 * stage (cc_json_scan, the accessors, error records, splicing the stage's
 * key onto the compact text), read from memory instead of stdin.  The stage
 * reads members the way the real ones do and writes a language detection.
 *
 * Checked: every output line is one JSON object; each non-blank input line
 * gives exactly one output line; compacting is idempotent (the compact text
 * scans to itself).  The same input also runs through a rendering stage
 * (cc-respond --text), which writes only what it renders.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_lang.h"
#include "fuzz.h"

/*
 * A nested member read by skipping through the text (cc_record_at) is the
 * value parsing its whole parent gives, and the fast compact-text reader
 * agrees with libjq's parser wherever libjq can parse.
 */
static void
nested(struct cc_record *rec)
{
	static const char *const keys[] = { "agent", "debug_info", "x" };
	size_t len;
	const char *raw = cc_record_raw(rec, "route", &len);
	jv route = cc_record_get(rec, "route");

	if (raw && !jv_is_valid(rec->whole)) {
		jv slow = jv_parse_sized(raw, (int)len);

		if (jv_is_valid(slow))
			fuzz_assert(jv_equal(jv_copy(slow), jv_copy(route)));
		jv_free(slow);
	}
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		char path[32];
		jv got, want = jv_invalid();

		snprintf(path, sizeof path, "route.%s", keys[i]);
		got = cc_record_at(rec, path);
		if (jv_get_kind(route) == JV_KIND_OBJECT &&
		    jv_object_has(jv_copy(route), jv_string(keys[i]))) {
			jv_free(want);
			want = jv_object_get(jv_copy(route), jv_string(keys[i]));
		}
		fuzz_assert(jv_is_valid(got) == jv_is_valid(want));
		if (jv_is_valid(got))
			fuzz_assert(jv_equal(jv_copy(got), jv_copy(want)));
		jv_free(got);
		jv_free(want);
	}
	jv_free(route);
}

static enum cc_outcome
process(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct cc_lang_result r;
	size_t len, n;
	const char *q = cc_record_query(rec, &len);
	jv id;

	(void)ctx;
	/* the members stages read: a string, raw JSON text, a whole value */
	cc_record_str(rec, "session_id", &n);
	cc_record_raw(rec, "route", &n);
	id = cc_record_get(rec, "id");
	jv_free(id);
	nested(rec);
	if (cc_record_has(rec, "pass"))
		return CC_RECORD_PASS;
	if (!q)
		return cc_record_fail(rec, "no_query",
		    "the record has no string \"query\"");
	if (len && q[0] == '!')	/* a message cut in a character */
		return cc_record_fail(rec, "bad", "%.*s", (int)len, q);
	cc_lang_detect(q, len, &r);
	cc_lang_write(&r, out);
	return CC_RECORD_SET;
}

static void
render(void *ctx, const char *value, size_t len, struct cc_buf *line)
{
	(void)ctx;
	cc_buf_add(line, value, len);
}

static size_t
nonblank_lines(const char *s, size_t n)
{
	size_t lines = 0;
	int blank = 1;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			lines += !blank;
			blank = 1;
		} else if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') {
			blank = 0;
		}
	}
	return lines + !blank;
}

/* Run the stage over data; the output, NUL-terminated, in *out. */
static void
run(struct cc_stage *stage, const char *data, size_t size, char **out,
    size_t *outlen)
{
	FILE *in = fmemopen((void *)data, size, "r");
	FILE *o = open_memstream(out, outlen);

	fuzz_assert(in && o);
	cc_record_run(stage, in, o);
	fclose(in);
	fclose(o);
}

/* Compacting the compact text changes nothing. */
static void
check_idempotent(struct cc_json_doc *a, struct cc_json_doc *b, const char *s,
    size_t n)
{
	if (cc_json_scan(a, s, n) < 0)
		return;
	fuzz_assert(cc_json_scan(b, a->text.data, a->text.len) == 0);
	fuzz_assert(b->text.len == a->text.len);
	fuzz_assert(memcmp(b->text.data, a->text.data, a->text.len) == 0);
	fuzz_assert(b->nfields == a->nfields);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cc_stage stage = {
		.name = "fuzz", .key = "language_detection", .process = process,
	};
	struct cc_json_doc a = {0}, b = {0};
	char *copy, *out = NULL;
	size_t outlen = 0, lines = 0, start = 0;

	if (size == 0)	/* fmemopen refuses an empty buffer */
		return 0;
	copy = cc_xmalloc(size);
	memcpy(copy, data, size);
	cc_progname = "fuzz-record";

	run(&stage, copy, size, &out, &outlen);
	for (size_t i = 0; i < outlen; i++) {
		if (out[i] != '\n')
			continue;
		fuzz_assert(cc_json_scan(&a, out + start, i - start) == 0);
		fuzz_assert(a.text.data[0] == '{');
		lines++;
		start = i + 1;
	}
	fuzz_assert(start == outlen);	/* every line ends in a newline */
	fuzz_assert(lines == nonblank_lines(copy, size));
	free(out);

	out = NULL;
	stage.render = render;
	run(&stage, copy, size, &out, &outlen);
	free(out);

	start = 0;
	for (size_t i = 0; i <= size; i++)
		if (i == size || copy[i] == '\n') {
			check_idempotent(&a, &b, copy + start, i - start);
			start = i + 1;
		}
	cc_json_doc_release(&a);
	cc_json_doc_release(&b);
	free(copy);
	return 0;
}
