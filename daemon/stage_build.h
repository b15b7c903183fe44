/*
 * stage_build: the pipeline stages of trees and builds, and their parts of
 * the series page and JSON.
 *
 *	fetched -> applied	stage_apply: choose the base, apply the series
 *	applied -> built	stage_build: build base, then patched from it
 *
 * When no [tree] is configured the apply stage waits (the series rests at
 * fetched), so a daemon without trees behaves as before.
 */
#ifndef KPERFCI_STAGE_BUILD_H
#define KPERFCI_STAGE_BUILD_H

#include <jansson.h>

#include "lib/buf.h"

struct stage_ctx;
struct db;
struct db_build;

int	stage_apply(struct stage_ctx *);
int	stage_build(struct stage_ctx *);

/* Series section (routes.c): "builds" in the JSON, a <section> on the page. */

/* The JSON object of one build row (series JSON and /api/v1/builds/ID). */

#endif
