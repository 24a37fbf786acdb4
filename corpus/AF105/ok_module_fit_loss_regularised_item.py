# AF105 negative: the loss is rebuilt with a regularisation term before backward(), and only its value (`.item()`) goes into the epoch total.
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, 1)
        self.prior = 0.01

    def forward(self, features):
        return torch.sigmoid(self.linear(features)).squeeze(-1)

    def penalty(self):
        return self.prior * self.linear.weight.pow(2).sum()

    def fit(self, batches, epochs):
        optimizer = torch.optim.SGD(self.parameters(), lr=0.1)
        for epoch in range(epochs):
            epoch_total = 0.0
            for inputs in batches:
                optimizer.zero_grad()
                likelihood = self(*inputs)
                loss = -torch.log(likelihood + 1e-6).mean()
                loss = loss + self.penalty()
                loss.backward()
                optimizer.step()
                epoch_total += loss.item()
            print(f"epoch {epoch} mean loss {epoch_total / len(batches):.4f}")


torch.manual_seed(0)
model = Scorer(5)
model.fit([(torch.randn(8, 5),) for _ in range(3)], epochs=2)
