/*
 * Offline OCR through Tesseract's C API (the contract is in cc_ocr.h).
 *
 * libtesseract and liblept are loaded with dlopen() on first use, as
 * lib/cc_http.c loads libcurl: linking them makes every process load 56
 * libraries (libstdc++, libgomp, libarchive, libcurl, the image codecs),
 * measured at 7 ms more per start (a loop of 200 runs: 0.65 ms for an
 * empty program, 7.5 ms linked), and most cc-coach runs never see an
 * image.  The headers still give every call its prototype.  The
 * libraries are never unloaded: libgomp's threads and the C++ statics of
 * libtesseract do not survive dlclose().
 */
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* capi.h declares f() for f(void); those are Tesseract's, not ours */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <leptonica/allheaders.h>
#include <tesseract/capi.h>
#pragma GCC diagnostic pop

#include "cc_util.h"
#include "cc_ocr.h"

#define LANGUAGES "jpn+eng"
/* Longest side of the page as Tesseract reads it: a phone photo of an
   A4 sheet at 3000 px gives printed text 40-60 px high, plenty. */
#define MAX_SIDE 3000
/* A page smaller than this is a crop or a screenshot: doubled. */
#define MIN_SIDE 1000
/* The least confidence in a skew angle that turns the page. */
#define MIN_SKEW_CONF 1.5f

#define LEPT_FUNCTIONS(X) \
	X(pixReadMem) X(pixReadHeaderMem) X(pixDestroy) X(pixGetDimensions) \
	X(pixGetSpp) X(pixGetData) X(pixGetWpl) X(pixConvertTo8) \
	X(pixAlphaBlendUniform) X(pixScale) X(pixFindSkew) X(pixRotate) X(pixConvertTo1) X(pixOtsuThreshOnBackgroundNorm) \
	X(setMsgSeverity)

#define TESS_FUNCTIONS(X) \
	X(TessBaseAPICreate) X(TessBaseAPIDelete) X(TessBaseAPIInit2) \
	X(TessBaseAPISetVariable) X(TessBaseAPISetPageSegMode) \
	X(TessBaseAPISetImage2) X(TessBaseAPISetRectangle) \
	X(TessBaseAPIGetUTF8Text) X(TessBaseAPIMeanTextConf) \
	X(TessBaseAPIRecognize) X(TessBaseAPIGetIterator) \
	X(TessBaseAPIGetThresholdedImage) X(TessBaseAPIClear) X(TessBaseAPIEnd) \
	X(TessResultIteratorDelete) X(TessResultIteratorGetPageIterator) \
	X(TessResultIteratorNext) X(TessResultIteratorGetUTF8Text) \
	X(TessResultIteratorConfidence) X(TessPageIteratorIsAtBeginningOf) \
	X(TessPageIteratorBoundingBox) X(TessDeleteText)

/* The symbols, resolved once per process and shared by every cc_ocr. */
static struct {
	int loaded;
#define X(f) __typeof__(f) *f;
	LEPT_FUNCTIONS(X)
	TESS_FUNCTIONS(X)
#undef X
} lib;

struct cc_ocr {
	TessBaseAPI *api;
	PIX *pix;		/* the last page, for cc_ocr_read_box() */
};

static void *
open_first(const char *const *names, size_t n)
{
	void *h = NULL;

	for (size_t i = 0; !h && i < n; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	return h;
}

static int
load_libraries(char *err, size_t errlen)
{
	/* Debian 12 ships liblept.so.5; leptonica 1.83 renamed it */
	static const char *const lept_names[] = { "liblept.so.5",
		"libleptonica.so.6", "liblept.so", "libleptonica.so" };
	static const char *const tess_names[] = { "libtesseract.so.5",
		"libtesseract.so" };
	void *lept, *tess;

	if (lib.loaded)
		return 0;
	if (!(tess = open_first(tess_names, sizeof tess_names / sizeof *tess_names))) {
		snprintf(err, errlen, "cannot load libtesseract (%s): install the "
		    "Debian package libtesseract5", dlerror());
		return -1;
	}
	/* libtesseract brought it in already; this only finds it */
	if (!(lept = open_first(lept_names, sizeof lept_names / sizeof *lept_names))) {
		snprintf(err, errlen, "cannot load leptonica (%s): install the "
		    "Debian package liblept5", dlerror());
		return -1;
	}
#define X(f) \
	if (!(*(void **)&lib.f = dlsym(lept, #f))) { \
		snprintf(err, errlen, "cannot load leptonica: no " #f); \
		return -1; \
	}
	LEPT_FUNCTIONS(X)
#undef X
#define X(f) \
	if (!(*(void **)&lib.f = dlsym(tess, #f))) { \
		snprintf(err, errlen, "cannot load libtesseract: no " #f); \
		return -1; \
	}
	TESS_FUNCTIONS(X)
#undef X
	/* leptonica writes its errors to stderr; ours say what failed */
	lib.setMsgSeverity(L_SEVERITY_NONE);
	lib.loaded = 1;
	return 0;
}

const char *
cc_ocr_datadir(void)
{
	static const char *const dirs[] = {
		"/usr/share/tesseract-ocr/5/tessdata",		/* Debian 12 */
		"/usr/share/tesseract-ocr/4.00/tessdata",	/* Debian 11 */
		"/usr/share/tessdata",				/* Fedora, Arch */
	};
	const char *env = getenv("TESSDATA_PREFIX");

	if (env && *env)
		return env;
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		if (access(dirs[i], R_OK) == 0)
			return dirs[i];
	return dirs[0];
}

static int
have_language(const char *dir, const char *lang)
{
	size_t n = strlen(dir) + strlen(lang) + sizeof "/.traineddata";
	char *p = cc_xmalloc(n);
	int ok;

	snprintf(p, n, "%s/%s.traineddata", dir, lang);
	ok = access(p, R_OK) == 0;
	free(p);
	return ok;
}

int
cc_ocr_open(struct cc_ocr **out, char *err, size_t errlen)
{
	const char *dir = cc_ocr_datadir();
	struct cc_ocr *o;

	*out = NULL;
	if (load_libraries(err, errlen) < 0)
		return -1;
	if (!have_language(dir, "jpn") || !have_language(dir, "eng")) {
		snprintf(err, errlen, "no Tesseract language data '%s' in '%s': install "
		    "the Debian package tesseract-ocr-%s (or set TESSDATA_PREFIX)",
		    have_language(dir, "jpn") ? "eng" : "jpn", dir,
		    have_language(dir, "jpn") ? "eng" : "jpn");
		return -1;
	}
	o = cc_xmalloc(sizeof *o);
	o->pix = NULL;
	o->api = lib.TessBaseAPICreate();
	/* Tesseract's messages (resolution guesses, warnings) go nowhere */
	lib.TessBaseAPISetVariable(o->api, "debug_file", "/dev/null");
	if (!o->api || lib.TessBaseAPIInit2(o->api, dir, LANGUAGES, OEM_LSTM_ONLY) != 0) {
		snprintf(err, errlen, "Tesseract cannot load '%s' from '%s'", LANGUAGES, dir);
		if (o->api)
			lib.TessBaseAPIDelete(o->api);
		free(o);
		return -1;
	}
	lib.TessBaseAPISetVariable(o->api, "debug_file", "/dev/null");
	lib.TessBaseAPISetPageSegMode(o->api, PSM_AUTO);
	*out = o;
	return 0;
}

void
cc_ocr_forget(struct cc_ocr *o)
{
	if (o && o->pix) {
		lib.TessBaseAPIClear(o->api);
		lib.pixDestroy(&o->pix);
	}
}

void
cc_ocr_close(struct cc_ocr *o)
{
	if (!o)
		return;
	cc_ocr_forget(o);
	lib.TessBaseAPIEnd(o->api);
	lib.TessBaseAPIDelete(o->api);
	free(o);
}

/* Decode, flatten, grey, scale, straighten: the page Tesseract gets. */
static PIX *
prepare(const unsigned char *img, size_t n, double *skew, double *scale,
    int *too_big, char *err, size_t errlen)
{
	l_int32 format, w, h, bps, spp, cmap, d;
	l_float32 angle = 0, conf = 0;
	PIX *pix, *t, *bin;
	int side;
	float f = 1;

	if (lib.pixReadHeaderMem(img, n, &format, &w, &h, &bps, &spp, &cmap) != 0 ||
	    w <= 0 || h <= 0) {
		snprintf(err, errlen, "the image cannot be decoded");
		return NULL;
	}
	if (w > CC_OCR_MAX_SIDE || h > CC_OCR_MAX_SIDE ||
	    (long)w * (long)h > CC_OCR_MAX_PIXELS) {
		*too_big = 1;
		snprintf(err, errlen, "the image has %ld x %ld pixels, more than %ld "
		    "million", (long)w, (long)h, CC_OCR_MAX_PIXELS / 1000000);
		return NULL;
	}
	if (!(pix = lib.pixReadMem(img, n))) {
		snprintf(err, errlen, "the image cannot be decoded");
		return NULL;
	}
	lib.pixGetDimensions(pix, &w, &h, &d);
	/* transparent parts are paper, not ink */
	if (d == 32 && lib.pixGetSpp(pix) == 4 &&
	    (t = lib.pixAlphaBlendUniform(pix, 0xffffff00))) {
		lib.pixDestroy(&pix);
		pix = t;
	}
	t = lib.pixConvertTo8(pix, 0);
	lib.pixDestroy(&pix);
	if (!(pix = t)) {
		snprintf(err, errlen, "the image cannot be turned grey");
		return NULL;
	}
	side = w > h ? w : h;
	if (side > MAX_SIDE)
		f = (float)MAX_SIDE / (float)side;
	else if (side < MIN_SIDE && side >= 8)
		f = 2;
	if (f != 1 && (t = lib.pixScale(pix, f, f))) {
		lib.pixDestroy(&pix);
		pix = t;
	} else {
		f = 1;
	}
	*scale = f;
	/*
	 * Ink from paper, against the local background: a photo is lit
	 * unevenly, and a grey page turned by interpolation blurs the strokes
	 * Tesseract reads.  So the page is binarised first and turned as a
	 * binary image, by sampling, which keeps the strokes sharp.
	 */
	bin = lib.pixOtsuThreshOnBackgroundNorm(pix, NULL, 10, 15, 100, 50, 255, 2, 2, 0.1f,
	    NULL);
	if (bin) {		/* NULL for a page too small to tile: stays grey */
		lib.pixDestroy(&pix);
		pix = bin;
	}
	/*
	 * A photo is rarely square to the page: search +-7 degrees.  A
	 * worksheet has few lines, which leptonica's own deskew (confidence
	 * 3) refuses to trust: four printed lines turned 3 degrees score
	 * about 1.7, a blank page 0.
	 */
	bin = lib.pixConvertTo1(pix, 130);
	if (bin && lib.pixFindSkew(bin, &angle, &conf) == 0 && conf >= MIN_SKEW_CONF &&
	    fabsf(angle) >= 0.2f && fabsf(angle) <= 7.5f &&
	    (t = lib.pixRotate(pix, angle * (float)(M_PI / 180), L_ROTATE_SAMPLING,
	    L_BRING_IN_WHITE, 0, 0))) {
		lib.pixDestroy(&pix);
		pix = t;
		*skew = angle;
	}
	if (bin)
		lib.pixDestroy(&bin);
	return pix;
}

static void
box_of(const TessPageIterator *pi, TessPageIteratorLevel level, struct cc_ocr_box *b)
{
	int l = 0, t = 0, r = 0, bo = 0;

	lib.TessPageIteratorBoundingBox(pi, level, &l, &t, &r, &bo);
	*b = (struct cc_ocr_box){ l, t, r - l, bo - t };
}

static void
add_line(struct cc_ocr_page *page)
{
	page->lines = cc_xrealloc(page->lines, (page->nlines + 1) * sizeof *page->lines);
	memset(&page->lines[page->nlines], 0, sizeof *page->lines);
	page->nlines++;
}

/* Walk the result symbol by symbol, starting a line or a word as they do. */
static void
collect(TessResultIterator *ri, struct cc_ocr_page *page)
{
	const TessPageIterator *pi = lib.TessResultIteratorGetPageIterator(ri);
	struct cc_ocr_line *line = NULL;
	double confsum = 0;
	size_t tcap = 0;

	do {
		char *s;
		struct cc_ocr_symbol *sym;
		int word_start = lib.TessPageIteratorIsAtBeginningOf(pi, RIL_WORD);

		if (!line || lib.TessPageIteratorIsAtBeginningOf(pi, RIL_TEXTLINE)) {
			if (line && line->nwords)
				line->conf = confsum / line->nwords;
			add_line(page);
			line = &page->lines[page->nlines - 1];
			box_of(pi, RIL_TEXTLINE, &line->box);
			confsum = 0;
			tcap = 0;
			word_start = 1;
		}
		if (!(s = lib.TessResultIteratorGetUTF8Text(ri, RIL_SYMBOL)))
			continue;
		if (word_start) {
			line->nwords++;
			confsum += lib.TessResultIteratorConfidence(ri, RIL_WORD);
		}
		line->sym = cc_xrealloc(line->sym, (line->nsym + 1) * sizeof *line->sym);
		sym = &line->sym[line->nsym++];
		memset(sym, 0, sizeof *sym);
		snprintf(sym->text, sizeof sym->text, "%s", s);
		sym->conf = lib.TessResultIteratorConfidence(ri, RIL_SYMBOL);
		sym->word_start = word_start;
		box_of(pi, RIL_SYMBOL, &sym->box);
		{
			size_t have = line->text ? strlen(line->text) : 0;
			size_t need = have + strlen(sym->text) + 2;

			if (need > tcap) {
				tcap = need * 2;
				line->text = cc_xrealloc(line->text, tcap);
			}
			if (word_start && have)
				line->text[have++] = ' ';
			strcpy(line->text + have, sym->text);
		}
		lib.TessDeleteText(s);
	} while (lib.TessResultIteratorNext(ri, RIL_SYMBOL));
	if (line && line->nwords)
		line->conf = confsum / line->nwords;
}

int
cc_ocr_read(struct cc_ocr *o, const unsigned char *img, size_t n,
    struct cc_ocr_page *page, int *too_big, char *err, size_t errlen)
{
	TessResultIterator *ri;
	PIX *pix, *bin;

	memset(page, 0, sizeof *page);
	*too_big = 0;
	cc_ocr_forget(o);
	if (!(pix = prepare(img, n, &page->skew, &page->scale, too_big, err, errlen)))
		return -1;
	/* the whole page, any layout, any character */
	lib.TessBaseAPISetPageSegMode(o->api, PSM_AUTO);
	lib.TessBaseAPISetVariable(o->api, "tessedit_char_whitelist", "");
	lib.TessBaseAPISetImage2(o->api, pix);
	o->pix = pix;
	if (lib.TessBaseAPIRecognize(o->api, NULL) != 0)
		return 0;	/* a blank or tiny page: nothing to read is no failure */
	if ((bin = lib.TessBaseAPIGetThresholdedImage(o->api))) {
		l_int32 w, h, d;

		lib.pixGetDimensions(bin, &w, &h, &d);
		if (d == 1 && w > 0 && h > 0) {
			l_uint32 *data = lib.pixGetData(bin);
			l_int32 wpl = lib.pixGetWpl(bin);

			page->w = w;
			page->h = h;
			page->ink = cc_xmalloc((size_t)w * (size_t)h);
			for (l_int32 y = 0; y < h; y++) {
				const l_uint32 *row = data + (size_t)y * (size_t)wpl;

				for (l_int32 x = 0; x < w; x++)
					page->ink[(size_t)y * (size_t)w + (size_t)x] =
					    (unsigned char)((row[x >> 5] >> (31 - (x & 31))) & 1);
			}
		}
		lib.pixDestroy(&bin);
	}
	if ((ri = lib.TessBaseAPIGetIterator(o->api))) {
		collect(ri, page);
		lib.TessResultIteratorDelete(ri);
	}
	return 0;
}

int
cc_ocr_read_box(struct cc_ocr *o, const struct cc_ocr_box *b, const char *chars,
    char *out, size_t outlen, double *conf)
{
	/*
	 * A lone digit is sometimes no line to Tesseract's line finder: then
	 * a word, a character, a line without layout analysis.
	 */
	static const TessPageSegMode modes[] = { PSM_SINGLE_LINE, PSM_SINGLE_WORD,
		PSM_SINGLE_CHAR, PSM_RAW_LINE };
	char *s;
	int pad = b->h / 2 + 2, x0, y0, x1, y1;
	l_int32 w, h, d;

	*out = '\0';
	*conf = 0;
	if (!o->pix)
		return -1;
	lib.pixGetDimensions(o->pix, &w, &h, &d);
	/* a margin of paper round the glyphs helps the line finder */
	x0 = b->x - pad < 0 ? 0 : b->x - pad;
	y0 = b->y - pad < 0 ? 0 : b->y - pad;
	x1 = b->x + b->w + pad > w ? w : b->x + b->w + pad;
	y1 = b->y + b->h + pad > h ? h : b->y + b->h + pad;
	if (x1 <= x0 || y1 <= y0)
		return -1;
	lib.TessBaseAPISetVariable(o->api, "tessedit_char_whitelist", chars ? chars : "");
	for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
		lib.TessBaseAPISetPageSegMode(o->api, modes[i]);
		lib.TessBaseAPISetRectangle(o->api, x0, y0, x1 - x0, y1 - y0);
		if (!(s = lib.TessBaseAPIGetUTF8Text(o->api)))
			return -1;
		*conf = lib.TessBaseAPIMeanTextConf(o->api);
		/* one line: the new line Tesseract ends it with goes */
		snprintf(out, outlen, "%s", s);
		out[strcspn(out, "\n")] = '\0';
		lib.TessDeleteText(s);
		if (*out)
			break;
	}
	return 0;
}

void
cc_ocr_page_release(struct cc_ocr_page *page)
{
	for (size_t i = 0; i < page->nlines; i++) {
		free(page->lines[i].text);
		free(page->lines[i].sym);
	}
	free(page->lines);
	free(page->ink);
	memset(page, 0, sizeof *page);
}
