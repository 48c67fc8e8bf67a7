"""Train a masked-LM head over the frozen all-MiniLM-L6-v2 encoder on technical text, and measure it.

    python train_mlm_head.py --base UPSTREAM_DIR --out OUT_DIR [--sequences 16000] [--epochs 3]

ragask's bridge finder can score a candidate entity by how plausible it is in the question's open slot
("Which [MASK] sets the time a connection waits?"), with a BERT masked LM (src/models/masked-lm.ts,
RAGASK_MLM_MODEL). No masked-LM weights are reachable here: the sentence-embedding MiniLM has no MLM
head. This script gives it one, as BERT's: a dense layer, GELU, LayerNorm, and a decoder tied to the
(frozen) word embeddings with its own bias. Only the head is trained (about 180k parameters); the
encoder's last hidden states at the masked positions are computed once and cached.

Text: the Debian documentation packages the project allows for training text (manpages sections 1-3,
manpages-dev, python3.11-doc, nginx-doc, bind9-doc, haproxy-doc, postfix-doc), never the teamdocs
packages (apache2-doc, git-doc) nor the man pages of sections 4, 5, 7 and 8 (a tuning set,
scripts/make_manpages_dev.py). Whole words are masked (15 %; a third of the picks extended to two
or three words, as a candidate of several pieces fills several masks). Held-out: pages whose path
hashes into 5 %.

Writes OUT_DIR/model.onnx (encoder + head, int8) with the tokenizer and a ragask-model.json of kind
masked-lm, head.safetensors (the trained head alone), and REPORT.json (masked-word accuracy and
mean log-probability on the held-out pages, against a unigram baseline). Checkpoints the cached
features and the head after each epoch, so an interrupted run resumes.
"""
import argparse, gzip, hashlib, html.parser, json, os, random, re, shutil, subprocess, sys, time

import numpy as np
import torch

PACKAGES = ("manpages", "manpages-dev", "python3.11-doc", "nginx-doc", "bind9-doc", "haproxy-doc", "postfix-doc")
DEV_SET_PAGES = re.compile(r"/man/man[4578]/")
MAX_LEN = 128
MASK_SHARE = 0.15
DEV_SHARE = 0.05
BLOCK_TAGS = {"p", "li", "dd", "dt", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "div", "br", "tr"}


def log(msg):
    print(f"[train-mlm-head] {msg}", file=sys.stderr, flush=True)


def sha256_bytes(b):
    return hashlib.sha256(b).hexdigest()


class HtmlText(html.parser.HTMLParser):
    """The text of an HTML page, one paragraph per block element; scripts and styles left out."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paragraphs, self.current, self.skip = [], [], 0

    def flush(self):
        text = re.sub(r"\s+", " ", "".join(self.current)).strip()
        if text:
            self.paragraphs.append(text)
        self.current = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in BLOCK_TAGS:
            self.flush()

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        elif tag in BLOCK_TAGS:
            self.flush()

    def handle_data(self, data):
        if not self.skip:
            self.current.append(data)


def package_files(pkg):
    out = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"train_mlm_head: Debian package {pkg} is not installed; run: apt-get install {' '.join(PACKAGES)}")
    return sorted(f for f in out.stdout.split("\n") if os.path.isfile(f))


def page_paragraphs(path):
    """Paragraphs of prose from one documentation file (man page through mandoc, or HTML)."""
    if re.search(r"/man/man\d[^/]*/[^/]+\.\d\w*\.gz$", path):
        if DEV_SET_PAGES.search(path):
            return []
        out = subprocess.run(["mandoc", "-T", "utf8", "-O", "width=1000", path], capture_output=True)
        text = re.sub(r".\x08", "", out.stdout.decode("utf-8", "replace"))
        return [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", text) if len(p.split()) >= 6]
    if path.endswith(".html") or path.endswith(".html.gz"):
        raw = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
        parser = HtmlText()
        parser.feed(raw.decode("utf-8", "replace"))
        parser.flush()
        return [p for p in parser.paragraphs if len(p.split()) >= 6]
    return []


def is_dev(path):
    return int(hashlib.sha256(path.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < DEV_SHARE


def collect_sequences(tokenizer, per_package, rng):
    """Token sequences of at most MAX_LEN - 2 pieces of contiguous paragraphs, split train / dev by page."""
    train, dev, provenance = [], [], {}
    for pkg in PACKAGES:
        version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True).stdout
        files = [f for f in package_files(pkg) if f.endswith((".gz", ".html"))]
        rng.shuffle(files)
        seqs_train, seqs_dev, pages = [], [], 0
        for f in files:
            if len(seqs_train) >= per_package:
                break
            paragraphs = page_paragraphs(f)
            if not paragraphs:
                continue
            pages += 1
            target = seqs_dev if is_dev(f) else seqs_train
            buf = []
            for p in paragraphs:
                ids = tokenizer(p, add_special_tokens=False)["input_ids"]
                while ids:
                    room = MAX_LEN - 2 - len(buf)
                    buf.extend(ids[:room])
                    ids = ids[room:]
                    if len(buf) >= MAX_LEN - 2:
                        target.append(buf)
                        buf = []
            if len(buf) >= 24:
                target.append(buf)
        train.extend(seqs_train[:per_package])
        dev.extend(seqs_dev[: max(50, per_package // 10)])
        provenance[pkg] = {"version": version, "pages_read": pages, "train_sequences": min(len(seqs_train), per_package),
                           "dev_sequences": min(len(seqs_dev), max(50, per_package // 10))}
        log(f"{pkg} {version}: {pages} pages, {provenance[pkg]['train_sequences']} train / {provenance[pkg]['dev_sequences']} dev sequences")
    return train, dev, provenance


def word_starts(tokenizer, ids):
    """Indices where a whole word starts (a piece not starting with ##)."""
    toks = tokenizer.convert_ids_to_tokens(ids)
    return [i for i, t in enumerate(toks) if not t.startswith("##")], len(toks)


def mask_sequence(tokenizer, ids, rng):
    """Whole-word masking: (input ids with [MASK]s, positions masked, their true ids)."""
    starts, n = word_starts(tokenizer, ids)
    bounds = starts + [n]
    words = [(bounds[i], bounds[i + 1]) for i in range(len(starts))]
    picks = max(1, int(round(MASK_SHARE * len(words))))
    chosen = set()
    order = list(range(len(words)))
    rng.shuffle(order)
    for w in order:
        if len(chosen) >= picks:
            break
        span = 1 if rng.random() < 0.67 else rng.choice((2, 3))
        for k in range(w, min(len(words), w + span)):
            chosen.add(k)
    masked = list(ids)
    positions = []
    for w in sorted(chosen):
        a, b = words[w]
        for p in range(a, b):
            positions.append(p)
            masked[p] = tokenizer.mask_token_id
    return masked, positions, [ids[p] for p in positions]


class MLMHead(torch.nn.Module):
    """BERT's prediction head with the decoder tied to the frozen word embeddings."""

    def __init__(self, word_embeddings, hidden):
        super().__init__()
        self.dense = torch.nn.Linear(hidden, hidden)
        self.norm = torch.nn.LayerNorm(hidden, eps=1e-12)
        self.register_buffer("decoder", word_embeddings.detach().clone())
        self.bias = torch.nn.Parameter(torch.zeros(word_embeddings.shape[0]))
        torch.nn.init.normal_(self.dense.weight, std=0.02)
        torch.nn.init.zeros_(self.dense.bias)

    def forward(self, h):
        return self.norm(torch.nn.functional.gelu(self.dense(h))) @ self.decoder.T + self.bias


class EncoderWithHead(torch.nn.Module):
    def __init__(self, bert, head):
        super().__init__()
        self.bert, self.head = bert, head

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        return self.head(h)


def encode_features(bert, tokenizer, seqs, rng, batch=32, what="train"):
    """The encoder's last hidden state at every masked position, with the true ids."""
    feats, labels = [], []
    t0 = time.time()
    for i in range(0, len(seqs), batch):
        rows = [mask_sequence(tokenizer, s, rng) for s in seqs[i : i + batch]]
        width = max(len(r[0]) for r in rows) + 2
        ids = torch.zeros(len(rows), width, dtype=torch.long)
        att = torch.zeros(len(rows), width, dtype=torch.long)
        for j, (masked, _, _) in enumerate(rows):
            full = [tokenizer.cls_token_id, *masked, tokenizer.sep_token_id]
            ids[j, : len(full)] = torch.tensor(full)
            att[j, : len(full)] = 1
        with torch.no_grad():
            h = bert(input_ids=ids, attention_mask=att, token_type_ids=torch.zeros_like(ids)).last_hidden_state
        for j, (_, positions, truth) in enumerate(rows):
            idx = torch.tensor(positions, dtype=torch.long) + 1
            feats.append(h[j, idx].to(torch.float16))
            labels.extend(truth)
        done = min(i + batch, len(seqs))
        if (i // batch) % 20 == 0 or done == len(seqs):
            rate = done / max(1e-6, time.time() - t0)
            log(f"encoding {what}: {done}/{len(seqs)} sequences, ETA {(len(seqs) - done) / max(rate, 1e-6):.0f} s")
    return torch.cat(feats), torch.tensor(labels, dtype=torch.long)


def evaluate(head, feats, labels, unigram_logp):
    head.eval()
    top1 = top5 = 0
    lp_sum = 0.0
    with torch.no_grad():
        for i in range(0, len(labels), 2048):
            logits = head(feats[i : i + 2048].float())
            logp = torch.log_softmax(logits, dim=-1)
            y = labels[i : i + 2048]
            lp_sum += logp.gather(1, y[:, None]).sum().item()
            top = logits.topk(5, dim=-1).indices
            top1 += (top[:, 0] == y).sum().item()
            top5 += (top == y[:, None]).any(dim=1).sum().item()
    n = len(labels)
    uni_top1 = (labels == int(unigram_logp.argmax())).float().mean().item()
    return {
        "masked_pieces": n,
        "top1": round(top1 / n, 4),
        "top5": round(top5 / n, 4),
        "mean_logprob": round(lp_sum / n, 4),
        "unigram_top1": round(uni_top1, 4),
        "unigram_mean_logprob": round(unigram_logp[labels].mean().item(), 4),
    }


def export(bert, head, tokenizer_dir, out_dir, threads):
    """Encoder + head to ONNX (fp32 then int8, per-channel), checked against torch on a sentence."""
    model = EncoderWithHead(bert, head).eval()
    example = (torch.ones(2, 16, dtype=torch.long), torch.ones(2, 16, dtype=torch.long), torch.zeros(2, 16, dtype=torch.long))
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("sequence", max=512)
    dyn = {k: {0: batch, 1: seq} for k in ("input_ids", "attention_mask", "token_type_ids")}
    fp32 = os.path.join(out_dir, "model.fp32.onnx")
    torch.onnx.export(model, example, fp32, input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["logits"], dynamic_shapes=dyn, opset_version=17, dynamo=True,
                      external_data=False, verbose=False)
    from onnxruntime.quantization import QuantType, quantize_dynamic
    int8 = os.path.join(out_dir, "model.onnx")
    quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8, per_channel=True)
    os.remove(fp32)
    for f in ("tokenizer.json", "tokenizer_config.json", "config.json", "vocab.txt", "special_tokens_map.json"):
        if os.path.exists(os.path.join(tokenizer_dir, f)):
            shutil.copy(os.path.join(tokenizer_dir, f), os.path.join(out_dir, f))
    return int8


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="all-MiniLM-L6-v2 upstream folder (config.json, model.safetensors)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--sequences", type=int, default=16000, help="training sequences in all (spread over the packages)")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--batch", type=int, default=512, help="masked pieces per step")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    from transformers import AutoTokenizer, BertModel

    tokenizer = AutoTokenizer.from_pretrained(args.base)
    bert = BertModel.from_pretrained(args.base, attn_implementation="eager").eval()
    for p in bert.parameters():
        p.requires_grad_(False)

    cache = os.path.join(args.out, "features.pt")
    if os.path.exists(cache):
        state = torch.load(cache)
        log(f"features from {cache}")
    else:
        train, dev, provenance = collect_sequences(tokenizer, args.sequences // len(PACKAGES), rng)
        tr_x, tr_y = encode_features(bert, tokenizer, train, rng, what="train")
        dv_x, dv_y = encode_features(bert, tokenizer, dev, rng, what="dev")
        state = {"train": (tr_x, tr_y), "dev": (dv_x, dv_y), "provenance": provenance,
                 "sequences": {"train": len(train), "dev": len(dev)}}
        torch.save(state, cache)
    tr_x, tr_y = state["train"]
    dv_x, dv_y = state["dev"]
    vocab = bert.embeddings.word_embeddings.weight.shape[0]
    counts = torch.bincount(tr_y, minlength=vocab).float() + 0.5
    unigram_logp = torch.log(counts / counts.sum())

    head = MLMHead(bert.embeddings.word_embeddings.weight, bert.config.hidden_size)
    with torch.no_grad():
        head.bias.copy_(unigram_logp)  # start from the unigram prior: the head learns what context adds
    opt = torch.optim.AdamW(head.parameters(), lr=args.lr, weight_decay=0.01)
    ckpt = os.path.join(args.out, "head.ckpt.pt")
    start_epoch = 0
    if os.path.exists(ckpt):
        saved = torch.load(ckpt)
        head.load_state_dict(saved["head"])
        opt.load_state_dict(saved["opt"])
        start_epoch = saved["epoch"]
        log(f"resumed after epoch {start_epoch}")
    steps_per_epoch = (len(tr_y) + args.batch - 1) // args.batch
    total = steps_per_epoch * args.epochs
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.05, 1 - s / max(1, total)))
    for _ in range(start_epoch * steps_per_epoch):
        sched.step()
    for epoch in range(start_epoch, args.epochs):
        head.train()
        g = torch.Generator().manual_seed(args.seed + epoch)
        order = torch.randperm(len(tr_y), generator=g)
        t0, loss_sum = time.time(), 0.0
        for step in range(steps_per_epoch):
            idx = order[step * args.batch : (step + 1) * args.batch]
            loss = torch.nn.functional.cross_entropy(head(tr_x[idx].float()), tr_y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            loss_sum += loss.item()
            if step % 100 == 0 or step == steps_per_epoch - 1:
                rate = (step + 1) / (time.time() - t0)
                log(f"epoch {epoch + 1}/{args.epochs} step {step + 1}/{steps_per_epoch} loss {loss_sum / (step + 1):.3f} ETA {(steps_per_epoch - step - 1) / rate:.0f} s")
        torch.save({"head": head.state_dict(), "opt": opt.state_dict(), "epoch": epoch + 1}, ckpt)
        log(f"epoch {epoch + 1}: dev {evaluate(head, dv_x, dv_y, unigram_logp)}")

    report = {
        "base": "sentence-transformers/all-MiniLM-L6-v2 (frozen)",
        "packages": state["provenance"],
        "sequences": state["sequences"],
        "settings": {k: getattr(args, k) for k in ("epochs", "lr", "batch", "seed")} | {"max_len": MAX_LEN, "mask_share": MASK_SHARE},
        "dev": evaluate(head, dv_x, dv_y, unigram_logp),
    }
    from safetensors.torch import save_file

    save_file({"dense.weight": head.dense.weight.contiguous(), "dense.bias": head.dense.bias.contiguous(),
               "norm.weight": head.norm.weight.contiguous(), "norm.bias": head.norm.bias.contiguous(),
               "bias": head.bias.contiguous()}, os.path.join(args.out, "head.safetensors"))
    onnx_path = export(bert, head, args.base, args.out, args.threads)
    files = {f: sha256_bytes(open(os.path.join(args.out, f), "rb").read())
             for f in ("model.onnx", "tokenizer.json", "tokenizer_config.json", "config.json")}
    manifest = {"name": os.path.basename(os.path.normpath(args.out)), "kind": "masked-lm", "maxLength": MAX_LEN,
                "source": "all-MiniLM-L6-v2 (frozen) + a masked-LM head trained by scripts/train_mlm_head.py", "sha256": files}
    json.dump(manifest, open(os.path.join(args.out, "ragask-model.json"), "w"), indent=2)
    report["onnx_bytes"] = os.path.getsize(onnx_path)
    json.dump(report, open(os.path.join(args.out, "REPORT.json"), "w"), indent=2)
    log(json.dumps(report["dev"]))


if __name__ == "__main__":
    main()
