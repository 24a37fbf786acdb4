# OK: the same loss is back-propagated twice with the graph retained; the optimizer stepped in between trains a separate probe network that the loss never ran through, so the kept graph's saved weights are untouched.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
probe = nn.Linear(3, 1)
net_opt = torch.optim.SGD(net.parameters(), lr=0.1)
probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)

for _ in range(2):
    x, y = torch.randn(6, 3), torch.randn(6, 1)
    probe_loss = (probe(x) - y).pow(2).mean()
    probe_opt.zero_grad()
    probe_loss.backward()

    loss = (net(x) - y).pow(2).mean()
    net_opt.zero_grad()
    loss.backward(retain_graph=True)
    probe_opt.step()
    loss.backward()
    net_opt.step()
    print(loss.item())
