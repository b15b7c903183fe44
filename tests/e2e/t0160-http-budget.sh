#!/bin/sh
# t0160-http-budget: request bodies cannot starve the server (issue 18,
# findings 1 and 5's trickle).  The real daemon on loopback, loopback not
# trusted; raw sockets (python3) play the attackers:
#   - anonymous clients declaring 64 MiB bodies are answered 401 from their
#     headers, before a byte of body is read or any room held;
#   - submitters holding their whole share get 503 naming the share, while
#     an agent's upload-sized POST and /healthz still go through;
#   - a body trickled a byte at a time is cut once [http] timeout has
#     passed and it falls under [http] min_rate;
#   - slow connections from 50 addresses of one /24 (each under the
#     per-address cap) cannot take every slot: the per-prefix cap refuses
#     them, /healthz from another /24 answers, headers trickled a byte a
#     second are cut at [http] header_timeout, and the reserved slots
#     still admit an agent's address.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/daemon-lib.sh"
. "$SRC/tests/agent-lib.sh"

ALICE=alice-token-not-secret
BOB=bob-token-not-secret
CAROL=carol-token-not-secret
sha() { printf %s "$1" | sha256sum | cut -d' ' -f1; }

kd_config "[lore]\nallow = http://127.0.0.1:9/\n[http]\nmax_inflight = 64M\ntimeout = 10\nmin_rate = 16K\n[auth]\ntrust_loopback = false\n[submitter \"alice\"]\ntoken_sha256 = $(sha $ALICE)\n[submitter \"bob\"]\ntoken_sha256 = $(sha $BOB)\n[submitter \"carol\"]\ntoken_sha256 = $(sha $CAROL)\n$(ka_section a1 a2)"
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
sys.stderr.write("held\n"); sys.stderr.flush()
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
held() {	# held FILE...: until each slow client has sent its headers
	for i in $(seq 100); do
		n=0
		for f in "$@"; do grep -q held "$f" 2>/dev/null && n=$((n + 1)); done
		[ $n -eq $# ] && sleep 0.5 && return 0
		sleep 0.2
	done
	return 1
}

# ---- anonymous: refused from the headers --------------------------------
P=
for i in 1 2 3 4; do
	slow /api/v1/series 67108864 20 >"$T/anon$i.out" 2>/dev/null &
	P="$P $!"
done
wait $P
for i in 1 2 3 4; do
	like "answered 401 after" "$T/anon$i.out" \
	    "anonymous 64 MiB body $i: 401 at once, nothing read"
done
slow /api/v1/agents/register 67108864 5 >"$T/anon-agent.out" 2>/dev/null
like "answered 401 after" "$T/anon-agent.out" \
    "an agent route without a token: 401 from the headers"
slow /api/v1/agents/register 1000 5 guess >"$T/bad-agent.out" 2>/dev/null
like "answered 403 after" "$T/bad-agent.out" \
    "an agent route with a wrong token: 403 from the headers"

# ---- submitters at their share; agents unaffected -----------------------
# a share is 3/8 of 64M = 24M, and one principal may hold half of it: alice
# and bob with 12M each fill it
slow /api/v1/series 12582912 25 "$ALICE" >"$T/s1.out" 2>"$T/s1.err" &
P=$!
slow /api/v1/series 12582912 25 "$BOB" >"$T/s2.out" 2>"$T/s2.err" &
P="$P $!"
held "$T/s1.err" "$T/s2.err"
post4m() {	# post4m TOKEN: the answer to a 4 MiB body's headers
	curl -s -o "$T/r.out" -w '%{http_code}' \
	    -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
	    -H 'Content-Length: 4194304' --data-binary @/dev/null \
	    --max-time 5 "$KD_URL/api/v1/series"
}
is "$(post4m "$CAROL")" 503 "a third submitter's body past the submitters' share: 503"
like "share of \\[http\\] max_inflight" "$T/r.out" "naming the share"
is "$(post4m "$ALICE")" 503 "alice's second body past half the share: 503"
like "half of the share of submitters" "$T/r.out" "naming the half a client may hold"
TOPO='{"sockets":2,"nodes":2,"cpus":4,"cores":4,"cpu_model":"Test CPU","memory_mb":2048,"node_cpus":["0-1","2-3"]}'
REG="{\"agent\":\"a1\",\"backend\":\"qemu\",\"kernel_release\":\"6.1.0\",\"topology\":$TOPO}"
REG2=$(printf '%s' "$REG" | sed 's/"a1"/"a2"/')
is "$(api_post /api/v1/agents/register "$REG" a1)" 200 \
    "meanwhile an agent registers (its own share)"
is "$(curl -s -o /dev/null -w '%{http_code}' "$KD_URL/healthz")" 200 \
    "and /healthz answers"
# one agent holding a large upload cannot stop the others
slow /api/v1/jobs/1/results 20971520 25 "$(ka_token a1)" >"$T/a1.out" 2>"$T/a1.err" &
P="$P $!"
held "$T/a1.err"
is "$(curl -s -o "$T/r.out" -w '%{http_code}' -H "Authorization: Bearer $(ka_token a1)" \
    -H 'Content-Type: application/json' -H 'Content-Length: 1048576' \
    --data-binary @/dev/null --max-time 5 "$KD_URL/api/v1/jobs/1/results")" 503 \
    "a1's second upload past half the agents' share: 503"
is "$(api_post /api/v1/agents/register "$REG2" a2)" 200 \
    "while a2 still registers"

# ---- a trickle is cut ---------------------------------------------------
wait $P
like "closed after ([0-9]|1[0-9]|2[0-4]) s" "$T/s1.out" \
    "a body trickled at 1 byte/s is cut after [http] timeout"
like "slower than \\[http\\] min_rate" "$T/kperfcid.log" "and the log says why"

ok "daemon stops cleanly" kd_stop

# ---- slowloris from many addresses of one /24 ---------------------------
kd_config "[lore]\nallow = http://127.0.0.1:9/\n[http]\nmax_connections = 60\nper_ip_connections = 4\nper_prefix_connections = 30\nreserved_connections = 10\nheader_timeout = 4\ntimeout = 30\n[auth]\ntrust_loopback = false\n$(ka_section a1)"
ok "daemon starts for the slowloris round" kd_start
ok "an agent authenticates once from 127.0.2.1 (known for an hour)" \
    sh -c "curl -s -o /dev/null -w '%{http_code}' --interface 127.0.2.1 \
    -H 'Authorization: Bearer $(ka_token a1)' -H 'Content-Type: application/json' \
    -d '$REG' $KD_URL/api/v1/agents/register | grep -q 200"
cat >"$T/loris.py" <<'PY'
import socket, sys, time
# loris.py PORT ADDRS PER HOLD PREFIX...: PER connections from each of
# ADDRS addresses of each PREFIX (127.0.N), headers trickled for HOLD s
port, n, per, hold = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
socks, refused = [], 0
for pre in sys.argv[5:]:
  for a in range(n):
    for k in range(per):
        try:
            s = socket.socket()
            s.bind(("%s.%d" % (pre, a + 2), 0))
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(s)
        except OSError:
            refused += 1
def prune():
    for s in list(socks):
        try:
            s.sendall(b"X")
            s.settimeout(0.01)
            if s.recv(1) == b"":
                raise OSError
        except socket.timeout:
            pass
        except OSError:
            socks.remove(s)
# a refused connection is closed at once; one let in stays until its
# header deadline
time.sleep(1.5)
prune()
alive = len(socks)
t0 = time.time()
while time.time() - t0 < hold:
    prune()
    time.sleep(1)
print("opened %d cut %d" % (alive, alive - len(socks)))
PY
python3 "$T/loris.py" "$KD_PORT" 50 3 8 127.0.1 >"$T/loris.out" &
LP=$!
sleep 2
hz() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 --interface "$1" "$KD_URL/healthz"; }
is "$(hz 127.0.3.1)" 200 "with 150 slow connections from 50 addresses of 127.0.1.0/24, /healthz from another /24 answers"
is "$(hz 127.0.2.1)" 200 "and the agent's address answers"
wait $LP
like "opened [0-9]+ cut [0-9]+" "$T/loris.out" "the attack ran ($(cat "$T/loris.out"))"
n=$(sed -n 's/opened \([0-9]*\).*/\1/p' "$T/loris.out")
cut=$(sed -n 's/.* cut \([0-9]*\)/\1/p' "$T/loris.out")
ok "the per-prefix cap let at most 30 of them in" [ "${n:-99}" -le 30 ]
ok "and every one trickling its headers was cut at header_timeout" [ "${cut:-0}" -eq "${n:-1}" ]
like "per_prefix_connections" "$T/kperfcid.log" "the log names the cap"
like "header_timeout" "$T/kperfcid.log" "and the header deadline"
# two /24s fill every slot but the reserve
python3 "$T/loris.py" "$KD_PORT" 20 3 6 127.0.5 127.0.6 >"$T/loris2.out" &
LP=$!
sleep 2
is "$(hz 127.0.2.1)" 200 "two /24s at their caps fill all but the reserve: the agent's address still answers"
is "$(hz 127.0.3.9)" 000 "an address that never authenticated is refused there (the README says so)"
wait $LP
like "reserved_connections" "$T/kperfcid.log" "the log names the reserve"
ok "daemon stops cleanly" kd_stop
test_done
