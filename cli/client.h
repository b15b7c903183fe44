/*
 * client: the CLI's HTTP client (lib/http_client.c) for the kperfcid API.
 *
 * The server URL comes from -s/--server, else $KPERFCI_SERVER, else
 * http://127.0.0.1:8080; the dispatcher in kperfci.c sets it before any
 * subcommand runs.  Responses are read into a bounded buffer.
 */
#ifndef KPERFCI_CLIENT_H
#define KPERFCI_CLIENT_H

#include <stddef.h>

#include <jansson.h>

#include "lib/buf.h"

extern const char *client_server;
/* Sent as "Authorization: Bearer T" when set: --token, else
   $KPERFCI_TOKEN (kperfci.c). */
extern const char *client_token;

/* What the server sends is printed through cli/term.h. */

/*
 * One request to client_server + path.  body may be NULL (GET).  Returns
 * the HTTP status, or -1 when the server could not be reached (message
 * printed).  The response body is in out (capped at 64 MiB).
 */
int	client_request(const char *method, const char *path,
	    const char *ctype, const void *body, size_t len, struct buf *out);
/*
 * GET/POST returning parsed JSON.  On a non-2xx status prints the
 * server's {"error"} message and returns NULL; *status gets the status.
 */
json_t	*client_json(const char *method, const char *path, json_t *body,
	    int *status);

#endif
