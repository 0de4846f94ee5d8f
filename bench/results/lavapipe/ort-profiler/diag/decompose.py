"""Diagnostic (not in the tree): ORT's raw timestamp queries (read by a logging layer below wgprof's
at each vkQueueSubmit) against wgprof's layer timestamps of the same record."""
import json,re,sys,statistics
log, rep, ortf, K, RUNS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
groups=[];cur={}
for l in open(log):
    m=re.match(r'QRES \S+ pool=(\S+) q=(\d+) t=(\d+)',l)
    if m:
        q=int(m.group(2)); t=int(m.group(3))
        if q==0 and cur: groups.append(cur); cur={}
        cur[q]=t
if cur: groups.append(cur)
groups=[g for g in groups if len(g)==2*K]
r=json.load(open(rep))
its={}
for d in sorted(r['dispatches'],key=lambda d:d['index']):
    its.setdefault(d['iteration'],[]).append(d)
kits=[v for k,v in sorted(its.items()) if sum(1 for x in v if not x['kernel'].startswith('('))==K]
ev=[e for e in json.load(open(ortf)) if e.get('cat')=='Api']
ev.sort(key=lambda e:e['ts'])
n=min(len(groups),len(kits),len(ev)//K,RUNS)
groups,kits,ev=groups[-n:],kits[-n:],ev[-n*K:]
print(f"the last {n} runs, each with all {2*K} of ONNX Runtime's queries read and {K} layer rows")
rows={};durok=0;durall=0
for r_,(g,rw) in enumerate(zip(groups,kits)):
    ks=[d for d in rw if not d['kernel'].startswith('(')]
    for i,d in enumerate(ks):
        q0,q1=g[2*i],g[2*i+1]
        L=d['begin_ticks']; Ln=d['end_ticks']
        e=ev[r_*K+i]; durall+=1; durok+= e['dur']==round((q1-q0)/1000)
        rows.setdefault(i,[]).append(dict(name=e['name'],kernel=d['kernel'],ort=(q1-q0)/1e3,wgprof=(Ln-L)/1e3,pre=(L-q0)/1e3,shared=(q1-L)/1e3,post=(Ln-q1)/1e3,gap=((g[2*i+2]-q1)/1e3 if 2*i+2 in g else None)))
print(f"ONNX Runtime's event dur == round((end query - start query) / 1000): {durok} of {durall}")
print("medians over the runs, us; pre = wgprof's timestamp - ORT's start query (in ORT's interval, before wgprof's);")
print("shared = ORT's end query - wgprof's timestamp; post = wgprof's next timestamp - ORT's end query (in wgprof's, after ORT's);")
print("gap = ORT's next start query - its end query (in no ORT event). ORT = pre + shared, wgprof = shared + post.")
print(f"{'#':>2} {'ONNX Runtime event':40} {'ORT':>9} {'wgprof':>9} {'pre':>7} {'shared':>9} {'post':>7} {'gap':>6}")
med=lambda v,k: statistics.median([x[k] for x in v if x[k] is not None]) if any(x[k] is not None for x in v) else None
f=lambda x: '-' if x is None else f"{x:.1f}"
for i,v in sorted(rows.items()):
    print(f"{i:>2} {v[0]['name'][:40]:40} {f(med(v,'ort')):>9} {f(med(v,'wgprof')):>9} {f(med(v,'pre')):>7} {f(med(v,'shared')):>9} {f(med(v,'post')):>7} {f(med(v,'gap')):>6}")
