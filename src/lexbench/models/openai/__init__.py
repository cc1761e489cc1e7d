"""The OpenAI-compatible backend (`openai:MODEL`, and every hosted provider's prefix):
vLLM, SGLang, llama.cpp, Ollama, TGI and hosted APIs over one wire format.

* `backend`: the model (`load`, the registry's entry point) and what it answers;
* `options`: its options, checked when given (server, API, key, limits);
* `call`: one prompt's HTTP work, the unit the other parts pass around;
* `plan`: what is sent for each request kind and how the reply is read; `echo`: how a
  loglikelihood is read from an echoed prompt;
* `adapt`: what a hosted API refused, and how request bodies change to suit it;
* `preflight`: what is asked before a list is sent (the echo check, target tokens);
* `gather`: a list of requests as one list of calls, and each value back to its request;
* `send`, `flight`, `retry`, `http`: sending with bounded concurrency, the groups in flight,
  when to retry and how long to wait, and the transport;
* `targets`: which of a server's ranked token strings is a target word's first token.
"""
