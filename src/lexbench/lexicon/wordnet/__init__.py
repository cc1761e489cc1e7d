"""WordNet, read offline the way NLTK reads it, for LAMBDA and the studies built on it.

* `files`: find a WordNet 3.0 database (a path, lexbench's prepared copy, Debian's
  `wordnet-base`, NLTK's data) and prepare the copy NLTK's reader opens;
* `reader`: NLTK's reader opened fast (same answers, fewer costs);
* `index`: the relation index the benchmarks read (`RelationIndex`, the registered
  relations) and the walk that builds it;
* `index_cache`: the index cached on disk, built once (`load_index`);
* `senses`: the sense table LAMBDA's error taxonomy asks of a word;
* `lmf`, `lmf_read`, `lmf_graph`: any wordnet as a WN-LMF file, read safely and presented as
  NLTK's reader presents WordNet 3.0, so both paths build their index through one function.

Plugins read WordNet by the names below, which they were written against when this package
was one module (`from lexbench.lexicon.wordnet import load_index` keeps working); lexbench's
own modules import each name from the module that defines it.
"""

from lexbench.lexicon.wordnet.files import WordNetNotFound, locate_wordnet
from lexbench.lexicon.wordnet.index import (
    PAPER_RELATIONS,
    RELATIONS,
    RelationIndex,
    register_relation,
    relations_for,
)
from lexbench.lexicon.wordnet.index_cache import load_index

__all__ = [
    "PAPER_RELATIONS",
    "RELATIONS",
    "RelationIndex",
    "WordNetNotFound",
    "load_index",
    "locate_wordnet",
    "register_relation",
    "relations_for",
]
