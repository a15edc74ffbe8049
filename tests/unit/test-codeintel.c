/*
 * Unit tests of the code-intel domain's modules (lib/codeintel/), and the
 * original's vectors (tests/data/code-intel/peer/) replayed through them:
 * semconsistent, risk, requirements and related, every record.
 */
#include "config.h"

#include <jv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_json.h"
#include "codeintel/cc_qframe.h"
#include "codeintel/cc_slotx.h"
#include "codeintel/cc_synonyms.h"
#include "codeintel/cc_explore.h"
#include "tap.h"

static const char *srcdir = ".";

static char *
path_of(const char *rel)
{
	size_t n = strlen(srcdir) + strlen(rel) + 2;
	char *p = cc_xmalloc(n);

	snprintf(p, n, "%s/%s", srcdir, rel);
	return p;
}

/* Each record of an NDJSON file, to fn; the number read. */
static int
each_record(const char *rel, void (*fn)(jv r, void *ctx), void *ctx)
{
	char *path = path_of(rel), *line = NULL;
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	ssize_t len;
	int n = 0;

	if (!ok(f != NULL, "open %s", rel)) {
		free(path);
		return 0;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		jv r = cc_json_parse(line, (size_t)len);

		if (jv_get_kind(r) == JV_KIND_OBJECT) {
			fn(r, ctx);
			n++;
		}
		jv_free(r);
	}
	free(line);
	fclose(f);
	free(path);
	return n;
}

/* r[key] as a string (borrowed from r), or NULL. */
static const char *
str(jv r, const char *key, size_t *len)
{
	jv v = jv_object_get(jv_copy(r), jv_string(key));
	const char *s = NULL;

	if (jv_get_kind(v) == JV_KIND_STRING) {
		s = jv_string_value(v);
		if (len)
			*len = (size_t)jv_string_length_bytes(jv_copy(v));
	}
	jv_free(v);
	return s;
}

static int
is_true(jv r, const char *key)
{
	jv v = jv_object_get(jv_copy(r), jv_string(key));
	int t = jv_get_kind(v) == JV_KIND_TRUE;

	jv_free(v);
	return t;
}

/* ---- the peer vectors ---- */

static void
semconsistent(jv r, void *ctx)
{
	size_t vl = 0, ql = 0;
	const char *v = str(r, "value", &vl), *q = str(r, "quote", &ql);

	(void)ctx;
	is_int(cc_qframe_consistent(v, vl, q, ql), is_true(r, "expected"),
	    "semconsistent %s: '%s' / '%s'", str(r, "id", NULL), v, q);
}

static void
risk(jv r, void *ctx)
{
	jv frame = jv_object_get(jv_copy(r), jv_string("frame"));
	jv expect = jv_object_get(jv_copy(r), jv_string("expect"));
	jv src = jv_object_get(jv_copy(frame), jv_string("slot_source"));
	struct cc_qframe f;

	(void)ctx;
	memset(&f, 0, sizeof f);
	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		f.value[i] = str(frame, cc_qframe_slot_names[i], &f.len[i]);
		if (!f.value[i])
			f.len[i] = 0;
		if (jv_get_kind(src) == JV_KIND_OBJECT) {
			const char *s = str(src, cc_qframe_slot_names[i], NULL);

			f.hypothesis[i] = s && strcmp(s, "HYPOTHESIS") == 0;
		}
	}
	is_str(cc_qframe_risk(&f, str(r, "intent", NULL)), str(expect, "risk_level", NULL),
	    "risk %s", str(r, "id", NULL));
	jv_free(src);
	jv_free(frame);
	jv_free(expect);
}

struct req_ctx {
	struct cc_explore *x;
};

static void
requirements(jv r, void *ctx)
{
	struct req_ctx *c = ctx;
	struct cc_buf b = {0};
	struct cc_jw w;
	jv got, want = jv_object_get(jv_copy(r), jv_string("expect"));

	cc_jw_init(&w, &b);
	cc_explore_write_requirements(c->x, str(r, "intent", NULL), str(r, "risk_level", NULL), &w);
	got = cc_json_parse(b.data, b.len);
	ok(jv_equal(jv_copy(got), jv_copy(want)), "requirements %s: %s", str(r, "id", NULL), b.data);
	jv_free(got);
	jv_free(want);
	cc_buf_release(&b);
}

static void
related(jv r, void *ctx)
{
	size_t nl = 0, sl = 0;
	const char *n = str(r, "nl_term", &nl), *s = str(r, "symbol", &sl);

	is_int(cc_synonyms_related(ctx, n, nl, s, sl) != 0, is_true(r, "expected"),
	    "related %s: '%s' / '%s'", str(r, "id", NULL), n, s);
}

static void
test_peer(void)
{
	char err[512];
	char *g = path_of("share/concierge/code-intel/guidance");
	char *q = path_of("share/concierge/code-intel/requirements");
	char *y = path_of("share/concierge/code-intel/synonyms");
	struct req_ctx rc = { cc_explore_load(g, q, err, sizeof err) };
	struct cc_synonyms *syn = cc_synonyms_load(y, err, sizeof err);

	if (ok(rc.x && syn, "the domain's guidance, requirements and synonyms load")) {
		is_int(each_record("tests/data/code-intel/peer/semconsistent.ndjson", semconsistent, NULL),
		    24, "24 semconsistent vectors");
		is_int(each_record("tests/data/code-intel/peer/risk.ndjson", risk, NULL), 25,
		    "25 risk vectors");
		is_int(each_record("tests/data/code-intel/peer/requirements.ndjson", requirements, &rc),
		    12, "12 requirements vectors");
		is_int(each_record("tests/data/code-intel/peer/related.ndjson", related, syn), 103,
		    "103 related vectors");
	}
	cc_explore_free(rc.x);
	cc_synonyms_free(syn);
	free(g);
	free(q);
	free(y);
}

/* ---- the seed's string rules ---- */

static void
test_strings(void)
{
	const char *jp = "エラーが出る";

	is_int(cc_qframe_len(jp, strlen(jp)), 6, "lengths count code points (18 bytes, 6 characters)");
	ok(cc_qframe_consistent("login\xe3\x80\x80" "form", 12, "form", 4),
	    "a word after U+3000 is a word (str.split())");
	ok(cc_qframe_consistent("x\xe3\x80\x80y", 5, "y z", 3), "split on U+3000 and on a space alike");
	ok(cc_qframe_consistent("\xc4\xb0STANBUL", 9, "i\xcc\x87stanbul", 10),
	    "lower() of U+0130 is i with a dot above, as Python's");
	ok(cc_qframe_consistent("ＬＯＧＩＮ", 15, "ｌｏｇｉｎ", 15), "lower() is Unicode's (fullwidth)");
	ok(!cc_qframe_consistent("が", 3, "の", 3), "particles alone are no characters in common");
	ok(cc_qframe_consistent("", 0, "", 0), "'' is in ''");
	is_int(cc_qframe_validate("a", 1, "b", 1, "abc", 3), CC_QF_INCONSISTENT, "a value unrelated to its quote");
	is_int(cc_qframe_validate(NULL, 0, "b", 1, "abc", 3), CC_QF_NO_VALUE, "no value");
	is_int(cc_qframe_validate("b", 1, "", 0, "abc", 3), CC_QF_NO_QUOTE, "an empty quote");
	is_int(cc_qframe_validate("x", 1, "x", 1, "abc", 3), CC_QF_NOT_QUOTED, "a quote not in the request");
	is_int(cc_qframe_validate("b", 1, "b", 1, "abc", 3), CC_QF_VALID, "a quote in the request");
	is_int(cc_qframe_validate("B", 1, "B", 1, "abc", 3), CC_QF_NOT_QUOTED, "quotes are case-sensitive");
	is_str(cc_qframe_verdict_name(CC_QF_NOT_QUOTED), "not_quoted", "the verdict's word");
	is_str(cc_qframe_intent("modify", 6), "MODIFY", "an intent is upper-cased");
	is_str(cc_qframe_intent("Question", 8), "QUESTION", "whatever its case");
	is_str(cc_qframe_intent("mod\xc4\xb1" "fy", 7), "MODIFY", "as Python's upper(): dotless i is I");
	is_str(cc_qframe_intent("DELETE", 6), "INVESTIGATE", "an unknown intent is INVESTIGATE");
	is_str(cc_qframe_intent(NULL, 0), "INVESTIGATE", "no intent is INVESTIGATE");
	is_str(cc_qframe_intent(" MODIFY", 7), "INVESTIGATE", "a space makes it unknown");
	is_int(cc_qframe_slot("observed_issue", 14), CC_QF_ISSUE, "a slot by its name");
	is_int(cc_qframe_slot("observed", 8), -1, "not by a prefix");
}

static void
test_answer(void)
{
	static const char text[] = "Sure:\n```json\n{\"target_feature\": {\"value\": \"a\", \"quote\": \"a\"}, "
	    "\"observed_issue\": null, \"desired_action\": \"fix\"}\n```";
	jv v = cc_qframe_parse_answer(text, sizeof text - 1);
	struct cc_qf_given g[CC_QF_NSLOTS];

	cc_qframe_given(v, g);
	ok(g[CC_QF_TARGET].given && g[CC_QF_TARGET].vlen == 1 && g[CC_QF_TARGET].qlen == 1,
	    "an answer in fences: the object is read");
	ok(!g[CC_QF_ISSUE].given && !g[CC_QF_TRIGGER].given, "null and absent slots are not given");
	ok(g[CC_QF_ACTION].given && !g[CC_QF_ACTION].value, "a slot that is not an object is given, with no value");
	jv_free(v);
	v = cc_qframe_parse_answer("no json } here {", 16);
	ok(!jv_is_valid(v), "no object, no slots");
	jv_free(v);
	v = cc_qframe_parse_answer("[1,2]", 5);
	ok(!jv_is_valid(v), "an array is no answer");
	jv_free(v);
	cc_qframe_given(jv_number(1), g);
	ok(!g[0].given, "a number has no slots");
}

/* ---- the extractor ---- */

static char *
write_tmp(const char *text)
{
	char *path = strdup("/tmp/cc-slotx-test.XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

static struct cc_slotx *
load_text(const char *text, char *err, size_t errlen)
{
	char *path = write_tmp(text);
	struct cc_slotx *x = cc_slotx_load(path, err, errlen);

	unlink(path);
	free(path);
	return x;
}

/* The quote of a slot as a string (static), "-" for none. */
static const char *
quote(const char *text, const struct cc_slotx_span *s)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	if (s->end <= s->start)
		return "-";
	snprintf(buf[k], sizeof buf[k], "%.*s", (int)(s->end - s->start), text + s->start);
	return buf[k];
}

static void
test_slotx(void)
{
	static const char rules[] =
		"# a small extractor\n"
		"define verb (?:fix|add)\n"
		"none QUESTION\n"
		"trim-start the a\n"
		"trim-end @desired_action it\n"
		"trigger_condition \\b(?<q>when [^,.]+)\n"
		"target_feature `(?<q>[^`]+)`\n"
		"target_feature \\bthe (?<q>\\w+ \\w+)\n"
		"desired_action ^(?<q>{verb}\\b[^.\\x01-\\x04]*)\n"
		"observed_issue @MODIFY {T}\\s+(?<q>[^.]+?)\\s*(?={C}|$)\n";
	char err[512];
	struct cc_slotx *x = load_text(rules, err, sizeof err);
	struct cc_slotx_span sp[CC_QF_NSLOTS];
	const char *t;

	if (!ok(x != NULL, "a small patterns file loads (%s)", x ? "ok" : err))
		return;
	t = "the login form breaks when the name is empty";
	cc_slotx_extract(x, t, strlen(t), "MODIFY", sp);
	is_str(quote(t, &sp[CC_QF_TRIGGER]), "when the name is empty", "a trigger");
	is_str(quote(t, &sp[CC_QF_TARGET]), "login form", "a target after the trigger is masked");
	is_str(quote(t, &sp[CC_QF_ISSUE]), "breaks", "{T} and {C} anchor on the masks");
	cc_slotx_extract(x, t, strlen(t), "INVESTIGATE", sp);
	is_str(quote(t, &sp[CC_QF_ISSUE]), "-", "a rule for other intents is skipped");
	cc_slotx_extract(x, t, strlen(t), "QUESTION", sp);
	is_str(quote(t, &sp[CC_QF_TARGET]), "-", "a 'none' intent gets no slot");
	t = "fix it.";
	cc_slotx_extract(x, t, strlen(t), "MODIFY", sp);
	is_str(quote(t, &sp[CC_QF_ACTION]), "fix", "trim-end words of the slot named, then punctuation");
	t = "add `x y` now";
	cc_slotx_extract(x, t, strlen(t), "MODIFY", sp);
	is_str(quote(t, &sp[CC_QF_TARGET]), "x y", "`symbol` quotes the symbol");
	is_str(quote(t, &sp[CC_QF_ACTION]), "add", "a later quote stops at a masked one");
	cc_slotx_free(x);

	x = load_text("define x (a\n", err, sizeof err);
	ok(!x && strstr(err, ":1: bad pattern"), "a bad pattern is refused with its line (%s)", err);
	cc_slotx_free(x);
	x = load_text("target_feature {nope}\n", err, sizeof err);
	ok(!x && strstr(err, ":1: unknown piece '{nope}'"), "an unknown piece (%s)", err);
	cc_slotx_free(x);
	x = load_text("frobnicate x\n", err, sizeof err);
	ok(!x && strstr(err, "unknown slot or directive 'frobnicate'"), "an unknown directive (%s)", err);
	cc_slotx_free(x);
	x = load_text("trim-end @nope x\n", err, sizeof err);
	ok(!x && strstr(err, "unknown slot 'nope'"), "a trim for an unknown slot (%s)", err);
	cc_slotx_free(x);
	x = cc_slotx_load("/nonexistent/frame.patterns", err, sizeof err);
	ok(!x && strstr(err, "cannot open"), "a missing file (%s)", err);
}

/* The bundled patterns: spans inside the text, on characters, apart. */
static void
test_bundled(void)
{
	static const char *const requests[] = {
		"ログイン機能でパスワードが空のときエラーが出ないのでチェックを追加して",
		"The `OrderController` is 2,000 lines long; split it into smaller controllers",
		"`Coupon` モデルの `expires_at` を必須にしたら、どこが壊れる？",
		"", "`", "``", "とと", "when", "\xe3\x80\x80", "a\0b",
	};
	char *path = path_of("share/concierge/code-intel/frame.patterns"), err[512];
	struct cc_slotx *x = cc_slotx_load(path, err, sizeof err);
	struct cc_slotx_span sp[CC_QF_NSLOTS];
	int good = 1;

	if (!ok(x != NULL, "the domain's frame.patterns load (%s)", x ? "ok" : err)) {
		free(path);
		return;
	}
	for (size_t r = 0; r < sizeof requests / sizeof *requests; r++) {
		size_t len = r == 9 ? 3 : strlen(requests[r]);

		cc_slotx_extract(x, requests[r], len, "MODIFY", sp);
		for (int i = 0; i < CC_QF_NSLOTS; i++) {
			if (sp[i].end <= sp[i].start)
				continue;
			good &= sp[i].end <= len &&
			    ((unsigned char)requests[r][sp[i].start] & 0xC0) != 0x80 &&
			    (sp[i].end == len || ((unsigned char)requests[r][sp[i].end] & 0xC0) != 0x80);
			for (int k = 0; k < i; k++)
				good &= sp[k].end <= sp[i].start || sp[i].end <= sp[k].start;
		}
	}
	ok(good, "quotes lie in the request, on character boundaries, and apart");
	cc_slotx_extract(x, requests[0], strlen(requests[0]), "MODIFY", sp);
	is_str(quote(requests[0], &sp[CC_QF_ACTION]), "チェックを追加", "seed 003's example: the action");
	is_str(quote(requests[0], &sp[CC_QF_TRIGGER]), "パスワードが空のとき", "and its trigger");
	cc_slotx_free(x);
	free(path);
}

int
main(void)
{
	const char *d = getenv("top_srcdir");

	if (d && *d)
		srcdir = d;
	test_strings();
	test_answer();
	test_slotx();
	test_bundled();
	test_peer();
	return tap_done();
}
