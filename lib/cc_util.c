/* Messages, allocation and --version: the conventions every program shares. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "cc_util.h"
#include "cc_session.h"

const char *cc_progname = "concierge";

void
cc_set_progname(const char *argv0)
{
	const char *slash;

	if (!argv0 || !*argv0)
		return;
	slash = strrchr(argv0, '/');
	cc_progname = slash ? slash + 1 : argv0;
	/* libtool wrappers run the real binary as lt-NAME */
	if (strncmp(cc_progname, "lt-", 3) == 0)
		cc_progname += 3;
}

int cc_message_kinds;

/*
 * One write for the whole line: the stages of a pipeline share stderr,
 * and two that fail at once would otherwise mix their words in a line.
 */
static void
vmessage(const char *kind, const char *fmt, va_list ap)
{
	va_list aq;
	size_t pre = strlen(cc_progname) + 2, k = 0;
	int len;
	char *line, *at;

	if (kind && cc_message_kinds)
		k = strlen(kind) + 2;
	va_copy(aq, ap);
	len = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (len < 0 || !(line = malloc(k + pre + (size_t)len + 2))) {
		fprintf(stderr, "%s: ", cc_progname);	/* no room: in pieces */
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		return;
	}
	at = line;
	if (k) {
		*at++ = CC_MSG_KIND_START;
		memcpy(at, kind, k - 2);
		at += k - 2;
		*at++ = CC_MSG_KIND_END;
	}
	memcpy(at, cc_progname, pre - 2);
	memcpy(at + pre - 2, ": ", 2);
	vsnprintf(at + pre, (size_t)len + 1, fmt, ap);
	at[pre + (size_t)len] = '\n';
	fwrite(line, 1, k + pre + (size_t)len + 1, stderr);
	free(line);
}

void
cc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(NULL, fmt, ap);
	va_end(ap);
}

void
cc_warn_kind(const char *kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(kind, fmt, ap);
	va_end(ap);
}

void
cc_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(NULL, fmt, ap);
	va_end(ap);
	exit(status);
}

void *
cc_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		cc_die(CC_EXIT_INTERNAL, "out of memory (%zu bytes)", n);
	return p;
}

void *
cc_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		cc_die(CC_EXIT_INTERNAL, "out of memory (%zu bytes)", n);
	return p;
}

char *
cc_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(cc_xmalloc(n), s, n);
}

void *
cc_dl_load(const char *what, const char *const *names, const char *prefix,
    const char *const *syms, void **const *slots, char *err, size_t errlen)
{
	void *dl = NULL;

	for (size_t i = 0; !dl && names[i]; i++)
		dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		snprintf(err, errlen, "cannot load %s (%s)", what, dlerror());
		return NULL;
	}
	for (size_t i = 0; syms[i]; i++) {
		char sym[128];

		snprintf(sym, sizeof sym, "%s%s", prefix, syms[i]);
		if (!(*slots[i] = dlsym(dl, sym))) {
			snprintf(err, errlen, "cannot load %s: no %s", what, sym);
			dlclose(dl);
			return NULL;
		}
	}
	return dl;
}

void
cc_print_version(void)
{
	printf("%s (%s) %s\n", cc_progname, PACKAGE_NAME, PACKAGE_VERSION);
}

static int
store_has_password(const char *store)
{
	char *masked = cc_session_mask(store);
	int has = strcmp(masked, store) != 0;

	free(masked);
	return has;
}

int
cc_option_common(int c, char **argv, const char *usage, int *unbuffered)
{
	switch (c) {
	case 'u':
		if (!unbuffered)
			break;
		*unbuffered = 1;
		return 1;
	case 'h':
		fputs(usage, stdout);
		exit(CC_EXIT_OK);
	case 'V':
		cc_print_version();
		exit(CC_EXIT_OK);
	case 'D':
		if (setenv("CC_DOMAIN", optarg, 1) < 0)
			cc_die(CC_EXIT_INTERNAL, "setenv: %s", strerror(errno));
		return 1;
	case CC_OPT_STORE:
		/* a command line is seen by every user of the machine (ps) */
		if (store_has_password(optarg))
			cc_die(CC_EXIT_USAGE, "--store: no password on the command line: "
			    "PGPASSWORD or ~/.pgpass holds it");
		if (setenv("CC_STORE", optarg, 1) < 0)
			cc_die(CC_EXIT_INTERNAL, "setenv: %s", strerror(errno));
		return 1;
	case '?':
		if (optopt)
			cc_warn("invalid option -- '%c'", optopt);
		else
			cc_warn("unrecognized option '%s'", argv[optind - 1]);
		break;
	case ':':
		cc_warn("option '%s' needs an argument", argv[optind - 1]);
		break;
	default:
		return 0;
	}
	fputs(usage, stderr);
	exit(CC_EXIT_USAGE);
}

void
cc_problem(struct cc_problems *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	p->n++;
	if (p->fn)
		p->fn(p->ctx, msg);
	else
		cc_warn("%s", msg);
}

char *
cc_read_file(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	size_t n = 0, cap = 0, k;
	struct stat st;
	int e;

	if (!f)
		return NULL;
	/*
	 * Room for the size it has now and its NUL, so a file that does not
	 * grow meanwhile is read without a realloc: doubling from 64 kB
	 * copied the 280 kB rules cache three times at every cold start.
	 */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (!max || (uintmax_t)st.st_size <= max)) {
		cap = (size_t)st.st_size + 2;
		data = cc_xrealloc(data, cap);
	}
	do {
		if (cap - n < 2) {
			if (max && cap > max) {
				e = EFBIG;
				goto fail;
			}
			cap = cap ? 2 * cap : 65536;
			data = cc_xrealloc(data, cap);
		}
		k = fread(data + n, 1, cap - n - 1, f);
		n += k;
	} while (k > 0);
	if (ferror(f) || (max && n > max)) {
		e = ferror(f) ? errno : EFBIG;
		goto fail;
	}
	fclose(f);
	data[n] = '\0';
	*len = n;
	return data;
fail:
	free(data);
	fclose(f);
	errno = e;
	return NULL;
}

int
cc_mkdirs(const char *path)
{
	char *p = cc_xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; rc == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			rc = -1;
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

char *
cc_word(char **s)
{
	char *w = *s, *e;

	while (*w == ' ' || *w == '\t')
		w++;
	e = w;
	while (*e && *e != ' ' && *e != '\t')
		e++;
	if (*e)
		*e++ = '\0';
	*s = e;
	return w;
}

char *
cc_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
	    e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* ---- leaving a dead service alone ---- */

int
cc_backoff_active(const struct cc_backoff *b, const char **code, char *err,
    size_t errlen)
{
	time_t now = time(NULL);

	/* a clock set back never keeps a service away for longer */
	if (!b->code || now >= b->until || b->until - now > CC_BACKOFF_SECONDS)
		return 0;
	*code = b->code;
	snprintf(err, errlen, "%s (not asked again for %ld s)", b->why,
	    (long)(b->until - now));
	return 1;
}

void
cc_backoff_note(struct cc_backoff *b, const char *code, const char *why)
{
	if (!code || (strcmp(code, "timeout") != 0 && strcmp(code, "unreachable") != 0 &&
	    strcmp(code, "connect") != 0))
		return;
	b->code = code;
	b->until = time(NULL) + CC_BACKOFF_SECONDS;
	snprintf(b->why, sizeof b->why, "%s", why);
}

const char *
cc_csv_next(const char **list, size_t *n)
{
	const char *item;

	if (!*list)
		return NULL;
	*list += strspn(*list, ", ");
	if (!**list)
		return NULL;
	item = *list;
	*n = strcspn(item, ",");
	*list += *n;
	while (*n && item[*n - 1] == ' ')
		(*n)--;
	return item;
}

int
cc_csv_has(const char *list, const char *w)
{
	size_t k = strlen(w), n;
	const char *item;

	while ((item = cc_csv_next(&list, &n)))
		if (n == k && strncmp(item, w, k) == 0)
			return 1;
	return 0;
}
