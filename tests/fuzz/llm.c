/*
 * Fuzz target "llm": the reader of a chat-completion answer,
 * cc_llm_parse_reply(), on any body.
 *
 * Checked: a success appends the (non-empty) text, a failure nothing.
 */
#include "config.h"

#include <stdint.h>

#include "cc_json.h"
#include "cc_llm.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cc_buf out = {0};
	char err[256];

	cc_buf_add(&out, "x", 1);	/* the text is appended after this */
	if (cc_llm_parse_reply((const char *)data, size, &out, err, sizeof err) == 0)
		fuzz_assert(out.len > 1);
	else
		fuzz_assert(out.len == 1 && err[0]);
	cc_buf_release(&out);
	return 0;
}
