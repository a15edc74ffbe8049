/*
 * Unit tests of analyze_homework_image's parts that need no OCR: base64
 * and the size limit, format sniffing, worksheet lines to problems,
 * difficulty, operators by shape on drawn bitmaps, and the checks on a
 * vision model's answer.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_glyph.h"
#include "cc_image.h"
#include "cc_sheet.h"
#include "cc_vision.h"
#include "tap.h"

static void
decode_is(const char *in, const char *want, const char *what)
{
	unsigned char *out;
	size_t n;
	char err[256] = "";
	int rc = cc_image_decode(in, strlen(in), 1 << 20, &out, &n, err, sizeof err);

	if (!want) {
		ok(rc == -1 && err[0], "%s: refused (%s)", what, err);
		free(out);
		return;
	}
	ok(rc == 0 && n == strlen(want) && !memcmp(out, want, n), "%s", what);
	free(out);
}

static void
test_base64(void)
{
	unsigned char *out;
	size_t n;
	char err[256];

	decode_is("ZmFrZV9pbWFnZQ==", "fake_image", "padded");
	decode_is("ZmFrZV9pbWFnZQ", "fake_image", "without padding");
	decode_is("ZmFr\nZV9p bWFn\r\nZQ==\n", "fake_image", "line breaks and spaces");
	decode_is("data:image/png;base64,ZmFrZV9pbWFnZQ==", "fake_image", "a data: URI");
	decode_is("DATA:image/png;charset=x;BASE64,YWJj", "abc", "a data: URI, any case");
	decode_is("", "", "nothing decodes to nothing");
	decode_is("ZmF!", NULL, "a character outside the alphabet");
	decode_is("ZmFr-_", NULL, "the URL-safe alphabet is not standard base64");
	decode_is("Zm==ZmFr", NULL, "padding inside the text");
	decode_is("ZmFrZ", NULL, "a length base64 cannot have");
	decode_is("ZmE===", NULL, "three padding characters");
	decode_is("ZmFrZQ=", NULL, "padding that does not complete a quantum");
	decode_is("data:text/plain,hello", NULL, "a data: URI that is not base64");
	decode_is("YWJjあ", NULL, "a non-ASCII byte");
	is_int(cc_image_decode("YWJj", 4, 3, &out, &n, err, sizeof err), 0,
	    "exactly the limit is accepted");
	free(out);
	is_int(cc_image_decode("YWJjZA==", 8, 3, &out, &n, err, sizeof err), -2,
	    "one byte over the limit is too large");
	is_int(n, 4, "and the size is told");
	ok(out == NULL, "before anything is decoded");
	is_int(cc_image_decode("YWJjZA", 6, 3, &out, &n, err, sizeof err), -2,
	    "the limit counts unpadded input too");
	/* round trips of every tail length */
	for (size_t len = 0; len <= 7; len++) {
		unsigned char in[8] = { 0, 0xff, 0x10, 0x80, 0x7f, 0xfe, 0x01, 0xaa };
		struct cc_buf b = {0};
		int rc;

		cc_vision_base64(&b, in, len);
		rc = cc_image_decode(b.data ? b.data : "", b.len, 100, &out, &n, err, sizeof err);
		ok(rc == 0 && n == len && !memcmp(out, in, len), "base64 round trip of %zu bytes",
		    len);
		free(out);
		cc_buf_release(&b);
	}
}

static void
test_sniff(void)
{
	static const struct { const char *bytes; size_t n; const char *fmt; } t[] = {
		{ "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16, "png" },
		{ "\xff\xd8\xff\xe0\0\x10JFIF", 10, "jpeg" },
		{ "GIF89a\1\0\1\0", 10, "gif" },
		{ "GIF87a\1\0\1\0", 10, "gif" },
		{ "II*\0\x08\0\0\0", 8, "tiff" },
		{ "MM\0*\0\0\0\x08", 8, "tiff" },
		{ "BM>\0\0\0\0\0\0\0>\0\0\0", 14, "bmp" },
		{ "RIFF$\0\0\0WEBPVP8 ", 16, "webp" },
		{ "P6\n1 1\n255\n\0\0\0", 14, "pnm" },
		{ "P1 1 1 0", 8, "pnm" },
		{ "\0\0\0\x0cjP  \r\n\x87\n", 12, "jp2" },
		{ "\xffO\xffQ", 4, "jp2" },
		{ "fake_image", 10, NULL },
		{ "\x89PNG", 4, NULL },
		{ "BM", 2, NULL },
		{ "RIFF$\0\0\0WAVE", 12, NULL },
		{ "P9\n", 3, NULL },
		{ "", 0, NULL },
	};
	const char *mime;

	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		const char *got = cc_image_sniff((const unsigned char *)t[i].bytes, t[i].n, &mime);

		is_str(got, t[i].fmt, "sniff case %zu: %s", i, t[i].fmt ? t[i].fmt : "not an image");
	}
	cc_image_sniff((const unsigned char *)"\xff\xd8\xff", 3, &mime);
	is_str(mime, "image/jpeg", "JPEG's type is image/jpeg");
}

static void
arith_is(const char *line, const char *expr, const char *disp, int repaired)
{
	char *e, *d;
	int rep, r = cc_sheet_arith(line, strlen(line), &e, &d, &rep);

	if (!disp) {
		ok(!r, "'%s' is not arithmetic", line);
	} else {
		ok(r, "'%s' is arithmetic", line);
		is_str(e, expr, "'%s': expression", line);
		is_str(d, disp, "'%s': as shown", line);
		is_int(rep, repaired, "'%s': %s", line, repaired ? "repaired" : "not repaired");
	}
	free(e);
	free(d);
}

static void
test_arith(void)
{
	arith_is("23 + 45 =", "23+45", "23 + 45 =", 0);
	arith_is("８×７＝", "8*7", "8 × 7 =", 0);
	arith_is("12 ÷ 4 =", "12/4", "12 ÷ 4 =", 0);
	arith_is("71 − 38 =", "71-38", "71 − 38 =", 0);
	arith_is("71-38=", "71-38", "71 − 38 =", 0);
	arith_is("6 x 7 =", "6*7", "6 × 7 =", 0);
	arith_is("(1) 23 + 45 =", "23+45", "23 + 45 =", 0);
	arith_is("（２） 9 + 4 =", "9+4", "9 + 4 =", 0);
	arith_is("① 9 + 4 =", "9+4", "9 + 4 =", 0);	/* ① is not 1 */
	arith_is("1. 3 + 4 =", "3+4", "3 + 4 =", 0);
	arith_is("[12] 3 + 4 =", "3+4", "3 + 4 =", 0);
	arith_is("問" "3 10 - 2 =", "10-2", "10 − 2 =", 0);
	arith_is("1.5 + 2 =", "1.5+2", "1.5 + 2 =", 0);
	arith_is("7 一 3 =", "7-3", "7 − 3 =", 1);	/* 一 */
	arith_is("7 ー 3 =", "7-3", "7 − 3 =", 1);	/* ー */
	arith_is("23十" "45=", "23+45", "23 + 45 =", 1);	/* 十 */
	arith_is("23 + 45 二", "23+45", "23 + 45 =", 1);	/* 二 */
	arith_is("6 x 7 —", "6*7", "6 × 7 =", 1);	/* — */
	arith_is("l2 + 5 =", "12+5", "12 + 5 =", 1);
	arith_is("O + 3 =", "0+3", "0 + 3 =", 1);
	arith_is("3 + I =", "3+1", "3 + 1 =", 1);
	arith_is("7l - 38 =", "71-38", "71 − 38 =", 1);
	arith_is("3g + 1 =", "39+1", "39 + 1 =", 1);
	arith_is("□ + 5 = 12", NULL, "□ + 5 = 12", 0);
	arith_is("23 + 45 = □", "23+45", "23 + 45 = □", 0);
	arith_is("23 + 45 = ( )", "23+45", "23 + 45 = □", 0);
	arith_is("23 + 45 = 68", "23+45", "23 + 45 = 68", 0);
	arith_is("(3 + 4) × 2 =", "(3+4)*2", "(3 + 4) × 2 =", 0);
	arith_is("1,000 + 200 =", "1000+200", "1000 + 200 =", 0);
	arith_is("12 ∕ 4", "12/4", "12 ÷ 4", 0);
	arith_is("23 45", NULL, NULL, 0);
	arith_is("12", NULL, NULL, 0);
	arith_is("3 +", NULL, NULL, 0);
	arith_is("3 -", NULL, NULL, 0);
	arith_is("2024-01-15", NULL, NULL, 0);
	arith_is("I like it", NULL, NULL, 0);
	arith_is("Ok", NULL, NULL, 0);
	arith_is("S + Z", NULL, NULL, 0);	/* S and Z only beside a digit */
	arith_is("3 + 4 = 7 + 1", NULL, NULL, 0);
	arith_is("((((((((((1+1))))))))))", NULL, NULL, 0);
	arith_is("(3 + 4", NULL, NULL, 0);
	arith_is("りんごが 3 こ", NULL, NULL, 0);
	arith_is("1,00 + 2", NULL, NULL, 0);
	arith_is("1.2.3 + 4", NULL, NULL, 0);
	arith_is("\xff\xfe + 1", NULL, NULL, 0);
}

static void
test_difficulty(void)
{
	static const struct { const char *e; int g; } t[] = {
		{ "3+5", 1 }, { "9+4", 1 }, { "23+4", 1 }, { "30+40", 1 }, { "3+4+2", 1 },
		{ "13-8", 1 }, { "27-5", 1 }, { "70-30", 1 },
		{ "23+45", 2 }, { "67+58", 2 }, { "71-38", 2 }, { "145-68", 2 },
		{ "300+500", 2 }, { "6*7", 2 }, { "9*9", 2 }, { "(3+4)+2", 2 },
		{ "56/8", 3 }, { "12/4", 3 }, { "12*3", 3 }, { "6*10", 3 }, { "0*5", 3 },
		{ "345+278", 3 }, { "2.5+1", 3 }, { "(3+4)*2", 3 }, { "2+3*4", 3 },
		{ "5-8", 3 }, { "12000+5", 3 },
		{ "", 0 }, { "abc", 0 }, { "3+x", 0 },
	};

	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		is_int(cc_sheet_difficulty(t[i].e), t[i].g, "difficulty of '%s'", t[i].e);
	is_int(cc_sheet_difficulty(NULL), 0, "difficulty of nothing");
}

static void
line_is(const struct cc_sheet *sh, const char *line, enum cc_sheet_subject subj,
    const char *type, int difficulty)
{
	struct cc_sheet_problem p;
	int r = cc_sheet_line(sh, line, strlen(line), subj, &p);

	if (!type) {
		ok(!r, "'%s' is not a problem", line);
		return;
	}
	ok(r, "'%s' is a problem", line);
	is_str(r ? p.type : NULL, type, "'%s' is %s", line, type);
	is_int(r ? p.difficulty : 0, difficulty, "'%s': difficulty %d", line, difficulty);
	if (r && strcmp(type, "arithmetic"))
		ok(p.expression == NULL, "'%s' has no expression", line);
	if (r)
		cc_sheet_problem_release(&p);
}

static void
test_lines(void)
{
	const char *datadir = getenv("CC_DATADIR");
	char path[4096], err[256];
	struct cc_sheet *sh;
	struct cc_sheet_problem p;

	snprintf(path, sizeof path, "%s/homework-coach/worksheet",
	    datadir ? datadir : "share/concierge");
	sh = cc_sheet_load(path, err, sizeof err);
	if (!ok(sh != NULL, "the worksheet data loads (%s)", sh ? path : err))
		return;
	line_is(sh, "(1) 23 + 45 =", CC_SHEET_ANY, "arithmetic", 2);
	line_is(sh, "56 ÷ 8 =", CC_SHEET_ANY, "arithmetic", 3);
	/* つぎの漢字の読みがなを書きましょう。: 漢 is grade 3 */
	line_is(sh, "つぎの漢字の読みがなを書きましょう。", CC_SHEET_ANY, "kanji", 3);
	/* 「山」の よみかたを かきましょう。: 山 is grade 1 */
	line_is(sh, "「山」の よみかたを かきましょう。", CC_SHEET_ANY, "kanji", 1);
	/* りんごが 3こ あります。2こ たべると のこりは いくつ ですか。 */
	line_is(sh, "りんごが 3こ あります。" "2こ たべると のこりは いくつ ですか。",
	    CC_SHEET_ANY, "word_problem", 1);
	/* えんぴつを 4本ずつ 6人に くばります。ぜんぶで 何本 いりますか。 */
	line_is(sh, "えんぴつを 4本ずつ 6人に くばります。ぜんぶで "
	    "何本 いりますか。", CC_SHEET_ANY, "word_problem", 2);
	/* 23こ の あめを 4人で わけると ... : division cue, grade 3 */
	line_is(sh, "23こ の あめを 4人で わけると あまりは いくつ", CC_SHEET_ANY,
	    "word_problem", 3);
	/* つぎの 文しょうを 読んで こたえましょう。 */
	line_is(sh, "つぎの 文しょうを 読んで こたえましょう。",
	    CC_SHEET_ANY, "reading", 2);
	/* なまえ ＿＿＿＿ : a form field */
	line_is(sh, "なまえ ＿＿＿",
	    CC_SHEET_ANY, NULL, 0);
	/* けいさんを しましょう。: a heading */
	line_is(sh, "けいさんを しましょう。", CC_SHEET_ANY, NULL, 0);
	line_is(sh, "ヽ", CC_SHEET_ANY, NULL, 0);	/* noise */
	line_is(sh, "123", CC_SHEET_ANY, NULL, 0);		/* a page number */
	/* がんばりましょう！ : a decoration, no task */
	line_is(sh, "がんばりましょう！", CC_SHEET_ANY, NULL, 0);
	/* the expected subject settles an uncued line */
	line_is(sh, "あめ 12 と 5", CC_SHEET_MATH, "word_problem", 1);
	line_is(sh, "きょうは はれ",
	    CC_SHEET_JAPANESE, "reading", 1);
	ok(cc_sheet_line(sh, "「山」 の よみかた", strlen("「山」 "
	    "の よみかた"), CC_SHEET_ANY, &p) &&
	    !strcmp(p.text, "「山」のよみかた"), "OCR's spaces between Japanese characters go");
	cc_sheet_problem_release(&p);
	/* without the data: arithmetic still reads */
	line_is(NULL, "8 × 7 =", CC_SHEET_ANY, "arithmetic", 2);
	is_int(cc_sheet_subject("math"), CC_SHEET_MATH, "math is math");
	is_int(cc_sheet_subject("算数"), CC_SHEET_MATH, "算数 is math");
	is_int(cc_sheet_subject("さんすう"), CC_SHEET_MATH,
	    "さんすう is math");
	is_int(cc_sheet_subject("Japanese"), CC_SHEET_JAPANESE, "Japanese is Japanese");
	is_int(cc_sheet_subject("こくご"), CC_SHEET_JAPANESE,
	    "こくご is Japanese");
	is_int(cc_sheet_subject("science"), CC_SHEET_ANY, "science is any");
	is_int(cc_sheet_subject(NULL), CC_SHEET_ANY, "none is any");
	cc_sheet_free(sh);
	ok(cc_sheet_load("/nonexistent/worksheet", err, sizeof err) == NULL &&
	    strstr(err, "/nonexistent/worksheet"), "a missing data file is named (%s)", err);
}

/* ---- operators by shape, on drawn bitmaps ---- */

struct canvas {
	unsigned char *px;
	int w, h;
};

static void
fill(struct canvas *c, int x0, int y0, int x1, int y1)
{
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++)
			if (x >= 0 && y >= 0 && x < c->w && y < c->h)
				c->px[y * c->w + x] = 1;
}

/* Glyphs in a line whose digits stand from top to top + H. */
static int
digit(struct canvas *c, int x, int top, int H)
{
	int w = H * 6 / 10, t = H / 8 + 1;

	/* a 0: a hollow ring, as tall as the line */
	fill(c, x, top, x + w, top + t);
	fill(c, x, top + H - t, x + w, top + H);
	fill(c, x, top, x + t, top + H);
	fill(c, x + w - t, top, x + w, top + H);
	return x + w + H / 6;
}

static int
op(struct canvas *c, char which, int x, int top, int H)
{
	int s = H * 6 / 10, t = H / 10 + 1, mid = top + H / 2, y0 = mid - s / 2;

	x += H / 4;
	switch (which) {
	case '+':
		fill(c, x, mid - t / 2, x + s, mid - t / 2 + t);
		fill(c, x + s / 2 - t / 2, y0, x + s / 2 - t / 2 + t, y0 + s);
		break;
	case '*':
		for (int i = 0; i < s; i++) {
			fill(c, x + i, y0 + i, x + i + t, y0 + i + 1);
			fill(c, x + s - 1 - i, y0 + i, x + s - 1 - i + t, y0 + i + 1);
		}
		s += t;
		break;
	case '-':
		fill(c, x, mid - t / 2, x + s, mid - t / 2 + t);
		break;
	case '=':
		fill(c, x, mid - s / 4 - t, x + s, mid - s / 4);
		fill(c, x, mid + s / 4, x + s, mid + s / 4 + t);
		break;
	case '/':
		fill(c, x, mid - t / 2, x + s, mid - t / 2 + t);
		/* the dots a little apart from the bar, as fonts draw them */
		fill(c, x + s / 2 - t / 2, y0, x + s / 2 - t / 2 + t, y0 + t);
		fill(c, x + s / 2 - t / 2, y0 + s - t, x + s / 2 - t / 2 + t, y0 + s);
		break;
	case 'b':
		fill(c, x, top, x + H, top + t);
		fill(c, x, top + H - t, x + H, top + H);
		fill(c, x, top, x + t, top + H);
		fill(c, x + H - t, top, x + H, top + H);
		s = H;
		break;
	}
	return x + s + H / 4;
}

static void
glyphs_are(const char *layout, int H, const char *want)
{
	struct canvas c;
	struct cc_glyph_item it[32];
	char got[64] = "";
	int x = H, top = H, n, k = 0;

	c.w = (int)strlen(layout) * H * 2 + 2 * H;
	c.h = 3 * H;
	c.px = calloc((size_t)c.w * (size_t)c.h, 1);
	for (const char *p = layout; *p; p++) {
		if (*p == '0')
			x = digit(&c, x, top, H);
		else if (*p == ' ')
			x += H;
		else
			x = op(&c, *p, x, top, H);
	}
	n = cc_glyph_line(c.px, c.w, c.h, H / 2, top, x, H, it, 32);
	for (int i = 0; i < n && k < 60; i++)
		got[k++] = it[i].kind == CC_GLYPH_OP ? it[i].op : 'R';
	got[k] = '\0';
	is_str(got, want, "glyphs of '%s' at %d px", layout, H);
	free(c.px);
}

static void
test_glyphs(void)
{
	static const int heights[] = { 14, 24, 48, 90 };
	unsigned char blank[100] = {0};
	struct cc_glyph_item it[4];

	for (size_t i = 0; i < sizeof heights / sizeof *heights; i++) {
		int H = heights[i];

		glyphs_are("00+00=", H, "R+R=");
		glyphs_are("00-00=", H, "R-R=");
		glyphs_are("0*0=", H, "R*R=");
		glyphs_are("00/0=", H, "R/R=");
		glyphs_are("b+0=00", H, "b+R=R");
		glyphs_are("0 00", H, "RR");	/* a wide gap splits a run */
	}
	is_int(cc_glyph_line(blank, 10, 10, 0, 0, 10, 10, it, 4), -1, "no ink: no line");
	is_int(cc_glyph_line(NULL, 10, 10, 0, 0, 10, 10, it, 4), -1, "no page: no line");
	is_int(cc_glyph_line(blank, 10, 10, 0, 0, 100000, 100000, it, 4), -1,
	    "a box far too large is refused");
}

/* ---- the vision model's answer ---- */

static jv
content(const char *text, char *err, size_t errlen)
{
	err[0] = '\0';
	return cc_vision_parse_content(text, strlen(text), err, errlen);
}

static const char *
path_str(jv v, const char *key, int i, const char *field)
{
	static char out[256];
	jv x = jv_object_get(jv_copy(v), jv_string(key));

	if (field) {
		jv p = jv_get_kind(x) == JV_KIND_ARRAY ? jv_array_get(x, i) : (jv_free(x), jv_invalid());

		x = jv_get_kind(p) == JV_KIND_OBJECT ? jv_object_get(p, jv_string(field)) :
		    (jv_free(p), jv_invalid());
	}
	if (jv_get_kind(x) == JV_KIND_STRING)
		snprintf(out, sizeof out, "%s", jv_string_value(x));
	else if (jv_get_kind(x) == JV_KIND_NUMBER)
		snprintf(out, sizeof out, "%g", jv_number_value(x));
	else if (jv_get_kind(x) == JV_KIND_TRUE)
		snprintf(out, sizeof out, "true");
	else if (jv_get_kind(x) == JV_KIND_FALSE)
		snprintf(out, sizeof out, "false");
	else if (jv_get_kind(x) == JV_KIND_NULL)
		snprintf(out, sizeof out, "null");
	else
		snprintf(out, sizeof out, "(absent)");
	jv_free(x);
	return out;
}

static void
test_vision(void)
{
	char err[256];
	jv v;

	v = content("{\"problems\": [{\"text\": \"3 + 5 = \", \"type\": \"arithmetic\", "
	    "\"difficulty\": 1, \"expression\": \"3 + 5\"}], \"confidence\": 0.95, "
	    "\"needs_confirmation\": false}", err, sizeof err);
	is_str(path_str(v, "problems", 0, "text"), "3 + 5 = ", "the text is kept as read");
	is_str(path_str(v, "problems", 0, "expression"), "3+5", "the expression in ASCII syntax");
	is_str(path_str(v, "confidence", 0, NULL), "0.95", "confidence");
	is_str(path_str(v, "needs_confirmation", 0, NULL), "false", "a sure answer");
	jv_free(v);
	v = content("{\"problems\": [], \"confidence\": 0.85, \"needs_confirmation\": true}",
	    err, sizeof err);
	is_str(path_str(v, "confidence", 0, NULL), "0.85", "no problems: confidence kept");
	is_str(path_str(v, "needs_confirmation", 0, NULL), "true", "and confirmation asked");
	jv_free(v);
	v = content("not valid json", err, sizeof err);
	ok(!jv_is_valid(v) && strstr(err, "not JSON"), "not JSON is an error (%s)", err);
	jv_free(v);
	v = content("[{\"text\": \"1 + 1 =\"}]", err, sizeof err);
	ok(!jv_is_valid(v) && strstr(err, "not an object"), "a list is an error (%s)", err);
	jv_free(v);
	v = content("{\"problems\": {\"text\": \"x\"}}", err, sizeof err);
	ok(!jv_is_valid(v), "problems that are not a list are an error (%s)", err);
	jv_free(v);
	v = content("```json\n{\"problems\": [{\"text\": \"８×７＝\","
	    " \"type\": \"arithmetic\", \"expression\": \"8×7\"}], \"confidence\": 0.9,"
	    " \"needs_confirmation\": false}\n```", err, sizeof err);
	is_str(path_str(v, "problems", 0, "expression"), "8*7", "a ```json fence; 8×7 is 8*7");
	is_str(path_str(v, "problems", 0, "difficulty"), "2", "a missing difficulty comes from the expression");
	jv_free(v);
	v = content("Here: ```\n{\"problems\": [{\"text\": \"(1) 23 + 45 =\", \"type\": \"arithmetic\"}],"
	    " \"confidence\": 95, \"needs_confirmation\": false}\n``` done", err, sizeof err);
	is_str(path_str(v, "problems", 0, "expression"), "23+45",
	    "a plain fence; the expression taken from the text");
	is_str(path_str(v, "confidence", 0, NULL), "0.95", "95 read as a percentage");
	is_str(path_str(v, "needs_confirmation", 0, NULL), "false", "nothing to doubt");
	jv_free(v);
	v = content("I read: {\"problems\": [{\"text\": \"12 ÷ 4 =\", \"type\": \"math\", "
	    "\"difficulty\": 7, \"expression\": \"12 ÷ 4\"}], \"confidence\": 0.99,"
	    " \"needs_confirmation\": false} ok?", err, sizeof err);
	is_str(path_str(v, "problems", 0, "type"), "other", "an unknown type is other");
	is_str(path_str(v, "problems", 0, "difficulty"), "3", "difficulty capped at 3");
	is_str(path_str(v, "needs_confirmation", 0, NULL), "true", "and confirmation asked");
	jv_free(v);
	v = content("{\"problems\": [1, null, {\"text\": \"\"}, {\"text\": 7}, {\"text\": \"b\","
	    " \"expression\": \"1 +\"}, {\"text\": \"□ + 5 = 12\", \"type\": \"arithmetic\"}],"
	    " \"confidence\": -1, \"needs_confirmation\": \"no\"}", err, sizeof err);
	is_str(path_str(v, "problems", 1, "text"), "□ + 5 = 12", "unusable entries dropped");
	is_str(path_str(v, "problems", 0, "expression"), "null", "a broken expression is null");
	is_str(path_str(v, "problems", 1, "expression"), "null", "a box to fill has none");
	is_str(path_str(v, "problems", 2, "text"), "(absent)", "two entries kept");
	is_str(path_str(v, "confidence", 0, NULL), "0", "confidence clamped");
	is_str(path_str(v, "needs_confirmation", 0, NULL), "true", "a non-boolean asks");
	jv_free(v);
	{
		static const char body[] = "{\"choices\":[{\"message\":{\"content\":"
		    "\"{\\\"problems\\\":[],\\\"confidence\\\":1,\\\"needs_confirmation\\\":false}\"}}]}";

		v = cc_vision_parse_reply(body, sizeof body - 1, err, sizeof err);
	}
	is_str(path_str(v, "needs_confirmation", 0, NULL), "true",
	    "a whole reply; no problem always asks");
	jv_free(v);
	v = cc_vision_parse_reply("{\"choices\":[]}", 14, err, sizeof err);
	ok(!jv_is_valid(v) && err[0], "a reply without content is an error (%s)", err);
	jv_free(v);
}

int
main(void)
{
	test_base64();
	test_sniff();
	test_arith();
	test_difficulty();
	test_lines();
	test_glyphs();
	test_vision();
	return tap_done();
}
