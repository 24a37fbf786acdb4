# OK: GAN where netG.zero_grad() runs between the D backward and D step: it clears G's gradients, not D's.
import torch
import torch.nn as nn

torch.manual_seed(0)
netG = nn.Sequential(nn.Linear(2, 6), nn.Tanh())
netD = nn.Sequential(nn.Linear(6, 1))
optimizerD = torch.optim.SGD(netD.parameters(), lr=0.01)
optimizerG = torch.optim.SGD(netG.parameters(), lr=0.01)
loss_fn = nn.BCEWithLogitsLoss()
for i in range(3):
    netD.zero_grad()
    fake = netG(torch.randn(4, 2))
    errD = loss_fn(netD(torch.randn(4, 6)), torch.ones(4, 1)) + loss_fn(netD(fake), torch.zeros(4, 1))
    errD.backward()
    netG.zero_grad()
    optimizerD.step()
    errG = loss_fn(netD(netG(torch.randn(4, 2))), torch.ones(4, 1))
    errG.backward()
    optimizerG.step()
    print(i, errD.item(), errG.item())
