/*
 * fuzz.h: what the fuzz targets and their replay driver share.
 *
 * Each target is one file defining LLVMFuzzerTestOneInput(), linked either
 * with libFuzzer (`make fuzz`, clang) or with replay.c (`make check`, any
 * compiler, sanitizers when configured).  A target aborts when it sees a
 * broken invariant, so both the fuzzer and the replay report it; bad input
 * itself is never an error.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with a message: the fuzzer and the replay both report it. */
#define fuzz_assert(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: broken invariant: %s\n", __FILE__, \
		    __LINE__, #cond); \
		abort(); \
	} \
} while (0)

#endif
