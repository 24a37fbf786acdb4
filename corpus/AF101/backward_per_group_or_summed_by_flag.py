# AF101: the flag that chose to back-propagate each group loss inside the loop is decided again after
# the loop (from the number of groups): with masks, a weight and a single group, the loop's backward
# runs and then the mean of the same losses is back-propagated through the freed graph (`Trying to
# backward through the graph a second time`).
import torch
import torch.nn as nn
import torch.nn.functional as F


class GroupLearner(nn.Module):
    def __init__(self, masks=None):
        super().__init__()
        self.body = nn.Linear(6, 4)
        self.masks = masks
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.05)

    def forward(self, x):
        return self.body(x)

    def update(self, groups, weight=None):
        self.optimizer.zero_grad()
        per_group = self.masks is not None and weight is not None
        losses = []
        for inputs, labels in groups:
            loss = F.cross_entropy(self(inputs), labels)
            losses.append(loss)
            if per_group:
                (weight * loss).backward()
        mean_loss = sum(losses) / len(losses)
        per_group = len(groups) > 1
        if not per_group:
            mean_loss.backward()
        self.optimizer.step()
        return mean_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    groups = [(torch.randn(5, 6), torch.randint(0, 4, (5,)))]
    learner = GroupLearner({"g": 1})
    print(learner.update(groups, 0.5))
