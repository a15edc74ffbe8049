/*
 * Fuzz target "kbtok": the knowledge base's tokenizer, cc_kb_tokenize(),
 * the function the FTS5 tokenizer "cc" calls for every passage, called
 * directly as passages and as queries are cut; and cc_kb_query_terms(),
 * the FTS5 expression a question becomes.
 *
 * Checked: every token is non-empty valid UTF-8 without a double quote (it
 * goes inside an FTS5 string); the expression holds balanced quotes and
 * at most the tokenizer's 48 terms.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "cc_json.h"
#include "cc_text.h"
#include "cc_kb.h"
#include "fuzz.h"

static int
check_token(void *ctx, const char *tok, size_t len, int kind, int colocated)
{
	size_t *n = ctx;

	fuzz_assert(len > 0);
	fuzz_assert(cc_utf8_valid(tok, len));
	fuzz_assert(!memchr(tok, '"', len));
	fuzz_assert(kind >= CC_KB_TOKEN_WORD && kind <= CC_KB_TOKEN_HAN_EDGE);
	fuzz_assert(colocated == 0 || colocated == 1);
	(*n)++;
	return 0;
}

/* Stop after the first token: the tokenizer must stop at once. */
static int
stop(void *ctx, const char *tok, size_t len, int kind, int colocated)
{
	(*(size_t *)ctx)++;
	return 7;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct cc_buf b = {0};
	size_t n = 0, terms, quotes = 0;

	cc_kb_tokenize(s, size, 0, check_token, &n);
	cc_kb_tokenize(s, size, CC_KB_TOKENIZE_QUERY, check_token, &n);
	n = 0;
	if (cc_kb_tokenize(s, size, 0, stop, &n) == 7)
		fuzz_assert(n == 1);
	else
		fuzz_assert(n == 0);

	terms = cc_kb_query_terms(s, size, &b);
	fuzz_assert(terms <= 48);
	for (size_t i = 0; i < b.len; i++)
		quotes += b.data[i] == '"';
	fuzz_assert(quotes == 2 * terms);
	fuzz_assert(terms > 0 || b.len == 0);
	cc_buf_release(&b);
	return 0;
}
