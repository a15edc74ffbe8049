/*
 * Fuzz target "text": the text layer under every matcher, on any bytes:
 * UTF-8 decoding and checking, NFKC (the quick path and utf8proc's),
 * folding with and without case, excerpts, terminal escaping and the
 * language detector with its JSON.
 *
 * Checked: what the quick NFKC check accepts, NFKC leaves unchanged;
 * NFKC and folding of valid UTF-8 give valid UTF-8 with no NUL added; an
 * excerpt stays inside its buffer and ends on a character; escaped text holds no control characters; the detector's
 * object is valid JSON.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_lang.h"
#include "cc_term.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	int valid = cc_utf8_valid(s, size);
	size_t n, i = 0;
	char *norm, *fold, *cstr, excerpt[64];
	struct cc_buf b = {0};
	struct cc_json_doc doc = {0};
	struct cc_lang_result r;
	struct cc_jw w;

	while (i < size) {	/* decoding always advances, inside the text */
		size_t at = i;
		int32_t cp = cc_utf8_next(s, size, &i);

		fuzz_assert(i > at && i <= size);
		fuzz_assert(cp >= 0 && cp <= 0x10FFFF);
		cc_text_script(cp);
	}

	norm = cc_text_nfkc(s, size, &n);
	if (valid) {
		fuzz_assert(norm);
		fuzz_assert(cc_utf8_valid(norm, n));
		if (cc_text_is_nfkc(s, size))
			fuzz_assert(n == size && memcmp(norm, s, n) == 0);
	}
	free(norm);

	for (int flags = 0; flags <= CC_FOLD_KEEP_CASE; flags++) {
		fold = cc_text_fold(s, size, &n, flags);
		fuzz_assert(fold && fold[n] == '\0');
		if (valid)
			fuzz_assert(cc_utf8_valid(fold, n));
		free(fold);
	}

	/* excerpts take C strings */
	cstr = cc_xmalloc(size + 1);
	memcpy(cstr, s, size);
	cstr[size] = '\0';
	for (size_t max = 0; max < 40; max += 13) {
		memset(excerpt, 'X', sizeof excerpt);
		cc_text_excerpt(cstr, max, excerpt, sizeof excerpt);
		fuzz_assert(memchr(excerpt, '\0', sizeof excerpt));
		if (valid)
			fuzz_assert(cc_utf8_valid(excerpt, strlen(excerpt)));
	}
	free(cstr);

	for (int flags = 0; flags < 4; flags++) {
		b.len = 0;
		cc_term_escape(&b, s, size, flags);
		for (size_t k = 0; k < b.len; k++) {
			unsigned char c = (unsigned char)b.data[k];

			fuzz_assert(c >= 0x20 || (c == '\n' && (flags & CC_TERM_KEEP_NEWLINE)) ||
			    (c == '\t' && (flags & CC_TERM_KEEP_TAB)));
			fuzz_assert(c != 0x7f);
		}
	}

	cc_lang_detect(s, size, &r);
	fuzz_assert(r.confidence >= 0 && r.confidence <= 1);
	b.len = 0;
	cc_jw_init(&w, &b);
	cc_lang_write(&r, &w);
	fuzz_assert(cc_json_scan(&doc, b.data, b.len) == 0);
	fuzz_assert(cc_lang_name(r.lang));

	cc_json_doc_release(&doc);
	cc_buf_release(&b);
	return 0;
}
