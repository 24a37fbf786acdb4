# AF102: seed article scenario 5 — RNN hidden state carried between steps, and `total_loss += loss_t`.
# autofix-test: select=AF102,AF105
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.RNN(input_size=4, hidden_size=8)
fc = nn.Linear(8, 1)
optimizer = torch.optim.Adam(list(rnn.parameters()) + list(fc.parameters()), lr=1e-3)

xs = torch.randn(5, 1, 2, 4)
ys = torch.randn(5, 2, 1)
hidden = torch.zeros(1, 2, 8)
total_loss = 0
for t in range(5):
    out, hidden = rnn(xs[t], hidden)
    loss_t = nn.functional.mse_loss(fc(out[-1]), ys[t])
    total_loss += loss_t
    optimizer.zero_grad()
    loss_t.backward()
    optimizer.step()
print("mean loss", total_loss / 5)
