/* prof: kallsyms lookup and lock attribution (see prof.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents/load/prof.h"
#include "agents/load/util.h"

struct prof_ent {
	unsigned long long addr;
	char	*name;
};

static int
prof_ent_cmp(const void *a, const void *b)
{
	unsigned long long x = ((const struct prof_ent *)a)->addr;
	unsigned long long y = ((const struct prof_ent *)b)->addr;

	return (x > y) - (x < y);
}

/* Keeps the symbols whose kallsyms type letter is in types. */
static int
prof_syms_parse_types(struct prof_syms *s, const char *text, size_t len,
    const char *types)
{
	struct prof_ent *e = NULL;
	int n = 0, cap = 0, nonzero = 0, i;
	const char *p = text, *end = text + len, *nl;

	memset(s, 0, sizeof(*s));
	while (p < end) {
		unsigned long long a = 0;
		const char *q = p, *name;
		size_t nlen;
		char type;
		int digits = 0;

		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		while (q < nl && digits < 17) {
			int c = *q, v;

			if (c >= '0' && c <= '9') v = c - '0';
			else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
			else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
			else break;
			a = a << 4 | v;
			q++;
			digits++;
		}
		if (digits == 0 || digits > 16 || q + 3 > nl || q[0] != ' ' ||
		    q[2] != ' ')
			goto next;
		type = q[1];
		if (type == '\0' || !strchr(types, type))
			goto next;
		name = q + 3;
		/* the text is not NUL-terminated: stay inside this line */
		for (nlen = 0; name + nlen < nl && name[nlen] != '\t' &&
		    name[nlen] != ' '; nlen++)
			;
		if (nlen == 0 || nlen > 256)
			goto next;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			e = load_xrealloc(e, cap * sizeof(*e));
		}
		e[n].addr = a;
		e[n].name = load_xmalloc(nlen + 1);
		memcpy(e[n].name, name, nlen);
		e[n].name[nlen] = '\0';
		nonzero += a != 0;
		n++;
next:
		p = nl + 1;
	}
	if (n == 0 || nonzero == 0) {
		for (i = 0; i < n; i++)
			free(e[i].name);
		free(e);
		return load_err(n ? "kallsyms shows only zero addresses (kernel.kptr_restrict? run as root)"
		    : "kallsyms has no %s symbols",
		    strchr(types, 'T') ? "text" : "data");
	}
	qsort(e, n, sizeof(*e), prof_ent_cmp);
	s->addr = load_xmalloc(n * sizeof(*s->addr));
	s->name = load_xmalloc(n * sizeof(*s->name));
	for (i = 0; i < n; i++) {
		s->addr[i] = e[i].addr;
		s->name[i] = e[i].name;
	}
	s->n = n;
	free(e);
	return 0;
}

int
prof_syms_parse(struct prof_syms *s, const char *text, size_t len)
{
	return prof_syms_parse_types(s, text, len, "tTwW");
}

int
prof_syms_parse_data(struct prof_syms *s, const char *text, size_t len)
{
	return prof_syms_parse_types(s, text, len, "dDbBrRvV");
}

int
prof_syms_load(struct prof_syms *s, struct prof_syms *data, const char *path)
{
	size_t len;
	char *text;
	int rc;

	text = load_read_all(path, 256 << 20, &len);
	if (!text)
		return load_err("cannot read %s: %s", path, strerror(errno));
	rc = prof_syms_parse(s, text, len);
	if (rc == 0 && data && prof_syms_parse_data(data, text, len) < 0) {
		/* without KALLSYMS_ALL: static locks go by their callers */
		memset(data, 0, sizeof(*data));
		load_clear_error();
	}
	free(text);
	return rc;
}

void
prof_syms_release(struct prof_syms *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		free(s->name[i]);
	free(s->name);
	free(s->addr);
	memset(s, 0, sizeof(*s));
}

/* Index of the last symbol at or below addr, or -1. */
static int
prof_syms_index(const struct prof_syms *s, unsigned long long addr)
{
	int lo = 0, hi = s->n - 1, mid;

	if (s->n == 0 || addr < s->addr[0])
		return -1;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (s->addr[mid] <= addr)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

const char *
prof_syms_lookup(const struct prof_syms *s, unsigned long long addr)
{
	int i = prof_syms_index(s, addr);

	return i < 0 ? NULL : s->name[i];
}

const char *
prof_syms_lookup_off(const struct prof_syms *s, unsigned long long addr,
    unsigned long long max_off, unsigned long long *off)
{
	int i = prof_syms_index(s, addr);

	if (i < 0 || addr - s->addr[i] > max_off)
		return NULL;
	*off = addr - s->addr[i];
	return s->name[i];
}

unsigned long long
prof_syms_addr(const struct prof_syms *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->name[i], name) == 0)
			return s->addr[i];
	return 0;
}

static const char *const prof_lock_fns[] = {
	"native_queued_spin_lock_slowpath", "queued_spin_lock_slowpath",
	"__pv_queued_spin_lock_slowpath", "pv_queued_spin_lock_slowpath",
	"_raw_spin_lock", "_raw_spin_lock_irq", "_raw_spin_lock_irqsave",
	"_raw_spin_lock_bh", "_raw_spin_trylock", "do_raw_spin_lock",
	"_raw_spin_unlock_irqrestore", "_raw_spin_unlock_irq",
	"_raw_read_lock", "_raw_read_lock_irqsave", "_raw_write_lock",
	"_raw_write_lock_irq", "_raw_write_lock_irqsave",
	"queued_read_lock_slowpath", "queued_write_lock_slowpath",
	"__mutex_lock", "__mutex_lock_slowpath", "mutex_spin_on_owner",
	"osq_lock", "rwsem_down_read_slowpath", "rwsem_down_write_slowpath",
	"rwsem_optimistic_spin", "rwsem_spin_on_owner",
	NULL,
};

int
prof_is_lock(const char *sym)
{
	size_t n;
	int i;

	if (!sym)
		return 0;
	/* compiler clones keep their origin's name: __mutex_lock.constprop.0 */
	n = strcspn(sym, ".");
	for (i = 0; prof_lock_fns[i]; i++)
		if (strncmp(sym, prof_lock_fns[i], n) == 0 &&
		    prof_lock_fns[i][n] == '\0')
			return 1;
	return 0;
}

/* Lock wrappers are skipped when looking for the caller that matters. */
int
prof_is_wrapper(const char *sym)
{
	static const char *const pre[] = { "folio_lruvec_lock", "folio_lruvec_relock",
	    "lruvec_lock", "spin_lock", "mutex_lock", "down_read", "down_write",
	    NULL };
	int i;

	if (!sym)
		return 1;	/* an unknown frame tells nothing */
	for (i = 0; pre[i]; i++)
		if (strncmp(sym, pre[i], strlen(pre[i])) == 0)
			return 1;
	return 0;
}

/*
 * Lock classes named for certain from one frame: the out-of-line helpers
 * that take only that lock (folio_lruvec_lock* in mm/memcontrol.c), and
 * functions whose only spinlock is that lock (so the first frame past the
 * lock code can only be waiting for it).  The lruvec, list_lru node and
 * deferred split queue locks are allocated (per node, per memcg): no
 * kallsyms data symbol names them, only where they are taken.  Checked
 * against 6.12's mm/swap.c, mm/vmscan.c, mm/list_lru.c and
 * mm/huge_memory.c: a function that also takes another spinlock
 * (split_huge_page_to_list_to_order: the split queue lock and the
 * mapping's i_pages) is not here and keeps its guess.
 */
struct prof_class {
	const char *fn, *lock;
};

static const struct prof_class prof_classes[] = {
	{ "folio_lruvec_lock", "lru_lock" },
	{ "folio_lruvec_lock_irq", "lru_lock" },
	{ "folio_lruvec_lock_irqsave", "lru_lock" },
	{ "folio_batch_move_lru", "lru_lock" },
	{ "folios_put_refs", "lru_lock" },
	{ "__page_cache_release", "lru_lock" },
	{ "lru_note_cost", "lru_lock" },
	{ "folio_activate", "lru_lock" },
	{ "folio_isolate_lru", "lru_lock" },
	{ "move_folios_to_lru", "lru_lock" },
	{ "shrink_inactive_list", "lru_lock" },
	{ "shrink_active_list", "lru_lock" },
	{ "check_move_unevictable_folios", "lru_lock" },
	{ "list_lru_add", "list_lru_node.lock" },
	{ "list_lru_del", "list_lru_node.lock" },
	{ "list_lru_walk_one", "list_lru_node.lock" },
	{ "list_lru_walk_one_irq", "list_lru_node.lock" },
	{ "list_lru_walk_node", "list_lru_node.lock" },
	{ "memcg_reparent_list_lru_node", "list_lru_node.lock" },
	{ "memcg_reparent_list_lrus", "list_lru_node.lock" },
	{ "__folio_unqueue_deferred_split", "split_queue_lock" },
	{ "deferred_split_folio", "split_queue_lock" },
	{ "deferred_split_scan", "split_queue_lock" },
	{ NULL, NULL },
};

const char *
prof_lock_class(const char *sym)
{
	size_t n;
	int i;

	if (!sym)
		return NULL;
	/* compiler clones keep their origin's name: .constprop.0, .isra.0 */
	n = strcspn(sym, ".");
	for (i = 0; prof_classes[i].fn; i++)
		if (strncmp(sym, prof_classes[i].fn, n) == 0 &&
		    prof_classes[i].fn[n] == '\0')
			return prof_classes[i].lock;
	return NULL;
}

struct prof_guess {
	const char *prefix, *lock;
};

static const struct prof_guess prof_guesses[] = {
	{ "folio_batch_move_lru", "lru_lock?" }, { "folios_put_refs", "lru_lock?" },
	{ "release_pages", "lru_lock?" }, { "__page_cache_release", "lru_lock?" },
	{ "lru_add", "lru_lock?" }, { "folio_isolate_lru", "lru_lock?" },
	{ "isolate_lru_folios", "lru_lock?" }, { "move_folios_to_lru", "lru_lock?" },
	{ "shrink_active_list", "lru_lock?" }, { "shrink_inactive_list", "lru_lock?" },
	{ "lru_note_cost", "lru_lock?" }, { "__folio_put", "lru_lock?" },
	{ "list_lru", "list_lru lock?" },
	{ "deferred_split", "split_queue_lock?" },
	{ "__folio_unqueue_deferred_split", "split_queue_lock?" },
	{ "folio_unqueue_deferred_split", "split_queue_lock?" },
	{ "cgroup_rstat", "rstat lock?" }, { "css_rstat", "rstat lock?" },
	{ "mem_cgroup_flush", "rstat lock?" }, { "__mem_cgroup_flush", "rstat lock?" },
	{ "swap", "swap lock?" }, { "get_swap", "swap lock?" },
	{ "folio_alloc_swap", "swap lock?" }, { "__swap", "swap lock?" },
	{ "scan_swap_map", "swap lock?" }, { "cluster_", "swap lock?" },
	{ "rmqueue", "zone lock?" }, { "free_pcppages_bulk", "zone lock?" },
	{ "free_one_page", "zone lock?" }, { "__free_pages_ok", "zone lock?" },
	{ "d_", "dentry lock?" }, { "dput", "dentry lock?" },
	{ "__dentry_kill", "dentry lock?" }, { "shrink_dentry", "dentry lock?" },
	{ "iput", "inode lock?" }, { "inode_", "inode lock?" }, { "evict", "inode lock?" },
	{ "shmem_add_to_page_cache", "i_pages lock?" },
	{ "filemap_", "i_pages lock?" }, { "__filemap", "i_pages lock?" },
	{ "shmem_", "shmem lock?" },
	{ "get_page_from_freelist", "zone lock?" },
	{ "__pte_offset_map_lock", "page table lock?" }, { "pte_", "page table lock?" },
	{ "zs_", "zsmalloc lock?" }, { "zram_", "zram lock?" },
	{ "__pte_alloc", "page table lock?" }, { "do_anonymous_page", "page table lock?" },
	{ "mmap_", "mmap_lock?" }, { "lock_mm", "mmap_lock?" },
	{ "vm_mmap_pgoff", "mmap_lock?" }, { "vm_munmap", "mmap_lock?" },
	{ "raw_spin_rq_lock", "rq lock?" }, { "_raw_spin_rq_lock", "rq lock?" },
	{ NULL, NULL },
};

const char *
prof_guess_lock(const char *caller)
{
	const char *c = prof_lock_class(caller);
	int i;

	if (c)
		return c;
	for (i = 0; caller && prof_guesses[i].prefix; i++)
		if (strncmp(caller, prof_guesses[i].prefix,
		    strlen(prof_guesses[i].prefix)) == 0)
			return prof_guesses[i].lock;
	return "?";
}

static void
prof_bump(struct prof_count **v, int *n, const char *sym, const char *lock)
{
	int i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].sym == sym && (*v)[i].lock == lock) {
			(*v)[i].n++;
			return;
		}
	*v = load_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].sym = sym;
	(*v)[*n].lock = lock;
	(*v)[*n].n = 1;
	(*n)++;
}

static const char prof_unknown[] = "[unknown]";

/*
 * The name of the lock a caller spins on: the guess from the caller
 * ("lru_lock?"), else the caller itself, so that locks nobody named still
 * get a row per caller rather than one row per spin function.
 */
static const char *
prof_lock_name(const char *caller)
{
	const char *g = prof_guess_lock(caller);

	return strcmp(g, "?") ? g : caller;
}

/* The first frame past ips[from] that is not a lock function or wrapper. */
const char *
prof_first_caller(const struct prof_syms *s, const unsigned long long *ips,
    int n, int from)
{
	const char *leaf = from < n ? prof_syms_lookup(s, ips[from]) : NULL;
	const char *sym;
	int i;

	for (i = from + 1; i < n; i++) {
		sym = prof_syms_lookup(s, ips[i]);
		if (sym == leaf || prof_is_lock(sym) || prof_is_wrapper(sym))
			continue;
		return sym;
	}
	return NULL;
}

void
prof_add(struct prof *p, const struct prof_syms *s,
    const unsigned long long *ips, int n)
{
	const char *leaf, *caller;

	if (n <= 0)
		return;
	p->total++;
	leaf = prof_syms_lookup(s, ips[0]);
	if (!leaf)
		leaf = prof_unknown;
	prof_bump(&p->self, &p->nself, leaf, NULL);
	if (!prof_is_lock(leaf))
		return;
	caller = prof_first_caller(s, ips, n, 0);
	if (!caller)
		caller = prof_unknown;
	/* one row per (spin function, lock): lru_lock, the zone lock and
	   the split-queue lock all spin in the same slow path */
	prof_bump(&p->locks, &p->nlocks, leaf, prof_lock_name(caller));
	prof_bump(&p->callers, &p->ncallers, caller, leaf);
}

void
prof_release(struct prof *p)
{
	free(p->self);
	free(p->locks);
	free(p->callers);
	memset(p, 0, sizeof(*p));
}

static int
prof_count_cmp(const void *a, const void *b)
{
	const struct prof_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->sym, y->sym);
}

void
prof_json(struct prof *p, const char *params, int top, struct sample_json *j)
{
	double tot = p->total ? (double)p->total : 1.0;
	int i, k, nc;

	if (p->nself)
		qsort(p->self, p->nself, sizeof(*p->self), prof_count_cmp);
	if (p->nlocks)
		qsort(p->locks, p->nlocks, sizeof(*p->locks), prof_count_cmp);
	if (p->ncallers)
		qsort(p->callers, p->ncallers, sizeof(*p->callers), prof_count_cmp);
	sample_json_addf(j, "{\"workload\":\"lock-profile\",\"params\":");
	sample_json_str(j, params);
	sample_json_addf(j, ",\"type\":\"lock-profile\",\"event\":");
	sample_json_str(j, p->event ? p->event : "unknown");
	sample_json_addf(j, ",\"total_samples\":%ld,\"lost_samples\":%ld,"
	    "\"locks\":[", p->total, p->lost);
	for (i = 0; i < p->nlocks && i < top; i++) {
		const struct prof_count *l = &p->locks[i];

		sample_json_addf(j, "%s{\"lock\":", i ? "," : "");
		sample_json_str(j, l->lock);
		sample_json_addf(j, ",\"symbol\":");
		sample_json_str(j, l->sym);
		sample_json_addf(j, ",\"share\":%.4f,\"callers\":[", l->n / tot);
		for (k = nc = 0; k < p->ncallers && nc < top; k++) {
			const struct prof_count *c = &p->callers[k];

			if (c->lock != l->sym ||
			    strcmp(prof_lock_name(c->sym), l->lock))
				continue;
			sample_json_addf(j, "%s{\"symbol\":", nc ? "," : "");
			sample_json_str(j, c->sym);
			sample_json_addf(j, ",\"lock\":");
			sample_json_str(j, prof_guess_lock(c->sym));
			sample_json_addf(j, ",\"share\":%.4f}", c->n / tot);
			nc++;
		}
		sample_json_addf(j, "]}");
	}
	sample_json_addf(j, "],\"top\":[");
	for (i = 0; i < p->nself && i < top; i++) {
		sample_json_addf(j, "%s{\"symbol\":", i ? "," : "");
		sample_json_str(j, p->self[i].sym);
		sample_json_addf(j, ",\"share\":%.4f}", p->self[i].n / tot);
	}
	sample_json_addf(j, "]}");
}
