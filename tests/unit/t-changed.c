/*
 * Unit tests for core/changed.c: unified-diff parsing into exact changed
 * ranges (with and without context), the enclosing-function finder on
 * snippets of Linux 6.12 (mm/swap.c, mm/filemap.c, mm/mlock.c, a
 * multi-line macro, initialisers, braces in comments and strings), hunks
 * spanning several functions, functions a patch adds, the touched-files ->
 * suites table and System.map look-ups.
 */
#include <stdlib.h>
#include <string.h>

#include "core/changed.h"
#include "lib/buf.h"
#include "tests/unit/tap.h"

/* mm/swap.c of 6.12 as patches/lru-delay.mbox leaves it (lines 181-222). */
static const char swap_c[] =
	"static void lru_add(struct lruvec *lruvec, struct folio *folio)\n" /* 1 */
	"{\n"
	"\tlruvec_add_folio(lruvec, folio);\n"
	"\ttrace_mm_lru_insertion(folio);\n"
	"}\n"						/* 5 */
	"\n"
	"/*\n"
	" * kperfci calibration: hold lru_lock this many microseconds longer per\n"
	" * folio moved { a brace in a comment }.\n"
	" */\n"						/* 10 */
	"static unsigned int lru_delay_us = 20;\n"
	"core_param(lru_delay_us, lru_delay_us, uint, 0644);\n"
	"\n"
	"static void folio_batch_move_lru(struct folio_batch *fbatch, move_fn_t move_fn)\n"
	"{\n"						/* 15 */
	"\tint i;\n"
	"\tstruct lruvec *lruvec = NULL;\n"
	"\tunsigned long flags = 0;\n"
	"\n"
	"\tfor (i = 0; i < folio_batch_count(fbatch); i++) {\n" /* 20 */
	"\t\tstruct folio *folio = fbatch->folios[i];\n"
	"\n"
	"\t\t/* block memcg migration while the folio moves between lru */\n"
	"\t\tif (move_fn != lru_add && !folio_test_clear_lru(folio))\n"
	"\t\t\tcontinue;\n"				/* 25 */
	"\n"
	"\t\tfolio_lruvec_relock_irqsave(folio, &lruvec, &flags);\n"
	"\t\tmove_fn(lruvec, folio);\n"
	"\t\tudelay(lru_delay_us);\n"
	"\n"						/* 30 */
	"\t\tfolio_set_lru(folio);\n"
	"\t}\n"
	"\n"
	"\tif (lruvec)\n"
	"\t\tunlock_page_lruvec_irqrestore(lruvec, flags);\n" /* 35 */
	"\tfolios_put(fbatch);\n"
	"}\n";

/* The diff that made it (git diff -U3, as in the mbox), renumbered. */
static const char swap_diff[] =
	"diff --git a/mm/swap.c b/mm/swap.c\n"
	"index ff846915db45..f7afebff1911 100644\n"
	"--- a/mm/swap.c\n"
	"+++ b/mm/swap.c\n"
	"@@ -4,6 +4,13 @@ static void lru_add(struct lruvec *lruvec, struct folio *folio)\n"
	" \ttrace_mm_lru_insertion(folio);\n"
	" }\n"
	" \n"
	"+/*\n"
	"+ * kperfci calibration: hold lru_lock this many microseconds longer per\n"
	"+ * folio moved { a brace in a comment }.\n"
	"+ */\n"
	"+static unsigned int lru_delay_us = 20;\n"
	"+core_param(lru_delay_us, lru_delay_us, uint, 0644);\n"
	"+\n"
	" static void folio_batch_move_lru(struct folio_batch *fbatch, move_fn_t move_fn)\n"
	" {\n"
	" \tint i;\n"
	"@@ -20,6 +26,7 @@ static void folio_batch_move_lru(struct folio_batch *fbatch, move_fn_t move_fn)\n"
	" \n"
	" \t\tfolio_lruvec_relock_irqsave(folio, &lruvec, &flags);\n"
	" \t\tmove_fn(lruvec, folio);\n"
	"+\t\tudelay(lru_delay_us);\n"
	" \n"
	" \t\tfolio_set_lru(folio);\n"
	" \t}\n";

/* mm/filemap.c, mm/mlock.c: __releases() after the parameters, syscalls,
   an initialiser, a multi-line macro and a string with braces. */
static const char misc_c[] =
	"void migration_entry_wait_on_locked(swp_entry_t entry, spinlock_t *ptl)\n" /* 1 */
	"\t__releases(ptl)\n"
	"{\n"
	"\tstruct wait_page_queue wait_page;\n"
	"\tpr_info(\"{ not a block\");\n"		/* 5 */
	"}\n"
	"\n"
	"#define for_each_thing(x) \\\n"
	"\tdo { \\\n"
	"\t\tx++; \\\n"					/* 10 */
	"\t} while (0)\n"
	"\n"
	"static const struct vm_operations_struct ops = {\n"
	"\t.fault = filemap_fault,\n"
	"};\n"						/* 15 */
	"\n"
	"SYSCALL_DEFINE0(munlockall)\n"
	"{\n"
	"\tint ret;\n"
	"\n"						/* 20 */
	"\tif (mmap_write_lock_killable(current->mm))\n"
	"\t\treturn -EINTR;\n"
	"\tret = apply_mlockall_flags(0);\n"
	"\tmmap_write_unlock(current->mm);\n"
	"\treturn ret;\n"				/* 25 */
	"}\n"
	"\n"
	"static __always_inline bool folio_needs_thing(struct folio *folio)\n"
	"{\n"
	"\treturn folio_test_large(folio) && '}' != 0;\n" /* 30 */
	"}\n"
	"\n"
	"SYSCALL_DEFINE3(mincore, unsigned long, start, size_t, len,\n"
	"\t\tunsigned char __user *, vec)\n"
	"{\n"						/* 35 */
	"\treturn 0;\n"
	"}\n"
	"struct thing {\n"
	"\tint (*fn)(void);\n"
	"};\n"						/* 40 */
	"static inline int\n"
	"copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)\n"
	"{\n"
	"\treturn 0;\n"
	"}\n";						/* 45 */

static void
test_diff_exact(void)
{
	struct changed_diff d;
	struct buf err = BUF_INIT(512);

	ok(changed_diff_parse(&d, swap_diff, strlen(swap_diff), &err) == 0,
	    "the lru-delay diff parses (%s)", err.data ? err.data : "");
	is_int(d.n, 1, "one file");
	is_str(d.files[0].path, "mm/swap.c", "its path");
	is_int(d.files[0].nhunks, 2, "two runs of added lines");
	is_int(d.files[0].hunks[0].start, 7, "first run starts at new line 7");
	is_int(d.files[0].hunks[0].count, 7, "seven lines");
	is_int(d.files[0].hunks[1].start, 29, "udelay at new line 29");
	is_int(d.files[0].hunks[1].count, 1, "one line");
	changed_diff_release(&d);
	buf_release(&err);
}

static void
test_swap_functions(void)
{
	struct changed_diff d;
	struct changed_fn fn[8];
	struct buf err = BUF_INIT(512);
	size_t n;

	changed_diff_parse(&d, swap_diff, strlen(swap_diff), &err);
	n = changed_functions(&d.files[0], swap_c, strlen(swap_c), fn, 8);
	is_int(n, 1, "the comment and core_param change no function");
	is_str(n ? fn[0].name : NULL, "folio_batch_move_lru",
	    "udelay() is inside folio_batch_move_lru");
	ok(n && !fn[0].added, "folio_batch_move_lru is not new");
	changed_diff_release(&d);
	buf_release(&err);
}

static void
test_spans(void)
{
	struct changed_span *sp;
	const struct changed_span *s;
	size_t n = changed_spans(misc_c, strlen(misc_c), &sp);

	is_int(n, 5, "five functions (no macro, initialiser or struct)");
	s = changed_span_at(sp, n, 5);
	is_str(s ? s->name : NULL, "migration_entry_wait_on_locked",
	    "__releases() after the parameters is not the name");
	is_int(s ? s->start : 0, 1, "the function starts at its head");
	is_int(s ? s->end : 0, 6, "a brace in a string does not end it");
	ok(changed_span_at(sp, n, 10) == NULL, "a #define body is no function");
	ok(changed_span_at(sp, n, 14) == NULL, "an initialiser is no function");
	s = changed_span_at(sp, n, 23);
	is_str(s ? s->name : NULL, "sys_munlockall", "SYSCALL_DEFINE0");
	s = changed_span_at(sp, n, 30);
	is_str(s ? s->name : NULL, "folio_needs_thing",
	    "static __always_inline, a '}' character literal");
	is_int(s ? s->end : 0, 31, "... ends at its brace");
	s = changed_span_at(sp, n, 36);
	is_str(s ? s->name : NULL, "sys_mincore", "SYSCALL_DEFINE3 over lines");
	ok(changed_span_at(sp, n, 39) == NULL, "a struct with a function "
	    "pointer is no function");
	s = changed_span_at(sp, n, 44);
	is_str(s ? s->name : NULL, "copy_page_range",
	    "return type on its own line");
	is_int(s ? s->start : 0, 41, "... starts at the return type");
	free(sp);
}

static void
test_hunks_across(void)
{
	/* one hunk from inside munlockall to inside folio_needs_thing, one
	   deletion inside mincore, one deletion between functions */
	struct changed_hunk h[] = { { 24, 6 }, { 35, 0 }, { 37, 0 } };
	struct changed_file f = { (char *)"mm/mlock.c", 0, h, 3 };
	struct changed_fn fn[8];
	size_t n = changed_functions(&f, misc_c, strlen(misc_c), fn, 8);

	is_int(n, 3, "a hunk over two functions changes both; a deletion "
	    "inside mincore changes it");
	is_str(n > 0 ? fn[0].name : NULL, "sys_munlockall", "first");
	is_str(n > 1 ? fn[1].name : NULL, "folio_needs_thing", "second");
	is_str(n > 2 ? fn[2].name : NULL, "sys_mincore", "deletion");
	ok(n > 1 && !fn[0].added && !fn[1].added, "neither is new");
}

static void
test_added_function(void)
{
	static const char diff[] =
	    "diff --git a/mm/new.c b/mm/new.c\n"
	    "new file mode 100644\n"
	    "--- /dev/null\n"
	    "+++ b/mm/new.c\n"
	    "@@ -0,0 +1,5 @@\n"
	    "+static inline int\n"
	    "+copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)\n"
	    "+{\n"
	    "+\treturn 0;\n"
	    "+}\n"
	    "diff --git a/mm/gone.c b/mm/gone.c\n"
	    "deleted file mode 100644\n"
	    "--- a/mm/gone.c\n"
	    "+++ /dev/null\n"
	    "@@ -1,2 +0,0 @@\n"
	    "-int x;\n"
	    "-int y;\n";
	static const char src[] = "static inline int\n"
	    "copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)\n"
	    "{\n\treturn 0;\n}\n";
	struct changed_diff d;
	struct changed_fn fn[4];
	struct buf err = BUF_INIT(512);
	size_t n;

	ok(changed_diff_parse(&d, diff, strlen(diff), &err) == 0,
	    "a new and a deleted file parse");
	is_int(d.n, 2, "two files");
	is_str(d.n > 1 ? d.files[1].path : NULL, "mm/gone.c",
	    "the deleted file keeps its old path");
	ok(d.n > 1 && d.files[1].deleted, "... and is marked deleted");
	n = changed_functions(&d.files[0], src, strlen(src), fn, 4);
	is_int(n, 1, "the new file's function");
	ok(n && fn[0].added, "is marked added");
	changed_diff_release(&d);
	buf_release(&err);
}

static void
test_diff_errors(void)
{
	struct changed_diff d;
	struct buf err = BUF_INIT(512);
	static const char bad[] = "diff --git a/x b/x\n--- a/x\n+++ b/x\n"
	    "@@ -1,x +1,2 @@\n";
	static const char orphan[] = "@@ -1 +1 @@\n-a\n+b\n";

	ok(changed_diff_parse(&d, bad, strlen(bad), &err) == -1 &&
	    strstr(err.data, "line 4: malformed hunk header"),
	    "a bad hunk header is named with its line (%s)", err.data);
	changed_diff_release(&d);
	buf_reset(&err);
	ok(changed_diff_parse(&d, orphan, strlen(orphan), &err) == -1 &&
	    strstr(err.data, "hunk before any file"),
	    "a hunk without a file header is refused");
	changed_diff_release(&d);
	buf_release(&err);
}

static void
test_suites(void)
{
	is_str(changed_suite_of("mm/swap.c"), "lru-lock", "swap.c");
	is_str(changed_suite_of("mm/vmscan.c"), "lru-lock", "vmscan.c");
	is_str(changed_suite_of("fs/inode.c"), "list-lru", "inode.c");
	is_str(changed_suite_of("mm/shrinker.c"), "list-lru", "shrinker.c");
	is_str(changed_suite_of("mm/memory.c"), "large-folio", "memory.c");
	is_str(changed_suite_of("kernel/cgroup/rstat.c"), "memcg-flush",
	    "rstat.c");
	ok(changed_suite_of("mm/mlock.c") == NULL, "anything else: none");
	ok(changed_suite_of("mm/swap.h") == NULL, "no prefix match");
}

static void
test_sysmap(void)
{
	static const char map[] =
	    "ffffffff81001000 T _stext\n"
	    "ffffffff81101230 t folio_batch_move_lru\n"
	    "ffffffff81101400 t lru_add\n"
	    "ffffffff81201400 t lru_add\n"
	    "ffffffff81301400 t shrink_folio_list.constprop.0\n"
	    "ffffffff81401400 D lru_delay_us\n"
	    "ffffffff81501400 T __x64_sys_munlockall\n";
	int v;

	is_int(changed_sysmap_count(map, strlen(map), "folio_batch_move_lru",
	    &v), 1, "a static function is in System.map");
	is_int(changed_sysmap_count(map, strlen(map), "lru_add", &v), 2,
	    "a name defined twice is counted twice");
	is_int(changed_sysmap_count(map, strlen(map), "shrink_folio_list",
	    &v), 0, "only a specialised copy ...");
	is_int(v, 1, "... is counted as a variant");
	is_int(changed_sysmap_count(map, strlen(map), "lru_delay_us", &v), 0,
	    "data symbols do not count");
	is_int(changed_sysmap_count(map, strlen(map), "folio_needs_thing",
	    &v), 0, "an inlined function is absent");
}

static void
test_ident(void)
{
	ok(changed_valid_ident("folio_batch_move_lru"), "identifier");
	ok(!changed_valid_ident("a b"), "space");
	ok(!changed_valid_ident("1abc"), "leading digit");
	ok(!changed_valid_ident("foo.constprop.0"), "dot");
	ok(!changed_valid_ident(""), "empty");
	ok(!changed_valid_ident("x;rm"), "punctuation");
}

int
main(void)
{
	test_diff_exact();
	test_swap_functions();
	test_spans();
	test_hunks_across();
	test_added_function();
	test_diff_errors();
	test_suites();
	test_sysmap();
	test_ident();
	return tap_done();
}
