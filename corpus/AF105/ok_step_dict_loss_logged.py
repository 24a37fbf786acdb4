# A training_step returns a dict whose "loss" the loop back-propagates; only numbers are kept for the log.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(6, 3)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)
        loss = nn.functional.cross_entropy(logits, y)
        return {"loss": loss, "acc": (logits.argmax(1) == y).float().mean()}


model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
history = []
for batch_idx in range(4):
    out = model.training_step((torch.randn(10, 6), torch.randint(0, 3, (10,))), batch_idx)
    opt.zero_grad()
    out["loss"].backward()
    opt.step()
    history.append({name: value.item() for name, value in out.items()})
print(history[-1])
