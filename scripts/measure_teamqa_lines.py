"""Measure the teamqa line scorer as the line ranker sees it, leave one set out.

    python3 measure_teamqa_lines.py ROWS.jsonl SCORES.jsonl [SCORES.jsonl …]

ROWS.jsonl: `ragask rows` over the teamqa sets (each question's candidate lines with the line ranker's
features, LINE_FEATURES of src/engine/answer/lines.ts). SCORES.jsonl: scripts/train_teamqa_lines.py
--score-held-out, the scorer's logit for every line of the sets its fold never trained on, so every
logit is a held-out one. The line ranker (a logistic regression, standardised features, L2 1, as
`ragask calibrate --lines`) is fitted on every set but one and judged on that one, three ways: its own
features, the same with the scorer's logit, and the logit alone. A line is right when it holds a gold
answer as whole words (what visible@1 counts). Prints one row per set and the pooled figures, over the
set's answerable questions; "any line" is the share whose candidates hold the answer at all.
Standard library and numpy only.
"""
import json, re, sys

import numpy as np

CLIP = 8.0
L2 = 1.0


def norm(s):
    s = re.sub(r"[^\w\s]", " ", s.lower())
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def holds(text, answers):
    t = f" {norm(text)} "
    return any(norm(a) and f" {norm(a)} " in t for a in answers)


def fit(X, y, iters=30):
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = (X - mu) / sd
    w, b = np.zeros(Z.shape[1]), 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-np.clip(Z @ w + b, -30, 30)))
        W = p * (1 - p) + 1e-9
        w -= np.linalg.solve((Z.T * W) @ Z + L2 * np.eye(len(w)), Z.T @ (p - y) + L2 * w)
        b -= (p - y).sum() / W.sum()
    return (lambda X: ((X - mu) / sd) @ w + b), (mu, sd, w, b)


def features(line, use):
    x = list(line["features"])
    c = max(-CLIP, min(CLIP, line["cross"]))
    return {"ranker": x, "ranker+scorer": x + [c], "scorer alone": [c]}[use]


def main(rows_file, *score_files):
    logits = {}
    for f in score_files:
        for l in open(f):
            if l.strip():
                s = json.loads(l)
                logits[s["id"]] = s["logits"]
    rows = [json.loads(l) for l in open(rows_file) if l.strip()]
    rows = [r for r in rows if r["id"] in logits and r["answers"]]
    for r in rows:
        for line, c in zip(r["lines"], logits[r["id"]]):
            line["cross"] = c
            line["y"] = 1.0 if holds(line["text"], r["answers"]) else 0.0
    sets = sorted({r["dataset"] for r in rows})
    uses = ("ranker", "ranker+scorer", "scorer alone")
    table = {u: {} for u in uses}
    for use in uses:
        for held in sets:
            train = [l for r in rows if r["dataset"] != held for l in r["lines"]]
            rank, _ = fit(np.array([features(l, use) for l in train]), np.array([l["y"] for l in train]))
            at1 = at3 = 0
            mine = [r for r in rows if r["dataset"] == held]
            for r in mine:
                if not r["lines"]:
                    continue
                order = np.argsort(-rank(np.array([features(l, use) for l in r["lines"]])), kind="stable")
                ys = [r["lines"][i]["y"] for i in order]
                at1 += ys[0]
                at3 += max(ys[:3])
            table[use][held] = (at1, at3, len(mine))
    ceiling = {s: sum(1 for r in rows if r["dataset"] == s and any(l["y"] for l in r["lines"])) for s in sets}
    print("| set | questions | any line | ranker @1 / @3 | ranker + scorer @1 / @3 | scorer alone @1 / @3 |")
    print("|---|---|---|---|---|---|")
    tot = {u: [0, 0] for u in uses}
    n_all = c_all = 0
    for s in sets:
        n = table["ranker"][s][2]
        n_all += n
        c_all += ceiling[s]
        cells = []
        for u in uses:
            a1, a3, _ = table[u][s]
            tot[u][0] += a1
            tot[u][1] += a3
            cells.append(f"{a1 / n:.3f} / {a3 / n:.3f}")
        print(f"| {s} | {n} | {ceiling[s] / n:.3f} | " + " | ".join(cells) + " |")
    print(f"| **pooled** | {n_all} | {c_all / n_all:.3f} | " + " | ".join(f"{tot[u][0] / n_all:.3f} / {tot[u][1] / n_all:.3f}" for u in uses) + " |")
    all_lines = [l for r in rows for l in r["lines"]]
    _, (mu, sd, w, b) = fit(np.array([features(l, "ranker+scorer") for l in all_lines]), np.array([l["y"] for l in all_lines]))
    # the line ranker fitted on every set, in src/engine/logistic.ts's form (standardised weights)
    model = {"mean": [round(float(x), 6) for x in mu], "std": [round(float(x), 6) for x in sd],
             "weights": [round(float(x), 6) for x in w], "bias": round(float(b), 6),
             "questions": len(rows), "lines": len(all_lines), "datasets": sets}
    print(json.dumps(model))


if __name__ == "__main__":
    main(*sys.argv[1:])
