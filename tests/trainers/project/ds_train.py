"""A DeepSpeed engine loop reading the exported ds_config.json (the deepspeed format is
the JSON alone; this is the smallest script a user writes around it)."""

import deepspeed
import torch
from my_training import build_model, compute_loss, train_dataset

deepspeed.init_distributed(dist_backend="gloo")
model = build_model()
engine, _, loader, _ = deepspeed.initialize(
    model=model,
    optimizer=torch.optim.AdamW(model.parameters(), lr=1e-3),
    config="ds_config.json",
    training_data=train_dataset,
)
for batch in loader:
    loss = compute_loss(engine, batch)
    engine.backward(loss)
    engine.step()
# a clean exit: no process group left for the interpreter's teardown
torch.distributed.destroy_process_group()
