/* t-load-prof: kallsyms parsing and lock attribution for lock-profile. */
#include <stdlib.h>
#include <string.h>

#include "agents/load/prof.h"
#include "agents/load/util.h"
#include "tests/unit/tap.h"

static const char syms_text[] =
    "ffffffff81001000 T folio_batch_move_lru\n"
    "ffffffff81002000 t folios_put_refs\n"
    "ffffffff81003000 T native_queued_spin_lock_slowpath\n"
    "ffffffff81004000 T _raw_spin_lock_irqsave\n"
    "ffffffff81005000 T folio_lruvec_lock_irqsave\n"
    "ffffffff81006000 T clear_page_rep\n"
    "ffffffff81007000 D some_data\n"
    "ffffffff81008000 T do_fault\n"
    "garbage line\n"
    "ffffffff81009000 t list_lru_add\t[somemod]\n";

int
main(void)
{
	struct prof_syms s;
	struct prof p;
	struct sample_json j;

	load_set_quiet(1);
	ok(prof_syms_parse(&s, syms_text, strlen(syms_text)) == 0, "kallsyms parses");
	is_int(s.n, 8, "text symbols kept, data and garbage dropped");
	is_str(prof_syms_lookup(&s, 0xffffffff81001000ULL), "folio_batch_move_lru", "exact address");
	is_str(prof_syms_lookup(&s, 0xffffffff81003abcULL), "native_queued_spin_lock_slowpath",
	    "address inside a function");
	is_str(prof_syms_lookup(&s, 0xffffffff81009010ULL), "list_lru_add", "module column dropped");
	ok(prof_syms_lookup(&s, 0x1000) == NULL, "address below every symbol");

	ok(prof_is_lock("native_queued_spin_lock_slowpath"), "slowpath is a lock function");
	ok(prof_is_lock("_raw_spin_unlock_irqrestore"), "irqrestore counts (cpu-clock lands there)");
	ok(!prof_is_lock("folio_batch_move_lru"), "a caller is not a lock function");
	is_str(prof_guess_lock("folio_batch_move_lru"), "lru_lock",
	    "folio_batch_move_lru's only spinlock: lru_lock, by name");
	is_str(prof_guess_lock("folio_batch_move_lru.constprop.0"), "lru_lock",
	    "a compiler clone names the same lock");
	is_str(prof_guess_lock("list_lru_add"), "list_lru_node.lock",
	    "list_lru_add: the list_lru node lock, by name");
	is_str(prof_guess_lock("deferred_split_folio"), "split_queue_lock",
	    "deferred_split_folio: the deferred split queue lock, by name");
	is_str(prof_guess_lock("deferred_split_scan"), "split_queue_lock",
	    "deferred_split_scan: the same lock");
	is_str(prof_guess_lock("split_huge_page_to_list_to_order"), "?",
	    "a caller of several spinlocks names none");
	is_str(prof_guess_lock("lru_add_drain_cpu"), "lru_lock?",
	    "a prefix match stays a guess");
	is_str(prof_guess_lock("list_lru_count_one"), "list_lru lock?",
	    "list_lru_* beyond the table: a guess");
	is_str(prof_lock_class("folio_lruvec_lock_irqsave"), "lru_lock",
	    "the lruvec lock's own helper names it");
	ok(prof_lock_class("rmqueue_bulk") == NULL, "no class for the zone lock");
	ok(prof_lock_class("folio_batch_move_lru_x") == NULL,
	    "classes match whole names");
	is_str(prof_guess_lock("frobnicate"), "?", "unknown caller");

	memset(&p, 0, sizeof(p));
	/* 2 samples: slowpath <- irqsave <- lruvec wrapper <- folio_batch_move_lru */
	{
		unsigned long long c1[] = { 0xffffffff81003010ULL, 0xffffffff81004010ULL,
		    0xffffffff81005010ULL, 0xffffffff81001010ULL, 0xffffffff81008000ULL };
		unsigned long long c2[] = { 0xffffffff81003020ULL, 0xffffffff81002010ULL };
		unsigned long long c3[] = { 0xffffffff81006000ULL, 0xffffffff81008000ULL };
		unsigned long long c4[] = { 0xffffffff81003030ULL };

		prof_add(&p, &s, c1, 5);
		prof_add(&p, &s, c1, 5);
		prof_add(&p, &s, c2, 2);
		prof_add(&p, &s, c3, 2);
		prof_add(&p, &s, c4, 1);
	}
	is_int(p.total, 5, "five samples");
	sample_json_init(&j);
	p.event = "cpu-clock";
	prof_json(&p, "target=fault-free", 10, &j);
	ok(strstr(j.data, "\"type\":\"lock-profile\",\"event\":\"cpu-clock\",\"total_samples\":5") != NULL,
	    "header fields");
	ok(strstr(j.data, "\"locks\":[{\"lock\":\"lru_lock\",\"symbol\":\"native_queued_spin_lock_slowpath\",\"share\":0.6000")
	    != NULL, "lru_lock's row: 3 of 5 samples in the slowpath: %s", j.data);
	ok(strstr(j.data, "{\"lock\":\"[unknown]\",\"symbol\":\"native_queued_spin_lock_slowpath\",\"share\":0.2000")
	    != NULL, "the caller-less sample: a row of its own, not lru_lock's");
	ok(strstr(j.data, "{\"symbol\":\"folio_batch_move_lru\",\"lock\":\"lru_lock\",\"share\":0.4000}") != NULL,
	    "wrappers skipped: folio_batch_move_lru is the caller");
	ok(strstr(j.data, "{\"symbol\":\"folios_put_refs\",\"lock\":\"lru_lock\",\"share\":0.2000}") != NULL,
	    "second caller");
	ok(strstr(j.data, "{\"symbol\":\"[unknown]\",\"lock\":\"?\",\"share\":0.2000}") != NULL,
	    "a lock sample without callers is [unknown]");
	ok(strstr(j.data, "\"top\":[{\"symbol\":\"native_queued_spin_lock_slowpath\",\"share\":0.8000},"
	    "{\"symbol\":\"clear_page_rep\",\"share\":0.2000}]") != NULL, "top self symbols");
	sample_json_release(&j);
	prof_release(&p);
	prof_syms_release(&s);

	ok(prof_syms_parse(&s, "0000000000000000 T a\n0000000000000000 T b\n", 42) < 0 &&
	    strstr(load_last_error(), "kptr_restrict"), "zero addresses explained");
	ok(prof_syms_parse(&s, "", 0) < 0, "empty kallsyms refused");
	return tap_done();
}
