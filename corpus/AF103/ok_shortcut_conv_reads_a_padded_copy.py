# AF103 negative: a pre-activation block whose main branch starts with an in-place leaky ReLU on its input, and whose learned shortcut is a padded conv block. The shortcut block pads before its convolution (the padding module is one of three kinds, chosen by a constructor argument, each of which returns a new tensor), so the convolution saved the padded copy and not the block's input: the later in-place activation on the input leaves nothing autograd needs.
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
        self.shortcut = PaddedConv(cin, cout, 1, activation="none")
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
