/*
 * Evidence checked instead of trusted (cc-gate --repo DIR): the files an
 * agent says it analysed must be regular files under DIR, the symbols it
 * names must occur in them, its entry points must resolve there.
 *
 * The search is a bounded text scan, not a parser: a name is found as a
 * whole identifier (a dotted or called name part by part, a route or
 * other text as it is), and a hit is called a definition when its line
 * reads like one (def, class, function, fn, struct, an assignment, a C
 * function head).  Both kinds count; the kind only helps the reader.
 *
 * Paths never leave DIR: '..' is refused, absolute paths must lie under
 * it, and the real path (symbolic links resolved) must too.  Each file is
 * read up to REPO_MAX_FILE, one check reads at most REPO_MAX_TOTAL and
 * spends at most REPO_MAX_MS; what is beyond a bound is reported as not
 * checked, which fails the piece of evidence.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_gate_int.h"

#define REPO_MAX_FILE (4 * 1024 * 1024)
#define REPO_MAX_TOTAL (64 * 1024 * 1024)
#define REPO_MAX_MS 2000
#define REPO_MAX_PATH 4096

struct gfile {
	char *rel;		/* as submitted */
	char *real;
	char *data;
	size_t len;
	int cut;		/* larger than REPO_MAX_FILE: only its head read */
};

struct gate_files {
	const struct cc_gate *g;
	struct gfile *f;
	size_t n;
	size_t total;
	struct timespec start;
};

struct gate_files *
gate_files_new(const struct cc_gate *g)
{
	struct gate_files *f = calloc(1, sizeof *f);

	if (!f)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	f->g = g;
	clock_gettime(CLOCK_MONOTONIC, &f->start);
	return f;
}

void
gate_files_free(struct gate_files *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		free(f->f[i].rel);
		free(f->f[i].real);
		free(f->f[i].data);
	}
	free(f->f);
	free(f);
}

static long
elapsed_ms(const struct gate_files *f)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - f->start.tv_sec) * 1000 +
	    (now.tv_nsec - f->start.tv_nsec) / 1000000;
}

/* 1 if real is the repository or inside it. */
static int
inside(const char *repo, const char *real)
{
	size_t n = strlen(repo);

	return strncmp(real, repo, n) == 0 && (real[n] == '\0' || real[n] == '/' ||
	    (n == 1 && repo[0] == '/'));
}

static int
has_dotdot(const char *p)
{
	const char *c = p;

	while (*c) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return 1;
		if (!e)
			break;
		c = e + 1;
	}
	return 0;
}

static int
read_head(struct gate_files *f, struct gfile *x, char *why, size_t whylen)
{
	int fd = open(x->real, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	size_t cap = REPO_MAX_FILE, room = REPO_MAX_TOTAL - f->total;
	struct stat st;

	if (fd < 0) {
		snprintf(why, whylen, "cannot be read: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, whylen, "is not a regular file");
		return -1;
	}
	if (cap > room)
		cap = room;
	if ((size_t)st.st_size > cap)
		x->cut = 1;
	else
		cap = (size_t)st.st_size;
	x->data = cc_xmalloc(cap + 1);
	while (x->len < cap) {
		ssize_t k = read(fd, x->data + x->len, cap - x->len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		x->len += (size_t)k;
	}
	x->data[x->len] = '\0';
	f->total += x->len;
	close(fd);
	return 0;
}

int
gate_files_add(struct gate_files *f, struct gs path, char *why, size_t whylen)
{
	const char *repo = f->g->repo;
	char *rel, *cand, *real;
	struct gfile *x;

	if (memchr(path.s, '\0', path.n)) {
		snprintf(why, whylen, "contains a NUL byte");
		return -1;
	}
	if (path.n == 0 || path.n > REPO_MAX_PATH) {
		snprintf(why, whylen, path.n ? "is too long" : "is empty");
		return -1;
	}
	rel = cc_xmalloc(path.n + 1);
	memcpy(rel, path.s, path.n);
	rel[path.n] = '\0';
	if (has_dotdot(rel)) {
		snprintf(why, whylen, "'..' is not allowed in an evidence path");
		free(rel);
		return -1;
	}
	if (rel[0] == '/' && !inside(repo, rel)) {
		/* lexically outside; a path inside may still lead out (below) */
		char *norm = py_normpath(rel);
		int in = inside(repo, norm);

		free(norm);
		if (!in) {
			snprintf(why, whylen, "is outside the repository");
			free(rel);
			return -1;
		}
	}
	cand = rel[0] == '/' ? cc_xstrdup(rel) : gate_path_join(repo, rel);
	real = realpath(cand, NULL);
	free(cand);
	if (!real) {
		if (errno == ENOENT || errno == ENOTDIR)
			snprintf(why, whylen, "does not exist in the repository");
		else
			snprintf(why, whylen, "cannot be resolved: %s", strerror(errno));
		free(rel);
		return -1;
	}
	if (!inside(repo, real)) {
		snprintf(why, whylen, "leads outside the repository (a symbolic link)");
		free(real);
		free(rel);
		return -1;
	}
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->f[i].real, real) == 0) {
			free(real);
			free(rel);
			return 0;
		}
	if (elapsed_ms(f) > REPO_MAX_MS) {
		snprintf(why, whylen, "not checked: the check's time limit (%d ms) was reached",
		    REPO_MAX_MS);
		free(real);
		free(rel);
		return -1;
	}
	f->f = cc_xrealloc(f->f, (f->n + 1) * sizeof *f->f);
	x = &f->f[f->n];
	memset(x, 0, sizeof *x);
	x->rel = rel;
	x->real = real;
	if (read_head(f, x, why, whylen) < 0) {
		free(x->rel);
		free(x->real);
		free(x->data);
		return -1;
	}
	f->n++;
	return 0;
}

static int
ident_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '$' || c >= 0x80;
}

/* The keywords after which a name is being defined. */
static const char *const def_words[] = {
	"def", "class", "function", "func", "fn", "struct", "enum", "union",
	"interface", "trait", "type", "typedef", "module", "macro", "sub",
	"procedure", "let", "const", "var", "val", "define", "package",
	"namespace", "record", "object", "impl", "async", NULL,
};

/* Does the line around data[at..at+n) define the name? */
static int
defines(const char *data, size_t len, size_t at, size_t n)
{
	size_t ls = at, le = at + n, before, word, after, e;

	while (ls > 0 && data[ls - 1] != '\n')
		ls--;
	while (le < len && data[le] != '\n')
		le++;
	/* the word before the name: a keyword that defines */
	before = at;
	while (before > ls && (data[before - 1] == ' ' || data[before - 1] == '\t' ||
	    data[before - 1] == '*'))
		before--;
	word = before;
	while (word > ls && ident_byte((unsigned char)data[word - 1]))
		word--;
	for (int i = 0; def_words[i]; i++)
		if (before - word == strlen(def_words[i]) &&
		    memcmp(data + word, def_words[i], before - word) == 0)
			return 1;
	after = at + n;
	while (after < le && (data[after] == ' ' || data[after] == '\t'))
		after++;
	/* name = value (not ==, =>) at the start of its line */
	if (after < le && data[after] == '=' && (after + 1 >= le ||
	    (data[after + 1] != '=' && data[after + 1] != '>'))) {
		size_t s = ls;

		while (s < at && (data[s] == ' ' || data[s] == '\t'))
			s++;
		if (s == at)
			return 1;
	}
	/* a C-like function head: a type word before it, '(' after, no ';' at the end */
	if (after < le && data[after] == '(' && before > word &&
	    !memchr(data + ls, '=', at - ls) && !memchr(data + ls, '(', at - ls) &&
	    !(before - word == 6 && memcmp(data + word, "return", 6) == 0) &&
	    !(before - word == 3 && memcmp(data + word, "new", 3) == 0) &&
	    !(before - word == 4 && memcmp(data + word, "else", 4) == 0)) {
		e = le;
		while (e > after && (data[e - 1] == ' ' || data[e - 1] == '\t' ||
		    data[e - 1] == '\r'))
			e--;
		if (data[e - 1] != ';' && data[e - 1] != ',')
			return 1;
	}
	return 0;
}

struct hit {
	size_t file, line;
	int defined;
};

/* Find name as a whole identifier (as text when literal); 1 with h set. */
static int
find_in(struct gate_files *f, const char *name, size_t n, int literal, struct hit *h)
{
	int found = 0;

	for (size_t i = 0; i < f->n; i++) {
		const char *d = f->f[i].data;
		size_t len = f->f[i].len, at = 0;
		const char *m;

		while (at < len && (m = memmem(d + at, len - at, name, n))) {
			size_t pos = (size_t)(m - d);
			int ok = literal ||
			    ((pos == 0 || !ident_byte((unsigned char)d[pos - 1]) ||
			    !ident_byte((unsigned char)name[0])) &&
			    (pos + n >= len || !ident_byte((unsigned char)d[pos + n]) ||
			    !ident_byte((unsigned char)name[n - 1])));

			at = pos + 1;
			if (!ok)
				continue;
			if (!found || (!h->defined && !literal && defines(d, len, pos, n))) {
				size_t line = 1;

				for (size_t k = 0; k < pos; k++)
					line += d[k] == '\n';
				h->file = i;
				h->line = line;
				h->defined = !literal && defines(d, len, pos, n);
				found = 1;
			}
			if (h->defined || literal)
				return 1;
		}
	}
	return found;
}

static void
say_hit(struct gate_files *f, struct cc_buf *b, const char *part, size_t pn,
    const struct hit *h, int literal)
{
	char tmp[64];

	if (b->len)
		cc_buf_add(b, ", ", 2);
	if (part) {
		cc_buf_add(b, part, pn);
		cc_buf_add(b, " in ", 4);
	}
	cc_buf_add(b, f->f[h->file].rel, strlen(f->f[h->file].rel));
	snprintf(tmp, sizeof tmp, ":%zu%s", h->line, literal ? "" :
	    h->defined ? " (defined)" : " (used)");
	cc_buf_add(b, tmp, strlen(tmp));
}

int
gate_files_find(struct gate_files *f, struct gs name, char *where, size_t wlen)
{
	struct cc_buf b = {0};
	struct hit h;
	size_t end = name.n, i = 0, nparts = 0;
	int found = 1, cut = 0;

	where[0] = '\0';
	if (name.n == 0 || memchr(name.s, '\0', name.n)) {
		snprintf(where, wlen, name.n ? "contains a NUL byte" : "is empty");
		return 0;
	}
	if (f->n == 0) {
		snprintf(where, wlen, "not found: no file of the repository to look in");
		return 0;
	}
	if (elapsed_ms(f) > REPO_MAX_MS) {
		snprintf(where, wlen, "not checked: the check's time limit (%d ms) was reached",
		    REPO_MAX_MS);
		return 0;
	}
	for (size_t k = 0; k < f->n; k++)
		cut |= f->f[k].cut;
	/* a route, a sentence, an expression: the text as it is */
	for (size_t k = 0; k < name.n; k++)
		if (name.s[k] == ' ' || name.s[k] == '\t' || name.s[k] == '/' ||
		    name.s[k] == '"' || name.s[k] == '\'') {
			if (find_in(f, name.s, name.n, 1, &h)) {
				say_hit(f, &b, NULL, 0, &h, 1);
				snprintf(where, wlen, "%s", b.data);
				cc_buf_release(&b);
				return 1;
			}
			snprintf(where, wlen, "not found in the files analyzed%s",
			    cut ? " (larger files were read only in part)" : "");
			return 0;
		}
	/* a called name: what is before its arguments */
	for (size_t k = 0; k < name.n; k++)
		if (name.s[k] == '(') {
			end = k;
			break;
		}
	/* its parts: Class.method, ns::fn, Class#method, obj->field */
	while (i < end && found) {
		size_t s = i;

		while (i < end && ident_byte((unsigned char)name.s[i]))
			i++;
		if (i > s) {
			nparts++;
			if (find_in(f, name.s + s, i - s, 0, &h)) {
				say_hit(f, &b, nparts > 1 || i < end ? name.s + s : NULL,
				    i - s, &h, 0);
			} else {
				int whole = s == 0 && i == name.n;	/* a plain name */

				snprintf(where, wlen, "%s%.*s%snot found in the files analyzed%s",
				    whole ? "" : "'", whole ? 0 : (int)(i - s), name.s + s,
				    whole ? "" : "' ", cut ? " (larger files were read only in part)" : "");
				found = 0;
			}
		}
		while (i < end && !ident_byte((unsigned char)name.s[i]))
			i++;
	}
	if (found && nparts == 0) {
		/* punctuation only ("()", "+"): the text as it is */
		found = find_in(f, name.s, name.n, 1, &h);
		if (found)
			say_hit(f, &b, NULL, 0, &h, 1);
		else
			snprintf(where, wlen, "not found in the files analyzed");
	}
	if (found)
		snprintf(where, wlen, "%s", b.data ? b.data : "");
	cc_buf_release(&b);
	return found;
}

int
gate_repo_target(const struct cc_gate *g, const char *path, char **rel,
    char *why, size_t whylen)
{
	char *norm = py_normpath(path), *full, *real, *dir;
	int rc;

	*rel = NULL;
	if (norm[0] == '/') {
		if (!inside(g->repo, norm)) {
			snprintf(why, whylen, "File '%s' is outside the repository", path);
			free(norm);
			return -1;
		}
		*rel = cc_xstrdup(strlen(norm) > strlen(g->repo) ?
		    norm + strlen(g->repo) + (strcmp(g->repo, "/") != 0) : ".");
	} else if (strcmp(norm, "..") == 0 || strncmp(norm, "../", 3) == 0) {
		snprintf(why, whylen, "File '%s' is outside the repository", path);
		free(norm);
		return -1;
	} else {
		*rel = cc_xstrdup(norm);
	}
	free(norm);
	full = gate_path_join(g->repo, *rel);
	real = realpath(full, NULL);
	rc = real != NULL;
	/* a new file: its nearest existing directory must be inside */
	dir = cc_xstrdup(full);
	while (!real) {
		char *slash = strrchr(dir, '/');

		if (!slash || slash == dir)
			break;
		*slash = '\0';
		real = realpath(dir, NULL);
	}
	if (!real || !inside(g->repo, real)) {
		snprintf(why, whylen, "File '%s' leads outside the repository "
		    "(a symbolic link)", path);
		rc = -1;
		free(*rel);
		*rel = NULL;
	}
	free(real);
	free(dir);
	free(full);
	return rc;
}

int
cc_gate_set_repo(struct cc_gate *g, const char *dir, char *err, size_t errlen)
{
	char *real = realpath(dir, NULL);
	struct stat st;

	if (!real || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "repository '%s': %s", dir,
		    real ? "not a directory" : strerror(errno));
		free(real);
		return -1;
	}
	free(g->repo);
	g->repo = real;
	return 0;
}
