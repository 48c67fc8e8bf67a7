"""Teach ragask's reader to read team documents: fine-tune the shipped reader (models/reader-minilm) on
teamqa's questions as the engine really reads them, beside a sample of SQuAD 1.1 train.

    python train_teamqa.py --rows ROWS.jsonl --base UPSTREAM_DIR --data ../shared/datasets --out OUT \
        [--hold-out postfix,python] [--epochs 2] [--bf16] [--package models/NAME]

ROWS.jsonl is what `ragask rows --dataset <teamqa sets…>` writes: for each question, the passages the
engine's reader read (title and whole text, as at inference) and the candidate lines. Each row is read
here exactly as src/models/reader.ts reads it (train_reader.Featurizer builds the same windows), and
labelled from the dataset's own verbatim evidence line: an occurrence of a gold answer is the span to
learn only where the text around it is the evidence line (so "30" in another option's line is not
taught as the answer). A question whose evidence line the engine did not read is also read once with
the evidence line placed among its passages, so the reader learns the colleague's phrasing even where
retrieval missed. Unanswerable questions teach "these passages do not answer it".

--hold-out names the teamqa sets this reader must never see (leave one set out: the figures reported for
a set come from a reader trained without it). Without it, every set is trained on (the shipped reader).
Checkpoints after every --checkpoint-every steps; a killed run resumes where it stopped.

--encoder minilm or mpnet starts from an upstream encoder with new heads instead of the shipped reader: the
teacher lever (is all-mpnet-base-v2's reading of held-out team documents well clear of MiniLM-L6's under one
recipe?). An mpnet run is measured on the held-out sets and not exported.
"""
import argparse, gzip, json, math, os, random, sys, time

import numpy as np
import torch
from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_reader as tr  # noqa: E402  (the reader's featuriser, model, loss and export: one definition)
from distil import distil_loss, teacher_logits  # noqa: E402
from teamqa_rows import views  # noqa: E402  (the labelling, without torch: tested by test/scripts/train-teamqa.test.ts)

def log(msg):
    print(f"[train-teamqa] {msg}", file=sys.stderr, flush=True)


def teamqa_feats(rows, fz, rng, max_negatives=1):
    feats, stats = [], {"rows": 0, "read_gold": 0, "placed_gold": 0, "unanswerable": 0, "windows": 0}
    for row in rows:
        stats["rows"] += 1
        vs = views(row, rng)
        for i, (passages, gold, kind) in enumerate(vs):
            if kind == "unanswerable" and row["type"] == "unanswerable":
                stats["unanswerable"] += 1
            elif kind == "span":
                stats["read_gold" if i == 0 else "placed_gold"] += 1
            negatives = 0
            for w in fz.windows(row["question"], passages):
                t, s, e = tr.label_window(w, kind if kind == "unanswerable" else "span", gold, [])
                if t == tr.NONE and kind != "unanswerable":
                    negatives += 1
                    if negatives > max_negatives:
                        continue
                if t == tr.NONE and kind == "unanswerable":
                    negatives += 1
                    if negatives > max_negatives + 1:
                        continue
                feats.append({"ids": w["ids"], "types": w["types"], "span_ok": w["span_ok"], "label": t, "start": s, "end": e})
    stats["windows"] = len(feats)
    return feats, stats


def squad_feats(data_dir, n, fz, seed):
    """A seeded sample of SQuAD 1.1 train, each paragraph among its article's others (train_reader phase 2)."""
    rows = tr.load_rows(data_dir, squad_train=True)[0]
    squad = [r for r in rows if r["_source"] == tr.SQUAD_TRAIN]
    rng = random.Random(seed)
    pick = rng.sample(squad, min(n, len(squad)))
    pools = tr.passage_pools(pick)
    return tr.featurize_rows(pick, fz, rng, True, pools)


def pick_device(name):
    """--device: auto takes a lent accelerator where torch sees one, else the CPU, so one script serves both."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        sys.exit("train_teamqa: --device cuda: torch sees no CUDA device here; use --device cpu (or auto)")
    return torch.device(name)


def batched_runner(model, bf16, batch=16, device=torch.device("cpu")):
    """tr.torch_runner's readings, a batch of windows at a time (mpnet reads about 8x slower than MiniLM)."""
    def run(ws):
        out = [None] * len(ws)
        order = sorted(range(len(ws)), key=lambda i: len(ws[i]["ids"]))
        with torch.no_grad(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            for b in range(0, len(order), batch):
                idx = order[b:b + batch]
                L = max(len(ws[i]["ids"]) for i in idx)
                ids = torch.zeros(len(idx), L, dtype=torch.long)
                mask = torch.zeros_like(ids)
                types = torch.zeros_like(ids)
                for j, i in enumerate(idx):
                    n = len(ws[i]["ids"])
                    ids[j, :n], mask[j, :n], types[j, :n] = torch.tensor(ws[i]["ids"]), 1, torch.tensor(ws[i]["types"])
                s, e, k = (t.float().cpu() for t in model(ids.to(device), mask.to(device), types.to(device)))
                for j, i in enumerate(idx):
                    n = len(ws[i]["ids"])
                    out[i] = (s[j, :n].numpy(), e[j, :n].numpy(), k[j].numpy())
        return out
    return run


def held_out_reading(model, rows, fz, max_answer, bf16=False, device=torch.device("cpu")):
    """On held-out rows: the share whose reader's best span is a gold answer (as the rows were read)."""
    run = batched_runner(model, bf16, 64 if device.type == "cuda" else 16, device)
    right, n = 0, 0
    for row in tqdm(rows, desc="held out", unit="row", file=sys.stderr, dynamic_ncols=True):
        if row["type"] == "unanswerable" or not row["passages"] or not row["answers"]:
            continue
        passages = [(p["title"], p["text"]) for p in row["passages"]]
        ws = fz.windows(row["question"], passages)
        ans = tr.read(ws, run(ws), passages, max_answer)["text"]
        n += 1
        said = f" {tr.normalize_answer(ans)} "
        right += int(any(tr.normalize_answer(g) and f" {tr.normalize_answer(g)} " in said for g in row["answers"]))
    return {"rows": n, "proposal_right": round(right / max(1, n), 3)}


def load_teamqa(path, hold_out):
    """The rows, split into those trained on and the held-out sets'; ROWS may be gzipped (what travels to a device)."""
    with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    train = [r for r in rows if r["dataset"] not in hold_out]
    held = [r for r in rows if r["dataset"] in hold_out]
    return train, held


def train(args, model, feats, params, device=torch.device("cpu")):
    opt = torch.optim.AdamW([{"params": [p for n, p in model.named_parameters() if not any(x in n for x in ("bias", "LayerNorm"))], "weight_decay": 0.01},
                             {"params": [p for n, p in model.named_parameters() if any(x in n for x in ("bias", "LayerNorm"))], "weight_decay": 0.0}], lr=args.lr)
    total = int(math.ceil(len(feats) / args.batch) * args.epochs)
    warmup = int(0.06 * total)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / max(1, warmup), max(0.0, (total - s) / max(1, total - warmup))))
    rng = random.Random(args.seed)
    step, done, t0 = 0, 0, time.time()
    ck = os.path.join(args.out, "checkpoint.pt")
    if os.path.exists(ck):
        state = torch.load(ck, weights_only=False, map_location=device)
        model.load_state_dict(state["model"]); opt.load_state_dict(state["opt"]); sched.load_state_dict(state["sched"])
        step = state["step"]
        log(f"resumed from {ck} at step {step}")
    orders = []
    while len(orders) * math.ceil(len(feats) / args.batch) < total:
        orders += tr.batches(feats, args.batch, rng, True)
    bar = tqdm(total=total, initial=step, desc="train", unit="step", file=sys.stderr, dynamic_ncols=True)
    losses = []
    model.train()
    for idx in orders[step:total]:
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.bf16):
            if args.teacher:
                loss = distil_loss(model, feats, idx, alpha=args.distil, device=device)
            else:
                loss = tr.loss_of(model, tuple(t.to(device) for t in tr.collate(feats, idx)))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step(); sched.step(); opt.zero_grad()
        step += 1
        losses.append(loss.item())
        bar.update(1)
        if step % 20 == 0:
            bar.set_postfix(loss=f"{np.mean(losses[-100:]):.3f}")
        if step % args.checkpoint_every == 0 or step == total:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step}, ck + ".part")
            os.replace(ck + ".part", ck)
    bar.close()
    model.eval()
    return {"steps": step, "seconds": round(time.time() - t0), "final_loss": round(float(np.mean(losses[-100:])), 4) if losses else None}


def write_manifest(out_dir, dest, name, report, reader_manifest):
    """A reader folder the engine loads (RAGASK_READER_MODEL=NAME): the int8 ONNX and its manifest."""
    import hashlib, shutil
    os.makedirs(dest, exist_ok=True)
    shutil.copyfile(os.path.join(out_dir, "model.int8.onnx"), os.path.join(dest, "model.int8.onnx"))
    with open(reader_manifest) as f:
        manifest = json.load(f)
    manifest["name"] = name
    manifest["sha256"] = {"model.int8.onnx": hashlib.sha256(open(os.path.join(dest, "model.int8.onnx"), "rb").read()).hexdigest()}
    manifest["variants"] = {"int8": "model.int8.onnx"}
    manifest["training"] = report
    with open(os.path.join(dest, "ragask-model.json"), "w") as f:
        json.dump(manifest, f, indent=2)


def encoder_reader(args, tok, init):
    """The reader to fine-tune: the int8 reader at `init` dequantized, or an upstream encoder with new heads."""
    from transformers import BertConfig, BertModel
    if args.encoder == "mpnet":
        if not args.mpnet:
            sys.exit("train_teamqa: --encoder mpnet needs --mpnet DIR (all-mpnet-base-v2's model.safetensors and config.json)")
        from mpnet_reader import mpnet_encoder
        return tr.Reader(mpnet_encoder(args.mpnet, tok))
    if args.encoder == "minilm":
        return tr.Reader(BertModel.from_pretrained(args.base, add_pooling_layer=False))
    model = tr.Reader(BertModel(BertConfig.from_pretrained(args.base), add_pooling_layer=False))
    tr.load_int8_onnx(model, init)
    return model


def teacher_reader(args, tok):
    """The mpnet reader an --encoder mpnet run left in its checkpoint (the teacher of --teacher)."""
    from mpnet_reader import mpnet_encoder
    if not args.mpnet:
        sys.exit("train_teamqa: --teacher needs --mpnet DIR (all-mpnet-base-v2's config.json and weights)")
    model = tr.Reader(mpnet_encoder(args.mpnet, tok))
    model.load_state_dict(torch.load(args.teacher, weights_only=False, map_location="cpu")["model"])
    return model.eval()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", required=True, help="what `ragask rows` wrote over the teamqa sets")
    ap.add_argument("--base", required=True, help="upstream all-MiniLM-L6-v2 folder (tokenizer and config)")
    ap.add_argument("--data", required=True, help="the shared datasets folder (reader-squad11-train)")
    ap.add_argument("--init", default=None, help="the int8 reader to start from (default models/reader-minilm)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--hold-out", default="", help="comma-separated teamqa sets never trained on")
    ap.add_argument("--squad", type=int, default=1000, help="SQuAD 1.1 train rows read beside teamqa")
    ap.add_argument("--teamqa-repeats", type=int, default=2, help="times each teamqa row is read per epoch (different placements)")
    ap.add_argument("--negatives", type=int, default=1,
                    help="windows without the answer taught as 'no answer here' per reading of an answerable question, "
                         "best-retrieved passages first (the passages the reader must tell apart)")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--bf16", action="store_true")
    ap.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                    help="auto: a lent GPU where torch sees one, else the CPU")
    ap.add_argument("--checkpoint-every", type=int, default=50)
    ap.add_argument("--package", default=None, help="write an engine-loadable reader folder here (models/NAME)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N teamqa rows (smoke runs)")
    ap.add_argument("--encoder", choices=["reader", "minilm", "mpnet"], default="reader",
                    help="reader: start from --init's int8 reader (the shipped recipe); minilm: from the upstream "
                         "all-MiniLM-L6-v2 with new heads; mpnet: from all-mpnet-base-v2 (--mpnet DIR) with new heads "
                         "(the teacher lever: measured on the held-out sets, not exported)")
    ap.add_argument("--teacher", default=None,
                    help="an --encoder mpnet run's checkpoint.pt: its logits on every training window are distilled "
                         "into this reader (with --distil's weight beside the labels)")
    ap.add_argument("--distil-squad", action="store_true",
                    help="the teacher reads the SQuAD windows too (default: teamqa's only, a third less of its time)")
    ap.add_argument("--distil", type=float, default=0.5, help="the teacher's share of the loss (with --teacher)")
    ap.add_argument("--mpnet", default=None, help="all-mpnet-base-v2's upstream folder (model.safetensors, config.json)")
    args = ap.parse_args()

    random.seed(args.seed); np.random.seed(args.seed); torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    os.makedirs(args.out, exist_ok=True)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    init = args.init or os.path.join(root, "models", "reader-minilm", "model.int8.onnx")

    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(args.base)
    fz = tr.Featurizer(tok, 384, 64, 96)
    hold = {s for s in args.hold_out.split(",") if s}
    train_rows, held_rows = load_teamqa(args.rows, hold)
    if args.limit:
        train_rows, held_rows = train_rows[: args.limit], held_rows[: args.limit]
    sets = sorted({r["dataset"] for r in train_rows})
    log(f"{len(train_rows)} teamqa rows from {', '.join(sets)}; held out: {', '.join(sorted(hold)) or 'none'} ({len(held_rows)} rows)")
    rng = random.Random(args.seed)
    feats, stats = [], None
    for _ in range(args.teamqa_repeats):
        f, stats = teamqa_feats(train_rows, fz, rng, args.negatives)
        feats += f
    log(f"teamqa: {json.dumps(stats)} (x{args.teamqa_repeats})")
    n_teamqa = len(feats)
    if args.squad:
        sq = squad_feats(args.data, args.squad, fz, args.seed)
        log(f"squad 1.1 train: {len(sq)} windows from {args.squad} rows")
        feats += sq

    if args.teacher:
        teacher = teacher_reader(args, tok).to(device)
        # teamqa's windows come first: the teacher reads those (the lever is team documents), SQuAD's too with --distil-squad
        taught = feats if args.distil_squad else feats[:n_teamqa]
        teacher_logits(teacher, taught, lambda m: batched_runner(m, args.bf16, 64 if device.type == "cuda" else 16, device))
        del teacher
    model = encoder_reader(args, tok, init).to(device)
    log(f"starts from {args.mpnet if args.encoder == 'mpnet' else args.base if args.encoder == 'minilm' else init}; "
        f"{len(feats)} windows; on {device}")
    params = [p for p in model.parameters() if p.requires_grad]
    report = train(args, model, feats, params, device)
    report["device"] = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    report["teamqa"] = stats
    report["hold_out"] = sorted(hold)
    if held_rows:
        report["held_out"] = held_out_reading(model, held_rows, fz, 30, args.bf16, device)
        log(f"held out: {json.dumps(report['held_out'])}")
    if args.encoder == "mpnet":  # a teacher is measured, never shipped (110 MB int8 and 8x the compute)
        with open(os.path.join(args.out, "report.json"), "w") as f:
            json.dump(report, f, indent=2)
        print(json.dumps(report))
        return
    dev = [{"ids": f["ids"], "types": f["types"]} for f in feats[:64]]
    _, _, diff = tr.export(model.cpu().float(), args.out, dev)  # exported and quantised on the CPU, as it runs
    report["fp32_max_abs_diff"] = diff
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump(report, f, indent=2)
    if args.package:
        write_manifest(args.out, args.package, os.path.basename(args.package.rstrip("/")), report,
                       os.path.join(root, "models", "reader-minilm", "ragask-model.json"))
        log(f"packaged in {args.package}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
