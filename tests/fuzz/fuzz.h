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

/*
 * Write data to this target's private temporary file (made once, removed
 * at exit) and return its path: for readers that take a path.  name
 * tells the files apart in TMPDIR.
 */
#include <string.h>
#include <unistd.h>

static char fuzz_path_[4096];

static void
fuzz_cleanup_(void)
{
	if (fuzz_path_[0])
		unlink(fuzz_path_);
}

static inline const char *
fuzz_temp_file(const char *name, const uint8_t *data, size_t size)
{
	FILE *f;

	if (!fuzz_path_[0]) {
		const char *tmp = getenv("TMPDIR");
		int fd;

		snprintf(fuzz_path_, sizeof fuzz_path_, "%s/cc-fuzz-%s.XXXXXX",
		    tmp && *tmp ? tmp : "/tmp", name);
		if ((fd = mkstemp(fuzz_path_)) < 0) {
			perror("fuzz: mkstemp");
			abort();
		}
		close(fd);
		atexit(fuzz_cleanup_);
	}
	f = fopen(fuzz_path_, "w");
	fuzz_assert(f);
	fuzz_assert(fwrite(data, 1, size, f) == size || size == 0);
	fuzz_assert(fclose(f) == 0);
	return fuzz_path_;
}

#endif
