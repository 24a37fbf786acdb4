# doctor: no finding: the script imports a module that is not there (an ImportError no rule explains).
import torch

from augmentations import random_flip

torch.manual_seed(0)
images = random_flip(torch.randn(4, 3, 8, 8))
