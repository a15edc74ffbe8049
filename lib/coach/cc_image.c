/*
 * analyze_homework_image (the contract is in cc_image.h): the input
 * checks, the choice between the vision model and Tesseract, and the
 * OCR lines turned into the seed's problems.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_sheet.h"
#include "cc_ocr.h"
#include "cc_glyph.h"
#include "cc_vision.h"
#include "cc_image.h"

/* The characters a run of an arithmetic line may hold, read again. */
#define RUN_CHARS "0123456789()."
#define MAX_ITEMS 64

void
cc_image_init(struct cc_image *im, const char *dir)
{
	memset(im, 0, sizeof *im);
	im->dir = cc_xstrdup(dir ? dir : "");
	im->have_vision = cc_vision_from_env(&im->vision);
}

void
cc_image_release(struct cc_image *im)
{
	free(im->dir);
	if (im->have_vision)
		cc_vision_release(&im->vision);
	cc_sheet_free(im->sheet);
	free(im->prompt);
	cc_ocr_close(im->ocr);
	memset(im, 0, sizeof *im);
}

/* ---- input checks ---- */

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static int
b64_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

int
cc_image_decode(const char *s, size_t n, size_t max, unsigned char **out,
    size_t *outlen, char *err, size_t errlen)
{
	size_t chars = 0, pad = 0, size, o = 0;
	unsigned acc = 0;
	int bits = 0;
	unsigned char *buf;

	*out = NULL;
	*outlen = 0;
	/* data:[<type>][;param]*;base64,<data> */
	if (n >= 5 && strncasecmp(s, "data:", 5) == 0) {
		const char *comma = memchr(s, ',', n);

		if (!comma || comma - s < 12 || strncasecmp(comma - 7, ";base64", 7) != 0) {
			snprintf(err, errlen, "a data: URI without ;base64,");
			return -1;
		}
		n -= (size_t)(comma + 1 - s);
		s = comma + 1;
	}
	/* one pass to check and count, so the size is known before decoding */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (b64_space(c))
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		if (pad) {
			snprintf(err, errlen, "'=' before the end, at byte %zu", i + 1);
			return -1;
		}
		if (b64_value(c) < 0) {
			if (c >= 0x20 && c < 0x7f)
				snprintf(err, errlen, "'%c' at byte %zu is not base64", c, i + 1);
			else
				snprintf(err, errlen, "byte 0x%02x at %zu is not base64", c, i + 1);
			return -1;
		}
		chars++;
	}
	if (chars % 4 == 1 || pad > 2 || (pad && (chars + pad) % 4 != 0)) {
		snprintf(err, errlen, "%zu characters and %zu '=' are no base64 length",
		    chars, pad);
		return -1;
	}
	size = chars / 4 * 3 + (chars % 4 ? chars % 4 - 1 : 0);
	if (size > max) {
		snprintf(err, errlen, "%zu bytes", size);
		*outlen = size;
		return -2;
	}
	buf = cc_xmalloc(size ? size : 1);
	for (size_t i = 0; i < n; i++) {
		int v = b64_value((unsigned char)s[i]);

		if (v < 0)
			continue;
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[o++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	*out = buf;
	*outlen = o;
	return 0;
}

const char *
cc_image_sniff(const unsigned char *p, size_t n, const char **mime)
{
	const char *fmt = NULL, *type = NULL;

	if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8))
		fmt = "png", type = "image/png";
	else if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF)
		fmt = "jpeg", type = "image/jpeg";
	else if (n >= 6 && (!memcmp(p, "GIF87a", 6) || !memcmp(p, "GIF89a", 6)))
		fmt = "gif", type = "image/gif";
	else if (n >= 4 && (!memcmp(p, "II*\0", 4) || !memcmp(p, "MM\0*", 4)))
		fmt = "tiff", type = "image/tiff";
	else if (n >= 14 && p[0] == 'B' && p[1] == 'M')
		fmt = "bmp", type = "image/bmp";
	else if (n >= 12 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4))
		fmt = "webp", type = "image/webp";
	else if (n >= 3 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7' &&
	    (p[2] == ' ' || p[2] == '\n' || p[2] == '\r' || p[2] == '\t'))
		fmt = "pnm", type = "image/x-portable-anymap";
	else if ((n >= 12 && !memcmp(p, "\0\0\0\x0cjP  \r\n\x87\n", 12)) ||
	    (n >= 4 && !memcmp(p, "\xffO\xffQ", 4)))
		fmt = "jp2", type = "image/jp2";
	if (mime)
		*mime = type;
	return fmt;
}

/* ---- results ---- */

static jv
error_result(struct cc_image *im, const char *code, const char *msg)
{
	im->code = code;
	return jv_object_set(jv_object(), jv_string("error"), jv_string(msg));
}

static char *
domain_file(const struct cc_image *im, const char *name)
{
	size_t n = strlen(im->dir) + strlen(name) + 2;
	char *p = cc_xmalloc(n);

	snprintf(p, n, "%s/%s", im->dir, name);
	return p;
}

/* The worksheet data, loaded once; NULL with err. */
static struct cc_sheet *
sheet(struct cc_image *im, char *err, size_t errlen)
{
	if (!im->sheet) {
		char *path = domain_file(im, "worksheet");

		im->sheet = cc_sheet_load(path, err, errlen);
		free(path);
	}
	return im->sheet;
}

static const char *
prompt(struct cc_image *im, char *err, size_t errlen)
{
	if (!im->prompt) {
		char *path = domain_file(im, "vision-prompt");
		FILE *f = fopen(path, "r");
		struct cc_buf b = {0};
		char chunk[4096];
		size_t got;

		if (!f) {
			snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
			free(path);
			return NULL;
		}
		while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < 65536)
			cc_buf_add(&b, chunk, got);
		fclose(f);
		free(path);
		if (!b.data || !cc_utf8_valid(b.data, b.len)) {
			snprintf(err, errlen, "the vision prompt is empty or not UTF-8");
			cc_buf_release(&b);
			return NULL;
		}
		im->prompt = b.data;
	}
	return im->prompt;
}

/*
 * Could this line of OCR text be arithmetic?  Digits, and hardly any
 * letters that are not look-alikes of operators and digits: then its
 * glyphs are worth a second look.
 */
static int
arith_candidate(const char *t)
{
	size_t n = strlen(t), i = 0;
	int digits = 0, japanese = 0, latin = 0, chars = 0;

	while (i < n) {
		int32_t c = cc_utf8_next(t, n, &i);
		enum cc_script s = cc_text_script(c);

		chars++;
		if (s == CC_SCRIPT_DIGIT)
			digits++;
		else if (s == CC_SCRIPT_HIRAGANA || s == CC_SCRIPT_KATAKANA || s == CC_SCRIPT_HAN)
			japanese++;
		else if (s == CC_SCRIPT_LATIN && !(c < 0x80 && strchr("xXlIoO", (int)c)))
			latin++;
	}
	return digits >= 1 && japanese <= 3 && latin <= 3 && chars <= 48;
}

struct reading {
	struct cc_sheet_problem p;
	double conf;		/* 0-100 */
};

/*
 * An arithmetic line read by its glyphs: operators by shape, each run of
 * other glyphs by Tesseract restricted to digits.  1 with *r filled, or
 * 0 when the line does not read as arithmetic that way.
 */
static int
read_by_glyphs(struct cc_image *im, const struct cc_ocr_page *page,
    const struct cc_ocr_line *l, enum cc_sheet_subject subject, struct reading *r)
{
	struct cc_glyph_item it[MAX_ITEMS];
	struct cc_buf line = {0};
	double confsum = 0;
	int k, runs = 0, ops = 0, ok = 0;

	k = cc_glyph_line(page->ink, page->w, page->h, l->box.x, l->box.y, l->box.w,
	    l->box.h, it, MAX_ITEMS);
	for (int i = 0; i < k; i++) {
		const char *s;

		if (it[i].kind == CC_GLYPH_OP) {
			/* as cc_sheet reads them: − × ÷ □ */
			s = it[i].op == '+' ? "+" : it[i].op == '-' ? "−" :
			    it[i].op == '*' ? "×" : it[i].op == '/' ? "÷" :
			    it[i].op == '=' ? "=" : "□";
			ops += strchr("+-*/", it[i].op) != NULL;
		} else {
			struct cc_ocr_box b = { it[i].x0, it[i].y0, it[i].x1 - it[i].x0,
				it[i].y1 - it[i].y0 };
			char text[64];
			double c;

			/* a run and another with no operator between, at the start:
			   the first is the problem's number (①, 1 without a dot) */
			if (i == 0 && k > 1 && it[1].kind == CC_GLYPH_RUN)
				continue;

			if (cc_ocr_read_box(im->ocr, &b, RUN_CHARS, text, sizeof text, &c) < 0 ||
			    !*text)
				goto done;
			confsum += c;
			runs++;
			s = text;
			cc_buf_add(&line, " ", line.len ? 1 : 0);
			cc_buf_add(&line, s, strlen(s));
			continue;
		}
		cc_buf_add(&line, " ", line.len ? 1 : 0);
		cc_buf_add(&line, s, strlen(s));
	}
	if (!ops || !runs || !line.data)
		goto done;
	if (cc_sheet_line(im->sheet, line.data, line.len, subject, &r->p)) {
		if (!strcmp(r->p.type, "arithmetic")) {
			r->conf = confsum / runs;
			ok = 1;
		} else {
			cc_sheet_problem_release(&r->p);
		}
	}
done:
	cc_buf_release(&line);
	return ok;
}

static int
subject_matches(const char *type, enum cc_sheet_subject subject)
{
	int math = !strcmp(type, "arithmetic") || !strcmp(type, "word_problem");

	return subject == CC_SHEET_ANY || (subject == CC_SHEET_MATH) == math;
}

static jv
read_offline(struct cc_image *im, const unsigned char *img, size_t n,
    enum cc_sheet_subject subject)
{
	struct cc_ocr_page page;
	char err[300];
	jv problems = jv_array(), out;
	double confsum = 0, allsum = 0;
	int count = 0, doubt = 0, of_subject = 0, too_big;

	if (!im->ocr && !*im->ocr_error &&
	    cc_ocr_open(&im->ocr, im->ocr_error, sizeof im->ocr_error) < 0 &&
	    !*im->ocr_error)
		snprintf(im->ocr_error, sizeof im->ocr_error, "Tesseract cannot start");
	if (!im->ocr) {
		char msg[400];

		jv_free(problems);
		snprintf(msg, sizeof msg, "文字認識を使えません: %s",
		    im->ocr_error);
		return error_result(im, "unavailable", msg);
	}
	if (!sheet(im, err, sizeof err)) {
		char msg[400];

		jv_free(problems);
		snprintf(msg, sizeof msg, "worksheet data: %s", err);
		return error_result(im, "unavailable", msg);
	}
	if (cc_ocr_read(im->ocr, img, n, &page, &too_big, err, sizeof err) < 0) {
		char msg[400];

		jv_free(problems);
		if (too_big) {
			snprintf(msg, sizeof msg, "画像サイズが大きすぎます（%s）", err);
			return error_result(im, "too_large", msg);
		}
		snprintf(msg, sizeof msg, "画像を読み込めませんでした（%s）", err);
		return error_result(im, "not_image", msg);
	}
	for (size_t i = 0; i < page.nlines; i++) {
		const struct cc_ocr_line *l = &page.lines[i];
		struct reading r = {0};
		int have = 0;

		if (!l->text || !l->nwords)
			continue;
		allsum += l->conf;
		if (arith_candidate(l->text))
			have = read_by_glyphs(im, &page, l, subject, &r);
		if (!have && cc_sheet_line(im->sheet, l->text, strlen(l->text), subject, &r.p)) {
			r.conf = l->conf;
			have = 1;
		}
		if (!have)
			continue;
		if (r.p.repaired || r.conf < CC_IMAGE_LINE_DOUBT)
			doubt = 1;
		of_subject |= subject_matches(r.p.type, subject);
		confsum += r.conf;
		count++;
		problems = jv_array_append(problems, jv_object_set(jv_object_set(
		    jv_object_set(jv_object_set(jv_object(), jv_string("text"),
		    jv_string(r.p.text)), jv_string("type"), jv_string(r.p.type)),
		    jv_string("difficulty"), jv_number(r.p.difficulty)),
		    jv_string("expression"), r.p.expression ? jv_string(r.p.expression) : jv_null()));
		cc_sheet_problem_release(&r.p);
	}
	{
		/* the problems' lines; with none, what the page held at all */
		double c = count ? confsum / count / 100 :
		    page.nlines ? allsum / (double)page.nlines / 100 : 0;

		cc_ocr_page_release(&page);
		cc_ocr_forget(im->ocr);

		c = round(c * 100) / 100;
		c = c < 0 ? 0 : c > 1 ? 1 : c;
		if (!count || c < CC_IMAGE_CONFIRM_BELOW || !of_subject)
			doubt = 1;
		out = jv_object_set(jv_object(), jv_string("problems"), problems);
		out = jv_object_set(out, jv_string("confidence"), jv_number(c));
		out = jv_object_set(out, jv_string("needs_confirmation"), jv_bool(doubt));
	}
	im->code = NULL;
	im->source = "ocr";
	return out;
}

jv
cc_image_analyze(struct cc_image *im, jv args)
{
	jv data, subj, out;
	unsigned char *img;
	size_t n;
	const char *fmt, *mime, *subject = NULL;
	char err[256], msg[512];
	int rc;

	im->code = NULL;
	im->source = NULL;
	im->vision_error[0] = '\0';
	if (jv_get_kind(args) != JV_KIND_OBJECT)
		return error_result(im, "bad_input", "引数は "
		    "{\"image_data\": ...} のオブジェクトで渡してください");
	data = jv_object_get(jv_copy(args), jv_string("image_data"));
	subj = jv_object_get(jv_copy(args), jv_string("expected_subject"));
	if (jv_get_kind(subj) == JV_KIND_STRING)
		subject = jv_string_value(subj);
	if (jv_get_kind(data) != JV_KIND_STRING) {
		out = error_result(im, "bad_input", "image_data がありません（base64 "
		    "の文字列で渡してください）");
		goto done;
	}
	n = (size_t)jv_string_length_bytes(jv_copy(data));
	{
		/* only space is as empty as nothing */
		const char *s = jv_string_value(data);
		size_t i = 0;

		while (i < n && b64_space((unsigned char)s[i]))
			i++;
		if (i == n) {
			out = error_result(im, "bad_input", "画像データが空です");
			goto done;		}
	}
	rc = cc_image_decode(jv_string_value(data), n, CC_IMAGE_MAX_BYTES, &img, &n, err,
	    sizeof err);
	if (rc == -2) {
		snprintf(msg, sizeof msg, "画像サイズが大きすぎます（上限 10 MiB"
		    "、この画像は "
		    "%zu バイト）", n);
		out = error_result(im, "too_large", msg);
		goto done;
	}
	if (rc < 0) {
		snprintf(msg, sizeof msg, "画像データを base64 として読めません（"
		    "%s）", err);
		out = error_result(im, "bad_input", msg);
		goto done;
	}
	if (!(fmt = cc_image_sniff(img, n, &mime))) {
		free(img);
		out = error_result(im, "not_image", "画像として読めないデータです（"
		    "PNG, JPEG, GIF, TIFF, BMP, WebP, PNM, JPEG 2000 のいずれかで送ってください）");
		goto done;
	}
	/* the model takes the formats browsers show; the others stay here */
	if (im->have_vision && (!strcmp(fmt, "png") || !strcmp(fmt, "jpeg") ||
	    !strcmp(fmt, "gif") || !strcmp(fmt, "webp"))) {
		const char *p = prompt(im, err, sizeof err);
		jv v = p ? cc_vision_analyze(&im->vision, p, img, n, mime, subject,
		    err, sizeof err) : jv_invalid();

		if (jv_is_valid(v)) {
			free(img);
			im->source = "vision";
			out = v;
			goto done;
		}
		snprintf(im->vision_error, sizeof im->vision_error, "%s", err);
		/* the seed's OCR fallback; the model's error if it finds nothing */
		out = read_offline(im, img, n, cc_sheet_subject(subject));
		if (!jv_object_has(jv_copy(out), jv_string("error")) &&
		    jv_array_length(jv_object_get(jv_copy(out), jv_string("problems"))) > 0) {
			free(img);
			goto done;
		}
		jv_free(out);
		free(img);
		snprintf(msg, sizeof msg, "画像の読み取りに失敗しました: %s", im->vision_error);
		out = error_result(im, "upstream", msg);
		im->source = "vision";
		goto done;
	}
	out = read_offline(im, img, n, cc_sheet_subject(subject));
	free(img);
done:
	jv_free(data);
	jv_free(subj);
	return out;
}
