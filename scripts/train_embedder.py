"""Fine-tune the sentence-embedding BERT (all-MiniLM-L6-v2) on teamqa: each question against the stored
window that holds its evidence line, so the windows a colleague's wording should find rank first.

    python train_embedder.py --upstream DIR --out DIR --set NAME=STORE_DB [--set …] [--epochs N]

Each --set names a teamqa set (../shared/datasets/teamqa/NAME) and the SQLite store `ragask eval` built
for it (its ragask.db): the windows are ragask's own, cut and titled as ingest embeds them, so training
matches inference. Positives: the window of each supporting page holding most of that page's evidence
line. Hard negatives: the windows today's model ranks highest for the question (cosine against the stored
vectors) that share little of the evidence line and hold no answer. Loss: softmax over the batch's
positives and hard negatives (in-batch negatives, scale 20). OUT receives the fine-tuned model as
safetensors with the upstream tokenizer (export it with export_onnx.py).
"""
import argparse, json, os, random, re, shutil, sqlite3, sys, time

import numpy as np

WORD = re.compile(r"[a-z0-9_.\-/]+")
# a window is the evidence's when it holds this share of the evidence line's words
POSITIVE_SHARE = 0.5
# a window sharing more than this is never a negative (it may hold the evidence across a window edge)
NEGATIVE_SHARE = 0.3
HARD_FROM_TOP = 12
SCALE = 20.0


def words(s):
    return WORD.findall(s.lower())


def share(evidence_words, text):
    if not evidence_words:
        return 0.0
    return len(evidence_words & set(words(text))) / len(evidence_words)


def embedding_text(title, headings, text):
    """As src/ingest/windows.ts windowEmbeddingText: the window under its title and heading path."""
    context = " › ".join(x for x in [title, *headings] if x)
    short = context[:157] + "…" if len(context) > 160 else context
    return f"{short}: {text}" if short else text


def load_store(db_path):
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    docs = {i: (src, title) for i, src, title in con.execute("SELECT id, source, title FROM documents")}
    chunks = {i: (d, json.loads(h), t) for i, d, h, t in con.execute("SELECT id, doc_id, heading_path, text FROM chunks")}
    windows = []
    for wid, cid, a, b, vec in con.execute("SELECT id, chunk_id, char_start, char_end, vector FROM windows ORDER BY id"):
        d, heads, text = chunks[cid]
        body = text[a:b]
        windows.append({"doc": d, "body": body, "text": embedding_text(docs[d][1], heads, body),
                        "vector": np.frombuffer(vec, dtype=np.float32)})
    con.close()
    return docs, windows


def examples_of(set_dir, db_path, encode):
    """(question, positive window text, [hard negative texts]) for every answerable question."""
    docs, windows = load_store(db_path)
    by_doc = {}
    for k, w in enumerate(windows):
        by_doc.setdefault(w["doc"], []).append(k)
    vectors = np.stack([w["vector"] for w in windows])
    questions = [json.loads(l) for l in open(os.path.join(set_dir, "questions.jsonl"))]
    out, missed = [], 0
    answerable = [q for q in questions if q["answers"]]
    qvecs = encode([q["question"] for q in answerable])
    for q, qv in zip(answerable, qvecs):
        answers = [a.lower() for a in q["answers"]]
        evs = [set(words(e)) for e in q["evidence"]]
        positives = []
        for page, ev in zip(q["supporting"], evs):
            doc = next((d for d, (src, _t) in docs.items() if src.endswith("/" + page)), None)
            if doc is None:
                continue
            best = max(by_doc.get(doc, []), key=lambda k: share(ev, windows[k]["body"]), default=None)
            if best is not None and share(ev, windows[best]["body"]) >= POSITIVE_SHARE:
                positives.append(best)
        if not positives:
            missed += 1
            continue
        order = np.argsort(-(vectors @ qv))[:200]
        hard = [k for k in order if k not in positives
                and max(share(ev, windows[k]["body"]) for ev in evs) <= NEGATIVE_SHARE
                and not any(a in windows[k]["body"].lower() for a in answers)][:HARD_FROM_TOP]
        for p in positives:
            out.append((q["question"], windows[p]["text"], [windows[k]["text"] for k in hard]))
    return out, missed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--set", action="append", required=True, help="NAME=STORE_DB")
    ap.add_argument("--teamqa", default="../shared/datasets/teamqa")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()

    import torch
    from transformers import AutoTokenizer, BertModel

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    tok = AutoTokenizer.from_pretrained(args.upstream)
    model = BertModel.from_pretrained(args.upstream)

    def embed(texts, max_len):
        enc = tok(texts, padding=True, truncation=True, max_length=max_len, return_tensors="pt")
        hidden = model(**enc).last_hidden_state
        m = enc["attention_mask"].unsqueeze(-1).float()
        v = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(v, dim=-1)

    def encode(texts):
        model.eval()
        with torch.no_grad():
            return np.concatenate([embed(texts[i:i + 64], 64).numpy() for i in range(0, len(texts), 64)])

    data = []
    for spec in args.set:
        name, db = spec.split("=", 1)
        ex, missed = examples_of(os.path.join(args.teamqa, name), db, encode)
        print(f"[embedder] {name}: {len(ex)} pairs, {missed} questions with no evidence window", flush=True)
        data += ex
    steps = args.epochs * ((len(data) + args.batch - 1) // args.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    bf16 = hasattr(torch.backends, "mkldnn") and torch.backends.mkldnn.is_available()
    t0, step = time.time(), 0
    for epoch in range(args.epochs):
        random.shuffle(data)
        model.train()
        for i in range(0, len(data), args.batch):
            batch = data[i:i + args.batch]
            qs = [b[0] for b in batch]
            passages = [b[1] for b in batch] + [random.choice(b[2]) for b in batch if b[2]]
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                qv, pv = embed(qs, 64), embed(passages, 128)
            logits = SCALE * (qv.float() @ pv.float().T)
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(batch)))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step(); sched.step(); opt.zero_grad()
            step += 1
            eta = (time.time() - t0) / step * (steps - step)
            print(f"[embedder] epoch {epoch + 1} step {step}/{steps} loss {loss.item():.3f} eta {eta / 60:.1f} min", flush=True)
    training = {"pairs": len(data), "steps": steps, "epochs": args.epochs, "batch": args.batch, "lr": args.lr,
                "sets": [s.split("=", 1)[0] for s in args.set], "seconds": round(time.time() - t0)}
    package(model, args.upstream, args.out, training)


def sha256(path):
    import hashlib
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def package(model, upstream, out, training):
    """OUT as a ragask model folder: the weights (safetensors, for retraining), their ONNX exports
    (fp32 and int8, checked against torch by export_onnx.py) and ragask-model.json."""
    import subprocess
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    for f in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "LICENSE"):
        shutil.copy(os.path.join(upstream, f), os.path.join(out, f))
    here = os.path.dirname(os.path.abspath(__file__))
    check = subprocess.run([sys.executable, os.path.join(here, "export_onnx.py"), out, out],
                           check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    manifest = {"name": os.path.basename(os.path.normpath(out)), "kind": "sentence-embedding", "pooling": "mean",
                "dimension": model.config.hidden_size, "maxLength": 256,
                "variants": {"fp32": "model.onnx", "int8": "model.int8.onnx"},
                "source": "fine-tuned from all-MiniLM-L6-v2 on teamqa by scripts/train_embedder.py",
                "training": training, "exportCheck": json.loads(check),
                "sha256": {f: sha256(os.path.join(out, f)) for f in
                           ("model.onnx", "model.int8.onnx", "tokenizer.json", "tokenizer_config.json", "config.json")}}
    json.dump(manifest, open(os.path.join(out, "ragask-model.json"), "w"), indent=2)
    print(f"[embedder] packaged {out}", flush=True)


if __name__ == "__main__":
    main()
