/*
 * The data files' line reader, one for the domain's four loaders (frame
 * patterns, synonyms, guidance and requirements, gate.conf).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cc_datafile.h"

int
cc_datafile_verror(char *err, size_t errlen, const char *path, int line,
    const char *fmt, va_list ap)
{
	int n = snprintf(err, errlen, "%s:%d: ", path, line);

	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	return -1;
}

int
cc_datafile_error(char *err, size_t errlen, const char *path, int line,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cc_datafile_verror(err, errlen, path, line, fmt, ap);
	va_end(ap);
	return -1;
}

int
cc_datafile_each(const char *path, cc_datafile_fn fn, void *ctx, char *err,
    size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;

	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while (rc >= 0 && (len = getline(&line, &cap, f)) >= 0) {
		char *s = line;

		lineno++;
		if (memchr(line, '\0', (size_t)len)) {
			rc = cc_datafile_error(err, errlen, path, lineno, "a NUL byte");
			break;
		}
		line[strcspn(line, "\r\n")] = '\0';
		s += strspn(s, " \t");
		if (*s && *s != '#')
			rc = fn(ctx, s, lineno);
	}
	free(line);
	fclose(f);
	return rc < 0 ? -1 : 0;
}
