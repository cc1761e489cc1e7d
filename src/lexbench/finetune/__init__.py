"""The fine-tuning framework the papers' training experiments plug into (`lexbench finetune
...`); each experiment lives with its benchmark (`benchmarks/scan/finetune.py`: SCAN's BATS
training; `benchmarks/ekar/finetune_qa.py` and `finetune_explain.py`: E-KAR's QA classifier
and explanation generator).

* `trainer`: transformers' `Trainer`, resumable, the best checkpoint kept;
* `settings`: what a training run is asked for (`TrainConfig`), checked when made;
* `lora`: peft LoRA adapters (their settings, applied, merged back);
* `checkpoints`: the checkpoint folder a run resumes from (another run's refused);
* `finish`: the end every run shares: merge the adapters, save the model and its tokenizer,
  write the lineage (main process only);
* `lineage`: `lexbench-lineage.json`, written beside the weights of every output folder, so
  the folder is a model lexbench runs directly with its history in the run's config;
* `choice_model`: E-KAR's multiple-choice classifier (an encoder, mean-pooled, an MLP and a
  softmax over the candidates).

torch and transformers are imported inside functions only (`choice_model` excepted: import
it where torch is wanted).
"""
