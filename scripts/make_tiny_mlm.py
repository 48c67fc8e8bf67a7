"""Generate a tiny random BertForMaskedLM as ONNX, for tests of the MaskedLM wrapper only.

No real MLM weights are reachable from this project's machines, so tests exercise the fill-mask
code path on this model: the real architecture and the real vocabulary, random weights.
    python make_tiny_mlm.py VOCAB_DIR OUT_DIR
"""
import sys, os, json, shutil
import torch
from transformers import BertConfig, BertForMaskedLM


class Logits(torch.nn.Module):
    def __init__(self, mlm):
        super().__init__()
        self.mlm = mlm

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.mlm(input_ids=input_ids, attention_mask=attention_mask,
                        token_type_ids=token_type_ids).logits


def main(vocab_dir, out):
    torch.manual_seed(1234)
    vocab_size = json.load(open(os.path.join(vocab_dir, "config.json")))["vocab_size"]
    cfg = BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=128)
    model = Logits(BertForMaskedLM(cfg).eval()).eval()
    os.makedirs(out, exist_ok=True)
    example = (torch.ones(1, 8, dtype=torch.long), torch.ones(1, 8, dtype=torch.long),
               torch.zeros(1, 8, dtype=torch.long))
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("sequence", max=128)
    dyn = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq},
           "token_type_ids": {0: batch, 1: seq}}
    torch.onnx.export(model, example, os.path.join(out, "model.onnx"),
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                      dynamic_shapes=dyn, opset_version=17, dynamo=True, external_data=False, verbose=False)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(vocab_dir, f), os.path.join(out, f))
    cfg_dict = cfg.to_dict()
    cfg_dict["architectures"] = ["BertForMaskedLM"]
    json.dump(cfg_dict, open(os.path.join(out, "config.json"), "w"), indent=2)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
