"""Train the line scorer on teamqa: a MiniLM-L6 cross-encoder that reads a question with one candidate
line and says whether the line holds the answer, on the lines the engine really offers (ROWS.jsonl from
`ragask rows`): each question's lines that hold a gold answer against the other lines it read. Where no
candidate line holds it, the dataset's own evidence line stands in as the positive, so the scorer
learns how a colleague's description meets a manual's line even where retrieval missed it.

    python train_teamqa_lines.py --rows ROWS.jsonl --base UPSTREAM_DIR --out OUT [--hold-out a,b] \
        [--score-held-out SCORES.jsonl] [--epochs 2] [--bf16]

--hold-out names sets never trained on; --score-held-out writes the scorer's logit for every candidate
line of those sets (their rows in ROWS.jsonl), for the line ranker's fit and its leave-one-set-out
figures (scripts/measure_teamqa_lines.py). Input layout, as src/models/line-scorer.ts builds it:
    [CLS] question [SEP] passage title : line [SEP]
"""
import argparse, json, math, os, random, re, sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_line_scorer import Scorer, encode, export, fit_pairs  # noqa: E402  (the cross-encoder, its loop and checked int8 export)
from train_reader import sha256_file  # noqa: E402

MAX_LEN = 128
NEGATIVES = 7


def log(msg):
    print(f"[train-teamqa-lines] {msg}", file=sys.stderr, flush=True)


def norm(s):
    s = s.lower()
    s = re.sub(r"[^\w\s]", " ", s)
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def holds(text, answers):
    """The gold answer as whole words in the line (eval/metrics.ts containsAnswer, HotpotQA normalisation)."""
    t = f" {norm(text)} "
    return any(norm(a) and f" {norm(a)} " in t for a in answers)


def line_input(row, line):
    title = row["passages"][line["passage"]]["title"] if line["passage"] < len(row["passages"]) else ""
    return f"{title} : {line['text']}" if title else line["text"]


def pairs_of(rows, rng):
    out = []
    for row in rows:
        if not row["answers"] or row["type"] == "unanswerable":
            # nothing answers it: every line is a negative (a few)
            lines = list(row["lines"])
            rng.shuffle(lines)
            out += [(row["question"], line_input(row, l), 0.0) for l in lines[:3]]
            continue
        pos = [l for l in row["lines"] if holds(l["text"], row["answers"])]
        neg = [l for l in row["lines"] if not holds(l["text"], row["answers"])]
        rng.shuffle(neg)
        positives = [line_input(row, l) for l in pos[:2]]
        if not positives and row["evidence"]:
            page = os.path.splitext(os.path.basename(row["supporting"][-1]))[0] if row["supporting"] else ""
            positives = [f"{page} : {row['evidence'][-1]}"]
        out += [(row["question"], p, 1.0) for p in positives]
        out += [(row["question"], line_input(row, l), 0.0) for l in neg[:NEGATIVES]]
    rng.shuffle(out)
    return out


def reader_scorer(base, onnx):
    """The scorer started from an int8 reader (--init-reader): its encoder, which has learned to read a question
    against a passage, and as the head its kind logits' "an answer is here" less "none", so that before any
    training it scores a line as the reader judges a window."""
    import train_reader as tr
    from transformers import BertConfig, BertModel
    reader = tr.Reader(BertModel(BertConfig.from_pretrained(base), add_pooling_layer=False))
    tr.load_int8_onnx(reader, onnx)
    model = Scorer(base)
    model.bert.load_state_dict(reader.bert.state_dict())
    with torch.no_grad():
        model.head.weight.copy_((reader.kind.weight[tr.SPAN] - reader.kind.weight[tr.NONE]).unsqueeze(0))
        model.head.bias.copy_((reader.kind.bias[tr.SPAN] - reader.kind.bias[tr.NONE]).reshape(1))
    return model


@torch.no_grad()
def score_rows(model, tok, rows):
    model.eval()
    out = []
    for row in rows:
        texts = [line_input(row, l) for l in row["lines"]]
        logits = []
        for i in range(0, len(texts), 32):
            enc, _ = encode(tok, [(row["question"], t, 0) for t in texts[i:i + 32]], MAX_LEN)
            logits += model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]).float().tolist()
        out.append({"id": row["id"], "dataset": row["dataset"], "logits": [round(x, 4) for x in logits]})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", required=True)
    ap.add_argument("--base", required=True, help="upstream all-MiniLM-L6-v2 folder (the scorer starts from its weights)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--hold-out", default="")
    ap.add_argument("--score-held-out", default=None)
    ap.add_argument("--epochs", type=float, default=2.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--bf16", action="store_true")
    ap.add_argument("--no-export", action="store_true")
    ap.add_argument("--init-reader", default=None,
                    help="an int8 reader (model.int8.onnx) to start from instead of the sentence encoder; --epochs 0 scores with it as it is")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    rng = random.Random(a.seed)
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(a.base)
    hold = {s for s in a.hold_out.split(",") if s}
    rows = [json.loads(l) for l in open(a.rows) if l.strip()]
    train = [r for r in rows if r["dataset"] not in hold]
    held = [r for r in rows if r["dataset"] in hold]
    pairs = []
    for e in range(max(1, math.ceil(a.epochs))):
        pairs += pairs_of(train, random.Random(a.seed + e))
    pairs = pairs[: int(len(pairs) * a.epochs / max(1, math.ceil(a.epochs)))]
    log(f"{len(train)} rows trained on ({len(pairs)} pairs over {a.epochs} epochs); {len(held)} held out ({', '.join(sorted(hold)) or 'none'})")
    model = reader_scorer(a.base, a.init_reader) if a.init_reader else Scorer(a.base)
    steps = math.ceil(len(pairs) / a.batch)
    seconds = fit_pairs(model, tok, pairs, steps=steps, batch=a.batch, lr=a.lr, bf16=a.bf16, max_len=MAX_LEN,
                        loss_of=torch.nn.BCEWithLogitsLoss(), log=log)
    os.makedirs(a.out, exist_ok=True)
    info = {"kind": "line-scorer", "maxLength": MAX_LEN, "variants": {"int8": "model.int8.onnx"},
            "tokenizer": {"model": "all-MiniLM-L6-v2", "sha256": sha256_file(os.path.join(a.base, "tokenizer.json"))},
            "training": {"rows_sha256": sha256_file(a.rows), "sets": sorted({r["dataset"] for r in train}), "pairs": len(pairs),
                         "steps": steps, "batch": a.batch, "lr": a.lr, "epochs": a.epochs, "seed": a.seed,
                         "minutes": round(seconds / 60, 1)}}
    if a.score_held_out and held:
        with open(a.score_held_out, "w") as f:
            for s in score_rows(model, tok, held):
                f.write(json.dumps(s) + "\n")
        log(f"scored {len(held)} held-out rows into {a.score_held_out}")
    if not a.no_export:
        info["exportCheck"] = export(model, tok, a.out, MAX_LEN)
        info["name"] = os.path.basename(os.path.normpath(a.out))
        info["sha256"] = {"model.int8.onnx": sha256_file(os.path.join(a.out, "model.int8.onnx"))}
        with open(os.path.join(a.out, "ragask-model.json"), "w") as f:
            json.dump(info, f, indent=2)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
