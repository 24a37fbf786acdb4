# OK: state carried during generation under torch.no_grad(); training detaches with detach_() in place.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.RNN(3, 3, batch_first=True)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.05)

h = torch.zeros(1, 2, 3)
for step in range(3):
    out, h = rnn(torch.randn(2, 4, 3), h)
    h.detach_()
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

rnn.eval()
with torch.no_grad():
    token = torch.zeros(2, 1, 3)
    memory = torch.zeros(1, 2, 3)
    for _ in range(5):
        token, memory = rnn(token, memory)
print(token.shape)
