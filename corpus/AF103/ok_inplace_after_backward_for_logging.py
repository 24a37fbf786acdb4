# OK: after loss.backward() has consumed the graph, the softmax probabilities are rescaled in place for logging.
import torch
import torch.nn as nn


def train(model, loader, opt):
    history = []
    for inputs, labels in loader:
        logits = model(inputs)
        probs = logits.softmax(dim=1)
        loss = nn.functional.nll_loss(probs.log(), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        probs.mul_(100.0)
        history.append(probs.max(dim=1).values.mean().item())
    return history


torch.manual_seed(0)
model = nn.Linear(5, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(6, 5), torch.randint(0, 3, (6,))) for _ in range(3)]
print(train(model, loader, opt))
