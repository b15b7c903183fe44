#!/usr/bin/env python3
# lore-fake.py PORT TARGET_BASE THREAD_GZ: a misbehaving lore on loopback for
# tests/e2e/t1000-lore-fetch.sh.  The first path component picks the
# misbehaviour:
#   /redirect/<rest>   302 to TARGET_BASE<rest>     (another base)
#   /self/<rest>       302 to /plain/<rest> here     (same base)
#   /plain/...         200 with THREAD_GZ
#   /huge/...          200 streaming 65 MiB of junk
#   /bomb/...          200 with a small gzip that inflates to 80 MiB
#   /trunc/...         200 with the first half of THREAD_GZ
#   /loop/...          302 to itself, forever
import gzip, http.server, sys

PORT, TARGET, THREAD = int(sys.argv[1]), sys.argv[2], open(sys.argv[3], 'rb').read()
BOMB = gzip.compress(b'\0' * (80 << 20), 9)

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send(self, code, body=b'', headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        parts = self.path.split('/', 2)
        mode, rest = parts[1], parts[2] if len(parts) > 2 else ''
        if mode == 'redirect':
            self.send(302, headers=[('Location', TARGET + rest)])
        elif mode == 'self':
            self.send(302, headers=[('Location', '/plain/' + rest)])
        elif mode == 'loop':
            self.send(302, headers=[('Location', self.path)])
        elif mode == 'plain':
            self.send(200, THREAD)
        elif mode == 'trunc':
            self.send(200, THREAD[:len(THREAD) // 2])
        elif mode == 'bomb':
            self.send(200, BOMB)
        elif mode == 'huge':
            self.send_response(200)
            self.end_headers()   # no length: curl cannot refuse it early
            chunk = b'x' * (1 << 20)
            try:
                for _ in range(65):
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
        else:
            self.send(404, b'not found')

http.server.ThreadingHTTPServer(('127.0.0.1', PORT), H).serve_forever()
