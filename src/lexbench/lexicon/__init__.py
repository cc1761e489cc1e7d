"""The lexical ground floor: WordNet 3.0 (its files, a relation index and a sense table,
cached; a reader that needs no NLTK at scoring time), word lists and frequencies, and word
vectors. No module here knows a benchmark."""
