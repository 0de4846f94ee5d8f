#!/usr/bin/env bash
set -u
wgprof=/work/main/build/cli/wgprof
pages=/work/main/tests/browser
chromium=$(command -v chromium)
flags=(--headless=new --no-sandbox --enable-unsafe-webgpu --enable-logging=stderr)
for n in $(seq 1 ${1:-10}); do
d=$(mktemp -d /tmp/br/a.XXXX); cd $d
setsid $wgprof record --json hash.json -- "$chromium" "${flags[@]}" --user-data-dir=$d/profile "file://$pages/compute.html?steps=20" >hash.out 2>hash.err &
pid=$!
for i in $(seq 1 900); do grep -q "wgprof-page: result" hash.err 2>/dev/null && break; sleep 0.1; done
gpu=$(pgrep -g $pid -f type=gpu-process | head -1)
strace -f -tt -p $gpu -o gpu.trace -e trace=renameat,exit_group,exit,kill,tgkill,munmap -e signal=all 2>/dev/null &
st=$!
sleep 0.5
kill -INT -- -$pid; wait $pid; echo $? > status
sleep 0.5; kill $st 2>/dev/null
r=$(python3 -c "
import json;r=json.load(open('hash.json'));print(r['partial'], len(r['dispatches']))" 2>&1)
echo "$n $d $r"
case "$r" in "False 2"*) cd /; rm -rf $d;; esac
done
