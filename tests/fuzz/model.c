/*
 * Fuzz target "model": a router model file (cc_classify.h), as a damaged
 * or hostile cache could hold one, through cc_classify_load(), which maps
 * a path, so the input is written to a private temporary file first.
 * When it loads, a few questions are classified, against every label in
 * turn.  The corpus starts from a model learnt from a handful of examples.
 *
 * Checked: the labels are NUL-terminated strings inside the file; a
 * verdict names labels the model has, a score in [0, 1] (or NaN from a
 * damaged weight, never past 1), and at most CC_CLASSIFY_WHY reasons,
 * each a string of its own.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_classify.h"
#include "fuzz.h"

static const char *const questions[] = {
	"do you have croissants?",
	"パンの種類は？",
	"ありがとう",
	"",
	"\xe3\x81",	/* a cut code point */
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cc_classify *m;
	char err[256];
	const char *path;

	cc_progname = "fuzz-model";
	path = fuzz_temp_file("model", data, size);

	if (!(m = cc_classify_load(path, NULL, err, sizeof err)))
		return 0;
	for (size_t l = 0; l < cc_classify_nlabels(m); l++) {
		const char *label = cc_classify_label(m, l);

		fuzz_assert(label != NULL);
		fuzz_assert(strlen(label) < size);
	}
	for (size_t i = 0; i < sizeof questions / sizeof *questions; i++)
		for (int versus = -1; versus < (int)cc_classify_nlabels(m) && versus < 4; versus++) {
			struct cc_classify_result r;

			cc_classify_predict(m, questions[i], strlen(questions[i]), versus, &r);
			fuzz_assert(r.label < (int)cc_classify_nlabels(m));
			fuzz_assert(r.second < (int)cc_classify_nlabels(m));
			fuzz_assert(!(r.score > 1.0 + 1e-9) && !(r.score < 0));
			fuzz_assert(r.nwhy <= CC_CLASSIFY_WHY);
			for (size_t k = 0; k < r.nwhy; k++)
				fuzz_assert(memchr(r.why[k], '\0', sizeof r.why[k]));
		}
	cc_classify_free(m);
	return 0;
}
