"""Median per partition of every stage and beside span in cuzk timeline files (`cuzk bench --timeline`, .jsonl or .jsonl.gz): python3 session19_tl.py FILE..."""
import json, sys, gzip, statistics, collections
for f in sys.argv[1:]:
    op = gzip.open if f.endswith('.gz') else open
    per = collections.defaultdict(lambda: collections.defaultdict(float))
    kinds = collections.Counter()
    for line in op(f, 'rt'):
        e = json.loads(line)
        kinds[e.get('kind')] += 1
        if e.get('kind') == 'stage' and e.get('dur') is not None:
            key = (e.get('job'), e.get('partition'))
            n = e['name'] + ('*' if e.get('detail') == 'beside' else '')
            per[key][n] += e['dur']
    names = sorted({n for p in per.values() for n in p})
    print(f"== {f}: {len(per)} partitions; kinds {dict(kinds)}")
    for n in names:
        v = [p.get(n, 0.0) for p in per.values()]
        print(f"  {n:18s} median {statistics.median(v)*1e3:9.1f} ms  mean {statistics.mean(v)*1e3:9.1f} ms")
