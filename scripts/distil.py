"""Distilling a teacher reader's logits into the student (issue 47's teacher lever; scripts/train_teamqa.py
--teacher). Teacher and student read the same windows: mpnet's pieces are BERT uncased's (scripts/mpnet_reader.py),
so the start and end logits line up position for position and need no alignment."""
import sys
import numpy as np
import torch
from tqdm import tqdm

import train_reader as tr


def teacher_logits(teacher, feats, runner):
    """Each window's start, end and kind logits from `teacher`, kept beside it in `feats` (float16)."""
    run = runner(teacher)
    for b in tqdm(range(0, len(feats), 256), desc="teacher", unit="x256", file=sys.stderr, dynamic_ncols=True):
        chunk = feats[b:b + 256]
        for f, (s, e, k) in zip(chunk, run(chunk)):
            f["t"] = (s.astype(np.float16), e.astype(np.float16), k.astype(np.float16))


def _soft(student, teacher, T):
    """KL(teacher || student) at temperature T, scaled by T² so its gradients match the hard loss's."""
    p = torch.nn.functional.log_softmax(teacher / T, dim=-1)
    q = torch.nn.functional.log_softmax(student / T, dim=-1)
    return torch.nn.functional.kl_div(q, p, log_target=True, reduction="batchmean") * T * T


def distil_loss(model, feats, idx, T=2.0, alpha=0.5, device=None):
    """(1 - alpha) x the reader's own loss on the labels + alpha x the teacher's soft start, end and kind, on the
    windows of the batch the teacher read (a window without logits is taught by its labels alone)."""
    ids, mask, types, ok, labels, starts, ends = (t.to(device) for t in tr.collate(feats, idx))
    s_log, e_log, k_log = model(ids, mask, types)
    s_log, e_log = s_log.float().masked_fill(~ok, -1e4), e_log.float().masked_fill(~ok, -1e4)
    hard = torch.nn.functional.cross_entropy(k_log.float(), labels)
    is_span = labels == tr.SPAN
    if is_span.any():
        hard = hard + (torch.nn.functional.cross_entropy(s_log[is_span], starts[is_span])
                       + torch.nn.functional.cross_entropy(e_log[is_span], ends[is_span])) / 2
    has = [b for b, i in enumerate(idx) if "t" in feats[i]]  # windows the teacher read (with --distil-squad, all)
    if not has:
        return (1 - alpha) * hard
    sel = torch.tensor(has, device=ok.device)
    s_log, e_log, k_log, ok = s_log[sel], e_log[sel], k_log[sel], ok[sel]
    t_s = torch.full(s_log.shape, -1e4)
    t_e = torch.full(e_log.shape, -1e4)
    for b, i in enumerate(idx[j] for j in has):
        s, e, _ = feats[i]["t"]
        t_s[b, :len(s)] = torch.from_numpy(s.astype(np.float32))
        t_e[b, :len(e)] = torch.from_numpy(e.astype(np.float32))
    t_s, t_e = t_s.to(ok.device).masked_fill(~ok, -1e4), t_e.to(ok.device).masked_fill(~ok, -1e4)
    t_k = torch.stack([torch.from_numpy(feats[idx[j]]["t"][2].astype(np.float32)) for j in has]).to(ok.device)
    soft = _soft(k_log.float(), t_k, T) + (_soft(s_log, t_s, T) + _soft(e_log, t_e, T)) / 2
    return (1 - alpha) * hard + alpha * soft * len(has) / len(idx)
