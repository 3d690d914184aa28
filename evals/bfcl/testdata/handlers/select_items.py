# Merges published results with the official verdicts: one line per item.
import sys, os, json
RES, VER, OUT, LIMIT = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
for d in sorted(os.listdir(VER)):
    for fn in sorted(os.listdir(os.path.join(VER, d))):
        cat = fn[:-6]
        res = [json.loads(l) for l in open(os.path.join(RES, d, f"gorilla_openfunctions_v1_test_{cat}_result.json")) if l.strip()]
        ver = [json.loads(l) for l in open(os.path.join(VER, d, fn))]
        rows = []
        for r, v in zip(res, ver):
            assert r["id"] == v["id"]
            rows.append({"id": r["id"], "result": r["result"], "valid": v["valid"], "error_type": v["error_type"]})
        if LIMIT:
            # every distinct error type at least once, then the first items
            keep, seen = [], set()
            by_len = sorted(rows, key=lambda x: len(json.dumps(x["result"])))
            for x in by_len:
                if x["error_type"] not in seen:
                    seen.add(x["error_type"]); keep.append(x)
            for x in by_len:
                if len(keep) >= LIMIT: break
                if x not in keep: keep.append(x)
            order = {x["id"]: i for i, x in enumerate(rows)}
            rows = sorted(keep, key=lambda x: order[x["id"]])
        os.makedirs(os.path.join(OUT, d), exist_ok=True)
        with open(os.path.join(OUT, d, cat + ".jsonl"), "w") as f:
            for x in rows: f.write(json.dumps(x, ensure_ascii=False) + "\n")
