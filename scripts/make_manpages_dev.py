"""Write a third manual-QA tuning set, teamdocs-manpages, from the Linux man-pages the machine has.

    python3 scripts/make_manpages_dev.py OUT_DIR      (needs the Debian packages manpages and mandoc)

teamdocs-apache is the only manual set ragask may be tuned on, and a rule chosen on one set of 60
questions can fit that set and nothing else (teamdocs-git, which is never tuned on, is where that
shows). This script makes a second tuning set of the same shape from another real manual: the pages
of sections 4, 5, 7 and 8 of the Debian package `manpages` (the Linux man-pages project), rendered to
HTML by mandoc (`<dl>` term lists, as the teamdocs manuals have), and the questions of
data/dev/manpages-questions.jsonl, written for this project the way a colleague asks in Slack
(factoid, bridge, procedure), each answer checked here against its page's text. `ragask eval
--dataset OUT_DIR` measures on it like on the teamdocs sets.

Character-set tables (iso_8859-*, koi8-*, …), the console escape codes and the BPF helper list are
left out: tables of glyphs, not prose. Generated into a folder outside the repository; only the
questions are committed. Reader training rows must not come from these pages
(scripts/make_techdoc_rows.py skips them).
"""
import gzip, hashlib, html.parser, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
QUESTIONS = os.path.join(HERE, "..", "data", "dev", "manpages-questions.jsonl")
SECTIONS = re.compile(r"/man/man[4578]/[^/]+\.gz$")
LEFT_OUT = re.compile(r"^(iso[_-]?8859|cp125|koi8|latin|armscii|tis-620|ascii|charsets|utf-?8|unicode|console_codes|bpf-helpers)")


def package_pages():
    out = subprocess.run(["dpkg", "-L", "manpages"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("make_manpages_dev: the Debian package manpages is not installed; run: apt-get install manpages mandoc")
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "manpages"], capture_output=True, text=True).stdout.strip()
    pages = []
    for f in out.stdout.split("\n"):
        name = os.path.basename(f)[:-3] if f.endswith(".gz") else ""
        if SECTIONS.search(f) and not os.path.islink(f) and os.path.isfile(f) and not LEFT_OUT.match(name):
            pages.append(f)
    return version, sorted(pages)


class Text(html.parser.HTMLParser):
    """The text of a page with a space at every tag boundary (as the teamdocs sets' verify.py reads it)."""

    def __init__(self):
        super().__init__()
        self.parts = []

    def handle_starttag(self, tag, attrs):
        self.parts.append(" ")

    def handle_endtag(self, tag):
        self.parts.append(" ")

    def handle_data(self, data):
        self.parts.append(data)


def text_of(page_html):
    t = Text()
    t.feed(page_html)
    return re.sub(r"\s+", " ", "".join(t.parts)).lower()


def main(out_dir):
    if subprocess.run(["which", "mandoc"], capture_output=True).returncode != 0:
        sys.exit("make_manpages_dev: mandoc is not installed; run: apt-get install mandoc")
    version, pages = package_pages()
    corpus = os.path.join(out_dir, "corpus")
    os.makedirs(corpus, exist_ok=True)
    texts = {}
    for f in pages:
        name = os.path.basename(f)[:-3] + ".html"
        with gzip.open(f, "rb") as src:
            r = subprocess.run(["mandoc", "-Thtml"], input=src.read(), capture_output=True)
        if r.returncode > 1 or not r.stdout:  # 1: warnings only
            sys.exit(f"make_manpages_dev: mandoc could not render {f}: {r.stderr.decode()[:200]}")
        with open(os.path.join(corpus, name), "wb") as dst:
            dst.write(r.stdout)
        texts[f"corpus/{name}"] = text_of(r.stdout.decode("utf-8", "replace"))
    questions = [json.loads(l) for l in open(QUESTIONS) if l.strip()]
    for q in questions:
        missing = [s for s in q["supporting"] if s not in texts]
        if missing:
            sys.exit(f"make_manpages_dev: {q['id']}: {missing} not rendered from manpages {version}")
        if not any(a.lower() in texts[s] for s in q["supporting"] for a in q["answers"]):
            sys.exit(f"make_manpages_dev: {q['id']}: no answer of {q['answers']} stands in {q['supporting']} (manpages {version})")
    with open(os.path.join(out_dir, "questions.jsonl"), "w") as f:
        for q in questions:
            f.write(json.dumps(q) + "\n")
    with open(os.path.join(out_dir, ".ragaskignore"), "w") as f:
        f.write("questions.jsonl\nREADME.md\n")
    digest = hashlib.sha256("".join(sorted(texts)).encode()).hexdigest()[:16]
    with open(os.path.join(out_dir, "README.md"), "w") as f:
        f.write(f"# teamdocs-manpages\n\nMade by scripts/make_manpages_dev.py from Debian manpages {version}: "
                f"{len(pages)} pages, {len(questions)} questions (a tuning set; page list digest {digest}).\n")
    print(f"{len(questions)} questions over {len(pages)} pages of manpages {version} in {out_dir}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
