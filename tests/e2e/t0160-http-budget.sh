#!/bin/sh
# t0160-http-budget: request bodies cannot starve the server (issue 18,
# findings 1 and 5's trickle).  The real daemon on loopback, loopback not
# trusted; raw sockets (python3) play the attackers:
#   - anonymous clients declaring 64 MiB bodies are answered 401 from their
#     headers, before a byte of body is read or any room held;
#   - submitters holding their whole share get 503 naming the share, while
#     an agent's upload-sized POST and /healthz still go through;
#   - a body trickled a byte at a time is cut once [http] timeout has
#     passed and it falls under [http] min_rate.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"

ALICE=alice-token-not-secret
sha() { printf %s "$1" | sha256sum | cut -d' ' -f1; }

kd_config "[lore]\nallow = http://127.0.0.1:9/\n[http]\nmax_inflight = 64M\ntimeout = 3\nmin_rate = 16K\n[auth]\ntrust_loopback = false\n[submitter \"alice\"]\ntoken_sha256 = $(sha $ALICE)\n$(ka_section a1)"
ok "daemon starts" kd_start

# slow PORT PATH LENGTH SECONDS [TOKEN]: declares LENGTH bytes, then sends one
# byte a second for SECONDS; prints "answered CODE after N s" when the
# server answered (or closed: "closed after N s"), else "open".
cat >"$T/slow.py" <<'PY'
import socket, sys, time
port, path, length, secs = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
tok = sys.argv[5] if len(sys.argv) > 5 else None
s = socket.create_connection(("127.0.0.1", port))
h = "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % (path, port, length)
if tok:
    h += "Authorization: Bearer %s\r\n" % tok
s.sendall((h + "\r\n").encode())
s.settimeout(1.0)
t0 = time.time()
while time.time() - t0 < secs:
    try:
        d = s.recv(4096)
        if not d:
            print("closed after %d s" % (time.time() - t0)); sys.exit(0)
        print("answered %s after %d s" % (d.split()[1].decode(), time.time() - t0)); sys.exit(0)
    except socket.timeout:
        pass
    except ConnectionError:
        print("closed after %d s" % (time.time() - t0)); sys.exit(0)
    try:
        s.sendall(b" ")
    except (BrokenPipeError, ConnectionError):
        print("closed after %d s" % (time.time() - t0)); sys.exit(0)
print("open")
PY
slow() { python3 "$T/slow.py" "$KD_PORT" "$@"; }

# ---- anonymous: refused from the headers --------------------------------
P=
for i in 1 2 3 4; do
	slow /api/v1/series 67108864 20 >"$T/anon$i.out" &
	P="$P $!"
done
sleep 2
for i in 1 2 3 4; do
	like "answered 401 after [01] s" "$T/anon$i.out" \
	    "anonymous 64 MiB body $i: 401 at once, nothing read"
done
wait $P
slow /api/v1/agents/register 67108864 5 >"$T/anon-agent.out"
like "answered 401 after [01] s" "$T/anon-agent.out" \
    "an agent route without a token: 401 from the headers"
slow /api/v1/agents/register 1000 5 guess >"$T/bad-agent.out"
like "answered 403 after [01] s" "$T/bad-agent.out" \
    "an agent route with a wrong token: 403 from the headers"

# ---- submitters at their share; agents unaffected -----------------------
# a share is 3/8 of 64M = 24M: two 12M bodies fill it
slow /api/v1/series 12582912 12 "$ALICE" >"$T/s1.out" &
P=$!
slow /api/v1/series 12582912 12 "$ALICE" >"$T/s2.out" &
P="$P $!"
sleep 1
is "$(curl -s -o "$T/r.out" -w '%{http_code}' -H "Authorization: Bearer $ALICE" \
    -H 'Content-Type: application/json' -H 'Content-Length: 4194304' \
    --data-binary @/dev/null --max-time 5 "$KD_URL/api/v1/series")" 503 \
    "a third submitter body past the submitters' share: 503"
like "share of \\[http\\] max_inflight" "$T/r.out" "naming the share"
TOPO='{"sockets":2,"nodes":2,"cpus":4,"cores":4,"cpu_model":"Test CPU","memory_mb":2048,"node_cpus":["0-1","2-3"]}'
REG="{\"agent\":\"a1\",\"backend\":\"qemu\",\"kernel_release\":\"6.1.0\",\"topology\":$TOPO}"
is "$(api_post /api/v1/agents/register "$REG" a1)" 200 \
    "meanwhile an agent registers (its own share)"
is "$(curl -s -o /dev/null -w '%{http_code}' "$KD_URL/healthz")" 200 \
    "and /healthz answers"

# ---- a trickle is cut ---------------------------------------------------
wait $P
like "closed after ([3-9]|1[01]) s" "$T/s1.out" \
    "a body trickled at 1 byte/s is cut after [http] timeout"
like "slower than \\[http\\] min_rate" "$T/kperfcid.log" "and the log says why"

ok "daemon stops cleanly" kd_stop
test_done
