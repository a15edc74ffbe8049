/*
 * replay: run a fuzz target's LLVMFuzzerTestOneInput() on every file given
 * and every file in the directories given (not recursively, in name order),
 * as libFuzzer does when it replays a corpus.  Linked with each target, it
 * makes the corpora regression tests for `make check` with any compiler;
 * under ASan+UBSan the sanitizers report what the fuzzer would.
 *
 *   replay-TARGET [FILE|DIR]...
 *
 * Prints how many inputs ran; exits 0, or 1 when a file cannot be read (a
 * broken invariant or a sanitizer report aborts before that).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Run the target on one file, in a buffer of exactly its size so the
   sanitizers see a read past the end of the input. */
static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *data;
	size_t n;

	if (!f || fstat(fileno(f), &st) < 0) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (!(data = malloc(st.st_size ? (size_t)st.st_size : 1))) {
		fprintf(stderr, "replay: out of memory\n");
		exit(1);
	}
	n = fread(data, 1, (size_t)st.st_size, f);
	if (ferror(f) || n != (size_t)st.st_size) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		fclose(f);
		free(data);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, n);
	free(data);
	return 0;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char **argv)
{
	size_t ran = 0;
	int status = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;
		char **names = NULL;
		size_t n = 0;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: cannot open '%s': %s\n", argv[i],
			    strerror(errno));
			status = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (replay_file(argv[i]) < 0)
				status = 1;
			else
				ran++;
			continue;
		}
		if (!(d = opendir(argv[i]))) {
			fprintf(stderr, "replay: cannot open '%s': %s\n", argv[i],
			    strerror(errno));
			status = 1;
			continue;
		}
		while ((e = readdir(d))) {
			size_t len;

			if (e->d_name[0] == '.')
				continue;
			len = strlen(argv[i]) + strlen(e->d_name) + 2;
			names = realloc(names, (n + 1) * sizeof *names);
			if (!names || !(names[n] = malloc(len))) {
				fprintf(stderr, "replay: out of memory\n");
				exit(1);
			}
			snprintf(names[n++], len, "%s/%s", argv[i], e->d_name);
		}
		closedir(d);
		qsort(names, n, sizeof *names, cmp_name);
		for (size_t k = 0; k < n; k++) {
			if (stat(names[k], &st) == 0 && S_ISREG(st.st_mode)) {
				if (replay_file(names[k]) < 0)
					status = 1;
				else
					ran++;
			}
			free(names[k]);
		}
		free(names);
	}
	printf("replayed %zu inputs\n", ran);
	return status;
}
