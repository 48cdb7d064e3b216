#include "../problem.h"
int kde_bench(struct session *s, struct qx_err *e);
int kde_bench(struct session *s, struct qx_err *e) { (void)s; return qx_fail(e, "todo"); }
