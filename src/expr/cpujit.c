/* cpujit.c - compiled CPU code for a checked tree: its C source piped into the system C compiler,
 * which writes a shared object into a private temporary directory; the object is loaded with
 * dlopen and the directory removed at once, so no file outlives the call. A cache keyed by the
 * source lets the second run of an integrand compile nothing. */
#include "tree.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* How long the compiler may run before it is stopped, in milliseconds. */
#define JIT_TIMEOUT_MS 60000.0
/* How many lines of the compiler's messages an error quotes. */
#define JIT_ERR_LINES 4

/* One compiled integrand: the source it came from, its loaded object and functions. */
struct jit_entry {
	char *source;
	void *handle;
	struct expr_cpu_fn fn;
};

struct expr_jit_cache {
	struct jit_entry *e;
	int n, cap;
};

struct expr_jit_cache *expr_jit_cache_new(void)
{
	return calloc(1, sizeof(struct expr_jit_cache));
}

void expr_jit_cache_free(struct expr_jit_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++) {
		dlclose(c->e[i].handle);
		free(c->e[i].source);
	}
	free(c->e);
	free(c);
}

int expr_jit_cache_count(const struct expr_jit_cache *c)
{
	return c ? c->n : 0;
}

/* Writes into path (size cap) the compiler to run: $QUADX_CC when set (a path, or a name looked
 * up in PATH), else cc in PATH. Returns 0, or -1 when no executable file is found. */
static int find_compiler(char *path, size_t cap)
{
	const char *cc = getenv("QUADX_CC"), *dirs = getenv("PATH");
	if (!cc || !*cc)
		cc = "cc";
	if (strchr(cc, '/')) {
		snprintf(path, cap, "%s", cc);
		return access(path, X_OK);
	}
	while (dirs && *dirs) {
		size_t n = strcspn(dirs, ":");
		if ((size_t)snprintf(path, cap, "%.*s/%s", (int)(n ? n : 1), n ? dirs : ".", cc) <
		        cap &&
		    access(path, X_OK) == 0)
			return 0;
		dirs += n + (dirs[n] == ':');
	}
	return -1;
}

/* Removes dir and the plain files in it (the object, and whatever the compiler left there when
 * it was stopped). */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	if (d) {
		while ((ent = readdir(d)) != NULL)
			if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, ".."))
				unlinkat(dirfd(d), ent->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

/* Returns a copy of environ (malloc'd array, its strings shared) with TMPDIR set to tmpdir
 * (tmpvar holds "TMPDIR=..."), so that the compiler's own temporary files land in the private
 * directory too; NULL when out of memory. */
static char **child_env(char *tmpvar)
{
	size_t n = 0, k = 0;
	char **env;
	while (environ && environ[n])
		n++;
	env = malloc((n + 2) * sizeof *env);
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "TMPDIR=", 7) != 0)
			env[k++] = environ[i];
	env[k++] = tmpvar;
	env[k] = NULL;
	return env;
}

/* Feeds src to the compiler's stdin (a socket: a compiler that exits early gives EPIPE, not
 * SIGPIPE) while collecting its messages into msg (size cap, the first bytes kept), until it
 * closes its output; stops it when cancelled or after JIT_TIMEOUT_MS. Returns 0, or -1 with the
 * reason in e (the compiler then killed). */
static int talk(pid_t pid, int in, int errfd, const char *src, char *msg, size_t cap,
                struct qx_err *e)
{
	size_t sent = 0, len = strlen(src), got = 0;
	double start = qx_now_ms();
	msg[0] = '\0';
	for (;;) {
		struct pollfd p[2] = {{errfd, POLLIN, 0}, {in, POLLOUT, 0}};
		int np = in >= 0 ? 2 : 1;
		if (qx_cancelled() || qx_now_ms() - start > JIT_TIMEOUT_MS) {
			kill(pid, SIGKILL);
			return qx_fail(e, "cannot compile the integrand on the CPU: %s",
			               qx_cancelled() ? "cancelled"
			                              : "the C compiler did not finish");
		}
		if (poll(p, (nfds_t)np, 100) < 0 && errno != EINTR) {
			kill(pid, SIGKILL);
			return qx_fail(e, "cannot compile the integrand on the CPU: poll: %s",
			               strerror(errno));
		}
		if (np == 2 && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = send(in, src + sent, len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w > 0)
				sent += (size_t)w;
			if ((w < 0 && errno != EAGAIN && errno != EINTR) || sent == len) {
				close(in);
				in = -1;
			}
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			char chunk[512];
			ssize_t r = read(errfd, chunk, sizeof chunk);
			if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
				break;
			if (r > 0 && got + 1 < cap) {
				size_t k = (size_t)r < cap - 1 - got ? (size_t)r : cap - 1 - got;
				memcpy(msg + got, chunk, k);
				got += k;
				msg[got] = '\0';
			}
		}
	}
	if (in >= 0)
		close(in);
	return 0;
}

/* Keeps the first JIT_ERR_LINES lines of msg, joined by spaces, in place. */
static void first_lines(char *msg)
{
	int lines = 0;
	size_t n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	for (char *c = msg; *c; c++)
		if (*c == '\n') {
			if (++lines == JIT_ERR_LINES) {
				*c = '\0';
				break;
			}
			*c = ' ';
		}
}

/* Sets up attr for the compiler: its own process group, so that a Ctrl-C at the terminal
 * reaches quadx (which cancels, killing the compiler) rather than the compiler; no signal
 * blocked and SIGPIPE at its default, whatever the calling thread has. */
static void spawn_attr_init(posix_spawnattr_t *attr)
{
	sigset_t none, def;
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_init(attr);
	posix_spawnattr_setpgroup(attr, 0);
	posix_spawnattr_setsigmask(attr, &none);
	posix_spawnattr_setsigdefault(attr, &def);
	posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
	                                   POSIX_SPAWN_SETSIGDEF);
}

/* Runs the compiler at cc on src, writing the shared object so; its messages go into msg.
 * -O3 unrolls the short loops of an integrand and of reduced_math.h's polynomials;
 * -fno-tree-vectorize because the rule's point was stored a coordinate at a time just
 * before the call, and a vector load of two of them cannot take them from the store buffer
 * (a stall each: f1 in dim 6 took 1.8 times the built-in's time, 1.07 without);
 * -fno-semantic-interposition lets the compiler inline one exported function into another (an
 * integrand's body into its map), which -fPIC alone forbids. Returns 0, or -1 with the reason
 * in e. */
static int run_compiler(const char *cc, const char *src, const char *so, const char *dir, char *msg,
                        size_t cap, struct qx_err *e)
{
	char *argv[] = {(char *)cc,
	                "-O3",
	                "-fno-tree-vectorize",
	                "-fPIC",
	                "-fno-semantic-interposition",
	                "-shared",
	                "-fno-math-errno",
	                "-ffp-contract=off",
	                "-x",
	                "c",
	                "-",
	                "-o",
	                (char *)so,
	                "-lm",
	                NULL};
	char tmpvar[4200];
	int sv[2], ep[2], status = 0, rc = -1;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char **env;
	pid_t pid;
	snprintf(tmpvar, sizeof tmpvar, "TMPDIR=%s", dir);
	env = child_env(tmpvar);
	if (!env)
		return qx_fail(e, "out of memory starting the C compiler");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		free(env);
		return qx_fail(e, "cannot compile the integrand on the CPU: %s", strerror(errno));
	}
	if (pipe2(ep, O_CLOEXEC)) {
		close(sv[0]);
		close(sv[1]);
		free(env);
		return qx_fail(e, "cannot compile the integrand on the CPU: %s", strerror(errno));
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, ep[1], 1);
	posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
	spawn_attr_init(&attr);
	int err = posix_spawn(&pid, cc, &fa, &attr, argv, env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(sv[1]);
	close(ep[1]);
	if (err) {
		close(sv[0]);
		close(ep[0]);
		return qx_fail(e, "cannot compile the integrand on the CPU: cannot start %s: %s",
		               cc, strerror(err));
	}
	rc = talk(pid, sv[0], ep[0], src, msg, cap, e);
	close(ep[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc)
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		first_lines(msg);
		if (WIFEXITED(status))
			return qx_fail(
			    e, "cannot compile the integrand on the CPU: %s failed (exit %d)%s%s",
			    cc, WEXITSTATUS(status), msg[0] ? ": " : "", msg);
		return qx_fail(e,
		               "cannot compile the integrand on the CPU: %s stopped by signal %d",
		               cc, WTERMSIG(status));
	}
	return 0;
}

/* Compiles src into a shared object in a fresh private directory under $TMPDIR, loads it and
 * removes the directory whatever happened. Returns the dlopen handle, or NULL with the reason
 * in e. */
static void *compile_and_load(const char *src, struct qx_err *e)
{
	char cc[4096], dir[4096], so[4200], msg[2048];
	const char *tmp = getenv("TMPDIR");
	void *h = NULL;
	if (find_compiler(cc, sizeof cc)) {
		qx_fail(e, "cannot compile the integrand on the CPU: no C compiler (cc) found; "
		           "install gcc or set QUADX_CC");
		return NULL;
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if ((size_t)snprintf(dir, sizeof dir, "%s/quadx-jit-XXXXXX", tmp) >= sizeof dir ||
	    !mkdtemp(dir)) {
		qx_fail(e,
		        "cannot compile the integrand on the CPU: no temporary directory in %s: %s",
		        tmp, strerror(errno));
		return NULL;
	}
	snprintf(so, sizeof so, "%s/integrand.so", dir);
	if (run_compiler(cc, src, so, dir, msg, sizeof msg, e) == 0) {
		h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			qx_fail(e,
			        "cannot load the compiled integrand: %s (TMPDIR must allow "
			        "executables)",
			        dlerror());
	}
	remove_dir(dir);
	return h;
}

/* Returns the entry of c whose source is src, NULL when none is. */
static struct jit_entry *lookup(struct expr_jit_cache *c, const char *src)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->e[i].source, src) == 0)
			return &c->e[i];
	return NULL;
}

/* Adds a loaded object for src to c and fills its functions. Returns the entry, or NULL with
 * the reason in e (the object is then closed). */
static struct jit_entry *add_entry(struct expr_jit_cache *c, char *src, void *h, const char *name_d,
                                   const char *name_f, struct qx_err *e)
{
	struct jit_entry *en;
	void *sym_d, *sym_f;
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 8;
		struct jit_entry *n = realloc(c->e, (size_t)cap * sizeof *n);
		if (!n) {
			dlclose(h);
			qx_fail(e, "out of memory keeping the compiled integrand");
			return NULL;
		}
		c->e = n;
		c->cap = cap;
	}
	en = &c->e[c->n];
	memset(en, 0, sizeof *en);
	sym_d = dlsym(h, name_d);
	sym_f = dlsym(h, name_f);
	memcpy(&en->fn.d, &sym_d, sizeof sym_d);
	memcpy(&en->fn.f, &sym_f, sizeof sym_f);
	if (!en->fn.d || !en->fn.f) {
		dlclose(h);
		qx_fail(e, "cannot load the compiled integrand: its functions are missing");
		return NULL;
	}
	en->source = src;
	en->handle = h;
	c->n++;
	return en;
}

int expr_cpu_compile_source(struct expr_jit_cache *c, const char *src, const char *name_d,
                            const char *name_f, struct expr_cpu_fn *out, struct qx_err *e)
{
	double start = qx_now_ms();
	struct jit_entry *en;
	void *h;
	/* the cache's key: the functions' names, then the source they come from */
	const size_t n = strlen(name_d) + strlen(name_f) + strlen(src) + 3;
	char *key = malloc(n);
	memset(out, 0, sizeof *out);
	if (!key)
		return qx_fail(e, "out of memory writing the integrand's source");
	snprintf(key, n, "%s\n%s\n%s", name_d, name_f, src);
	en = lookup(c, key);
	if (en) {
		free(key);
		*out = en->fn;
		out->cached = 1;
		out->compile_ms = qx_now_ms() - start;
		return 0;
	}
	if (c->n >= EXPR_JIT_CACHE_MAX) {
		free(key);
		return qx_fail(e, "too many integrands compiled in this session (%d)",
		               EXPR_JIT_CACHE_MAX);
	}
	h = compile_and_load(src, e);
	if (!h || !(en = add_entry(c, key, h, name_d, name_f, e))) {
		free(key);
		return -1;
	}
	en->fn.compile_ms = en->fn.build_ms = qx_now_ms() - start;
	*out = en->fn;
	return 0;
}

int expr_cpu_compile(struct expr_jit_cache *c, const struct expr *x, struct expr_cpu_fn *out,
                     struct qx_err *e)
{
	char *src = expr_emit_unit(x);
	int rc;
	if (!src) {
		memset(out, 0, sizeof *out);
		return qx_fail(e, "out of memory writing the integrand's source");
	}
	rc = expr_cpu_compile_source(c, src, EXPR_CPU_NAME_D, EXPR_CPU_NAME_F, out, e);
	free(src);
	return rc;
}
