/*
 * `concierge run` in one program (cc_run.h).
 *
 * Five stage processes in a shell pipeline each parse every record and
 * write it again, and the pipes carry every record five times (behind
 * cc-rag, 5 kB of passages each); chained in one process, a record
 * passes from stage to stage as a buffer.  A chain is one process,
 * though, and the pipeline had the machine's cores: so a parent reads
 * the input, deals its records to one worker process a core (each runs
 * the chain) and writes their answers back in input order.  The parent
 * only splits lines, reads a session id and copies bytes.
 *
 * Between parent and worker, records travel in frames: to the worker
 * the input line's number, its record number and length, then the line;
 * back, a length and the chain's output line (with its newline).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_chain.h"
#include "cc_run.h"

static void
no_message(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

size_t
cc_run_stages(const struct cc_config *cfg, struct cc_domain **dp,
    char *names[CC_DOMAIN_MAX_STAGES])
{
	const char *llm = getenv("CC_LLM_BASE_URL");
	struct cc_problems quiet = { no_message, NULL, 0 };
	struct cc_domain *d;
	char *path;
	size_t n = 0;

	*dp = NULL;
	if (getenv("CC_STAGES") || (llm && *llm))
		return 0;
	path = cc_config_domain_path(cfg, CC_DOMAIN_FILE);
	d = cc_domain_parse(path, &quiet);
	free(path);
	if (!d || quiet.n) {
		cc_domain_free(d);
		return 0;
	}
	for (size_t i = 0; i < d->nstages; i++) {
		if (!cc_chain_has(d->pipeline[i])) {
			cc_domain_free(d);
			return 0;
		}
		names[n++] = d->pipeline[i];
	}
	*dp = d;
	return n;
}

/* Open the chain with stderr sent to /dev/null, or to where it was. */
static struct cc_chain *
open_chain(char *const *names, size_t n, int mute, int *status,
    char *err, size_t errlen)
{
	struct cc_chain *c;
	int saved = -1, null;

	if (mute && (saved = dup(2)) >= 0) {
		fflush(stderr);
		if ((null = open("/dev/null", O_WRONLY | O_CLOEXEC)) >= 0) {
			dup2(null, 2);
			close(null);
		}
	}
	c = cc_chain_open_flags(names, n, CC_CHAIN_BATCH, status, err, errlen);
	if (saved >= 0) {
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
	}
	return c;
}

int
cc_run_opens(char *const *names, size_t n)
{
	char err[768];
	int status;
	struct cc_chain *c = open_chain(names, n, 1, &status, err, sizeof err);

	if (!c)
		return 0;
	/* a close says what a run of no records ends with: nothing to say */
	{
		int saved = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 2);
			close(null);
		}
		cc_chain_close(c);
		if (saved >= 0) {
			dup2(saved, 2);
			close(saved);
		}
	}
	return 1;
}

/* ---- writing whole buffers ---- */

/* Write all of b to fd (blocking); 0, or -1 with errno. */
static int
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Write the n pieces of iov to fd (blocking); 0, or -1 with errno.  The
 * pieces are consumed: iov is changed as it is written.
 */
static int
writev_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/*
 * The reader of our output left: end as the pipeline's last stage ends,
 * killed by SIGPIPE (the shell says 141).
 */
static _Noreturn void
reader_left(void)
{
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
	_exit(CC_EXIT_INTERNAL);
}

/*
 * Hand out[] on; ends the process when the reader left.  Records leave
 * whole: SIGINT, SIGTERM and SIGHUP wait until they are written, and
 * then end the process with the signal's status, as in cc_record_run().
 */
static int
hand_on(int fd, struct cc_buf *out)
{
	sigset_t hold, old;
	int rc;

	if (out->len == 0)
		return 0;
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigprocmask(SIG_BLOCK, &hold, &old);
	rc = write_all(fd, out->data, out->len);
	if (rc < 0 && errno == EPIPE)
		reader_left();
	if (rc == 0)
		out->len = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/*
 * Records on their way out that are still in the workers' buffers: the
 * parent hands them on from there (writev), not copied into its output
 * buffer first, since with the passages a record is some 6 kB.  iov[0]
 * is kept for the output buffer, which goes first.
 */
#define PIECES 64
struct pieces {
	struct iovec iov[1 + PIECES];
	int n;
	size_t bytes;
};

/* hand_on() for out, then the pieces. */
static int
hand_on_pieces(int fd, struct cc_buf *out, struct pieces *p)
{
	sigset_t hold, old;
	struct iovec *iov = p->iov + 1;
	int n = p->n, rc;

	if (n == 0)
		return hand_on(fd, out);
	if (out->len) {
		iov--;
		n++;
		iov[0] = (struct iovec){ out->data, out->len };
	}
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigprocmask(SIG_BLOCK, &hold, &old);
	rc = writev_all(fd, iov, n);
	if (rc < 0 && errno == EPIPE)
		reader_left();
	if (rc == 0) {
		out->len = 0;
		p->n = 0;
		p->bytes = 0;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/*
 * The pieces copied into out: before the workers' buffers they point
 * into are read into again.
 */
static void
keep_pieces(struct cc_buf *out, struct pieces *p)
{
	for (int i = 1; i <= p->n; i++)
		cc_buf_add(out, p->iov[i].iov_base, p->iov[i].iov_len);
	p->n = 0;
	p->bytes = 0;
}

/* 1 if fd has something to read (or EOF) within ms milliseconds. */
static int
readable(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int rc;

	while ((rc = poll(&p, 1, ms)) < 0 && errno == EINTR)
		;
	return rc != 0;
}

/*
 * Output is handed on in chunks while more input is ready, and at once
 * when the next read could wait (or after every record, unbuffered), as
 * cc_record_run() does: no record sits in a buffer while input is quiet.
 */
#define CHUNK 65536
/*
 * A worker hands its records to the parent in chunks of this size, and
 * commits its store's batch before each (send): at 256 kB, about forty
 * records, the commits of two workers on one SQLite store were a tenth
 * of their work, and each emptied the other's page cache.  A megabyte
 * is what a stage process with a store hands on (cc_record.c).
 */
#define SEND_CHUNK (1 << 20)

/* ---- one process: the chain over the stream itself ---- */

/* 1 if a whole line waits in f's buffer (glibc; elsewhere assume not). */
static int
line_buffered(FILE *f)
{
#ifdef __GLIBC__
	return f->_IO_read_ptr < f->_IO_read_end &&
	    memchr(f->_IO_read_ptr, '\n', (size_t)(f->_IO_read_end - f->_IO_read_ptr));
#else
	(void)f;
	return 0;
#endif
}

/*
 * The first newline of b at or after at, or NULL; an empty buffer may
 * have no data at all, which memchr must not be given.
 */
static char *
next_nl(const struct cc_buf *b, size_t at)
{
	return at < b->len ? memchr(b->data + at, '\n', b->len - at) : NULL;
}

/*
 * Output that cannot be written is the last stage's to tell, as in the
 * shell pipeline (its own message, its status 5).
 */
static void
cannot_write(const char *last, int err)
{
	const char *was = cc_progname;

	cc_progname = last;
	cc_warn("cannot write output: %s", strerror(err));
	cc_progname = was;
}

static int
run_here(struct cc_chain *c, const char *last, int unbuffered, int in, int outfd)
{
	FILE *f = fdopen(dup(in), "r");
	struct cc_buf out = {0};
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int status, failed = 0, err = 0;
	static char inbuf[1 << 16];

	if (!f)
		cc_die(CC_EXIT_INTERNAL, "cannot read input: %s", strerror(errno));
	setvbuf(f, inbuf, _IOFBF, sizeof inbuf);
	for (;;) {
		int waiting = !line_buffered(f) && !readable(fileno(f), 0);

		if (waiting && out.len)
			cc_chain_flush(c);	/* commit before records leave */
		if (waiting && hand_on(outfd, &out) < 0) {
			failed = 1;
			err = errno;
			break;
		}
		if (waiting && !readable(fileno(f), CC_RECORD_IDLE_MS))
			cc_chain_idle(c);
		if ((n = getline(&line, &cap, f)) < 0)
			break;
		cc_chain_line(c, line, (size_t)n, &out);
		if ((unbuffered || out.len >= SEND_CHUNK) && out.len)
			cc_chain_flush(c);
		if ((unbuffered || out.len >= SEND_CHUNK) && hand_on(outfd, &out) < 0) {
			failed = 1;
			err = errno;
			break;
		}
	}
	free(line);
	if (!failed && ferror(f)) {
		cc_warn("cannot read input: %s", strerror(errno));
		failed = 2;
	}
	fclose(f);
	if (!failed && out.len)
		cc_chain_flush(c);
	if (!failed && hand_on(outfd, &out) < 0) {
		failed = 1;
		err = errno;
	}
	status = cc_chain_close(c);
	if (failed == 1)
		cannot_write(last, err);
	cc_buf_release(&out);
	return failed ? CC_EXIT_INTERNAL : status;
}

/* ---- frames ---- */

#define IN_HEAD 24	/* line number, record number, length: 8 bytes each */
#define OUT_HEAD 8	/* length */

static void
put_u64(char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t
get_u64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* ---- a worker: frames in, the chain, frames out ---- */

/*
 * Hand the records to the parent, their turns and answers committed
 * first (cc_chain_flush): a record never leaves before its turn can be
 * read by whoever reads the output.  The chain's store holds no lock
 * between its commits (CC_SESSION_BATCH), and writes turns and answers
 * one file after the other, so workers on one store never wait for each
 * other's batches, nor hold one file's lock while waiting for the
 * other's.
 */
static int
send(struct cc_chain *c, int fd, struct cc_buf *out)
{
	cc_chain_flush(c);
	if (write_all(fd, out->data, out->len) < 0)
		return -1;
	out->len = 0;
	return 0;
}

static _Noreturn void
worker(char *const *names, size_t n, int unbuffered, int in, int outfd)
{
	struct cc_buf buf = {0}, out = {0};
	size_t at = 0;
	char err[768];
	int status, eof = 0, failed = 0;
	struct cc_chain *c = open_chain(names, n, 0, &status, err, sizeof err);

	if (!c) {
		if (*err)
			cc_warn("%s", err);
		_exit(status ? status : CC_EXIT_INTERNAL);
	}
	for (;;) {
		uint64_t len;

		/* a whole frame waiting: run it */
		if (buf.len - at >= IN_HEAD &&
		    buf.len - at - IN_HEAD >= (len = get_u64(buf.data + at + 16))) {
			const char *p = buf.data + at;
			size_t o = out.len;

			cc_buf_grow_to(&out, OUT_HEAD);
			out.len += OUT_HEAD;
			cc_chain_line_at(c, p + IN_HEAD, (size_t)len,
			    (unsigned long)get_u64(p), (unsigned long)get_u64(p + 8),
			    &out);
			put_u64(out.data + o, out.len - o - OUT_HEAD);
			at += IN_HEAD + (size_t)len;
			if ((unbuffered || out.len >= SEND_CHUNK) && send(c, outfd, &out) < 0) {
				failed = 1;
				break;
			}
			continue;
		}
		if (eof)
			break;
		/* about to read: nothing may wait in a buffer meanwhile */
		if (out.len && !readable(in, 0) && send(c, outfd, &out) < 0) {
			failed = 1;
			break;
		}
		if (!readable(in, 0) && !readable(in, CC_RECORD_IDLE_MS))
			cc_chain_idle(c);
		if (at > 0 && at == buf.len)
			buf.len = at = 0;
		else if (at > (1 << 20)) {
			memmove(buf.data, buf.data + at, buf.len - at);
			buf.len -= at;
			at = 0;
		}
		cc_buf_grow_to(&buf, 1 << 18);
		for (;;) {
			ssize_t r = read(in, buf.data + buf.len, buf.cap - buf.len - 1);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				eof = 1;
			else
				buf.len += (size_t)r;
			break;
		}
	}
	status = cc_chain_close(c);
	if (!failed && write_all(outfd, out.data, out.len) < 0)
		failed = 1;
	/* a parent that left has said why, or was killed with the rest */
	cc_buf_release(&buf);
	cc_buf_release(&out);
	cc_jv_names_release();
	_exit(failed ? CC_EXIT_INTERNAL : status);
}

/* ---- the parent: deal, collect, write in order ---- */

struct hand {
	pid_t pid;
	int to, from, err;	/* -1 once closed */
	struct cc_buf tx;	/* frames to send, from tx_at */
	size_t tx_at;
	struct cc_buf rx;	/* frames received, from rx_at */
	size_t rx_at;
	struct cc_buf msg;	/* the start of a message line */
	size_t waiting;		/* records dealt and not yet written out */
};

/* The ring of workers that records went to, in input order. */
struct order {
	unsigned char *w;
	size_t head, n, cap;
};

static void
order_push(struct order *o, unsigned char w)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 4096;
		unsigned char *nw = cc_xmalloc(cap);

		for (size_t i = 0; i < o->n; i++)
			nw[i] = o->w[(o->head + i) % o->cap];
		free(o->w);
		o->w = nw;
		o->head = 0;
		o->cap = cap;
	}
	o->w[(o->head + o->n++) % o->cap] = w;
}

static int
blank(const char *s, size_t n)
{
	if (n && s[n - 1] == '\n')
		n--;
	if (n && s[n - 1] == '\r')
		n--;
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

static uint64_t
fnv(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/*
 * The workers' messages.  A message about a record names its line and
 * is said once; one a stage says for the whole run (session memory
 * unavailable, an index that cannot be opened) every worker says, and
 * the shell pipeline said it once: so a text is said as often as the
 * worker that said it most often said it, not as often as all of them.
 */
#define MSG_BUCKETS 4096
struct msg {
	struct msg *next;
	unsigned said, n[CC_RUN_MAX_WORKERS];
	size_t len;
	char text[];
};

/*
 * The key a message is known by: its kind when a stage gave one
 * (cc_warn_kind: something given up for the rest of the run, which every
 * worker notices at a record of its own and names that record's line,
 * where the pipeline said it once), else its whole text.  *off and *n:
 * the key within line; *say: where the words to print start.
 */
static void
msg_key(const char *line, size_t len, size_t *off, size_t *n, size_t *say)
{
	const char *end;

	*off = *say = 0;
	*n = len;
	if (len && line[0] == CC_MSG_KIND_START &&
	    (end = memchr(line, CC_MSG_KIND_END, len))) {
		*off = 1;
		*n = (size_t)(end - line) - 1;
		*say = (size_t)(end - line) + 1;
	}
}

static void
say(struct msg **tab, size_t w, const char *line, size_t len)
{
	size_t off, n, words;
	struct msg **b, *m;

	msg_key(line, len, &off, &n, &words);
	b = &tab[fnv(line + off, n) % MSG_BUCKETS];
	for (m = *b; m; m = m->next)
		if (m->len == n && memcmp(m->text, line + off, n) == 0)
			break;
	if (!m) {
		m = cc_xmalloc(sizeof *m + n);
		memset(m, 0, sizeof *m);
		m->len = n;
		memcpy(m->text, line + off, n);
		m->next = *b;
		*b = m;
	}
	if (++m->n[w] > m->said) {
		m->said = m->n[w];
		if (write_all(2, line + words, len - words) < 0) {
			/* nowhere to say it */
		}
	}
}

/* The whole lines of worker w's messages; at the end, the rest too. */
static void
say_lines(struct msg **tab, size_t w, struct cc_buf *b, int end)
{
	size_t at = 0;
	char *nl;

	while ((nl = next_nl(b, at))) {
		say(tab, w, b->data + at, (size_t)(nl - (b->data + at)) + 1);
		at = (size_t)(nl - b->data) + 1;
	}
	if (end && at < b->len) {
		say(tab, w, b->data + at, b->len - at);
		at = b->len;
	}
	if (at) {
		memmove(b->data, b->data + at, b->len - at);
		b->len -= at;
	}
}

/* Records dealt and not yet written out, at most: the workers' lead. */
#define MAX_WAITING 8192

static void
set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/*
 * A worker's records come back through a pipe of a megabyte (Linux's
 * default limit for a user) rather than 64 kB: a worker then blocks,
 * and the parent wakes, once every 150 records instead of every 10.
 * Not being able to is no failure.
 */
static void
big_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
	(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
	(void)fd;
#endif
}

/* Read what fd has into b (room made); 1, 0 at its end, -1 for later. */
static int
take(int fd, struct cc_buf *b)
{
	ssize_t r;

	cc_buf_grow_to(b, 1 << 18);
	r = read(fd, b->data + b->len, b->cap - b->len - 1);
	if (r > 0) {
		b->len += (size_t)r;
		return 1;
	}
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return -1;
	return 0;
}

int
cc_run(char *const *names, size_t n, const struct cc_run_options *o,
    int in, int outfd)
{
	struct hand hands[CC_RUN_MAX_WORKERS];
	struct order ord = {0};
	struct cc_buf inb = {0}, out = {0};
	struct pieces pend;
	struct cc_json_doc doc = {0};
	struct msg **said;
	size_t in_at = 0, nw = o->workers;
	unsigned long line_no = 0, record_no = 0;
	int in_eof = 0, worst = CC_EXIT_OK, stop = 0, write_err = 0;
	void (*was_pipe)(int);

	if (nw == 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);

		nw = cores < 1 ? 1 : (size_t)cores;
	}
	if (nw > CC_RUN_MAX_WORKERS)
		nw = CC_RUN_MAX_WORKERS;
	if (nw == 1) {
		char err[768];
		int status;
		struct cc_chain *c = open_chain(names, n, 0, &status, err, sizeof err);

		if (!c) {
			if (*err)
				cc_warn("%s", err);
			return status ? status : CC_EXIT_INTERNAL;
		}
		return run_here(c, names[n - 1], o->unbuffered, in, outfd);
	}

	memset(hands, 0, sizeof hands);
	pend.n = 0;
	pend.bytes = 0;
	said = cc_xmalloc(MSG_BUCKETS * sizeof *said);
	memset(said, 0, MSG_BUCKETS * sizeof *said);
	fflush(NULL);
	for (size_t i = 0; i < nw; i++) {
		int a[2], b[2], e[2];
		struct hand *h = &hands[i];

		if (pipe(a) < 0 || pipe(b) < 0 || pipe(e) < 0)
			cc_die(CC_EXIT_INTERNAL, "cannot make a pipe: %s", strerror(errno));
		if ((h->pid = fork()) < 0)
			cc_die(CC_EXIT_INTERNAL, "cannot start a worker: %s", strerror(errno));
		if (h->pid == 0) {
			/* only its own ends: a worker must see EOF when the
			   parent closes, not be held open by a sibling's copy */
			for (size_t j = 0; j < i; j++) {
				close(hands[j].to);
				close(hands[j].from);
				close(hands[j].err);
			}
			close(a[1]);
			close(b[0]);
			close(e[0]);
			close(in);
			dup2(e[1], 2);
			close(e[1]);
			cc_message_kinds = 1;
			worker(names, n, o->unbuffered, a[0], b[1]);
		}
		close(a[0]);
		close(b[1]);
		close(e[1]);
		h->to = a[1];
		h->from = b[0];
		h->err = e[0];
		big_pipe(h->from);
		set_nonblock(h->to);
		set_nonblock(h->from);
		set_nonblock(h->err);
	}
	/* a worker that died must not kill us as we write to it */
	was_pipe = signal(SIGPIPE, SIG_IGN);

	for (;;) {
		struct pollfd pf[1 + 3 * CC_RUN_MAX_WORKERS];
		size_t np = 0, pending = 0, open_fds = 0;
		int in_slot = -1, rc;

		/* deal the whole lines read */
		while (ord.n < MAX_WAITING && in_at < inb.len) {
			char *nl = next_nl(&inb, in_at);
			size_t len = nl ? (size_t)(nl - (inb.data + in_at)) + 1 :
			    in_eof ? inb.len - in_at : 0;
			const char *line = inb.data + in_at;
			char *session;
			size_t w = 0;
			struct hand *h;

			if (len == 0)
				break;	/* the rest of a line is still to come */
			in_at += len;
			line_no++;
			if (blank(line, len))
				continue;
			record_no++;
			if ((session = cc_record_line_session(&doc, line, len))) {
				w = (size_t)(fnv(session, strlen(session)) % nw);
				free(session);
			} else {
				for (size_t i = 1; i < nw; i++)
					if (hands[i].waiting < hands[w].waiting)
						w = i;
			}
			h = &hands[w];
			cc_buf_grow_to(&h->tx, IN_HEAD + len);
			put_u64(h->tx.data + h->tx.len, line_no);
			put_u64(h->tx.data + h->tx.len + 8, record_no);
			put_u64(h->tx.data + h->tx.len + 16, len);
			memcpy(h->tx.data + h->tx.len + IN_HEAD, line, len);
			h->tx.len += IN_HEAD + len;
			h->waiting++;
			order_push(&ord, (unsigned char)w);
		}
		if (in_at == inb.len)
			inb.len = in_at = 0;
		/* records, in input order, as far as they have come */
		while (ord.n > 0 && !stop) {
			struct hand *h = &hands[ord.w[ord.head]];
			size_t have = h->rx.len - h->rx_at;
			uint64_t len;

			if (have < OUT_HEAD ||
			    have - OUT_HEAD < (len = get_u64(h->rx.data + h->rx_at))) {
				/* it ended with records still owed: its
				   status says why; the others are stopped */
				if (h->from < 0)
					stop = 1;
				break;
			}
			pend.iov[1 + pend.n++] = (struct iovec){
				h->rx.data + h->rx_at + OUT_HEAD, (size_t)len };
			pend.bytes += (size_t)len;
			h->rx_at += OUT_HEAD + (size_t)len;
			h->waiting--;
			ord.head = (ord.head + 1) % ord.cap;
			ord.n--;
			if ((o->unbuffered || out.len + pend.bytes >= CHUNK ||
			    pend.n == PIECES) && hand_on_pieces(outfd, &out, &pend) < 0) {
				write_err = errno;
				stop = 1;
			}
		}
		keep_pieces(&out, &pend);
		for (size_t i = 0; i < nw; i++) {
			struct hand *h = &hands[i];

			if (h->rx_at == h->rx.len)
				h->rx.len = h->rx_at = 0;
			if (h->tx_at == h->tx.len)
				h->tx.len = h->tx_at = 0;
			pending += h->tx.len - h->tx_at;
			/* all dealt and sent: the worker may finish */
			if (in_eof && inb.len == 0 && h->tx.len == 0 && h->to >= 0) {
				close(h->to);
				h->to = -1;
			}
			open_fds += (h->from >= 0) + (h->err >= 0);
		}
		if (stop || (in_eof && inb.len == 0 && ord.n == 0 && open_fds == 0))
			break;

		/* what to wait for */
		if (!in_eof && ord.n < MAX_WAITING && pending < (4u << 20)) {
			in_slot = (int)np;
			pf[np++] = (struct pollfd){ in, POLLIN, 0 };
		}
		for (size_t i = 0; i < nw; i++) {
			struct hand *h = &hands[i];

			if (h->to >= 0 && h->tx.len > h->tx_at)
				pf[np++] = (struct pollfd){ h->to, POLLOUT, 0 };
			if (h->from >= 0)
				pf[np++] = (struct pollfd){ h->from, POLLIN, 0 };
			if (h->err >= 0)
				pf[np++] = (struct pollfd){ h->err, POLLIN, 0 };
		}
		while ((rc = poll(pf, np, 0)) < 0 && errno == EINTR)
			;
		if (rc == 0) {
			/* nothing to do at once: hand on what is ready, then wait */
			if (hand_on(outfd, &out) < 0) {
				write_err = errno;
				stop = 1;
				break;
			}
			while ((rc = poll(pf, np, -1)) < 0 && errno == EINTR)
				;
		}
		if (rc < 0)
			cc_die(CC_EXIT_INTERNAL, "poll: %s", strerror(errno));

		if (in_slot >= 0 && pf[in_slot].revents) {
			if (in_at > 0) {
				memmove(inb.data, inb.data + in_at, inb.len - in_at);
				inb.len -= in_at;
				in_at = 0;
			}
			cc_buf_grow_to(&inb, 1 << 18);
			for (;;) {
				ssize_t r = read(in, inb.data + inb.len, inb.cap - inb.len - 1);

				if (r < 0 && errno == EINTR)
					continue;
				if (r < 0) {
					cc_warn("cannot read input: %s", strerror(errno));
					worst = CC_EXIT_INTERNAL;
					in_eof = 1;
				} else if (r == 0) {
					in_eof = 1;
				} else {
					inb.len += (size_t)r;
				}
				break;
			}
		}
		for (size_t i = 0, k = in_slot >= 0 ? 1 : 0; i < nw; i++) {
			struct hand *h = &hands[i];

			if (h->to >= 0 && h->tx.len > h->tx_at) {
				if (pf[k].revents) {
					ssize_t w = write(h->to, h->tx.data + h->tx_at,
					    h->tx.len - h->tx_at);

					if (w > 0) {
						h->tx_at += (size_t)w;
					} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
						/* it died: its status says why */
						close(h->to);
						h->to = -1;
						stop = 1;
					}
				}
				k++;
			}
			if (h->from >= 0) {
				if (pf[k].revents) {
					/* moved down once what was read is at
					   least what remains: a worker that is
					   far ahead has megabytes waiting */
					if (h->rx_at > (1 << 20) &&
					    h->rx_at >= h->rx.len - h->rx_at) {
						memmove(h->rx.data, h->rx.data + h->rx_at,
						    h->rx.len - h->rx_at);
						h->rx.len -= h->rx_at;
						h->rx_at = 0;
					}
					if (take(h->from, &h->rx) == 0) {
						close(h->from);
						h->from = -1;
					}
				}
				k++;
			}
			if (h->err >= 0) {
				if (pf[k].revents) {
					int t = take(h->err, &h->msg);

					say_lines(said, i, &h->msg, t == 0);
					if (t == 0) {
						close(h->err);
						h->err = -1;
					}
				}
				k++;
			}
		}
	}
	if (!stop && hand_on(outfd, &out) < 0)
		write_err = errno;
	if (write_err) {
		stop = 1;
		cannot_write(names[n - 1], write_err);
		worst = CC_EXIT_INTERNAL;
	} else if (stop) {
		/*
		 * A worker ended with records owed: the others finish what
		 * they have (their records are not written: the stream stops
		 * at the first lost one) and end with their own status, as the
		 * stages after a killed one do in the shell pipeline.
		 */
		for (;;) {
			struct pollfd pf[2 * CC_RUN_MAX_WORKERS];
			size_t np = 0;

			for (size_t i = 0; i < nw; i++) {
				if (hands[i].to >= 0) {
					close(hands[i].to);
					hands[i].to = -1;
				}
				if (hands[i].from >= 0)
					pf[np++] = (struct pollfd){ hands[i].from, POLLIN, 0 };
				if (hands[i].err >= 0)
					pf[np++] = (struct pollfd){ hands[i].err, POLLIN, 0 };
			}
			if (np == 0)
				break;
			if (poll(pf, np, -1) < 0 && errno != EINTR)
				break;
			for (size_t i = 0; i < nw; i++) {
				struct hand *h = &hands[i];

				h->rx.len = h->rx_at = 0;	/* not written */
				if (h->from >= 0 && take(h->from, &h->rx) == 0) {
					close(h->from);
					h->from = -1;
				}
				if (h->err >= 0) {
					int t = take(h->err, &h->msg);

					say_lines(said, i, &h->msg, t == 0);
					if (t == 0) {
						close(h->err);
						h->err = -1;
					}
				}
			}
		}
	}

	for (size_t i = 0; i < nw; i++) {
		struct hand *h = &hands[i];
		int st;

		int ended = 0;	/* by us: the output cannot be written */
		pid_t done = 0;

		if (h->to >= 0)
			close(h->to);
		/* one that ended already keeps its own status */
		if (write_err && (done = waitpid(h->pid, &st, WNOHANG)) == 0)
			ended = kill(h->pid, SIGTERM) == 0;
		/* what it says as it ends */
		while (h->err >= 0) {
			struct pollfd p = { h->err, POLLIN, 0 };
			int t;

			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				break;
			if ((t = take(h->err, &h->msg)) < 0)
				continue;
			say_lines(said, i, &h->msg, t == 0);
			if (t == 0) {
				close(h->err);
				h->err = -1;
			}
		}
		while (done <= 0 && waitpid(h->pid, &st, 0) < 0 && errno == EINTR)
			;
		if (h->from >= 0)
			close(h->from);
		if (WIFEXITED(st))
			st = WEXITSTATUS(st);
		else if (ended && WTERMSIG(st) == SIGTERM)
			st = CC_EXIT_OK;	/* ended by us: status 5 says why */
		else
			st = 128 + WTERMSIG(st);	/* as the shell says it */
		if (st > worst)
			worst = st;
		cc_buf_release(&h->tx);
		cc_buf_release(&h->rx);
		cc_buf_release(&h->msg);
	}
	signal(SIGPIPE, was_pipe);
	for (size_t i = 0; i < MSG_BUCKETS; i++)
		for (struct msg *m = said[i], *next; m; m = next) {
			next = m->next;
			free(m);
		}
	free(said);
	free(ord.w);
	cc_buf_release(&inb);
	cc_buf_release(&out);
	cc_json_doc_release(&doc);
	return worst;
}
