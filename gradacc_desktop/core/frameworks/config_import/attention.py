"""The attention kernel a trainer config loads the model with, as an ``AttentionKernel``.

transformers' ``attn_implementation`` names it (TRL's ModelConfig, axolotl's
``attn_implementation``); axolotl's older boolean flags and LLaMA-Factory's ``flash_attn``
stand for one of those names. A file that names none leaves the description's kernel as
it is (the model's default: SDPA where the model supports it)."""

from __future__ import annotations

from typing import Any

from ...attention import AttentionKernel
from ...text import trans_late
from .reader import Reader

# transformers' attn_implementation names (and the Hub kernels axolotl and
# LLaMA-Factory load) and what they keep and how fast they run: eager keeps the scores;
# the fused kernels (SDPA, FlashAttention 2, FlexAttention, xFormers, SageAttention)
# keep none; the flash-attn packages' FlashAttention 3 and 4 keep none at their own speed
IMPLEMENTATIONS: dict[str, AttentionKernel] = {
    "eager": AttentionKernel.EAGER,
    **dict.fromkeys(
        (
            "sdpa",
            "flash_attention_2",
            "flex_attention",
            "xformers",
            "sage",
            "fp8",
            "kernels-community/flash-attn2",
            "kernels-community/sage-attention",
        ),
        AttentionKernel.SDPA,
    ),
    **dict.fromkeys(
        (
            "flash_attention_3",
            "flash_attention_4",
            "kernels-community/flash-attn3",
            "kernels-community/vllm-flash-attn3",
        ),
        AttentionKernel.FLASH,
    ),
}

# axolotl's legacy flags (src/axolotl/utils/schemas/enums.py LEGACY_ATTN_FLAG_TO_IMPL),
# the first set one wins, as axolotl normalises them into attn_implementation
AXOLOTL_FLAGS = (
    ("xformers_attention", "xformers"),
    ("sage_attention", "sage"),
    ("flex_attention", "flex_attention"),
    ("flash_attention", "flash_attention_2"),
    ("sdp_attention", "sdpa"),
    ("eager_attention", "eager"),
)

# LLaMA-Factory 0.9.5, extras/constants.py AttentionFunction, as
# model/model_utils/attention.py configure_attn_implementation() turns it into
# attn_implementation ("auto": the model's default, the description's kernel stays)
LLAMA_FACTORY = {
    "disabled": "eager",
    "sdpa": "sdpa",
    "fa2": "flash_attention_2",
}

_HUB_KERNEL = trans_late(
    "ConfigImport",
    "a Hub attention kernel gradacc does not know: the description's attention kernel "
    "stays as it is",
)
_UNKNOWN = trans_late(
    "ConfigImport",
    "not an attention implementation transformers knows (a Hub kernel is named "
    "owner/name): loading the model fails",
)


def read_implementation(r: Reader, key: str, value: Any) -> None:
    """``key`` set to a transformers attn_implementation name (None: not set). A name
    transformers does not know is refused (``PreTrainedModel`` raises on it), a Hub
    kernel gradacc does not know leaves the description's kernel."""
    if value is None:
        return
    kernel = IMPLEMENTATIONS.get(value) if isinstance(value, str) else None
    if kernel is not None:
        r.set("attention", key, kernel)
    elif isinstance(value, str) and "/" in value:
        r.refuse(key, value, _HUB_KERNEL.format())
    else:
        r.refuse(key, value, _UNKNOWN.format(), "attention", refused=True)


def read_axolotl_attention(r: Reader, data: dict[Any, Any]) -> None:
    """axolotl: ``attn_implementation``, else the first legacy flag that is true."""
    if data.get("attn_implementation") is not None:
        read_implementation(r, "attn_implementation", data["attn_implementation"])
        return
    for flag, name in AXOLOTL_FLAGS:
        if data.get(flag) is True:
            r.set("attention", flag, IMPLEMENTATIONS[name])
            return


def read_llama_factory_attention(r: Reader, value: Any, model: Any) -> None:
    """LLaMA-Factory's ``flash_attn``: auto (the default), disabled, sdpa, fa2. gpt-oss
    runs FlashAttention 3 whatever is set (a Hub kernel); any other model raises
    "Unknown attention type" for fa3, and the parser refuses the rest."""
    if isinstance(model, str) and "gpt-oss" in model.lower():
        r.set("attention", "model_name_or_path", AttentionKernel.FLASH)
        return
    if value is None or value == "auto":
        return
    name = LLAMA_FACTORY.get(value) if isinstance(value, str) else None
    if name is None:
        r.refuse(
            "flash_attn",
            value,
            trans_late(
                "ConfigImport",
                'must be "auto", "disabled", "sdpa" or "fa2": LLaMA-Factory raises '
                '"Unknown attention type" for the others (but for gpt-oss)',
            ).format(),
            "attention",
            refused=True,
        )
    else:
        r.set("attention", "flash_attn", IMPLEMENTATIONS[name])
