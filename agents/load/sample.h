/*
 * sample: everything kperfci-load writes, as JSON lines, built by hand
 * (the binary is static and links no JSON library).  Other engineers parse
 * these lines; the shape of a sample is fixed:
 *
 *   {"workload":"fault-free","params":"mode=shmem,tasks=4","iteration":3,
 *    "metric":"pages_per_sec","value":123456.7,"unit":"pages/s",
 *    "better":"higher"}
 *
 * params is canonical: "k=v" pairs sorted by key, joined by commas.
 * iteration counts from 1; warm-up iterations are never emitted.
 * An error is one line {"error":"..."} (plus "workload"/"params" when the
 * failing run is known, as in --matrix mode).
 * Strings are escaped per RFC 8259: quote, backslash and control characters
 * (\n \t ... \u00XX); bytes >= 0x80 pass through unchanged, invalid UTF-8
 * is replaced by U+FFFD so the line always parses.
 */
#ifndef KPERFCI_LOAD_SAMPLE_H
#define KPERFCI_LOAD_SAMPLE_H

#include <stddef.h>
#include <stdio.h>

struct sample_json {
	char	*data;
	size_t	 len, cap;
};

void	 sample_json_init(struct sample_json *);
void	 sample_json_release(struct sample_json *);
void	 sample_json_addf(struct sample_json *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Appends s as a quoted, escaped JSON string. */
void	 sample_json_str(struct sample_json *, const char *s);
/* Appends a finite number (NaN/inf become null). */
void	 sample_json_num(struct sample_json *, double);

/* Canonical params: keys[i]=vals[i] sorted by key; malloc'd string. */
char	*sample_params(const char *const *keys, const char *const *vals, int n);

/* Where lines go (stdout unless --out), flushed after every line so a
   crash or a killed guest keeps what was measured. */
void	 sample_set_output(FILE *);
FILE	*sample_output(void);
void	 sample_emit(const char *workload, const char *params, int iteration,
	    const char *metric, double value, const char *unit, int higher);
void	 sample_emit_error(const char *msg, const char *workload,
	    const char *params);
/* Writes a finished JSON object as one line. */
void	 sample_emit_raw(struct sample_json *);

#endif
