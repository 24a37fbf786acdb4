# AF101: retain_graph=True keeps a shared feature graph alive for a second backward; sum once instead.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(10, 24), nn.Tanh())
classifier = nn.Linear(24, 3)
regressor = nn.Linear(24, 1)
params = list(encoder.parameters()) + list(classifier.parameters()) + list(regressor.parameters())
opt = torch.optim.Adam(params, lr=1e-3)
ce = nn.CrossEntropyLoss()
mse = nn.MSELoss()

for it in range(4):
    x = torch.randn(12, 10)
    y_cls = torch.randint(0, 3, (12,))
    y_reg = torch.randn(12, 1)

    opt.zero_grad()
    features = encoder(x)
    loss_cls = ce(classifier(features), y_cls)
    loss_reg = mse(regressor(features), y_reg)
    (loss_cls + loss_reg).backward()
    opt.step()
    print(it, loss_cls.item(), loss_reg.item())
