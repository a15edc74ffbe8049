/*
 * cc_util.h: the exit-status table, messages, allocation that cannot fail,
 * the options every program shares, and the back-off from a dead service.
 *
 * Owns: the program name (cc_progname) and the exit statuses every program
 * and man page uses.  Borrows nothing: every other module may use it.
 */
#ifndef CC_UTIL_H
#define CC_UTIL_H

#include <stddef.h>
#include <time.h>

enum cc_exit {
	CC_EXIT_OK = 0,		/* success */
	CC_EXIT_NEGATIVE = 1,	/* a negative answer scripts can test for */
	CC_EXIT_USAGE = 2,	/* bad option, argument or environment */
	CC_EXIT_DATA = 3,	/* some input record was bad (error record written) */
	CC_EXIT_UPSTREAM = 4,	/* a temporary upstream or network failure */
	CC_EXIT_INTERNAL = 5,	/* internal error, out of memory, cannot write */
};

/* The program name that prefixes every message; set once from argv[0]. */
extern const char *cc_progname;
void cc_set_progname(const char *argv0);
void cc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A message a stage says once for the rest of its run ("...; routing
 * without context from here on"), known by kind, a short literal name
 * of what was given up.  Said as cc_warn says it; but in a cc-run
 * worker (cc_message_kinds set) the line goes out as RS kind US message,
 * so that the parent says it once for all its workers, each of which
 * noticed at a record of its own.
 */
void cc_warn_kind(const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
extern int cc_message_kinds;
#define CC_MSG_KIND_START '\036'	/* ASCII RS, then the kind */
#define CC_MSG_KIND_END '\037'		/* ASCII US, then the message */
_Noreturn void cc_die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void *cc_xmalloc(size_t n);
void *cc_xrealloc(void *p, size_t n);
char *cc_xstrdup(const char *s);

/*
 * A library loaded at its first use rather than linked, since linking
 * costs every start-up its relocations (libcurl, libical, libpq): the
 * first of names (NULL-ended) that dlopen() finds, with the symbol
 * prefix + syms[i] stored in *slots[i] for each name of syms (NULL-ended).
 * The handle, or NULL with "cannot load WHAT ..." in err and nothing
 * left open.
 */
void *cc_dl_load(const char *what, const char *const *names,
	const char *prefix, const char *const *syms, void **const *slots,
	char *err, size_t errlen);

/*
 * Where a reader of data files (a manifest, response texts, documents,
 * calendars) sends each problem it finds, "path:line: why": to fn, or
 * to stderr (cc_warn) when fn is NULL; n counts them.  A reader that
 * reports through it goes on after a problem, so a check lists them all.
 */
struct cc_problems {
	void (*fn)(void *ctx, const char *message);
	void *ctx;
	unsigned n;
};
void cc_problem(struct cc_problems *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* mkdir -p; the directories it creates are private (0700).  0 or -1. */
int cc_mkdirs(const char *path);
/*
 * The whole file at path, malloc'd and NUL-terminated (the NUL not counted
 * in *len); NULL with errno set when it cannot be read or holds more than
 * max bytes (EFBIG; max 0: no limit).
 */
char *cc_read_file(const char *path, size_t max, size_t *len);
/* Split off the first blank-delimited word of *s (in place). */
char *cc_word(char **s);
/* s without leading blanks and trailing blanks and line ends (in place). */
char *cc_trim(char *s);
/* The next item of a comma-separated list, its length in *n without the
 * spaces around it, and *list moved past it; NULL at the end. */
const char *cc_csv_next(const char **list, size_t *n);
/* 1 if the comma-separated list (blanks around items allowed) has word w. */
int cc_csv_has(const char *list, const char *w);

/* --version output, shared so every program prints the same thing. */
void cc_print_version(void);

/*
 * The options every program takes.  Put CC_COMMON_LONGOPTS in the
 * getopt_long table and CC_COMMON_SHORTOPTS in the short string, and pass
 * every option to cc_option_common() first (set opterr = 0 before
 * getopt_long so messages carry the program name): it handles -u/-h/-V,
 * -D/--domain (which sets CC_DOMAIN, so the configuration and every child
 * process see it), --store (CC_STORE, the same way; a password in it is
 * refused: it belongs in PGPASSWORD or ~/.pgpass) and unknown options (usage to stderr, exit 2) and
 * returns 1, or returns 0 for an option of the program's own.
 * *unbuffered may be NULL.
 */
#define CC_COMMON_SHORTOPTS "uhVD:"
#define CC_COMMON_LONGOPTS \
	{"unbuffered", no_argument, NULL, 'u'}, \
	{"help", no_argument, NULL, 'h'}, \
	{"version", no_argument, NULL, 'V'}, \
	{"domain", required_argument, NULL, 'D'}, \
	{"store", required_argument, NULL, CC_OPT_STORE}
#define CC_OPT_STORE 0x5354	/* long only */
int cc_option_common(int c, char **argv, const char *usage, int *unbuffered);

/*
 * A service that timed out or could not be reached is not asked again for
 * CC_BACKOFF_SECONDS (the real clock): the records meanwhile carry the
 * same failure at once, so a dead service costs one time limit, not one
 * per record.  cc-event does the same for its sources.
 */
#define CC_BACKOFF_SECONDS 60
struct cc_backoff {
	time_t until;		/* not asked before this */
	const char *code;	/* the failure (a static string) */
	char why[200];
};
/* 1, with *code and err set, while the service is left alone; else 0. */
int cc_backoff_active(const struct cc_backoff *b, const char **code,
	char *err, size_t errlen);
/* A failure: "timeout", "unreachable" or "connect" start a back-off. */
void cc_backoff_note(struct cc_backoff *b, const char *code, const char *why);

#endif
