/*
 * cc_pipe.c: run the pipeline's stages as child processes, for the
 * programs that drive it (cc-chat, cc-eval).
 *
 * The stages are exec'd directly, connected by pipes, in a process group
 * of their own: no shell ever sees a user's text, and cancelling an
 * answer is one kill() of the group.  The list of stages is the concierge
 * driver's (concierge stages --path), or CC_STAGES.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_pipe.h"

static void
list_add(char ***v, size_t *n, const char *s, size_t len)
{
	char *p = cc_xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	*v = cc_xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = p;
	(*v)[*n] = NULL;
}

/* Split text at any of the separators, dropping empty items. */
static char **
split(const char *s, const char *seps, size_t *n)
{
	char **v = cc_xmalloc(sizeof *v);

	*n = 0;
	v[0] = NULL;
	while (*s) {
		size_t k = strcspn(s, seps);

		if (k > 0)
			list_add(&v, n, s, k);
		s += k;
		if (*s)
			s++;
	}
	return v;
}

/* The concierge driver beside this program, else the one in PATH. */
static char *
find_driver(void)
{
	char self[PATH_MAX], *slash;
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 16);

	if (k > 0) {
		self[k] = '\0';
		if ((slash = strrchr(self, '/'))) {
			strcpy(slash + 1, "concierge");
			if (access(self, X_OK) == 0)
				return cc_xstrdup(self);
		}
	}
	return cc_xstrdup("concierge");
}

char **
cc_stages_find(size_t *n, char *err, size_t errlen)
{
	const char *env = getenv("CC_STAGES");
	struct cc_buf out = {0};
	char **v, *driver, buf[4096];
	int fd[2], status;
	ssize_t k;
	pid_t pid;

	*n = 0;
	if (env)
		return split(env, ":", n);
	driver = find_driver();
	if (pipe(fd) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		free(driver);
		return NULL;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		free(driver);
		return NULL;
	}
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execlp(driver, "concierge", "stages", "--path", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while ((k = read(fd[0], buf, sizeof buf)) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		cc_buf_add(&out, buf, (size_t)k);
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !out.data) {
		snprintf(err, errlen, "cannot list the stages with '%s stages --path'%s",
		    driver, WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
		    ": not found (set CC_STAGES)" : "");
		free(driver);
		cc_buf_release(&out);
		return NULL;
	}
	free(driver);
	v = split(out.data, "\n", n);
	cc_buf_release(&out);
	return v;
}

void
cc_stages_free(char **stages)
{
	for (size_t i = 0; stages && stages[i]; i++)
		free(stages[i]);
	free(stages);
}

const char *
cc_stage_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void
set_cloexec(int fd)
{
	fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int
cc_pipe_start(struct cc_pipe *p, char *const *stages, size_t n,
    const char *const *env, char *err, size_t errlen)
{
	int in[2], prev = -1;

	memset(p, 0, sizeof *p);
	p->in = p->out = -1;
	if (n == 0 || n > CC_PIPE_MAX) {
		snprintf(err, errlen, "%s", n ? "too many stages" : "no stages to run");
		return -1;
	}
	if (pipe(in) < 0)
		goto fail;
	set_cloexec(in[1]);
	prev = in[0];
	p->in = in[1];
	fflush(NULL);
	for (size_t i = 0; i < n; i++) {
		int out[2];
		pid_t pid;

		if (pipe(out) < 0)
			goto fail;
		set_cloexec(out[0]);
		if ((pid = fork()) < 0) {
			close(out[0]);
			close(out[1]);
			goto fail;
		}
		if (pid == 0) {
			/* the child: its own group, pipes on 0 and 1, default signals */
			setpgid(0, p->pgid);
			signal(SIGINT, SIG_DFL);
			signal(SIGPIPE, SIG_DFL);
			dup2(prev, 0);
			dup2(out[1], 1);
			close(prev);
			close(out[1]);
			if (p->in >= 0)
				close(p->in);
			for (size_t e = 0; env && env[e]; e += 2)
				setenv(env[e], env[e + 1], 1);
			execvp(stages[i], (char *const[]){ stages[i], NULL });
			fprintf(stderr, "%s: cannot run '%s': %s\n", cc_progname,
			    stages[i], strerror(errno));
			_exit(127);
		}
		if (p->pgid == 0)
			p->pgid = pid;
		setpgid(pid, p->pgid);	/* both sides, against the race */
		p->pids[p->n++] = pid;
		close(prev);
		close(out[1]);
		prev = out[0];
	}
	p->out = prev;
	return 0;
fail:
	snprintf(err, errlen, "cannot start the pipeline: %s", strerror(errno));
	if (prev >= 0)
		close(prev);
	cc_pipe_kill(p);
	cc_pipe_finish(p);
	return -1;
}

int
cc_pipe_alive(struct cc_pipe *p)
{
	struct pollfd pf = { p->out, POLLIN, 0 };

	if (p->out < 0 || p->in < 0 || poll(&pf, 1, 0) != 0)
		return 0;
	for (size_t i = 0; i < p->n; i++) {
		siginfo_t si;

		si.si_pid = 0;
		if (waitid(P_PID, (id_t)p->pids[i], &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
		    si.si_pid != 0)
			return 0;
	}
	return 1;
}

void
cc_pipe_kill(struct cc_pipe *p)
{
	if (p->pgid > 0 && p->n > 0) {
		kill(-p->pgid, SIGTERM);
		p->killed = 1;
	}
}

int
cc_pipe_finish(struct cc_pipe *p)
{
	int worst = 0;

	if (p->in >= 0)
		close(p->in);
	if (p->out >= 0)
		close(p->out);
	p->in = p->out = -1;
	for (size_t i = 0; i < p->n; i++) {
		int st, code;

		while (waitpid(p->pids[i], &st, 0) < 0) {
			if (errno != EINTR) {
				st = 0;
				break;
			}
		}
		if (WIFEXITED(st))	/* outside the shared table: 127 no program */
			code = WEXITSTATUS(st) == 127 ? CC_EXIT_USAGE :
			    WEXITSTATUS(st) > CC_EXIT_INTERNAL ? CC_EXIT_INTERNAL :
			    WEXITSTATUS(st);
		else
			code = p->killed ? 0 : CC_EXIT_INTERNAL;
		p->status[i] = code;
		/* a stage that stopped because the next one did is not at fault */
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE && i + 1 < p->n)
			code = 0;
		if (code > worst)
			worst = code;
	}
	p->n = 0;
	p->pgid = 0;
	return worst;
}
