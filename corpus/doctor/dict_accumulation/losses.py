"""The loss terms of the autoencoder, by name."""
import torch.nn.functional as F


def loss_terms(reconstruction, batch, code):
    return {
        "reconstruction": F.mse_loss(reconstruction, batch),
        "sparsity": code.abs().mean() * 0.01,
    }
