# AF104: gradients cleared by hand (`p.grad = None` over model.parameters()) between backward() and step().
import torch
import torch.nn as nn

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 3))
optim = torch.optim.RMSprop(mlp.parameters(), lr=1e-3)
nll = nn.NLLLoss()
epoch = 0
while epoch < 3:
    batch = torch.randn(10, 4)
    labels = torch.randint(0, 3, (10,))
    log_probs = torch.log_softmax(mlp(batch), dim=-1)
    loss = nll(log_probs, labels)
    for p in mlp.parameters():
        p.grad = None
    loss.backward()
    optim.step()
    epoch += 1
    print(epoch, loss.item())
