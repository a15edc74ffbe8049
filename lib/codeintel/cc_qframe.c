/*
 * Seed 003's QueryFrame rules: the quote check that keeps slots honest,
 * the consistency of a value with its quote, the intent's normalisation
 * and the risk level.  Python's string semantics where they matter:
 * lengths and character sets in code points, lower() and split() as
 * Unicode's.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_qframe.h"

const char *const cc_qframe_slot_names[CC_QF_NSLOTS] = {
	"target_feature", "trigger_condition", "observed_issue", "desired_action",
};

/* seed 003, QueryDecomposer.get_extraction_prompt, as it stands */
const char cc_qframe_prompt[] =
	"以下のクエリから情報を抽出してください。\n"
	"\n"
	"ルール：\n"
	"- 明示されている情報のみ抽出\n"
	"- 各スロットには「value」と「quote」を必ず含める\n"
	"- 「quote」は raw_query からの正確な引用（原文そのまま）\n"
	"- 推測・補完は禁止。不明な場合は null\n"
	"\n"
	"出力形式（JSON）：\n"
	"{\n"
	"  \"target_feature\": {\"value\": \"対象機能\", \"quote\": \"raw_queryからの引用\"} または null,\n"
	"  \"trigger_condition\": {\"value\": \"再現条件\", \"quote\": \"raw_queryからの引用\"} または null,\n"
	"  \"observed_issue\": {\"value\": \"問題\", \"quote\": \"raw_queryからの引用\"} または null,\n"
	"  \"desired_action\": {\"value\": \"期待する修正\", \"quote\": \"raw_queryからの引用\"} または null\n"
	"}\n"
	"\n"
	"クエリ: ";

int
cc_qframe_slot(const char *name, size_t len)
{
	for (int i = 0; i < CC_QF_NSLOTS; i++)
		if (strlen(cc_qframe_slot_names[i]) == len &&
		    memcmp(cc_qframe_slot_names[i], name, len) == 0)
			return i;
	return -1;
}

size_t
cc_qframe_len(const char *s, size_t len)
{
	size_t i = 0, n = 0;

	while (i < len) {
		cc_utf8_next(s, len, &i);
		n++;
	}
	return n;
}

/* 1 if needle[0..nl) occurs in hay[0..hl) ("" occurs in everything). */
static int
contains(const char *hay, size_t hl, const char *needle, size_t nl)
{
	if (nl == 0)
		return 1;
	if (nl > hl)
		return 0;
	return memmem(hay, hl, needle, nl) != NULL;
}

/* Python's str.isspace() for one code point. */
static int
py_space(int32_t c)
{
	return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 ||
	    c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
	    c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* A set of words: the (start, length) of each, in s. */
struct words {
	size_t (*w)[2];
	size_t n;
};

static void
split_words(const char *s, size_t len, struct words *ws)
{
	size_t i = 0;

	ws->w = cc_xmalloc((len + 1) * sizeof *ws->w);
	ws->n = 0;
	while (i < len) {
		size_t at = i, start;

		if (py_space(cc_utf8_next(s, len, &i)))
			continue;
		start = at;
		while (i < len) {
			size_t here = i;

			if (py_space(cc_utf8_next(s, len, &i))) {
				i = here;
				break;
			}
		}
		ws->w[ws->n][0] = start;
		ws->w[ws->n][1] = i - start;
		ws->n++;
	}
}

static int
cmp_cp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* The distinct code points of s, particles left out, sorted; their number. */
static size_t
char_set(const char *s, size_t len, int32_t *out)
{
	static const int32_t particles[] = {
		0x304C, 0x3092, 0x306B, 0x3067, 0x306F, 0x306E, 0x3068, 0x3082,	/* が を に で は の と も */
	};
	size_t i = 0, n = 0, k = 0;

	while (i < len) {
		int32_t c = cc_utf8_next(s, len, &i);
		int particle = 0;

		for (size_t p = 0; p < sizeof particles / sizeof *particles; p++)
			particle |= c == particles[p];
		if (!particle)
			out[n++] = c;
	}
	qsort(out, n, sizeof *out, cmp_cp);
	for (size_t j = 0; j < n; j++)
		if (k == 0 || out[k - 1] != out[j])
			out[k++] = out[j];
	return k;
}

int
cc_qframe_consistent(const char *value, size_t vlen, const char *quote, size_t qlen)
{
	size_t vl, ql, nv, nq, common = 0;
	char *v, *q;
	struct words vw, qw;
	int32_t *vc, *qc;
	int ok = 0;

	/* a value that is its quote (any extractor that quotes) contains it */
	if (vlen == qlen && memcmp(value, quote, vlen) == 0)
		return 1;
	v = cc_text_lower(value, vlen, &vl);
	q = cc_text_lower(quote, qlen, &ql);
	/* 1. one contains the other */
	if (contains(q, ql, v, vl) || contains(v, vl, q, ql)) {
		ok = 1;
		goto done;
	}
	/* 2. a word in common (English) */
	split_words(v, vl, &vw);
	split_words(q, ql, &qw);
	for (size_t a = 0; a < vw.n && !ok; a++)
		for (size_t b = 0; b < qw.n && !ok; b++)
			ok = vw.w[a][1] == qw.w[b][1] &&
			    memcmp(v + vw.w[a][0], q + qw.w[b][0], vw.w[a][1]) == 0;
	free(vw.w);
	free(qw.w);
	if (ok)
		goto done;
	/* 3. half the characters in common, particles aside (Japanese) */
	vc = cc_xmalloc((vl + 1) * sizeof *vc);
	qc = cc_xmalloc((ql + 1) * sizeof *qc);
	nv = char_set(v, vl, vc);
	nq = char_set(q, ql, qc);
	for (size_t a = 0, b = 0; a < nv && b < nq;) {
		if (vc[a] == qc[b])
			common++, a++, b++;
		else if (vc[a] < qc[b])
			a++;
		else
			b++;
	}
	/* common / min(nv, nq) >= 0.5, in integers */
	ok = nv && nq && 2 * common >= (nv < nq ? nv : nq);
	free(vc);
	free(qc);
done:
	free(v);
	free(q);
	return ok;
}

const char *
cc_qframe_verdict_name(enum cc_qf_verdict v)
{
	static const char *const names[] = {
		"valid", "no_value", "no_quote", "not_quoted", "inconsistent",
	};

	return (unsigned)v < sizeof names / sizeof *names ? names[v] : "invalid";
}

enum cc_qf_verdict
cc_qframe_validate(const char *value, size_t vlen, const char *quote, size_t qlen,
    const char *raw, size_t rawlen)
{
	if (!value || !vlen)
		return CC_QF_NO_VALUE;
	if (!quote || !qlen)
		return CC_QF_NO_QUOTE;
	if (!contains(raw, rawlen, quote, qlen))
		return CC_QF_NOT_QUOTED;
	if (!cc_qframe_consistent(value, vlen, quote, qlen))
		return CC_QF_INCONSISTENT;
	return CC_QF_VALID;
}

const char *
cc_qframe_intent(const char *s, size_t len)
{
	static const char *const intents[] = { "IMPLEMENT", "MODIFY", "INVESTIGATE", "QUESTION" };
	const char *found = "INVESTIGATE";
	size_t ul;
	char *u;

	if (!s)
		return found;
	u = cc_text_upper(s, len, &ul);
	for (size_t i = 0; i < 4; i++)
		if (ul == strlen(intents[i]) && memcmp(u, intents[i], ul) == 0)
			found = intents[i];
	free(u);
	return found;
}

const char *
cc_qframe_risk(const struct cc_qframe *f, const char *intent)
{
	int any = 0;

	for (int i = 0; i < CC_QF_NSLOTS; i++)
		any |= f->len[i] > 0;
	if (f->len[CC_QF_ACTION] && !f->len[CC_QF_ISSUE])
		return "HIGH";
	if (intent && strcmp(intent, "MODIFY") == 0 && !f->len[CC_QF_TARGET])
		return "HIGH";
	if (intent && strcmp(intent, "IMPLEMENT") == 0 && !any)
		return "HIGH";
	if (f->len[CC_QF_ISSUE] && cc_qframe_len(f->value[CC_QF_ISSUE], f->len[CC_QF_ISSUE]) < 10)
		return "MEDIUM";
	for (int i = 0; i < CC_QF_NSLOTS; i++)
		if (f->hypothesis[i])
			return "MEDIUM";
	return "LOW";
}

/* A string member of an object: its text and length, or NULL.  Borrows obj. */
static const char *
str_member(jv obj, const char *key, size_t *len)
{
	jv v = jv_object_get(jv_copy(obj), jv_string(key));
	const char *s = NULL;

	/* the string stays alive in obj: v is a reference to the same value */
	if (jv_get_kind(v) == JV_KIND_STRING) {
		s = jv_string_value(v);
		*len = (size_t)jv_string_length_bytes(jv_copy(v));
	}
	jv_free(v);
	return s;
}

void
cc_qframe_given(jv obj, struct cc_qf_given out[CC_QF_NSLOTS])
{
	memset(out, 0, CC_QF_NSLOTS * sizeof *out);
	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		return;
	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		jv s = jv_object_get(jv_copy(obj), jv_string(cc_qframe_slot_names[i]));

		if (jv_is_valid(s) && jv_get_kind(s) != JV_KIND_NULL) {
			out[i].given = 1;
			if (jv_get_kind(s) == JV_KIND_OBJECT) {
				out[i].value = str_member(s, "value", &out[i].vlen);
				out[i].quote = str_member(s, "quote", &out[i].qlen);
			}
		}
		jv_free(s);
	}
}

jv
cc_qframe_parse_answer(const char *text, size_t len)
{
	const char *open = memchr(text, '{', len), *close = NULL;
	jv v;

	for (size_t i = len; open && i > (size_t)(open - text); i--)
		if (text[i - 1] == '}') {
			close = text + i - 1;
			break;
		}
	if (!open || !close)
		return jv_invalid();
	v = cc_json_parse(open, (size_t)(close - open) + 1);
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return jv_invalid();
	}
	return v;
}
