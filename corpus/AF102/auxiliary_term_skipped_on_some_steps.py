# AF102: the auxiliary term is recomputed on two steps out of three only; on the third the chain's else just logs, and the loss adds the `aux_loss` left from the step before, whose graph that step's backward() freed.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 6)
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        features = torch.relu(self.body(x))
        return features, self.head(features)


def train(model, batches, optimizer):
    for step, (x, y) in enumerate(batches):
        features, out = model(x)
        if step % 3 == 0:
            aux_loss = features.pow(2).mean()
        elif step % 3 == 1:
            aux_loss = features.abs().mean()
        else:
            print(f"step {step}: no new auxiliary term")
        loss = nn.functional.cross_entropy(out, y) + 0.1 * aux_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


model = Net()
batches = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(4)]
train(model, batches, torch.optim.SGD(model.parameters(), lr=0.1))
