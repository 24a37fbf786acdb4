# OK: `feats` is computed inside the loop only when the replay inputs come as a list, one batch per
# task; given one batch for every task it is encoded once before the loop, under no_grad, as a fixed
# input to each task's head. The test `isinstance(x_replay, list)` reads nothing the loop rebinds,
# so every iteration takes the same branch: either each iteration recomputes `feats` before reading
# it, or none does and every iteration reads the graph-free value made before the loop. No iteration
# reads a graph an earlier iteration's backward freed.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner(nn.Module):
    def __init__(self, tasks=3):
        super().__init__()
        self.encoder = nn.Linear(5, 8)
        self.heads = nn.ModuleList(nn.Linear(8, 3) for _ in range(tasks))
        self.opt = torch.optim.SGD(self.parameters(), lr=0.05)

    def replay_step(self, x_replay, y_replay):
        if not isinstance(x_replay, list):
            with torch.no_grad():
                feats = self.encoder(x_replay)
        for task in range(len(y_replay)):
            if isinstance(x_replay, list):
                feats = self.encoder(x_replay[task])
            loss = F.cross_entropy(self.heads[task](feats), y_replay[task])
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return loss.item()


torch.manual_seed(0)
learner = Learner()
targets = [torch.randint(0, 3, (4,)) for _ in range(3)]
learner.replay_step([torch.randn(4, 5) for _ in range(3)], targets)
learner.replay_step(torch.randn(4, 5), targets)
print("ok")
