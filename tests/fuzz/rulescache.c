/*
 * Fuzz target "rulescache": a compiled-rules cache file (cc-rules(5),
 * CACHE), as a damaged one could be, through the reader the loader uses
 * (cc_rules_cache_check).  The key is taken from the input itself, so the
 * fuzzer gets past it to the lengths and the checksum that guard PCRE2's
 * decoder (which trusts the lengths it finds).  An input that begins
 * with 'P' goes past the checksum instead, to the parsed rules' reader
 * alone (cc_rules_cache_check_parsed, with stand-in patterns): what a
 * checksum lets through must still be refused there when it is
 * nonsense, never trusted.  The corpus starts from the cache of
 * tests/data/toy-bakery's rules, whole and without its patterns.
 *
 * Checked: the readers never read outside the input, and say how many
 * patterns they took, or -1.
 */
#include "config.h"

#include <stdint.h>

#include "cc_rules.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t key = 0;
	int n;

	if (size > 0 && data[0] == 'P') {
		n = cc_rules_cache_check_parsed(data + 1, size - 1);
		fuzz_assert(n >= -1);
		return 0;
	}
	for (size_t i = 24; i < 32 && i < size; i++)
		key |= (uint64_t)data[i] << (8 * (i - 24));
	n = cc_rules_cache_check(data, size, key);
	fuzz_assert(n == -1 || n > 0);
	return 0;
}
