/*
 * cc_datafile.h: how the code-intel domain's data files are read
 * (code-intel(5), gate.conf): one directive a line; blank lines, and
 * lines whose first non-blank character is '#', are skipped; a problem is
 * told as "path:line: why" and stops the reading.
 *
 * Owns: nothing.  Borrows: the path and the error buffer it is given.
 */
#ifndef CC_DATAFILE_H
#define CC_DATAFILE_H

#include <stdarg.h>
#include <stddef.h>

/*
 * A directive: the line without its end of line and leading blanks
 * (writable, valid until the next call), its number from 1.  0 to go on,
 * negative to stop (with the error written into err).
 */
typedef int (*cc_datafile_fn)(void *ctx, char *line, int lineno);

/*
 * Read path a directive at a time.  0 when every line was taken; -1 when
 * the file cannot be opened or holds a NUL byte (err says so), or fn's
 * negative return (err as fn wrote it).
 */
int cc_datafile_each(const char *path, cc_datafile_fn fn, void *ctx, char *err,
	size_t errlen);

/* "path:line: " and the message into err; returns -1 (for "return fail(...)"). */
int cc_datafile_verror(char *err, size_t errlen, const char *path, int line,
	const char *fmt, va_list ap);
int cc_datafile_error(char *err, size_t errlen, const char *path, int line,
	const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
