"""Make reader training rows from real technical documentation: the Debian documentation packages the
project allows for training text (manpages, manpages-dev, python3.11-doc, bind9-doc, haproxy-doc,
postfix-doc), never from the packages the teamdocs evaluation sets come from (apache2-doc, git-doc).

    python make_techdoc_rows.py --out .tmp/reader-techdocs [--seed 13]

Manuals answer with a value, a name, an option or an error code, and they set many look-alike entries
side by side (every parameter of a page has a default). Each row here is one such entry (a term and its
description: a Postfix parameter, an HAProxy keyword, a Sphinx `dt`/`dd` of the Python library or the
BIND reference, a man page's option or error), asked about the way a colleague would ask:

- *default*: "By default, what is the time unit over which client connection rates are calculated?"
  answered by the entry's default value ("60s");
- *name*: "Which parameter sets the time unit over which ...?" answered by the entry's term;
- *error*: "Which error does open() give when O_CREAT and O_EXCL were used and the file exists?"

The entry is the supporting passage among 3-5 other entries of the same page (the look-alikes a
retrieved manual page brings), so the reader learns to take the value of the entry the question is
about, not the first "Default" it sees. Writes reader.jsonl (the training script's multi-passage row
format) and PROVENANCE.md (package versions, files, counts, sha256). Deterministic for a seed.
Needs beautifulsoup4 (scripts/requirements-techdocs.txt): a well-kept HTML parser that keeps the
text of inline tags apart the way a browser does.
"""
import argparse, glob, gzip, hashlib, json, os, random, re, subprocess, sys
from collections import Counter

from bs4 import BeautifulSoup

# The packages this script may read; anything else (apache2-doc, git-doc: the evaluation sets) is refused.
# Pages of `manpages` that scripts/make_manpages_dev.py makes a tuning set of: never training rows.
DEV_SET_PAGES = re.compile(r"/man/man[4578]/")
ALLOWED_PACKAGES = ("manpages", "manpages-dev", "python3.11-doc", "bind9-doc", "haproxy-doc", "postfix-doc")
OTHER_ENTRIES = (3, 5)  # look-alike entries set beside the one that answers
MAX_ENTRY_CHARS = 900  # an entry's text is cut here (the reader's windows are ~50 words of evidence each)
MAX_ANSWER_WORDS = 5
MAX_PER_PAGE = 1500  # rows from one page at most
MAX_ERRORS_PER_PAGE = 4  # errno rows are many and alike; a few per man page


def package_version(pkg):
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"make_techdoc_rows: Debian package {pkg} is not installed; run: apt-get install {' '.join(ALLOWED_PACKAGES)}")
    return out.stdout.strip()


def package_files(pkg):
    out = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True, check=True)
    return [f for f in out.stdout.split("\n") if os.path.isfile(f)]


def squash(text):
    return re.sub(r"\s+", " ", text).strip()


def first_sentence(text):
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return (m.group(1) if m else text).strip()


# ---------------------------------------------------------------- entries: (term, default or None, text)
def soup_of(path):
    with open(path, "rb") as f:
        return BeautifulSoup(f.read(), "html.parser")


def postfix_entries(path):
    """postconf(5): <DT><b>name (default: value)</b></DT><DD>description</DD>."""
    soup = soup_of(path)
    for dt in soup.find_all("dt"):
        head = squash(dt.get_text(" "))
        m = re.match(r"^(\S+)\s*\(default:\s*(.*)\)$", head)
        dd = dt.find_next_sibling("dd")
        if not m or dd is None:
            continue
        term, default = m.group(1), m.group(2).strip()
        yield term, default, f"{term} (default: {default}) {squash(dd.get_text(' '))}"


def haproxy_entries(path):
    """configuration.html: <div class="keyword"><b>name</b> args</div><pre class="text">description</pre>."""
    soup = soup_of(path)
    for div in soup.find_all("div", class_="keyword"):
        pre = div.find_next_sibling("pre")
        if pre is None:
            continue
        head = squash(div.get_text(" "))
        term = head.split(" ")[0]
        yield term, None, f"{head} {squash(pre.get_text(' '))}"


def sphinx_entries(path):
    """Python library / BIND reference: <dl><dt id=…>signature</dt><dd>description</dd></dl>."""
    soup = soup_of(path)
    for dt in soup.find_all("dt"):
        dd = dt.find_next_sibling("dd")
        if dd is None or not dt.get("id"):
            continue
        for a in dt.find_all("a", class_="headerlink"):
            a.decompose()
        head = squash(dt.get_text(""))
        term = re.split(r"[\s(\[]", head)[0] or head
        yield term, None, f"{head} {squash(dd.get_text(' '))}"


def man_text(path):
    env = dict(os.environ, MANWIDTH="2000", MAN_KEEP_FORMATTING="0")
    out = subprocess.run(["man", "-l", path], capture_output=True, text=True, env=env)
    return subprocess.run(["col", "-b"], input=out.stdout, capture_output=True, text=True).stdout


def man_entries(path):
    """A man page's OPTIONS and ERRORS: a term at 7 spaces, its description indented further."""
    text = man_text(path)
    name = os.path.basename(path).split(".")[0]
    section = None
    term, lines = None, []

    def flush():
        if term and lines:
            return (section, term, squash(" ".join(lines)))
        return None

    for raw in text.split("\n"):
        if re.match(r"^[A-Z][A-Z ]+$", raw):
            done = flush()
            if done:
                yield done
            section, term, lines = raw.strip(), None, []
            continue
        if section not in ("OPTIONS", "ERRORS"):
            continue
        m = re.match(r"^ {7}(\S[^\t]*?)(?:\t| {2,}|$)(.*)$", raw)
        if m and not raw.startswith(" " * 8):
            done = flush()
            if done:
                yield done
            term, lines = m.group(1).strip(), [m.group(2)] if m.group(2).strip() else []
        elif term and raw.strip():
            lines.append(raw.strip())
        elif not raw.strip() and term and lines and section == "ERRORS":
            done = flush()
            if done:
                yield done
            term, lines = None, []
    done = flush()
    if done:
        yield done
    _ = name


# ---------------------------------------------------------------- questions
DEFAULT_SENTENCE = re.compile(
    r"\b(?:the\s+)?default(?:\s+value)?\s+(?:is|:)\s+(?P<v>.+?)(?=[.;,()](?:\s|$)|[;,()]|\s+(?:and|but|if|unless|which|when|for)\b|$)",
    re.I,
)
NOT_A_VALUE = re.compile(r"^(?:to|not|that|the\s+same|used|set|empty|none\s+of|a|an|defined)\b", re.I)


def value_like(v):
    words = v.split()
    if not words or len(words) > MAX_ANSWER_WORDS or NOT_A_VALUE.match(v) or "$" in v:
        return False
    return any(ch.isdigit() for ch in v) or len(words) <= 2


def default_in_text(text):
    for m in DEFAULT_SENTENCE.finditer(text):
        v = m.group("v").strip().strip("'\"“”")
        if value_like(v):
            return v
    return None


def noun_phrase(sentence):
    """'The time unit over which rates are calculated.' -> 'the time unit over which rates are calculated'."""
    s = sentence.rstrip(".").strip()
    if re.match(r"^(The|A|An)\s", s) and 4 <= len(s.split()) <= 24:
        return s[0].lower() + s[1:]
    return None


# Verbs a manual's entry starts with in the imperative ("Return the path.", "Set the size.")
IMPERATIVE = {
    "return", "set", "get", "create", "remove", "delete", "add", "open", "close", "read", "write", "convert", "raise",
    "compute", "make", "use", "enable", "disable", "specify", "change", "send", "print", "display", "list", "start",
    "stop", "run", "execute", "wait", "check", "test", "limit", "define", "allow", "force", "load", "save", "copy",
    "move", "rename", "register", "unregister", "encode", "decode", "parse", "format", "split", "join", "call",
}
IRREGULAR = {"do": "does", "go": "goes", "be": "is", "have": "has"}


def third_person(verb):
    v = verb.lower()
    if v in IRREGULAR:
        return IRREGULAR[v]
    if v.endswith("s"):
        return v
    if re.search(r"[^aeiou]y$", v):
        return v[:-1] + "ies"
    if re.search(r"(sh|ch|x|z)$", v):
        return v + "es"
    return v + "s"


def verb_phrase(sentence):
    """'Sets the HTTP/2 header table size.' / 'Return the path.' -> 'sets the HTTP/2 header table size'."""
    s = sentence.rstrip(".").strip()
    words = s.split()
    if not (4 <= len(words) <= 24) or not re.match(r"^[A-Z][a-z]+$", words[0]):
        return None
    if not (words[0].lower() in IMPERATIVE or (words[0].endswith("s") and not words[0].endswith(("ss", "us")))):
        return None  # a noun phrase ("String constant ...", "Warning ..."), not something the entry does
    return " ".join([third_person(words[0])] + words[1:])


DEFAULT_TEMPLATES = [
    "What is the default value of {term}?",
    "If we never set {term}, what value does it take?",
    "What's {term} set to out of the box?",
    "By default, what is {np}?",
    "If nobody configures it, what is {np}?",
    "What's the default for {np}, if {term} is left alone?",
]
NAME_TEMPLATES = [
    "Which {kind} {vp}?",
    "What's the name of the {kind} that {vp}?",
    "Is there a {kind} that {vp}? What is it called?",
]
NP_NAME_TEMPLATES = ["Which {kind} sets {np}?", "What {kind} do we use to configure {np}?"]
ERROR_TEMPLATES = [
    "Which error does {fn} give when {cond}?",
    "What errno do we get from {fn} if {cond}?",
]


def questions_for(source_kind, term, default, text, rng, page):
    """[(question, answer, kind)] for one entry."""
    out = []
    desc = text[len(term):].strip() if text.startswith(term) else text
    desc = re.sub(r"^\(default:[^)]*\)\s*", "", desc)
    sentence = first_sentence(desc)
    np = noun_phrase(sentence)
    vp = verb_phrase(sentence)
    if source_kind == "error":
        cond = sentence.rstrip(".")
        if 3 <= len(cond.split()) <= 25 and re.match(r"^E[A-Z0-9]+$", term):
            if len(cond) > 1 and cond[1].islower():
                cond = cond[0].lower() + cond[1:]
            out.append((rng.choice(ERROR_TEMPLATES).format(fn=page, cond=cond), term, "error"))
        return out
    value = default if default and value_like(default) else default_in_text(desc)
    if value and value in text:
        templates = [t for t in DEFAULT_TEMPLATES if "{np}" not in t or np]
        out.append((rng.choice(templates).format(term=term, np=np), value, "default"))
    kind = {"postfix": "parameter", "haproxy": "keyword", "python": "function", "bind": "option", "option": "option"}[source_kind]
    if kind == "function" and ("." not in term or "(" not in text[: len(term) + 2]):
        return out  # a constant or a class attribute: its description seldom says what it does
    if vp:
        phrase = vp if source_kind != "option" else f"of {page} {vp}"
        article = "an" if kind[0] in "aeiou" else "a"
        q = rng.choice(NAME_TEMPLATES).format(kind=kind, vp=phrase).replace(f" a {kind} ", f" {article} {kind} ")
        out.append((q.replace(" that of ", " of "), term, "name"))
    elif np and source_kind in ("postfix", "bind"):
        out.append((rng.choice(NP_NAME_TEMPLATES).format(kind=kind, np=np), term, "name"))
    return out


# ---------------------------------------------------------------- pages
def pages(pkgs):
    """(package, path, source kind, page title, entries) for every page this script reads."""
    for pkg in pkgs:
        for path in package_files(pkg):
            base = os.path.basename(path)
            if pkg == "manpages" and DEV_SET_PAGES.search(path):
                continue  # the tuning set teamdocs-manpages (scripts/make_manpages_dev.py) reads these
            if pkg == "postfix-doc" and base == "postconf.5.html":
                yield pkg, path, "postfix", "postconf(5): Postfix configuration parameters", list(postfix_entries(path))
            elif pkg == "haproxy-doc" and base == "configuration.html":
                yield pkg, path, "haproxy", "HAProxy Configuration Manual", list(haproxy_entries(path))
            elif pkg == "bind9-doc" and base == "reference.html":
                yield pkg, path, "bind", "BIND 9 Configuration Reference", list(sphinx_entries(path))
            elif pkg == "python3.11-doc" and "/html/library/" in path and base.endswith(".html"):
                title = soup_of(path).title
                yield pkg, path, "python", squash(title.get_text()) if title else base, list(sphinx_entries(path))
            elif pkg in ("manpages", "manpages-dev") and re.search(r"/man[1-8]/[^/]+\.gz$", path):
                name = base.split(".")[0]
                opts, errs = [], []
                for section, term, desc in man_entries(path):
                    if section == "ERRORS":
                        errs.append((term, None, f"{term} {desc}"))
                    else:
                        # the option itself ("-f"), not its argument or its other spellings
                        opt = re.split(r"[ ,=\[]", term)[0]
                        opts.append((opt, None, f"{term} {desc}"))
                if errs and re.search(r"/man[23]/", path):
                    yield pkg, path, "error", f"{name}()", errs
                if opts and ("/man1/" in path or "/man8/" in path):
                    yield pkg, path, "option", name, opts


def rows_of_page(pkg, path, source_kind, title, entries, rng):
    entries = [(t, d, x[:MAX_ENTRY_CHARS]) for t, d, x in entries if len(x) > 40]
    if len(entries) < OTHER_ENTRIES[0] + 1:
        return []
    rows = []
    for i, (term, default, text) in enumerate(entries):
        for question, answer, qkind in questions_for(source_kind, term, default, text, rng, title.split(":")[0]):
            at = text.find(answer)
            if at < 0:
                continue
            others = [e for j, e in enumerate(entries) if j != i and e[0] != term]
            pick = rng.sample(others, min(len(others), rng.randint(*OTHER_ENTRIES)))
            contexts = [{"title": title, "text": text, "supporting": True}]
            contexts += [{"title": title, "text": x, "supporting": False} for _, _, x in pick]
            rid = hashlib.sha256(f"{path}|{term}|{qkind}".encode()).hexdigest()[:16]
            rows.append({
                "id": f"techdocs-{rid}", "question": question, "answers": [answer], "answer_type": "span",
                "contexts": contexts, "spans": [{"context": 0, "start": at, "end": at + len(answer)}],
                "meta": {"package": pkg, "file": path, "term": term, "kind": qkind},
            })
    rng.shuffle(rows)
    cap = MAX_ERRORS_PER_PAGE if source_kind == "error" else MAX_PER_PAGE
    return rows[:cap]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    versions = {p: package_version(p) for p in ALLOWED_PACKAGES}
    rows, per_file = [], Counter()
    for pkg, path, kind, title, entries in pages(ALLOWED_PACKAGES):
        made = rows_of_page(pkg, path, kind, title, entries, rng)
        per_file[(pkg, kind)] += len(made)
        rows += made
    os.makedirs(args.out, exist_ok=True)
    out = os.path.join(args.out, "reader.jsonl")
    with open(out, "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    digest = hashlib.sha256(open(out, "rb").read()).hexdigest()
    kinds = Counter(r["meta"]["kind"] for r in rows)
    with open(os.path.join(args.out, "PROVENANCE.md"), "w") as f:
        f.write("# reader-techdocs\n\nMade by scripts/make_techdoc_rows.py (seed %d) from these Debian packages:\n\n" % args.seed)
        for p, v in versions.items():
            f.write(f"- {p} {v}\n")
        f.write(f"\n{len(rows)} rows; by kind: {dict(kinds)}; sha256 of reader.jsonl `{digest}`\n\n")
        for (pkg, kind), n in sorted(per_file.items()):
            f.write(f"- {pkg}, {kind}: {n}\n")
    print(f"{len(rows)} rows ({dict(kinds)}) -> {out} sha256 {digest}", file=sys.stderr)


if __name__ == "__main__":
    main()
