"""Model backends, one module (or a few) per family: transformers causal LMs (`hf`),
OpenAI-compatible servers (`openai`), masked LMs (`mlm`), word vectors (`embeddings`) and
people (`human`). `base` declares the contract every backend follows; `registry` resolves a
model spec through the `lexbench.models` entry points. Backends import their heavy
dependencies inside their functions, never at package import."""
