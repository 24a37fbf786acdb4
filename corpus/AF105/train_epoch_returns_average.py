# AF105: `train_one_epoch` returns the epoch's mean loss built from graph-carrying losses.
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_one_epoch(model, batches, optimizer):
    model.train()
    epoch_loss = 0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(inputs), targets)
        loss.backward()
        optimizer.step()
        epoch_loss += loss
    return epoch_loss / len(batches)


def main():
    torch.manual_seed(0)
    data = [(torch.randn(8, 4), torch.randint(0, 2, (8, 1)).float()) for _ in range(4)]
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(3):
        print(epoch, float(train_one_epoch(model, data, optimizer)))


if __name__ == "__main__":
    main()
