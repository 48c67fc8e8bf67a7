"""A learned chunk ranker for retrieval, fitted and judged leave one teamqa set out.

Input: the candidates `ragask rows --candidates FILE` writes (each search's reranked pool, best first,
with its retrieval features) for teamqa's sets. A candidate is labelled as holding the evidence when
most of an evidence line's words stand in its title, headings and text. A logistic regression over the
features below is fitted on twelve sets and judged on the thirteenth: how often a chunk holding the
evidence stands among the first five of the question's own search (the passages the reader reads),
against today's order (cosine of the best window plus a quarter of the normalised BM25).

    python3 scripts/train_chunk_ranker.py CAND.jsonl [...] [--teamqa DIR] [--out weights.json] [--pointwise] [--scores S.jsonl ...]

--scores adds a chunk scorer's held-out logits (scripts/train_chunk_scorer.py) as two features.

Standard library and numpy only.
"""
import json, math, re, sys, unicodedata
import numpy as np

STOP = set("""a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
off on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom whose why will with would you your yours yourself yourselves also may might must shall upon
via per than whether either neither yet ever still else often usually etc""".split())
WORD = re.compile(r"[^\W_]+(?:[.,]\d+)*")
# a chunk holds an evidence line when this share of the line's words stand in it
EVIDENCE_SHARE = 0.6
TOP = 5
L2 = 1.0


def content_terms(text):
    """ragask's contentTerms (src/engine/text.ts): folded, lower-cased, stop words out, plural -s cut."""
    t = unicodedata.normalize("NFKD", text)
    t = "".join(ch for ch in t if not unicodedata.combining(ch)).lower()
    t = re.sub("[\u2212\u2012\u2013\u2014]", "-", t)
    out = []
    for w in WORD.findall(t):
        if w in STOP or (len(w) < 2 and not any(c.isdigit() for c in w)):
            continue
        out.append(w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def share(terms, text_terms):
    return sum(1 for t in terms if t in text_terms) / len(terms) if terms else 0.0


FEATURES = ["rerank", "lexical", "no_lexical", "no_dense", "fused", "rerank_gap", "lexical_gap",
            "q_title", "q_headings", "q_text", "table_row", "list_item", "code", "entry", "log_tokens", "entry_named", "title_named"]


def features(query_terms, pool):
    qset = set(query_terms)
    best_rerank = max(c["rerank"] for c in pool)
    best_lex = max((c["lexical"] or 0) for c in pool)
    rows = []
    for c in pool:
        lex = c["lexical"] or 0.0
        rows.append([
            c["rerank"], lex, 1.0 if c["lexical"] is None else 0.0, 1.0 if c["dense"] is None else 0.0,
            c["fused"] * 60, c["rerank"] - best_rerank, lex - best_lex,
            share(query_terms, set(content_terms(c["title"]))),
            share(query_terms, set(content_terms(" ".join(c["headings"])))),
            share(query_terms, set(content_terms(c["text"]))),
            1.0 if c["kind"] == "table_row" else 0.0, 1.0 if c["kind"] == "list_item" else 0.0,
            1.0 if c["kind"] == "code" else 0.0, 1.0 if c["entry"] else 0.0,
            math.log(1 + c["tokens"]),
            # the question names the chunk's entry (a parameter, a table row) or its page
            share(content_terms(c["entry"] or ""), qset),
            share(content_terms(c["title"]), qset),
        ])
    return rows


def holds_answer(answers, text):
    low = text.lower()
    for a in answers:
        a = a.lower().strip()
        if a and re.search(r"(?<![\w])" + re.escape(a) + r"(?![\w])", low):
            return True
    return False


def label(evidence_terms, answers, c):
    """The chunk holds an evidence line: most of its words, and for the last line (the answer's) an answer."""
    whole = " ".join([c["title"], *c["headings"], c["text"]])
    have = set(content_terms(whole))
    for i, ev in enumerate(evidence_terms):
        if ev and share(ev, have) >= EVIDENCE_SHARE and (i < len(evidence_terms) - 1 or holds_answer(answers, whole)):
            return 1.0
    return 0.0


def load(files, questions, scores=None):
    out = []
    for f in files:
        for raw in open(f):
            o = json.loads(raw)
            q = questions.get((o["dataset"], o["id"]))
            if not q or not q["evidence"] or not q["answers"] or not o["searches"]:
                continue
            s = o["searches"][0]  # the question's own search (the first hop)
            pool = s["candidates"]
            if not pool:
                continue
            ev = [content_terms(e) for e in q["evidence"]]
            X = np.array(features(content_terms(s["query"]), pool))
            if scores is not None:
                logits = scores.get((o["dataset"], str(o["id"])))
                if logits is None:
                    continue
                ce = np.full(len(pool), min(logits) - 1.0)
                ce[: len(logits)] = logits
                X = np.hstack([X, ce[:, None], (ce - ce.max())[:, None]])
            out.append({"set": o["dataset"], "X": X,
                        "y": np.array([label(ev, q["answers"], c) for c in pool]), "score": np.array([c["score"] for c in pool])})
    return out


def fit(X, y):
    """L2-penalised logistic regression by Newton's method on standardised features."""
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.hstack([(X - mu) / sd, np.ones((len(X), 1))])
    w = np.zeros(Z.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-Z @ w))
        g = Z.T @ (p - y) + L2 * np.r_[w[:-1], 0]
        H = (Z * (p * (1 - p))[:, None]).T @ Z + L2 * np.diag(np.r_[np.ones(len(w) - 1), 0])
        w -= np.linalg.solve(H, g)
    # back to the raw features: logit = x . coef + bias
    coef = w[:-1] / sd
    return coef, w[-1] - (mu * coef).sum()


def fit_listwise(groups, steps=400, lr=0.05):
    """A softmax over each question's pool, fitted to put its mass on the chunks holding the evidence
    (groups without one are skipped): the ranking, not each chunk's odds, is what is learned."""
    groups = [g for g in groups if g["y"].max() > 0]
    X = np.vstack([g["X"] for g in groups])
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Zs = [(g["X"] - mu) / sd for g in groups]
    w = np.zeros(X.shape[1])
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, steps + 1):
        grad = L2 * w / len(groups)
        for Z, g in zip(Zs, groups):
            s = Z @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            q = p * g["y"]
            q /= q.sum()
            grad += Z.T @ (p - q) / len(groups)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    coef = w / sd
    return coef, -(mu * coef).sum()


def top_hit(order, y, k=TOP):
    return float(y[order[:k]].max() > 0)


def fit_pointwise(groups):
    return fit(np.vstack([r["X"] for r in groups]), np.concatenate([r["y"] for r in groups]))


def main():
    args = sys.argv[1:]
    out = None
    # the softmax over each pool by default; --pointwise: each chunk's odds alone (it ranked worse)
    fit_of = fit_listwise
    if "--pointwise" in args:
        args.remove("--pointwise")
        fit_of = fit_pointwise
    teamqa = "../shared/datasets/teamqa"
    if "--teamqa" in args:
        i = args.index("--teamqa")
        teamqa = args[i + 1]
        args = args[:i] + args[i + 2:]
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        args = args[:i] + args[i + 2:]
    scores = None
    if "--scores" in args:
        i = args.index("--scores")
        files = args[i + 1:]
        args = args[:i]
        scores = {}
        for f in files:
            for raw in open(f):
                o = json.loads(raw)
                scores[(o["dataset"], str(o["id"]))] = o["logits"]
        FEATURES.extend(["scorer", "scorer_gap"])
    questions = {}
    for d in set(json.loads(l)["dataset"] for f in args for l in open(f)):
        for raw in open(f"{teamqa}/{d}/questions.jsonl"):
            q = json.loads(raw)
            questions[(d, str(q["id"]))] = {"evidence": q.get("evidence") or [], "answers": q.get("answers") or []}
    data = load(args, questions, scores)
    sets = sorted(set(r["set"] for r in data))
    print(f"{len(data)} questions with evidence, {len(sets)} sets; evidence in the pool for "
          f"{sum(r['y'].max() > 0 for r in data)}")
    print(f"| set | questions | evidence in pool | today @{TOP} | learned @{TOP} | today @1 | learned @1 |")
    print("|---|---|---|---|---|---|---|")
    tot = np.zeros(6)
    extra = {h: np.zeros(4) for h in sets}
    for held in sets:
        train = [r for r in data if r["set"] != held]
        coef, b = fit_of(train)
        test = [r for r in data if r["set"] == held]
        row = np.zeros(6)
        for r in test:
            learned = np.argsort(-(r["X"] @ coef + b), kind="stable")
            today = np.arange(len(r["y"]))  # the pool is written best first
            row += [1, r["y"].max(), top_hit(today, r["y"]), top_hit(learned, r["y"]), top_hit(today, r["y"], 1),
                    top_hit(learned, r["y"], 1)]
            if scores is not None:
                alone = np.argsort(-r["X"][:, -2], kind="stable")
                extra[held] += [top_hit(alone, r["y"]), top_hit(alone, r["y"], 1), top_hit(today, r["y"], 1),
                                top_hit(learned, r["y"], 1)]
        tot += row
        n = row[0]
        print(f"| {held} | {int(n)} | {row[1]/n:.3f} | {row[2]/n:.3f} | {row[3]/n:.3f} | {row[4]/n:.3f} | {row[5]/n:.3f} |")
    n = tot[0]
    print(f"| **pooled** | {int(n)} | {tot[1]/n:.3f} | {tot[2]/n:.3f} | {tot[3]/n:.3f} | {tot[4]/n:.3f} | {tot[5]/n:.3f} |")
    if scores is not None:
        print(f"scorer alone @{TOP} / @1, today @1, learned with the scorer @1:")
        for h, e in extra.items():
            n = sum(1 for r in data if r["set"] == h)
            print(f"  {h}: {e[0]/n:.3f} / {e[1]/n:.3f}, {e[2]/n:.3f}, {e[3]/n:.3f}")
        e = sum(extra.values())
        print(f"  pooled: {e[0]/len(data):.3f} / {e[1]/len(data):.3f}, {e[2]/len(data):.3f}, {e[3]/len(data):.3f}")
    coef, b = fit_of(data)
    print("all sets:", {f: round(float(c), 4) for f, c in zip(FEATURES, coef)}, "bias", round(float(b), 4))
    if out:
        json.dump({"features": FEATURES, "coef": [float(c) for c in coef], "bias": float(b)}, open(out, "w"))


if __name__ == "__main__":
    main()
