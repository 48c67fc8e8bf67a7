"""How a teamqa question is labelled for the reader, from the rows `ragask rows` writes: which answer
occurrences in the passages the engine read are the evidence line's, and the views a row is read as.
Standard library only, so it is tested without torch (test/scripts/train-teamqa.test.ts):

    python3 teamqa_rows.py ROWS.jsonl      one JSON line per question: its views' gold spans as text
"""
import json, os, random, re, sys

WORD = re.compile(r"[a-z0-9_.\-/]+")
# an occurrence is the evidence line's when this share of the line's words stand around it
EVIDENCE_SHARE = 0.6
# characters read each way around an answer occurrence when matching it to the evidence line
AROUND = 160


def words(s):
    return WORD.findall(s.lower())


def evidence_share(evidence, text):
    ev = set(words(evidence))
    if not ev:
        return 0.0
    return len(ev & set(words(text))) / len(ev)


def occurrences(text, answer):
    """Character ranges of `answer` in `text`, case-insensitive, not inside a longer word or number."""
    out, low, a = [], text.lower(), answer.lower().strip()
    if not a:
        return out
    start = 0
    while True:
        i = low.find(a, start)
        if i < 0:
            return out
        j = i + len(a)
        before = low[i - 1] if i > 0 else " "
        after = low[j] if j < len(low) else " "
        if not (before.isalnum() and a[0].isalnum()) and not (after.isalnum() and a[-1].isalnum()):
            out.append((i, j))
        start = i + 1


def gold_spans(row, passages):
    """(passage, start, end) of every answer occurrence that stands in the last evidence line's text."""
    if not row["answers"] or not row["evidence"]:
        return []
    evidence = row["evidence"][-1]  # a bridge's answer is on its second page
    gold = []
    for p, (_title, text) in enumerate(passages):
        for ans in row["answers"]:
            for s, e in occurrences(text, ans):
                around = text[max(0, s - AROUND): e + AROUND]
                if evidence_share(evidence, around) >= EVIDENCE_SHARE:
                    gold.append((p, s, e))
    return gold


def evidence_passage(row):
    """The evidence line as a passage of its own, titled by its page's file name."""
    page = os.path.splitext(os.path.basename(row["supporting"][-1]))[0] if row["supporting"] else ""
    return (page, row["evidence"][-1])


def views(row, rng):
    """The passage lists a teamqa row is read as: [(passages, gold spans, answer type)]."""
    passages = [(p["title"], p["text"]) for p in row["passages"]]
    if row["type"] == "unanswerable" or not row["answers"]:
        return [(passages, [], "unanswerable")] if passages else []
    gold = gold_spans(row, passages)
    out = [(passages, gold, "span")] if gold else ([(passages, [], "unanswerable")] if passages else [])
    if not gold:
        # the engine did not read the evidence line: read it among the passages, in a random place
        at = rng.randint(0, min(len(passages), 4))
        mixed = passages[:at] + [evidence_passage(row)] + passages[at:]
        g = gold_spans(row, mixed)
        if g:
            out.append((mixed, g, "span"))
    return out



def main():
    rng = random.Random(0)
    for line in open(sys.argv[1]):
        if not line.strip():
            continue
        row = json.loads(line)
        out = []
        for passages, gold, kind in views(row, rng):
            out.append({"kind": kind, "placed": any(t == evidence_passage(row) for t in passages) if row["evidence"] else False,
                        "spans": [{"text": passages[p][1][s:e], "line": passages[p][1][max(0, s - AROUND): e + AROUND]} for p, s, e in gold]})
        print(json.dumps({"id": row["id"], "views": out}))


if __name__ == "__main__":
    main()
