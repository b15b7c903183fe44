/*
 * ui_result: the comparison section of the series page (a series section,
 * see routes.h): verdict, header, live progress, the result table, inline
 * SVG charts, the lock-profile diff, boots with console logs, the job
 * definition and how to reproduce.  The rendering is report_html; this
 * file only loads the model.  The page refreshes itself while the series
 * is not final (ui.c), which covers a running comparison.
 */
#include "daemon/report.h"
#include "lib/log.h"

void
ui_result_series_html(struct db *db, long long series_id, struct buf *out)
{
	struct report r;
	int rc;

	rc = report_load(db, series_id, 1, &r);
	if (rc == 0 && (r.comparison_id || r.kernel[REPORT_BASE].build_id))
		report_html(&r, out);
	else if (rc < 0)
		buf_addstr(out, "<section id=\"result\"><p class=\"error\">The "
		    "comparison could not be read from the store.</p>"
		    "</section>\n");
	report_release(&r);
}
