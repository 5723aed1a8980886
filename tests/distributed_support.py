"""Helpers that Ray workers import in tests/test_distributed.py (the fixture puts this folder on their path)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.fs as pafs

METRICS = ["ndcg@10", "ap@100", "mrr@10", "precision@5", "recall@20", "r_precision", "ndcg"]


class FlakyHandler(pafs.FileSystemHandler):
    """The local filesystem, except that the first write whose name contains ``trigger`` fails once.

    ``how="oserror"`` raises ``OSError`` (a flaky store); ``how="crash"`` kills the worker process (a lost node).
    A marker file records the failure, so the retry, in whatever process, succeeds.
    """

    def __init__(self, trigger: str, marker: str, how: str = "oserror") -> None:
        self.trigger, self.marker, self.how = trigger, marker, how
        self.local = pafs.LocalFileSystem()

    def open_output_stream(self, path, metadata):
        if self.trigger in path and not Path(self.marker).exists():
            Path(self.marker).write_text(str(os.getpid()))
            if self.how == "crash":
                os._exit(1)
            raise OSError(f"injected failure writing {path}")
        return self.local.open_output_stream(path, metadata=metadata)

    # everything else: the local filesystem
    def get_type_name(self):
        return "flaky-local"

    def normalize_path(self, path):
        return self.local.normalize_path(path)

    def get_file_info(self, paths):
        return self.local.get_file_info(paths)

    def get_file_info_selector(self, selector):
        return self.local.get_file_info(selector)

    def create_dir(self, path, recursive):
        self.local.create_dir(path, recursive=recursive)

    def delete_dir(self, path):
        self.local.delete_dir(path)

    def delete_dir_contents(self, path, missing_dir_ok=False):
        self.local.delete_dir_contents(path, missing_dir_ok=missing_dir_ok)

    def delete_root_dir_contents(self):
        raise OSError("not supported")

    def delete_file(self, path):
        self.local.delete_file(path)

    def move(self, src, dest):
        self.local.move(src, dest)

    def copy_file(self, src, dest):
        self.local.copy_file(src, dest)

    def open_input_stream(self, path):
        return self.local.open_input_stream(path)

    def open_input_file(self, path):
        return self.local.open_input_file(path)

    def open_append_stream(self, path, metadata):
        return self.local.open_append_stream(path, metadata=metadata)

    def __eq__(self, other):
        return isinstance(other, FlakyHandler) and vars(self) == vars(other)

    def __ne__(self, other):
        return not self == other


def flaky_filesystem(trigger: str, marker: str, how: str = "oserror") -> pafs.PyFileSystem:
    return pafs.PyFileSystem(FlakyHandler(trigger, marker, how))


class LetterEmbedder:
    """A small deterministic embedder: letter counts (and one constant) of the lower-cased text.

    A text containing ``"💥"`` makes the call fail, as a flaky model server would.
    """

    name = "letters-v1"

    def _vectors(self, texts):
        if any("💥" in t for t in texts):
            raise RuntimeError("the embedding model failed on this text")
        return [[t.lower().count(c) for c in "abcdefghijklmnopqrstuvwxyz"] + [1.0] for t in texts]

    def embed_queries(self, texts):
        return self._vectors(texts)

    def embed_passages(self, texts):
        return self._vectors(texts)


class CountingFactory:
    """Builds a :class:`LetterEmbedder` and leaves one file per construction in ``directory``."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def __call__(self) -> LetterEmbedder:
        Path(self.directory, f"built-{os.getpid()}-{id(self)}").write_text("")
        return LetterEmbedder()


def random_tables(seed: int, by: str = "score", str_docs: bool = True, int_queries: bool = False):
    """qrels and run with ties, ±inf scores, invalid queries, queries missing from either side, rows shuffled."""
    rng = np.random.default_rng(seed)
    qid = (lambda i: 1000 + i) if int_queries else (lambda i: f"q{i}")
    did = (lambda d: f"d{d}") if str_docs else (lambda d: int(d))
    qrels, run = [], []
    for i in range(70):
        docs = rng.choice(40, size=int(rng.integers(1, 8)), replace=False)
        qrels += [(qid(i), did(d), float(rng.integers(0, 4))) for d in docs]
    for i in range(6, 80):  # q0-q5 are missing from the run; q70-q79 are not in qrels
        depth = int(rng.integers(0, 30))
        docs = rng.choice(60, size=depth, replace=False)
        if by == "score":
            scores = rng.integers(0, 4, size=depth).astype(float)  # many ties
            scores[rng.random(depth) < 0.1] = np.inf
            scores[rng.random(depth) < 0.1] = -np.inf
            run += [(qid(i), did(d), s) for d, s in zip(docs, scores, strict=False)]
        else:
            run += [(qid(i), did(d), float(r + 1)) for r, d in enumerate(docs)]
    qrels.append((qid(7), did(3), math.inf))  # a non-finite grade
    qrels += [(qid(8), did(90), 1.0), (qid(8), did(90), 2.0)]  # judged twice
    if by == "score":
        run += [(qid(9), did(5), math.nan), (qid(10), did(91), 1.0), (qid(10), did(91), 2.0)]
    else:
        run += [(qid(9), did(5), math.nan), (qid(10), did(91), 1.0), (qid(10), did(91), 4.0)]  # repeat: best rank
    qrels_df = pd.DataFrame(qrels, columns=["query_id", "doc_id", "grade"])
    run_df = pd.DataFrame(run, columns=["query_id", "doc_id", by]).sample(frac=1.0, random_state=seed)
    return qrels_df, run_df.reset_index(drop=True)


def make_judge(base_url: str, api_key: str, cache: str | None = None, max_concurrency: int = 4):
    """An LLMJudge on the local judge server (built in each Ray actor)."""
    from rag_eval_adapters.judges import LLMJudge
    from rag_eval_adapters.testsets import OpenAICompatibleLLM

    llm = OpenAICompatibleLLM("judge-model", base_url=base_url, api_key=api_key)
    return LLMJudge(llm, cache=cache, max_concurrency=max_concurrency, retry_base_delay=0.0, progress=False)
