"""Measure a line scorer (scripts/train_line_scorer.py's checkpoint) as a feature of the line ranker.

    npx ragask calibrate --lines --dataset … --dump LINES.jsonl     (each question's candidate lines;
                                                                    without --report-on: every set in it is a fold)
    .venv-export/bin/python scripts/measure_line_scorer.py LINES.jsonl CHECKPOINT UPSTREAM_DIR

Scores every candidate line with the scorer, then fits the line ranker's logistic regression leaving
one set out (standardised features, L2 1, as `ragask calibrate --lines` does; its figures without the
scorer come out the same) three ways: the ranker's features, the same with the scorer's logit, and the
logit alone. Prints ranked@1 / ranked@3 of the set left out.
"""
import json, sys

import numpy as np
import torch
from transformers import AutoTokenizer

from train_line_scorer import Scorer

CROSS_CLIP = 8.0
L2 = 1.0


def scores(model, tok, question, texts):
    out = []
    with torch.no_grad():
        for i in range(0, len(texts), 32):
            b = texts[i:i + 32]
            enc = tok([question] * len(b), b, truncation="only_second", max_length=128, padding=True, return_tensors="pt")
            out += model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]).tolist()
    return [max(-CROSS_CLIP, min(CROSS_CLIP, s)) for s in out]


def fit(X, y, iters=50):
    """Logistic regression by Newton's method on standardised features, L2 on the weights."""
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = (X - mu) / sd
    w, b = np.zeros(Z.shape[1]), 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(Z @ w + b)))
        W = p * (1 - p)
        w -= np.linalg.solve((Z.T * W) @ Z + L2 * np.eye(len(w)), Z.T @ (p - y) + L2 * w)
        b -= (p - y).sum() / W.sum()
    return lambda X: ((X - mu) / sd) @ w + b


def features(line, use, base):
    x = list(line["x"][:base])
    return {"ranker": x, "ranker+scorer": x + [line["cross"]], "scorer alone": [line["cross"]]}[use]


def main(dump, checkpoint, upstream):
    questions = [json.loads(l) for l in open(dump)]
    tok = AutoTokenizer.from_pretrained(upstream)
    model = Scorer(upstream)
    state = torch.load(checkpoint, weights_only=False)
    model.load_state_dict(state.get("model", state))
    model.eval()
    for q in questions:
        for line, s in zip(q["lines"], scores(model, tok, q["question"], [l["text"] for l in q["lines"]])):
            line["cross"] = s
    base = len(next(q["lines"][0]["x"] for q in questions if q["lines"]))
    sets = sorted({q["dataset"] for q in questions})
    for use in ("ranker", "ranker+scorer", "scorer alone"):
        cells = []
        for held in sets:
            train = [l for q in questions if q["dataset"] != held for l in q["lines"]]
            rank = fit(np.array([features(l, use, base) for l in train]), np.array([l["y"] for l in train], float))
            mine = [q for q in questions if q["dataset"] == held]
            at1 = at3 = 0
            for q in mine:
                if not q["lines"]:
                    continue
                order = np.argsort(-rank(np.array([features(l, use, base) for l in q["lines"]])))
                ys = [q["lines"][i]["y"] for i in order]
                at1 += ys[0]
                at3 += max(ys[:3])
            cells.append(f"{held} {at1 / len(mine):.3f}/{at3 / len(mine):.3f}")
        print(f"{use:14} " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
