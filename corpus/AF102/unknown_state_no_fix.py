# AF102: a model handed in by the caller returns a state of unknown type: reported, not fixed.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Integrator(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = nn.Linear(3, 3)

    def initial(self, batch):
        return torch.zeros(batch, 3)

    def forward(self, x, state):
        state = torch.tanh(self.step(x) + state)
        return state.sum(dim=1), state


def fit(model, inputs, targets):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = model.initial(inputs.size(1))
    for x, y in zip(inputs, targets):
        pred, state = model(x, state)
        loss = (pred - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


print(fit(Integrator(), torch.randn(5, 4, 3), torch.randn(5, 4)))
