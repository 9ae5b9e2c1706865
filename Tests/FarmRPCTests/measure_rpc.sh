#!/usr/bin/env bash
# Times aria2's tellActive, tellWaiting(0, 100), tellStopped(0, 100) and getGlobalStat over HTTP on a spool of
# N queued resources (default 100,000; nothing runs, as in issue 61's figures): the median of 7 calls each,
# in milliseconds, with curl's own timing. Not part of the suite (a timing is not an assertion on a shared
# machine). Usage: Tests/FarmRPCTests/measure_rpc.sh PATH/TO/farm [N]
set -euo pipefail
farm=$1
n=${2:-100000}
dir=$(mktemp -d /dev/shm/farm-rpc-XXXXXX 2>/dev/null || mktemp -d)
serve=
cleanup() { [ -n "$serve" ] && kill "$serve" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
python3 -c "import json; json.dump(['http://127.0.0.1:9/r/%d.jpg' % i for i in range($n)], open('$dir/Big.json', 'w'))"
"$farm" add --spool "$dir/spool" "$dir/Big.json" >/dev/null
"$farm" serve --spool "$dir/spool" --port 0 >"$dir/serve.out" 2>&1 &
serve=$!
for _ in $(seq 300); do grep -q 'http://' "$dir/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$dir/serve.out" | head -1)jsonrpc
call() {
    curl -s -o /dev/null -w '%{time_total}\n' --max-time 60 \
        -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"aria2.$1\",\"params\":[$2]}" "$url"
}
# One call of each first: the tables the server keeps are read once, as a client's first look pays.
for method in tellActive tellWaiting tellStopped getGlobalStat; do call $method '' >/dev/null; done
while read -r method params; do
    median=$(for _ in 1 2 3 4 5 6 7; do call "$method" "$params"; done | sort -n | sed -n 4p)
    printf '%-30s %6.1f ms\n' "$method($params)" "$(python3 -c "print($median * 1000)")"
done <<'CALLS'
tellActive
tellWaiting 0,100
tellStopped 0,100
getGlobalStat
CALLS
