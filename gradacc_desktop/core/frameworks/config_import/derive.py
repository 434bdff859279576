"""Resolving what was read: the batch values, the GPU count and the parallel sizes,
derived and checked as each framework's own code does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...batch.planning import DeepSpeedCheck, DeepSpeedReason, deepspeed_check
from ...text import trans_late
from ..verdicts import MegatronCheck, megatron_check
from .derive_rules import neox_text, torchtune_replicas
from .model import (
    AXOLOTL_BATCH_KEYS,
    BATCH_FIELDS,
    CHECK_NAMES,
    MISSING_NAMES,
    ConfigKind,
    Derived,
)

if TYPE_CHECKING:
    from .imported import ImportedConfig


def deepspeed_text(check: DeepSpeedCheck) -> str:
    """DeepSpeed's verdict on the batch values, as one English sentence."""
    # train_batch_size as the file takes it (plain digits in every locale); the counts
    # are said the reader's way
    t, b, a, g = str(check.train_batch_size), check.micro_batch, check.grad_acc, check.world_size
    r = DeepSpeedReason
    if check.reason is r.OK:
        return trans_late(
            "ConfigImport", "DeepSpeed accepts train_batch_size {t} = {b} x {a} x {g} GPU(s)."
        ).format(t=t, b=b, a=a, g=g)
    if check.reason is r.MISSING_BATCH_SIZE:
        return trans_late(
            "ConfigImport",
            "DeepSpeed refuses it: neither train_batch_size nor train_micro_batch_size_per_gpu.",
        ).format()
    if check.reason is r.NON_POSITIVE:
        return trans_late(
            "ConfigImport", "DeepSpeed refuses a batch value that is zero or negative."
        ).format()
    if check.reason is r.PRODUCT_MISMATCH:
        return trans_late(
            "ConfigImport",
            "DeepSpeed refuses train_batch_size {t}: {b} (micro-batch) x {a} (accumulation "
            "steps) x {g} GPU(s) = {product}.",
        ).format(t=t, b=b, a=a, g=g, product=check.product)
    if check.reason is r.NOT_DIVISIBLE:
        names = [MISSING_NAMES[CHECK_NAMES[n]] for n in check.derived]
        both = (
            names[0]
            if len(names) == 1
            else trans_late("ConfigImport", "{first} and {second}").format(
                first=names[0], second=names[1]
            )
        )
        return trans_late(
            "ConfigImport",
            "DeepSpeed refuses train_batch_size {t} on {g} GPU(s): it derives the {names} "
            "by whole division, and {b} x {a} x {g} = {product}, not {t}.",
        ).format(t=t, g=g, names=both, b=b, a=a, product=check.product)
    if check.reason is r.DERIVED_ZERO_STEPS:
        return trans_late(
            "ConfigImport",
            "DeepSpeed refuses train_batch_size {t} on {g} GPU(s): it is smaller than "
            "micro-batch x GPUs ({b} x {g}), so the derived accumulation steps are 0.",
        ).format(t=t, g=g, b=b)
    return trans_late(
        "ConfigImport",
        "DeepSpeed refuses train_batch_size {t} on {g} GPU(s): it is smaller than "
        "accumulation steps x GPUs ({a} x {g}), so the derived micro-batch is 0.",
    ).format(t=t, g=g, a=a)


def resolve_derived(config: ImportedConfig, gpus: int | None) -> Derived:
    b, a, t = config.micro_batch, config.accumulation_steps, config.train_batch_size
    unresolved = set(config.unresolved)
    derived: list[str] = []
    notes: list[str] = []
    missing: list[str] = []
    problem: str | None = None
    ds_check: DeepSpeedCheck | None = None
    mg_check: MegatronCheck | None = None
    effective: int | None = None

    # A train_batch_size left "auto" next to an explicit micro-batch and steps is what
    # DeepSpeed would derive without it: the trainer computes micro x steps x GPUs.
    blocked = [f for f in BATCH_FIELDS if f in unresolved]
    if (
        blocked == ["train_batch_size"]
        and "train_batch_size" in config.auto_fields
        and b is not None
        and a is not None
    ):
        blocked = []

    # values the framework's own defaults fill (TrainingArguments' micro-batch, ...)
    for field, note in config.defaults:
        derived.append(field)
        notes.append(note)
    # how the reader read values (FSDP's sharding as a ZeRO stage, ...)
    notes += config.notes

    warnings: list[str] = list(config.warnings)
    if config.kind is ConfigKind.AXOLOTL:
        problem = _axolotl_batch_problem(config)
        if config.batch_per_gpu is not None and problem is None:
            # axolotl, src/axolotl/utils/schemas/config.py, AxolotlInputConfig
            # field_validator("batch_size") hint_batch_size_set(): any batch_size logs
            # "batch_size is not recommended. Please use gradient_accumulation_steps
            # instead. To calculate the equivalent gradient_accumulation_steps, divide
            # batch_size / micro_batch_size / number of gpus." (the old, global meaning)
            warnings.append(
                trans_late(
                    "ConfigImport",
                    "axolotl warns that batch_size is not recommended: it reads batch_size "
                    "{batch} as micro_batch_size x gradient_accumulation_steps on one GPU; a "
                    "batch_size meant as the global batch gives the accumulation steps as "
                    "batch_size / micro_batch_size / GPUs instead. Set "
                    "gradient_accumulation_steps.",
                ).format(batch=config.batch_per_gpu)
            )

    # axolotl's derivation of the accumulation steps
    if (
        config.kind is ConfigKind.AXOLOTL
        and problem is None
        and a is None
        and b is not None
        and "accumulation_steps" not in blocked
        and config.batch_per_gpu is not None
    ):
        # axolotl, src/axolotl/utils/config/__init__.py normalize_config():
        # gradient_accumulation_steps = gradient_accumulation_steps or
        # (batch_size // micro_batch_size)
        a = config.batch_per_gpu // b
        derived.append("accumulation_steps")
        notes.append(
            trans_late(
                "ConfigImport",
                "accumulation steps = batch_size // micro_batch_size = "
                "{batch} // {b} = {a} (axolotl's rule)",
            ).format(batch=config.batch_per_gpu, b=b, a=a)
        )
        if a == 0:
            problem = trans_late(
                "ConfigImport",
                "batch_size {batch} is smaller than micro_batch_size {b}: "
                "axolotl derives 0 accumulation steps.",
            ).format(batch=config.batch_per_gpu, b=b)
            a = None

    # the GPU count: the caller's, the file's, or what DeepSpeed's triple implies
    g: int | None = None
    gpus_from: str | None = None
    if gpus is not None:
        g, gpus_from = gpus, "argument"
    elif config.gpus is not None:
        g, gpus_from = config.gpus, "file"
        if config.started_gpus is not None and config.nodes:
            # accelerate launch's split of num_processes over num_machines (see
            # accelerate._per_machine): it runs, with the processes it starts
            g = config.started_gpus
            warnings.append(
                trans_late(
                    "ConfigImport",
                    "accelerate launch starts num_processes // num_machines = {n} // {m} "
                    "= {per} processes on each of the {m} machines: {g} in all, not {n}.",
                ).format(n=config.gpus, m=config.nodes, per=g // config.nodes, g=g)
            )
    elif t is not None and b is not None and a is not None and not blocked:
        if t % (b * a) == 0:
            # the triple gives the data-parallel replicas; each holds tensor x
            # pipeline x context GPUs
            g, gpus_from = t // (b * a) * _model_parallel(config), "derived"
            derived.append("gpus")
            notes.append(
                trans_late(
                    "ConfigImport",
                    "GPUs = train_batch_size / (micro-batch x accumulation steps) = "
                    "{t} / ({b} x {a}) = {g}",
                ).format(t=t, b=b, a=a, g=t // (b * a))
                if g == t // (b * a)
                else trans_late(
                    "ConfigImport",
                    "GPUs = train_batch_size / (micro-batch x accumulation steps) x model "
                    "parallel = {t} / ({b} x {a}) x {mp} = {g}",
                ).format(t=t, b=b, a=a, mp=_model_parallel(config), g=g)
            )
        elif problem is None:
            problem = trans_late(
                "ConfigImport",
                "train_batch_size {t} is not a multiple of micro-batch x accumulation "
                "steps ({b} x {a} = {product}): DeepSpeed refuses it on any number of GPUs.",
            ).format(t=t, b=b, a=a, product=b * a)

    # the data-parallel replicas the framework makes of the GPUs
    dp: int | None = None
    sizes: tuple[tuple[str, int], ...] = ()
    if g is not None:
        dp, sizes, par_problem = _replicas(config, g)
        if par_problem is not None and problem is None:
            problem = par_problem
    real_g = g
    if g is not None:
        g = dp  # the batch counts replicas, not GPUs
        if dp is None and problem is None:
            missing.append(MISSING_NAMES["data_parallel"])

    deepspeed_reads = config.kind.deepspeed_batch
    if blocked:
        # no derivation through a value the trainer fills or that could not be read
        if b is None:
            missing.append(MISSING_NAMES["micro_batch"])
        if a is None:
            missing.append(MISSING_NAMES["accumulation_steps"])
        if "train_batch_size" in blocked and "train_batch_size" not in config.auto_fields:
            missing.append(MISSING_NAMES["train_batch_size"])
        if real_g is None and problem is None:
            missing.append(MISSING_NAMES["gpus"])
    elif deepspeed_reads:
        if t is None and b is None:
            missing.append(MISSING_NAMES["micro_batch"])
        if g is None:
            if problem is None and real_g is None:
                missing.append(MISSING_NAMES["gpus"])
        elif t is not None or b is not None:
            ds_check = deepspeed_check(t, b, a, g)
            if ds_check.ok:
                assert ds_check.micro_batch is not None and ds_check.grad_acc is not None
                for name in ds_check.derived:
                    field = CHECK_NAMES[name]
                    derived.append(field)
                    value = {
                        "micro_batch": ds_check.micro_batch,
                        "accumulation_steps": ds_check.grad_acc,
                        "train_batch_size": ds_check.train_batch_size,
                    }[field]
                    notes.append(
                        (
                            # GPT-NeoX, arguments.py calculate_batch_parameters(): the
                            # same arithmetic as DeepSpeed's
                            trans_late("ConfigImport", "{name} = {value} (GPT-NeoX's derivation)")
                            if config.kind is ConfigKind.NEOX
                            else trans_late(
                                "ConfigImport", "{name} = {value} (DeepSpeed's derivation)"
                            )
                        ).format(name=MISSING_NAMES[field], value=value)
                    )
                b, a, t = ds_check.micro_batch, ds_check.grad_acc, ds_check.train_batch_size
                effective = t
            elif config.kind is ConfigKind.NEOX:
                problem = neox_text(ds_check, config)
            else:
                problem = deepspeed_text(ds_check)
    else:
        if b is None:
            missing.append(MISSING_NAMES["micro_batch"])
        if a is None and problem is None:
            missing.append(MISSING_NAMES["accumulation_steps"])
        if real_g is None and problem is None:
            missing.append(MISSING_NAMES["gpus"])
        if b is not None and a is not None and g is not None and problem is None:
            ds_check = deepspeed_check(t, b, a, g)
            if ds_check.ok:
                if t is None:
                    derived.append("train_batch_size")
                t = effective = b * a * g
            else:
                problem = trans_late(
                    "ConfigImport",
                    "train_batch_size {t} in the DeepSpeed config is not {b} (micro-batch) "
                    "x {a} (accumulation steps) x {g} GPU(s) = {product}: the trainer "
                    "refuses the mismatch.",
                ).format(t=t, b=b, a=a, g=g, product=b * a * g)
    if b is not None and g is not None and t is not None and min(b, g, t) >= 1 and not blocked:
        mg_check = megatron_check(t, b, g)
    return Derived(
        micro_batch=b,
        accumulation_steps=a,
        train_batch_size=t,
        gpus=real_g,
        gpus_from=gpus_from,
        derived=tuple(derived),
        notes=tuple(notes),
        deepspeed=ds_check,
        megatron=mg_check,
        effective_batch=effective if problem is None else None,
        missing=tuple(dict.fromkeys(missing)),
        problem=problem,
        data_parallel=dp if problem is None or dp is not None else None,
        parallel=sizes,
        warnings=tuple(warnings),
    )


def _axolotl_batch_problem(config: ImportedConfig) -> str | None:
    """Why axolotl refuses the batch keys as set, or None."""
    given = set(config.batch_keys_set)
    # axolotl, src/axolotl/utils/schemas/validation.py TrainingValidationMixin
    # (src/axolotl/utils/schemas/config.py AxolotlInputConfig in older releases),
    # model_validator check_batch_size_fields(): counts the fields with
    # data.get(field) truthy and raises ValueError("At least two of
    # micro_batch_size, gradient_accumulation_steps, batch_size must be set") below 2
    if len(given) < 2:
        return trans_late(
            "ConfigImport",
            "axolotl refuses it: at least two of micro_batch_size, "
            "gradient_accumulation_steps and batch_size must be set, and the file sets "
            "{given}.",
        ).format(
            given=", ".join(k for k in AXOLOTL_BATCH_KEYS if k in given)
            or trans_late("ConfigImport", "none of them").format()
        )
    # the same mixin, model_validator check_gas_bsz(): gradient_accumulation_steps and
    # batch_size both truthy raise ValueError("please set only one of
    # gradient_accumulation_steps or batch_size")
    if "gradient_accumulation_steps" in given and "batch_size" in given:
        return trans_late(
            "ConfigImport",
            "axolotl refuses gradient_accumulation_steps together with batch_size: "
            "set only one of them.",
        ).format()
    return None


def _size(config: ImportedConfig, name: str) -> int | None:
    for n, size, _key in config.parallel:
        if n == name:
            return size
    return None


def _model_parallel(config: ImportedConfig) -> int:
    """GPUs in one data-parallel replica for the kinds whose rule is GPUs / (tp x pp x cp)."""
    if config.kind.deepspeed_batch:
        autotp = _size(config, "autotp")
        product = 1
        for name in ("tensor", "pipeline", "context"):
            size = _size(config, name)
            if name == "tensor" and autotp is not None and autotp > 1:
                size = autotp
            product *= size if size is not None and size >= 1 else 1
        return product
    return 1


_NOT_DIVISIBLE = trans_late(
    "ConfigImport",
    "{what} = {product} does not divide the {g} GPU(s): {framework} refuses it.",
)


def _replicas(
    config: ImportedConfig, g: int
) -> tuple[int | None, tuple[tuple[str, int], ...], str | None]:
    """Data-parallel replicas on ``g`` GPUs, the sizes used, and why the framework refuses
    them (or None), each rule as the framework's own code has it."""
    if config.kind.deepspeed_batch:
        sizes: list[tuple[str, int]] = []
        names: list[str] = []
        # GPT-NeoX, megatron/neox_arguments/arguments.py, NeoXArgs.calculate_derived():
        # pp_size = pipe_parallel_size if >= 1 else 1, mp_size likewise with
        # model_parallel_size, and dp_world_size = (global_num_gpus / pp_size) / mp_size,
        # which must be a whole number (AssertionError otherwise); train_batch_size =
        # micro x GA x dp.
        for name, key in (
            ("pipeline", "pipe_parallel_size"),
            ("tensor", "model_parallel_size"),
        ):
            size = _size(config, name)
            if size is not None:
                sizes.append((name, size if size >= 1 else 1))
                names.append(key)
        # DeepSpeed, deepspeed/utils/groups.py _init_tp_mesh_device(): with
        # tensor_parallel.autotp_size > 0 (deepspeed/__init__.py initialize) the mesh is
        # (world_size // tp_size, tp_size), ("data_parallel", "tensor_parallel"); a world
        # size it does not divide cannot be laid out as that mesh
        # (torch init_device_mesh refuses it). DeepSpeedConfig's batch world_size is then
        # the data-parallel group (mpu.get_data_parallel_world_size(),
        # deepspeed/runtime/config.py DeepSpeedConfig.__init__).
        autotp = _size(config, "autotp")
        if autotp is not None and autotp > 1:
            sizes = [(n, s) for n, s in sizes if n != "tensor"] + [("tensor", autotp)]
            names.append("tensor_parallel.autotp_size")
        product = 1
        for _name, size in sizes:
            product *= size
        if g % product:
            return (
                None,
                tuple(sizes),
                _NOT_DIVISIBLE.format(
                    what=" x ".join(names),
                    product=product,
                    g=g,
                    framework="DeepSpeed" if autotp is not None and autotp > 1 else "GPT-NeoX",
                ),
            )
        return g // product, tuple(s for s in sizes if s[1] > 1), None
    if config.kind is ConfigKind.AXOLOTL:
        return _axolotl_replicas(config, g)
    if config.kind is ConfigKind.TORCHTUNE:
        return torchtune_replicas(config, g)
    return _accelerate_replicas(config, g)


def _axolotl_replicas(
    config: ImportedConfig, g: int
) -> tuple[int | None, tuple[tuple[str, int], ...], str | None]:
    # axolotl 0.21.0, src/axolotl/utils/distributed.py _get_parallel_config_kwargs(),
    # called by build_parallelism_config() with the world size, tensor_parallel_size,
    # context_parallel_size, dp_shard_size, dp_replicate_size, bool(fsdp or
    # fsdp_config) and bool(deepspeed), replayed step by step; its result goes to
    # accelerate's ParallelismConfig (see _accelerate_total below).
    if not any(n in ("tensor", "context", "shard", "replicate") for n, _s, _k in config.parallel):
        return g, (), None  # no parallel sizes: plain data parallelism over the GPUs
    tp = _size(config, "tensor")
    cp = _size(config, "context")
    shard = _size(config, "shard")
    replicate = _size(config, "replicate")
    kwargs: dict[str, int] = {}
    remaining = g
    if tp and tp > 1:
        kwargs["tensor"] = tp
        remaining //= tp
    if cp and cp > 1:
        kwargs["context"] = cp
        remaining //= cp
    if config.uses_deepspeed and cp and cp > 1 and remaining > 1:
        # under DeepSpeed the context-parallel size is accelerate's DeepSpeed Ulysses
        # "sp" axis (ALST) and the rest replicate: dp_replicate_size = world / (tp x
        # cp), and a dp_replicate_size given must equal it (ValueError)
        if replicate and replicate > 1 and replicate != remaining:
            return (
                None,
                tuple(kwargs.items()),
                trans_late(
                    "ConfigImport",
                    "dp_replicate_size {replicate} must equal GPUs / context_parallel_size "
                    "= {remaining} under DeepSpeed: axolotl refuses it.",
                ).format(replicate=replicate, remaining=remaining),
            )
        kwargs["replicate"] = remaining
        return remaining, tuple((n, s) for n, s in kwargs.items() if s > 1), None
    if shard is None and replicate in (None, 1) and remaining > 1:
        kwargs["shard"] = remaining
        remaining = 1
    if replicate and replicate > 1:
        kwargs["replicate"] = replicate
        remaining //= replicate
    if remaining > 1 and shard and shard > 1:
        if not config.uses_fsdp:
            return (
                None,
                tuple(kwargs.items()),
                trans_late(
                    "ConfigImport",
                    "dp_shard_size {shard} without fsdp or fsdp_config: axolotl refuses it.",
                ).format(shard=shard),
            )
        kwargs["shard"] = shard
        remaining //= shard
        if remaining > 1 and "replicate" not in kwargs:
            kwargs["replicate"] = remaining
            remaining = 1
    if remaining > 1 and "shard" not in kwargs and config.uses_fsdp:
        kwargs["shard"] = remaining
        remaining = 1
    if remaining > 1:
        return (
            None,
            tuple(kwargs.items()),
            trans_late(
                "ConfigImport",
                "the parallel sizes do not use all {g} GPU(s) ({left} left over): axolotl "
                "refuses them.",
            ).format(g=g, left=remaining),
        )
    return _accelerate_total(kwargs, g, "axolotl")


def _accelerate_total(
    kwargs: dict[str, int], g: int, framework: str
) -> tuple[int | None, tuple[tuple[str, int], ...], str | None]:
    # accelerate, accelerate/parallelism_config.py ParallelismConfig: sizes default to 1
    # (__post_init__ raises ValueError below 1); _validate_accelerator(): total_size ==
    # 1 becomes plain data parallelism (dp_replicate_size = num_processes), otherwise
    # total_size = dp_replicate x dp_shard x tp x cp (x sp) must equal num_processes
    # (ValueError); data_parallel_size = dp_replicate_size x dp_shard_size.
    sizes = {name: size for name, size in kwargs.items() if size >= 1}
    total = 1
    for size in sizes.values():
        total *= size
    shown = tuple((n, s) for n, s in sizes.items() if s > 1)
    if total == 1:
        return g, shown, None
    if total != g:
        return (
            None,
            shown,
            trans_late(
                "ConfigImport",
                "the parallel sizes multiply to {total}, not the {g} GPU(s): {framework} "
                "refuses them.",
            ).format(total=total, g=g, framework=framework),
        )
    return sizes.get("replicate", 1) * sizes.get("shard", 1), shown, None


def _accelerate_replicas(
    config: ImportedConfig, g: int
) -> tuple[int | None, tuple[tuple[str, int], ...], str | None]:
    kwargs = {name: size for name, size, _key in config.parallel}
    if "sequence" in kwargs:
        # DeepSpeed sequence parallelism skips the total check: not modelled
        return None, (), None
    for name, size in kwargs.items():
        if size < 1:
            return (
                None,
                (),
                trans_late(
                    "ConfigImport",
                    "{key} must be at least 1: accelerate refuses {size}.",
                ).format(key=_parallel_key(config, name), size=size),
            )
    return _accelerate_total(kwargs, g, "accelerate")


def _parallel_key(config: ImportedConfig, name: str) -> str:
    for n, _found, key in config.parallel:
        if n == name:
            return key
    return name


# --------------------------------------------------------------------------- showing
