/*
 * cc_ocr.h: offline OCR of a worksheet photo or scan with Tesseract
 * (jpn+eng) and leptonica, both loaded with dlopen() on first use.
 *
 * Owns: the loaded libraries and one Tesseract instance, kept for the
 * process (loading the Japanese model costs about 0.2 s); the pages it
 * returns.  Borrows: the image bytes it is handed.
 *
 * Contract:
 *   - cc_ocr_open() finds the language data the way tesseract does
 *     (TESSDATA_PREFIX, else the Debian directory) and fails with a
 *     message naming the Debian package when a library or jpn/eng data is
 *     missing.  Nothing is linked: a process that never reads an image
 *     never loads the 56 libraries libtesseract brings (about 7 ms of
 *     start-up each run, measured).
 *   - cc_ocr_read() decodes any format leptonica reads, refuses images of
 *     more than CC_OCR_MAX_PIXELS before decoding them, flattens
 *     transparency on white, turns the page grey, scales a large photo
 *     down and a small scan up, separates ink from paper against the
 *     local background (uneven light), straightens a page turned by up to
 *     about 7 degrees, and recognises it.  It returns the lines with their word
 *     confidences and symbol boxes, and the page as Tesseract binarised
 *     it, so the shapes of the symbols can be looked at again
 *     (cc_glyph.h).  Leptonica and Tesseract say nothing on stderr.
 */
#ifndef CC_OCR_H
#define CC_OCR_H

#include <stddef.h>

/* Decompression bombs: a 10 MiB PNG can claim 100,000 x 100,000 pixels. */
#define CC_OCR_MAX_PIXELS (50L * 1000 * 1000)
#define CC_OCR_MAX_SIDE 30000

struct cc_ocr;

struct cc_ocr_box {
	int x, y, w, h;		/* in the straightened page */
};

struct cc_ocr_symbol {
	char text[16];		/* UTF-8, one character as Tesseract read it */
	float conf;		/* 0-100 */
	struct cc_ocr_box box;
	int word_start;		/* the first symbol of a word */
};

struct cc_ocr_line {
	char *text;		/* the words, joined by one space */
	double conf;		/* mean word confidence, 0-100 */
	int nwords;
	struct cc_ocr_box box;
	struct cc_ocr_symbol *sym;
	size_t nsym;
};

struct cc_ocr_page {
	struct cc_ocr_line *lines;
	size_t nlines;
	unsigned char *ink;	/* w x h, 1 where Tesseract saw ink */
	int w, h;
	double skew;		/* degrees the page was turned back */
	double scale;		/* the page as read / the image as sent */
};

/* Load the libraries and the language data once; 0, or -1 with err. */
int cc_ocr_open(struct cc_ocr **o, char *err, size_t errlen);
void cc_ocr_close(struct cc_ocr *o);
/*
 * Read the image img[0..n); 0 with *page filled (release it), or -1 with
 * err, and *too_big set when the image has too many pixels.
 */
int cc_ocr_read(struct cc_ocr *o, const unsigned char *img, size_t n,
	struct cc_ocr_page *page, int *too_big, char *err, size_t errlen);
void cc_ocr_page_release(struct cc_ocr_page *page);
/*
 * Read the box b of the last page again as one line, with only the
 * characters chars (NULL: any); 0 with the text in out and its mean
 * confidence (0-100) in *conf, or -1.
 */
int cc_ocr_read_box(struct cc_ocr *o, const struct cc_ocr_box *b,
	const char *chars, char *out, size_t outlen, double *conf);
/* Let the last page go (cc_ocr_read and cc_ocr_close do it too). */
void cc_ocr_forget(struct cc_ocr *o);
/* TESSDATA_PREFIX, else the first of Debian's directories that exists. */
const char *cc_ocr_datadir(void);

#endif
