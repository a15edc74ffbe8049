/*
 * Bounded helper processes: fork, exec (no shell), poll the pipes against
 * a deadline, kill the group on timeout or when the output cap is reached.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_spawn.h"

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
cloexec_pipe(int fd[2])
{
	return pipe2(fd, O_CLOEXEC);
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int
cc_spawn_run(struct cc_spawn *s, char *const argv[], struct cc_buf *out, struct cc_buf *err)
{
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, pi[2] = {-1, -1}, ex[2] = {-1, -1};
	size_t in_at = 0, got_err = 0;
	long deadline = s->timeout_ms > 0 ? now_ms() + s->timeout_ms : 0;
	int wst = 0, killed = 0, e = 0;
	pid_t pid;
	ssize_t n;

	s->status = -1;
	s->timed_out = s->truncated = s->exec_errno = 0;
	cc_buf_add(out, "", 0);
	if (cloexec_pipe(po) < 0 || cloexec_pipe(pe) < 0 || cloexec_pipe(ex) < 0 ||
	    (s->input && cloexec_pipe(pi) < 0)) {
		s->exec_errno = errno;
		goto fail;
	}
	if ((pid = fork()) < 0) {
		s->exec_errno = errno;
		goto fail;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(s->input ? pi[0] : devnull, 0) < 0 || dup2(po[1], 1) < 0 ||
		    dup2(pe[1], 2) < 0 || (s->dir && chdir(s->dir) < 0)) {
			e = errno;
		} else {
			execvp(argv[0], argv);
			e = errno;
		}
		if (write(ex[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(pid, pid);	/* both sides: no race with the kill below */
	close_fd(&po[1]);
	close_fd(&pe[1]);
	close_fd(&ex[1]);
	close_fd(&pi[0]);
	if ((n = read(ex[0], &e, sizeof e)) == (ssize_t)sizeof e) {
		s->exec_errno = e;
		waitpid(pid, &wst, 0);
		goto fail;
	}
	close_fd(&ex[0]);
	if (pi[1] >= 0)
		fcntl(pi[1], F_SETFL, O_NONBLOCK);
	if (pi[1] >= 0 && !s->input_len)
		close_fd(&pi[1]);
	while (po[0] >= 0 || pe[0] >= 0) {
		struct pollfd fds[3];
		int nf = 0, wait = -1;
		char chunk[65536];

		if (deadline) {
			long left = deadline - now_ms();

			if (left <= 0) {
				s->timed_out = 1;
				break;
			}
			wait = (int)(left > 1000000 ? 1000000 : left);
		}
		if (po[0] >= 0)
			fds[nf++] = (struct pollfd){ .fd = po[0], .events = POLLIN };
		if (pe[0] >= 0)
			fds[nf++] = (struct pollfd){ .fd = pe[0], .events = POLLIN };
		if (pi[1] >= 0)
			fds[nf++] = (struct pollfd){ .fd = pi[1], .events = POLLOUT };
		if (poll(fds, (nfds_t)nf, wait) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < nf; i++) {
			if (!fds[i].revents)
				continue;
			if (fds[i].fd == pi[1]) {
				n = write(pi[1], s->input + in_at, s->input_len - in_at);
				if (n > 0)
					in_at += (size_t)n;
				if ((n < 0 && errno != EAGAIN) || in_at == s->input_len)
					close_fd(&pi[1]);
				continue;
			}
			n = read(fds[i].fd, chunk, sizeof chunk);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close_fd(fds[i].fd == po[0] ? &po[0] : &pe[0]);
				continue;
			}
			if (fds[i].fd == po[0]) {
				size_t room = s->out_cap - (out->len < s->out_cap ?
				    out->len : s->out_cap);

				cc_buf_add(out, chunk, (size_t)n < room ? (size_t)n : room);
				if ((size_t)n > room) {
					s->truncated = 1;
					close_fd(&po[0]);
					close_fd(&pe[0]);
				}
			} else if (err && got_err < s->err_cap) {
				size_t room = s->err_cap - got_err;

				cc_buf_add(err, chunk, (size_t)n < room ? (size_t)n : room);
				got_err += (size_t)n < room ? (size_t)n : room;
			}
		}
	}
	if (s->timed_out || s->truncated) {
		kill(-pid, SIGKILL);
		killed = 1;
	}
	close_fd(&po[0]);
	close_fd(&pe[0]);
	close_fd(&pi[1]);
	while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(wst))
		s->status = WEXITSTATUS(wst);
	else if (WIFSIGNALED(wst))
		s->status = 128 + WTERMSIG(wst);
	if (killed)	/* what it left behind in its group */
		kill(-pid, SIGKILL);
	return 0;
fail:
	close_fd(&po[0]);
	close_fd(&po[1]);
	close_fd(&pe[0]);
	close_fd(&pe[1]);
	close_fd(&pi[0]);
	close_fd(&pi[1]);
	close_fd(&ex[0]);
	close_fd(&ex[1]);
	return -1;
}
