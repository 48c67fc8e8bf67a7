"""Writes test/fixtures/tokenizer-golden.json: word-piece ids from Hugging Face's reference `tokenizers`
(Rust) for a few texts, so the test can check that the JS tokenizer ragask uses matches it exactly.
    .venv-export/bin/python scripts/make_tokenizer_golden.py models/all-MiniLM-L6-v2
"""
import json, sys
from tokenizers import Tokenizer

TEXTS = [
    "Which calibration offset applies at −20 °C to the temperature sensor used in Project Falcon?",
    "The Vantor TS-40 is a digital platinum-film temperature sensor made by Halden Microsystems.",
    "Tomasz Brenner works in Gdańsk; Ines Carvalho in Porto; Siri Lunde in Oslo.",
    "Firmware 3.2.1 (2024-03-28) fixes a watchdog reset — see INC-2024-031.",
    "naïve café résumé ÅNGSTRÖM straße",
    "日本語のテキストと emoji 🚀 mixed",
    "  lots   of\twhitespace\nand\r\nnewlines  ",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
]
tok = Tokenizer.from_file(f"{sys.argv[1]}/tokenizer.json")
tok.no_padding()
tok.no_truncation()
out = [{"text": t, "ids": tok.encode(t).ids} for t in TEXTS]
json.dump(out, open("test/fixtures/tokenizer-golden.json", "w"), ensure_ascii=False, indent=1)
print(f"wrote {len(out)} cases")
