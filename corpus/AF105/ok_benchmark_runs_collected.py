# ok: each benchmark run trains through a loop function that keeps only Python numbers, and hands
# back a dict of settings, timings and those numbers; the list of runs holds no graph.
import time

import torch
import torch.nn as nn


def train_loop(model, optimizer, steps):
    history = {"losses": [], "seconds": []}
    for _ in range(steps):
        began = time.perf_counter()
        inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        history["losses"].append(loss.item())
        history["seconds"].append(time.perf_counter() - began)
    return history


def run_setting(width, steps):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    history = train_loop(model, optimizer, steps)
    return {"width": width, "losses": history["losses"], "elapsed": sum(history["seconds"])}


def main():
    runs = []
    for width in (4, 16):
        run = run_setting(width, steps=3)
        runs.append(run)
    for run in runs:
        print(run["width"], f"{run['losses'][-1]:.4f}", f"{run['elapsed']:.4f}s")


main()
