#!/usr/bin/env python3
"""The gap report's topic map: a linear map learned on top of the sentence encoder so that one team's
questions about the same page come together and questions about different pages of the same documents
move apart (the report groups by cosine; src/engine/gaps.ts).

Learned from scripts/topic-vectors.mjs's output (teamqa's thirteen sets and the questions written over
their sources; a question's topic is the page it asks about). Each step reads a batch of one set's
questions, centres them on the batch's own mean (as the report centres a report's questions), maps
them with W = I + U V^T and takes the supervised contrastive loss (Khosla et al. 2020) over their pages,
with W held near the identity (so what the encoder knows stays).

Leave one set out: for each set, a map learned on the other twelve; the held-out set's questions are
drawn as small reports (K pages, M questions each) and grouped by average linkage at the threshold
chosen on the training sets' own draws; the adjusted Rand index against the pages, beside the same
for the identity (today's grouping). Measured, not kept: docs/benchmarks-history.md, "a topic map".

  .venv-export/bin/python scripts/train_topic_map.py --vectors .tmp/topics/vectors.jsonl
"""
import argparse
import json
import os
import sys
import time
from collections import defaultdict

import numpy as np
import torch

THRESHOLDS = [round(0.025 * k, 3) for k in range(1, 17)]


def load(path):
    by_set = defaultdict(lambda: {"x": [], "topic": []})
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            by_set[r["set"]]["x"].append(r["vector"])
            by_set[r["set"]]["topic"].append(r["topic"])
    out = {}
    for s, d in sorted(by_set.items()):
        topics = sorted(set(d["topic"]))
        out[s] = (np.asarray(d["x"], dtype=np.float32), np.asarray([topics.index(t) for t in d["topic"]]))
    return out


def centred_unit(x):
    x = x - x.mean(0, keepdims=True)
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)


def average_linkage(v, threshold):
    """The groups of unit vectors v merged while their average cosine is at least threshold (as gaps.ts)."""
    sim = v @ v.T
    groups = [[i] for i in range(len(v))]
    while len(groups) > 1:
        best, pair = threshold, None
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                s = sim[np.ix_(groups[a], groups[b])].mean()
                if s >= best:
                    best, pair = s, (a, b)
        if pair is None:
            break
        a, b = pair
        groups = [g for k, g in enumerate(groups) if k not in pair] + [groups[a] + groups[b]]
    of = np.zeros(len(v), dtype=int)
    for k, g in enumerate(groups):
        of[g] = k
    return of


def ari(a, b):
    def c2(n):
        return n * (n - 1) / 2

    pairs, rows, cols = defaultdict(int), defaultdict(int), defaultdict(int)
    for x, y in zip(a, b):
        pairs[(x, y)] += 1
        rows[x] += 1
        cols[y] += 1
    index = sum(c2(n) for n in pairs.values())
    sr, sc = sum(c2(n) for n in rows.values()), sum(c2(n) for n in cols.values())
    expected = sr * sc / c2(len(a))
    denom = (sr + sc) / 2 - expected
    return 0.0 if denom == 0 else (index - expected) / denom


def draws(topic, pages, per_page, n, seed):
    """n small reports of one set: `pages` pages with at least `per_page` questions, `per_page` of each."""
    rng = np.random.default_rng(seed)
    counts = np.bincount(topic)
    eligible = np.flatnonzero(counts >= per_page)
    if len(eligible) < pages:
        return []
    out = []
    for _ in range(n):
        chosen = rng.choice(eligible, pages, replace=False)
        out.append(np.concatenate([rng.choice(np.flatnonzero(topic == t), per_page, replace=False) for t in chosen]))
    return out


def grouping_ari(x, topic, reports, mapping):
    """Mean ARI by threshold over the reports, each centred on its own mean, mapped, re-normalised."""
    scores = np.zeros(len(THRESHOLDS))
    for idx in reports:
        v = centred_unit(x[idx]) @ mapping.T
        v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)
        for k, t in enumerate(THRESHOLDS):
            scores[k] += ari(topic[idx], average_linkage(v, t))
    return scores / max(len(reports), 1)


def train(data, args, seed):
    """W = I + U V^T learned on the sets of `data`; returns W as a numpy array."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    dim = next(iter(data.values()))[0].shape[1]
    u = torch.nn.Parameter(torch.randn(dim, args.rank) * 0.01)
    v = torch.nn.Parameter(torch.randn(dim, args.rank) * 0.01)
    opt = torch.optim.Adam([u, v], lr=args.lr)
    sets = list(data)
    eye = torch.eye(dim)
    for step in range(args.steps):
        x, topic = data[sets[step % len(sets)]]
        counts = np.bincount(topic)
        pages = rng.permutation(np.flatnonzero(counts >= 2))[: args.pages]
        idx = np.concatenate([rng.permutation(np.flatnonzero(topic == p))[: args.per_page] for p in pages])
        xb = torch.from_numpy(centred_unit(x[idx]))
        w = eye + u @ v.T
        z = torch.nn.functional.normalize(xb @ w.T, dim=1)
        labels = torch.from_numpy(topic[idx])
        logits = z @ z.T / args.tau
        self_mask = torch.eye(len(idx), dtype=torch.bool)
        logits = logits.masked_fill(self_mask, -1e9)
        log_prob = logits - torch.logsumexp(logits, dim=1, keepdim=True)
        positive = (labels[:, None] == labels[None, :]) & ~self_mask
        has = positive.any(1)
        loss = -(log_prob * positive).sum(1)[has] / positive.sum(1)[has]
        loss = loss.mean() + args.l2 * ((w - eye) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if args.verbose and step % 250 == 0:
            print(f"  step {step} loss {loss.item():.3f}", flush=True)
    return (eye + u @ v.T).detach().numpy()


def evaluate(data, held, mapping, args):
    """The held-out set's draws grouped at the threshold the training sets' draws choose."""
    train_scores = np.mean(
        [grouping_ari(x, t, draws(t, args.eval_pages, args.eval_per_page, 10, 7), mapping)
         for s, (x, t) in data.items() if s != held and draws(t, args.eval_pages, args.eval_per_page, 1, 7)],
        axis=0,
    )
    k = int(np.argmax(train_scores))
    x, t = data[held]
    held_scores = grouping_ari(x, t, draws(t, args.eval_pages, args.eval_per_page, args.eval_draws, 11), mapping)
    return THRESHOLDS[k], held_scores[k], held_scores.max()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--vectors", default=".tmp/topics/vectors.jsonl")
    p.add_argument("--rank", type=int, default=64)
    p.add_argument("--tau", type=float, default=0.1)
    p.add_argument("--l2", type=float, default=0.01)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--pages", type=int, default=16, help="pages a training batch draws")
    p.add_argument("--per-page", type=int, default=4)
    p.add_argument("--eval-pages", type=int, default=6)
    p.add_argument("--eval-per-page", type=int, default=3)
    p.add_argument("--eval-draws", type=int, default=30)
    p.add_argument("--sets", help="comma-separated sets to hold out (default: each in turn)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    if not os.path.exists(args.vectors):
        sys.exit(f"--vectors {args.vectors}: no such file; run node scripts/topic-vectors.mjs first")
    data = load(args.vectors)
    dim = next(iter(data.values()))[0].shape[1]
    held_sets = args.sets.split(",") if args.sets else list(data)
    rows, start = [], time.time()
    for n, held in enumerate(held_sets):
        train_data = {s: d for s, d in data.items() if s != held}
        mapping = train(train_data, args, args.seed)
        base = evaluate(data, held, np.eye(dim, dtype=np.float32), args)
        learned = evaluate(data, held, mapping, args)
        rows.append((held, base, learned))
        eta = (time.time() - start) / (n + 1) * (len(held_sets) - n - 1)
        print(f"{held:14s} identity ARI {base[1]:.3f} (t {base[0]}, best {base[2]:.3f})   "
              f"learned ARI {learned[1]:.3f} (t {learned[0]}, best {learned[2]:.3f})   eta {eta:.0f} s", flush=True)
    if rows:
        print(f"{'mean':14s} identity ARI {np.mean([r[1][1] for r in rows]):.3f}   "
              f"learned ARI {np.mean([r[2][1] for r in rows]):.3f}")


if __name__ == "__main__":
    main()
