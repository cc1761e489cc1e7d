"""Fine-tuning experiments of the papers lexbench reproduces (`lexbench finetune ...`).

* `scan_bats`: SCAN's "training set effects" -- a causal or masked LM fine-tuned on the
  BATS training split in the analogy template; `scan_table` is the paper's Table 4.
* `ekar_qa`: E-KAR's fine-tuned QA baseline -- an encoder, mean-pooled, an MLP and a
  softmax over the four candidates (`choice_model`); with gold explanations in its input it
  is the QA model of the Acc(Δ) metric.
* `ekar_generator`: E-KAR's explanation generator (seq2seq or causal LM); `ekar_accdelta`
  scores its explanations (EG metrics) and Acc(Δ).

Each output folder is a model lexbench runs directly and carries `lexbench-lineage.json`
(`lineage`). Training is transformers' `Trainer` (+ peft for LoRA), see `trainer`.
torch and transformers are imported inside functions only.
"""
