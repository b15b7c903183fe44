#!/usr/bin/env python3
# lava-fake.py PORT TOKEN LOG: a misbehaving LAVA server on loopback for
# tests/e2e/t4750-lava-bad-server.sh -- what a real lava-server (t7700)
# cannot be made to do.  The first path component picks the misbehaviour
# (the bridge's [lava] url ends with it):
#   /flaky/   the submission answers 503 twice, then 201; the job's state
#             answers HTML twice, then Finished/Complete; its log 404
#   /refuse/  the submission answers 400 with LAVA's message
#   /gone/    the submission answers 201; the job then answers 404
#   /multi/   the submission answers 201 with two job ids (multinode)
# Every request whose Authorization is not "Token TOKEN" gets 401.  Each
# request is logged to LOG as "METHOD PATH".
import http.server, json, sys

PORT, TOKEN, LOG = int(sys.argv[1]), sys.argv[2], sys.argv[3]
count = {}

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send(self, code, body):
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        b = body.encode()
        self.send_response(code)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def seen(self, key):
        count[key] = count.get(key, 0) + 1
        return count[key]

    def handle_any(self, method):
        with open(LOG, 'a') as f:
            f.write('%s %s\n' % (method, self.path))
        n = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(n) if n else b''
        if self.headers.get('Authorization') != 'Token ' + TOKEN:
            return self.send(401, {'detail': 'Invalid token.'})
        parts = self.path.strip('/').split('/')
        mode, rest = parts[0], '/'.join(parts[1:])
        if rest == 'api/v0.2/jobs' and method == 'POST':
            if 'definition' not in json.loads(body or b'{}'):
                return self.send(400, {'message': 'no definition'})
            if mode == 'flaky' and self.seen('submit') <= 2:
                return self.send(503, '<html>Service Unavailable</html>')
            if mode == 'refuse':
                return self.send(400, {'message': 'Problem with submitted '
                                       'job data: Invalid device type'})
            if mode == 'multi':
                return self.send(201, {'job_ids': [41, 42]})
            return self.send(201, {'message': 'job(s) successfully '
                                   'submitted', 'job_ids': [7]})
        if rest == 'api/v0.2/jobs/7':
            if mode == 'gone':
                return self.send(404, {'detail': 'Not found.'})
            if self.seen('state') <= 2:
                return self.send(200, '<html><body>garbage</body></html>')
            return self.send(200, {'id': 7, 'state': 'Finished',
                                   'health': 'Complete',
                                   'failure_comment': None})
        return self.send(404, {'detail': 'Not found.'})

    def do_GET(self):
        self.handle_any('GET')

    def do_POST(self):
        self.handle_any('POST')

http.server.ThreadingHTTPServer(('127.0.0.1', PORT), H).serve_forever()
