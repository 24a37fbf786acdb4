# AF102: the model keeps its GRU state on self between forward calls; the loop in train() never resets it.
import torch
import torch.nn as nn

torch.manual_seed(0)


class StreamForecaster(nn.Module):
    def __init__(self, features=3, width=12):
        super().__init__()
        self.gru = nn.GRU(features, width, batch_first=True)
        self.head = nn.Linear(width, 1)
        self.hidden = None

    def forward(self, window):
        if self.hidden is not None:
            self.hidden = self.hidden.detach()
        out, self.hidden = self.gru(window, self.hidden)
        return self.head(out[:, -1])


def train(model, windows, targets):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for window, target in zip(windows, targets):
        pred = model(window)
        loss = nn.functional.mse_loss(pred, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


print(train(StreamForecaster(), torch.randn(4, 2, 6, 3), torch.randn(4, 2, 1)))
