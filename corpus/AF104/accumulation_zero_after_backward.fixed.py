# AF104: accumulation loop zeroes gradients right after each backward(), so the guarded step() sees nothing.
import torch
import torch.nn as nn
from dataclasses import dataclass


@dataclass
class TrainConfig:
    micro_batches: int = 6
    accum_steps: int = 3
    lr: float = 0.05


def train(cfg: TrainConfig):
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    optimizer.zero_grad()
    for micro_step in range(cfg.micro_batches):
        x, y = torch.randn(4, 8), torch.randn(4, 1)
        loss = nn.functional.mse_loss(model(x), y) / cfg.accum_steps
        loss.backward()
        if (micro_step + 1) % cfg.accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
            print("step at", micro_step, loss.item())


train(TrainConfig())
