# AF102: hidden state re-initialised per epoch but carried across the batches of an epoch.
import torch
import torch.nn as nn

torch.manual_seed(0)
inputs = torch.randn(4, 3, 5, 2)   # 4 consecutive batches of (seq=3, batch=5, features=2)
labels = torch.randn(4, 5, 1)

rnn = nn.RNN(2, 9, nonlinearity="relu")
proj = nn.Linear(9, 1)
opt = torch.optim.Adagrad(list(rnn.parameters()) + list(proj.parameters()), lr=0.05)

for epoch in range(2):
    h = torch.zeros(1, 5, 9)
    for i, (x, y) in enumerate(zip(inputs, labels)):
        h = h.detach()
        seq_out, h = rnn(x, h)
        loss = nn.functional.smooth_l1_loss(proj(seq_out[-1]), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i % 2 == 0:
            print(epoch, i, loss.item())
