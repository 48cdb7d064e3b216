/* messages.c - help pages and eval's missing rows in the session's format (messages.h). */
#include "messages.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "output.h"

static int use_pager;

/* Turns paging of long texts on or off. */
void messages_use_pager(int on)
{
	use_pager = on;
}

/* Returns the pager command: $PAGER, or less when it is on the PATH, or NULL. */
static const char *pager_command(void)
{
	const char *env = getenv("PAGER"), *path = getenv("PATH");
	char dir[4096];
	if (env)
		return *env ? env : NULL;
	for (const char *p = path; p && *p;) {
		const size_t n = strcspn(p, ":");
		snprintf(dir, sizeof dir, "%.*s/less", (int)n, p);
		if (access(dir, X_OK) == 0)
			return "less -FRX";
		p += n + (p[n] == ':');
	}
	return NULL;
}

/* Writes text to out, through the pager when paging is on, out is a terminal's stdout and
 * text has more lines than the terminal; a pager that cannot start leaves it to out. */
static void page_text(FILE *out, const char *text)
{
	struct winsize ws;
	const char *pager =
	    use_pager && out == stdout && isatty(STDOUT_FILENO) ? pager_command() : NULL;
	FILE *p;
	int lines = 0;
	for (const char *c = text; *c; c++)
		lines += *c == '\n';
	if (pager && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && lines >= ws.ws_row &&
	    (p = popen(pager, "w")) != NULL) {
		fflush(out);
		fputs(text, p);
		if (pclose(p) == 0)
			return;
	}
	fputs(text, out);
}

/* Runs print; in format json catches its text and prints it as one object. */
int messages_text(struct shell *sh, const char *kind, const char *topic,
                  int (*print)(struct shell *sh, int argc, char **argv, struct qx_err *e), int argc,
                  char **argv, struct qx_err *e)
{
	FILE *out = sh->io.out, *mem;
	char *text = NULL;
	size_t len = 0;
	int rc;
	if (sh->io.format != FORMAT_JSON && !(use_pager && out == stdout))
		return print(sh, argc, argv, e);
	mem = open_memstream(&text, &len);
	if (!mem)
		return qx_fail(e, "%s: out of memory", kind);
	sh->io.out = mem;
	rc = print(sh, argc, argv, e);
	sh->io.out = out;
	if (fclose(mem)) {
		free(text);
		return qx_fail(e, "%s: out of memory", kind);
	}
	if (rc == 0 && sh->io.format != FORMAT_JSON) {
		page_text(out, text);
	} else if (rc == 0 && len) {
		cJSON *obj = cJSON_CreateObject();
		cJSON_AddStringToObject(obj, "type", kind);
		cJSON_AddStringToObject(obj, "topic", topic);
		cJSON_AddStringToObject(obj, "text", text);
		output_print_json(&sh->io, obj);
	}
	free(text);
	return rc;
}

/* Prints eval's row without a value in the session's format. */
void messages_eval_missing(struct output_ctx *io, const struct problem *p, const double *args,
                           size_t nargs, enum qx_backend b, int prec, const char *status,
                           const char *why)
{
	const char *precision = prec < 0 ? "" : qx_precision_name((enum qx_precision)prec);
	char num[40];
	if (prec < 0 && io->format != FORMAT_TEXT) { /* a row per precision, as eval's others */
		for (prec = QX_DOUBLE; prec >= QX_FLOAT; prec--)
			messages_eval_missing(io, p, args, nargs, b, prec, status, why);
		return;
	}
	if (io->format == FORMAT_JSON) {
		const struct eval_result none = {.value = NAN}; /* value null */
		cJSON *obj = output_eval_json(p, args, nargs, b, (enum qx_precision)prec, &none);
		cJSON_AddStringToObject(obj, "status", status);
		cJSON_AddStringToObject(obj, "note", why);
		output_print_json(io, obj);
	} else if (io->format == FORMAT_CSV) { /* output.c's one field writer */
		char row[4096] = "", list[QX_MAX_EVAL_ARGS * 41] = "";
		for (size_t i = 0; i < nargs; i++) {
			output_number(num, sizeof num, args[i]);
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
			         i ? " " : "", num);
		}
		const char *fields[] = {"eval",    p->name,        list,   qx_backend_name(b),
		                        precision, "" /* value */, status, why};
		for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
			output_csv_field(row, sizeof row, fields[i], i == 0);
		output_print_csv(io, "type,problem,args,backend,precision,value,status,note", row);
	} else if (prec < 0) {
		fprintf(io->out, "%s  %s: none (%s)\n", p->name, qx_backend_name(b), why);
	} else {
		fprintf(io->out, "%s(", p->name);
		for (size_t i = 0; i < nargs; i++) {
			output_number(num, sizeof num, args[i]);
			fprintf(io->out, "%s%s", i ? ", " : "", num);
		}
		fprintf(io->out, ")  %s %-6s  %s: %s\n", qx_backend_name(b), precision, status,
		        why);
	}
	fflush(io->out);
}

/* Whether x survives the conversion to precision prec. */
int messages_representable(enum qx_precision prec, double x)
{
	if (prec == QX_DOUBLE || x == 0 || !isfinite(x))
		return 1;
	const float f = (float)x;
	return f != 0 && isfinite(f);
}
