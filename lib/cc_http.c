/*
 * A small HTTP client over libcurl, shared by everything that reaches
 * outside (see the contract in cc_http.h).  What it guarantees, in the code
 * below: libcurl initialised once; connect and total timeouts always; the
 * body capped (after decompression) by the write callback; http and https
 * only, TLS verification left on; headers never logged or cached; an
 * on-disk cache with conditional GET; requests to one service spaced
 * across processes with a lock file.
 *
 * libcurl is loaded with dlopen() when the first request is made, not
 * linked: linking it brings some thirty libraries (TLS, Kerberos, LDAP,
 * ...) whose loading cost every process about 2.6 ms at start, while
 * most runs never reach outside (systemd loads its optional libraries
 * the same way).  The header still gives every call its prototype.
 */
#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <stdint.h>
#include <stdio.h>
#include <curl/curl.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_http.h"

/* The libcurl functions used here, resolved from the loaded library. */
#define CURL_FUNCTIONS(X) \
	X(global_init) X(global_cleanup) X(easy_init) X(easy_setopt) \
	X(easy_perform) X(easy_getinfo) X(easy_cleanup) X(easy_strerror) \
	X(slist_append) X(slist_free_all)

static struct {
	void *dl;
	int ready;		/* loaded and globally initialised */
#define X(f) __typeof__(curl_##f) *f;
	CURL_FUNCTIONS(X)
#undef X
} curl;

/* Load and initialise libcurl once; -1 with a message in err if it cannot. */
static int
global_init(char *err, size_t errlen)
{
	/* ABI 4 since 2006; the unversioned name only where a -dev is installed */
	static const char *const names[] = { "libcurl.so.4", "libcurl.so", NULL };
#define X(f) #f,
	static const char *const syms[] = { CURL_FUNCTIONS(X) NULL };
#undef X
#define X(f) (void **)&curl.f,
	static void **const slots[] = { CURL_FUNCTIONS(X) };
#undef X

	if (curl.ready)
		return 0;
	if (!(curl.dl = cc_dl_load("libcurl", names, "curl_", syms, slots, err, errlen)))
		return -1;
	if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, errlen, "cannot start libcurl");
		dlclose(curl.dl);
		curl.dl = NULL;
		return -1;
	}
	curl.ready = 1;
	return 0;
}

void
cc_http_cleanup(void)
{
	/*
	 * The library is not dlclose()d: libcurl's TLS and resolver libraries
	 * keep thread-local storage, and unloading them leaves the main
	 * thread's dynamic TLS vector pointing at freed blocks, which made
	 * LeakSanitizer's exit check crash (stop 24).  The process is ending.
	 */
	if (curl.ready)
		curl.global_cleanup();
	memset(&curl, 0, sizeof curl);
}

char *
cc_http_redact(const char *url)
{
	const char *p = strstr(url, "://");
	const char *host, *end;
	size_t n;
	char *out;

	if (!p)
		return cc_xstrdup("(url)");
	host = p + 3;
	/* drop user:password@ */
	end = host + strcspn(host, "/?#");
	for (const char *at = host; at < end; at++)
		if (*at == '@')
			host = at + 1;
	n = (size_t)(p - url) + 3 + (size_t)(end - host) + sizeof "/...";
	out = cc_xmalloc(n);
	snprintf(out, n, "%.*s://%.*s%s", (int)(p - url), url, (int)(end - host),
	    host, *end ? "/..." : "");
	return out;
}

void
cc_http_urlencode(struct cc_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
			cc_buf_add(b, s, 1);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };

			cc_buf_add(b, e, 3);
		}
	}
}

char *
cc_http_cache_dir(void)
{
	const char *d = getenv("CC_CACHE_DIR");

	return d && *d ? cc_xstrdup(d) : cc_xdg_dir("XDG_CACHE_HOME", ".cache");
}

/* ---- the disk cache: <dir>/http/<hash>.meta and .body ---- */

struct cache_entry {
	char *etag, *last_modified;
	time_t fetched;
	struct cc_buf body;
	int valid;
};

static uint64_t
fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static char *
cache_path(const char *key, const char *ext)
{
	char *dir = cc_http_cache_dir();
	size_t n = strlen(dir) + 64;
	char *p = cc_xmalloc(n);

	snprintf(p, n, "%s/http/%016llx.%s", dir, (unsigned long long)fnv1a(key), ext);
	free(dir);
	return p;
}

static int
read_file(const char *path, struct cc_buf *b, size_t max)
{
	char chunk[65536];
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((got = read(fd, chunk, sizeof chunk)) > 0) {
		if (b->len + (size_t)got > max) {
			close(fd);
			return -1;
		}
		cc_buf_add(b, chunk, (size_t)got);
	}
	close(fd);
	if (!b->data)
		cc_buf_add(b, "", 0);
	return got < 0 ? -1 : 0;
}

static void
cache_entry_release(struct cache_entry *c)
{
	free(c->etag);
	free(c->last_modified);
	cc_buf_release(&c->body);
	*c = (struct cache_entry){0};
}

/* The meta file holds: the key, the validators and when it was fetched. */
static void
cache_read(const char *key, size_t max, struct cache_entry *c)
{
	char *mp = cache_path(key, "meta"), *bp = cache_path(key, "body");
	struct cc_buf m = {0};
	char *line, *save = NULL;
	int key_ok = 0;

	*c = (struct cache_entry){0};
	if (read_file(mp, &m, 65536) == 0) {
		for (line = strtok_r(m.data, "\n", &save); line;
		    line = strtok_r(NULL, "\n", &save)) {
			if (strncmp(line, "key ", 4) == 0)
				key_ok = strcmp(line + 4, key) == 0;
			else if (strncmp(line, "etag ", 5) == 0)
				c->etag = cc_xstrdup(line + 5);
			else if (strncmp(line, "last-modified ", 14) == 0)
				c->last_modified = cc_xstrdup(line + 14);
			else if (strncmp(line, "fetched ", 8) == 0)
				c->fetched = (time_t)strtoll(line + 8, NULL, 10);
		}
		if (key_ok && read_file(bp, &c->body, max) == 0)
			c->valid = 1;
	}
	if (!c->valid)
		cache_entry_release(c);
	cc_buf_release(&m);
	free(mp);
	free(bp);
}

/* Write a file through a temporary name, so readers never see half of it. */
static int
write_atomic(const char *path, const char *data, size_t n)
{
	size_t tn = strlen(path) + 32;
	char *tmp = cc_xmalloc(tn);
	int fd, ok;

	snprintf(tmp, tn, "%s.%ld.tmp", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	ok = write(fd, data, n) == (ssize_t)n;
	ok = close(fd) == 0 && ok;
	ok = ok && rename(tmp, path) == 0;
	if (!ok)
		unlink(tmp);
	free(tmp);
	return ok ? 0 : -1;
}

static void
cache_write(const char *key, const struct cache_entry *c)
{
	char *dir = cc_http_cache_dir(), *sub, *mp, *bp;
	struct cc_buf m = {0};
	size_t n = strlen(dir) + sizeof "/http";
	char num[32];

	sub = cc_xmalloc(n);
	snprintf(sub, n, "%s/http", dir);
	free(dir);
	if (cc_mkdirs(sub) < 0 || strchr(key, '\n')) {
		free(sub);
		return;
	}
	free(sub);
	mp = cache_path(key, "meta");
	bp = cache_path(key, "body");
	cc_buf_add(&m, "key ", 4);
	cc_buf_add(&m, key, strlen(key));
	cc_buf_add(&m, "\n", 1);
	if (c->etag) {
		cc_buf_add(&m, "etag ", 5);
		cc_buf_add(&m, c->etag, strlen(c->etag));
		cc_buf_add(&m, "\n", 1);
	}
	if (c->last_modified) {
		cc_buf_add(&m, "last-modified ", 14);
		cc_buf_add(&m, c->last_modified, strlen(c->last_modified));
		cc_buf_add(&m, "\n", 1);
	}
	snprintf(num, sizeof num, "fetched %lld\n", (long long)c->fetched);
	cc_buf_add(&m, num, strlen(num));
	/* body first: a meta file never points at a missing body */
	if (write_atomic(bp, c->body.data ? c->body.data : "", c->body.len) == 0)
		write_atomic(mp, m.data, m.len);
	cc_buf_release(&m);
	free(mp);
	free(bp);
}

/* ---- spacing requests to one service ---- */

static long long
now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/*
 * Wait until min_interval_ms have passed since the last request with this
 * key, by any process: the time is kept in a file under an exclusive lock
 * held across the wait, so concurrent processes queue up.  Returns the
 * descriptor to release after the request is sent, or -1.
 */
static int
rate_wait(const char *key, long min_interval_ms)
{
	char *dir = cc_http_cache_dir(), *path;
	size_t n = strlen(dir) + strlen(key) + sizeof "/rate/.last";
	char buf[32] = "";
	long long last, wait;
	ssize_t got;
	int fd;

	path = cc_xmalloc(n);
	snprintf(path, n, "%s/rate", dir);
	free(dir);
	if (cc_mkdirs(path) < 0) {
		free(path);
		return -1;
	}
	strcat(path, "/");
	strcat(path, key);
	strcat(path, ".last");
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	free(path);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX) < 0) {
		close(fd);
		return -1;
	}
	got = pread(fd, buf, sizeof buf - 1, 0);
	last = got > 0 ? strtoll(buf, NULL, 10) : 0;
	wait = last + min_interval_ms - now_ms();
	if (wait > 0 && wait <= min_interval_ms) {
		struct timespec ts = { wait / 1000, (wait % 1000) * 1000000L };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	return fd;
}

static void
rate_done(int fd)
{
	char buf[32];
	int n;

	if (fd < 0)
		return;
	n = snprintf(buf, sizeof buf, "%lld\n", now_ms());
	/* best effort: if this fails, the next request just waits less */
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)n, 0) != n)
		n = 0;
	flock(fd, LOCK_UN);
	close(fd);
}

/* ---- one transfer ---- */

struct transfer {
	struct cc_buf *body;
	const struct cc_http_request *req;
	size_t max;
	int too_large;
	char *etag, *last_modified;
	char *content_type;
};

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
	struct transfer *t = arg;
	size_t len = size * n;

	if (t->body->len + len > t->max) {
		t->too_large = 1;
		return 0;	/* aborts the transfer */
	}
	cc_buf_add(t->body, p, len);
	if (t->req->on_data)	/* a streamed answer: hand each piece on */
		t->req->on_data(p, len, t->req->on_data_arg);
	return len;
}

static char *
header_value(const char *p, size_t len, const char *name)
{
	size_t k = strlen(name);
	const char *v, *e;

	if (len <= k || strncasecmp(p, name, k) != 0 || p[k] != ':')
		return NULL;
	v = p + k + 1;
	e = p + len;
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
		e--;
	if (e - v > 512 || memchr(v, '\n', (size_t)(e - v)))
		return NULL;
	{
		char *s = cc_xmalloc((size_t)(e - v) + 1);

		memcpy(s, v, (size_t)(e - v));
		s[e - v] = '\0';
		return s;
	}
}

static size_t
on_header(char *p, size_t size, size_t n, void *arg)
{
	struct transfer *t = arg;
	size_t len = size * n;
	char *v;

	if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) {
		/* a new response (after a redirect or 100): forget the last */
		free(t->etag);
		free(t->last_modified);
		free(t->content_type);
		t->etag = t->last_modified = t->content_type = NULL;
	} else if ((v = header_value(p, len, "ETag"))) {
		free(t->etag);
		t->etag = v;
	} else if ((v = header_value(p, len, "Last-Modified"))) {
		free(t->last_modified);
		t->last_modified = v;
	} else if ((v = header_value(p, len, "Content-Type"))) {
		free(t->content_type);
		t->content_type = v;
	}
	return len;
}

static void
set_error(struct cc_http_response *res, const char *code, const char *fmt,
    const char *host, const char *detail)
{
	res->error_code = code;
	snprintf(res->error, sizeof res->error, fmt, host, detail);
}

int
cc_http_fetch(const struct cc_http_request *req, struct cc_http_response *res)
{
	struct cache_entry cached = {0};
	struct curl_slist *hdrs = NULL;
	struct transfer t = {0};
	char errbuf[CURL_ERROR_SIZE] = "", loaderr[160], *host, *tmp = NULL;
	struct cc_buf fresh = {0};
	long connect_ms = req->connect_timeout_ms ? req->connect_timeout_ms : 5000;
	long total_ms = req->timeout_ms ? req->timeout_ms : 15000;
	size_t max = req->max_bytes ? req->max_bytes : (8u << 20);
	int rate_fd = -1, rc = -1;
	CURLcode cr;
	CURL *h;

	*res = (struct cc_http_response){0};
	host = cc_http_redact(req->url);
	if (strncmp(req->url, "http://", 7) != 0 && strncmp(req->url, "https://", 8) != 0) {
		set_error(res, "network", "%s: only http and https URLs%s", host, "");
		free(host);
		return -1;
	}
	if (connect_ms > total_ms)
		connect_ms = total_ms;
	if (req->cache_key && !req->body) {
		cache_read(req->cache_key, max, &cached);
		if (cached.valid && req->max_age > 0 &&
		    time(NULL) - cached.fetched < req->max_age &&
		    time(NULL) >= cached.fetched) {
			res->body = cached.body;
			cached.body = (struct cc_buf){0};
			res->from_cache = 1;
			res->status = 200;
			cache_entry_release(&cached);
			free(host);
			return 0;
		}
	}
	if (global_init(loaderr, sizeof loaderr) < 0) {
		set_error(res, "network", "%s: %s", host, loaderr);
		goto done;
	}
	if (!(h = curl.easy_init())) {
		set_error(res, "network", "%s: cannot start libcurl%s", host, "");
		goto done;
	}
	t.body = &fresh;
	t.req = req;
	t.max = max;
	curl.easy_setopt(h, CURLOPT_URL, req->url);
	curl.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	curl.easy_setopt(h, CURLOPT_TIMEOUT_MS, total_ms);
	curl.easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
	curl.easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl.easy_setopt(h, CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
	curl.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl.easy_setopt(h, CURLOPT_WRITEDATA, &t);
	curl.easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl.easy_setopt(h, CURLOPT_HEADERDATA, &t);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl.easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	curl.easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	curl.easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	/* a key in a header must not follow a redirect to another host */
	if (req->follow_redirects && !req->secret_headers) {
		curl.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
		curl.easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	}
	for (const char *const *hp = req->headers; hp && *hp; hp++)
		hdrs = curl.slist_append(hdrs, *hp);
	if (cached.valid && cached.etag) {
		size_t n = strlen(cached.etag) + sizeof "If-None-Match: ";

		tmp = cc_xmalloc(n);
		snprintf(tmp, n, "If-None-Match: %s", cached.etag);
		hdrs = curl.slist_append(hdrs, tmp);
		free(tmp);
	}
	if (cached.valid && cached.last_modified) {
		size_t n = strlen(cached.last_modified) + sizeof "If-Modified-Since: ";

		tmp = cc_xmalloc(n);
		snprintf(tmp, n, "If-Modified-Since: %s", cached.last_modified);
		hdrs = curl.slist_append(hdrs, tmp);
		free(tmp);
	}
	if (hdrs)
		curl.easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	if (req->body) {
		curl.easy_setopt(h, CURLOPT_POSTFIELDS, req->body);
		curl.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
	}
	if (req->rate_key && req->min_interval_ms > 0)
		rate_fd = rate_wait(req->rate_key, req->min_interval_ms);
	cr = curl.easy_perform(h);
	rate_done(rate_fd);
	curl.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &res->status);
	curl.slist_free_all(hdrs);
	curl.easy_cleanup(h);

	if (cr != CURLE_OK) {
		if (t.too_large || cr == CURLE_FILESIZE_EXCEEDED) {
			res->error_code = "too_large";
			snprintf(res->error, sizeof res->error,
			    "%s: the answer is larger than %zu bytes", host, max);
		} else if (cr == CURLE_OPERATION_TIMEDOUT)
			set_error(res, "timeout", "%s: timed out (%s)", host, errbuf);
		else if (cr == CURLE_COULDNT_CONNECT || cr == CURLE_COULDNT_RESOLVE_HOST)
			set_error(res, "connect", "%s: cannot connect (%s)", host, errbuf);
		else
			set_error(res, "network", "%s: %s", host,
			    *errbuf ? errbuf : curl.easy_strerror(cr));
		goto done;
	}
	if (res->status == 304 && cached.valid) {
		res->body = cached.body;
		cached.body = (struct cc_buf){0};
		res->from_cache = 1;
		/* same validators, same body: only the time it was checked */
		cached.fetched = time(NULL);
		cached.body = res->body;
		cache_write(req->cache_key, &cached);
		cached.body = (struct cc_buf){0};
		rc = 0;
		goto done;
	}
	if (res->status < 200 || res->status > 299) {
		char st[16];

		snprintf(st, sizeof st, "%ld", res->status);
		set_error(res, res->status == 429 ? "rate_limited" : "http_status",
		    "%s: HTTP status %s", host, st);
		goto done;
	}
	if (!fresh.data)
		cc_buf_add(&fresh, "", 0);
	res->body = fresh;
	fresh = (struct cc_buf){0};
	if (req->cache_key && !req->body) {
		struct cache_entry c = { .etag = t.etag, .last_modified = t.last_modified,
		    .fetched = time(NULL), .body = res->body };

		cache_write(req->cache_key, &c);
	}
	rc = 0;
done:
	if (rc < 0 && cached.valid) {
		/* a stale copy beats nothing; the error stays set */
		cc_buf_release(&res->body);
		res->body = cached.body;
		cached.body = (struct cc_buf){0};
		res->stale = 1;
	}
	cc_buf_release(&fresh);
	cache_entry_release(&cached);
	free(t.etag);
	free(t.last_modified);
	free(t.content_type);
	free(host);
	return rc;
}

void
cc_http_response_release(struct cc_http_response *res)
{
	cc_buf_release(&res->body);
	*res = (struct cc_http_response){0};
}
