# AF103 positive: the same pre-activation block, but its shortcut block is built to apply its in-place leaky ReLU first. That activation writes the block's input in place and autograd keeps its result (the input itself) for backward; the main branch's own in-place activation then overwrites it. The constructor's arguments decide which way the block's forward goes; here it is the way that breaks backward.
import torch
from torch import nn


class PaddedConv(nn.Module):
    def __init__(self, cin, cout, kernel, padding=0, pad_mode="zero", activation="lrelu", act_first=False):
        super().__init__()
        if pad_mode == "reflect":
            self.pad = nn.ReflectionPad2d(padding)
        elif pad_mode == "replicate":
            self.pad = nn.ReplicationPad2d(padding)
        else:
            self.pad = nn.ZeroPad2d(padding)
        self.act_first = act_first
        if activation == "lrelu":
            self.act = nn.LeakyReLU(0.2, inplace=True)
        else:
            self.act = None
        self.conv = nn.Conv2d(cin, cout, kernel)

    def forward(self, x):
        if self.act_first and self.act:
            x = self.act(x)
        x = self.conv(self.pad(x))
        if not self.act_first and self.act:
            x = self.act(x)
        return x


class PreActBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.shortcut = PaddedConv(cin, cout, 1, act_first=True)
        self.main = PaddedConv(cin, cout, 3, padding=1, pad_mode="reflect", act_first=True)

    def forward(self, x):
        skip = self.shortcut(x)
        branch = self.main(x)
        return skip + branch


if __name__ == "__main__":
    torch.manual_seed(0)
    stem = nn.Conv2d(1, 4, 3, padding=1)
    model = nn.Sequential(stem, PreActBlock(4, 6), PreActBlock(6, 8))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(3):
        optimizer.zero_grad()
        model(torch.randn(2, 1, 8, 8)).pow(2).mean().backward()
        optimizer.step()
