# OK: a flag set once from the arguments picks where the group losses are back-propagated: each one
# inside the loop (`if per_group:`) or their mean after it (`if not per_group:`). Both tests read the
# same binding of `per_group` (a bool nothing rebinds in between), so no call runs both backward
# calls, and every graph is back-propagated once.
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
        if not per_group:
            mean_loss.backward()
        self.optimizer.step()
        return mean_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    groups = [(torch.randn(5, 6), torch.randint(0, 4, (5,))) for _ in range(3)]
    for masks in (None, {"g": 1}):
        learner = GroupLearner(masks)
        for weight in (None, 0.5):
            print(masks, weight, learner.update(groups, weight))
