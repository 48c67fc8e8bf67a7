"""Write a pipeline dev set in the evaluation format from the reader's held-out rows.

    python3 scripts/make_dev_set.py ../shared/datasets OUT_DIR

The rows of reader-hotpotqa-train-a that scripts/train_reader.py holds out (by the same hash of the
row id) become OUT_DIR/corpus.jsonl (every passage of those rows, id = title) and
OUT_DIR/questions.jsonl. `ragask eval --dataset OUT_DIR` then measures the whole pipeline on
questions that neither the reader nor any threshold was fitted on, so design choices (how many
passages the reader reads, comparison handling) are made there and not on the evaluation sets.
Generated into a cache folder, never committed: the data stays in ../shared.
"""
import json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dev_split import SOURCES, is_dev  # noqa: E402


def main(data_dir, out_dir):
    name = "reader-hotpotqa-train-a"
    share = SOURCES[name][1]
    corpus, questions = {}, []
    with open(os.path.join(data_dir, name, "reader.jsonl")) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if not is_dev(r["id"], share):
                continue
            for c in r["contexts"]:
                corpus.setdefault(c["title"], c["text"])
            questions.append({"id": r["id"], "question": r["question"], "answers": r["answers"],
                              "supporting": [c["title"] for c in r["contexts"] if c.get("supporting")], "hops": 2})
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "corpus.jsonl"), "w") as f:
        for title, text in corpus.items():
            f.write(json.dumps({"id": title, "title": title, "text": text}) + "\n")
    with open(os.path.join(out_dir, "questions.jsonl"), "w") as f:
        for q in questions:
            f.write(json.dumps(q) + "\n")
    print(f"{len(questions)} questions over {len(corpus)} passages in {out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
