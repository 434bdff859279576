"""One DeepSpeed step with the exported ds_config.json, then the bytes per parameter the
ZeRO optimizer keeps: its master partition and Adam's states (printed as JSON)."""

import json

import deepspeed
import torch

deepspeed.init_distributed(dist_backend="gloo")
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.Linear(256, 64))
params = sum(p.numel() for p in model.parameters())
with open("ds_config.json", encoding="utf-8") as file:
    config = json.load(file)
engine, _, _, _ = deepspeed.initialize(
    model=model, optimizer=torch.optim.AdamW(model.parameters(), lr=1e-3), config=config
)
x = torch.randn(engine.train_micro_batch_size_per_gpu(), 64, dtype=torch.bfloat16)
engine.backward(engine(x).float().pow(2).mean())
engine.step()
inner = engine.optimizer.optimizer
tensors = [t for s in inner.state.values() for t in s.values() if torch.is_tensor(t) and t.dim()]
states = sum(t.numel() * t.element_size() for t in tensors)
master = sum(p.numel() * p.element_size() for g in inner.param_groups for p in g["params"])
print(json.dumps({"master": master / params, "states": states / params}))
torch.distributed.destroy_process_group()
