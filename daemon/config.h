/*
 * config: kperfci.conf, git-config style.
 *
 *	# comment
 *	[daemon]
 *	port = 8080
 *	[tree "linux-6.12"]
 *	path = /srv/linux
 *
 * Every key the daemon knows is one row of the table in config.c
 * (section, key, type, default, check).  An unknown section or key, a value
 * of the wrong type or one its check refuses is an error naming file:line.
 * Sections declared with a subsection ([tree "NAME"]) may appear once per
 * name; CONFIG_LIST keys may repeat and keep every value in order; other keys
 * keep the last value.
 *
 * Areas extend the table in config.c with one block of rows each; their
 * values reach them as typed fields of struct settings (settings.h), which
 * settings.c fills through the getters below (they apply the defaults).
 * Asking for a key that is not in the table is a programming error (fatal).
 */
#ifndef KPERFCI_CONFIG_H
#define KPERFCI_CONFIG_H

#include <stddef.h>

#include "lib/buf.h"

enum config_type {
	CONFIG_STR,
	CONFIG_INT,		/* decimal, optional leading '-' */
	CONFIG_BOOL,		/* true/false, yes/no, on/off, 1/0 */
	CONFIG_SIZE,		/* bytes with optional K/M/G suffix */
	CONFIG_LIST,		/* repeatable string */
};

struct config_key {
	const char	*section;
	const char	*key;
	enum config_type type;
	const char	*def;		/* NULL: no default */
	/* Optional extra check: 0, or -1 with a sentence in err. */
	int		(*check)(const char *value, struct buf *err);
	int		 sub;		/* 1: section takes a "NAME" */
};

struct config_entry {
	const struct config_key *key;
	char	*sub;			/* subsection name or NULL */
	char	*value;
	char	*file;
	int	 line;
};

struct config {
	struct config_entry *entries;
	size_t	 n, cap;
	char	**subs;			/* "section\0name" pairs seen, in order */
	size_t	 nsubs;
};

void	config_init(struct config *);
void	config_release(struct config *);
/*
 * Parses text (name is used in messages: "name:line: ...").  Returns 0, or
 * -1 with one line per problem appended to err.  Entries are added to cfg,
 * so several files can be layered.
 */
int	config_parse(struct config *, const char *name, const char *text,
	    struct buf *err);
/* Reads and parses a file (at most 1 MiB). */
int	config_load(struct config *, const char *path, struct buf *err);
/* The embedded etc/kperfci.conf (linked in at build time by .incbin). */
extern const char config_default_text[];
int	config_load_default(struct config *, struct buf *err);

/* sub is NULL for sections without a subsection name. */
const char *config_str(const struct config *, const char *section,
	    const char *sub, const char *key);
long long config_int(const struct config *, const char *section,
	    const char *sub, const char *key);
int	config_bool(const struct config *, const char *section,
	    const char *sub, const char *key);
/* i-th value of a CONFIG_LIST key, NULL past the end. */
const char *config_list(const struct config *, const char *section,
	    const char *sub, const char *key, size_t i);
/* i-th subsection name seen for section ([tree "a"], [tree "b"]), or NULL. */
const char *config_subsection(const struct config *, const char *section,
	    size_t i);

/* The example agent token etc/agent.conf ships (always refused). */
#define CONFIG_AGENT_EXAMPLE_TOKEN	"change-me"

/*
 * Value parsers of the key table that readers use again at run time.
 * config_parse_at: "HH:MM" as minutes after midnight, or -1.
 * config_parse_every: "6h" (a number and m, h or d) as seconds, or -1.
 * config_addr_spec: the addr-spec of "Name <a@b>" or "a@b" into out (sz
 * bytes); 0 or -1.  config_check_reply: yes, regressions or no; 0, or -1
 * with err.
 */
int	config_parse_at(const char *value);
long	config_parse_every(const char *value);
int	config_addr_spec(const char *value, char *out, size_t sz);
int	config_check_reply(const char *value, struct buf *err);

/* For -n and tests: the table itself. */
extern const struct config_key config_keys[];
extern const size_t config_nkeys;

#endif
