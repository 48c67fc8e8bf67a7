"""Train a line scorer: MiniLM-L6 (all-MiniLM-L6-v2 weights) fine-tuned as a cross-encoder that reads a
question with one sentence and says whether the sentence holds the answer (answer-sentence
selection), as a candidate feature of the line ranker (src/engine/answer/lines.ts). Measured, not
kept: beside the ranker's features it ranked the first line no better on the tuning sets left out
one at a time (BENCHMARKS.md, "A line scorer trained on SQuAD"; scripts/measure_line_scorer.py).
Exports the int8 ONNX, checked against PyTorch, and prints what it did as JSON.

    .venv-export/bin/python scripts/train_line_scorer.py --base UPSTREAM_DIR --data ../shared/datasets \
        --out OUT_DIR [--max-pairs 60000] [--minutes 35] [--checkpoint FILE] [--export-only]

UPSTREAM_DIR: `node scripts/fetch-models.mjs --upstream-to=UPSTREAM_DIR` (which prints the venv's python).

Rows: ../shared/datasets/reader-squad11-train (SQuAD 1.1 train; no paragraph of an evaluation corpus).
Each question gives its answer's sentence (label 1) and up to --negatives other sentences of the same
paragraph (label 0): the hard case, a sentence on the same subject that does not say it. Articles are
split by a hash of their name: dev articles are never trained on.

Input layout:
    [CLS] question [SEP] line [SEP]      token types 0, then 1 after the first [SEP]
"""
import argparse, hashlib, json, math, os, random, re, sys, time

import numpy as np
import torch

from train_reader import sha256_file

SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z0-9])")
DEV_SHARE = 0.03


def log(msg):
    print(f"[train-line-scorer] {msg}", file=sys.stderr, flush=True)


def is_dev(article):
    return int(hashlib.sha256(article.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < DEV_SHARE


def sentences(text):
    """(start, end, text) of each sentence: split after . ! ? before a capital, digit or quote."""
    out, start = [], 0
    for m in SENTENCE_END.finditer(text):
        out.append((start, m.start(), text[start:m.start()]))
        start = m.end()
    out.append((start, len(text), text[start:]))
    return [s for s in out if s[2].strip()]


def questions(path):
    """Each row as (article, question, [(sentence, label)]); rows whose answer's sentence is unclear are skipped."""
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            if not row["spans"]:
                continue
            span = row["spans"][0]
            ctx = row["contexts"][span["context"]]["text"]
            sents = sentences(ctx)
            labelled = [(s[2].strip(), 1 if s[0] <= span["start"] < s[1] else 0) for s in sents]
            if sum(y for _, y in labelled) != 1 or len(labelled) < 2:
                continue
            yield row["meta"]["article"], row["question"], labelled


def pairs_of(rows, negatives, rng):
    out = []
    for _, q, labelled in rows:
        pos = [s for s, y in labelled if y]
        neg = [s for s, y in labelled if not y]
        rng.shuffle(neg)
        out += [(q, pos[0], 1.0)] + [(q, s, 0.0) for s in neg[:negatives]]
    rng.shuffle(out)
    return out


def encode(tok, batch, max_len):
    enc = tok([q for q, _, _ in batch], [s for _, s, _ in batch], truncation="only_second", max_length=max_len,
              padding=True, return_tensors="pt")
    return enc, torch.tensor([y for _, _, y in batch])


def fit_pairs(model, tok, pairs, *, steps, batch, lr, bf16, max_len, loss_of, log, every=25):
    """One pass of a cross-encoder over (question, text, label) pairs, `batch` at a time: AdamW with a linear
    warm-up and decay, gradients clipped at 1, bf16 autocast where asked. `loss_of(logits, labels)` is the
    loss (each pair alone, or a softmax over a group). Used by train_teamqa_lines.py and train_chunk_scorer.py."""
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    warm = max(1, steps // 16)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    t0 = time.time()
    for step in range(steps):
        enc, y = encode(tok, pairs[step * batch:(step + 1) * batch], max_len)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits = model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
        loss = loss_of(logits.float(), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(), sched.step(), opt.zero_grad()
        if (step + 1) % every == 0:
            rate = (step + 1) / (time.time() - t0)
            log(f"step {step + 1}/{steps} loss {loss.item():.3f}; ETA {(steps - step - 1) / rate / 60:.1f} min")
    model.eval()
    return time.time() - t0


class Scorer(torch.nn.Module):
    """MiniLM with one logit on [CLS]: P(this line holds the answer)."""

    def __init__(self, base):
        super().__init__()
        from transformers import BertModel
        self.bert = BertModel.from_pretrained(base, attn_implementation="eager", add_pooling_layer=False)
        self.head = torch.nn.Linear(self.bert.config.hidden_size, 1)

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        return self.head(h[:, 0]).squeeze(-1)


@torch.no_grad()
def dev_accuracy(model, tok, dev, max_len):
    """Share of dev questions whose best-scored sentence of the paragraph is the answer's."""
    model.eval()
    right = 0
    for _, q, labelled in dev:
        enc, _ = encode(tok, [(q, s, y) for s, y in labelled], max_len)
        logits = model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
        right += labelled[int(logits.argmax())][1]
    model.train()
    return right / max(1, len(dev))


def export(model, tok, out, max_len):
    from onnxruntime.quantization import QuantType, quantize_dynamic
    import onnxruntime as ort
    model.eval()
    example = tuple(torch.ones(2, 16, dtype=torch.long) for _ in range(2)) + (torch.zeros(2, 16, dtype=torch.long),)
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("sequence", max=512)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    fp32 = os.path.join(out, "model.onnx")
    torch.onnx.export(model, example, fp32, input_names=names, output_names=["logits"],
                      dynamic_shapes={n: {0: batch, 1: seq} for n in names}, opset_version=17, dynamo=True,
                      external_data=False, verbose=False)
    int8 = os.path.join(out, "model.int8.onnx")
    quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8, per_channel=True)
    enc, _ = encode(tok, [(q, line, 0) for q, line in GOLDEN], max_len)
    feeds = {n: enc[n].numpy().astype(np.int64) for n in names}
    with torch.no_grad():
        ref = model(*(enc[n] for n in names)).numpy()
    report = {}
    for name, path in (("fp32", fp32), ("int8", int8)):
        got = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        report[name] = {"max_abs_diff": float(np.abs(got - ref).max())}
    os.remove(fp32)
    return report


# Pairs the export is checked on (written here, not taken from any evaluation set).
GOLDEN = [
    ("What is the default timeout?", "The default timeout is 60 seconds."),
    ("What is the default timeout?", "This directive can only be set in the server configuration."),
    ("Which tool creates the password file for basic authentication?", "htpasswd — create and update the flat files used to store user names and passwords."),
    ("Which tool creates the password file for basic authentication?", "htdigest — manage user files for digest authentication."),
    ("How do I check the configuration for syntax errors?", "configtest — Run a configuration file syntax test."),
    ("Who leads Project Falcon?", "Project lead: Mirela Ostrowski"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-pairs", type=int, default=40000)
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--negatives", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--dev", type=int, default=400)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--export-only", action="store_true", help="export the checkpoint as it is, without training")
    a = ap.parse_args()
    if a.export_only and not (a.checkpoint and os.path.exists(a.checkpoint)):
        sys.exit("train_line_scorer: --export-only needs --checkpoint FILE of an earlier run")
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    rng = random.Random(a.seed)
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(a.base)
    path = os.path.join(a.data, "reader-squad11-train", "reader.jsonl")
    rows = list(questions(path))
    train = [r for r in rows if not is_dev(r[0])]
    dev = [r for r in rows if is_dev(r[0])]
    rng.shuffle(dev)
    dev = dev[: a.dev]
    pairs = pairs_of(train, a.negatives, rng)[: a.max_pairs]
    log(f"{len(rows)} questions with one answer sentence; {len(train)} train, dev {len(dev)}; {len(pairs)} pairs")
    model = Scorer(a.base)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    steps = math.ceil(len(pairs) / a.batch)
    warm = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    start_step = 0
    if a.checkpoint and os.path.exists(a.checkpoint):
        ck = torch.load(a.checkpoint, weights_only=False)
        model.load_state_dict(ck["model"]), opt.load_state_dict(ck["opt"]), sched.load_state_dict(ck["sched"])
        start_step = ck["step"]
        log(f"resumed at step {start_step}")
    t0 = time.time()
    if a.export_only:
        steps = start_step
    else:
        log(f"dev answer-sentence@1 before training: {dev_accuracy(model, tok, dev, a.max_len):.3f}")
    loss_fn = torch.nn.BCEWithLogitsLoss()
    step = start_step - 1
    for step in range(start_step, steps):
        enc, y = encode(tok, pairs[step * a.batch:(step + 1) * a.batch], a.max_len)
        loss = loss_fn(model(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(), sched.step(), opt.zero_grad()
        done = step + 1 - start_step
        if done % 50 == 0:
            rate = done / (time.time() - t0)
            log(f"step {step + 1}/{steps} loss {loss.item():.3f}; {rate * a.batch:.1f} pairs/s; ETA {(steps - step - 1) / rate / 60:.1f} min")
        if a.checkpoint and done % 200 == 0:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step + 1}, a.checkpoint)
        if time.time() - t0 > a.minutes * 60:
            log(f"time budget reached at step {step + 1}")
            break
    acc = dev_accuracy(model, tok, dev, a.max_len)
    log(f"dev answer-sentence@1 after training: {acc:.3f}")
    os.makedirs(a.out, exist_ok=True)
    report = export(model, tok, a.out, a.max_len)
    info = {
        "name": os.path.basename(os.path.normpath(a.out)),
        "kind": "line-scorer",
        "variants": {"int8": "model.int8.onnx"},
        "maxLength": a.max_len,
        "tokenizer": {"model": "all-MiniLM-L6-v2", "sha256": sha256_file(os.path.join(a.base, "tokenizer.json"))},
        "training": {"rows": "reader-squad11-train", "rows_sha256": sha256_file(path), "pairs": min(len(pairs), (step + 1) * a.batch),
                     "steps": step + 1, "batch": a.batch, "lr": a.lr, "negatives": a.negatives, "seed": a.seed,
                     "minutes": round((time.time() - t0) / 60, 1)},
        "dev": {"questions": len(dev), "answer_sentence_at_1": round(acc, 4)},
        "exportCheck": report,
    }
    print(json.dumps(info))


if __name__ == "__main__":
    main()
