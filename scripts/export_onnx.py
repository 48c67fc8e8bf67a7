"""Export a sentence-embedding BERT (safetensors) to ONNX, verify it, and make an int8 variant.

Called by scripts/fetch-models.mjs inside the project's export venv:
    python export_onnx.py SRC_DIR OUT_DIR
SRC_DIR holds config.json + model.safetensors; OUT_DIR receives model.onnx and model.int8.onnx.
The torch.onnx dynamo exporter is used because the TorchScript exporter bakes the attention-mask
shape of the example input into the graph with transformers 5 (outputs diverge at other lengths).
"""
import sys, os, json
import numpy as np
import torch
from transformers import BertModel


class LastHiddenState(torch.nn.Module):
    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                         token_type_ids=token_type_ids).last_hidden_state


def main(src, out):
    torch.manual_seed(0)
    bert = BertModel.from_pretrained(src, attn_implementation="eager").eval()
    model = LastHiddenState(bert).eval()
    example = (torch.ones(2, 16, dtype=torch.long), torch.ones(2, 16, dtype=torch.long),
               torch.zeros(2, 16, dtype=torch.long))
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("sequence", max=512)
    dyn = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq},
           "token_type_ids": {0: batch, 1: seq}}
    fp32 = os.path.join(out, "model.onnx")
    torch.onnx.export(model, example, fp32, input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["last_hidden_state"], dynamic_shapes=dyn, opset_version=17,
                      dynamo=True, external_data=False, verbose=False)

    import onnxruntime as ort
    from onnxruntime.quantization import quantize_dynamic, QuantType
    int8 = os.path.join(out, "model.int8.onnx")
    # per-channel weights keep pooled vectors at cosine >= 0.98 of fp32 on real sentences; per-tensor gave ~0.95
    quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8, per_channel=True)

    # Verify both files against torch on real sentences, padded, at a length other than the export example.
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(src)
    sentences = ["The director of the romantic comedy Big Stone Gap is based in what New York city?",
                 "At -20 °C the calibration offset of the sensor is +0.35 °C.",
                 "short",
                 "Adriana Trigiani is an Italian American best-selling author of sixteen books, television writer, "
                 "film director, and entrepreneur based in Greenwich Village, New York City."]
    enc = tok(sentences, padding=True, return_tensors="np")
    ids, mask, tt = (enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids"))
    with torch.no_grad():
        ref = model(torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(tt)).numpy()
    report = {}
    for name, path in (("fp32", fp32), ("int8", int8)):
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        got = sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": tt})[0]
        valid = mask.astype(bool)
        diff = float(np.abs(got[valid] - ref[valid]).max())
        # cosine of mean-pooled sentence vectors, what retrieval actually uses
        def pool(x):
            m = mask[..., None]
            v = (x * m).sum(1) / m.sum(1)
            return v / np.linalg.norm(v, axis=1, keepdims=True)
        cos = float((pool(got) * pool(ref)).sum(1).min())
        report[name] = {"max_abs_diff": diff, "min_pooled_cosine": cos}
    if report["fp32"]["max_abs_diff"] > 1e-3:
        raise SystemExit(f"fp32 ONNX export diverges from torch: {report['fp32']}")
    if report["int8"]["min_pooled_cosine"] < 0.97:
        raise SystemExit(f"int8 ONNX diverges from torch: {report['int8']}")
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
