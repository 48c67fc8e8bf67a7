"""Which reader rows are held out as dev: shared by train_reader.py and make_dev_set.py (no torch needed)."""
import hashlib

SOURCES = {
    "reader-squad11": ("single", 0.04),
    "reader-squad20-unanswerable": ("single", 0.04),
    "reader-nq-qed": ("single", 0.08),
    "reader-hotpotqa-train-a": ("multi", 0.23),
    "reader-hotpotqa-train-b": ("sentences", 0.0),
    "reader-hotpotqa-train-c": ("multi", 0.0),
    "reader-2wiki-train": ("multi", 0.0),
}


def is_dev(row_id, share):
    if share <= 0:
        return False
    h = int(hashlib.sha256(f"reader-dev:{row_id}".encode()).hexdigest()[:8], 16)
    return h / 0xFFFFFFFF < share
