# AF102: hand-written Elman cell; `h` from tanh(x W + h U) is carried into the next online update.
import torch

torch.manual_seed(0)
n_in, n_hid = 4, 8
W_xh = (0.1 * torch.randn(n_in, n_hid)).requires_grad_()
W_hh = (0.1 * torch.randn(n_hid, n_hid)).requires_grad_()
w_out = torch.zeros(n_hid, 1, requires_grad=True)
opt = torch.optim.SGD([W_xh, W_hh, w_out], lr=0.01)

stream = torch.randn(20, 1, n_in)
signal = stream.sum(dim=2, keepdim=True)
h = torch.zeros(1, n_hid)
for t, x_t in enumerate(stream):
    h = h.detach()
    h = torch.tanh(x_t @ W_xh + h @ W_hh)
    err = (h @ w_out - signal[t]).pow(2).mean()
    opt.zero_grad()
    err.backward()
    opt.step()
