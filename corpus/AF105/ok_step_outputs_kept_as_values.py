# AF105 negative: the loop keeps only the value (`.item()`) of each training_step output's back-propagated 'loss' entry for the epoch-end hook, so no graph outlives its step.
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 1)

    def training_step(self, batch, index):
        features, target = batch
        prediction = self.net(features)
        return {"loss": (prediction - target).pow(2).mean(), "index": index}

    def training_epoch_end(self, outputs):
        return sum(outputs) / len(outputs)


def train_epoch(module, loader, optimizer):
    module.train()
    outputs = []
    for index, batch in enumerate(loader):
        optimizer.zero_grad()
        output = module.training_step(batch, index)
        output["loss"].backward()
        optimizer.step()
        outputs.append(output["loss"].item())
    return module.training_epoch_end(outputs)


torch.manual_seed(0)
model = Regressor()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(3)]
print(f"epoch loss {train_epoch(model, data, opt):.4f}")
