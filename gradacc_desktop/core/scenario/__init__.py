"""Save and load a scenario: the calculator's inputs plus the training description.

File format (UTF-8 JSON, version 12)::

    {
      "format": "gradacc-scenario",
      "version": 12,
      "calculator": {"micro_batch": 4, "accumulation_steps": 8, "gpus": 1,
                     "activation_gb": "0.5"},
      "plan": {"target_batch": 32, "micro_batch": null, "gpus": 1, "rounding": "ceil",
               "gpu_card": "custom", "gpu_memory_gb": null, "other_memory_gb": null,
               "activation_gb": null, "seq_len": null, "dataset_samples": null,
               "nodes": 1, "zero_stage": 0, "precision": "bf16", "offload": "none",
               "tensor_parallel": 1, "pipeline_stages": 1, "recompute": "none",
               "model": null, "efficiency_percent": null,
               "price_per_gpu_hour": null, "training_tokens": null, "epochs": null,
               "custom_tflops": null, "custom_memory_bandwidth_gbps": null,
               "custom_link_gbps": null, "custom_network_gbps": null,
               "method": "full", "lora_rank": 16, "lora_targets": "query_value",
               "trainable_params": null, "optimizer": "adam", "target_seq": null,
               "overhead_gb": "1", "virtual_stages": 1, "expert_parallel": 1,
               "context_parallel": 1, "fp8": false,
               "attention": "sdpa", "link_gbps": null, "network_gbps": null,
               "goodput_percent": null, "images": null, "image_width": null,
               "image_height": null, "vision_frozen": false,
               "framework": "deepspeed", "sequence_parallel": false,
               "cpu_memory_gb": null, "fused_loss": false,
               "master_weights": "fp32", "expert_tensor_parallel": null,
               "tp_comm_overlap": false, "grad_reduce_bf16": false}
    }

Version 12 adds two Megatron switches, each ``true``/``false``: ``tp_comm_overlap``
(``--tp-comm-overlap``, Transformer Engine running sequence parallelism's collectives
inside the products) and ``grad_reduce_bf16`` (``--grad-reduce-in-bf16``, the gradient
buffer and its reduction in bf16). Files of versions 1 to 11 open without them.

Version 11 adds Megatron's expert tensor parallelism: ``expert_tensor_parallel`` (GPUs
each routed expert is split over; null: the tensor-parallel size). Files of versions 1
to 10 open with null.

``recompute`` may also be ``selective-op`` (torchtitan's per-op selective
checkpointing) in any version that has the key.

Version 10 adds the master copy: ``master_weights`` (``fp32``: mixed precision's fp32
master weights and optimizer states; ``bf16``: DeepSpeed's bf16 master copy and states;
``none``: pure bf16, the optimizer updating the bf16 weights). Files of versions 1 to 9
open with the fp32 master copy.

Version 9 adds the loss: ``fused_loss`` (``true``/``false``), the head and the loss fused
over chunks of tokens (Liger's fused linear cross-entropy), so a causal LM's whole logits
are never kept. Files of versions 1 to 8 open with the loss not fused.

Version 8 adds each node's CPU memory (``cpu_memory_gb``, an integer of GB of 10⁹ bytes;
null: not known), which the plan checks the model states a node keeps on the CPU
against (DeepSpeed's offloads, the fp32 model each process loads). Files of versions 1
to 7 open with it not known.

Version 7 adds what runs the step: the framework (``deepspeed``, ``megatron`` or
``fsdp``: how the model states are counted and the gradients travel) and Megatron's
sequence parallelism beside tensor parallelism (``true``/``false``; it changes
nothing without tensor parallelism); ``recompute`` may now also be ``selective``
(Megatron's attention-core recomputation), in any version that has the key. Files of
versions 1 to 6 open with DeepSpeed and no sequence parallelism.

Version 6 adds a vision tower's inputs: images per sample (null: one, for a language
model reading images), their width and height in pixels (null: the model's own size)
and whether the tower is frozen. Files of versions 1 to 5 open with those defaults.

Version 5 adds the time model's newer inputs: the interleaved pipeline's virtual stages
(ignored without pipeline stages), the expert-parallel GPUs of a mixture of experts
(ignored for a dense model), the context-parallel GPUs each sequence is split over
(they add GPUs; a version 5 file without the key has none), FP8 matrix products
around 16-bit training, the attention kernel (``sdpa``: fused; ``flash``: FlashAttention
3 on Hopper, 4 on Blackwell, readable in any version that has the key; ``eager``), the
links typed over the card's (GB/s per GPU and direction between the GPUs of a node
and between nodes; null: the card's) and the goodput in percent (the share of the
wall-clock time spent training; null: 100). Files of versions 1 to 4 open with one
virtual stage, no expert or context parallelism, no FP8, the fused kernel, the card's
links and a goodput of 100 %; ``efficiency_percent`` null now means
the efficiency model, not the card's one figure.

Version 4 is the training description: ``model`` is an object with one key — a bundled
model (``{"bundled": "llama-3.1-8b"}``), a config.json's name and text (``{"config":
{"file_name": …, "text": …}}``), typed sizes (``{"shape": {"family": "llama", "hidden":
…, "layers": …, "heads": …, "kv_heads": …, "intermediate": …, "vocab": …,
"max_positions": …}}``) or a parameter count (``{"params": …}``) — or null; the method
(``full``/``lora``/``qlora``) with the LoRA rank, the adapted layers (a choice, or PEFT
names separated by commas) and the adapters' parameters when typed; the optimizer; an
encoder-decoder's target length; the framework overhead of the derived other memory.
``activation_gb`` and ``other_memory_gb`` are values typed over the derived figures
(null: derived). Files of versions 1 to 3 open with the figures they give as typed
values, their model (a bundled name, or ``model_params``) and full fine-tuning with Adam.

Version 3 added the time model's inputs: the parallel layout (tensor-parallel size,
pipeline stages), recomputation, the model (a bundled model's name, or its parameters
typed in), the card's efficiency in percent (null: the card's own), a price per
GPU-hour, a token budget, the epochs over the dataset and the custom card's speed
(dense TFLOPS, memory bandwidth, link and network in GB/s). Version 2 files open with
one of each, no recomputation and nothing else.

Version 2 added the training setup the exports describe (``nodes`` over which the
GPUs are split, ZeRO stage, precision, CPU offload). Version 1 files (without those
four keys) still open, with one node, no ZeRO, bf16 and no offload.

Integers are JSON integers; decimals (GB) are strings such as ``"0.5"`` so they stay
exact. Every key is required, no other key is allowed, ``null`` only where shown as
optional in ``PlanSettings``. ``load`` either returns a whole ``Scenario`` or raises
``ScenarioError``: nothing is ever half-applied. ``gpu_card`` is only checked for
shape (``custom`` or a table id); the UI falls back to "custom" for ids it lacks.
"""

from .kinds import FileKind as FileKind
from .kinds import file_kind as file_kind
from .loading import load as load
from .saving import save as save
from .saving import to_dict as to_dict
from .settings import CPU_MEMORY_LIMITS as CPU_MEMORY_LIMITS
from .settings import FORMAT as FORMAT
from .settings import GOODPUT_PERCENT_LIMITS as GOODPUT_PERCENT_LIMITS
from .settings import MAX_BYTES as MAX_BYTES
from .settings import MAX_DEPTH as MAX_DEPTH
from .settings import MAX_INT_DIGITS as MAX_INT_DIGITS
from .settings import NODES_LIMITS as NODES_LIMITS
from .settings import READABLE_VERSIONS as READABLE_VERSIONS
from .settings import VERSION as VERSION
from .settings import ZERO_LIMITS as ZERO_LIMITS
from .settings import PlanSettings as PlanSettings
from .settings import ReadProblem as ReadProblem
from .settings import Scenario as Scenario
from .settings import ScenarioError as ScenarioError
