#!/usr/bin/env bash
# run the hash page N times under record; keep the failures' files
set -u
wgprof=/work/main/build/cli/wgprof
pages=/work/main/tests/browser
chromium=$(command -v chromium)
flags=(--headless=new --no-sandbox --enable-unsafe-webgpu --enable-logging=stderr)
out=/tmp/br/runs; mkdir -p $out
for n in $(seq 1 ${1:-10}); do
  d=$(mktemp -d /tmp/br/r.XXXX); cd $d
  name=hash
  setsid $wgprof record --json $name.json -- "$chromium" "${flags[@]}" --user-data-dir=$d/profile "file://$pages/compute.html?steps=20" >$name.out 2>$name.err &
  pid=$!
  for i in $(seq 1 600); do grep -q "wgprof-page: result" $name.err 2>/dev/null && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -INT -- -$pid 2>/dev/null
  wait $pid; echo $? > $name.status
  r=$(python3 -c "
import json;r=json.load(open('$name.json'));s=r.get('result_sets') and [x['report'] for x in r['result_sets']] or [r]
print(len(s), [x['partial'] for x in s], [k['count'] for x in s for k in x['kernels'] if not k['name'].startswith('(')])" 2>&1)
  echo "$n $d status=$(cat $name.status) $r"
  case "$r" in *"[False]"*", [20]"*) cd /; rm -rf $d;; esac
done
