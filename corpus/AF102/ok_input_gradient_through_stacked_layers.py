# AF102 negative: a receptive-field probe. One masked convolution is applied again and again to its own output, and after each application a helper back-propagates the centre pixel with retain_graph=True and reads the gradient of the input image (made a leaf with requires_grad_()). Each backward must reach the input through every earlier layer: the growing graph is what is being measured, nothing frees it and no optimizer changes a weight under it, so there is nothing to detach.
import torch
from torch import nn


class MaskedConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 3, padding=1)
        mask = torch.ones(1, 1, 3, 3)
        mask[:, :, 2, :] = 0
        mask[:, :, 1, 2] = 0
        self.register_buffer("mask", mask)

    def forward(self, x):
        return nn.functional.conv2d(x, self.conv.weight * self.mask, self.conv.bias, padding=1)


def input_gradient(image, features):
    centre = features[0, :, image.shape[2] // 2, image.shape[3] // 2].sum()
    centre.backward(retain_graph=True)
    seen = image.grad.abs().sum().item()
    image.grad.zero_()
    return seen


if __name__ == "__main__":
    torch.manual_seed(0)
    layer = MaskedConv()
    image = torch.zeros(1, 1, 9, 9)
    image.requires_grad_()
    features = layer(image)
    for depth in range(4):
        features = layer(features)
        print(depth, input_gradient(image, features))
