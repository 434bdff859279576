"""Whisper speech encoder-decoders trained as sequence-to-sequence LMs
(``modeling_whisper.py``, ``configuration_whisper.py``, ``masking_utils.py`` and
``integrations/sdpa_attention.py`` of ``transformers`` 5.24).

The model is ``WhisperForConditionalGeneration``. Its encoder reads 30 s of audio as
``num_mel_bins`` × 3 000 log-mel frames (2 · ``max_source_positions``: transformers
refuses any other length), through a stem of two ``Conv1d`` (kernel 3, the second with
stride 2) each followed by an exact GELU, adds sinusoidal positions (an
``nn.Embedding`` of ``max_source_positions`` rows frozen with ``requires_grad_(False)``:
a parameter ``num_parameters()`` counts, that keeps nothing) and runs pre-LN layers and
a final LayerNorm over ``max_source_positions`` positions (1 500). The decoder embeds the
transcript's tokens and its learned positions (``max_target_positions`` rows, 448: the
labels may not be longer), runs pre-LN layers with cross-attention and a final
LayerNorm; ``proj_out`` is tied to the token embedding.

The estimate's ``seq`` is therefore the encoder length, always ``max_source_positions``
(anything else is refused), and ``target_seq`` the transcript's length (at most
``max_target_positions``; ``Architecture.inputs`` starts from that limit).

Symbols: s encoder positions (``inputs.seq``), t transcript tokens
(``inputs.decoder_seq``), h ``d_model``, a heads of the stack, i its ``*_ffn_dim``, c
``num_mel_bins``, V vocabulary, p bytes per element, m bytes per dropout-mask element
(``common.dropout_mask``).

Encoder stem (once per model): ``conv1`` keeps the input features (p·c·2s), the first
GELU its input (p·h·2s), ``conv2`` the GELU's output (p·h·2s), the second GELU its input
(p·h·s); with dropout the embedding dropout's noise/mask (m·s·h).

Encoder layer (b = 1): the two LayerNorms (input and mean/rstd per token: fp32 on CUDA,
the dtype on CPU); the q/k/v input (p·s·h, one tensor for the three linears); Q, K and V
(3·p·s·h: ``q_proj`` is scaled, then each is made contiguous in heads layout); eager: the
softmax in the dtype (p·a·s², no upcast); SDPA: the fp32 log-sum-exp (4·a·s) and the
kernel's output (p·s·h: Q is contiguous in heads layout, the output follows it, and
``transpose(1, 2).contiguous()`` copies it for ``out_proj``; measured on CPU, modelled
the same on CUDA); on CPU SDPA with dropout takes the fp32 math path (fp32 Q, K, V,
softmax, dropout noise and output); the ``out_proj`` input (p·s·h); the ``fc1`` input
(p·s·h), the activation (exact GELU keeps its input, p·s·i), the ``fc2`` input (p·s·i);
with dropout two residual dropouts, the activation dropout and the attention dropout. In
fp16 every encoder layer clamps its output: ``torch.clamp`` keeps its input (p·s·h).

Decoder layer: the same self-attention over t tokens (causal: ``is_causal`` for SDPA, an
additive mask for eager, kept by nothing), then cross-attention: its LayerNorm, the
``q_proj`` input (p·t·h), Q (p·t·h), K and V of the encoder output (2·p·s·h, in every
layer); eager: softmax p·a·t·s; SDPA: log-sum-exp 4·a·t and the kernel's output (p·t·h);
the ``out_proj`` input (p·t·h); then the feed-forward.

Nothing is masked: the encoder takes no attention mask (short audio is padded with
silence to 30 s) and the fine-tuning collators pad the labels with -100 without a
decoder mask, so a padded batch keeps the same tensors.

Once per model: the stem, the int64 decoder ids (the labels shifted right) and position
ids (8·t each), the decoder's embedding dropout, the encoder output kept by every
cross-attention (p·s·h), the two final LayerNorms, the ``proj_out`` input (p·t·h) and the
loss (``CrossEntropyLoss`` on the logits in the dtype: log-softmax output p·t·V, int64
labels, total weight).

Full recomputation (the layers are ``GradientCheckpointingLayer``): each layer keeps its
input hidden states; the encoder output (the decoder layers' third argument) is kept
once, and with eager attention the decoder's additive causal mask (p·t²).
"""

from __future__ import annotations

from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import (
    Attention,
    Device,
    Family,
    Inputs,
    InvalidActivationInputs,
    Part,
    ShapeProblem,
)
from gradacc_desktop.core.memory.families import seq2seq
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigProblem,
    ConfigReader,
    Head,
    ModelConfigError,
    linear,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    dropout_mask,
    eager,
    layer_norm,
)
from gradacc_desktop.core.memory.families.heads import Task
from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("whisper",)

#: positions are a fixed table in the encoder and a learned one in the decoder: the CLI
#: refuses a ``seq`` past ``max_positions`` (the encoder's) and a ``target_seq`` past
#: ``spec.max_target_positions`` (``Architecture.max_target_positions``); ``layout``
#: refuses both too (and any encoder length but the model's own)
LEARNED_POSITIONS = MODEL_TYPES

# transformers 5.24 WhisperConfig defaults (whisper-tiny's sizes)
_VOCAB, _MELS, _D_MODEL, _LAYERS, _HEADS, _FFN = 51865, 80, 384, 4, 6, 1536
_SOURCE, _TARGET, _PAD = 1500, 448, 50256

#: the stem's second convolution halves the frames: 2 · max_source_positions frames
FRAMES_PER_POSITION = 2

_LM_HEAD = "WhisperForConditionalGeneration"
_CAUSAL = "WhisperForCausalLM"


@dataclass(frozen=True)
class WhisperSpec:
    decoder_layers: int
    decoder_heads: int
    decoder_intermediate: int
    mel_bins: int
    #: the encoder's positions (its sequence is always this long)
    max_source_positions: int
    #: the decoder's learned positions: the longest transcript (labels) it takes
    max_target_positions: int
    activation: str
    #: tie_word_embeddings (false: ``proj_out`` has its own matrix)
    tie_embeddings: bool
    #: the largest of encoder_layerdrop and decoder_layerdrop (the estimate runs every layer)
    layerdrop: float
    #: ``architectures[0]`` names the conditional-generation head (or nothing)
    lm_head_file: bool

    @property
    def fixed_seq(self) -> int:
        """The encoder always runs over this many positions (30 s of audio)."""
        return self.max_source_positions


def _probability(config: ConfigReader, key: str) -> float:
    value = config.number(key, 0.0) or 0.0
    if not 0.0 <= value <= 1.0:
        raise ModelConfigError(
            ConfigProblem.BAD_VALUE,
            trans_late(
                "ModelConfig", "{key} must be a probability between 0 and 1, got {value}"
            ).format(key=key, value=value),
            key,
        )
    return value


def _encoder_heads(config: ConfigReader) -> int:
    """``num_attention_heads`` and ``num_key_value_heads`` are both aliases of
    ``encoder_attention_heads`` in transformers 5.24 (the last one set wins)."""
    aliases = [key for key in ("num_attention_heads", "num_key_value_heads") if config.has(key)]
    values = {config.integer(key) for key in aliases}
    if len(values) > 1:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "num_attention_heads and num_key_value_heads both name the encoder's "
                "heads and disagree",
            ).format(),
            "num_key_value_heads",
        )
    return config.first_int((*aliases, "encoder_attention_heads"), _HEADS)


def parse(config: ConfigReader) -> Architecture:
    # the attribute_map aliases (hidden_size, num_hidden_layers, num_attention_heads)
    # win over d_model, encoder_layers and encoder_attention_heads in transformers 5.24
    hidden = config.first_int(("hidden_size", "d_model"), _D_MODEL)
    layers = config.first_int(("num_hidden_layers", "encoder_layers"), _LAYERS)
    heads = _encoder_heads(config)
    decoder_heads = config.integer("decoder_attention_heads", _HEADS)
    for key, n in (("encoder_attention_heads", heads), ("decoder_attention_heads", decoder_heads)):
        if hidden % n:
            raise config.unsupported(
                trans_late(
                    "ModelConfig", "d_model ({hidden}) must divide by {key} ({heads})"
                ).format(hidden=hidden, key=key, heads=n),
                key,
            )
    if hidden % 2 or hidden < 4:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "d_model must be even and at least 4 (the encoder's sinusoidal positions "
                "pair sines and cosines)",
            ).format(),
            "d_model",
        )
    activation = config.text("activation_function", "gelu")
    if activation not in ACTIVATION_KEEPS:
        raise config.unsupported(
            trans_late("ModelConfig", "activation_function {name} is not modelled").format(
                name=repr(activation)
            ),
            "activation_function",
        )
    if not config.flag("is_encoder_decoder", True):
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "is_encoder_decoder is false: only the encoder-decoder trained as "
                "WhisperForConditionalGeneration is modelled",
            ).format(),
            "is_encoder_decoder",
        )
    architecture = config.architecture()
    if architecture == _CAUSAL:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "architectures: {name} is the decoder alone; only the encoder-decoder "
                "trained as a sequence-to-sequence LM is modelled",
            ).format(name=architecture),
            "architectures",
        )
    vocab = config.integer("vocab_size", _VOCAB)
    if "pad_token_id" in config.raw and config.raw["pad_token_id"] is None:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "pad_token_id is null: transformers needs it to shift the labels right",
            ).format(),
            "pad_token_id",
        )
    pad = config.integer("pad_token_id", _PAD, minimum=0)
    if pad >= vocab:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "pad_token_id ({pad}) must be below vocab_size ({vocab}): it is the "
                "token embedding's padding index",
            ).format(pad=pad, vocab=vocab),
            "pad_token_id",
        )
    layerdrop = max(
        _probability(config, "encoder_layerdrop"), _probability(config, "decoder_layerdrop")
    )
    for key in ("dropout", "attention_dropout", "activation_dropout"):
        _probability(config, key)  # "with dropout" takes every one as active
    spec = WhisperSpec(
        decoder_layers=config.integer("decoder_layers", _LAYERS),
        decoder_heads=decoder_heads,
        decoder_intermediate=config.integer("decoder_ffn_dim", _FFN),
        mel_bins=config.integer("num_mel_bins", _MELS),
        max_source_positions=config.integer("max_source_positions", _SOURCE),
        max_target_positions=config.integer("max_target_positions", _TARGET),
        activation=activation,
        tie_embeddings=config.flag("tie_word_embeddings", True),
        layerdrop=layerdrop,
        lm_head_file=architecture == _LM_HEAD or not architecture,
    )
    return Architecture(
        model_type="whisper",
        family=Family.WHISPER,
        head=Head.SEQ2SEQ_LM,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        intermediate=config.integer("encoder_ffn_dim", _FFN),
        vocab=vocab,
        # the encoder's length: the estimate's seq (default_seq: 1 500)
        max_positions=spec.max_source_positions,
        spec=spec,
    )


def parameters(arch: Architecture) -> int:
    """``WhisperForConditionalGeneration``: the convolutional stem, the encoder's frozen
    sinusoidal positions (``requires_grad`` False, still a parameter that
    ``num_parameters()`` counts), the layers (``k_proj`` without bias, the other
    linears and the LayerNorms with bias), two final LayerNorms, the token embedding
    (also ``proj_out``'s weight when tied), the decoder's learned positions."""
    spec: WhisperSpec = arch.spec
    h, v, c = arch.hidden, arch.vocab, spec.mel_bins
    norm = 2 * h
    attention = linear(h, h, False) + 3 * linear(h, h, True)
    stem = linear(3 * c, h, True) + linear(3 * h, h, True)
    i = arch.intermediate
    encoder = attention + linear(h, i, True) + linear(i, h, True) + 2 * norm
    i = spec.decoder_intermediate
    decoder = 2 * attention + linear(h, i, True) + linear(i, h, True) + 3 * norm
    positions = (spec.max_source_positions + spec.max_target_positions) * h
    embeddings = (1 if spec.tie_embeddings else 2) * v * h
    return (
        stem
        + positions
        + embeddings
        + arch.layers * encoder
        + spec.decoder_layers * decoder
        + 2 * norm
    )


def lookup_parameters(arch: Architecture) -> int:
    """Parameters used by lookups only: both position tables and, untied, the token
    embedding (``proj_out`` then computes with its own matrix)."""
    spec: WhisperSpec = arch.spec
    positions = (spec.max_source_positions + spec.max_target_positions) * arch.hidden
    return positions + (0 if spec.tie_embeddings else arch.vocab * arch.hidden)


def check_lengths(arch: Architecture, inputs: Inputs) -> None:
    """``InvalidActivationInputs`` unless the encoder runs over its fixed length and the
    transcript fits the decoder's positions (transformers raises for either)."""
    spec: WhisperSpec = arch.spec
    if inputs.seq != spec.max_source_positions:
        raise InvalidActivationInputs(
            "seq",
            ShapeProblem.NOT_MODELLED,
            trans_late(
                "Activation",
                "Whisper's encoder always runs over {positions} positions (30 s of audio, "
                "{frames} log-mel frames); the sequence length must be {positions}, not "
                "{seq}",
            ).format(
                positions=spec.max_source_positions,
                frames=FRAMES_PER_POSITION * spec.max_source_positions,
                seq=inputs.seq,
            ),
        )
    if inputs.decoder_seq > spec.max_target_positions:
        raise InvalidActivationInputs(
            "target_seq",
            ShapeProblem.NOT_MODELLED,
            trans_late(
                "Activation",
                "Whisper's decoder learns positions up to {limit} tokens: the target "
                "(transcript) length must be at most {limit}, not {target}",
            ).format(limit=spec.max_target_positions, target=inputs.decoder_seq),
        )


def _variant(inputs: Inputs) -> seq2seq.Variant:
    """Whisper's pre-LN layer: every dropout counts with dropout on (the published files
    set them to 0), SDPA's output copied for the output projection, no padding mask."""
    on = inputs.dropout
    return seq2seq.Variant(
        hidden_dropout=on,
        attention_dropout=on,
        activation_dropout=on,
        # SDPA on CPU with dropout: every attention takes the fp32 math path
        cpu_math=inputs.attention is Attention.SDPA and on and inputs.device is Device.CPU,
        pre_norm=True,
        kernel_output_copy=True,
        padding_mask=False,
    )


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    check_lengths(arch, inputs)
    spec: WhisperSpec = arch.spec
    p, h = inputs.dtype.bytes, arch.hidden
    s, t = inputs.seq, inputs.decoder_seq
    variant = _variant(inputs)

    encoder = seq2seq.merge(
        seq2seq.self_attention(inputs, variant, s, h, arch.heads, decoder=False),
        seq2seq.feed_forward(inputs, variant, s, h, arch.intermediate, spec.activation),
    )
    decoder = seq2seq.merge(
        seq2seq.self_attention(inputs, variant, t, h, spec.decoder_heads, decoder=True),
        seq2seq.cross_attention(inputs, variant, h, spec.decoder_heads),
        seq2seq.feed_forward(inputs, variant, t, h, spec.decoder_intermediate, spec.activation),
    )
    if inputs.dtype is Precision.FP16:
        # WhisperEncoderLayer clamps its output in fp16: clamp keeps its input
        encoder[Part.RESIDUAL] = p * s * h

    # the stem: conv1's input (the log-mel features), the first GELU's input, conv2's
    # input, the second GELU's input; then the decoder's int64 token ids (the labels
    # shifted right) and position ids (indexing the learned table)
    frames = FRAMES_PER_POSITION * s
    embeddings = p * spec.mel_bins * frames + 2 * p * h * frames + p * h * s + 16 * t
    if inputs.dropout:
        embeddings += dropout_mask(inputs, s * h) + dropout_mask(inputs, t * h)
    outside: dict[Part, int] = {Part.EMBEDDINGS: embeddings}
    if inputs.recompute is Recompute.FULL and eager(inputs):
        # the decoder's additive causal mask, passed positionally: the checkpoints keep it
        outside[Part.SHARED_MASK] = p * t * t
    # kept by the k/v projections of every cross-attention (and by the checkpoints)
    outside[Part.ENCODER_OUTPUT] = p * s * h
    outside[Part.FINAL_NORM] = layer_norm(inputs, s, h) + layer_norm(inputs, t, h)
    return seq2seq.layout(
        inputs,
        h=h,
        v=arch.vocab,
        encoder=(arch.layers, encoder),
        decoder=(spec.decoder_layers, decoder),
        outside=outside,
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: WhisperSpec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "Whisper: the encoder always runs over 30 s of audio (the sequence length is "
            "its fixed number of positions); the target length is the transcript's "
            "tokens, at most max_target_positions.",
        ),
        trans_late(
            "Activation",
            "The encoder's embeddings are its convolutional stem: the log-mel features, "
            "the two GELU inputs and the second convolution's input are kept.",
        ),
        trans_late(
            "Activation",
            "Every cross-attention keeps K and V of the encoder output; LayerNorm keeps "
            "its input plus the mean and rstd of every token.",
        ),
        trans_late(
            "Activation",
            "The loss keeps the log-softmax of the logits in the model's data type (no fp32 copy).",
        ),
    ]
    if inputs.padded:
        notes.append(
            trans_late(
                "Activation",
                "Whisper masks nothing: short audio is padded with silence and the "
                "transcripts' padding is -100 in the labels, so a padded batch keeps "
                "the same tensors.",
            )
        )
    if inputs.dropout:
        notes.append(
            trans_late(
                "Activation",
                "With dropout, every dropout of the model is taken as active, attention "
                "and activation dropout included.",
            )
        )
    if inputs.dtype is Precision.FP16:
        notes.append(
            trans_late(
                "Activation",
                "In fp16 every encoder layer clamps its output, keeping one more copy of "
                "the hidden states.",
            )
        )
    if spec.layerdrop > 0:
        notes.append(
            trans_late(
                "Activation",
                "LayerDrop skips layers at random in training; the estimate runs every "
                "layer (an upper bound).",
            )
        )
    if not spec.tie_embeddings:
        notes.append(
            trans_late(
                "Activation",
                "tie_word_embeddings is false: proj_out has its own matrix.",
            )
        )
    if not spec.lm_head_file and arch.task is Task.LM:
        # (a bare model or a task head: the heads module says so itself)
        notes.append(
            trans_late(
                "Activation",
                "The file names another head; estimated as sequence-to-sequence LM "
                "training (WhisperForConditionalGeneration).",
            )
        )
    return tuple(notes)


def frozen_parameters(arch: Architecture) -> int:
    """Parameters no fine-tuning trains: the encoder's sinusoidal position table
    (``embed_positions.requires_grad_(False)``), counted by ``num_parameters()`` but
    without gradients or optimizer states."""
    spec: WhisperSpec = arch.spec
    return spec.max_source_positions * arch.hidden
