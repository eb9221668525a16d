"""Summarise a stage-probe run (``bench/stageprobe/sitecustomize.py``): each stage of the socket actions
received from SECONDS after the first one (default 0), p50/p95/p99/max in ms, then the slowest 1 % by
stage, the loop lags and the collections of each process.

    python bench/stageprobe/report.py DIR [SECONDS]

Stages: ``queue`` waiting for a socket thread; ``thread`` the database call (``pool`` of it waiting for a
connection); ``resume`` back on the loop; ``hop`` from the commit's hand-over to the broadcast's build (the
loop's turn, and the batch before it); ``lockwait`` built to sent; ``send`` the batch's round trip to
Redis; ``dispatch_max`` from sent to the last socket handler's start, over every web process;
``sent_max`` from received to the last seat's frame handed to its socket (what the bench's clients see,
less the network and the client).
"""
import glob
import json
import sys
from collections import defaultdict

d = sys.argv[1]
since = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0  # seconds after first act to start counting
acts, snds, dlvs, lags, gcs, dbs = {}, {}, defaultdict(list), [], [], []
for path in glob.glob(f"{d}/*.jsonl"):
    pid = path.rsplit("/", 1)[1].split(".")[0]
    for line in open(path):
        r = json.loads(line)
        r["pid"] = pid
        k = r["k"]
        if k == "act":
            acts[r["t0"]] = r
        elif k == "snd":
            snds[r["t0"]] = r
        elif k == "dlv":
            dlvs[r["t0"]].append(r)
        elif k == "lag":
            lags.append(r)
        elif k == "gc":
            gcs.append(r)
        elif k == "db":
            dbs.append(r)
if not acts:
    sys.exit("no acts")
t_first = min(acts)
t_last = max(acts)
lo = t_first + since


def pct(xs, ps=(50, 95, 99, 100)):
    xs = sorted(xs)
    if not xs:
        return "-"
    return " ".join(f"p{p}={1000 * xs[min(len(xs) - 1, int(len(xs) * p / 100))]:.1f}" for p in ps)


comp = defaultdict(list)
rows = []
for t0, a in acts.items():
    if t0 < lo or "t1" not in a:
        continue
    row = {"queue": a["t1"] - t0, "thread": a["t2"] - a["t1"], "pool": a.get("pw", 0.0), "resume": a["t3"] - a["t2"]}
    if "pub" in a and "b0" in a and "b1" in a:  # b1 is missing when the build was still running at the end
        row["hop"] = a["b0"] - a["pub"]
        row["build"] = a["b1"] - a["b0"]
        s = snds.get(t0)
        if s:
            row["lockwait"] = s["s0"] - a["b1"]
            row["send"] = s["s1"] - s["s0"]
            ds = dlvs.get(t0)
            if ds:
                row["dispatch_max"] = max(x["d"] for x in ds) - s["s1"]
                row["sent_max"] = max(x["e"] for x in ds) - t0
                row["handler_max"] = max(x["e"] - x["d"] for x in ds)
    row["t0"] = t0
    row["pid"] = a["pid"]
    rows.append(row)
    for k, v in row.items():
        if k not in ("t0", "pid"):
            comp[k].append(v)
print(f"acts {len(rows)} over {t_last - t_first:.0f} s (from +{since:.0f} s)")
for k, v in comp.items():
    print(f"{k:14s} n={len(v):6d} {pct(v)}")
full = [r for r in rows if "sent_max" in r]
full.sort(key=lambda r: r["sent_max"])
n = len(full)
top = full[int(n * 0.99):]
print(f"\nslowest 1% ({len(top)}) by sent_max: mean of each component, ms")
keys = ["queue", "thread", "pool", "resume", "hop", "build", "lockwait", "send", "dispatch_max", "handler_max", "sent_max"]
for k in keys:
    vals = [r[k] for r in top if k in r]
    if vals:
        print(f"  {k:14s} {1000 * sum(vals) / len(vals):8.1f}")
print("\nslowest 10 rows:")
for r in full[-10:]:
    print(f"  +{r['t0'] - t_first:7.1f}s pid {r['pid']} " + " ".join(f"{k}={1000 * r[k]:.0f}" for k in keys if k in r))
lag_in = [x for x in lags if x["t"] >= lo]
print(f"\nloop lag events >5ms: {len(lag_in)}; " + pct([x['late'] for x in lag_in]))
big = sorted(lag_in, key=lambda x: -x["late"])[:10]
for x in big:
    print(f"  lag +{x['t'] - t_first:7.1f}s pid {x['pid']} {1000 * x['late']:.0f} ms")
g2 = [x for x in gcs if x["t"] >= lo]
byp = defaultdict(list)
for x in g2:
    byp[(x["pid"], x["gen"])].append(x["dur"])
for key, v in sorted(byp.items()):
    print(f"gc pid {key[0]} gen {key[1]}: n={len(v)} total {sum(v):.2f}s {pct(v)}")
dbk = defaultdict(list)
for x in dbs:
    if x["t0"] >= lo and "t1" in x:
        dbk[x["f"]].append(x["t1"] - x["t0"])
for f, v in dbk.items():
    print(f"db {f}: queue {pct(v)}")
