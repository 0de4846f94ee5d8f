#!/usr/bin/env python3
"""Each round's step of the compared build (layer-compare) over this build's (layer), from a
scripts/device-layer.sh times.txt: their median and in how many rounds this build was faster.
    python3 compare.py times.txt > compare.txt"""
import collections
import statistics
import sys

t = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 4:
        try:
            t[(p[0], int(p[2]))][p[1]] = float(p[3])
        except ValueError:
            pass
print("# layer-compare's step over layer's, within each round")
for impl in ('wgpu-native', 'dawn'):
    r = [t[k]['layer-compare'] / t[k]['layer'] for k in sorted(t)
         if k[0] == impl and 'layer' in t[k] and 'layer-compare' in t[k]]
    if r:
        print(impl, 'median', round(statistics.median(r), 4), 'layer faster in', sum(x > 1 for x in r), 'of',
              len(r), 'rounds')
