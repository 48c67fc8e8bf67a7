"""A learned answer type, measured against the cue lists it would replace (issue 47, item 3).

Each question's kind is read off its gold answer with the span scorer's own typeFit: a number, a
path, a name (identifier), a command (a code-like answer to a how-to), or none of these ('any').
Two classifiers learn it from the question, a softmax regression on (1) the question's sentence
embedding (the engine's encoder, as the first hop embeds it) and (2) the question's words and word
pairs (its bag of words, words seen in at least --min-count questions). Each is judged leave one
teamqa set out (written questions train with their set, never scored), against the cue lists of
src/engine/answer/data/answer-types.json (`rule`, never fitted on teamqa); the fit on every set is
then judged on the --report-on sets. Per question: the kind asked is right (accuracy), and the gold
answer earns the typed bonus (+1) or the misfit penalty (-1) under the kind asked.

Rows come from scripts/teamqa-answer-type.mjs (`npm run train-teamqa -- --answer-type`).
  python scripts/train_answer_type.py --rows rows.jsonl --report report.md [--l2 1e-3 --min-count 3]
"""
import argparse
import collections
import json
import re

import numpy as np
import torch

KINDS = ["number", "path", "identifier", "command", "any"]


def kind(r):
    """The kind of the gold answer, most specific first; a code-like answer to a how-to is a command."""
    f = r["fits"]
    if f["number"] == 1:
        return "number"
    if f["path"] == 1:
        return "path"
    if f["identifier"] == 1 and r["type"] != "procedure":
        return "identifier"
    if f["command"] == 1:
        return "command"
    return "any"


def words(q):
    w = re.findall(r"[a-z]+(?:'[a-z]+)?", q.lower())
    return set(w) | {f"{a} {b}" for a, b in zip(w, w[1:])} | ({"^" + w[0]} if w else set())


class Embedding:
    name = "sentence embedding"

    def __init__(self, rows, _min_count):
        pass

    def x(self, rows):
        return torch.tensor(np.array([r["vec"] for r in rows], dtype=np.float32))


class Words:
    name = "words and word pairs"

    def __init__(self, rows, min_count):
        c = collections.Counter(t for r in rows for t in words(r["question"]))
        self.index = {t: i for i, t in enumerate(sorted(t for t, n in c.items() if n >= min_count))}

    def x(self, rows):
        m = np.zeros((len(rows), len(self.index)), dtype=np.float32)
        for i, r in enumerate(rows):
            for t in words(r["question"]):
                if t in self.index:
                    m[i, self.index[t]] = 1
        return torch.tensor(m)


def fit(features, rows, l2, min_count):
    f = features(rows, min_count)
    x = f.x(rows)
    y = torch.tensor([KINDS.index(kind(r)) for r in rows])
    w = torch.zeros(x.shape[1], len(KINDS), requires_grad=True)
    b = torch.zeros(len(KINDS), requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=500, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(x @ w + b, y) + l2 * (w**2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return lambda rs: [KINDS[int(i)] for i in torch.argmax(f.x(rs) @ w.detach() + b.detach(), -1)]


def tally(rows, asked):
    c = collections.Counter()
    for r, k in zip(rows, asked):
        if r["type"] == "unanswerable":
            continue
        c["n"] += 1
        c["right"] += k == kind(r)
        c[r["fits"].get(k, 0)] += 1
    return c


def cell(c):
    return f"{c['right'] / max(1, c['n']):.3f} (+{c[1]} / -{c[-1]})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", required=True)
    ap.add_argument("--report", required=True, help="a Markdown table of the held-out figures")
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--min-count", type=int, default=3)
    a = ap.parse_args()
    torch.manual_seed(0)
    rows = [json.loads(s) for s in open(a.rows)]
    train = [r for r in rows if not r.get("report")]
    report = [r for r in rows if r.get("report")]
    learners = [Embedding, Words]
    head = "| set | answerable | cue lists (rule) | " + " | ".join(f.name for f in learners) + " |"
    sep = "|---|---|---|" + "---|" * len(learners)
    out = [
        "Kind asked right, and the gold answer's fit to it (+ typed bonus / - misfit penalty).",
        "", "Leave one teamqa set out:", "", head, sep,
    ]
    pooled = [collections.Counter() for _ in range(len(learners) + 1)]
    for s in sorted({r["set"] for r in train}):
        held = [r for r in train if r["set"] == s and not r.get("written")]
        rest = [r for r in train if r["set"] != s]
        cs = [tally(held, [r["rule"] for r in held])]
        cs += [tally(held, fit(f, rest, a.l2, a.min_count)(held)) for f in learners]
        for p, c in zip(pooled, cs):
            p.update(c)
        out.append(f"| {s} | {cs[0]['n']} | " + " | ".join(cell(c) for c in cs) + " |")
    out.append(f"| **pooled** | {pooled[0]['n']} | " + " | ".join(cell(c) for c in pooled) + " |")
    if report:
        out += ["", "Fitted on every teamqa set, on sets never trained on:", "", head, sep]
        predictors = [fit(f, train, a.l2, a.min_count) for f in learners]
        for s in sorted({r["set"] for r in report}):
            rs = [r for r in report if r["set"] == s]
            cs = [tally(rs, [r["rule"] for r in rs])] + [tally(rs, p(rs)) for p in predictors]
            out.append(f"| {s} | {cs[0]['n']} | " + " | ".join(cell(c) for c in cs) + " |")
    open(a.report, "w").write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
