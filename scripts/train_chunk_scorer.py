"""A chunk scorer for retrieval: a MiniLM-L6 cross-encoder that reads a question with one retrieved chunk
and says whether the chunk holds the evidence, trained on the pools the engine really searched
(`ragask rows --candidates CAND.jsonl`): each question's chunks that hold an evidence line (as
train_chunk_ranker.py labels them) against the best-ranked others of the same search.

    python train_chunk_scorer.py --cand CAND.jsonl [CAND.jsonl ...] --teamqa DIR --base UPSTREAM_DIR \
        --out OUT [--hold-out a,b] [--score-held-out SCORES.jsonl] [--epochs 1] [--bf16] [--no-export]

--score-held-out writes, for every question of the held-out sets, the scorer's logit for each of the first
SCORED chunks of its own search, in the pool's order (scripts/train_chunk_ranker.py --scores reads them).
Input layout: [CLS] question [SEP] title > headings : chunk text [SEP]
"""
import argparse, json, math, os, random, sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_line_scorer import Scorer, encode, export, fit_pairs  # noqa: E402  (the cross-encoder, its loop and checked int8 export)
from train_chunk_ranker import content_terms, label  # noqa: E402
from train_reader import sha256_file  # noqa: E402

MAX_LEN = 192
NEGATIVES = 7
# hard negatives come from the best-ranked chunks of the search: what the reranker must tell apart
NEGATIVE_DEPTH = 20
SCORED = 20


def log(msg):
    print(f"[train-chunk-scorer] {msg}", file=sys.stderr, flush=True)


def chunk_input(c):
    path = " > ".join([c["title"], *[h for h in c["headings"] if h and h != c["title"]]])
    return f"{path} : {c['text']}"


def load(files, teamqa):
    questions = {}
    out = []
    for f in files:
        for raw in open(f):
            o = json.loads(raw)
            d = o["dataset"]
            if d not in questions:
                questions[d] = {str(q["id"]): q for q in map(json.loads, open(os.path.join(teamqa, d, "questions.jsonl")))}
            q = questions[d].get(str(o["id"]))
            if not q or not o["searches"] or not o["searches"][0]["candidates"]:
                continue
            pool = o["searches"][0]["candidates"]
            ev = [content_terms(e) for e in q.get("evidence") or []]
            answers = q.get("answers") or []
            y = [label(ev, answers, c) if answers and ev else 0.0 for c in pool]
            out.append({"dataset": d, "id": str(o["id"]), "question": q["question"], "pool": pool, "y": y})
    return out


def pairs_of(rows, rng):
    out = []
    for r in rows:
        pos = [c for c, y in zip(r["pool"], r["y"]) if y > 0]
        if not pos:
            continue
        neg = [c for c, y in zip(r["pool"][:NEGATIVE_DEPTH], r["y"][:NEGATIVE_DEPTH]) if y == 0]
        rng.shuffle(pos)
        rng.shuffle(neg)
        out += [(r["question"], chunk_input(c), 1.0) for c in pos[:2]]
        out += [(r["question"], chunk_input(c), 0.0) for c in neg[:NEGATIVES]]
    rng.shuffle(out)
    return out


def groups_of(rows, rng):
    """Listwise: one chunk holding the evidence with NEGATIVES others of the same search, the positive
    first. A softmax over the group asks which chunk of this question's pool answers, so the scorer
    cannot learn what evidence looks like in general and ignore the question."""
    out = []
    for r in rows:
        pos = [c for c, y in zip(r["pool"], r["y"]) if y > 0]
        neg = [c for c, y in zip(r["pool"][:NEGATIVE_DEPTH], r["y"][:NEGATIVE_DEPTH]) if y == 0]
        if not pos or len(neg) < NEGATIVES:
            continue
        rng.shuffle(neg)
        out.append([(r["question"], chunk_input(c), 0.0) for c in [rng.choice(pos), *neg[:NEGATIVES]]])
    rng.shuffle(out)
    return out


@torch.no_grad()
def score_rows(model, tok, rows):
    model.eval()
    for r in rows:
        texts = [chunk_input(c) for c in r["pool"][:SCORED]]
        logits = []
        for i in range(0, len(texts), 32):
            enc, _ = encode(tok, [(r["question"], t, 0) for t in texts[i:i + 32]], MAX_LEN)
            logits += model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]).float().tolist()
        yield {"dataset": r["dataset"], "id": r["id"], "logits": [round(x, 4) for x in logits]}


def listwise_loss(logits, _labels):
    """A softmax over each group of NEGATIVES + 1 pairs, the chunk holding the evidence first."""
    group = logits.view(-1, NEGATIVES + 1)
    return torch.nn.functional.cross_entropy(group, torch.zeros(len(group), dtype=torch.long))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cand", nargs="+", required=True)
    ap.add_argument("--teamqa", required=True)
    ap.add_argument("--base", required=True, help="upstream all-MiniLM-L6-v2 folder (the scorer starts from its weights)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--hold-out", default="")
    ap.add_argument("--score-held-out", default=None)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--bf16", action="store_true")
    ap.add_argument("--max-steps", type=int, default=0, help="at most this many steps (-1: none, only score)")
    ap.add_argument("--init", default=None, help="a scorer.pt to start from (with --max-steps -1: score with it)")
    ap.add_argument("--no-export", action="store_true")
    ap.add_argument("--listwise", action="store_true", help="a softmax over each question's group (else each pair alone)")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(a.base)
    hold = {s for s in a.hold_out.split(",") if s}
    rows = load(a.cand, a.teamqa)
    train = [r for r in rows if r["dataset"] not in hold]
    held = [r for r in rows if r["dataset"] in hold]
    pairs = []
    for e in range(max(1, math.ceil(a.epochs))):
        if a.listwise:  # whole groups, in order: a batch of 32 pairs is four questions
            pairs += [p for g in groups_of(train, random.Random(a.seed + e)) for p in g]
        else:
            pairs += pairs_of(train, random.Random(a.seed + e))
    pairs = pairs[: int(len(pairs) * a.epochs / max(1, math.ceil(a.epochs))) // (NEGATIVES + 1) * (NEGATIVES + 1)]
    steps = math.ceil(len(pairs) / a.batch)
    if a.max_steps:
        steps = max(0, min(steps, a.max_steps))
    log(f"{len(train)} questions trained on ({len(pairs)} pairs, {steps} steps); {len(held)} held out ({', '.join(sorted(hold)) or 'none'})")
    model = Scorer(a.base)
    if a.init:
        model.load_state_dict(torch.load(a.init))
    seconds = fit_pairs(model, tok, pairs, steps=steps, batch=a.batch, lr=a.lr, bf16=a.bf16, max_len=MAX_LEN,
                        loss_of=listwise_loss if a.listwise else torch.nn.BCEWithLogitsLoss(), log=log, every=10)
    os.makedirs(a.out, exist_ok=True)
    if a.score_held_out and held:
        with open(a.score_held_out, "w") as f:
            for s in score_rows(model, tok, held):
                f.write(json.dumps(s) + "\n")
        log(f"scored {len(held)} held-out questions into {a.score_held_out}")
    info = {"kind": "chunk-scorer", "maxLength": MAX_LEN, "variants": {"int8": "model.int8.onnx"},
            "tokenizer": {"model": "all-MiniLM-L6-v2", "sha256": sha256_file(os.path.join(a.base, "tokenizer.json"))},
            "training": {"sets": sorted({r["dataset"] for r in train}), "pairs": len(pairs), "steps": steps,
                         "batch": a.batch, "lr": a.lr, "epochs": a.epochs, "seed": a.seed,
                         "minutes": round(seconds / 60, 1)}}
    if not a.no_export:
        info["exportCheck"] = export(model, tok, a.out, MAX_LEN)
        info["name"] = os.path.basename(os.path.normpath(a.out))
        info["sha256"] = {"model.int8.onnx": sha256_file(os.path.join(a.out, "model.int8.onnx"))}
    else:
        torch.save(model.state_dict(), os.path.join(a.out, "scorer.pt"))
    with open(os.path.join(a.out, "ragask-model.json"), "w") as f:
        json.dump(info, f, indent=2)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
