# AF106: retain_graph=True hides in a dict of backward options passed as **kwargs.
import torch
from torch import nn


def fit(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    backward_options = {"retain_graph": True}
    for _ in range(epochs):
        for x, y in loader:
            loss = nn.functional.binary_cross_entropy_with_logits(model(x), y)
            optimizer.zero_grad()
            loss.backward(**backward_options)
            optimizer.step()


torch.manual_seed(5)
loader = [(torch.randn(10, 3), torch.randint(0, 2, (10, 1)).float()) for _ in range(3)]
fit(nn.Linear(3, 1), loader, epochs=2)
