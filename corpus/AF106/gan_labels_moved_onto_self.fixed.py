# AF106: the discriminator's retain_graph=True keeps a graph nothing walks again (the generator step runs fresh forward passes); the label tensors moved onto `self` with `.to(device)` are data, not a graph that a later backward could need.
import torch
import torch.nn as nn


class GAN:
    def __init__(self, batch_size=8):
        self.G = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 4))
        self.D = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        self.G_optimizer = torch.optim.Adam(self.G.parameters(), lr=1e-3)
        self.D_optimizer = torch.optim.Adam(self.D.parameters(), lr=1e-3)
        self.criterion = nn.BCEWithLogitsLoss()
        self.batch_size = batch_size
        self.device = torch.device("cpu")

    def train(self, loader):
        self.y_real, self.y_fake = torch.ones(self.batch_size, 1), torch.zeros(self.batch_size, 1)
        self.y_real, self.y_fake = self.y_real.to(self.device), self.y_fake.to(self.device)
        for real in loader:
            z = torch.randn(self.batch_size, 3)
            self.D_optimizer.zero_grad()
            fake = self.G(z)
            d_loss = self.criterion(self.D(real), self.y_real) + self.criterion(self.D(fake), self.y_fake)
            d_loss.backward()
            self.D_optimizer.step()

            self.G_optimizer.zero_grad()
            fake = self.G(z)
            g_loss = self.criterion(self.D(fake), self.y_real)
            g_loss.backward()
            self.G_optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    GAN().train([torch.randn(8, 4) for _ in range(3)])
    print("done")
