# AF106: the replay batch is sliced from tensors built once before the update loop and moved with `.to(device)`; they hold data, not a graph, so each critic loss's retain_graph=True keeps a graph that no later backward() walks.
import random

import torch
import torch.nn as nn

device = torch.device("cpu")


class Critic:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.buffer = [(random.random(), random.random(), random.random(), random.random()) for _ in range(64)]

    def update(self, steps=3, batch_size=8):
        states = torch.tensor([t[:3] for t in self.buffer]).float().to(device)
        targets = torch.tensor([t[3] for t in self.buffer]).float().to(device)
        for _ in range(steps):
            index = torch.randint(0, len(self.buffer), (batch_size,))
            batch_states, batch_targets = states[index], targets[index].reshape(-1, 1)
            loss = (self.net(batch_states) - batch_targets).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    random.seed(0)
    Critic().update()
    print("done")
