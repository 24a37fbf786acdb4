# OK: the row-by-row in-place update (which would overwrite slices a convolution saved) runs only while the model is traced for export, where no backward runs; training takes the out-of-place branch.
import torch
import torch.nn as nn
import torch.nn.functional as F


class RowMessagePassing(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, (1, 3), padding=(0, 1))

    def forward(self, x):
        out = x
        if torch.jit.is_tracing():
            for i in range(1, out.shape[2]):
                out[:, :, i:i + 1, :] = out[:, :, i:i + 1, :].add(F.relu(self.conv(out[:, :, i - 1:i, :])))
        else:
            rows = [out[:, :, :1, :]]
            for i in range(1, out.shape[2]):
                rows.append(out[:, :, i:i + 1, :] + F.relu(self.conv(rows[-1])))
            out = torch.cat(rows, dim=2)
        return out


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), RowMessagePassing())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        model(torch.randn(2, 3, 6, 6)).pow(2).mean().backward()
        optimizer.step()
    print("done")
