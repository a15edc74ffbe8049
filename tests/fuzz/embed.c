/*
 * Fuzz target "embed": the reader of an embeddings answer,
 * cc_embed_parse(), on any body, for requests of 0 to 3 texts.
 *
 * Checked: a success gives n vectors of one positive dimension.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "cc_kbnet.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t n = 0; n <= 3; n++) {
		float *v;
		int dim;
		char err[256];

		if (cc_embed_parse((const char *)data, size, n, &v, &dim, err,
		    sizeof err) < 0) {
			fuzz_assert(!v);
			continue;
		}
		fuzz_assert(n == 0 || (v && dim > 0 && dim <= 65536));
		free(v);
	}
	return 0;
}
