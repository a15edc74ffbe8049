/* Unit tests of the library: text, JSON compaction, records, config, language. */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_text.h"
#include "cc_casual.h"
#include "cc_lang.h"
#include "cc_session.h"
#include "cc_domain.h"
#include "cc_texts.h"
#include "cc_memo.h"
#include "tap.h"

#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

static void
test_utf8(void)
{
	size_t i = 0;

	ok(cc_utf8_valid("abc", 3), "ASCII is valid UTF-8");
	ok(cc_utf8_valid("営業", strlen("営業")), "kanji is valid UTF-8");
	ok(!cc_utf8_valid("a\xff" "b", 3), "a stray 0xff is not");
	ok(!cc_utf8_valid("a\0b", 3), "a NUL byte is refused");
	ok(!cc_utf8_valid("\xe5\x96", 2), "a truncated sequence is not");
	is_int(cc_utf8_next("\xff" "a", 2, &i), 0xFFFD, "bad byte decodes to U+FFFD");
	is_int(i, 1, "and advances one byte");
}

/* The comma-separated lists of the knowledge base's request_types. */
static void
test_csv(void)
{
	const char *list = " meeting-room ,price,, hours ", *item;
	size_t n;

	ok(cc_csv_has(list, "meeting-room") && cc_csv_has(list, "price") &&
	    cc_csv_has(list, "hours"), "every item of a list is found, blanks around it or not");
	ok(!cc_csv_has(list, "meeting") && !cc_csv_has(list, "hour") &&
	    !cc_csv_has(NULL, "price"), "a prefix, a part or a missing list is not");
	item = cc_csv_next(&list, &n);
	ok(item && n == 12 && !strncmp(item, "meeting-room", n), "the first item, its blanks left out");
	item = cc_csv_next(&list, &n);
	ok(item && n == 5 && !strncmp(item, "price", n), "the second");
	item = cc_csv_next(&list, &n);
	ok(item && n == 5 && !strncmp(item, "hours", n), "an empty item skipped, the last");
	ok(!cc_csv_next(&list, &n), "then the end");
}

/* A whole file, its NUL past the end; a size limit and a missing file. */
static void
test_read_file(void)
{
	char path[] = "/tmp/cc-test-read.XXXXXX", *data;
	int fd = mkstemp(path);
	size_t len = 0;

	ok(fd >= 0 && write(fd, "ab\0cd", 5) == 5, "a file of five bytes, one of them NUL");
	close(fd);
	data = cc_read_file(path, 0, &len);
	ok(data && len == 5 && memcmp(data, "ab\0cd", 6) == 0, "read whole, NUL-terminated");
	free(data);
	errno = 0;
	ok(!cc_read_file(path, 4, &len) && errno == EFBIG, "more than the limit: EFBIG");
	unlink(path);
	errno = 0;
	ok(!cc_read_file(path, 0, &len) && errno == ENOENT, "a missing file: its errno");
}

static void
test_nfkc(void)
{
	size_t n;
	char *s;

	s = cc_text_nfkc("ＷｉＦｉ", strlen("ＷｉＦｉ"), &n);
	is_str(s, "WiFi", "NFKC folds fullwidth Latin");
	free(s);
	s = cc_text_nfkc("ﾜｲﾌｧｲ", strlen("ﾜｲﾌｧｲ"), &n);
	is_str(s, "ワイファイ", "NFKC widens halfwidth katakana");
	free(s);
	s = cc_text_nfkc("ﾊﾟｽ", strlen("ﾊﾟｽ"), &n);
	is_str(s, "パス", "NFKC composes halfwidth voiced marks");
	free(s);
	is_int(cc_text_script('a'), CC_SCRIPT_LATIN, "a is Latin");
	is_int(cc_text_script(0x3042), CC_SCRIPT_HIRAGANA, "あ is hiragana");
	is_int(cc_text_script(0x30FC), CC_SCRIPT_KATAKANA, "ー counts as katakana");
	is_int(cc_text_script(0x55B6), CC_SCRIPT_HAN, "営 is Han");
	is_int(cc_text_script(0xD55C), CC_SCRIPT_HANGUL, "한 is Hangul");
	is_int(cc_text_script(0x0416), CC_SCRIPT_OTHER, "Ж is another script");
	is_int(cc_text_script(0x1F389), CC_SCRIPT_NONE, "an emoji is no letter");
	is_int(cc_text_script(0xE9), CC_SCRIPT_LATIN, "é is Latin");
}

static void
scan_is(const char *in, const char *want, const char *what)
{
	struct cc_json_doc d = {0};
	int r = cc_json_scan(&d, in, strlen(in));

	if (want)
		is_str(r == 0 ? d.text.data : d.err, want, "scan: %s", what);
	else
		ok(r < 0, "scan refuses %s (%s at column %zu)", what,
		    d.err ? d.err : "accepted", d.err_col);
	cc_json_doc_release(&d);
}

static void
test_scan(void)
{
	struct cc_json_doc d = {0};
	const struct cc_json_field *f;

	scan_is("{ \"a\" : 1 ,\t\"b\": [1, 2] }", "{\"a\":1,\"b\":[1,2]}", "spaces and tabs");
	scan_is("{\"a b\": \"x  y\"}", "{\"a b\":\"x  y\"}", "spaces inside strings kept");
	scan_is("{\"a\": \"q\\\" x\"}", "{\"a\":\"q\\\" x\"}", "escaped quote");
	scan_is("{\"n\": 12345678901234567890}", "{\"n\":12345678901234567890}", "big number untouched");
	scan_is(" [true,false,null,-0.5e+3,\"\\u00e9\"] ", "[true,false,null,-0.5e+3,\"\\u00e9\"]", "every kind of value");
	scan_is("{\"a\": nan}", NULL, "nan");
	scan_is("{\"a\": 01}", NULL, "a leading zero");
	scan_is("{\"a\": 1.}", NULL, "a bare decimal point");
	scan_is("{\"a\": \"\\x\"}", NULL, "a bad escape");
	scan_is("{\"a\": \"\\u12\"}", NULL, "a short \\u escape");
	scan_is("{\"a\":1,}", NULL, "a trailing comma");
	scan_is("{'a':1}", NULL, "single quotes");
	scan_is("{\"a\":1} {}", NULL, "two values");
	scan_is("\"abc", NULL, "an unterminated string");
	scan_is("", NULL, "an empty text");

	ok(cc_json_scan(&d, "{\"q\":\"a\xff\"}", 10) == 0 && d.needs_rewrite,
	    "invalid UTF-8 is accepted but marked for rewriting");
	ok(cc_json_scan(&d, "{\"q\":\"a\tb\"}", 11) == 0 && !d.needs_rewrite &&
	    strcmp(d.text.data, "{\"q\":\"a\\u0009b\"}") == 0,
	    "a raw tab in a string is accepted and written escaped");
	ok(cc_json_scan(&d, "{\"q\\u0001\":1}", 13) == 0 && d.needs_rewrite,
	    "an escaped top-level name still needs rewriting");
	ok(cc_json_scan(&d, "{\"a\":1, \"b\" : {\"c\":2}, \"a\":[3]}", 31) == 0 &&
	    d.nfields == 3, "three top-level members indexed");
	f = cc_json_field(&d, "a");
	ok(f && f->val_len == 3 && memcmp(d.text.data + f->val_at, "[3]", 3) == 0,
	    "a repeated name: the last one wins");
	f = cc_json_field(&d, "b");
	ok(f && f->val_len == 7 && memcmp(d.text.data + f->val_at, "{\"c\":2}", 7) == 0,
	    "a nested object is one member");
	ok(!cc_json_field(&d, "c"), "nested members are not top-level");
	ok(cc_json_scan(&d, "{\"a\":1, \"b\" : {\"c\":2, \"d\": {\"e\":3}, \"c\": 4},"
	    " \"f\":[{\"g\":5}], \"h\": {}}", 68) == 0, "a record with nested objects");
	f = cc_json_subfield(&d, cc_json_field(&d, "b"), "c");
	ok(f && f->val_len == 1 && d.text.data[f->val_at] == '4',
	    "a member's member is indexed; a repeated name: the last one wins");
	f = cc_json_subfield(&d, cc_json_field(&d, "b"), "d");
	ok(f && f->val_len == 7 && memcmp(d.text.data + f->val_at, "{\"e\":3}", 7) == 0,
	    "an indexed member's object value");
	ok(!cc_json_subfield(&d, cc_json_field(&d, "b"), "e"), "three levels down is not indexed");
	ok(!cc_json_subfield(&d, cc_json_field(&d, "f"), "g"), "nor an object in an array");
	ok(!cc_json_subfield(&d, cc_json_field(&d, "a"), "c") &&
	    !cc_json_subfield(&d, cc_json_field(&d, "h"), "c"), "a number and {} have no members");
	cc_json_doc_release(&d);
}

/* cc_json_index accepts in place exactly what a scan leaves as it is. */
static void
index_is(const char *in, int want, const char *what)
{
	struct cc_json_doc d = {0}, e = {0};
	size_t n = strlen(in);
	int r = cc_json_index(&d, in, n);

	if (!want) {
		ok(r < 0, "index refuses %s", what);
	} else {
		int same = r == 0 && cc_json_scan(&e, in, n) == 0 &&
		    d.nfields == e.nfields && d.nsubs == e.nsubs &&
		    (!d.nfields || memcmp(d.fields, e.fields, d.nfields * sizeof *d.fields) == 0) &&
		    (!d.nsubs || memcmp(d.subs, e.subs, d.nsubs * sizeof *d.subs) == 0);

		ok(same, "index: %s, members as a scan indexes them", what);
	}
	cc_json_doc_release(&d);
	cc_json_doc_release(&e);
}

static void
test_index(void)
{
	index_is("{\"a\":1,\"b\":{\"c\":\"\u00e9\\n\",\"d\":[1,{\"e\":null}]},\"a\":[3]}", 1,
	    "compact text with repeated and nested names");
	index_is("{\"q\":\"\xe5\x96\xb6\xe6\xa5\xad \xf0\x9f\x8e\x89\"}", 1, "UTF-8 text");
	index_is("{\"a\": 1}", 0, "a space between members");
	index_is("{\"a\":1} ", 0, "a trailing space");
	index_is("{\"q\":\"a\tb\"}", 0, "a raw tab, which a scan would escape");
	index_is("{\"q\":\"\\ud800\"}", 0, "a lone surrogate, which a scan would replace");
	index_is("{\"q\":\"a\xff\"}", 0, "invalid UTF-8");
	index_is("{\"q\\u0001\":1}", 0, "an escaped top-level name");
	index_is("{\"c\":.5}", 0, "a number strtod reads but JSON does not");
	index_is("{\"a\":1", 0, "an unterminated object");
}

/* The member at path (dot-separated) of a JSON text, as text, or NULL. */
static void
member_is(const char *json, const char *path, const char *want, const char *what)
{
	struct cc_json_doc d = {0};
	char key[32], *got = NULL;
	const char *v = NULL;
	size_t len = 0;

	if (cc_json_scan(&d, json, strlen(json)) == 0) {
		v = d.text.data;
		len = d.text.len;
		while (v && *path) {
			size_t k = strcspn(path, ".");

			snprintf(key, sizeof key, "%.*s", (int)k, path);
			path += k + (path[k] == '.');
			v = cc_json_member(v, len, key, &len);
		}
	}
	if (v)
		got = strndup(v, len);
	is_str(got, want, "member: %s", what);
	free(got);
	cc_json_doc_release(&d);
}

static void
test_member(void)
{
	const char *rec = "{\"route\": {\"agent\": \"EventAgent\", \"debug_info\": "
	    "{\"reason\": \"a \\\"quoted\\\" {brace} [bracket], comma\", \"rules\": [\"a:1\", [2, {\"x\": null}]],"
	    " \"session\": {\"id\": \"s1\", \"turn\": 12345678901234567890}}, \"language\": \"ja\"},"
	    " \"n\": -1.5e3, \"t\": true, \"e\": {}, \"a\": []}";

	member_is(rec, "route.agent", "\"EventAgent\"", "a nested string");
	member_is(rec, "route.language", "\"ja\"", "after a nested object with quotes, braces and commas in strings");
	member_is(rec, "route.debug_info.session.turn", "12345678901234567890", "three levels down, a big number as written");
	member_is(rec, "route.debug_info.rules", "[\"a:1\",[2,{\"x\":null}]]", "an array value");
	member_is(rec, "n", "-1.5e3", "a number");
	member_is(rec, "t", "true", "a literal");
	member_is(rec, "e", "{}", "an empty object");
	member_is(rec, "a", "[]", "an empty array");
	member_is(rec, "route.missing", NULL, "a missing member");
	member_is(rec, "route.agent.x", NULL, "a member of a string");
	member_is(rec, "a.x", NULL, "a member of an array");
	member_is("{\"k\":1,\"k\":2}", "k", "2", "a repeated name: the last one wins");
	member_is("{\"route\":{\"agent\":\"A\",\"category\":null}}", "route.category", "null", "a null value");
}

/* cc_json_member_last() of a JSON text (scanned compact first), or NULL. */
static void
member_last_is(const char *json, const char *key, const char *want, const char *what)
{
	struct cc_json_doc d = {0};
	char *got = NULL;
	const char *v = NULL;
	size_t len = 0;

	if (cc_json_scan(&d, json, strlen(json)) == 0)
		v = cc_json_member_last(d.text.data, d.text.len, key, &len);
	if (v)
		got = strndup(v, len);
	is_str(got, want, "member_last: %s", what);
	free(got);
	cc_json_doc_release(&d);
}

static void
test_member_last(void)
{
	member_last_is("{\"debug\":{\"x\":1},\"session\":{\"id\":null,\"turn\":null}}",
	    "session", "{\"id\":null,\"turn\":null}", "the last member, an object");
	member_last_is("{\"a\":\"s}\\\"{:\",\"session\":\"x:\\\"y\\\\\"}", "session",
	    "\"x:\\\"y\\\\\"", "a string with escaped quotes, a colon and a backslash at its end");
	member_last_is("{\"session\":1,\"b\":[{\"session\":2}]}", "session", NULL,
	    "not the last member (a nested one of that name is no answer)");
	member_last_is("{\"x\\\"session\":1}", "session", NULL,
	    "a name that only ends like the key");
	member_last_is("{\"k\":1,\"k\":2}", "k", "2", "a repeated name: the last");
	member_last_is("{\"k\":[1,{\"a\":\"]}\"}]}", "k", "[1,{\"a\":\"]}\"}]",
	    "brackets in a string inside the value");
	member_last_is("{}", "k", NULL, "an empty object");
	member_last_is("[1]", "k", NULL, "an array");
}

/*
 * The scanner's fast paths (eight ASCII bytes, sixteen bytes of two- and
 * three-byte sequences at a time) against utf8proc: random strings of
 * valid and invalid pieces, at every offset from a block's start, must
 * be marked for rewriting exactly when they are not UTF-8, and copied
 * as they are otherwise.
 */
static void
test_scan_utf8(void)
{
	static const char *const pieces[] = {
		"a", "Z0", " ", "~", "abcdefghijklmnopq", "\xc3\xa9", "\xc2\x80",
		"\xdf\xbf", "\xe3\x81\x82", "\xe3\x81\x82\xe3\x81\x84\xe3\x81\x86",
		"\xe1\x80\x80", "\xef\xbf\xbf", "\xec\xbf\xbf", "\xee\x80\x80",
		"\xe0\xa0\x80", "\xed\x9f\xbf", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
		"\\n", "\\\"", "\\u3042", "\\\\",
		/* not UTF-8, alone or as a piece of a neighbour's sequence */
		"\xe0\x80\x80", "\xed\xa0\x80", "\xc0\xaf", "\xc1\xbf", "\xf5\x80\x80\x80",
		"\x80", "\xbf", "\xe3\x81", "\xe3", "\xc3", "\xf4\x90\x80\x80", "\xff",
	};
	const size_t np = sizeof pieces / sizeof *pieces;
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	struct cc_json_doc d = {0};
	struct cc_buf text = {0};
	int wrong = 0, bad = 0, cases = 20000;
	char first[400] = "";

	for (int c = 0; c < cases; c++) {
		int k = 1 + (int)(seed % 40);

		text.len = 0;
		cc_buf_add(&text, "\"", 1);
		cc_buf_add(&text, "0123456789abcdef", (size_t)(c % 16));
		while (k--) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			/* invalid pieces one time in eight */
			size_t i = seed % 8 ? seed / 8 % (np - 12) : np - 12 + seed / 8 % 12;

			cc_buf_add(&text, pieces[i], strlen(pieces[i]));
		}
		cc_buf_add(&text, "\"", 1);
		int valid = cc_utf8_valid(text.data, text.len);

		bad += !valid;
		if (cc_json_scan(&d, text.data, text.len) != 0 ||
		    d.needs_rewrite != !valid ||
		    (valid && (d.text.len != text.len ||
			memcmp(d.text.data, text.data, text.len) != 0))) {
			if (!wrong++)
				for (size_t i = 0; i < text.len && i < 120; i++)
					snprintf(first + strlen(first), sizeof first - strlen(first),
					    "%02x", (unsigned char)text.data[i]);
		}
	}
	ok(wrong == 0 && bad > cases / 10 && bad < cases - cases / 10,
	    "scan: %d random strings (%d not UTF-8) marked as utf8proc says, "
	    "%d wrong%s%s", cases, bad, wrong, wrong ? ", the first: " : "", first);
	cc_buf_release(&text);
	cc_json_doc_release(&d);
}

/* The elements of a JSON array text, through cc_json_next, joined by |. */
static void
elements_are(const char *json, const char *want, const char *what)
{
	struct cc_json_doc d = {0};
	struct cc_buf got = {0};
	size_t pos = 0, len;
	const char *e;
	int n = 0;

	if (cc_json_scan(&d, json, strlen(json)) == 0)
		while ((e = cc_json_next(d.text.data, d.text.len, &pos, &len))) {
			if (n++)
				cc_buf_add(&got, "|", 1);
			cc_buf_add(&got, e, len);
		}
	is_str(got.data ? got.data : "", want, "elements: %s", what);
	cc_buf_release(&got);
	cc_json_doc_release(&d);
}

static void
test_elements(void)
{
	elements_are("[1, \"a,]\\\"\", {\"k\": [2, 3]}, [], null]",
	    "1|\"a,]\\\"\"|{\"k\":[2,3]}|[]|null",
	    "scalars, a string with a comma, bracket and escapes, containers");
	elements_are("[]", "", "an empty array has none");
	elements_are("[{}]", "{}", "one element");
	elements_are("{\"a\": 1}", "", "an object is no array");
	elements_are("\"[1]\"", "", "a string is no array");
}

/* cc_json_to_jv gives what jv_parse_sized gives, for checked text. */
static void
to_jv_same(const char *json, const char *what)
{
	struct cc_json_doc d = {0};
	jv want = jv_parse_sized(json, (int)strlen(json)), got = jv_invalid();

	if (cc_json_scan(&d, json, strlen(json)) == 0 && !d.needs_rewrite)
		got = cc_json_to_jv(d.text.data, d.text.len);
	ok(jv_is_valid(want) && jv_equal(jv_copy(got), jv_copy(want)), "to_jv: %s", what);
	jv_free(got);
	jv_free(want);
	cc_json_doc_release(&d);
}

static void
test_to_jv(void)
{
	to_jv_same("{\"a\": 1, \"b\": [true, false, null, \"x\"], \"c\": {}}", "every kind");
	to_jv_same("[-0, 0.5, -1.25e-3, 1E+2, 12345678901234567890, 1e400]", "numbers");
	to_jv_same("{\"s\": \"q\\\"b\\\\s\\/n\\n\\t\\u00e9\\ud83d\\ude00\"}", "escapes and a surrogate pair");
	to_jv_same("{\"o\": {\"\\u0061\": \"key with an escape\"}}", "an escaped nested name");
	to_jv_same("\"エンジニアカフェ 営業時間\"", "UTF-8 text");
	to_jv_same("{\"k\": 1, \"k\": 2}", "a repeated name");
	to_jv_same("[[[[{\"deep\": [[]]}]]]]", "nesting");
	to_jv_same("[]", "an empty array");
	to_jv_same("{\"a\":[{\"b\":\"}],\\\"\"},{}],\"c\":\"[\"}", "brackets inside strings");

	/* cc_json_unescape: the bytes of cc_json_to_jv's string */
	{
		static const char *const texts[] = {
			"\"plain\"", "\"\"", "\"q\\\"b\\\\s\\/n\\n\\t\\b\\f\\r\"",
			"\"\\u00e9\\u3042\\ud83d\\ude00 \\u0041\"",
			"\"lone \\udc00 and \\ud800x\"", "\"エンジニア\\nカフェ\"",
			"\"nul \\u0000 after\"",
		};

		for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
			struct cc_json_doc d = {0};
			char *got = NULL;
			jv want = jv_invalid();

			if (cc_json_scan(&d, texts[i], strlen(texts[i])) == 0) {
				got = cc_json_unescape(d.text.data, d.text.len);
				want = cc_json_to_jv(d.text.data, d.text.len);
			}
			ok(got && jv_get_kind(want) == JV_KIND_STRING &&
			    strcmp(got, jv_string_value(want)) == 0, "unescape: %s", texts[i]);
			free(got);
			jv_free(want);
			cc_json_doc_release(&d);
		}
	}

	/* text from outside: checked, then read without libjq's parser */
	{
		const char *bad = "{\"s\":\"a\xff\\u00e9\xc3\"}";
		jv got = cc_json_parse(bad, strlen(bad)), want = jv_parse_sized(bad, (int)strlen(bad));

		ok(jv_equal(got, want), "parse: invalid UTF-8 becomes U+FFFD, as libjq has it");
		got = cc_json_parse("{\"a\" \"b\"}", 9);
		ok(!jv_is_valid(got), "parse: text that is not JSON is refused before libjq sees it");
		jv_free(got);
	}
}

/* Shared names: the same text is the same string, and any text works. */
static void
test_names(void)
{
	char buf[32];
	jv a = cc_jv_name("session_id"), b;
	int same = 1;

	snprintf(buf, sizeof buf, "session_%s", "id");
	b = cc_jv_name(buf);
	ok(jv_identical(jv_copy(a), jv_copy(b)), "names: the same text is one string");
	buf[0] = 'S';
	is_str(jv_string_value(b), "session_id", "names: not the caller's buffer");
	jv_free(b);
	for (int i = 0; i < 1000; i++) {	/* more than are kept */
		snprintf(buf, sizeof buf, "n%d", i);
		b = cc_jv_name(buf);
		same &= strcmp(jv_string_value(b), buf) == 0;
		jv_free(b);
	}
	ok(same, "names: beyond the table, a string of the text still");
	ok(jv_equal(jv_copy(a), jv_string("session_id")), "names: equal to jv_string's");
	jv_free(a);
	cc_jv_names_release();
	a = cc_jv_name("");
	is_str(jv_string_value(a), "", "names: after a release, and the empty text");
	jv_free(a);
	cc_jv_names_release();
}

/* cc_json_put_memo writes what cc_json_put does, whatever changed since. */
static void
memo_same(struct cc_json_memo *m, jv v, const char *what)
{
	struct cc_buf want = {0}, got = {0};

	cc_json_put(&want, v);
	cc_buf_add(&got, "x", 1);	/* not at the start of the buffer */
	cc_json_put_memo(&got, v, m);
	ok(want.data && got.data && strcmp(got.data + 1, want.data) == 0,
	    "memo: %s", what);
	jv_free(v);
	cc_buf_release(&want);
	cc_buf_release(&got);
}

/* cc_memo: a value found is the one set for its key, whatever was evicted */
static void
test_value_memo(void)
{
	struct cc_memo m = {0};
	struct cc_memo_entry *e;
	char key[32], val[64];
	int wrong = 0, kept = 0, empty = 0;

	e = cc_memo_find(&m, "ask", 3);
	ok(e && !e->value, "cc_memo: a key never set is not found");
	cc_memo_set(e, "ask", 3, "{\"a\":1}", 7, 1);
	e = cc_memo_find(&m, "ask", 3);
	ok(e && e->value && e->vlen == 7 && memcmp(e->value, "{\"a\":1}", 7) == 0 &&
	    e->indexed && e->index.nfields == 1, "cc_memo: the first key, with its index");
	ok(!cc_memo_find(&m, "as", 2)->value, "cc_memo: a key's prefix is another key");
	e = cc_memo_find(&m, "ask", 3);
	ok(e && e->value && e->vlen == 7, "cc_memo: the first key kept when the table is made");
	/* three times the slots: evictions, and never another key's value */
	for (int i = 0; i < 3 * CC_MEMO_SLOTS; i++) {
		int kl = snprintf(key, sizeof key, "q%d", i);
		int vl = snprintf(val, sizeof val, "\"v%d\"", i);

		if (!(e = cc_memo_find(&m, key, (size_t)kl)) || e->value) {
			wrong++;
			continue;
		}
		cc_memo_set(e, key, (size_t)kl, val, (size_t)vl, 0);
	}
	for (int i = 0; i < 3 * CC_MEMO_SLOTS; i++) {
		int kl = snprintf(key, sizeof key, "q%d", i);
		int vl = snprintf(val, sizeof val, "\"v%d\"", i);

		if (!(e = cc_memo_find(&m, key, (size_t)kl)))
			wrong++;
		else if (!e->value)
			empty++;
		else if (e->vlen != (size_t)vl || memcmp(e->value, val, (size_t)vl) != 0)
			wrong++;
		else
			kept++;
	}
	is_int(wrong, 0, "cc_memo: no key found holding another's value");
	{	/* long keys alike at both ends (hashed alike): still two keys */
		static char a[4096], b[4096];

		memset(a, 'x', sizeof a);
		memcpy(b, a, sizeof b);
		b[2048] = 'y';
		e = cc_memo_find(&m, a, sizeof a);
		if (e)
			cc_memo_set(e, a, sizeof a, "1", 1, 0);
		e = cc_memo_find(&m, b, sizeof b);
		ok(e && !e->value, "cc_memo: a long key differing in its middle is another key");
		if (e)
			cc_memo_set(e, b, sizeof b, "2", 1, 0);
		e = cc_memo_find(&m, a, sizeof a);
		ok(e && e->value && *e->value == '1', "cc_memo: and the first keeps its value");
		e = cc_memo_find(&m, b, sizeof b);
		ok(e && e->value && *e->value == '2', "cc_memo: and the second its own");
	}
	{
		char *big = calloc(CC_MEMO_MAX_KEY + 1, 1);

		ok(big && !cc_memo_find(&m, big, CC_MEMO_MAX_KEY + 1),
		    "cc_memo: a key longer than CC_MEMO_MAX_KEY is not remembered");
		free(big);
	}
	ok(kept > CC_MEMO_SLOTS / 2 && kept <= CC_MEMO_SLOTS && kept + empty == 3 * CC_MEMO_SLOTS,
	    "cc_memo: at most its slots kept, most of them (%d)", kept);
	cc_memo_release(&m);
}

static void
test_memo(void)
{
	struct cc_json_memo m = {0};
	jv st = jv_object(), hist = jv_array(), e;

	memo_same(&m, jv_copy(st), "an empty object");
	st = jv_object_set(st, jv_string("n"), jv_number(1));
	st = jv_object_set(st, jv_string("p"), jv_object_set(jv_object(), jv_string("id"),
	    jv_string("a")));
	memo_same(&m, jv_copy(st), "scalars and an object");
	for (int i = 0; i < 12; i++) {
		e = jv_object_set(jv_object(), jv_string("i"), jv_number(i));
		hist = jv_array_append(hist, jv_array_append(jv_array(), e));
		if (i >= 10)	/* the oldest dropped, as the coach keeps 500 */
			hist = jv_array_slice(hist, 1, jv_array_length(jv_copy(hist)));
		st = jv_object_set(st, jv_string("h"), jv_copy(hist));
		st = jv_object_set(st, jv_string("n"), jv_number(i));
		memo_same(&m, jv_copy(st), i < 10 ? "a history growing" : "and losing its oldest");
	}
	memo_same(&m, jv_copy(st), "nothing changed");
	st = jv_object_set(st, jv_string("h2"), jv_copy(hist));
	memo_same(&m, jv_copy(st), "the same array under two names");
	st = jv_object_set(st, jv_string("h"), jv_array_set(jv_copy(hist), 3, jv_string("x")));
	memo_same(&m, jv_copy(st), "an element replaced by a string");
	st = jv_object_set(st, jv_string("h"), jv_array_set(jv_copy(hist), 0, jv_object()));
	memo_same(&m, jv_copy(st), "the first element replaced");
	st = jv_object_delete(st, jv_string("p"));
	st = jv_object_set(st, jv_string("h2"), jv_string("no longer an array"));
	memo_same(&m, jv_copy(st), "members gone and changed kind");
	st = jv_object_set(st, jv_string("p"), jv_object_set(jv_object(), jv_string("id"),
	    jv_string("b")));
	memo_same(&m, jv_copy(st), "a member again, at the end");
	memo_same(&m, jv_array_append(jv_array(), jv_copy(hist)), "an array instead");
	memo_same(&m, jv_copy(st), "an object again");
	jv_free(st);
	jv_free(hist);
	cc_json_memo_release(&m);
}

static void
put_is(jv v, const char *want, const char *what)
{
	struct cc_buf b = {0};

	cc_json_put(&b, v);
	is_str(b.data, want, "put: %s", what);
	jv_free(v);
	cc_buf_release(&b);
}

static void
test_put(void)
{
	put_is(jv_number(0.9), "0.9", "shortest decimal");
	put_is(jv_number(3), "3", "an integer");
	put_is(jv_number(-1e300), "-1e+300", "a large number");
	put_is(jv_string("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"", "escapes");
	put_is(jv_parse("{\"b\":[1,true,null],\"a\":{}}"), "{\"b\":[1,true,null],\"a\":{}}",
	    "nested values keep member order");
}

/* Run a stage over `in`, return the output (caller frees) and status. */
static char *
run_stage(struct cc_stage *st, const char *in, int *status)
{
	FILE *fi = fmemopen((void *)in, strlen(in), "r");
	char *out = NULL;
	size_t n = 0;
	FILE *fo = open_memstream(&out, &n);

	*status = cc_record_run(st, fi, fo);
	fclose(fi);
	fclose(fo);
	return out;
}

static enum cc_outcome
echo_len(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	size_t n;
	const char *q = cc_record_query(rec, &n);

	if (!q)
		return cc_record_fail(rec, "no_query", "no query here");
	if (n == 4 && memcmp(q, "skip", 4) == 0)
		return CC_RECORD_PASS;
	cc_jw_num(out, (double)n);
	return CC_RECORD_SET;
}

/* Writes the value at route.debug_info.session as it is, parsed and dumped. */
static enum cc_outcome
echo_session(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	jv v = cc_record_at(rec, "route.debug_info.session");

	if (!jv_is_valid(v)) {
		jv_free(v);
		return CC_RECORD_PASS;
	}
	cc_jw_jv(out, v);
	jv_free(v);
	return CC_RECORD_SET;
}

static void
test_writer(void)
{
	struct cc_buf b = {0};
	struct cc_jw w;

	cc_jw_init(&w, &b);
	cc_jw_object(&w);
	cc_jw_key(&w, "a");
	cc_jw_array(&w);
	cc_jw_num(&w, 1);
	cc_jw_cstr(&w, "x\"y");
	cc_jw_object(&w);
	cc_jw_end(&w);
	cc_jw_null(&w);
	cc_jw_end(&w);
	cc_jw_key(&w, "b");
	cc_jw_bool(&w, 0);
	cc_jw_key(&w, "c");
	cc_jw_cstr(&w, NULL);
	cc_jw_end(&w);
	is_str(b.data, "{\"a\":[1,\"x\\\"y\",{},null],\"b\":false,\"c\":null}",
	    "the writer places commas and closes levels");
	cc_buf_release(&b);
}

static void
test_records(void)
{
	struct cc_stage st = { .name = "t", .key = "len", .process = echo_len };
	int status;
	char *out;

	out = run_stage(&st, "{\"query\":\"abc\",\"id\":12345678901234567890}\n", &status);
	is_str(out, "{\"query\":\"abc\",\"id\":12345678901234567890,\"len\":3}\n",
	    "key appended, big number kept");
	is_int(status, 0, "status 0");
	free(out);

	out = run_stage(&st, "{\"query\":\"ab\"}\r\n\n   \n{ \"query\" : \"skip\" }\n", &status);
	is_str(out, "{\"query\":\"ab\",\"len\":2}\n{\"query\":\"skip\"}\n",
	    "CRLF, blank lines skipped, pass-through compacted");
	free(out);

	out = run_stage(&st, "\"abcd\"\n", &status);
	is_str(out, "{\"query\":\"abcd\",\"len\":4}\n", "a bare string is a query");
	free(out);

	out = run_stage(&st, "{}\n", &status);
	is_str(out, "{\"error\":{\"stage\":\"t\",\"code\":\"no_query\","
	    "\"message\":\"no query here\",\"line\":1}}\n", "record error keeps the record");
	is_int(status, CC_EXIT_DATA, "status 3 on a record error");
	free(out);

	out = run_stage(&st, "{\"query\":\"x\"}\n[1,\n{\"query\":\"yz\"}\n", &status);
	is_str(out, "{\"query\":\"x\",\"len\":1}\n"
	    "{\"error\":{\"stage\":\"t\",\"code\":\"bad_json\",\"message\":"
	    "\"invalid JSON at column 4: unexpected end of text\",\"line\":2},"
	    "\"input\":\"[1,\"}\n{\"query\":\"yz\",\"len\":2}\n",
	    "bad line becomes an error record, stream goes on");
	is_int(status, CC_EXIT_DATA, "status 3 after a bad line");
	free(out);

	out = run_stage(&st, "42\n", &status);
	ok(out && strstr(out, "\"code\":\"not_object\"") && strstr(out, "\"input\":\"42\""),
	    "a number is not a record");
	free(out);

	out = run_stage(&st, "{\"error\":{\"stage\":\"x\"}, \"query\":\"abc\"}\n", &status);
	is_str(out, "{\"error\":{\"stage\":\"x\"},\"query\":\"abc\"}\n",
	    "earlier error records pass untouched");
	is_int(status, 0, "and are not this stage's failure");
	free(out);

	out = run_stage(&st, "{\"query\":\"abc\",\"len\":9}\n", &status);
	is_str(out, "{\"query\":\"abc\",\"len\":3}\n", "an existing key is replaced");
	free(out);

	st = (struct cc_stage){ .name = "t", .key = "s", .process = echo_session };
	out = run_stage(&st, "{\"route\":{\"agent\":\"A\",\"debug_info\":{\"x\":[1,\"}\"],"
	    "\"session\":{\"id\":\"s\",\"turn\":3}}}}\n{\"route\":{\"agent\":\"A\"}}\n"
	    "\"bare\"\n{\"route\":{\"debug_info\":{\"session\":{\"id\":\"\u00e9\"}}},\"q\":\"\xff\"}\n", &status);
	is_str(out, "{\"route\":{\"agent\":\"A\",\"debug_info\":{\"x\":[1,\"}\"],"
	    "\"session\":{\"id\":\"s\",\"turn\":3}}},\"s\":{\"id\":\"s\",\"turn\":3}}\n"
	    "{\"route\":{\"agent\":\"A\"}}\n{\"query\":\"bare\"}\n"
	    "{\"route\":{\"debug_info\":{\"session\":{\"id\":\"\u00e9\"}}},\"q\":\"\xef\xbf\xbd\",\"s\":{\"id\":\"\xc3\xa9\"}}\n",
	    "cc_record_at reads a nested member, also of a record that was rewritten");
	free(out);
	st = (struct cc_stage){ .name = "t", .key = "len", .process = echo_len };

	out = run_stage(&st, "{\"query\":\"a\xff\"}\n", &status);
	is_str(out, "{\"query\":\"a\xef\xbf\xbd\",\"len\":4}\n",
	    "invalid UTF-8 is replaced, not copied");
	free(out);
}

static void
test_time(void)
{
	time_t t;

	ok(cc_time_parse_iso8601("2025-01-15T10:00:00+09:00", &t) == 0 &&
	    t == 1736902800, "offset time");
	ok(cc_time_parse_iso8601("2025-01-15T01:00:00Z", &t) == 0 &&
	    t == 1736902800, "UTC time");
	ok(cc_time_parse_iso8601("2025-01-15T10:00+0900", &t) == 0 &&
	    t == 1736902800, "no seconds, compact offset");
	ok(cc_time_parse_iso8601("2025-01-15T10:00:00", &t) < 0, "no offset refused");
	ok(cc_time_parse_iso8601("2025-13-01T00:00:00Z", &t) < 0, "month 13 refused");
	ok(cc_time_parse_iso8601("2025-02-29T00:00:00Z", &t) < 0, "29 Feb 2025 refused");
	ok(cc_time_parse_iso8601("2024-02-29T00:00:00Z", &t) == 0, "29 Feb 2024 accepted");
	ok(cc_time_parse_iso8601("tomorrow", &t) < 0, "words refused");
}

static void
lang_is(const char *text, const char *lang, int mixed, const char *cue)
{
	struct cc_lang_result r;

	cc_lang_detect(text, strlen(text), &r);
	ok(strcmp(cc_lang_name(r.lang), lang) == 0 && r.is_mixed == mixed &&
	    (!cue || strcmp(r.cue, cue) == 0),
	    "lang '%s' -> %s%s (got %s%s via %s)", text, lang, mixed ? " mixed" : "",
	    cc_lang_name(r.lang), r.is_mixed ? " mixed" : "", r.cue);
}

static void
test_lang(void)
{
	lang_is("エンジニアカフェの営業時間を教えてください", "ja", 0, "ja-frame");
	lang_is("What are the opening hours?", "en", 0, "en-frame");
	lang_is("Engineer Cafeの営業時間", "ja", 1, "ja-frame");
	lang_is("password教えて", "ja", 1, "ja-frame");
	lang_is("What is 営業時間?", "en", 1, "en-frame");
	lang_is("ＷｉＦｉ", "en", 0, NULL);
	lang_is("わいふぁいのぱすわーど", "ja", 0, "ja-frame");
	lang_is("eigyou jikan wa?", "ja", 0, "romaji");
	lang_is("Saino", "en", 0, NULL);
	lang_is("B1", "ja", 0, "no-letters");
	lang_is("", "ja", 0, "no-letters");
	lang_is("🎉", "ja", 0, "no-letters");
	lang_is("2025/01/15", "ja", 0, "no-letters");
	lang_is("营业时间是几点？", "ja", 0, "han-only");
	lang_is("영업시간이 어떻게 되나요?", "en", 0, "hangul");
	lang_is("www", "ja", 0, "romaji-slang");
	lang_is("made in japan", "en", 0, NULL);
	lang_is("Wi-Fi ワイファイ", "en", 1, "first-script");
}

static void
fold_is(const char *in, const char *want, int flags)
{
	char *got = cc_text_fold(in, strlen(in), NULL, flags);

	is_str(got, want, "fold '%s'", in);
	free(got);
}

static void
test_fold(void)
{
	fold_is("ワイファイ", "わいふあい", 0);
	fold_is("わいふぁい", "わいふあい", 0);
	fold_is("ﾜｲﾌｧｲ ﾊﾟｽﾜｰﾄﾞ", "わいふあいぱすわーど", 0);
	fold_is("パスワード", "ぱすわーど", 0);
	fold_is("ぱすわ〜〜ど", "ぱすわーど", 0);
	fold_is("バー", "ばー", 0);
	fold_is("ＷｉＦｉ", "wifi", 0);
	fold_is("Engineer  Cafe", "engineer cafe", 0);
	fold_is("エンジニア カフェ", "えんじにあかふえ", 0);
	fold_is("  Saino の 営業時間 ", "saino の営業時間", 0);
	fold_is("ヴ", "ぶ", 0);
	fold_is("\\D+ Cafe", "\\D+ Cafe", CC_FOLD_KEEP_CASE);
	fold_is("B1ー", "b1ー", 0);	/* ー after a non-kana is left alone */
}

/* The casual spelling of in as cc_casual() writes it after folding; want
 * NULL: nothing changes. */
static void
casual_is(const char *in, const char *want)
{
	char *f = cc_text_fold(in, strlen(in), NULL, 0);
	char *got = cc_casual(f, strlen(f), NULL);

	is_str(got, want, "casual '%s'", in);
	free(got);
	free(f);
}

static void
test_casual(void)
{
	/* the progressive とる/よる, by the stem before it */
	casual_is("今日開いとる？", "今日開いてる?");
	casual_is("明日はやっとる？", "明日はやつてる?");
	casual_is("しあさっては営業しとる？", "しあさつては営業してる?");
	casual_is("閉じとらん", "閉じてない");
	casual_is("営業しよる？", "営業してる?");
	casual_is("サイノ開きよると？", "さいの開いてるの?");
	/* final particles, only at the end of the sentence */
	casual_is("なんができると？", "なにができるの?");
	casual_is("あんた誰なん？", "あなた誰なの?");
	casual_is("行くけん、開いとるやろ？", "行くから、開いてるだろ?");
	casual_is("開いとるばい", "開いてる");
	casual_is("ばいばい", NULL);
	casual_is("ちょっと待って", NULL);
	casual_is("によると", NULL);
	/* loanwords that fold to what a pattern reads */
	casual_is("イベントのタイトル", NULL);
	casual_is("ケトルある？", NULL);
	casual_is("公式サイト？", NULL);
	casual_is("写真とる", NULL);
	/* casual words, elongation, emoji */
	casual_is("あんがと〜🙏", "ありがとー");
	casual_is("おはよ〜☀️", "おはようー");
	casual_is("おはようございます", NULL);
	casual_is("ほな", "じゃあね");
	casual_is("👋 hiii", "hi");
	casual_is("heyyy!!", "hey!!");
	casual_is("cya", "see you");
	casual_is("r u a bot?", "are u a bot?");
	casual_is("is it yasumi on dec 30?", "is it closed on dec 30?");
	casual_is("coffee, www.engineercafe.jp", NULL);
	casual_is("good morning", NULL);
	casual_is("", NULL);
}

static void
test_config(void)
{
	struct cc_config c;
	char *p;

	unsetenv("CC_DATADIR");
	unsetenv("CC_DOMAIN");
	unsetenv("CC_STATE_DIR");
	unsetenv("CC_TZ");
	setenv("XDG_STATE_HOME", "/x/state", 1);
	setenv("CC_NOW", "2025-01-15T10:00:00+09:00", 1);
	cc_config_load(&c);
	is_str(c.datadir, CC_PKGDATADIR, "datadir defaults to the compiled-in path");
	is_str(c.domain, "engineer-cafe", "domain defaults to engineer-cafe");
	is_str(c.state_dir, "/x/state/concierge", "state dir under XDG_STATE_HOME");
	is_str(c.tz, "Asia/Tokyo", "time zone defaults to Asia/Tokyo");
	ok(c.now_frozen && c.now == 1736902800, "CC_NOW freezes the clock");
	p = cc_config_domain_path(&c, "rules");
	is_str(p, CC_PKGDATADIR "/engineer-cafe/rules", "domain paths");
	free(p);
	cc_config_release(&c);

	setenv("CC_DATADIR", "/d", 1);
	setenv("CC_DOMAIN", "homework", 1);
	setenv("CC_STATE_DIR", "/s", 1);
	setenv("CC_TZ", "Europe/Berlin", 1);
	unsetenv("XDG_STATE_HOME");
	unsetenv("CC_NOW");
	cc_config_load(&c);
	is_str(c.datadir, "/d", "CC_DATADIR overrides");
	is_str(c.domain, "homework", "CC_DOMAIN overrides");
	is_str(c.state_dir, "/s", "CC_STATE_DIR overrides");
	is_str(c.tz, "Europe/Berlin", "CC_TZ overrides");
	ok(!c.now_frozen && c.now > 1736902800, "without CC_NOW the clock runs");
	cc_config_release(&c);
	unsetenv("CC_STATE_DIR");
	setenv("HOME", "/h", 1);
	cc_config_load(&c);
	is_str(c.state_dir, "/h/.local/state/concierge", "state dir under HOME");
	cc_config_release(&c);
}

/* A stage's own per-session state: none, written, read back, seen by another. */
/* CC_STORE values: which backend, and the password never shown. */
static void
test_store_names(void)
{
	static const struct { const char *in, *shown; } cases[] = {
		{ "postgresql://kiosk:s3cret@db/cc", "postgresql://kiosk:***@db/cc" },
		{ "postgres://kiosk@db/cc?password=s3cret&sslmode=require",
		  "postgres://kiosk@db/cc?password=***&sslmode=require" },
		{ "host=db password='se cr\\'et' dbname=cc", "host=db password=*** dbname=cc" },
		{ "service=kiosk", "service=kiosk" },
		{ "dbname=cc mypassword=x", "dbname=cc mypassword=x" },
		{ "/var/lib/concierge", "/var/lib/concierge" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *m = cc_session_mask(cases[i].in);

		ok(strcmp(m, cases[i].shown) == 0, "store shown as '%s' (got '%s')",
		    cases[i].shown, m);
		free(m);
	}
	ok(cc_session_is_pg("postgresql://db/cc") && cc_session_is_pg("service=kiosk") &&
	    cc_session_is_pg("host=/run/postgresql dbname=cc"),
	    "URIs and conninfo strings name PostgreSQL");
	ok(!cc_session_is_pg("/var/lib/concierge") && !cc_session_is_pg("state") &&
	    !cc_session_is_pg("./a=b") && !cc_session_is_pg(""),
	    "paths name SQLite");
}

static void
test_session_state(void)
{
	char dir[] = "/tmp/cc-test-state.XXXXXX", err[256], *json = NULL, cmd[300];
	struct cc_config c, c0;
	struct cc_session *a, *b;
	time_t at = 0;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	setenv("CC_STATE_DIR", dir, 1);
	setenv("CC_NOW", "2025-01-15T10:00:00+09:00", 1);
	cc_config_load(&c);
	c.lock_timeout_ms = 300;	/* a held lock is waited for in vain below */
	a = cc_session_open(&c, 0, err, sizeof err);
	b = cc_session_open(&c, 0, err, sizeof err);
	ok(a && b, "two connections to one store");
	if (!a || !b)
		return;
	is_int(cc_session_state_get(a, "s1", "coach", &json, &at), 0, "no state yet");
	ok(json == NULL, "and no text");
	is_int(cc_session_state_put(a, "s1", "coach", "{\"level\":1}", c.now), 0, "state written");
	is_int(cc_session_state_get(a, "s1", "coach", &json, &at), 1, "the writer reads it at once");
	is_str(json, "{\"level\":1}", "the same text");
	ok(at == c.now, "with its time");
	free(json);
	is_int(cc_session_state_get(a, "s2", "coach", &json, NULL), 0, "another session has none");
	is_int(cc_session_state_put(a, "s1", "coach", "{\"level\":2}", c.now), 0, "replaced");
	is_int(cc_session_flush(a), 0, "committed");
	is_int(cc_session_state_get(b, "s1", "coach", &json, NULL), 1, "another process sees it");
	is_str(json, "{\"level\":2}", "the last one");
	free(json);
	is_int(cc_session_state_get(b, "s1", "emotion", &json, NULL), 0,
	    "names are separate");
	is_int(cc_session_state_put(a, "s1", "../x", "{}", c.now), -1,
	    "a name that is no file name is refused");

	/* a read-modify-write under cc_session_state_begin() keeps others out */
	cc_session_close(b);
	setenv("CC_LOCK_TIMEOUT", "0", 1);
	cc_config_load(&c0);
	unsetenv("CC_LOCK_TIMEOUT");
	b = cc_session_open(&c0, 0, err, sizeof err);
	ok(b != NULL, "a connection that does not wait for locks");
	is_int(cc_session_state_begin(a, "coach"), 0, "the batch begun before the read");
	is_int(cc_session_state_get(a, "s1", "coach", &json, NULL), 1, "read inside it");
	free(json);
	is_int(b ? cc_session_state_put(b, "s1", "coach", "{\"level\":9}", c.now) : 0, -1,
	    "another writer cannot come between the read and the write");
	is_int(cc_session_state_begin(a, "coach"), 0, "begun twice is one batch");
	is_int(cc_session_state_put(a, "s1", "coach", "{\"level\":3}", c.now), 0, "the write");
	is_int(cc_session_flush(a), 0, "committed");
	is_int(b ? cc_session_state_get(b, "s1", "coach", &json, NULL) : 0, 1, "then seen");
	is_str(json, "{\"level\":3}", "the read-modify-write's value");
	free(json);
	is_int(cc_session_state_begin(a, "../x"), -1, "no batch for a bad name");
	/* hold: what a writer keeps is good until another connection writes */
	is_int(cc_session_state_hold(a, "coach"), 1, "hold: the first look says changed");
	is_int(cc_session_state_hold(a, "coach"), 0, "held: unchanged within the batch");
	is_int(cc_session_state_put(a, "s1", "coach", "{\"level\":3}", c.now), 0,
	    "written under the hold");
	is_int(cc_session_flush(a), 0, "committed");
	is_int(cc_session_state_hold(a, "coach"), 0, "its own writes are no change");
	is_int(cc_session_flush(a), 0, "released");
	is_int(cc_session_state_put(b, "s2", "coach", "{\"level\":1}", c.now), 0,
	    "another connection writes");
	is_int(cc_session_flush(b), 0, "and commits");
	is_int(cc_session_state_hold(a, "coach"), 1, "the holder is told");
	is_int(cc_session_state_hold(b, "coach"), -1, "and the other waits for it in vain");
	is_int(cc_session_flush(a), 0, "released");
	is_int(cc_session_state_hold(b, "coach"), 1, "then takes it");
	is_int(cc_session_flush(b), 0, "and lets go");
	is_int(cc_session_state_hold(a, "coach"), 0, "a look changes nothing");
	is_int(cc_session_flush(a), 0, "released");
	cc_session_close(a);
	cc_session_close(b);
	cc_config_release(&c0);
	cc_config_release(&c);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "cleaned up");
	unsetenv("CC_STATE_DIR");
}

/* The queries of turns[0..n), each with =answer if it has one, in got. */
static void
joined(const struct cc_turn *turns, int n, char *got, size_t size)
{
	size_t k = 0;

	got[0] = '\0';
	for (int i = 0; i < n && k < size; i++)
		k += (size_t)snprintf(got + k, size - k, "%s%s%s%s", i ? " " : "",
		    turns[i].query, turns[i].answer ? "=" : "",
		    turns[i].answer ? turns[i].answer : "");
}

/*
 * cc_session_before: a reader behind the writer of turns (cc-respond
 * behind cc-route) gets the turns before a record's own, not the
 * session's newest, which the writer may have recorded since.
 */
static void
test_session_before(void)
{
	char dir[] = "/tmp/cc-test-before.XXXXXX", err[256], cmd[300], got[200];
	struct cc_config c;
	struct cc_session *w, *r;
	struct cc_turn t = { .language = "ja" }, turns[5];
	static const char *const q[] = { "q1", "q2", "q3", "q4", "q5" };
	long long id[5], other = 0;
	int n;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	setenv("CC_STATE_DIR", dir, 1);
	setenv("CC_NOW", "2025-01-15T10:00:00+09:00", 1);
	cc_config_load(&c);
	w = cc_session_open(&c, CC_SESSION_CACHE, err, sizeof err);
	r = cc_session_open(&c, CC_SESSION_ANSWERS, err, sizeof err);
	ok(w && r, "before: a writer of turns and a reader of answers");
	if (!w || !r)
		return;
	for (int i = 0; i < 5; i++) {
		t.query = (char *)q[i];
		t.at = c.now - (i == 0 ? 600 : 0);	/* q1 ten minutes ago */
		id[i] = cc_session_add(w, "s1", &t);
		if (i == 1) {
			t.query = "other";
			other = cc_session_add(w, "s2", &t);
		}
	}
	ok(id[0] > 0 && id[4] > id[0] && other > 0, "before: turns recorded");
	is_int(cc_session_flush(w), 0, "before: committed");
	is_int(cc_session_answer(r, id[1], "a2", c.now), 0, "before: an answer to q2");
	n = cc_session_before(r, "s1", id[2], 0, turns, 5);
	joined(turns, n, got, sizeof got);
	is_str(got, "q1 q2=a2", "before q3: q1 and q2 with its answer, not q4 or q5");
	cc_turns_release(turns, n > 0 ? n : 0);
	n = cc_session_recent(r, "s1", 0, turns, 5);
	joined(turns, n, got, sizeof got);
	is_str(got, "q1 q2=a2 q3 q4 q5", "(the newest turns have those after it)");
	cc_turns_release(turns, n > 0 ? n : 0);
	n = cc_session_before(r, "s1", id[4], 0, turns, 2);
	joined(turns, n, got, sizeof got);
	is_str(got, "q3 q4", "before q5, at most two: the newest two before it, oldest first");
	cc_turns_release(turns, n > 0 ? n : 0);
	n = cc_session_before(r, "s1", id[2], c.now - 180, turns, 5);
	joined(turns, n, got, sizeof got);
	is_str(got, "q2=a2", "within the window only");
	cc_turns_release(turns, n > 0 ? n : 0);
	is_int(cc_session_before(r, "s1", id[0], 0, turns, 5), 0, "before the first: none");
	is_int(cc_session_before(r, "s2", id[2], 0, turns, 5), 0,
	    "a turn of another session: none of either's");
	is_int(cc_session_before(r, "s1", other, 0, turns, 5), 0, "likewise the other way");
	is_int(cc_session_before(r, "s1", 0, 0, turns, 5), 0, "no turn: none");
	n = cc_session_before(w, "s1", id[3], 0, turns, 5);
	joined(turns, n, got, sizeof got);
	is_str(got, "q1 q2 q3", "the writer reads them too (without answers)");
	cc_turns_release(turns, n > 0 ? n : 0);
	cc_session_close(w);
	cc_session_close(r);
	cc_config_release(&c);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "before: cleaned up");
	unsetenv("CC_STATE_DIR");
}

/*
 * cc_session_turns with the turns kept in process (CC_SESSION_CACHE): the
 * newest 32 of a session, oldest first, through many times 32 turns (the
 * kept ones go back to the start of their slots every 32), the loan left
 * be by the turn added after it, and a clock that goes back (the window's
 * turns are then not the newest kept).
 */
static void
test_session_kept(void)
{
	char dir[] = "/tmp/cc-test-kept.XXXXXX", err[256], cmd[300], want[32];
	struct cc_config c;
	struct cc_session *w, *r;
	struct cc_turn t = { .language = "ja", .agent = "A" }, got[32];
	const struct cc_turn *v;
	char q[200][16];
	int n, bad_view = 0, bad_loan = 0, bad_other = 0;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	setenv("CC_STATE_DIR", dir, 1);
	setenv("CC_NOW", "2025-01-15T10:00:00+09:00", 1);
	cc_config_load(&c);
	w = cc_session_open(&c, CC_SESSION_CACHE, err, sizeof err);
	ok(w != NULL, "kept: a writer of turns");
	if (!w)
		return;
	t.at = c.now;
	for (int i = 0; i < 200; i++) {
		int k = i < 32 ? i : 32;

		snprintf(q[i], sizeof q[i], "q%d", i);
		n = cc_session_turns(w, "s1", c.now - 180, &v, 32);
		if (n != k || (n > 0 && (strcmp(v[0].query, q[i - k]) != 0 ||
		    strcmp(v[n - 1].query, q[i - 1]) != 0)))
			bad_view++;
		t.query = q[i];
		cc_session_add(w, "s1", &t);
		/* the loan, after the one turn added from it */
		for (int j = 0; j < n; j++)
			if (strcmp(v[j].query, q[i - k + j]) != 0)
				bad_loan++;
		/* another session between two of s1's */
		n = cc_session_turns(w, "s2", c.now - 180, &v, 32);
		if (n != (i < 32 ? i : 32))
			bad_other++;
		t.query = "other";
		cc_session_add(w, "s2", &t);
	}
	is_int(bad_view, 0, "kept: each turn of 200 saw the newest 32 before it, oldest first");
	is_int(bad_loan, 0, "kept: a turn added leaves the turns lent before it be");
	is_int(bad_other, 0, "kept: another session's count beside it");
	n = cc_session_turns(w, "s1", c.now - 180, &v, 5);
	is_int(n, 5, "kept: at most as many as asked");
	is_str(n == 5 ? v[4].query : "", "q199", "kept: ... the newest of them last");
	is_int(cc_session_flush(w), 0, "kept: committed");
	r = cc_session_open(&c, 0, err, sizeof err);
	n = r ? cc_session_recent(r, "s1", c.now - 180, got, 32) : -1;
	snprintf(want, sizeof want, "%s..%s", n == 32 ? got[0].query : "",
	    n == 32 ? got[31].query : "");
	is_str(want, "q168..q199", "kept: the store holds the same newest 32");
	cc_turns_release(got, n > 0 ? n : 0);
	/* the clock goes back: a turn older than the window after newer ones */
	for (int i = 0; i < 3; i++) {
		t.query = q[i];
		t.at = i == 1 ? c.now - 600 : c.now;
		cc_session_turns(w, "s3", c.now - 180, &v, 32);
		cc_session_add(w, "s3", &t);
	}
	n = cc_session_turns(w, "s3", c.now - 180, &v, 32);
	is_int(n, 2, "kept: a clock gone back: the window's two of three");
	is_str(n == 2 ? v[1].query : "", "q2", "kept: ... oldest first");
	cc_session_close(r);
	cc_session_close(w);
	cc_config_release(&c);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "kept: cleaned up");
	unsetenv("CC_STATE_DIR");
}

/* cc_dl_load: the first library found, its symbols, and what it says when
 * either is missing (libc stands in for libcurl, libical and libpq). */
static void
test_dl_load(void)
{
	static const char *const none[] = { "libcc-nothing.so.9", NULL };
	static const char *const libc[] = { "libcc-nothing.so.9", "libc.so.6", NULL };
	static const char *const syms[] = { "len", "cmp", NULL };
	static const char *const missing[] = { "len", "cc-nothing", NULL };
	void *len = NULL, *cmp = NULL, *dl;
	void **const slots[] = { &len, &cmp };
	char err[256] = "";

	ok(!cc_dl_load("libnothing", none, "", syms, slots, err, sizeof err) &&
	    strncmp(err, "cannot load libnothing (", 24) == 0,
	    "a library not found: NULL and why (%s)", err);
	dl = cc_dl_load("libc", libc, "str", syms, slots, err, sizeof err);
	ok(dl && len == dlsym(dl, "strlen") && cmp == dlsym(dl, "strcmp"),
	    "the next name is tried, and each symbol is its prefix and name");
	if (dl)
		dlclose(dl);
	ok(!cc_dl_load("libc", libc, "str", missing, slots, err, sizeof err) &&
	    strcmp(err, "cannot load libc: no strcc-nothing") == 0,
	    "a symbol missing: NULL and its name (%s)", err);
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * Loads of one manifest share a parse while the file is the same, and a
 * changed file is read again; the texts, cut in place from the file read
 * whole, read as the lines said.
 */
static void
test_shared_domain(void)
{
	char dir[] = "/tmp/cc-test-lib.XXXXXX", path[64], texts[64];
	struct cc_config c = {0};
	struct cc_domain *a, *b, *d;
	struct cc_texts *t;
	const char *emotion, *lang;
	unsigned line;
	char err[256] = "";
	struct timespec later[2] = { { 0, UTIME_OMIT }, { 2000000000, 0 } };

	if (!mkdtemp(dir)) {
		ok(0, "a temporary directory");
		return;
	}
	c.domain_dir = dir;
	snprintf(path, sizeof path, "%s/domain", dir);
	write_file(path, "name one\ndescription d\npipeline cc-route\n"
	    "agent a kb\nfallback a general\n");
	a = cc_domain_load(&c);
	b = cc_domain_load(&c);
	ok(a && a == b && strcmp(a->name, "one") == 0,
	    "the same manifest twice: one parse, shared");
	cc_domain_free(a);
	ok(strcmp(b->name, "one") == 0, "a load freed: the other still reads it");
	write_file(path, "name two\ndescription d\npipeline cc-route\n"
	    "agent a kb\nfallback a general\n");
	utimensat(AT_FDCWD, path, later, 0);	/* the same second would do too: ns */
	d = cc_domain_load(&c);
	ok(d && d != b && strcmp(d->name, "two") == 0, "the file changed: read again");
	ok(strcmp(b->name, "one") == 0, "an earlier load keeps what it read");
	cc_domain_free(b);
	cc_domain_free(d);
	unlink(path);

	snprintf(texts, sizeof texts, "%s/responses", dir);
	write_file(texts, "# a comment\n\nhello ja happy こんにちは\\n{name}\r\n"
	    "  bad line\nhello en - Hello");
	t = cc_texts_load(texts, err, sizeof err);
	ok(!t && strstr(err, "responses:4: expected 'KEY LANG EMOTION TEXT'"),
	    "a bad line is named with its line number (%s)", err);
	write_file(texts, "# a comment\n\nhello ja happy こんにちは\\n{name}\r\n"
	    "hello en - Hello");
	t = cc_texts_load(texts, err, sizeof err);
	is_str(t ? cc_texts_get(t, "hello", "ja", &emotion) : NULL, "こんにちは\n{name}",
	    "a text unescaped, its CR cut");
	is_str(emotion, "happy", "its emotion");
	is_str(t ? cc_texts_get(t, "hello", "en", &emotion) : NULL, "Hello",
	    "the last line without its newline");
	ok(t && cc_texts_count(t) == 2 && cc_texts_entry(t, 1, &lang, &line) &&
	    strcmp(lang, "en") == 0 && line == 4, "entries keep their lines");
	cc_texts_free(t);
	unlink(texts);
	rmdir(dir);
}

int
main(void)
{
	test_utf8();
	test_csv();
	test_read_file();
	test_nfkc();
	test_scan();
	test_index();
	test_member();
	test_member_last();
	test_elements();
	test_scan_utf8();
	test_to_jv();
	test_memo();
	test_value_memo();
	test_names();
	test_put();
	test_writer();
	test_records();
	test_time();
	test_lang();
	test_fold();
	test_casual();
	test_config();
	test_store_names();
	test_session_state();
	test_session_before();
	test_session_kept();
	test_dl_load();
	test_shared_domain();
	return tap_done();
}
