/*
 * cc_image.h: analyze_homework_image (seed 001, section 3.2.5): a photo
 * or scan of a worksheet, base64-encoded, to the problems on it.
 *
 * Owns: the per-process reader (struct cc_image): the worksheet data and
 * the vision prompt, the Tesseract instance and the vision endpoint, all
 * set up on first use.  Borrows: the arguments it is handed.
 *
 * Contract of cc_image_analyze(), arguments as the seed names them:
 *   {"image_data": BASE64, "expected_subject": "math"|"japanese"|... or null}
 *   - image_data: standard base64, padded or not, line breaks and spaces
 *     anywhere, optionally behind a data: URI prefix ("data:image/png;
 *     base64,").  Empty, a character outside the alphabet, padding inside
 *     the text or a length base64 cannot have are errors.  More than
 *     CC_IMAGE_MAX_BYTES (10 MiB, the original's limit) after decoding is
 *     an error, found before decoding anything.
 *   - The format is sniffed from the first bytes (PNG, JPEG, GIF, TIFF,
 *     BMP, WebP, PNM, JPEG 2000); anything else is an error, before any
 *     OCR or model is asked.
 *   - With CC_VISION_BASE_URL set (cc_vision.h), a PNG, JPEG, GIF or WebP
 *     goes to the vision model.  When the model fails or answers nonsense,
 *     Tesseract reads the page instead (the seed's "OCR fallback"); if that
 *     finds no problem either, the model's error is returned.
 *   - Otherwise Tesseract reads it offline (cc_ocr.h); arithmetic lines
 *     are read again by their glyphs (cc_glyph.h) and every line becomes
 *     a problem or nothing (cc_sheet.h).  confidence is the mean Tesseract
 *     confidence of the problems' lines (0-1, two decimals).
 *     needs_confirmation is true when there is no problem, when
 *     confidence is below CC_IMAGE_CONFIRM_BELOW, when a line's own
 *     confidence is below CC_IMAGE_LINE_DOUBT, when a line was repaired
 *     (a letter read as a digit, a look-alike as an operator), or when
 *     no problem is of the expected subject.
 * The result is the seed's {"problems": [{"text", "type", "difficulty",
 * "expression"}], "confidence", "needs_confirmation"}, or {"error":
 * MESSAGE} (the original's shape: a Japanese message, the word サイズ in
 * the size errors), with im->code saying which kind of failure it was.
 */
#ifndef CC_IMAGE_H
#define CC_IMAGE_H

#include <stddef.h>

#include "cc_json.h"
#include "cc_vision.h"

#define CC_IMAGE_MAX_BYTES (10u * 1024 * 1024)
#define CC_IMAGE_CONFIRM_BELOW 0.80
/* Tesseract's 0-100: clean print reads at 85-97, a garbled line at 40-70 */
#define CC_IMAGE_LINE_DOUBT 75.0

struct cc_sheet;
struct cc_ocr;

struct cc_image {
	char *dir;		/* the domain's data folder */
	int have_vision;
	struct cc_vision vision;
	/* loaded on first use */
	struct cc_sheet *sheet;
	char *prompt;
	struct cc_ocr *ocr;
	char ocr_error[300];	/* why Tesseract cannot be used, once known */
	/* what the last call did */
	const char *code;	/* NULL on success, else "bad_input" (exit 3),
				   "too_large" (3), "not_image" (3),
				   "unavailable" (no OCR and no vision: 5),
				   "upstream" (the vision model failed: 4) */
	const char *source;	/* "ocr" or "vision" */
	char vision_error[256];	/* the model's failure, also on a fallback */
};

/*
 * Set up from the environment (the vision endpoint); dir is the domain
 * folder with `worksheet` and `vision-prompt`
 * (share/concierge/homework-coach).  Reads no file and loads no library:
 * that waits for the first image.
 */
void cc_image_init(struct cc_image *im, const char *dir);
void cc_image_release(struct cc_image *im);
/* analyze_homework_image; borrows args, returns an owned object. */
jv cc_image_analyze(struct cc_image *im, jv args);

/*
 * The input checks, on their own for tests.  cc_image_decode: base64
 * s[0..n) to fresh bytes; 0, or -1 (not base64) or -2 (decodes to more
 * than max bytes), with err set.
 */
int cc_image_decode(const char *s, size_t n, size_t max, unsigned char **out,
	size_t *outlen, char *err, size_t errlen);
/* The format of p[0..n): "png", "jpeg", ... or NULL; *mime its type. */
const char *cc_image_sniff(const unsigned char *p, size_t n, const char **mime);

#endif
